/* forks.c - fork() in a loop while a SIGALRM timer runs whose handler
 * either leaves by siglongjmp (HOW jump: a one-shot timer of 20-200 us
 * before each fork) or returns after calling eight probed functions (HOW
 * call: a periodic timer of 50 us) (tests/drivers/prof.sh, case
 * prof-fork-signals; attached: tests/drivers/attach.sh, case
 * attach-prof-fork-signals). The kernel restarts a fork that a signal interrupts,
 * so the handler runs inside fork, where edgeprobe's fork handlers hold
 * the registry lock and glibc its fork locks: under `edgeprobe prof`, a
 * handler that called probed functions deadlocked on the lock its own
 * thread held (their handler toggles them), and one that left by
 * siglongjmp left the locks held (the next malloc or switch waited for
 * ever), until the fork became a guarded stretch. VIA is the call that
 * forks: fork (default), __fork or forkpty (the last two fork by glibc's
 * own alias, not through fork). Prints:
 *
 *     forks N [jump|call [fork|__fork|forkpty]]
 *     forks F signals S
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <pty.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

static sigjmp_buf jb;
static volatile long sink, signals;
#define FN(n)                                                                                                          \
    __attribute__((noinline)) void h##n(void) { sink += n; }
FN(1) FN(2) FN(3) FN(4) FN(5) FN(6) FN(7) FN(8)

__attribute__((no_instrument_function)) static void on_alarm_jump(int sig) {
    (void)sig;
    signals++;
    siglongjmp(jb, 1);
}
__attribute__((no_instrument_function)) static void on_alarm_call(int sig) {
    (void)sig;
    signals++;
    h1(), h2(), h3(), h4(), h5(), h6(), h7(), h8();
}
pid_t __fork(void);
static int via; /* 0 fork, 1 __fork, 2 forkpty */
static pid_t fork_via(void) {
    int master;
    pid_t pid;
    if (via == 0) return fork();
    if (via == 1) return __fork();
    if ((pid = forkpty(&master, 0, 0, 0)) > 0) close(master);
    return pid;
}
static void reap(void) {
    while (waitpid(-1, 0, 0) > 0) {}
}
int main(int argc, char **argv) {
    static volatile long n, i = 0, forks = 0; /* kept across siglongjmp */
    int jump = argc > 2 && !strcmp(argv[2], "jump");
    via = argc > 3 ? (!strcmp(argv[3], "__fork") ? 1 : !strcmp(argv[3], "forkpty") ? 2 : 0) : 0;
    struct itimerval stop, arm;
    struct sigaction sa;
    n = argc > 1 ? atol(argv[1]) : 1000;
    memset(&sa, 0, sizeof sa);
    memset(&stop, 0, sizeof stop);
    memset(&arm, 0, sizeof arm);
    sa.sa_handler = jump ? on_alarm_jump : on_alarm_call;
    sa.sa_flags = jump ? 0 : SA_RESTART;
    sigaction(SIGALRM, &sa, 0);
    if (!jump) {
        arm.it_value.tv_usec = arm.it_interval.tv_usec = 50;
        setitimer(ITIMER_REAL, &arm, 0);
    }
    sigsetjmp(jb, 1);
    while (i < n) {
        pid_t pid;
        if (jump) {
            arm.it_value.tv_usec = 20 + (i * 37) % 181;
            setitimer(ITIMER_REAL, &arm, 0);
        }
        i++;
        h1();
        if ((pid = fork_via()) == 0) _exit(0);
        if (jump) setitimer(ITIMER_REAL, &stop, 0);
        if (pid > 0) forks++;
        if (!jump && pid > 0) while (waitpid(pid, 0, 0) < 0) {}
    }
    setitimer(ITIMER_REAL, &stop, 0);
    reap();
    printf("forks %ld signals %ld\n", forks, signals);
    return 0;
}
