/* EDGEPROBE_PROBE: argument values of every width, signedness and kind
 * (registers, stack slots, constants), the red zone, every register intact
 * around an enabled site, wrong-kind and NULL attachment, toggling and
 * handler replacement under executor threads. The markers live in
 * tests/probe/sites.c, linked in or loaded as a shared library. */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#define EDGEPROBE_IMPLEMENTATION /* this program's one copy of the implementation */
#include "edgeprobe.h"
#include "check.h"
#include "probe/sites.h"

static uint64_t got[EDGEPROBE_ARGS_MAX];
static int got_n = -1, got_calls;
static const char *got_name;
static void record(const edgeprobe_info *info, void *user, const uint64_t *args, int nargs) {
    int i;
    (void)user;
    got_name = info->name;
    got_n = nargs;
    got_calls++;
    for (i = 0; i < nargs; i++) got[i] = args[i];
}
static void reset(void) {
    got_n = -1;
    got_name = NULL;
    memset(got, 0xee, sizeof got);
}

static void test_widths(void) {
    CHECK_EQ(edgeprobe_attach_args("pr_widths", record, NULL), 1);
    reset();
    widths(-128, 255, -32768, 65535, -2147483647 - 1, 4294967295u, INT64_MIN, UINT64_MAX);
    CHECK_EQ(got_n, 8);
    CHECK(got[0] == (uint64_t)-128);
    CHECK(got[1] == 255);
    CHECK(got[2] == (uint64_t)-32768);
    CHECK(got[3] == 65535);
    CHECK(got[4] == (uint64_t)(int64_t)INT32_MIN);
    CHECK(got[5] == 4294967295u);
    CHECK(got[6] == (uint64_t)INT64_MIN);
    CHECK(got[7] == UINT64_MAX);
    reset();
    widths(5, 6, 7, 8, 9, 10, 11, 12);
    CHECK(got[0] == 5 && got[1] == 6 && got[2] == 7 && got[3] == 8 && got[4] == 9 && got[5] == 10 && got[6] == 11 &&
          got[7] == 12);
    CHECK(edgeprobe_detach("pr_widths") == 1);
    reset();
    widths(1, 1, 1, 1, 1, 1, 1, 1);
    CHECK_EQ(got_n, -1); /* off: the NOP */
}
static void test_kinds(void) {
    static const char text[] = "hello";
    int local;
    CHECK_EQ(edgeprobe_attach_args("pr_kinds", record, NULL), 1);
    reset();
    kinds(text, &local, 1, BLUE, (char)-3, -77);
    CHECK_EQ(got_n, 7);
    CHECK(got[0] == (uintptr_t)text);
    CHECK(got[1] == (uintptr_t)&local);
    CHECK(got[2] == 1);
    CHECK(got[3] == BLUE);
    CHECK(got[4] == (uint64_t)(int64_t)(char)-3); /* char's own signedness */
    CHECK(got[5] == (uint64_t)-77);
    CHECK(got[6] != 0 && got[6] != 0xeeeeeeeeeeeeeeeeULL); /* the array decays to its address */
    CHECK(edgeprobe_detach("pr_kinds") == 1);
}
static void test_constants(void) {
    CHECK_EQ(edgeprobe_attach_args("pr_constants", record, NULL), 1);
    reset();
    constants();
    CHECK_EQ(got_n, 7);
    CHECK(got[0] == 0);
    CHECK(got[1] == (uint64_t)-1);
    CHECK(got[2] == 42);
    CHECK(got[3] == 0x7fffffffffffffffULL);
    CHECK(got[4] == 0x8000000000000000ULL);
    CHECK(got[5] == 0xffffffffu);
    CHECK(got[6] == 'x');
    CHECK(edgeprobe_detach("pr_constants") == 1);
}
static void test_twelve(void) {
    long want, have;
    CHECK_EQ(edgeprobe_attach_args("pr_twelve", record, NULL), 1);
    reset();
    have = twelve(-1, -2, -3, -4, 4000000000u, 0xfedcba9876543210UL, -7, -8, 65000, 250, 1L << 40, -12);
    want = -1 - 2 - 3 - 4 + 4000000000L + (long)0xfedcba9876543210UL - 7 - 8 + 65000 + 250 + (1L << 40) - 12;
    CHECK(have == want);
    CHECK_EQ(got_n, 12);
    CHECK(got[0] == (uint64_t)-1 && got[1] == (uint64_t)-2 && got[2] == (uint64_t)-3 && got[3] == (uint64_t)-4);
    CHECK(got[4] == 4000000000u);
    CHECK(got[5] == 0xfedcba9876543210UL);
    CHECK(got[6] == (uint64_t)-7 && got[7] == (uint64_t)-8);
    CHECK(got[8] == 65000 && got[9] == 250);
    CHECK(got[10] == 1ULL << 40);
    CHECK(got[11] == (uint64_t)-12);
    CHECK(edgeprobe_detach("pr_twelve") == 1);
}
static void test_redzone(void) {
    long off = redzone_leaf(12345), on;
    CHECK_EQ(edgeprobe_attach_args("pr_redzone", record, NULL), 1);
    reset();
    on = redzone_leaf(12345);
    CHECK(on == off);
    CHECK_EQ(got_n, 1);
    CHECK(got[0] == 12345);
    CHECK(edgeprobe_detach("pr_redzone") == 1);
}
static void test_no_args(void) {
    CHECK_EQ(edgeprobe_attach_args("pr_none", record, NULL), 1);
    reset();
    CHECK_EQ(no_args(4), 5);
    CHECK_EQ(got_n, 0);
    CHECK(got_name && !strcmp(got_name, "pr_none"));
    CHECK(edgeprobe_detach("pr_none") == 1);
}

