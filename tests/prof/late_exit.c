/* late_exit.c - a function whose first return comes epochs after its first
 * call, for `edgeprobe prof` with the -finstrument-functions provider
 * (built with -finstrument-functions, linked with libedgeprobe-hooks). The
 * provider finds a site at its first call: slow_first's entry site at its
 * first call, its exit site only when that call returns, 60 ms later. In
 * between, its window opened with the entry site bound and, no call coming,
 * it went to sleep (DORMANT); the exit site's discovery then shut its
 * window. Before the fix nothing woke it: none of its next 20,000 calls was
 * seen and the report had no row for it. Exits with status 0. */
#include <stdio.h>
#include <time.h>

static volatile long sink;

/* returns a value: a void function would tail-call its exit hook */
__attribute__((noinline)) long slow_first(long i) {
    if (i == 0) {
        struct timespec ts = {0, 60 * 1000 * 1000}; /* dozens of 2 ms epochs */
        nanosleep(&ts, 0);
    }
    return i * 3;
}
int main(void) {
    struct timespec ts = {0, 200 * 1000}; /* a pause every 100 calls: several epochs of calls */
    long i;
    for (i = 0; i < 20000; i++) {
        sink += slow_first(i);
        if (i % 100 == 0) nanosleep(&ts, 0);
    }
    printf("%ld\n", sink);
    return 0;
}
