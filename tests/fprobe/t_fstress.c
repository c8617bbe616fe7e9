/* t_fstress.c - cross-modification stress for function entries: executor
 * threads call a function while another thread switches its entry probe
 * (entry + exit handlers) on and off, for each entry form at every split
 * of the entry by a cache-line boundary (front|back bytes):
 *   clang NOP5: no split (8-byte CAS), 1|4 .. 4|1 (word patch once, then
 *               the call patch);
 *   gcc 90 x5:  no split and 1|4 .. 4|1 (always one byte, via the mirror).
 * The functions are written in assembly so that their entries sit exactly
 * where wanted; each is listed in __patchable_function_entries like a
 * compiler's. Bounded: FSTRESS_TOGGLES toggles or FSTRESS_SECONDS per case.
 *
 * `t_fstress broken` shows the harness can fail: it switches gcc's NOPs the
 * naive way (a whole `call` written over them byte by byte, and back) while
 * the executors run, in child processes, and expects most of them to die. */
#define _GNU_SOURCE
#define EDGEPROBE_IMPLEMENTATION /* this program's one copy of the implementation */
#include "edgeprobe.h"
#include "check.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* fs_<form>_<split>: returns its argument plus one. */
#define FS_FUNC(name, skip, nopbytes)                                          \
    ".text\n.p2align 6\n.skip " #skip ", 0xcc\n"                               \
    ".globl " #name "\n.type " #name ",@function\n" #name ":\n"                \
    ".byte " nopbytes "\n"                                                     \
    "lea 1(%rdi), %eax\nret\n.size " #name ", .-" #name "\n"                   \
    ".pushsection __patchable_function_entries,\"aw\",@progbits\n"             \
    ".p2align 3\n.quad " #name "\n.popsection\n"
#define NOP5 "0x0f,0x1f,0x44,0x00,0x08"
#define NOPS "0x90,0x90,0x90,0x90,0x90"
__asm__(FS_FUNC(fs_nop5_0, 8, NOP5) FS_FUNC(fs_nop5_1, 63, NOP5) FS_FUNC(fs_nop5_2, 62, NOP5)
        FS_FUNC(fs_nop5_3, 61, NOP5) FS_FUNC(fs_nop5_4, 60, NOP5)
        FS_FUNC(fs_nops_0, 8, NOPS) FS_FUNC(fs_nops_1, 63, NOPS) FS_FUNC(fs_nops_2, 62, NOPS)
        FS_FUNC(fs_nops_3, 61, NOPS) FS_FUNC(fs_nops_4, 60, NOPS));
typedef int (*fs_fn)(int);
extern int fs_nop5_0(int), fs_nop5_1(int), fs_nop5_2(int), fs_nop5_3(int), fs_nop5_4(int);
extern int fs_nops_0(int), fs_nops_1(int), fs_nops_2(int), fs_nops_3(int), fs_nops_4(int);

static volatile int running;
static volatile fs_fn current;
static long calls[4], entries, exits;
static int on_entry(edgeprobe_func_call *call, void *user) {
    (void)call, (void)user;
    __atomic_fetch_add(&entries, 1, __ATOMIC_RELAXED);
    return 1;
}
static void on_exit_(const edgeprobe_func_call *call, void *user) {
    (void)call, (void)user;
    __atomic_fetch_add(&exits, 1, __ATOMIC_RELAXED);
}
static volatile long started[2];
static unsigned long thread_skipped[2];
/* A variadic function: its caller passes the number of vector registers
 * used in %al, which gcc's prologue tests before saving %xmm0-7. The skip
 * path must keep %rax (it once loaded the thread's record through it). noipa:
 * with the attribute alone (not the flag), gcc's -fipa-ra let the caller
 * keep (double)(n & 7) in %xmm2 across the call, which the function leaves
 * alone and the exit path's C code need not (README, "Function probes"). */
