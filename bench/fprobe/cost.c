/* cost.c - what an enabled function probe costs (issue 8, item 3), in TSC
 * ticks per call, against the same call with the probe off (its NOPs):
 *   off         the plain call: five NOP bytes at the entry
 *   entry       entry probe, empty handler (returns 0: no exit hook)
 *   entry+exit  entry handler returns 1, empty exit handler
 *   exit        exit handler only
 *   skipped     entry handler attached, calls counted by the trampoline's
 *               skip path (edgeprobe_func_skip): no handler runs
 * and the cost of switching by id. Built with -fpatchable-function-entry=5
 * by gcc (the mirror form) and clang (the NOP5 form); rounds interleave the
 * variants so that drift hits them alike. Prints a markdown table. */
#define _GNU_SOURCE
#define EDGEPROBE_IMPLEMENTATION /* this program's one copy of the implementation */
#include "edgeprobe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CALLS 200
#define ROUNDS 4001
#include "ticks.h"
static int entry_want_exit(edgeprobe_func_call *c, void *u) { (void)c, (void)u; return 1; }
static void exit_empty(const edgeprobe_func_call *c, void *u) { (void)c, (void)u; }
static uint64_t time_calls(void) {
    long i, s = 0;
    uint64_t t0 = tsc();
    for (i = 0; i < CALLS; i++) s += target(i);
    __asm__ volatile("" : "+r"(s));
    return tsc() - t0;
}

enum { OFF, ENTRY, BOTH, EXIT, SKIP, NV };
static const char *names[NV] = {"off (plain call)", "entry, empty handler", "entry + exit, empty handlers", "exit only",
                                "skipped (edgeprobe_func_skip)"};
static uint64_t samples[NV][ROUNDS], toggle_on[ROUNDS], toggle_off[ROUNDS];

static void set_variant(int id, int v) {
    int rc = 0;
    switch (v) {
    case OFF:
        rc = edgeprobe_func_skip(id, 0) < 0 ? -1 : edgeprobe_func_off(id);
        break;
    case ENTRY: rc = edgeprobe_func_attach_id(id, entry_empty, 0, 0); break;
    case BOTH: rc = edgeprobe_func_attach_id(id, entry_want_exit, exit_empty, 0); break;
    case EXIT: rc = edgeprobe_func_attach_id(id, 0, exit_empty, 0); break;
    case SKIP:
        rc = edgeprobe_func_attach_id(id, entry_empty, 0, 0);
        if (rc >= 0) rc = (int)edgeprobe_func_skip(id, 1l << 40);
        break;
    }
    if (rc < 0) {
        fprintf(stderr, "variant %d: %s\n", v, edgeprobe_strerror(rc));
        exit(1);
    }
}

int main(void) {
    int id = -1, i, v, n = edgeprobe_func_scan();
    edgeprobe_info info;
    const char *form;
    for (i = 0; n > 0 && i < edgeprobe_point_count(); i++)
        if (edgeprobe_point_info(i, &info) == 0 && !strcmp(info.name, "target")) id = i;
    if (id < 0) {
        fprintf(stderr, "no function probe 'target': build with -fpatchable-function-entry=5\n");
        return 1;
    }
    edgeprobe_point_info(id, &info);
    form = ((unsigned char *)info.site)[0] == 0x90 ? "gcc: 90 x5, mirror stub" : "NOP5";
    for (i = 0; i < ROUNDS; i++) {
        for (v = 0; v < NV; v++) {
            set_variant(id, v);
            time_calls(); /* warm */
            samples[v][i] = time_calls();
        }
        edgeprobe_handler_sync(); /* free the retired bindings */
        {
            uint64_t t0 = tsc();
            edgeprobe_func_on(id);
            toggle_on[i] = tsc() - t0;
            t0 = tsc();
            edgeprobe_func_off(id);
            toggle_off[i] = tsc() - t0;
        }
    }
    printf("form: %s; %d rounds of %d calls, medians\n\n", form, ROUNDS, CALLS);
    printf("| variant | ticks per call | more than off |\n|---|---|---|\n");
    {
        double base = (double)median(samples[OFF], ROUNDS) / CALLS;
        for (v = 0; v < NV; v++) {
            double t = (double)median(samples[v], ROUNDS) / CALLS;
            printf("| %s | %.1f | %+.1f |\n", names[v], t, t - base);
        }
    }
    printf("| edgeprobe_func_on by id | %llu per toggle | |\n", (unsigned long long)median(toggle_on, ROUNDS));
    printf("| edgeprobe_func_off by id | %llu per toggle | |\n", (unsigned long long)median(toggle_off, ROUNDS));
    return 0;
}
