/* bench/real/skip_cost.c - what a call the entry trampoline skips
 * (edgeprobe_func_skip) costs inside a real program, against the tight loop
 * of bench/fprobe/cost.c. Preloaded into a program built with
 * -fpatchable-function-entry=5 (bench/real/skip_cost.sh): every function
 * probe gets an empty entry handler and a count armed far beyond the run, so
 * every call of every function takes the skip path; at exit the calls
 * skipped go to stderr. The script compares the CPU time with a plain run
 * of the same binary. */
#define _GNU_SOURCE
#define EDGEPROBE_IMPLEMENTATION
#include "edgeprobe.h"
#include <stdio.h>
#include <stdlib.h>

static int nothing(edgeprobe_func_call *call, void *user) { return (void)call, (void)user, 0; }

/* SKIP_COST_HANDLER=1: no count armed, every call runs the empty handler
 * instead (what a call that reaches a handler costs in the same program) */
static long handled;
static int count_handled(edgeprobe_func_call *call, void *user) {
    (void)call, (void)user;
    __atomic_fetch_add(&handled, 1, __ATOMIC_RELAXED);
    return 0;
}
static int through_handler;
__attribute__((constructor)) static void arm_everything(void) {
    int id, n = edgeprobe_func_scan() > 0 ? edgeprobe_point_count() : 0;
    through_handler = getenv("SKIP_COST_HANDLER") != 0;
    for (id = 0; id < n; id++)
        if (edgeprobe_func_attach_id(id, through_handler ? count_handled : nothing, 0, 0) > 0 && !through_handler)
            edgeprobe_func_skip(id, 1l << 50);
}
__attribute__((destructor)) static void count_skipped(void) {
    long total = 0;
    int id, n = edgeprobe_point_count();
    for (id = 0; id < n; id++) {
        long k = edgeprobe_func_skip(id, 0);
        if (k > 0) total += k;
    }
    fprintf(stderr, "skipped %ld\n", through_handler ? handled : total);
}