#if defined(__clang__)
#define FS_NOIPA noinline /* clang has no -fipa-ra to turn off */
#else
#define FS_NOIPA noipa
#endif
__attribute__((FS_NOIPA, patchable_function_entry(5, 0))) double fs_vsum(int n, ...) {
    va_list ap;
    double s = 0;
    int i;
    va_start(ap, n);
    for (i = 0; i < n; i++) s += va_arg(ap, double);
    va_end(ap);
    return s;
}
static void *executor(void *arg) {
    long k = (long)arg, n = 0;
    int i = 0;
    while (running) {
        started[k] = n;
        fs_fn f = current;
        if (f(i) != i + 1) {
            fprintf(stderr, "wrong result\n");
            abort();
        }
        i++, n++;
    }
    calls[k] = n;
    thread_skipped[k] = edgeprobe_func_thread_skipped();
    return 0;
}
static void *va_executor(void *arg) {
    long k = (long)arg, n = 0;
    while (running) {
        started[k] = n;
        if (fs_vsum(3, 1.5, 2.25, (double)(n & 7)) != 3.75 + (double)(n & 7)) {
            fprintf(stderr, "fs_vsum: wrong sum: %%rax was not kept\n");
            abort();
        }
        n++;
    }
    calls[k] = n;
    thread_skipped[k] = edgeprobe_func_thread_skipped();
    return 0;
}
static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The naive protocol: the 5 bytes of `call bounce` stored one at a time over
 * the NOPs, then the NOPs one at a time. A thread between two NOPs, or
 * fetching a half-written call, runs garbage. */
__asm__(".text\n.globl fs_bounce\n.type fs_bounce,@function\nfs_bounce: ret\n.size fs_bounce, 1\n");
extern void fs_bounce(void);
static void broken_toggles(unsigned char *site, double seconds) {
    unsigned char call[5];
    int32_t rel = (int32_t)((intptr_t)(void *)fs_bounce - (intptr_t)(site + 5));
    double end = now() + seconds;
    int i;
    call[0] = 0xe8;
    memcpy(call + 1, &rel, 4);
    while (now() < end)
        for (i = 0; i < 5; i++) {
            int k;
            for (k = 0; k < 5; k++) ((volatile unsigned char *)site)[k] = call[k];
            for (k = 0; k < 5; k++) ((volatile unsigned char *)site)[k] = 0x90;
        }
}
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
static int broken_main(void) {
    int run, crashed = 0, runs = 6;
    for (run = 0; run < runs; run++) {
        pid_t pid = fork();
        if (pid == 0) {
            pthread_t th[2];
            unsigned char *site = (unsigned char *)(void *)fs_nops_2;
            int k;
            mprotect((void *)((uintptr_t)site & ~4095UL), 8192, PROT_READ | PROT_WRITE | PROT_EXEC);
            current = fs_nops_2;
            running = 1;
            for (k = 0; k < 2; k++) pthread_create(&th[k], 0, executor, (void *)(long)k);
            broken_toggles(site, 2.0);
            _exit(0); /* survived */
        } else {
            int status = 0;
            waitpid(pid, &status, 0);
            if (WIFSIGNALED(status)) crashed++;
            printf("broken run %d: %s\n", run, WIFSIGNALED(status) ? strsignal(WTERMSIG(status)) : "survived");
        }
    }
    printf("%d of %d runs of the naive protocol crashed\n", crashed, runs);
    return crashed * 2 >= runs ? 0 : 1;
}

/* THE SKIP PATH (edgeprobe_func_skip): the probe stays on while the
 * executors call the function and this thread arms and takes counts of
 * random sizes (in every other case also switching the probe off and on
 * again between some of them). With the probe on throughout, every call
 * either ran the entry handler or was skipped, exactly; each thread's own count adds up to the skips; and a
 * call skipped never hooks its exit. */
/* Unwinding from the stubs and the skip path (header 27.4): the controller
 * signals the executors; a handler that finds the interrupted PC in the
 * object's stub mapping (its stubs and the head that skips calls) unwinds
 * from there with libgcc's unwinder. Built with EDGEPROBE_FUNC_UNWIND_TABLE
 * (the mapping's unwind table registered), it must meet the return address
 * into the probed function (fn + 5, where the head returns to); a wrong
 * rule reads another word as that address. By default the unwinder must
 * stop at the interrupted PC, having met nothing else. */
