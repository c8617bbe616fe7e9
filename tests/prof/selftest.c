/* selftest.c - does the profiler pair entries and exits right while it
 * toggles probes? Functions with known minimum durations (busy-waits on the
 * TSC) run in two threads, with recursion, an inlined function, longjmp out
 * of nested calls, and void functions whose exit hook gcc tail-calls (this
 * file is built WITHOUT -fno-optimize-sibling-calls on purpose). The parent
 * re-runs itself as a child under the profiler, reads the report and checks:
 *   - every sample pairs the entry and exit of ONE invocation: the child logs
 *     the TSC at the start and end of every function body, the profiler
 *     reports every sample (edgeprobe_profiler_on_sample), and the first body
 *     start after the sample's entry and the last body end before its exit
 *     must be the same invocation;
 *   - every function was sampled;
 *   - no sample is shorter than the function's busy-wait (a mismatched
 *     entry/exit pair would produce one);
 *   - the median is near the busy-wait (within 4x + 5000 ticks);
 *   - the program still did every call (a probe patch must never remove a
 *     call of the function itself).
 *     make -f bench/real.mk real-selftest
 * (run the parent with EDGEPROBE_PROF_MODE=none: it is profiled too, idly)
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define NOI __attribute__((no_instrument_function))
static NOI inline __attribute__((always_inline)) void spin(unsigned long long ticks) {
    unsigned long long t0 = __builtin_ia32_rdtsc();
    while (__builtin_ia32_rdtsc() - t0 < ticks) __builtin_ia32_pause();
}

static unsigned long long vtail_calls, vtail_done, catches;
static __thread jmp_buf *jb;

/* ---- ground truth: every body's start and end, per thread ---------------- */
enum { F_2K, F_20K, OUTER, TINY, HOST, REC, VTAIL, THROWER, MIDDLE, CATCHER, NF };
typedef struct { unsigned long long tsc; unsigned inv, fid, end; } ev;
typedef struct { uintptr_t fn; unsigned long long te, tx; } smp;
#define MAXEV (2u << 20)
#define MAXSMP (1u << 18)
typedef struct tlog { ev *e; smp *s; unsigned ne, ns; unsigned inv; struct tlog *next; } tlog;
static __thread tlog *lg;
static tlog *all_logs;
static pthread_mutex_t logs_mu = PTHREAD_MUTEX_INITIALIZER;
static NOI tlog *mylog(void) {
    if (!lg) {
        lg = calloc(1, sizeof *lg);
        lg->e = malloc(MAXEV * sizeof *lg->e);
        lg->s = malloc(MAXSMP * sizeof *lg->s);
        pthread_mutex_lock(&logs_mu);
        lg->next = all_logs;
        all_logs = lg;
        pthread_mutex_unlock(&logs_mu);
    }
    return lg;
}
static NOI inline __attribute__((always_inline)) unsigned log_start(unsigned fid) {
    tlog *l = mylog();
    unsigned inv = ++l->inv;
    if (l->ne < MAXEV) l->e[l->ne++] = (ev){__builtin_ia32_rdtsc(), inv, fid, 0};
    return inv;
}
static NOI inline __attribute__((always_inline)) void log_end(unsigned fid, unsigned inv) {
    tlog *l = mylog();
    if (l->ne < MAXEV) l->e[l->ne++] = (ev){__builtin_ia32_rdtsc(), inv, fid, 1};
}
/* called by the profiler, inside its handler, for every sample */
NOI void edgeprobe_profiler_on_sample(const char *name, uintptr_t fn, uint64_t te, uint64_t tx) {
    tlog *l = mylog();
    (void)name;
    if (l->ns < MAXSMP) l->s[l->ns++] = (smp){fn, te, tx};
}
#define BODY_START(fid) unsigned inv_ = log_start(fid)
#define BODY_END(fid) log_end(fid, inv_)

