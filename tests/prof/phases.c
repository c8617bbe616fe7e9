/* phases.c - a function whose call rate and duration vary together, to hold
 * `edgeprobe prof`'s latencies to the calls, not to the time (tests/drivers/
 * prof.sh, case prof-phases).
 *
 *     phases ROUNDS OUTFILE
 *
 * Build with -O2 -fpatchable-function-entry=5. One thread, ROUNDS rounds of
 * two phases, as a server has them: BUSY, phase_f spins SHORT ticks,
 * BUSY_CALLS times back to back (thousands of calls an epoch); SPARSE,
 * phase_f sleeps 1 ms, SPARSE_CALLS times, each call followed by 1 ms
 * asleep outside it (a few calls an epoch, for many more epochs than the
 * busy phase lasts). Nearly every call is a short one, so the true p50 is
 * SHORT; an epoch gives up to K samples whatever its calls, so a profiler
 * that weighs its samples alike reports the sparse phase's 1 ms for it,
 * and a mean and a total far too high. The counts are fixed, not the
 * phases' lengths: the profiled run makes the same calls as the plain one.
 *
 * Every call is timed from its caller; OUTFILE gets one line:
 *     phase_f CALLS MEAN_TICKS P50_TICKS TOTAL_TICKS SHORT_P50_TICKS
 * (SHORT_P50_TICKS: the median of the short calls alone). Run without the
 * profiler, that gives the p50 to match. The mean and the total to match
 * are those of the profiled run itself, less the profiler's cost on each
 * call (the difference of the two runs' short medians: prof.sh): on a
 * loaded machine, preemptions move a run's mean by more than 10%.
 *
 * Why the long calls sleep rather than spin: a short call preempted for a
 * scheduler's slice lasts 1,000 times its length, and a few such calls
 * (0.1% of them, 40% of the short calls' time on the shared 2-core VM of
 * 2026-11-26) are in 10 samples an epoch once in many runs: the mean of
 * a sampled fast function is low by their part, whatever the weights.
 * Here the short calls' part of the total is small (about 5%), so that
 * limit stays within the tolerance; the weights are what is tested. A
 * sleeping call is hardly longer for the machine's load. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { SHORT = 3000, BUSY_CALLS = 3000, SPARSE_CALLS = 150 };
#define SLEEP_NS 1000000L

static inline __attribute__((always_inline)) void spin(unsigned long long ticks) {
    unsigned long long t0 = __builtin_ia32_rdtsc();
    while (__builtin_ia32_rdtsc() - t0 < ticks) {}
}
static void nap(void) {
    struct timespec ts = {0, SLEEP_NS};
    while (nanosleep(&ts, &ts)) {}
}
/* spins `ticks`, or sleeps SLEEP_NS when ticks is 0 */
__attribute__((noinline)) void phase_f(unsigned long long ticks) {
    if (ticks) spin(ticks);
    else nap();
}

static unsigned long long *durations, ncalls;
/* One call, timed from here (outside phase_f: no part of its duration). */
static inline __attribute__((always_inline)) void call(unsigned long long ticks) {
    unsigned long long t0 = __builtin_ia32_rdtsc();
    phase_f(ticks);
    durations[ncalls++] = __builtin_ia32_rdtsc() - t0;
}
/* not probed: qsort's comparisons are no part of the profile */
__attribute__((patchable_function_entry(0, 0))) static int cmp_ull(const void *a, const void *b) {
    unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;
    return x < y ? -1 : x > y;
}
int main(int argc, char **argv) {
    long rounds, r, i;
    unsigned long long sum = 0, nshort = 0, *shorts;
    FILE *out;
    if (argc != 3 || (rounds = atol(argv[1])) < 1) {
        fprintf(stderr, "usage: phases ROUNDS OUTFILE\n");
        return 2;
    }
    if (!(durations = calloc((size_t)rounds * (BUSY_CALLS + SPARSE_CALLS), sizeof *durations)) ||
        !(shorts = calloc((size_t)rounds * BUSY_CALLS, sizeof *shorts)))
        return 1;
    for (r = 0; r < rounds; r++) {
        for (i = 0; i < BUSY_CALLS; i++) call(SHORT);
        for (i = 0; i < SPARSE_CALLS; i++) {
            call(0);
            nap();
        }
    }
    for (i = 0; i < (long)ncalls; i++) {
        sum += durations[i];
        if (i % (BUSY_CALLS + SPARSE_CALLS) < BUSY_CALLS) shorts[nshort++] = durations[i];
    }
    qsort(durations, ncalls, sizeof *durations, cmp_ull);
    qsort(shorts, nshort, sizeof *shorts, cmp_ull);
    if (!(out = fopen(argv[2], "w"))) return 1;
    fprintf(out, "phase_f %llu %llu %llu %llu %llu\n", ncalls, sum / ncalls, durations[ncalls / 2], sum,
            shorts[nshort / 2]);
    return fclose(out) ? 1 : 0;
}
