/* straddle.c - a timed call that is still running when its epoch is
 * weighed, among thousands of short calls of the same function
 * (tests/drivers/prof.sh, case prof-straddle; run with -k 1000).
 *
 *     straddle ROUNDS
 *
 * Build with -O2 -fpatchable-function-entry=5 -pthread. Each round the main
 * thread idles IDLE_TICKS, then calls shared_work(SHORT_TICKS) BURST times;
 * after its LONG_AFTER-th call a second thread calls
 * shared_work(LONG_TICKS), longer than an epoch. With K = 1000 the long
 * call is among the epoch's timed calls, and it is still running when the
 * epoch's calls are shared among its samples: its exit finds its weight
 * in the ring, which once let it stand for a score of calls as long as
 * itself. Prints: shared_work CALLS TOTAL_TICKS (the durations the program
 * measured itself, rdtsc around each call). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))
enum { SHORT_TICKS = 100, BURST = 20000, LONG_AFTER = 100 };
#define LONG_TICKS 30000000ull
#define IDLE_TICKS 12000000ull

static inline __attribute__((always_inline)) unsigned long long now(void) { return __builtin_ia32_rdtsc(); }

NOINLINE void shared_work(unsigned long long ticks) {
    unsigned long long t0 = now();
    while (now() - t0 < ticks) {}
}

static int rounds;
static volatile int go, started, done;
static unsigned long long long_total;

static void *long_caller(void *arg) {
    int r;
    (void)arg;
    for (r = 0; r < rounds; r++) {
        unsigned long long t0;
        while (__atomic_load_n(&go, __ATOMIC_ACQUIRE) <= r) {}
        t0 = now();
        __atomic_store_n(&started, r + 1, __ATOMIC_RELEASE);
        shared_work(LONG_TICKS);
        long_total += now() - t0;
        __atomic_store_n(&done, r + 1, __ATOMIC_RELEASE);
    }
    return 0;
}

/* Lets the second thread go and waits until it is about to call: on a
 * loaded machine it may be scheduled milliseconds later, after the K calls
 * of the window, and an untimed long call is a sampling miss, not the case
 * under test. */
static void start_long_call(int r) {
    __atomic_store_n(&go, r + 1, __ATOMIC_RELEASE);
    while (__atomic_load_n(&started, __ATOMIC_ACQUIRE) <= r) {}
}

int main(int argc, char **argv) {
    unsigned long long total = 0, calls = 0;
    pthread_t th;
    int r, i;
    rounds = argc > 1 ? atoi(argv[1]) : 20;
    pthread_create(&th, 0, long_caller, 0);
    for (r = 0; r < rounds; r++) {
        unsigned long long t0 = now();
        while (now() - t0 < IDLE_TICKS) {}
        for (i = 0; i < BURST; i++) {
            unsigned long long t1 = now();
            shared_work(SHORT_TICKS);
            total += now() - t1;
            calls++;
            if (i == LONG_AFTER) start_long_call(r);
        }
        while (__atomic_load_n(&done, __ATOMIC_ACQUIRE) <= r) {}
    }
    pthread_join(th, 0);
    printf("shared_work %llu %llu\n", calls + (unsigned long long)rounds, total + long_total);
    return 0;
}
