/* prof_demo.c - a small program to profile: functions of known, different
 * costs, a recursive one, an inlined one, and two threads. Runs about one
 * second (the first argument: seconds).
 *
 *     make tools
 *     cc -O2 -fpatchable-function-entry=5 -pthread examples/prof_demo.c -o demo
 *     build/edgeprobe prof --svg demo.svg -- ./demo    # report in edgeprobe-prof.txt
 *
 * or with the profiler linked into a -finstrument-functions build:
 *     make -f bench/real.mk real-demo
 *
 * Expected shape of the report: spin_1us ~1 us, spin_10us ~10 us,
 * spin_100us ~100 us, fib(20) ~ tens of us, hash_step tens of ns
 * (inlined into hash_block: no row of its own with function probes).
 * tests/drivers/prof.sh (prof-demo) checks the spin_* medians' order.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}
static double cpu_ns(void) { /* calibrate on CPU time: immune to preemption */
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* Busy-wait for about `ns` nanoseconds (calibrated once, below). */
static volatile unsigned long long sink;
static double loops_per_ns = 1.0;
__attribute__((noinline)) static void spin(double ns) {
    unsigned long long i, n = (unsigned long long)(ns * loops_per_ns);
    for (i = 0; i < n; i++) sink += i;
}
__attribute__((noinline)) void spin_1us(void) { spin(1000); }
__attribute__((noinline)) void spin_10us(void) { spin(10000); }
__attribute__((noinline)) void spin_100us(void) { spin(100000); }

/* Tiny and hot: inlined into its caller, so its probe sites are copies. */
static inline unsigned hash_step(unsigned h, unsigned v) { return (h ^ v) * 16777619u; }
__attribute__((noinline)) unsigned hash_block(const unsigned *v, int n) {
    unsigned h = 2166136261u;
    int i;
    for (i = 0; i < n; i++) h = hash_step(h, v[i]);
    return h;
}

/* Recursive: entry and exit of nested calls interleave on the shadow stack. */
__attribute__((noinline)) unsigned fib(unsigned n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

/* One "request": a mix of the above. */
__attribute__((noinline)) unsigned handle_request(int i) {
    static unsigned data[256];
    unsigned h = hash_block(data, 256);
    spin_1us();
    if (i % 10 == 0) spin_10us();
    if (i % 100 == 0) spin_100us();
    if (i % 50 == 0) h += fib(20);
    return h;
}

static volatile int stop;
static void *worker(void *arg) {
    unsigned long long n = 0;
    (void)arg;
    while (!stop) sink += handle_request((int)n++);
    return 0;
}

int main(int argc, char **argv) {
    double seconds = argc > 1 ? atof(argv[1]) : 1.0, t0;
    pthread_t th;
    unsigned long long i;
    /* calibrate spin() */
    t0 = cpu_ns();
    for (i = 0; i < 20000000ull; i++) sink += i;
    loops_per_ns = 20000000.0 / (cpu_ns() - t0);

    pthread_create(&th, 0, worker, 0);
    t0 = now_ns();
    for (i = 0; now_ns() - t0 < seconds * 1e9; i++) sink += handle_request((int)i);
    stop = 1;
    pthread_join(th, 0);
    printf("demo: %llu requests on the main thread in %.2f s\n", i, (now_ns() - t0) / 1e9);
    return 0;
}