#include <signal.h>
#include <ucontext.h>
#include <unwind.h>
static uintptr_t skip_lo, skip_hi;
static volatile uintptr_t skip_fn; /* the function the executors call */
static long sig_in_skip, sig_unwound;
struct unwind_look {
    uintptr_t want, last;
    int found, depth;
};
static _Unwind_Reason_Code unwind_step(struct _Unwind_Context *ctx, void *arg) {
    struct unwind_look *u = (struct unwind_look *)arg;
    uintptr_t ip = _Unwind_GetIP(ctx);
    if (ip == u->want || ip == u->want + 4) u->found = 1; /* + 4: after an endbr64 */
    u->last = ip;
    return ++u->depth > 64 ? _URC_END_OF_STACK : _URC_NO_REASON;
}
static void on_unwind_signal(int sig, siginfo_t *si, void *ucv) {
    uintptr_t pc = (uintptr_t)((ucontext_t *)ucv)->uc_mcontext.gregs[REG_RIP];
    struct unwind_look u = {skip_fn + 5, 0, 0, 0};
    (void)sig, (void)si;
    if (pc < skip_lo || pc >= skip_hi) return;
    __atomic_add_fetch(&sig_in_skip, 1, __ATOMIC_RELAXED);
    _Unwind_Backtrace(unwind_step, &u);
    if (EDGEPROBE_FUNC_UNWIND_TABLE ? u.found : !u.found && u.last == pc)
        __atomic_add_fetch(&sig_unwound, 1, __ATOMIC_RELAXED);
}
/* The stub mapping of the object that holds the probed functions. */
static void find_skip_path(void) {
    const edgeprobe__func_object *o = edgeprobe__this_object.root->fstate->objects;
    uintptr_t fn = (uintptr_t)(void *)fs_nop5_1;
    struct unwind_look warm = {0, 0, 0, 0};
    struct sigaction sa;
    while (o && !(o->text_lo <= fn && fn < o->text_hi)) o = o->next;
    CHECK(o && o->stubs);
    if (!o || !o->stubs) return;
    skip_lo = (uintptr_t)o->stubs;
    skip_hi = skip_lo + o->stubs_len;
    _Unwind_Backtrace(unwind_step, &warm); /* its first use reads the objects' tables */
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_unwind_signal;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigaction(SIGUSR1, &sa, 0);
}
static int find_id(const char *name) {
    int id;
    for (id = 0; id < edgeprobe_point_count(); id++) {
        edgeprobe_info info;
        if (edgeprobe_point_info(id, &info) == 0 && !strcmp(info.name, name)) return id;
    }
    return -1;
}
static void skip_case(const char *name, fs_fn fn, int toggle, long rounds, double seconds) {
    pthread_t th[2];
    int id = find_id(name), k;
    long t, skipped = 0, total = 0, r, toggled = 0, n;
    double end = now() + seconds;
    unsigned seed = 12345;
    CHECK(id >= 0);
    CHECK_EQ(edgeprobe_func_attach_id(id, on_entry, on_exit_, 0), 1);
    CHECK_EQ(edgeprobe_func_skip(id, 0), 0); /* never armed: nothing skipped */
    entries = exits = 0;
    current = fn;
    skip_fn = fn ? (uintptr_t)(void *)fn : (uintptr_t)(void *)fs_vsum;
    running = 1;
    started[0] = started[1] = 0;
    for (k = 0; k < 2; k++) pthread_create(&th[k], 0, fn ? executor : va_executor, (void *)(long)k);
    while ((started[0] < 1000 || started[1] < 1000) && now() < end) sched_yield();
    /* the rounds' time from here, and 100 rounds at least: on a loaded
     * machine the executors' start once took all of it (0 rounds, nothing
     * skipped) */
    end = now() + seconds;
    for (t = 0; t < rounds && (t < 100 || now() < end); t++) {
        long spin;
        seed = seed * 1103515245u + 12345u;
        n = 1 + (long)(seed >> 16) % 400;
        r = edgeprobe_func_skip(id, n);
        CHECK(r >= 0);
        skipped += r;
        for (spin = 0; spin < (long)((seed >> 8) & 1023); spin++) __asm__ volatile("pause");
        if (toggle && (seed & 0x30000) == 0) { /* off and on again while armed: the count stays */
            CHECK_EQ(edgeprobe_func_off(id), 1);
            CHECK_EQ(edgeprobe_func_on(id), 1);
            toggled++;
        }
    }
    r = edgeprobe_func_skip(id, 0);
    CHECK(r >= 0);
    skipped += r;
    running = 0;
    for (k = 0; k < 2; k++) pthread_join(th[k], 0), total += calls[k];
    CHECK_EQ(edgeprobe_func_skip(id, 0), 0); /* disarmed: no more */
    if (!toggled) CHECK_EQ(entries + skipped, total); /* the probe was on for every call */
    CHECK(entries + skipped <= total);
    CHECK(skipped > 0);
    CHECK_EQ(thread_skipped[0] + thread_skipped[1], skipped);
    CHECK(exits <= entries && entries - exits <= 2); /* skipped calls hook no exit */
    printf("skip %s: %ld rounds (%ld with the probe switched), %ld calls, %ld skipped, %ld to the handler\n", name, t,
           toggled, total, skipped, entries);
    CHECK_EQ(edgeprobe_func_detach(name), 1);
}
/* Every call skipped while the executors are signalled: most signals find
 * one in the skip path. */
