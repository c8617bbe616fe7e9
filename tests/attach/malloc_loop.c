/* tests/attach/malloc_loop.c - a single-threaded program that calls malloc
 * and free all the time (as lua does), for attach-inside-malloc: run for
 * SECONDS (argv[1], default 1), then print a checksum. Attached while it
 * is inside malloc, an injected dlopen would re-enter malloc, which takes
 * no lock in a single-threaded process. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    static void *p[256];
    unsigned long s = 0, x = 88172645463325252ull;
    double end = now() + (argc > 1 ? atof(argv[1]) : 1);
    while (now() < end)
        for (int i = 0; i < 10000; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            int k = x & 255;
            free(p[k]);
            p[k] = malloc(16 + (x >> 8) % 2000);
            s += (unsigned long)p[k] & 0xff;
        }
    printf("%lu\n", s);
    return 0;
}