__attribute__((noinline)) int f_2k(int x) { BODY_START(F_2K); spin(2000); BODY_END(F_2K); return x + 1; }
__attribute__((noinline)) int f_20k(int x) { BODY_START(F_20K); spin(20000); BODY_END(F_20K); return x + 2; }
__attribute__((noinline)) int outer(int x) {
    int i;
    BODY_START(OUTER);
    for (i = 0; i < 3; i++) x = f_2k(x);
    spin(10000);
    BODY_END(OUTER);
    return x;
}
/* inlined into its caller: its probes sit at the caller's stack position */
static inline int tiny(int x) { BODY_START(TINY); spin(700); BODY_END(TINY); return x ^ 1; }
__attribute__((noinline)) int host(int x) {
    int r;
    BODY_START(HOST);
    r = tiny(x) + tiny(x + 1);
    BODY_END(HOST);
    return r;
}
/* recursion: rec(n) lasts at least 2000 * (n + 1) ticks */
__attribute__((noinline)) int rec(int n) {
    int r = 0;
    BODY_START(REC);
    spin(1000);
    if (n > 0) r = rec(n - 1);
    spin(1000);
    BODY_END(REC);
    return r + 1;
}
/* void: gcc -O2 ends it with `jmp __cyg_profile_func_exit` */
__attribute__((noinline)) void vtail(void) {
    BODY_START(VTAIL);
    spin(5000);
    __atomic_fetch_add(&vtail_done, 1, __ATOMIC_RELAXED);
    BODY_END(VTAIL);
}
/* longjmp out of two frames, half the time */
__attribute__((noinline)) void thrower(int i) {
    BODY_START(THROWER);
    spin(3000);
    if (i & 1) longjmp(*jb, 1);
    BODY_END(THROWER);
}
__attribute__((noinline)) int middle(int i) {
    BODY_START(MIDDLE);
    thrower(i);
    spin(100);
    BODY_END(MIDDLE);
    return i;
}
__attribute__((noinline)) int catcher(int i) {
    jmp_buf here;
    volatile int r = 0;
    jmp_buf *saved = jb;
    BODY_START(CATCHER);
    jb = &here;
    if (setjmp(here) == 0) r = middle(i);
    else __atomic_fetch_add(&catches, 1, __ATOMIC_RELAXED);
    jb = saved;
    r += f_2k(i);
    BODY_END(CATCHER);
    return r;
}

static volatile int stop;
static int work(void) {
    int x = 0, i = 0;
    while (!stop) {
        x += outer(i) + f_20k(i) + host(i) + rec(i % 6) + catcher(i);
        vtail();
        __atomic_fetch_add(&vtail_calls, 1, __ATOMIC_RELAXED);
        i++;
    }
    return x;
}
static void *worker(void *arg) {
    (void)arg;
    work();
    return 0;
}

typedef struct { const char *name; unsigned long long min; } expect;
static const expect expects[] = {
    {"f_2k", 2000}, {"f_20k", 20000}, {"outer", 16000}, {"tiny", 700}, {"host", 1400},
    {"rec", 2000}, {"vtail", 5000}, {"thrower", 3000}, {"middle", 3100}, {"catcher", 5000},
};
#define NEXP (sizeof expects / sizeof expects[0])

static void *stopper(void *arg) {
    (void)arg;
    usleep(1200 * 1000);
    stop = 1;
    return 0;
}

