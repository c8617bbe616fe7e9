/* A process that never opted in: built with -fpatchable-function-entry=5,
 * without edgeprobe.h. Its main thread (the one `edgeprobe attach` seizes)
 * blocks in read() on a FIFO; a second thread reads the TSC in a loop and
 * keeps its longest gap. When a line arrives it prints what it read, the
 * gap, and exits: a read the attach broke (EINTR, lost bytes) shows there.
 *     target FIFO */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <x86intrin.h>

static volatile uint64_t max_gap;
static volatile unsigned long steps;
__attribute__((noinline)) unsigned long target_step(unsigned long x) { return x * 2654435761u + 1; }
static void *spinner(void *arg) {
    uint64_t last = __rdtsc();
    (void)arg;
    for (;;) {
        uint64_t t = __rdtsc();
        if (t - last > max_gap) max_gap = t - last;
        last = t;
        steps = target_step(steps);
    }
    return 0;
}
int main(int argc, char **argv) {
    char buf[64] = {0};
    pthread_t t;
    ssize_t n;
    int fd;
    if (argc < 2 || (fd = open(argv[1], O_RDONLY)) < 0) return 2; /* blocks until the writer opens it */
    pthread_create(&t, 0, spinner, 0);
    puts("ready");
    fflush(stdout);
    n = read(fd, buf, sizeof buf - 1); /* attach happens while this blocks */
    printf("read %zd: %s (errno %d), spinner's longest gap %llu ticks\n", n, n > 0 ? buf : "", n < 0 ? errno : 0,
           (unsigned long long)max_gap);
    return n > 0 ? 0 : 1;
}
