/* control_server.c - a small "server" to operate from the shell with the
 * edgeprobe command (README, "Operating a running process"). Worker threads
 * handle fake requests through TRACE, BRANCH and HANDLER probes; nothing is
 * printed until someone enables a probe.
 *
 *     EDGEPROBE_CONTROL=1 ./build/control_server &
 *     ./build/edgeprobe list $!
 *     ./build/edgeprobe trace $! 'req_*' -d 2
 *
 * Options: -t THREADS (2), -s SECONDS to run (60), -p MICROSECONDS of pause
 * per request (200), --start (call edgeprobe_control_start() instead of
 * relying on EDGEPROBE_CONTROL=1), --fork (fork a child that runs the same
 * loop for half the time and says "child PID SOCKET" on stdout). Says "ready PID SOCKET"
 * on stdout once the endpoint serves. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define EDGEPROBE_IMPLEMENTATION /* this program's one copy of the implementation */
#include "edgeprobe.h"

static volatile int running = 1;
static int pause_us = 200;
static unsigned long long checks, replies;

static int compute(int id) {
    int i, acc = id;
    for (i = 0; i < 100; i++) acc = acc * 31 + i;
    if (EDGEPROBE_BRANCH(req_check)) __atomic_fetch_add(&checks, 1, __ATOMIC_RELAXED);
    return acc;
}
static void *worker(void *arg) {
    int w = (int)(intptr_t)arg, id;
    for (id = 0; running; id++) {
        int result;
        EDGEPROBE_TRACE(req_begin, "worker %d: request %d begins\n", w, id);
        result = compute(id);
        EDGEPROBE_HANDLER(req_reply, (uintptr_t)result);
        EDGEPROBE_TRACE(req_end, "worker %d: request %d -> %d\n", w, id, result);
        if (pause_us) usleep((useconds_t)pause_us);
    }
    return NULL;
}
static void count_reply(const edgeprobe_info *probe, void *user, uintptr_t value) {
    (void)probe, (void)user, (void)value;
    __atomic_fetch_add(&replies, 1, __ATOMIC_RELAXED);
}
static void serve(int threads, double seconds) {
    pthread_t tid[64];
    int i;
    running = 1;
    for (i = 0; i < threads; i++) pthread_create(&tid[i], NULL, worker, (void *)(intptr_t)i);
    usleep((useconds_t)(seconds * 1e6));
    running = 0;
    for (i = 0; i < threads; i++) pthread_join(tid[i], NULL);
}

int main(int argc, char **argv) {
    int threads = 2, start = 0, fork_child = 0, i;
    double seconds = 60;
    pid_t child = 0;
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-t") && i + 1 < argc) threads = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-s") && i + 1 < argc) seconds = atof(argv[++i]);
        else if (!strcmp(argv[i], "-p") && i + 1 < argc) pause_us = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--start")) start = 1;
        else if (!strcmp(argv[i], "--fork")) fork_child = 1;
        else {
            fprintf(stderr, "usage: control_server [-t THREADS] [-s SECONDS] [-p US] [--start] [--fork]\n");
            return 2;
        }
    }
    if (threads < 1 || threads > 64) threads = 2;
    if (start && edgeprobe_control_start() < 0) {
        fprintf(stderr, "control_server: no control endpoint\n");
        return 1;
    }
    edgeprobe_attach("req_reply", count_reply, NULL);
    edgeprobe_disable("req_reply"); /* attached, but off until someone enables it */
    printf("ready %d %s\n", (int)getpid(), edgeprobe_control_path() ? edgeprobe_control_path() : "-");
    fflush(stdout);
    if (fork_child && (child = fork()) == 0) {
        printf("child %d %s\n", (int)getpid(), edgeprobe_control_path() ? edgeprobe_control_path() : "-");
        fflush(stdout);
        serve(threads, seconds / 2);
        _exit(0);
    }
    serve(threads, seconds);
    if (child > 0) waitpid(child, NULL, 0);
    fprintf(stderr, "control_server: %llu checks, %llu replies counted\n", checks, replies);
    return 0;
}
