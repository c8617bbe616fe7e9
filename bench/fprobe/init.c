/* init.c - start-up cost and memory of function probes (issue 8, item 4):
 * edgeprobe_func_scan() over a program of N generated functions (plus this
 * file's), in TSC ticks per probe, and the memory it takes per probe: heap
 * (mallinfo2) plus the stub mapping. Also the same program stripped, where
 * names fall back to .dynsym and addresses. */
#define _GNU_SOURCE
#define EDGEPROBE_IMPLEMENTATION /* this program's one copy of the implementation */
#include "edgeprobe.h"

#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>

long many_call_all(long x);
static inline uint64_t tsc(void) {
    uint32_t lo, hi;
    __asm__ volatile("lfence\nrdtsc" : "=a"(lo), "=d"(hi)::"memory");
    return ((uint64_t)hi << 32) | lo;
}
int main(void) {
    struct mallinfo2 before = mallinfo2(), after;
    uint64_t t0 = tsc(), t1;
    int n = edgeprobe_func_scan(), named = 0, id;
    t1 = tsc();
    after = mallinfo2();
    if (n <= 0) {
        fprintf(stderr, "edgeprobe_func_scan: %s\n", edgeprobe_strerror(n));
        return 1;
    }
    for (id = 0; id < edgeprobe_point_count(); id++) {
        edgeprobe_info info;
        if (edgeprobe_point_info(id, &info) == 0 && info.kind == EDGEPROBE_KIND_FUNCTION &&
            !(info.name[0] == '0' && info.name[1] == 'x'))
            named++;
    }
    {
        double heap = (double)(after.uordblks + after.hblkhd - before.uordblks - before.hblkhd) / n;
        double stubs = 16.0 * (n + 1) / n; /* one 16-byte stub each, in its own mapping */
        printf("%d function probes (%d named); scan %.0f ticks per probe (%.2f ms total); "
               "memory %.0f bytes per probe (heap %.0f + stub %.0f)\n",
               n, named, (double)(t1 - t0) / n, (double)(t1 - t0) / 2.096e6, heap + stubs, heap, stubs);
    }
    return many_call_all(1) == 0;
}
