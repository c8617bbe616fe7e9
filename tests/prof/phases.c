/* phases.c - a function whose call rate and duration vary together, to hold
 * `edgeprobe prof`'s latencies to the calls, not to the time (tests/drivers/
 * prof.sh, case prof-phases).
 *
 *     phases ROUNDS TRUTHFILE [time]
 *
 * Build with -O2 -fpatchable-function-entry=5. One thread, ROUNDS rounds of
 * two phases, as a server has them: BUSY, phase_f spins SHORT ticks,
 * BUSY_CALLS times back to back (thousands of calls an epoch); SPARSE,
 * phase_f spins LONG ticks, SPARSE_CALLS times (about a dozen calls an
 * epoch, each followed by as long outside it (idle), for longer than the
 * busy phase lasts). Nearly every call is a short
 * one, so the true p50 is SHORT and the true mean is near it; an epoch gives
 * up to K samples whatever its calls, so a profiler that weighs its samples
 * alike reports the sparse phase's LONG for both. The counts are fixed, not
 * the phases' lengths: the profiled run makes the same calls as the plain
 * one. TRUTHFILE gets one line:
 *     phase_f CALLS MEAN_TICKS P50_TICKS TOTAL_TICKS
 * with "time" every call is timed from its caller (run it so without the
 * profiler: those are the figures to match), else the last three are 0. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SHORT = 3000, LONG = 2000000, BUSY_CALLS = 10000, SPARSE_CALLS = 40 };

static inline __attribute__((always_inline)) void spin(unsigned long long ticks) {
    unsigned long long t0 = __builtin_ia32_rdtsc();
    while (__builtin_ia32_rdtsc() - t0 < ticks) {}
}
__attribute__((noinline)) void phase_f(unsigned long long ticks) { spin(ticks); }

static unsigned long long *durations, ncalls;
static int timing;
/* One call, timed from here when timing. */
static inline __attribute__((always_inline)) void call(unsigned long long ticks) {
    unsigned long long t0 = timing ? __builtin_ia32_rdtsc() : 0;
    phase_f(ticks);
    if (timing) durations[ncalls] = __builtin_ia32_rdtsc() - t0;
    ncalls++;
}
/* not probed: qsort's comparisons are no part of the profile */
__attribute__((patchable_function_entry(0, 0))) static int cmp_ull(const void *a, const void *b) {
    unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;
    return x < y ? -1 : x > y;
}
int main(int argc, char **argv) {
    long rounds, r, i;
    unsigned long long sum = 0;
    FILE *out;
    if (argc < 3 || argc > 4 || (rounds = atol(argv[1])) < 1 || (argc == 4 && strcmp(argv[3], "time"))) {
        fprintf(stderr, "usage: phases ROUNDS TRUTHFILE [time]\n");
        return 2;
    }
    timing = argc == 4;
    if (!(durations = calloc((size_t)rounds * (BUSY_CALLS + SPARSE_CALLS), sizeof *durations))) return 1;
    for (r = 0; r < rounds; r++) {
        for (i = 0; i < BUSY_CALLS; i++) call(SHORT);
        for (i = 0; i < SPARSE_CALLS; i++) {
            call(LONG);
            spin(LONG);
        }
    }
    for (i = 0; i < (long)ncalls; i++) sum += durations[i];
    qsort(durations, ncalls, sizeof *durations, cmp_ull);
    if (!(out = fopen(argv[2], "w"))) return 1;
    fprintf(out, "phase_f %llu %llu %llu %llu\n", ncalls, sum / ncalls, durations[ncalls / 2], sum);
    return fclose(out) ? 1 : 0;
}
