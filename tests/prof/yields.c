/* yields.c - timed calls that a longjmp leaves, as a coroutine's yield
 * does (Lua's, at every switch), beside a function that returns
 * (tests/drivers/prof.sh, case prof-longjmp-frames).
 *
 *     yields SWITCHES
 *
 * Build with -O2 -fpatchable-function-entry=5. SWITCHES times, the main
 * thread sets a jump point and calls co_resume, which calls co_body, which
 * calls co_yield, which longjmps back: none of the three returns. Between
 * switches it calls steady_work (a spin of WORK_TICKS) that returns, and
 * two calls whose frames must stay: outer_work, which spins OUTER_TICKS
 * around two calls of inner_step (INNER_TICKS each), and tail_outer, which
 * spins TAIL_TICKS and tail-calls tail_inner (INNER_TICKS; a `jmp`: its
 * entry sees the return trampoline in the slot they share). The
 * profiler's stack of timed calls must drop the calls the longjmps left;
 * before it did, they filled it within a few hundred switches, and from
 * then on no call was timed: steady_work had a few samples in all, and
 * every call of every function in its window went to the handler. A rule
 * that also dropped live frames would lose outer_work's and tail_outer's
 * samples (their mean then reads 0). At start, DEEP_ERRORS calls of
 * deep_work from 400 KiB down the stack (descend, not a probe) longjmp
 * back; later calls of it return. A rule that kept those frames (the
 * header's judges only within 256 KiB) marked every later sample of
 * deep_work nested: its total read 0. Prints one line per function: NAME
 * CALLS LEAST_TICKS (the least its call can last). */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))
enum { WORK_TICKS = 20000, OUTER_TICKS = 6000, INNER_TICKS = 3000, TAIL_TICKS = 6000, DEEP_LEVELS = 100, DEEP_ERRORS = 20 };

static jmp_buf back;
static volatile unsigned long sink;
static unsigned long resumes, works, outers, deeps;

NOINLINE void co_yield(void) { longjmp(back, 1); }
NOINLINE void co_body(int n) {
    sink += (unsigned long)n;
    co_yield();
    sink++; /* not reached: keeps the call of co_yield a call, not a jump */
}
NOINLINE void co_resume(int n) {
    co_body(n);
    sink++;
}
static inline __attribute__((always_inline)) void spin(unsigned long long ticks) {
    unsigned long long t0 = __builtin_ia32_rdtsc();
    while (__builtin_ia32_rdtsc() - t0 < ticks) {}
}
NOINLINE void steady_work(void) { spin(WORK_TICKS); }
NOINLINE void inner_step(void) { spin(INNER_TICKS); }
NOINLINE void outer_work(void) {
    spin(OUTER_TICKS);
    inner_step();
    inner_step();
}
NOINLINE int tail_inner(int x) {
    spin(INNER_TICKS);
    return x + 1;
}
NOINLINE int tail_outer(int x) {
    spin(TAIL_TICKS);
    return tail_inner(x); /* a sibling call at -O2: jmp */
}
NOINLINE void deep_work(int fail) {
    if (fail) longjmp(back, 1);
    spin(WORK_TICKS);
}
/* 4 KiB a level; not a probe */
__attribute__((noinline, patchable_function_entry(0, 0))) static void descend(int n) {
    volatile char pad[4096];
    pad[0] = (char)n;
    if (n <= 0) deep_work(1);
    else descend(n - 1);
    sink += (unsigned long)pad[0];
}

int main(int argc, char **argv) {
    volatile int i; /* kept in memory across the longjmps */
    int n = argc > 1 ? atoi(argv[1]) : 100000;
    for (i = 0; i < DEEP_ERRORS; i++)
        if (!setjmp(back)) descend(DEEP_LEVELS);
    for (i = 0; i < n; i++) {
        if (!setjmp(back)) {
            resumes++;
            co_resume(i);
        }
        steady_work();
        works++;
        if (i % 8 == 0) {
            outer_work();
            sink += (unsigned long)tail_outer(i);
            outers++;
            deep_work(0);
            deeps++;
        }
    }
    printf("co_resume %lu %d\nsteady_work %lu %d\n", resumes, 0, works, WORK_TICKS);
    printf("outer_work %lu %d\ntail_outer %lu %d\n", outers, OUTER_TICKS + 2 * INNER_TICKS, outers,
           TAIL_TICKS + INNER_TICKS);
    printf("deep_work %lu %d\n", deeps, WORK_TICKS);
    return 0;
}
