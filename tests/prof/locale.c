/* locale.c - a program that takes its locale from the environment
 * (tests/drivers/prof.sh, case prof-locale): under a locale whose decimal
 * point is a comma, the profiler's report must still write its numbers in
 * the C locale's form. Prints a number in its own locale first (so the
 * case can tell the locale took), then the truth: NAME CALLS.
 *
 * Build with -O2 -fpatchable-function-entry=5. */
#include <locale.h>
#include <stdio.h>

static volatile double sink;

__attribute__((noinline)) double scaled(int i) {
    sink += i * 0.5;
    return sink;
}
int main(void) {
    int i;
    setlocale(LC_ALL, "");
    printf("%.1f\n", 0.5);
    for (i = 0; i < 200000; i++) scaled(i);
    printf("scaled 200000\n");
    return 0;
}
