/* tick_eintr.c - does a timer on the thread's CPU-time clock (tick_where.c,
 * preloaded) cut blocking calls short? Rounds of CPU work (so the timer
 * fires) each followed by blocking calls that sleep: nanosleep, poll on an
 * idle pipe with a timeout, read on a pipe a child writes to after a
 * moment. Prints the EINTRs seen (and the calls made); a wall-clock timer
 * (TICK_EINTR_WALL=1 arms one here, at 1 ms) shows the test can see them.
 *   cc -O2 bench/real/tick_eintr.c -o build/real/tick_eintr -lrt
 *   LD_PRELOAD=build/real/tick_where.so build/real/tick_eintr 300 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;
static void on_wall(int sig) { (void)sig; }

static void spin_us(long us) {
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    do {
        for (int i = 0; i < 1000; i++) sink += (unsigned long)i * 7;
        clock_gettime(CLOCK_MONOTONIC, &b);
    } while ((b.tv_sec - a.tv_sec) * 1000000L + (b.tv_nsec - a.tv_nsec) / 1000 < us);
}

int main(int argc, char **argv) {
    int rounds = argc > 1 ? atoi(argv[1]) : 300, r, intr_sleep = 0, intr_poll = 0, intr_read = 0, calls = 0;
    int idle[2];
    if (getenv("TICK_EINTR_WALL")) {
        struct sigaction sa;
        struct itimerval it = {{0, 1000}, {0, 1000}};
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_wall;
        sa.sa_flags = SA_RESTART;
        sigaction(SIGALRM, &sa, 0);
        setitimer(ITIMER_REAL, &it, 0);
    }
    if (pipe(idle)) return 1;
    for (r = 0; r < rounds; r++) {
        struct timespec ts = {0, 2000000};
        struct pollfd p = {idle[0], POLLIN, 0};
        int feed[2];
        char c;
        pid_t child;
        spin_us(3000); /* the CPU timer runs */
        if (nanosleep(&ts, 0) && errno == EINTR) intr_sleep++;
        if (poll(&p, 1, 2) < 0 && errno == EINTR) intr_poll++;
        if (pipe(feed)) return 1;
        if (!(child = fork())) {
            struct timespec d = {0, 2000000};
            nanosleep(&d, 0);
            if (write(feed[1], "x", 1) != 1) _exit(1);
            _exit(0);
        }
        close(feed[1]);
        if (read(feed[0], &c, 1) < 0 && errno == EINTR) intr_read++;
        close(feed[0]);
        waitpid(child, 0, 0);
        calls += 3;
    }
    printf("tick_eintr: %d blocking calls, EINTR: nanosleep %d, poll %d, read %d\n", calls, intr_sleep, intr_poll,
           intr_read);
    return 0;
}
