/* lttng_latency.c - LTTng's counterpart of bench/control.c "latency": a
 * thread spins on an LTTng-UST tracepoint; the main thread runs
 * `lttng enable-event -u bench_ep:hit -s SESSION` and measures the time
 * from starting it to the first hit the spinner sees (tracepoint_enabled).
 * Needs a running lttng-sessiond and a started session (bench/control_lttng.sh). */
#define _GNU_SOURCE
#include <pthread.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lttng_tp.h"

#define REPS 11
extern char **environ;
static volatile int running = 1;
static uint64_t first_hit;
static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
static void *spinner(void *arg) {
    (void)arg;
    while (running) {
        if (tracepoint_enabled(bench_ep, hit)) {
            if (!first_hit) __atomic_store_n(&first_hit, now_ns(), __ATOMIC_RELEASE);
            do_tracepoint(bench_ep, hit, 1);
        }
        __builtin_ia32_pause();
    }
    return NULL;
}
static int run(char **argv) {
    pid_t child;
    int status;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", 1, 0);
    if (posix_spawnp(&child, argv[0], &fa, NULL, argv, environ)) return -1;
    waitpid(child, &status, 0);
    posix_spawn_file_actions_destroy(&fa);
    return status;
}
static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}
int main(int argc, char **argv) {
    char *enable[] = {"lttng", "enable-event", "-u", "bench_ep:hit", "-s", argv[1], NULL};
    char *disable[] = {"lttng", "disable-event", "-u", "bench_ep:hit", "-s", argv[1], NULL};
    double us[REPS];
    pthread_t t;
    int r;
    if (argc != 2) return 2;
    sleep(1); /* registration with the session daemon */
    pthread_create(&t, NULL, spinner, NULL);
    for (r = 0; r < REPS; r++) {
        uint64_t t0 = now_ns();
        pid_t child;
        first_hit = 0;
        posix_spawn_file_actions_t fa;
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", 1, 0);
        if (posix_spawnp(&child, "lttng", &fa, NULL, enable, environ)) return 1;
        posix_spawn_file_actions_destroy(&fa);
        while (!__atomic_load_n(&first_hit, __ATOMIC_ACQUIRE) && now_ns() - t0 < 10000000000u) usleep(10);
        waitpid(child, NULL, 0);
        us[r] = first_hit ? (double)(first_hit - t0) / 1e3 : -1;
        run(disable);
        usleep(20000);
    }
    running = 0;
    pthread_join(t, NULL);
    qsort(us, REPS, sizeof *us, cmp);
    printf("| `lttng enable-event -u bench_ep:hit` (process start, session daemon, application) | %.0f | %.0f |\n",
           us[REPS / 2], us[0]);
    return us[0] < 0;
}
