/* bursts.c - calls that come in dense bursts after idle phases, the shape
 * that made `edgeprobe prof` cost lua +40% (tests/drivers/prof.sh, case
 * prof-bursts).
 *
 *     bursts ROUNDS
 *
 * Build with -O2 -fpatchable-function-entry=5. Each round the main thread
 * spins IDLE_TICKS on the TSC calling nothing probed but burst_idle (once
 * every IDLE_STEP ticks), then calls burst_leaf BURST_CALLS times in a row
 * (a few tens of ticks each, through burst_mid). An interval that counted
 * nothing while the function was idle grows; the burst then meets it. Three
 * helper threads call burst_helper (a spin of HELPER_TICKS) until the main
 * thread is done, so four threads hit probes while burst_leaf, burst_mid
 * and burst_idle run on one. Prints one line per function: NAME CALLS. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))
enum { IDLE_TICKS = 60000000, IDLE_STEP = 200000, BURST_CALLS = 400000, HELPER_TICKS = 200000, HELPERS = 3 };

static inline __attribute__((always_inline)) unsigned long long now(void) { return __builtin_ia32_rdtsc(); }
static volatile unsigned long sink;
static volatile int done;
static unsigned long helper_calls[HELPERS];

NOINLINE unsigned long burst_leaf(unsigned long x) { return x * 2654435761u + 1; }
NOINLINE unsigned long burst_mid(unsigned long x) { return burst_leaf(x) ^ (x >> 3); }
NOINLINE void burst_idle(void) { sink++; }
NOINLINE void burst_helper(void) {
    unsigned long long t0 = now();
    while (now() - t0 < HELPER_TICKS) {}
}

static void *helper(void *arg) {
    unsigned long *calls = (unsigned long *)arg;
    while (!__atomic_load_n(&done, __ATOMIC_ACQUIRE)) {
        burst_helper();
        ++*calls;
    }
    return 0;
}

int main(int argc, char **argv) {
    int rounds = argc > 1 ? atoi(argv[1]) : 10, r, i;
    unsigned long s = 0, idle = 0;
    pthread_t th[HELPERS];
    for (i = 0; i < HELPERS; i++) pthread_create(&th[i], 0, helper, &helper_calls[i]);
    for (r = 0; r < rounds; r++) {
        unsigned long long t0 = now(), next = t0;
        while (now() - t0 < IDLE_TICKS)
            if (now() >= next) {
                burst_idle();
                idle++;
                next += IDLE_STEP;
            }
        for (i = 0; i < BURST_CALLS; i++) s += burst_mid((unsigned long)i);
    }
    sink = s;
    __atomic_store_n(&done, 1, __ATOMIC_RELEASE);
    for (i = 0; i < HELPERS; i++) pthread_join(th[i], 0);
    printf("burst_leaf %lu\nburst_mid %lu\nburst_idle %lu\nburst_helper %lu\n", (unsigned long)rounds * BURST_CALLS,
           (unsigned long)rounds * BURST_CALLS, idle, helper_calls[0] + helper_calls[1] + helper_calls[2]);
    return 0;
}
