/* Dies of SIGSEGV in crash_here_now, two calls below main: the case that
 * runner-crash-evidence runs to see what tests/run.sh records. */
#include <stdio.h>
__attribute__((noinline)) void crash_here_now(volatile int *p) { *p = 1; }
__attribute__((noinline)) void crash_here_caller(void) { crash_here_now((volatile int *)16); }
int main(void) {
    puts("about to crash");
    fflush(stdout);
    crash_here_caller();
    return 0;
}
