/* control_hits.c - the enabled paths whose cost hit counting changes,
 * compiled twice by bench/control.mk: with counting (HITS_VARIANT=counted)
 * and without (-DEDGEPROBE_HIT_COUNTS=0, HITS_VARIANT=uncounted). Each loop
 * runs `n` hits of one enabled probe and returns a value the compiler must
 * compute. */
#include <stdint.h>

int hits_sink(const char *fmt, ...);
#define EDGEPROBE_SINK(...) hits_sink(__VA_ARGS__)
#include "edgeprobe.h"

#define CAT2(a, b) a##_##b
#define CAT(a, b) CAT2(a, b)

uint64_t CAT(branch_loop, HITS_VARIANT)(uint64_t n) {
    uint64_t i, acc = 0;
    for (i = 0; i < n; i++) {
        if (EDGEPROBE_BRANCH(bh_branch)) acc += i;
        __asm__ volatile("" : "+r"(acc)); /* one hit per iteration, not folded */
    }
    return acc;
}
uint64_t CAT(trace_loop, HITS_VARIANT)(uint64_t n) {
    uint64_t i;
    for (i = 0; i < n; i++) EDGEPROBE_TRACE(bh_trace, "%lu\n", (unsigned long)i);
    return n;
}
uint64_t CAT(handler_loop, HITS_VARIANT)(uint64_t n) {
    uint64_t i;
    for (i = 0; i < n; i++) EDGEPROBE_HANDLER(bh_handler, i);
    return n;
}
#ifdef HITS_NAIVE
/* The floor of any per-hit count in memory: a thread-private counter
 * incremented by one unlocked instruction (no lookup at all). */
static __thread uint64_t private_hits;
uint64_t branch_loop_private(uint64_t n) {
    uint64_t i, acc = 0;
    for (i = 0; i < n; i++) {
        if (EDGEPROBE_BRANCH(bh_branch)) {
            __asm__ volatile("addq $1, %0" : "+m"(private_hits));
            acc += i;
        }
        __asm__ volatile("" : "+r"(acc));
    }
    return acc;
}
/* What hit counting must not be: one shared counter per probe. */
uint64_t naive_hits;
uint64_t branch_loop_naive(uint64_t n) {
    uint64_t i, acc = 0;
    for (i = 0; i < n; i++) {
        if (EDGEPROBE_BRANCH(bh_branch)) {
            __atomic_fetch_add(&naive_hits, 1, __ATOMIC_RELAXED);
            acc += i;
        }
        __asm__ volatile("" : "+r"(acc));
    }
    return acc;
}
#endif
