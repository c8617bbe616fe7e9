/* selftest.c - does the profiler (tools/prof_agent.c) pair entries and
 * exits right while it toggles probes? Built with -finstrument-functions.
 * Functions with known minimum durations (busy-waits on the TSC) run in two
 * threads, with recursion, an inlined function, longjmp out of nested
 * calls, and void functions (vtail; thrower on the path that returns) whose
 * exit hook gcc -O2 tail-calls unless -fno-optimize-sibling-calls. The
 * profiled run (the child) logs the TSC at the start and end of every
 * function body and gets every sample from the profiler
 * (edgeprobe_profiler_on_sample); then it checks, and the report is checked:
 *   - every sample pairs the entry and exit of ONE invocation: the first
 *     body start after the sample's entry and the last body end before its
 *     exit must be the same invocation;
 *   - the program still did every call (a probe patch must never remove a
 *     call of the function itself);
 *   - every function was sampled, except those whose exit hook the build
 *     tail-called (--tail-called F,G: the test driver reads them from the
 *     disassembly). Such an exit is a `jmp` to the hook from a frame already
 *     popped: its return address is the caller's, so edgeprobe's provider
 *     finds no call of the hook to switch and binds no handler to it (the
 *     header's rule). The profiler cannot time those functions; it must name
 *     them in the report as not observable, and nothing else;
 *   - no sample is shorter than the function's busy-wait (a mismatched
 *     entry/exit pair would produce one);
 *   - the shadow stack never overflowed (frames longjmp skipped are dropped);
 *   - the median is near the busy-wait (within 4x + 5000 ticks).
 * Run by tests/drivers/prof.sh under `edgeprobe prof` (the preloaded
 * profiler), and self-contained with the profiler linked in:
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

/* Binary search in one thread's body log: the first event after tsc
 * (after = 1), or the last one before it (after = 0); l->ne if none. */
static NOI unsigned find_event(const tlog *l, unsigned long long tsc, int after) {
    unsigned lo = 0, hi = l->ne;
    while (lo < hi) {
        unsigned mid = (lo + hi) / 2;
        if (after ? l->e[mid].tsc <= tsc : l->e[mid].tsc < tsc) lo = mid + 1;
        else hi = mid;
    }
    return after ? lo : (lo ? lo - 1 : l->ne);
}

/* Does sample sm (of function fid) span exactly one call: the first body
 * start after its entry and the last body end before its exit belong to
 * the same invocation? -1: not checkable (the log ended first). */
static NOI int pairs_one_call(const tlog *l, const smp *sm, unsigned fid) {
    unsigned a, b;
    if (!l->ne || sm->tx > l->e[l->ne - 1].tsc) return -1;
    a = find_event(l, sm->te, 1);
    b = find_event(l, sm->tx, 0);
    return a < l->ne && b < l->ne && !l->e[a].end && l->e[a].fid == fid && l->e[b].end && l->e[b].fid == fid &&
           l->e[a].inv == l->e[b].inv;
}

/* The profiled run: two threads for 1.2 s, then every sample the profiler
 * reported is checked against the body log. 3: a call was lost; 4: a
 * sample paired two different calls (or there was none). */
static NOI int child_main(void) {
    uintptr_t addr[NF] = {(uintptr_t)f_2k, (uintptr_t)f_20k, (uintptr_t)outer, (uintptr_t)tiny,
                          (uintptr_t)host, (uintptr_t)rec,  (uintptr_t)vtail, (uintptr_t)thrower,
                          (uintptr_t)middle, (uintptr_t)catcher};
    unsigned long long good = 0, bad = 0, skipped = 0;
    pthread_t th, st;
    tlog *l;
    pthread_create(&th, 0, worker, 0);
    pthread_create(&st, 0, stopper, 0);
    work();
    pthread_join(th, 0);
    pthread_join(st, 0);
    if (vtail_calls != vtail_done) {
        fprintf(stderr, "selftest: vtail ran %llu times for %llu calls\n", vtail_done, vtail_calls);
        return 3;
    }
    for (l = all_logs; l; l = l->next) {
        unsigned k, fid;
        for (k = 0; k < l->ns; k++) {
            const smp *sm = &l->s[k];
            int one;
            for (fid = 0; fid < NF && addr[fid] != sm->fn; fid++) {}
            one = fid == NF ? -1 : pairs_one_call(l, sm, fid);
            if (one < 0) skipped++;
            else if (one) good++;
            else if (bad++ < 5)
                fprintf(stderr, "selftest: sample of function %u (%llu ticks) spans more than one call\n", fid,
                        sm->tx - sm->te);
        }
    }
    printf("selftest child: %llu iterations, %llu longjmps; samples checked against the body log: "
           "%llu paired one call, %llu did not, %llu not checkable\n", vtail_calls, catches, good, bad, skipped);
    return bad || !good ? 4 : 0;
}

/* Is name in the comma-separated list? */
static NOI int listed(const char *list, const char *name) {
    size_t n = strlen(name);
    const char *p;
    for (p = list; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : 0)
        if (!strncmp(p, name, n) && (p[n] == ',' || !p[n])) return 1;
    return 0;
}

/* The report's list of functions whose exit the profiler cannot observe
 * ("exit not observable ...: N functions: a b c"), comma-separated in out. */
static NOI void unobservable_names(const char *line, char *out, size_t cap) {
    const char *p = strstr(line, " functions: ");
    size_t n = 0;
    out[0] = 0;
    if (strncmp(line, "exit not observable", 19) || !p) return;
    for (p += 12; *p && *p != '\n' && n + 1 < cap; p++) out[n++] = *p == ' ' ? ',' : *p;
    out[n] = 0;
}

