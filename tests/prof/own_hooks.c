/* own_hooks.c - a -finstrument-functions program with hooks of its own
 * (tests/drivers/prof.sh, case prof-own-hooks): they write to a FILE its
 * constructor opens. Built with -rdynamic, its hooks are the ones every
 * call goes to, the preloaded profiler's too: the profiler's calibration
 * of its provider called them from its constructor, before the program's
 * (SIGSEGV on the FILE not yet opened). Prints the sum and the depth its
 * hooks saw (1: main's exit is after the printf):
 *
 *     ok 1498500 depth 1
 */
#include <stdio.h>

static FILE *trace;
static long depth;

__attribute__((no_instrument_function, constructor)) static void open_trace(void) { trace = fopen("/dev/null", "w"); }
__attribute__((no_instrument_function)) void __cyg_profile_func_enter(void *fn, void *site) {
    (void)site;
    fprintf(trace, "> %p\n", fn);
    depth++;
}
__attribute__((no_instrument_function)) void __cyg_profile_func_exit(void *fn, void *site) {
    (void)site;
    fprintf(trace, "< %p\n", fn);
    depth--;
}
__attribute__((noinline)) long work(long i) { return i * 3; }
int main(void) {
    long sum = 0, i;
    for (i = 0; i < 1000; i++) sum += work(i);
    printf("ok %ld depth %ld\n", sum, depth);
    return 0;
}
