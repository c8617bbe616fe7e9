/* phases.c - a target whose function is hot, then rare: hot() in a tight
 * loop for HOT seconds, then once every 50 ms for RARE seconds
 * (tests/drivers/attach.sh, case attach-second-profile). Prints "ready"
 * at the start, "rare" when the second phase begins (stderr), and at the
 * end the calls of each phase. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))
static volatile unsigned long sink;
NOINLINE void hot(void) {
    unsigned long x = sink, i;
    for (i = 0; i < 20; i++) x = x * 2654435761u + 1;
    sink = x;
}
static double secs(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}
int main(int argc, char **argv) {
    double hot_s = argc > 1 ? atof(argv[1]) : 3, rare_s = argc > 2 ? atof(argv[2]) : 3, t0 = secs();
    unsigned long n1 = 0, n2 = 0;
    fprintf(stderr, "ready\n");
    while (secs() - t0 < hot_s) {
        int i;
        for (i = 0; i < 1000; i++) hot();
        n1 += 1000;
    }
    fprintf(stderr, "rare\n");
    while (secs() - t0 < hot_s + rare_s) {
        hot();
        n2++;
        usleep(50000);
    }
    fprintf(stderr, "hot phase %lu calls, rare phase %lu calls\n", n1, n2);
    return 0;
}