/* Frames that longjmp skipped must be dropped: this program's calls nest
 * a dozen deep at most, so a shadow stack that filled up (and was emptied,
 * losing samples) kept dead frames. */
static NOI int no_overflow(const char *line) {
    const char *p = strstr(line, "stack overflows: ");
    if (p && atoi(p + 17) == 0) return 1;
    printf("FAIL the shadow stack overflowed (or the report does not say): dead frames were kept\n");
    return 0;
}

/* Names in the report's not-observable list that the build did not
 * tail-call: each is a failure. */
static NOI int unexpected_names(const char *hidden, const char *tail) {
    char name[128];
    const char *p;
    size_t n;
    int bad = 0;
    for (p = hidden; *p; p += n + (p[n] == ',')) {
        n = strcspn(p, ",");
        snprintf(name, sizeof name, "%.*s", (int)n, p);
        if (listed(tail, name)) continue;
        printf("FAIL %-8s named as not observable, but its exit hook is not tail-called\n", name);
        bad++;
    }
    return bad;
}

/* One table row against its expectation: sampled, never shorter than the
 * busy-wait (a mismatched pair would be), median near it. 1 ok, 0 not. */
static NOI int row_ok(const expect *e, const char *line) {
    char name[128];
    unsigned long long sampled, mn;
    double est, mean, p50, p99;
    int ok;
    if (sscanf(line, "%127s %llu %lf %llu %lf %lf %lf", name, &sampled, &est, &mn, &mean, &p50, &p99) != 7) return 0;
    ok = sampled > 0 && mn >= e->min && p50 >= 0.97 * e->min && p50 <= 4.0 * e->min + 5000;
    printf("%s %-8s sampled %6llu  min %8llu  p50 %8.0f  p99 %9.0f  (busy-wait %llu ticks)\n", ok ? "ok  " : "FAIL",
           name, sampled, mn, p50, p99, e->min);
    return ok;
}
/* The first word of a line, in name. */
static NOI void first_word(const char *line, char *name, size_t cap) {
    size_t n = 0;
    while (line[n] && line[n] != ' ' && line[n] != '\n' && n + 1 < cap) name[n] = line[n], n++;
    name[n] = 0;
}

/* Check the report. tail: the functions whose exit hook the compiler
 * tail-called (the test driver reads them from the disassembly): the
 * profiler cannot time those and must name them as not observable; every
 * other function must be sampled with plausible latencies. */
static NOI int check_report(const char *report, const char *tail) {
    char line[4096], name[128], hidden[1024] = "";
    int found[NEXP] = {0}, pass = 0, fail = 0, i;
    FILE *f = fopen(report, "r");
    if (!f) {
        printf("FAIL no report %s\n0 passed, 1 failed\n", report);
        return 1;
    }
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, "edgeprobe-prof-summary", 22) || !strncmp(line, "probe sites", 11) ||
            !strncmp(line, "toggles", 7) || !strncmp(line, "handler", 7) || !strncmp(line, "exit not", 8))
            printf("  %s", line);
        if (!hidden[0]) unobservable_names(line, hidden, sizeof hidden);
        if (!strncmp(line, "handler", 7)) fail += !no_overflow(line);
        first_word(line, name, sizeof name);
        for (i = 0; i < (int)NEXP; i++) {
            if (strcmp(name, expects[i].name)) continue;
            found[i] = 1;
            if (listed(tail, name)) {
                printf("FAIL %-8s sampled, although its exit hook is tail-called\n", name);
                fail++;
            } else {
                row_ok(&expects[i], line) ? pass++ : fail++;
            }
        }
    }
    fclose(f);
    for (i = 0; i < (int)NEXP; i++) {
        const char *fn = expects[i].name;
        int tc = listed(tail, fn), named = listed(hidden, fn);
        if (found[i]) {
            if (named) printf("FAIL %-8s sampled and also named as not observable\n", fn), fail++;
        } else if (tc && named) {
            printf("ok   %-8s not sampled: named as not observable (its exit hook is tail-called)\n", fn);
            pass++;
        } else {
            printf("FAIL %-8s never sampled%s\n", fn, tc ? ", and not named as not observable" : "");
            fail++;
        }
    }
    fail += unexpected_names(hidden, tail);
    printf("%d passed, %d failed\n", pass, fail);
    return fail != 0;
}

/* Self-contained run (the profiler linked into this program): re-run
 * this program as the profiled child, then check its report. */
static NOI int parent_main(char **argv, const char *tail) {
    char report[256];
    int status;
    pid_t pid;
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
    status = check_report(report, tail);
    remove(report);
    return status;
}

/*   selftest [--tail-called F,G]          run and check (profiler linked in)
 *   EP_SELFTEST_CHILD=1 selftest          the profiled run only (under
 *                                         `edgeprobe prof --top 0`)
 *   selftest --check REPORT [--tail-called F,G]   check that run's report */
NOI int main(int argc, char **argv) {
    const char *tail = "", *report = 0;
    int i;
    if (getenv("EP_SELFTEST_CHILD")) return child_main();
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--tail-called") && i + 1 < argc) tail = argv[++i];
        else if (!strcmp(argv[i], "--check") && i + 1 < argc) report = argv[++i];
        else {
            fprintf(stderr, "usage: selftest [--check REPORT] [--tail-called F,G]\n");
            return 2;
        }
    }
    return report ? check_report(report, tail) : parent_main(argv, tail);
}
