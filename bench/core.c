/* bench/core.c - issue 2's costs, in TSC ticks, in one process with 10,000
 * probes (bench/gen_core.py):
 *   - toggle by handle (edgeprobe_probe_on / _off), non-straddling site,
 *     enable and disable measured separately; keep-writable and strict W^X
 *   - edgeprobe_enable / _disable by exact name, and by glob
 * Each sample is one call bracketed by rdtsc; the overhead of the bracket
 * itself (measured the same way around nothing) is reported beside it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define EDGEPROBE_IMPLEMENTATION /* this program's one copy of the implementation */
#include "edgeprobe.h"

#define PROBES 10000
extern void (*const core_funcs[PROBES])(void);
extern volatile int core_hits;

static int cmp(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}
static void report(const char *what, uint64_t *t, int n, uint64_t floor) {
    qsort(t, (size_t)n, sizeof *t, cmp);
    printf("| %-44s | %7d | %7llu | %7llu | %7llu | %5llu |\n", what, n, (unsigned long long)t[n / 2],
           (unsigned long long)t[n * 9 / 10], (unsigned long long)t[n * 99 / 100], (unsigned long long)floor);
}
#define TIMED(dst, expr)                                                       \
    do {                                                                       \
        uint64_t t0_ = __builtin_ia32_rdtsc();                                 \
        int rc_ = (expr);                                                      \
        (dst) = __builtin_ia32_rdtsc() - t0_;                                  \
        if (rc_ < 0) {                                                         \
            fprintf(stderr, "%s: %s\n", #expr, edgeprobe_strerror(rc_));       \
            exit(1);                                                           \
        }                                                                      \
    } while (0)

static uint64_t bracket_floor(void) {
    static uint64_t t[20000];
    int i;
    for (i = 0; i < 20000; i++) TIMED(t[i], 0);
    qsort(t, 20000, sizeof *t, cmp);
    return t[10000];
}
/* Report enable and disable samples of one case, then free them. */
static void report_pair(const char *label, uint64_t *on, uint64_t *off, int n, uint64_t floor) {
    char l[96];
    snprintf(l, sizeof l, "%s: enable", label);
    report(l, on, n, floor);
    snprintf(l, sizeof l, "%s: disable", label);
    report(l, off, n, floor);
    free(on);
    free(off);
}
static void by_handle(const char *policy, int n, uint64_t floor) {
    uint64_t *on = malloc(sizeof *on * (size_t)n), *off = malloc(sizeof *off * (size_t)n);
    edgeprobe_probe *p;
    char label[96];
    int i;
    if (edgeprobe_probe_find("p_5000", &p) < 0) exit(1);
    edgeprobe_probe_on(p); /* open the page once (keep-writable policy) */
    edgeprobe_probe_off(p);
    for (i = 0; i < n; i++) {
        TIMED(on[i], edgeprobe_probe_on(p));
        core_funcs[5000]();
        TIMED(off[i], edgeprobe_probe_off(p));
    }
    snprintf(label, sizeof label, "handle (%s)", policy);
    report_pair(label, on, off, n, floor);
}
static void by_name(const char *on_pat, const char *off_pat, const char *label, int n, uint64_t floor) {
    uint64_t *on = malloc(sizeof *on * (size_t)n), *off = malloc(sizeof *off * (size_t)n);
    int i;
    for (i = 0; i < n; i++) {
        TIMED(on[i], edgeprobe_enable(on_pat));
        TIMED(off[i], edgeprobe_disable(off_pat));
    }
    report_pair(label, on, off, n, floor);
}

int main(void) {
    uint64_t floor = bracket_floor();
    int hits_before = core_hits;
    printf("edgeprobe core benchmark: %d probes, %d registered points\n\n", PROBES, edgeprobe_point_count());
    printf("| operation (TSC ticks)                        | samples |  median |     p90 |     p99 | rdtsc |\n");
    printf("|----------------------------------------------|--------:|--------:|--------:|--------:|------:|\n");
    by_handle("keep-writable", 20000, floor);
    edgeprobe_set_wx_strict(1);
    by_handle("strict W^X", 2000, floor);
    edgeprobe_set_wx_strict(0);
    by_name("p_5000", "p_5000", "exact name", 10000, floor);
    by_name("p_5000*", "p_5000*", "glob matching 1 of 10,000", 300, floor);
    by_name("p_1???", "p_1???", "glob matching 1,000 of 10,000", 100, floor);
    if (core_hits - hits_before != 22000) {
        fprintf(stderr, "probe fired %d times, expected 22000\n", core_hits - hits_before);
        return 1;
    }
    return 0;
}
