/* The low-level patching API: word patch (sync, async, batch), call patch
 * at every split, serialising mode, the SIGTRAP handler's emulation and
 * chaining, and every bad input. Executed code checks behaviour; bytes are
 * read back to check form. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <unistd.h>
#define EDGEPROBE_IMPLEMENTATION /* this program's one copy of the implementation */
#include "edgeprobe.h"
#include "check.h"
#include "code_region.h"

static const unsigned char NOP5[5] = {0x0f, 0x1f, 0x44, 0x00, 0x00};
static volatile int bumps;
__attribute__((noinline)) void bump(void) { bumps++; }
static void run(const unsigned char *site) { ((void (*)(void))site)(); }
/* Lines of the region used by each test, one apart. */
static unsigned char *line(int k) { return code_region + 64 * k; }

static void test_word_patch(void) {
    unsigned char call[5], *s;
    int split, rc;
    for (split = 0; split <= 4; split++) {
        s = code_site(line(2 * split), split, NOP5);
        code_call(call, s, bump);
        bumps = 0;
        run(s);
        CHECK_EQ(bumps, 0);
        CHECK_EQ(edgeprobe_patch(s, call, 5), 0);
        CHECK(memcmp(s, call, 5) == 0);
        CHECK_EQ(s[5], 0xc3); /* neighbour untouched */
        CHECK_EQ(s[-1], 0xcc);
        run(s);
        CHECK_EQ(bumps, 1);
        CHECK_EQ(edgeprobe_patch(s, NOP5, 5), 0);
        CHECK(memcmp(s, NOP5, 5) == 0);
        run(s);
        CHECK_EQ(bumps, 1);
        /* async: straddlers are in flight until two waits have passed */
        rc = edgeprobe_patch_start(s, call, 5);
        CHECK_EQ(rc, split ? 0 : 1);
        if (split) {
            CHECK_EQ(s[0], 0xcc);            /* locked */
            run(s);                          /* trapped and emulated */
            CHECK_EQ(bumps, 2);
            while ((rc = edgeprobe_patch_finish(s)) == 0) {}
            CHECK_EQ(rc, 1);
            CHECK_EQ(edgeprobe_patch_finish(s), EDGEPROBE_ESRCH);
        }
        CHECK(memcmp(s, call, 5) == 0);
        CHECK_EQ(edgeprobe_patch(s, NOP5, 5), 0);
    }
}

static void test_batch(void) {
    enum { N = 40 };
    edgeprobe_patch_req req[N];
    unsigned char calls[N][5], *sites[N];
    int results[N], i;
    for (i = 0; i < N; i++) {
        sites[i] = code_site(line(20 + i), 1 + i % 4, NOP5);
        code_call(calls[i], sites[i], bump);
        req[i].site = sites[i];
        req[i].insn = calls[i];
        req[i].len = 5;
    }
    CHECK_EQ(edgeprobe_patch_batch(req, N, results), 0);
    bumps = 0;
    for (i = 0; i < N; i++) {
        CHECK_EQ(results[i], 0);
        CHECK(memcmp(sites[i], calls[i], 5) == 0);
        run(sites[i]);
    }
    CHECK_EQ(bumps, N);
    req[3].len = 9; /* one bad request does not stop the others */
    for (i = 0; i < N; i++) req[i].insn = NOP5;
    CHECK_EQ(edgeprobe_patch_batch(req, N, results), 1);
    CHECK_EQ(results[3], EDGEPROBE_EINVAL);
    CHECK(memcmp(sites[3], calls[3], 5) == 0);
    CHECK(memcmp(sites[4], NOP5, 5) == 0);
}

static void test_call_patch(void) {
    int split;
    for (split = 0; split <= 4; split++) {
        unsigned char call[5], *s = line(80 + 2 * split);
        int32_t rel;
        s = split ? s + 64 - split : s + 8;
        code_call(call, s, bump);
        code_site(line(80 + 2 * split), split, call);
        memcpy(&rel, call + 1, 4);
        bumps = 0;
        run(s);
        CHECK_EQ(bumps, 1);
        CHECK_EQ(edgeprobe_call_off(s), 1);
        CHECK_EQ(edgeprobe_call_off(s), 0);
        run(s);
        CHECK_EQ(bumps, 1);
        switch (split) { /* the deactivated forms of the paper's section 6 */
        case 0: CHECK(memcmp(s, NOP5, 5) == 0); break;
        case 1: CHECK(s[0] == 0xe8 && memcmp(s + 1, call + 1, 4) != 0); break;
        default: CHECK(s[0] == 0xeb && s[1] == 3 && memcmp(s + 2, call + 2, 3) == 0); break;
        }
        /* only one side of the line boundary was written */
        if (split == 1) CHECK_EQ(s[0], call[0]);
        if (split >= 2) CHECK(memcmp(s + split, call + split, 5 - split) == 0);
        CHECK_EQ(edgeprobe_call_on(s, rel), 1);
        CHECK_EQ(edgeprobe_call_on(s, rel), 0);
        CHECK(memcmp(s, call, 5) == 0);
        run(s);
        CHECK_EQ(bumps, 2);
        CHECK_EQ(edgeprobe_call_on(s, rel + 1), EDGEPROBE_EBYTES); /* not our call */
    }
}

