/* oneshot_flood.c - one-shot handlers (SA_RESETHAND, and SA_NODEFER
 * unless NODEFER is 0) under a flood of their signal: a second thread
 * sends SIGURG to main without pause while main installs a one-shot
 * handler N times, each time waiting for it to run (tests/drivers/prof.sh,
 * case prof-oneshot-flood). The kernel resets the action as it delivers
 * the signal, so each handler runs once and the flood meets the default
 * (SIGURG: ignored). Under `edgeprobe prof` the action was reset by the
 * wrapper of tools/signal_defer.h, installed with SA_NODEFER: every new
 * instance nested in the wrapper's first instruction, before any reset,
 * until the stack ran out (SIGSEGV, 3 of 3). Prints:
 *
 *     oneshot_flood [N [NODEFER]]
 *     oneshots N ran R
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static volatile long ran;
static volatile int stop;
static pid_t main_tid;

__attribute__((noinline)) void waiting(void) { __asm__ volatile(""); }
static void on_urgent(int sig) {
    (void)sig;
    ran++;
}
static void *flood(void *arg) {
    (void)arg;
    while (!stop) syscall(SYS_tgkill, getpid(), main_tid, SIGURG);
    return 0;
}
int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 20000, i;
    int nodefer = argc > 2 ? atoi(argv[2]) : 1;
    struct sigaction sa;
    pthread_t sender;
    main_tid = (pid_t)syscall(SYS_gettid);
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_urgent;
    sa.sa_flags = SA_RESETHAND | (nodefer ? SA_NODEFER : 0);
    if (pthread_create(&sender, 0, flood, 0) != 0) return 1;
    for (i = 0; i < n; i++) {
        long before = ran;
        sigaction(SIGURG, &sa, 0);
        while (ran == before) waiting();
    }
    stop = 1;
    pthread_join(sender, 0);
    printf("oneshots %ld ran %ld\n", n, ran);
    return 0;
}
