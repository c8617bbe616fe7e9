/* alternating.c - a function called steadily for a few epochs, then not at
 * all for as long, over and over (tests/drivers/prof.sh, case
 * prof-alternating): the shape of lua's garbage collector, whose sweep
 * calls luaM_free_ millions of times in some epochs and never in others.
 *
 *     alternating ROUNDS [PHASE_TICKS [HOT_CALL_TICKS]]
 *
 * Build with -O2 -fpatchable-function-entry=5. Each round the main thread
 * calls alt_hot (about HOT_CALL_TICKS cycles of work, default 300) for PHASE_TICKS, then spins as
 * long calling alt_cold once every COLD_STEP ticks. Prints one line per
 * function: NAME CALLS. */
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))
enum { COLD_STEP = 200000 };
static unsigned long long hot_call_ticks = 300; /* cycles of work a call */

static inline __attribute__((always_inline)) unsigned long long now(void) { return __builtin_ia32_rdtsc(); }
static volatile unsigned long sink;

/* A dependent chain of about hot_call_ticks cycles (a multiply and an add
 * a step), not a spin on the TSC: reading the TSC takes tens of cycles
 * here, so a short spin's length would be a multiple of that, and the
 * probe's few added cycles would move it by a whole reading or none. */
NOINLINE void alt_hot(void) {
    unsigned long x = sink, i;
    for (i = 0; i < hot_call_ticks / 4; i++) x = x * 2654435761u + 1;
    sink = x;
}
NOINLINE void alt_cold(void) { sink++; }

int main(int argc, char **argv) {
    int rounds = argc > 1 ? atoi(argv[1]) : 10, r;
    unsigned long long phase = argc > 2 ? strtoull(argv[2], 0, 0) : 60000000ull;
    unsigned long hot = 0, cold = 0;
    if (argc > 3) hot_call_ticks = strtoull(argv[3], 0, 0);
    for (r = 0; r < rounds; r++) {
        unsigned long long t0 = now(), next;
        while (now() - t0 < phase) { /* the clock read once in 64 calls */
            int i;
            for (i = 0; i < 64; i++) alt_hot();
            hot += 64;
        }
        for (t0 = next = now(); now() - t0 < phase;)
            if (now() >= next) {
                alt_cold();
                cold++;
                next += COLD_STEP;
            }
    }
    printf("alt_hot %lu\nalt_cold %lu\n", hot, cold);
    return 0;
}
