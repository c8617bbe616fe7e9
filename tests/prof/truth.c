/* truth.c - a program whose profile is known in advance, to hold
 * `edgeprobe prof` to numbers (tests/drivers/prof.sh, case prof-truth-*).
 *
 *     truth THREADS ROUNDS TRUTHFILE [time]
 *
 * Build with -O2 -fpatchable-function-entry=5. Every truth_* function spins
 * on the TSC for a fixed number of ticks (its own part), so its inclusive
 * duration is known whatever the machine does, and every thread makes a
 * known number of calls of each. TRUTHFILE gets one line per function:
 *     NAME CALLS P50_TICKS
 * calls summed over threads, counted by the program itself; with "time",
 * P50_TICKS is the median duration of the calls as the caller saw them (run
 * it so without the profiler: that is the duration to match), else 0. The
 * shapes are the ones that
 * misled the profiler before:
 *   - truth_outer calls truth_tiny 20 times and truth_3k 4 times: its samples
 *     hold its callees' probe handlers, which must not count as its time;
 *   - truth_burst runs 200 times in a row every 50th round and never
 *     otherwise: a rate measured between bursts and applied to a burst (or
 *     the other way round) is far off;
 *   - truth_100k runs every 10th round; truth_30k once per round.
 * Durations are TSC ticks: spins end at the first rdtsc past the target,
 * some tens of ticks late. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOINLINE __attribute__((noinline))
static inline __attribute__((always_inline)) void spin(unsigned long long ticks) {
    unsigned long long t0 = __builtin_ia32_rdtsc();
    while (__builtin_ia32_rdtsc() - t0 < ticks) {}
}

enum { OWN_OUTER = 5000, OWN_TINY = 100, OWN_3K = 3000, OWN_10K = 10000, OWN_30K = 30000, OWN_100K = 100000,
       OWN_BURST = 4000, TINY_PER_OUTER = 20, K3_PER_OUTER = 4, BURST_EVERY = 50, BURST_LEN = 200,
       K100_EVERY = 10 };

enum { F_OUTER, F_TINY, F_3K, F_10K, F_30K, F_100K, F_BURST, NF };
static const char *const names[NF] = {"truth_outer", "truth_tiny", "truth_3k", "truth_10k",
                                      "truth_30k", "truth_100k", "truth_burst"};
static unsigned long long calls[NF]; /* summed over threads at their end */
static pthread_mutex_t calls_mu = PTHREAD_MUTEX_INITIALIZER;
static __thread unsigned long long my_calls[NF];
static long rounds;
static int timing; /* "time": every call timed from its caller */

/* The first MAXT durations of each function on each thread. */
#define MAXT 4096
static __thread unsigned my_n[NF];
static __thread unsigned long long *my_t[NF];
static unsigned long long *all_t[NF];
static unsigned all_n[NF];
/* Timing a callee adds its rdtsc pair to its caller: truth_outer is timed
 * on even rounds, its callees on odd ones. */
static __thread int time_inner;
#define CALL_IF(on, id, fn)                                                           \
    do {                                                                              \
        int on_ = (on) && my_n[id] < MAXT;                                            \
        unsigned long long t0_ = on_ ? __builtin_ia32_rdtsc() : 0;                    \
        fn();                                                                         \
        if (on_) my_t[id][my_n[id]++] = __builtin_ia32_rdtsc() - t0_;                 \
    } while (0)
#define CALL(id, fn) CALL_IF(timing, id, fn)
#define CALL_INNER(id, fn) CALL_IF(timing && time_inner, id, fn)

NOINLINE void truth_tiny(void) { my_calls[F_TINY]++; spin(OWN_TINY); }
NOINLINE void truth_3k(void) { my_calls[F_3K]++; spin(OWN_3K); }
NOINLINE void truth_10k(void) { my_calls[F_10K]++; spin(OWN_10K); }
NOINLINE void truth_30k(void) { my_calls[F_30K]++; spin(OWN_30K); }
NOINLINE void truth_100k(void) { my_calls[F_100K]++; spin(OWN_100K); }
NOINLINE void truth_burst(void) { my_calls[F_BURST]++; spin(OWN_BURST); }
/* Its own spin in five parts, between its callees. */
NOINLINE void truth_outer(void) {
    int i;
    my_calls[F_OUTER]++;
    for (i = 0; i < TINY_PER_OUTER; i++) {
        if (i % 4 == 0) spin(OWN_OUTER / 5);
        CALL_INNER(F_TINY, truth_tiny);
        if (i % 5 == 0) CALL_INNER(F_3K, truth_3k);
    }
    CALL_INNER(F_10K, truth_10k);
}

static NOINLINE void *worker(void *arg) {
    long r;
    int i;
    (void)arg;
    for (i = 0; i < NF; i++)
        if (!(my_t[i] = calloc(MAXT, sizeof *my_t[i]))) abort();
    for (r = 0; r < rounds; r++) {
        time_inner = r & 1;
        CALL_IF(timing && !time_inner, F_OUTER, truth_outer);
        CALL(F_30K, truth_30k);
        if (r % K100_EVERY == 0) CALL(F_100K, truth_100k);
        if (r % BURST_EVERY == BURST_EVERY - 1)
            for (i = 0; i < BURST_LEN; i++) CALL(F_BURST, truth_burst);
    }
    pthread_mutex_lock(&calls_mu);
    for (i = 0; i < NF; i++) {
        calls[i] += my_calls[i];
        memcpy(all_t[i] + all_n[i], my_t[i], my_n[i] * sizeof *my_t[i]);
        all_n[i] += my_n[i];
        free(my_t[i]);
    }
    pthread_mutex_unlock(&calls_mu);
    return 0;
}

static int cmp_ull(const void *a, const void *b) {
    unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;
    return x < y ? -1 : x > y;
}
static unsigned long long median(int id) {
    if (!all_n[id]) return 0;
    qsort(all_t[id], all_n[id], sizeof *all_t[id], cmp_ull);
    return all_t[id][all_n[id] / 2];
}

int main(int argc, char **argv) {
    pthread_t tid[64];
    long nthreads;
    int i;
    FILE *out;
    if (argc < 4 || argc > 5 || (nthreads = atol(argv[1])) < 1 || nthreads > 64 || (rounds = atol(argv[2])) < 1 ||
        (argc == 5 && strcmp(argv[4], "time"))) {
        fprintf(stderr, "usage: truth THREADS(1-64) ROUNDS TRUTHFILE [time]\n");
        return 2;
    }
    timing = argc == 5;
    for (i = 0; i < NF; i++)
        if (!(all_t[i] = calloc((size_t)nthreads * MAXT, sizeof *all_t[i]))) return 1;
    for (i = 0; i < nthreads; i++)
        if (pthread_create(&tid[i], 0, worker, 0)) return 1;
    for (i = 0; i < nthreads; i++) pthread_join(tid[i], 0);
    if (!(out = fopen(argv[3], "w"))) return 1;
    for (i = 0; i < NF; i++) fprintf(out, "%s %llu %llu\n", names[i], calls[i], median(i));
    return fclose(out) ? 1 : 0;
}
