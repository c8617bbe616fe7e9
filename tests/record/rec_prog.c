/* tests/record/rec_prog.c - the program the recording tests record
 * (tests/drivers/record.sh). Built with -fpatchable-function-entry=5 and
 * the header. THREADS threads each run rec_outer CALLS times; rec_outer
 * calls rec_inner twice and rec_leaf_double once; markers along the way:
 *   rec_probe  EDGEPROBE_PROBE(i, -i)
 *   rec_trace  EDGEPROBE_TRACE("outer %d of %lu\n", ...)
 *   rec_branch EDGEPROBE_BRANCH
 * Usage: rec_prog [THREADS [CALLS [MODE]]]; MODE "crash" ends with SIGSEGV
 * in rec_crash 200 ms after the calls, "signals" records from a SIGALRM handler
 * while the threads run malloc, "serve DIR" (for snapshots) prints its pid and
 * "ready 1" after the calls, waits for DIR/go1, makes CALLS more calls (i
 * from CALLS on) in a new thread, prints "ready 2", waits for DIR/go2 and
 * exits. Prints what it did for the driver to check. */
#define EDGEPROBE_IMPLEMENTATION
#include "edgeprobe.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

static long calls = 1000, first;
__attribute__((noinline)) long rec_inner(long x) {
    __asm__ volatile("");
    return x * 3;
}
__attribute__((noinline)) double rec_leaf_double(double x) {
    __asm__ volatile("");
    return x * 0.5;
}
__attribute__((noinline)) long rec_outer(long i) {
    long v = rec_inner(i) + rec_inner(i + 1);
    v += (long)rec_leaf_double((double)i);
    EDGEPROBE_PROBE(rec_probe, i, -i);
    EDGEPROBE_TRACE(rec_trace, "outer %ld of %ld\n", i, v);
    if (EDGEPROBE_BRANCH(rec_branch)) v++;
    return v;
}
static volatile sig_atomic_t in_malloc_loop;
static void on_alarm(int sig) {
    (void)sig;
    rec_inner(-1); /* recorded from the signal handler */
}
static void *worker(void *arg) {
    long i, sum = 0;
    int signals = arg != NULL;
    for (i = first; i < first + calls; i++) {
        sum += rec_outer(i);
        if (signals) free(malloc((size_t)(i % 512) + 1));
    }
    return (void *)sum;
}
__attribute__((noinline)) void rec_crash(volatile int *p) { *p = 1; }
/* serve: wait for a file the driver makes (polled; at most 60 s). */
static int wait_file(const char *dir, const char *name) {
    char path[4096];
    int ms;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    for (ms = 0; ms < 60000; ms++) {
        if (!access(path, F_OK)) return 0;
        usleep(1000);
    }
    return -1;
}
static int serve(const char *dir) {
    pthread_t t;
    printf("rec_prog: pid %d ready 1\n", (int)getpid());
    fflush(stdout);
    if (wait_file(dir, "go1")) return 3;
    first = calls;
    pthread_create(&t, NULL, worker, NULL);
    pthread_join(t, NULL);
    printf("rec_prog: ready 2\n");
    fflush(stdout);
    return wait_file(dir, "go2") ? 3 : 0;
}
int main(int argc, char **argv) {
    int threads = argc > 1 ? atoi(argv[1]) : 8, i;
    const char *mode = argc > 3 ? argv[3] : "";
    int signals = !strcmp(mode, "signals");
    pthread_t t[64];
    if (argc > 2) calls = atol(argv[2]);
    if (threads < 1 || threads > 64) return 2;
    if (signals) {
        struct itimerval it = {{0, 200}, {0, 200}};
        signal(SIGALRM, on_alarm);
        setitimer(ITIMER_REAL, &it, NULL);
    }
    for (i = 0; i < threads; i++) pthread_create(&t[i], NULL, worker, signals ? (void *)1 : NULL);
    for (i = 0; i < threads; i++) pthread_join(t[i], NULL);
    if (signals) {
        struct itimerval off = {{0, 0}, {0, 0}};
        setitimer(ITIMER_REAL, &off, NULL);
    }
    printf("rec_prog: %d threads x %ld calls\n", threads, calls);
    fflush(stdout);
    if (!strcmp(mode, "serve") && argc > 4) return serve(argv[4]);
    if (!strcmp(mode, "crash")) {
        usleep(200000); /* the recorder's thread writes the names of points within a few ms */
        rec_crash(NULL);
    }
    return 0;
}
