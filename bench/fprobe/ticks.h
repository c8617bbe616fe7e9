/* bench/fprobe/ticks.h - what cost.c and upper_state.c share: the probed
 * function, an empty entry handler, the TSC read and a median. Include
 * after edgeprobe.h. */
#ifndef BENCH_FPROBE_TICKS_H
#define BENCH_FPROBE_TICKS_H
#include <stdint.h>
#include <stdlib.h>

__attribute__((noinline)) long target(long x) {
    __asm__ volatile("" ::: "memory");
    return x + 1;
}
static int entry_empty(edgeprobe_func_call *c, void *u) { return (void)c, (void)u, 0; }
static inline uint64_t tsc(void) {
    uint32_t lo, hi;
    __asm__ volatile("lfence\nrdtsc" : "=a"(lo), "=d"(hi)::"memory");
    return ((uint64_t)hi << 32) | lo;
}
static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}
static uint64_t median(uint64_t *v, int n) {
    qsort(v, n, sizeof *v, cmp_u64);
    return v[n / 2];
}
#endif