static void test_serialize(void) {
    unsigned char call[5], *s = code_site(line(100), 3, NOP5);
    int rc = edgeprobe_set_sync(EDGEPROBE_SYNC_SERIALIZE);
    code_call(call, s, bump);
    CHECK(rc == 0 || rc == EDGEPROBE_ENOTSUP);
    if (rc == 0) {
        CHECK_EQ(edgeprobe_sync_mode(), EDGEPROBE_SYNC_SERIALIZE);
        CHECK_EQ(edgeprobe_patch(s, call, 5), 0);
        CHECK(memcmp(s, call, 5) == 0);
        CHECK_EQ(edgeprobe_patch_start(s, NOP5, 5), 0);
        CHECK_EQ(edgeprobe_patch_finish(s), 1); /* membarriers need no waiting */
        CHECK(memcmp(s, NOP5, 5) == 0);
    } else {
        printf("membarrier SYNC_CORE unavailable here: serialising mode not tested\n");
    }
    CHECK_EQ(edgeprobe_set_sync((enum edgeprobe_sync)7), EDGEPROBE_EINVAL);
    CHECK_EQ(edgeprobe_set_sync(EDGEPROBE_SYNC_TMAX), 0);
    CHECK_EQ(edgeprobe_set_tmax(3000), 0);
    CHECK_EQ(edgeprobe_tmax(), 3000);
}

/* A thread that reaches a locked site whose instruction cannot be emulated
 * waits in the handler, then runs the new instruction. */
static unsigned char *slow_site;
static void *finish_later(void *arg) {
    (void)arg;
    usleep(20000);
    while (edgeprobe_patch_finish(slow_site) == 0) {}
    return NULL;
}
static void test_wait_in_handler(void) {
    /* mov $0x01000001,%eax ; ret -> mov $0x02000002,%eax ; ret, split 2|3:
     * both sides change, so the int3 protocol is needed. */
    unsigned char mov1[5] = {0xb8, 1, 0, 0, 1}, mov2[5] = {0xb8, 2, 0, 0, 2};
    pthread_t t;
    slow_site = code_site(line(110), 2, mov1);
    CHECK_EQ(((int (*)(void))slow_site)(), 0x01000001);
    CHECK_EQ(edgeprobe_patch_start(slow_site, mov2, 5), 0);
    pthread_create(&t, NULL, finish_later, NULL);
    CHECK_EQ(((int (*)(void))slow_site)(), 0x02000002);
    pthread_join(t, NULL);
    CHECK(memcmp(slow_site, mov2, 5) == 0);
}

/* The program's own SIGTRAP handler still sees its own int3. */
static volatile int user_traps;
static void user_trap(int sig) { (void)sig; user_traps++; }
static void test_trap_chaining(void) {
    unsigned char call[5], *s = code_site(line(120), 1, NOP5);
    signal(SIGTRAP, user_trap);
    code_call(call, s, bump);
    CHECK_EQ(edgeprobe_patch(s, call, 5), 0); /* installs edgeprobe's handler */
    __asm__ volatile("int3");
    CHECK_EQ(user_traps, 1);
    raise(SIGTRAP);
    CHECK_EQ(user_traps, 2);
}