NOI int main(int argc, char **argv) {
    char report[256];
    int status, i, pass = 0, fail = 0;
    pid_t pid;
    FILE *f;
    char line[512];
    if (getenv("EP_SELFTEST_CHILD")) {
        pthread_t th, st;
        pthread_create(&th, 0, worker, 0);
        pthread_create(&st, 0, stopper, 0);
        work();
        pthread_join(th, 0);
        pthread_join(st, 0);
        if (vtail_calls != vtail_done) {
            fprintf(stderr, "selftest: vtail ran %llu times for %llu calls\n", vtail_done, vtail_calls);
            return 3;
        }
        {
            /* every sample must pair the entry and exit of one invocation */
            uintptr_t addr[NF] = {(uintptr_t)f_2k, (uintptr_t)f_20k, (uintptr_t)outer, (uintptr_t)tiny,
                                  (uintptr_t)host, (uintptr_t)rec,  (uintptr_t)vtail, (uintptr_t)thrower,
                                  (uintptr_t)middle, (uintptr_t)catcher};
            unsigned long long good = 0, bad = 0, skipped = 0;
            tlog *l;
            for (l = all_logs; l; l = l->next) {
                unsigned k;
                for (k = 0; k < l->ns; k++) {
                    const smp *sm = &l->s[k];
                    unsigned lo = 0, hi = l->ne, fid, a, b;
                    for (fid = 0; fid < NF && addr[fid] != sm->fn; fid++) {}
                    if (fid == NF || !l->ne || sm->tx > l->e[l->ne - 1].tsc) { skipped++; continue; }
                    while (lo < hi) { unsigned mid = (lo + hi) / 2; if (l->e[mid].tsc <= sm->te) lo = mid + 1; else hi = mid; }
                    a = lo; /* first event after the entry */
                    lo = 0, hi = l->ne;
                    while (lo < hi) { unsigned mid = (lo + hi) / 2; if (l->e[mid].tsc < sm->tx) lo = mid + 1; else hi = mid; }
                    b = lo - 1; /* last event before the exit */
                    if (a < l->ne && lo > 0 && !l->e[a].end && l->e[a].fid == fid && l->e[b].end && l->e[b].fid == fid &&
                        l->e[a].inv == l->e[b].inv)
                        good++;
                    else if (bad++ < 5)
                        fprintf(stderr, "selftest: sample of function %u (%llu ticks) spans more than one call\n", fid,
                                sm->tx - sm->te);
                }
            }
            printf("selftest child: %llu iterations, %llu longjmps; samples checked against the body log: "
                   "%llu paired one call, %llu did not, %llu not checkable\n", vtail_calls, catches, good, bad, skipped);
            if (bad || !good) return 4;
        }
        return 0;
    }
    snprintf(report, sizeof report, "/tmp/edgeprobe-selftest-%d.txt", (int)getpid());
    pid = fork();
    if (pid == 0) {
        setenv("EP_SELFTEST_CHILD", "1", 1);
        setenv("EDGEPROBE_PROF_MODE", "sample", 1);
        setenv("EDGEPROBE_PROF_OUT", report, 1);
        setenv("EDGEPROBE_PROF_TOP", "0", 1);
        execv("/proc/self/exe", argv);
        _exit(127);
    }
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status)) {
        printf("FAIL child exited with status %d (4: a sample paired two different calls)\n0 passed, 1 failed\n", status);
        return 1;
    }
    if (!(f = fopen(report, "r"))) {
        printf("FAIL no report %s\n0 passed, 1 failed\n", report);
        return 1;
    }
    {
        int found[NEXP] = {0};
        while (fgets(line, sizeof line, f)) {
            char name[128];
            unsigned long long sampled, mn;
            double est, mean, p50, p99;
            if (strncmp(line, "edgeprobe-prof-summary", 22) == 0 || strncmp(line, "probe sites", 11) == 0 ||
                strncmp(line, "toggles", 7) == 0 || strncmp(line, "handler", 7) == 0)
                printf("  %s", line);
            if (sscanf(line, "%127s %llu %lf %llu %lf %lf %lf", name, &sampled, &est, &mn, &mean, &p50, &p99) != 7)
                continue;
            for (i = 0; i < (int)NEXP; i++) {
                const expect *e = &expects[i];
                int ok;
                if (strcmp(name, e->name)) continue;
                found[i] = 1;
                ok = sampled > 0 && mn >= e->min && p50 >= 0.97 * e->min && p50 <= 4.0 * e->min + 5000;
                printf("%s %-8s sampled %6llu  min %8llu  p50 %8.0f  p99 %9.0f  (busy-wait %llu ticks)\n",
                       ok ? "ok  " : "FAIL", name, sampled, mn, p50, p99, e->min);
                ok ? pass++ : fail++;
            }
        }
        for (i = 0; i < (int)NEXP; i++)
            if (!found[i]) {
                printf("FAIL %-8s never sampled\n", expects[i].name);
                fail++;
            }
    }
    fclose(f);
    remove(report);
    printf("%d passed, %d failed\n", pass, fail);
    return fail != 0;
}
