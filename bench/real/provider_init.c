/* provider_init.c - what does a provider probe cost to set up?
 * The first call of a function built with -finstrument-functions runs both
 * of its probe sites for the first time: edgeprobe discovers each (hash
 * miss, lock, dladdr for the name, a point with a dense id, the discovery
 * callback). We time that first call for N distinct generated functions and
 * subtract the first call of the same functions built against empty hooks
 * (same code, same cold caches, page faults and TLB misses), then halve:
 * two probes per function. Also: the warm (second) call, and heap bytes per
 * probe (mallinfo2, before/after), plus the bytes of one handler binding.
 *
 *   bench/real/provider_init.sh       (make -f bench/real.mk real-provider-init)
 */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef USE_PROVIDER
#define EDGEPROBE_IMPLEMENTATION /* this program's one copy of the implementation */
#include "edgeprobe.h"
#endif

#define NOI __attribute__((no_instrument_function))
typedef int (*fn_t)(int);
extern fn_t gen_fns[];
extern const int gen_n;

static NOI int cmp(const void *a, const void *b) {
    unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;
    return x < y ? -1 : x > y;
}
static NOI unsigned long long tsc(void) {
    unsigned a, d;
    __asm__ volatile("lfence; rdtsc; lfence" : "=a"(a), "=d"(d)::"memory");
    return ((unsigned long long)d << 32) | a;
}
#ifdef USE_PROVIDER
static unsigned long long discovered;
static NOI void on_discover(const edgeprobe_info *info, void *arg) {
    (void)arg;
    if (info->kind == EDGEPROBE_KIND_ENTRY || info->kind == EDGEPROBE_KIND_EXIT) discovered++;
}
static NOI void handler(const edgeprobe_info *i, void *u, uintptr_t v) { (void)i, (void)u, (void)v; }
#endif

NOI int main(int argc, char **argv) {
    int n = gen_n, i;
    volatile int sink = 0;
    unsigned long long *first = calloc((size_t)n, 8), *warm = calloc((size_t)n, 8), t0;
    size_t heap0, heap1;
    const char *label = argc > 1 ? argv[1] : "?";
#ifdef USE_PROVIDER
    edgeprobe_set_discovery(on_discover, 0);
#endif
    heap0 = mallinfo2().uordblks;
    for (i = 0; i < n; i++) {
        t0 = tsc();
        sink += gen_fns[i](i);
        first[i] = tsc() - t0;
    }
    heap1 = mallinfo2().uordblks;
    for (i = 0; i < n; i++) {
        t0 = tsc();
        sink += gen_fns[i](i);
        warm[i] = tsc() - t0;
    }
    qsort(first, (size_t)n, 8, cmp);
    qsort(warm, (size_t)n, 8, cmp);
    printf("%s: functions %d, first call median %llu p10 %llu p90 %llu ticks; warm call median %llu ticks",
           label, n, first[n / 2], first[n / 10], first[n * 9 / 10], warm[n / 2]);
#ifdef USE_PROVIDER
    {
        size_t heap2;
        int id, bound = 0, pts = edgeprobe_point_count();
        printf("; probes discovered %llu; heap %.1f bytes/probe", discovered,
               (double)(heap1 - heap0) / (double)(discovered ? discovered : 1));
        for (id = 0; id < pts; id++)
            if (edgeprobe_provider_attach_id(id, handler, 0) >= 0) bound++;
        heap2 = mallinfo2().uordblks;
        printf("; binding a handler +%.1f bytes/probe", (double)(heap2 - heap1) / (bound ? bound : 1));
    }
#endif
    printf("\n");
    return sink == 42;
}
