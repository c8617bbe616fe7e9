/* bench/attach_cycle.sh's target: a process that never opted in (built
 * with -fpatchable-function-entry=5, without the header). A second thread
 * reads the TSC in a loop, calling a small function each time, and keeps
 * the longest gap between two readings. The main thread (the one `edgeprobe
 * attach` seizes) blocks reading lines on stdin; for each line NAME it
 * prints "NAME <longest gap since the last line, in ticks> <loop rounds>"
 * and starts a new interval.   gap_target < FIFO */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <x86intrin.h>

static volatile uint64_t max_gap, rounds;
static volatile int reset;
__attribute__((noinline)) uint64_t gap_step(uint64_t x) { return x * 2654435761u + 1; }
static void *spinner(void *arg) {
    uint64_t last = __rdtsc(), v = 0;
    (void)arg;
    for (;;) {
        uint64_t t = __rdtsc();
        if (reset) reset = 0, max_gap = 0;
        if (t - last > max_gap) max_gap = t - last;
        last = t;
        v = gap_step(v);
        rounds++;
    }
    return 0;
}
int main(void) {
    char line[128];
    pthread_t t;
    pthread_create(&t, 0, spinner, 0);
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\n")] = 0;
        printf("%s %llu %llu\n", line, (unsigned long long)max_gap, (unsigned long long)rounds);
        fflush(stdout);
        reset = 1;
    }
    return 0;
}
