/* daemon_threads.c - daemon() while another thread runs probed functions
 * (tests/drivers/prof.sh, case prof-daemon-threads). Each of GENERATIONS
 * processes starts a worker that calls sixteen small functions without
 * end, lets it run a few milliseconds, and calls daemon(): the worker is
 * gone in the child, maybe in the middle of switching a function's probe
 * (the profiler's locks and counters it held are the child's to let go).
 * The last generation calls the functions for 50 ms itself and writes
 * "done CALLS" to OUT (an absolute path: a daemon works in "/").
 *
 *     daemon_threads GENERATIONS OUT
 *
 * Build with -O2 -fpatchable-function-entry=5 -pthread. */
#define _DEFAULT_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;
#define WORK(n) \
    __attribute__((noinline)) void work##n(unsigned long i) { sink += i * n; }
WORK(0) WORK(1) WORK(2) WORK(3) WORK(4) WORK(5) WORK(6) WORK(7)
WORK(8) WORK(9) WORK(10) WORK(11) WORK(12) WORK(13) WORK(14) WORK(15)
static void (*const works[16])(unsigned long) = {work0, work1, work2,  work3,  work4,  work5,  work6,  work7,
                                                 work8, work9, work10, work11, work12, work13, work14, work15};

static void *worker(void *arg) {
    unsigned long i = 0;
    (void)arg;
    for (;; i++) works[i & 15](i);
    return 0;
}
static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}
int main(int argc, char **argv) {
    int generations = argc > 2 ? atoi(argv[1]) : 0, g;
    unsigned long i = 0;
    double end;
    FILE *out;
    if (generations < 1 || argv[2][0] != '/') return 2;
    for (g = 0; g < generations; g++) {
        pthread_t t;
        if (pthread_create(&t, 0, worker, 0)) return 1;
        usleep(5000 + (unsigned)(g * 1700 % 9000)); /* windows open and close meanwhile */
        if (daemon(0, 0)) return 1;
    }
    end = now_ms() + 50;
    while (now_ms() < end)
        for (int j = 0; j < 100; j++, i++) works[j & 15](i);
    if (!(out = fopen(argv[2], "w"))) return 1;
    fprintf(out, "done %lu\n", i);
    return fclose(out) ? 1 : 0;
}