/* ---- every register intact --------------------------------------------- */
/* One asm statement sets every general register (but %rsp), xmm0-15 and
 * the flags to known values, runs a PROBE site built from the header's own
 * marker text, and stores what it finds afterwards. The site's spec names
 * registers directly, so the handler also sees the values set here. */
uint64_t regs_after[16] __attribute__((visibility("hidden")));
uint64_t xmm_after[32] __attribute__((visibility("hidden")));
#define SEED(n) (0x1111111111111111ULL * (n) + 0x0102030405060708ULL)
static void clobber(const edgeprobe_info *info, void *user, const uint64_t *args, int nargs) {
    volatile double d = 1.5;
    int i;
    for (i = 0; i < 8; i++) d = d * 3.25 + i; /* uses xmm registers */
    record(info, user, args, nargs);
}
__attribute__((noinline)) static void run_register_site(void) {
    EDGEPROBE__MARK_DEF(mk);
#define SETR(r, n) "movabs $" #n "* 0x1111111111111111 + 0x0102030405060708, %%" #r "\n"
#define SETX(x, n) "movabs $" #n "* 0x1111111111111111 + 0x0102030405060708, %%rax\n movq %%rax, %%" #x "\n"
#define SAVER(r, i) "mov %%" #r ", regs_after+" #i "*8(%%rip)\n"
#define SAVEX(x, i) "movdqu %%" #x ", xmm_after+" #i "*16(%%rip)\n"
    __asm__ volatile("lea -128(%%rsp), %%rsp\n push %%rbp\n"
                     SETX(xmm0, 20) SETX(xmm1, 21) SETX(xmm2, 22) SETX(xmm3, 23) SETX(xmm4, 24) SETX(xmm5, 25)
                     SETX(xmm6, 26) SETX(xmm7, 27) SETX(xmm8, 28) SETX(xmm9, 29) SETX(xmm10, 30) SETX(xmm11, 31)
                     SETX(xmm12, 32) SETX(xmm13, 33) SETX(xmm14, 34) SETX(xmm15, 35)
                     SETR(rax, 0) SETR(rcx, 1) SETR(rdx, 2) SETR(rbx, 3) SETR(rbp, 5) SETR(rsi, 6) SETR(rdi, 7)
                     SETR(r8, 8) SETR(r9, 9) SETR(r10, 10) SETR(r11, 11) SETR(r12, 12) SETR(r13, 13) SETR(r14, 14)
                     SETR(r15, 15)
                     EDGEPROBE__PROBE_ASM(pr_regs, 6, "8@%%rbx -4@%%r12d 1@%%ah 2@%%r9w 8@(%%rsp) -4@$-9",
                                          "movq %%rbx, %%r11\n movq %%r12, %%r11\n movq %%rax, %%r11\n"
                                          "movq %%r9, %%r11\n movq (%%rsp), %%r11\n movq $-9, %%r11\n")
                     SAVER(rcx, 1) SAVER(rdx, 2) SAVER(rbx, 3) SAVER(rbp, 5) SAVER(rsi, 6) SAVER(rdi, 7)
                     SAVER(r8, 8) SAVER(r9, 9) SAVER(r10, 10) SAVER(r11, 11) SAVER(r12, 12) SAVER(r13, 13)
                     SAVER(r14, 14) SAVER(r15, 15)
                     SAVEX(xmm0, 0) SAVEX(xmm1, 1) SAVEX(xmm2, 2) SAVEX(xmm3, 3) SAVEX(xmm4, 4) SAVEX(xmm5, 5)
                     SAVEX(xmm6, 6) SAVEX(xmm7, 7) SAVEX(xmm8, 8) SAVEX(xmm9, 9) SAVEX(xmm10, 10) SAVEX(xmm11, 11)
                     SAVEX(xmm12, 12) SAVEX(xmm13, 13) SAVEX(xmm14, 14) SAVEX(xmm15, 15)
                     "pop %%rbp\n lea 128(%%rsp), %%rsp\n"
                     :
                     : EDGEPROBE__RECORD_OPS(mk, EDGEPROBE__KIND_FLAGS(EDGEPROBE_KIND_PROBE, EDGEPROBE__F_ARGS))
                     : "rax", "rbx", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11", "r12", "r13", "r14",
                       "r15", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9",
                       "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "memory", "cc");
}
static void check_registers(const char *when) {
    int i;
    for (i = 1; i < 16; i++)
        if (i != 4 && regs_after[i] != SEED(i)) {
            fprintf(stderr, "%s: register %d is %llx, want %llx\n", when, i, (unsigned long long)regs_after[i],
                    (unsigned long long)SEED(i));
            CHECK(0);
        }
    for (i = 0; i < 16; i++) {
        CHECK(xmm_after[2 * i] == SEED(20 + i));
        CHECK(xmm_after[2 * i + 1] == 0);
    }
}
static void test_registers(void) {
    memset(regs_after, 0, sizeof regs_after);
    run_register_site();
    check_registers("disabled");
    CHECK_EQ(edgeprobe_attach_args("pr_regs", clobber, NULL), 1);
    reset();
    memset(regs_after, 0, sizeof regs_after);
    run_register_site();
    check_registers("enabled");
    CHECK_EQ(got_n, 6);
    CHECK(got[0] == SEED(3));
    CHECK(got[1] == (uint64_t)(int64_t)(int32_t)SEED(12));
    CHECK(got[2] == ((SEED(0) >> 8) & 0xff));
    CHECK(got[3] == (SEED(9) & 0xffff));
    CHECK(got[4] != 0xeeeeeeeeeeeeeeeeULL); /* the saved %rbp slot: the frame's rbp */
    CHECK(got[5] == (uint64_t)-9);
    CHECK_EQ(edgeprobe_detach("pr_regs"), 1);
}

/* ---- bad input ----------------------------------------------------------- */
/* A site whose spec names a symbol its locating instruction does not hold
 * (a corrupted or hand-made argsite): refused when switched on, and logged
 * with the site's file:line (the driver checks the message, with
 * EDGEPROBE_VERBOSE=1). */
__attribute__((noinline)) static void run_bad_spec_site(void) {
    EDGEPROBE__MARK_DEF(mk);
    __asm__ volatile(EDGEPROBE__PROBE_ASM(pr_badspec, 1, "8@regs_after(%%rip)", "movq %%rax, %%r11\n")
                     : : EDGEPROBE__RECORD_OPS(mk, EDGEPROBE__KIND_FLAGS(EDGEPROBE_KIND_PROBE, EDGEPROBE__F_ARGS)));
}
static void handler_fn(const edgeprobe_info *info, void *user, uintptr_t value) { (void)info, (void)user, (void)value; }
static void test_bad_input(void) {
    CHECK_EQ(edgeprobe_attach_args("pr_widths", NULL, NULL), EDGEPROBE_EINVAL);
    CHECK_EQ(edgeprobe_attach_args(NULL, record, NULL), EDGEPROBE_EINVAL);
    CHECK_EQ(edgeprobe_attach("pr_widths", handler_fn, NULL), EDGEPROBE_EKIND); /* a PROBE: needs attach_args */
    CHECK_EQ(edgeprobe_attach_args("t_handler", record, NULL), EDGEPROBE_EKIND); /* a HANDLER */
    CHECK_EQ(edgeprobe_attach_args("t_trace", record, NULL), EDGEPROBE_EKIND);   /* a TRACE */
    CHECK_EQ(edgeprobe_attach_args("pr_nonexistent", record, NULL), EDGEPROBE_ENOENT);
    /* a spec that cannot be read: refused when first switched on, every
     * time, and nothing is written or bound */
    CHECK_EQ(edgeprobe_attach_args("pr_badspec", record, NULL), EDGEPROBE_EINVAL);
    CHECK_EQ(edgeprobe_enable("pr_badspec"), EDGEPROBE_EINVAL);
    reset();
    run_bad_spec_site();
    CHECK_EQ(got_n, -1);
    CHECK_EQ(edgeprobe_attach_args("t_*", record, NULL), 0); /* a glob skips other kinds */
    CHECK_EQ(edgeprobe_attach("pr_*", handler_fn, NULL), 0);
    CHECK(!strcmp(edgeprobe_strerror(EDGEPROBE_EKIND), "wrong kind of probe: edgeprobe_attach needs "
                                                       "EDGEPROBE_HANDLER, edgeprobe_attach_args needs EDGEPROBE_PROBE"));
    reset();
    widths(1, 2, 3, 4, 5, 6, 7, 8);
    CHECK_EQ(got_n, -1); /* nothing was switched on by the refusals */
}
__attribute__((noinline)) static void other_kinds(int v) {
    EDGEPROBE_HANDLER(t_handler, v);
    EDGEPROBE_TRACE(t_trace, "never %d\n", v);
}

/* ---- under load ------------------------------------------------------------
 * Executors run a PROBE site; the main thread toggles it, and replaces its
 * handler's user block, syncs, poisons and frees the old one. */
#define MAGIC 0xc0ffee42u
#define ROUNDS 600
struct block { unsigned magic; };
static volatile int stop;
static unsigned long long good, bad, wrong_args;
static void checked(const edgeprobe_info *info, void *user, const uint64_t *args, int nargs) {
    volatile struct block *b = (struct block *)user;
    int spin, ok = b->magic == MAGIC;
    (void)info;
    for (spin = 0; spin < 100; spin++) __asm__ volatile("pause");
    ok = ok && b->magic == MAGIC;
    if (nargs != 2 || args[1] != args[0] * 3) __atomic_fetch_add(&wrong_args, 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(ok ? &good : &bad, 1, __ATOMIC_RELAXED);
}
static void *executor(void *arg) {
    int x = 0;
    (void)arg;
    while (!stop) hot_site(++x & 0xffff);
    return NULL;
}
static void test_under_load(void) {
    pthread_t th[2];
    struct block *cur = malloc(sizeof *cur);
    struct timespec tick = {0, 20000};
    int i, t;
    cur->magic = MAGIC;
    CHECK_EQ(edgeprobe_attach_args("pr_hot", checked, cur), 1);
    for (t = 0; t < 2; t++) pthread_create(&th[t], NULL, executor, NULL);
    for (i = 0; i < ROUNDS; i++) {
        struct block *next = malloc(sizeof *next), *old = cur;
        next->magic = MAGIC;
        if (i % 3 == 0) { /* code changes too: off and on again under the executors */
            CHECK(edgeprobe_disable("pr_hot") == 1);
            CHECK(edgeprobe_enable("pr_hot") == 1);
        }
        CHECK(edgeprobe_attach_args("pr_hot", checked, next) == 1);
        cur = next;
        CHECK_EQ(edgeprobe_handler_sync(), 0);
        old->magic = 0xdead;
        free(old);
        if (i % 16 == 0) nanosleep(&tick, NULL);
    }
    { /* on a loaded machine the executors may not have run yet: give them
       * up to 10 s to meet the enabled probe before it goes */
        struct timespec ms = {0, 1000000};
        for (i = 0; i < 10000 && !__atomic_load_n(&good, __ATOMIC_RELAXED); i++) nanosleep(&ms, NULL);
    }
    CHECK_EQ(edgeprobe_detach("pr_hot"), 1);
    CHECK_EQ(edgeprobe_handler_sync(), 0);
    stop = 1;
    for (t = 0; t < 2; t++) pthread_join(th[t], NULL);
    free(cur);
    printf("t_probe: %llu handler calls under load, %llu bad, %llu with wrong arguments\n", good, bad, wrong_args);
    CHECK_EQ(bad, 0);
    CHECK_EQ(wrong_args, 0);
    CHECK(good > 0);
}

int main(void) {
    other_kinds(0);
    run_bad_spec_site();
    test_widths();
    test_kinds();
    test_constants();
    test_twelve();
    test_redzone();
    test_no_args();
    test_registers();
    test_bad_input();
    test_under_load();
    return check_done("t_probe");
}
