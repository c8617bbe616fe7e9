/* jumps.c - a program whose SIGALRM handler leaves by siglongjmp, wherever
 * the signal finds the thread (tests/drivers/prof.sh, case
 * prof-siglongjmp): N timeouts of a computation that calls eight small
 * functions, the timer armed for US microseconds each time. HOW installs
 * the handler: sigaction (default), signal, sigset, or oneshot (sigaction
 * with SA_RESETHAND | SA_NODEFER, installed again before each timeout).
 * Prints the timeouts taken, the calls made (each function counts its call
 * after its entry), how many times the handler ran on a thread other than
 * main's (a process-directed signal the kernel gave to a thread that does
 * not block it), and, for oneshot, whether a one-shot handler of SIGURG
 * left what the kernel leaves after it ran once: the default action, the
 * flags still SA_RESETHAND (1; 0 if not, - for the other HOWs):
 *
 *     jumps [N [US [HOW]]]
 *     timeouts N calls C foreign F reset R
 *
 * Build with -O2 -fpatchable-function-entry=5. Under `edgeprobe prof`
 * before the DEFERRED SIGNALS of the header, it crashed (the epoch thread
 * took the signal and jumped onto main's stack), or hung at exit (a
 * handler left in the middle kept a lock its thread held), in 11 of 12
 * runs. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>

static sigjmp_buf jb;
static volatile long calls, sink, foreign;
static long main_tid;
static int how; /* 0 sigaction, 1 signal, 2 oneshot, 3 sigset */
static volatile int urgent;
#define FN(name, k)                                                                                                    \
    __attribute__((noinline)) long name(long i) {                                                                      \
        long j;                                                                                                        \
        calls++;                                                                                                       \
        for (j = 0; j < k; j++) sink += i ^ j;                                                                         \
        return i;                                                                                                      \
    }
FN(f1, 3) FN(f2, 7) FN(f3, 13) FN(f4, 29) FN(f5, 2) FN(f6, 41) FN(f7, 5) FN(f8, 17)

static void on_alarm(int sig) {
    (void)sig;
    if (syscall(SYS_gettid) != main_tid) foreign++;
    siglongjmp(jb, 1);
}
static void on_urgent(int sig) {
    (void)sig;
    urgent++;
}
static void install(void) {
    struct sigaction sa;
    if (how == 1) {
        signal(SIGALRM, on_alarm);
        return;
    }
    if (how == 3) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
        sigset(SIGALRM, on_alarm);
#pragma GCC diagnostic pop
        return;
    }
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = how == 2 ? SA_RESETHAND | SA_NODEFER : 0;
    sigaction(SIGALRM, &sa, 0);
}
/* A one-shot handler after it ran once: "1" when the action is the
 * default again and its flags still hold SA_RESETHAND, as the kernel
 * leaves them. */
static const char *oneshot_reset(void) {
    struct sigaction sa, now;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_urgent;
    sa.sa_flags = SA_RESETHAND;
    if (sigaction(SIGURG, &sa, 0) != 0 || raise(SIGURG) != 0 || sigaction(SIGURG, 0, &now) != 0) return "0";
    return urgent == 1 && now.sa_handler == SIG_DFL && (now.sa_flags & SA_RESETHAND) ? "1" : "0";
}
int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 2000, us = argc > 2 ? atol(argv[2]) : 150;
    volatile long timeouts = 0, i = 0; /* kept across siglongjmp */
    struct itimerval it;
    how = argc > 3 ? (!strcmp(argv[3], "signal") ? 1 : !strcmp(argv[3], "oneshot") ? 2 : !strcmp(argv[3], "sigset") ? 3 : 0)
                   : 0;
    main_tid = syscall(SYS_gettid);
    memset(&it, 0, sizeof it);
    install();
    while (timeouts < n) {
        if (sigsetjmp(jb, 1)) {
            timeouts++;
            continue;
        }
        if (how == 2) install();
        it.it_value.tv_usec = us;
        setitimer(ITIMER_REAL, &it, 0);
        for (;;) {
            f1(i), f2(i), f3(i), f4(i), f5(i), f6(i), f7(i), f8(i);
            i++;
        }
    }
    printf("timeouts %ld calls %ld foreign %ld reset %s\n", timeouts, calls, foreign, how == 2 ? oneshot_reset() : "-");
    return 0;
}
