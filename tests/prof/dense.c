/* dense.c - calls a few ticks apart, counted in every part of an epoch
 * (tests/drivers/prof.sh, case prof-epoch-parts).
 *
 *     dense ROUNDS
 *
 * Build with -O2 -fpatchable-function-entry=5. Each round calls dense_leaf
 * LEAF_CALLS times in a tight loop (a few ticks each), then dense_tail
 * TAIL_CALLS times (the same, for a second function whose counts end in
 * the same parts), then dense_step once (a spin of STEP_TICKS: a handler
 * now and then between the runs of skipped calls). A count of dense_leaf
 * or dense_tail ends within microseconds of its start, so every mid-tick
 * finds it ended: the shape on which staggered counts (the agent's
 * STAGGERED COUNTS) restart a function at one mid-tick in four, where
 * restarting every ended count would restart it at all of them.
 * Prints one line per function: NAME CALLS. */
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))
enum { LEAF_CALLS = 20000, TAIL_CALLS = 20000, STEP_TICKS = 20000 };

static volatile unsigned long sink;

NOINLINE unsigned long dense_leaf(unsigned long x) { return x * 2654435761u + 1; }
NOINLINE unsigned long dense_tail(unsigned long x) { return (x ^ (x >> 7)) + 3; }
NOINLINE void dense_step(void) {
    unsigned long long t0 = __builtin_ia32_rdtsc();
    while (__builtin_ia32_rdtsc() - t0 < STEP_TICKS) {}
}

int main(int argc, char **argv) {
    long rounds = argc > 1 ? atol(argv[1]) : 1000, r, i;
    unsigned long x = 1;
    for (r = 0; r < rounds; r++) {
        for (i = 0; i < LEAF_CALLS; i++) x = dense_leaf(x);
        for (i = 0; i < TAIL_CALLS; i++) x = dense_tail(x);
        dense_step();
    }
    sink = x;
    printf("dense_leaf %ld\ndense_tail %ld\ndense_step %ld\n", rounds * LEAF_CALLS, rounds * TAIL_CALLS, rounds);
    return 0;
}
