/* yields.c - timed calls that a longjmp leaves, as a coroutine's yield
 * does (Lua's, at every switch), beside a function that returns
 * (tests/drivers/prof.sh, case prof-longjmp-frames).
 *
 *     yields SWITCHES
 *
 * Build with -O2 -fpatchable-function-entry=5. SWITCHES times, the main
 * thread sets a jump point and calls co_resume, which calls co_body, which
 * calls co_yield, which longjmps back: none of the three returns. Between
 * switches it calls steady_work (a spin of WORK_TICKS) that returns. The
 * profiler's stack of timed calls must drop the calls the longjmps left;
 * before it did, they filled it within a few hundred switches, and from
 * then on no call was timed: steady_work had a few samples in all, and
 * every call of every function in its window went to the handler.
 * Prints one line per function: NAME CALLS. */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))
enum { WORK_TICKS = 20000 };

static jmp_buf back;
static volatile unsigned long sink;
static unsigned long resumes, works;

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
NOINLINE void steady_work(void) {
    unsigned long long t0 = __builtin_ia32_rdtsc();
    while (__builtin_ia32_rdtsc() - t0 < WORK_TICKS) {}
}

int main(int argc, char **argv) {
    volatile int i; /* kept in memory across the longjmps */
    int n = argc > 1 ? atoi(argv[1]) : 100000;
    for (i = 0; i < n; i++) {
        if (!setjmp(back)) {
            resumes++;
            co_resume(i);
        }
        steady_work();
        works++;
    }
    printf("co_resume %lu\nsteady_work %lu\n", resumes, works);
    return 0;
}