static void test_bad_input(void) {
    unsigned char call[5], *s = code_site(line(130), 2, NOP5), *n = code_site(line(132), 0, NOP5);
    unsigned char nop2[2] = {0x66, 0x90}, before[16];
    code_call(call, s, bump);
    memcpy(before, s, 5);
    CHECK_EQ(edgeprobe_patch(NULL, call, 5), EDGEPROBE_EINVAL);
    CHECK_EQ(edgeprobe_patch(s, NULL, 5), EDGEPROBE_EINVAL);
    CHECK_EQ(edgeprobe_patch(s, call, 0), EDGEPROBE_EINVAL);
    CHECK_EQ(edgeprobe_patch(s, call, 9), EDGEPROBE_EINVAL);
    CHECK_EQ(edgeprobe_patch(s, call, 4), EDGEPROBE_EINVAL);   /* insn is 5 bytes, not 4 */
    CHECK_EQ(edgeprobe_patch(s, nop2, 2), EDGEPROBE_EBYTES);   /* site holds 5, not 2 */
    CHECK(memcmp(s, before, 5) == 0);
    CHECK_EQ(edgeprobe_patch_finish(s), EDGEPROBE_ESRCH);
    CHECK_EQ(edgeprobe_patch_finish(NULL), EDGEPROBE_EINVAL);
    CHECK_EQ(edgeprobe_patch_start(NULL, call, 5), EDGEPROBE_EINVAL);
    /* a second patcher of a site in flight, and an overlapping site */
    CHECK_EQ(edgeprobe_patch_start(s, call, 5), 0);
    memcpy(before, s - 8, 16);
    CHECK_EQ(edgeprobe_patch_start(s, NOP5, 5), EDGEPROBE_EBUSY);
    CHECK_EQ(edgeprobe_patch(s + 2, nop2, 2), EDGEPROBE_EBUSY);
    CHECK_EQ(edgeprobe_patch(s - 3, nop2, 2), EDGEPROBE_EBYTES); /* int3 pad, not 2 bytes */
    CHECK_EQ(edgeprobe_call_off(s), EDGEPROBE_EBYTES);
    CHECK(memcmp(s - 8, before, 16) == 0);
    while (edgeprobe_patch_finish(s) == 0) {}
    CHECK(memcmp(s, call, 5) == 0);
    /* call patch on something that is not a call */
    CHECK_EQ(edgeprobe_call_off(NULL), EDGEPROBE_EINVAL);
    CHECK_EQ(edgeprobe_call_on(NULL, 0), EDGEPROBE_EINVAL);
    CHECK_EQ(edgeprobe_call_on(n, 5), 1);               /* NOP5 is call-off form */
    code_write(n, "\x48\x89\xc7\x90\x90", 5);                  /* mov %rax,%rdi */
    CHECK_EQ(edgeprobe_call_off(n), EDGEPROBE_EBYTES);
    CHECK_EQ(edgeprobe_call_on(n, 5), EDGEPROBE_EBYTES);
    CHECK(memcmp(n, "\x48\x89\xc7\x90\x90", 5) == 0);
    /* an instruction the decoder refuses is never written */
    CHECK_EQ(edgeprobe_patch(n, "\xc5\xf8\x77", 3), EDGEPROBE_EINVAL); /* VEX vzeroupper */
}

/* Thousands of distinct straddlers, one after the other: the in-flight table
 * frees its entries, so neither capacity nor lookup cost depends on history. */
static void test_many_distinct_sites(void) {
    enum { SITES = 6000 };
    unsigned char *buf = mmap(NULL, 64 * (SITES + 1), PROT_READ | PROT_WRITE | PROT_EXEC,
                              MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    const unsigned char jmp0[5] = {0xe9, 0, 0, 0, 0};
    int i, fails = 0;
    CHECK(buf != MAP_FAILED);
    if (buf == MAP_FAILED) return;
    CHECK_EQ(edgeprobe_set_tmax(0), 0);
    for (i = 0; i < SITES; i++) {
        unsigned char *s = buf + 64 * i + 62; /* split 2|3 */
        memcpy(s, NOP5, 5);
        if (edgeprobe_patch(s, jmp0, 5) != 0 || memcmp(s, jmp0, 5) != 0) fails++;
    }
    CHECK_EQ(fails, 0);
    CHECK_EQ(edgeprobe_patch_start(buf + 62, NOP5, 5), 0); /* still room */
    while (edgeprobe_patch_finish(buf + 62) == 0) {}
    CHECK_EQ(edgeprobe_set_tmax(EDGEPROBE_TMAX_DEFAULT), 0);
    munmap(buf, 64 * (SITES + 1));
}

/* The thread that started a patch runs the site itself before finishing:
 * the instruction cannot be emulated, so the handler finishes the patch. */
static void test_own_site_in_flight(void) {
    unsigned char mov1[5] = {0xb8, 1, 0, 0, 1}, mov2[5] = {0xb8, 2, 0, 0, 2};
    unsigned char *s = code_site(line(140), 3, mov1);
    CHECK_EQ(edgeprobe_patch_start(s, mov2, 5), 0);
    CHECK_EQ(((int (*)(void))s)(), 0x02000002);
    CHECK(memcmp(s, mov2, 5) == 0);
    CHECK_EQ(edgeprobe_patch_finish(s), EDGEPROBE_ESRCH); /* already finished */
}

/* Someone else writes the back bytes between the steps: the patch is
 * abandoned, the int3 removed, and finish reports it. */
static void test_foreign_write_between_steps(void) {
    unsigned char call[5], *s = code_site(line(142), 2, NOP5);
    int rc;
    code_call(call, s, bump);
    CHECK_EQ(edgeprobe_patch_start(s, call, 5), 0);
    s[3] = 0x77; /* a foreign write to the back line (the page is writable) */
    while ((rc = edgeprobe_patch_finish(s)) == 0) {}
    CHECK_EQ(rc, EDGEPROBE_EBYTES);
    CHECK(s[0] == NOP5[0] && s[1] == NOP5[1]); /* front restored: no int3 left */
    CHECK_EQ(s[3], 0x77);
    CHECK_EQ(edgeprobe_patch_finish(s), EDGEPROBE_ESRCH);
}

int main(void) {
    test_many_distinct_sites();
    test_own_site_in_flight();
    test_foreign_write_between_steps();
    test_word_patch();
    test_batch();
    test_call_patch();
    test_serialize();
    test_wait_in_handler();
    test_trap_chaining();
    test_bad_input();
    return check_done("t_patch");
}
