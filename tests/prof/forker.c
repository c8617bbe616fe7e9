/* forker.c - a profiled program that forks (tests/drivers/prof.sh, case
 * prof-fork): a child that exits through exit() must neither stop the
 * parent's profiler nor write over its report, and a child must still die
 * of SIGTERM. The parent's after_fork_work runs only after both children. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#define NI __attribute__((noinline))
static NI void spin(unsigned long long ticks) {
    unsigned long long t0 = __builtin_ia32_rdtsc();
    while (__builtin_ia32_rdtsc() - t0 < ticks) {}
}
NI void before_fork_work(void) { spin(20000); }
NI void child_work(void) { spin(20000); }
NI void after_fork_work(void) { spin(20000); }
int main(void) {
    int i, status;
    pid_t a, b;
    for (i = 0; i < 5000; i++) before_fork_work();
    if ((a = fork()) == 0) {
        for (i = 0; i < 1000; i++) child_work();
        exit(0); /* destructors run in the child */
    }
    if ((b = fork()) == 0) {
        pause();
        _exit(3);
    }
    waitpid(a, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status)) return 10;
    usleep(100000);
    kill(b, SIGTERM);
    waitpid(b, &status, 0);
    if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGTERM) {
        fprintf(stderr, "forker: the second child did not die of SIGTERM\n");
        return 11;
    }
    for (i = 0; i < 5000; i++) after_fork_work();
    return 0;
}