static void skip_unwind(const char *name, fs_fn fn, long signals, double seconds) {
    pthread_t th[2];
    int id = find_id(name), k;
    long s;
    double end = now() + seconds;
    CHECK_EQ(edgeprobe_func_attach_id(id, on_entry, on_exit_, 0), 1);
    CHECK_EQ(edgeprobe_func_skip(id, 1l << 50), 0);
    current = fn;
    skip_fn = (uintptr_t)(void *)fn;
    running = 1;
    for (k = 0; k < 2; k++) pthread_create(&th[k], 0, executor, (void *)(long)k);
    for (s = 0; s < signals && now() < end; s++) {
        pthread_kill(th[s & 1], SIGUSR1);
        usleep(100);
    }
    running = 0;
    for (k = 0; k < 2; k++) pthread_join(th[k], 0);
    CHECK(edgeprobe_func_skip(id, 0) > 0);
    CHECK_EQ(edgeprobe_func_detach(name), 1);
}
static void skip_errors(void) {
    int id = find_id("fs_nop5_0");
    CHECK_EQ(edgeprobe_func_skip(-1, 5), EDGEPROBE_EINVAL);
    CHECK_EQ(edgeprobe_func_skip(edgeprobe_point_count(), 5), EDGEPROBE_EINVAL);
    CHECK_EQ(edgeprobe_func_skip(id, -1), EDGEPROBE_EINVAL);
    CHECK_EQ(edgeprobe_func_skip(id, 0), 0); /* the bad calls armed nothing */
}

