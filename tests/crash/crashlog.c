/* tests/crash/crashlog.c - preloaded by tests/run.sh into everything a case
 * runs, so that a rare crash leaves evidence: which process died, of which
 * signal, where, and a backtrace of its threads.
 *
 * A process that dies of SIGSEGV, SIGBUS, SIGILL, SIGFPE or SIGABRT with
 * no handler of its own appends to $EDGEPROBE_CRASH_LOG
 *     crash: pid 1234 (t_provider) thread 1240: SIGSEGV (code 2) at 0x7f.., pc 0x55..
 * then this thread's backtrace (glibc's backtrace, symbols from .dynsym),
 * then - when $EDGEPROBE_CRASH_GDB is set and gdb is installed - every
 * thread's backtrace from gdb attached in batch mode (with line numbers where
 * the program has debug information). It then dies of the same signal, so
 * the case sees what it would have seen. A program that installs its own
 * handler later replaces this one. */
#define _GNU_SOURCE
#include <execinfo.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

static const int fatal[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
static char log_path[4096];
static int use_gdb;

static void put(int fd, const char *s) {
    size_t n = strlen(s);
    while (n) {
        ssize_t w = write(fd, s, n);
        if (w <= 0) return;
        s += w, n -= (size_t)w;
    }
}
/* gdb -batch -p PID, its output to fd; bounded in time. */
static void gdb_backtraces(int fd) {
    char pid[24];
    pid_t child;
    snprintf(pid, sizeof pid, "%d", (int)getpid());
    prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0); /* Yama: let our gdb attach */
    if ((child = fork()) == 0) {
        dup2(fd, 1);
        dup2(fd, 2);
        execlp("timeout", "timeout", "30", "gdb", "-batch", "-nx", "-p", pid, "-ex", "thread apply all bt",
               (char *)0);
        _exit(127);
    }
    if (child > 0) waitpid(child, 0, 0);
}
static void on_fatal(int sig, siginfo_t *si, void *ctx) {
    char line[512], comm[64] = "?";
    void *frames[64];
    int fd = log_path[0] ? open(log_path, O_WRONLY | O_CREAT | O_APPEND, 0644) : 2, cfd, n;
    unsigned long long pc = 0;
#if defined(__x86_64__)
    pc = (unsigned long long)((ucontext_t *)ctx)->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
    pc = (unsigned long long)((ucontext_t *)ctx)->uc_mcontext.pc;
#endif
    if (fd < 0) fd = 2;
    if ((cfd = open("/proc/self/comm", O_RDONLY)) >= 0) {
        ssize_t k = read(cfd, comm, sizeof comm - 1);
        comm[k > 0 ? k - 1 : 0] = 0;
        close(cfd);
    }
    snprintf(line, sizeof line, "crash: pid %d (%s) thread %d: %s (code %d) at %p, pc 0x%llx\n", (int)getpid(), comm,
             (int)gettid(), sigabbrev_np(sig) ? sigabbrev_np(sig) : "?", si->si_code, si->si_addr, pc);
    put(fd, line);
    if (fd != 2) put(2, line);
    n = backtrace(frames, 64);
    backtrace_symbols_fd(frames, n, fd);
    if (use_gdb) gdb_backtraces(fd);
    if (fd != 2) close(fd);
    signal(sig, SIG_DFL);
    raise(sig);
}
__attribute__((constructor)) static void crashlog_init(void) {
    const char *p = getenv("EDGEPROBE_CRASH_LOG");
    void *warm[2];
    unsigned i;
    if (p) snprintf(log_path, sizeof log_path, "%s", p);
    use_gdb = getenv("EDGEPROBE_CRASH_GDB") != 0;
    backtrace(warm, 2); /* loads libgcc_s now, not in the handler */
    for (i = 0; i < sizeof fatal / sizeof fatal[0]; i++) {
        struct sigaction sa, old;
        if (sigaction(fatal[i], 0, &old) || old.sa_handler != SIG_DFL) continue;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = on_fatal;
        sa.sa_flags = SA_SIGINFO | SA_RESETHAND | SA_ONSTACK;
        sigaction(fatal[i], &sa, 0);
    }
}
