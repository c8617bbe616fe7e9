/* churn.c - a thread per job (tests/drivers/prof.sh, cases prof-thread-churn
 * and prof-thread-reuse): N short-lived threads, AT_ONCE at a time (default
 * 1: one after another), each calling job_work() once; then one more thread
 * calls late_work() 2000 times. Prints the truth, one line per function:
 * NAME CALLS.
 *
 *     churn [N [AT_ONCE]]
 *
 * Build with -O2 -fpatchable-function-entry=5. The threads that exited in
 * an epoch counted as observed from their last event up to the count's end
 * (their CPU clocks can no longer be read), while the epoch's own time held
 * them only up to that event: a count read a span longer than the epoch,
 * was scaled by nothing, and late_work read 1,024 of its 2,000 calls,
 * labelled exact. The profiler's record of every thread that had run a
 * handler stayed in its arena: in mode on, the arena was full after about
 * 26,000 threads, and the threads after them went unprofiled. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_AT_ONCE 64

static volatile long sink;

__attribute__((noinline)) long job_work(long i) {
    sink += i;
    return i;
}
__attribute__((noinline)) long late_work(long i) {
    long k;
    for (k = 0; k < 200; k++) sink += k ^ i;
    return i;
}
static void *job(void *a) {
    job_work((long)a);
    return 0;
}
static void *late(void *a) {
    long i;
    (void)a;
    for (i = 0; i < 2000; i++) late_work(i);
    return 0;
}
int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 1000, at_once = argc > 2 ? atol(argv[2]) : 1, i, k, m;
    pthread_t t[MAX_AT_ONCE];
    if (at_once < 1 || at_once > MAX_AT_ONCE) return 2;
    for (i = 0; i < n; i += m) {
        m = n - i < at_once ? n - i : at_once;
        for (k = 0; k < m; k++)
            if (pthread_create(&t[k], 0, job, (void *)(i + k))) return 1;
        for (k = 0; k < m; k++) pthread_join(t[k], 0);
    }
    if (pthread_create(&t[0], 0, late, 0)) return 1;
    pthread_join(t[0], 0);
    printf("job_work %ld\nlate_work 2000\n", n);
    return 0;
}
