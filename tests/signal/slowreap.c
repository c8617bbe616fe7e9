/* slowreap.c - run a program with each of its threads kept listed in
 * /proc/PID/task for a while after it exits (tests/drivers/reliability.sh,
 * case sigtrap-join-not-refused).
 *
 *     slowreap DELAY_US PROGRAM [ARG...]
 *
 * Traces PROGRAM and every thread it makes (ptrace); a thread that exits
 * stays a zombie, listed with the signal mask it exited with, until it is
 * reaped DELAY_US microseconds later: what a thread descheduled between
 * waking its joiner and leaving the list looks like. Signals and clone
 * events pass straight on. Exits with PROGRAM's status; 77 with "skipped:"
 * when it cannot trace. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

static int exited(const siginfo_t *si) {
    return si->si_code == CLD_EXITED || si->si_code == CLD_KILLED || si->si_code == CLD_DUMPED;
}

int main(int argc, char **argv) {
    long delay;
    pid_t child;
    int st;
    if (argc < 3) {
        fprintf(stderr, "usage: slowreap DELAY_US PROGRAM [ARG...]\n");
        return 2;
    }
    delay = atol(argv[1]);
    if ((child = fork()) == 0) {
        if (ptrace(PTRACE_TRACEME, 0, 0, 0)) {
            printf("skipped: ptrace(PTRACE_TRACEME) failed: %s\n", strerror(errno));
            fflush(stdout); /* _exit flushes nothing */
            _exit(77);
        }
        raise(SIGSTOP); /* until the tracer has set its options */
        execvp(argv[2], argv + 2);
        _exit(127);
    }
    if (waitpid(child, &st, __WALL) < 0) {
        perror("slowreap: waitpid");
        return 1;
    }
    if (WIFEXITED(st)) return WEXITSTATUS(st); /* not traced: it said why */
    if (ptrace(PTRACE_SETOPTIONS, child, 0, PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL)) {
        printf("skipped: cannot trace: %s\n", strerror(errno));
        kill(child, SIGKILL);
        return 77;
    }
    ptrace(PTRACE_CONT, child, 0, 0);
    for (;;) {
        siginfo_t si;
        memset(&si, 0, sizeof si);
        if (waitid(P_ALL, 0, &si, WEXITED | WSTOPPED | WNOWAIT | __WALL) < 0) {
            if (errno == EINTR) continue;
            perror("slowreap: waitid");
            return 1;
        }
        if (exited(&si)) {
            if (si.si_pid != child) usleep((useconds_t)delay); /* a thread: reaped late */
            waitpid(si.si_pid, &st, __WALL);
            if (si.si_pid == child) return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
            continue;
        }
        if (waitpid(si.si_pid, &st, __WALL) < 0) continue;
        if (WIFSTOPPED(st)) {
            int sig = WSTOPSIG(st);
            if ((st >> 16) || sig == SIGSTOP) sig = 0; /* a ptrace event, or a new thread's first stop */
            ptrace(PTRACE_CONT, si.si_pid, 0, (void *)(long)sig);
        }
    }
}