int main(int argc, char **argv) {
    if (argc > 1 && !strcmp(argv[1], "broken")) return broken_main();
    static const struct { const char *name; fs_fn fn; int split; } cases[] = {
        {"fs_nop5_0", fs_nop5_0, 0}, {"fs_nop5_1", fs_nop5_1, 1}, {"fs_nop5_2", fs_nop5_2, 2},
        {"fs_nop5_3", fs_nop5_3, 3}, {"fs_nop5_4", fs_nop5_4, 4}, {"fs_nops_0", fs_nops_0, 0},
        {"fs_nops_1", fs_nops_1, 1}, {"fs_nops_2", fs_nops_2, 2}, {"fs_nops_3", fs_nops_3, 3},
        {"fs_nops_4", fs_nops_4, 4}};
    long toggles = getenv("FSTRESS_TOGGLES") ? atol(getenv("FSTRESS_TOGGLES")) : 20000;
    double seconds = getenv("FSTRESS_SECONDS") ? atof(getenv("FSTRESS_SECONDS")) : 1.5;
    const char *only = getenv("FSTRESS_ONLY");
    size_t c;
    CHECK(edgeprobe_func_scan() >= 10);
    { /* a straddling NOP5 another tool changed (still one 5-byte instruction):
       * refused before the word patch, left as it was */
        unsigned char *site = (unsigned char *)(void *)fs_nop5_2;
        int id;
        for (id = 0; id < edgeprobe_point_count(); id++) {
            edgeprobe_info info;
            if (edgeprobe_point_info(id, &info) == 0 && !strcmp(info.name, "fs_nop5_2")) break;
        }
        mprotect((void *)((uintptr_t)site & ~4095UL), 8192, PROT_READ | PROT_WRITE | PROT_EXEC);
        site[4] = 0x10;
        CHECK_EQ(edgeprobe_func_attach_id(id, on_entry, on_exit_, 0), EDGEPROBE_EBYTES);
        CHECK_EQ(site[0], 0x0f);
        CHECK_EQ(site[4], 0x10);
        site[4] = 0x08;
    }
    for (c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        pthread_t th[2];
        long t, done = 0, total = 0;
        int id = -1, k;
        uintptr_t site = (uintptr_t)(void *)cases[c].fn;
        double end = now() + seconds;
        if (only && !strstr(cases[c].name, only)) continue;
        CHECK_EQ(cases[c].split ? 64 - (site & 63) : 0, cases[c].split); /* placed as meant */
        for (t = 0; t < edgeprobe_point_count(); t++) {
            edgeprobe_info info;
            if (edgeprobe_point_info((int)t, &info) == 0 && !strcmp(info.name, cases[c].name)) id = (int)t;
        }
        CHECK(id >= 0);
        CHECK_EQ(edgeprobe_func_attach_id(id, on_entry, on_exit_, 0), 1);
        CHECK_EQ(edgeprobe_func_off(id), 1);
        entries = exits = 0;
        current = cases[c].fn;
        running = 1;
        started[0] = started[1] = 0;
        for (k = 0; k < 2; k++) pthread_create(&th[k], 0, executor, (void *)(long)k);
        while ((started[0] < 1000 || started[1] < 1000) && now() < end) sched_yield();
        for (t = 0; t < toggles && now() < end; t++) {
            long spin;
            CHECK_EQ(edgeprobe_func_on(id), 1);
            for (spin = 0; spin < (t & 255); spin++) __asm__ volatile("pause");
            CHECK_EQ(edgeprobe_func_off(id), 1);
            done++;
        }
        running = 0;
        for (k = 0; k < 2; k++) pthread_join(th[k], 0), total += calls[k];
        CHECK(entries > 0 || done < 100);
        CHECK(exits <= entries);
        CHECK(entries - exits <= 2); /* at most one call in flight per executor */
        printf("%s: split %d, %ld toggles, %ld calls, %ld probed\n", cases[c].name, cases[c].split, done, total, entries);
        CHECK_EQ(edgeprobe_func_detach(cases[c].name), 1); /* off already: unbound */
    }
    skip_errors();
    find_skip_path();
    for (c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        if (only && !strstr(cases[c].name, only)) continue;
        skip_case(cases[c].name, cases[c].fn, (int)(c & 1), toggles, seconds / 2);
    }
    if (!only) skip_case("fs_vsum", 0, 0, toggles, seconds / 2);
    skip_unwind("fs_nop5_1", fs_nop5_1, 3000, seconds / 2);
    skip_unwind("fs_nops_3", fs_nops_3, 3000, seconds / 2);
    printf("signals that found an executor in a stub or the skip path: %ld, %s: %ld\n", sig_in_skip,
           EDGEPROBE_FUNC_UNWIND_TABLE ? "unwound through it" : "unwinding stopped there", sig_unwound);
    CHECK(sig_in_skip > 0);
    CHECK_EQ(sig_unwound, sig_in_skip);
    return check_done("t_fstress");
}
