/* late_libs.c - a program with 50 TRACE markers that loads two libraries
 * while it runs (tests/prof/late_lib.c as fa and fb), 0.1 s apart, and
 * calls each for 0.1-0.2 s:
 *     late_libs LIBA LIBB
 * Under `edgeprobe prof` both functions must be profiled. The epoch thread
 * adopted a loaded library's functions when the scan's count of functions
 * passed the point ids it had examined, markers included: here the second
 * library never was (case prof-dlopen-after-markers). */
#include <dlfcn.h>
#include <stdio.h>
#include <time.h>
#define EDGEPROBE_IMPLEMENTATION
#include "edgeprobe.h"

#define M5(i) EDGEPROBE_TRACE(mk_##i##0, "%d", x); EDGEPROBE_TRACE(mk_##i##1, "%d", x); \
    EDGEPROBE_TRACE(mk_##i##2, "%d", x); EDGEPROBE_TRACE(mk_##i##3, "%d", x); EDGEPROBE_TRACE(mk_##i##4, "%d", x);
__attribute__((noinline)) static void markers(int x) { M5(0) M5(1) M5(2) M5(3) M5(4) M5(5) M5(6) M5(7) M5(8) M5(9) }

/* Calls f for `secs` seconds of the monotonic clock. */
static long run(long (*f)(long), double secs) {
    struct timespec a, b;
    long s = 0, i = 0;
    int k;
    clock_gettime(CLOCK_MONOTONIC, &a);
    do {
        for (k = 0; k < 1000; k++) s += f(i++);
        clock_gettime(CLOCK_MONOTONIC, &b);
    } while ((double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9 < secs);
    return s;
}
int main(int argc, char **argv) {
    void *ha, *hb;
    long s = 0;
    markers(argc);
    if (argc < 3 || !(ha = dlopen(argv[1], RTLD_NOW))) return 2;
    s += run((long (*)(long))dlsym(ha, "fa"), 0.1);
    if (!(hb = dlopen(argv[2], RTLD_NOW))) return 2;
    s += run((long (*)(long))dlsym(hb, "fb"), 0.2);
    printf("%ld\n", s & 1);
    return 0;
}
