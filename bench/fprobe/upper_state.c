/* upper_state.c - what a function probe costs the SSE code around it
 * (header section 27.1, "Upper halves"). A loop calls a probed function and
 * then does double-precision arithmetic (SSE, as any code built for x86-64's
 * baseline); ticks per iteration, medians of 2001 samples of 200 iterations,
 * with the probe off and with an empty entry handler on. A trampoline that
 * leaves the upper vector state dirty makes every SSE instruction after it
 * slow on Intel CPUs; one that leaves it clean costs the loop only its own
 * path. Built with -fpatchable-function-entry=5; bench/fprobe/upper_state.sh
 * runs it against an older header in the same run. */
#define EDGEPROBE_IMPLEMENTATION /* this program's one copy of the implementation */
#include "edgeprobe.h"

#include <stdio.h>
#include <stdlib.h>

#define SAMPLES 2001
#define ITERATIONS 200
#include "ticks.h"
__attribute__((noinline)) static double sse_after_calls(int n) {
    double d = 1;
    long r = 0;
    int i;
    for (i = 0; i < n; i++) {
        r = target(r);
        d = d * 1.000001 + (double)r * 0.5;
        d = d / 1.0000001;
    }
    return d;
}
static uint64_t median_ticks(void) {
    static uint64_t t[SAMPLES];
    int k;
    for (k = 0; k < SAMPLES; k++) {
        uint64_t a = tsc();
        volatile double d = sse_after_calls(ITERATIONS);
        (void)d;
        t[k] = (tsc() - a) / ITERATIONS;
    }
    return median(t, SAMPLES);
}
int main(void) {
    uint64_t off, on;
    if (edgeprobe_func_scan() < 0) return fprintf(stderr, "no function probes: build with -fpatchable-function-entry=5\n"), 1;
    off = median_ticks();
    if (edgeprobe_func_attach("target", entry_empty, 0, 0) != 1 || edgeprobe_func_enable("target") < 0)
        return fprintf(stderr, "cannot switch target on\n"), 1;
    on = median_ticks();
    printf("SSE loop around a probed call: off %lu, entry probe on %lu ticks per iteration (+%ld)\n",
           (unsigned long)off, (unsigned long)on, (long)(on - off));
    return 0;
}
