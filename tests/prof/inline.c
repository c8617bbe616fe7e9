/* inline.c - a program of one thread for `edgeprobe prof --epochs inline`
 * (the agent's INLINE EPOCHS; tests/drivers/prof.sh, cases prof-inline-*).
 *
 *     inline busy MS      MS ms of calls of inl_hot and inl_cold, with
 *                         blocking calls between them (nanosleep, poll on
 *                         an idle pipe): the epochs' timer must cut none
 *                         of them short
 *     inline threads MS   a third of that alone, then two threads calling
 *                         inl_worker for the rest while main waits in
 *                         pthread_join (the epochs go to an epoch thread)
 *     inline wait         300 ms alone, then a read of stdin that waits
 *                         until a signal ends the process
 *     inline closeall MS  100 ms alone, then every descriptor from 3 up
 *                         closed (the profiler's task-clock event's too, as
 *                         a daemon may) and the first numbers taken again by
 *                         files of its own, then as busy
 *
 * And programs that broke --epochs inline in an independent review (cases
 * prof-inline-hostile, prof-inline-sigterm-altstack, and the FIFO of
 * prof-inline-sigterm-waiting), each after 300 ms alone:
 *     inline reset        every signal set to its default at start (the
 *                         profiler's was: killed by signal 57)
 *     inline catchall     one handler for every signal, which exits
 *     inline sigwait      every signal blocked, taken by sigtimedwait (the
 *                         program got the profiler's; no epochs)
 *     inline c11          C11 threads (thrd_create, not the profiler's
 *                         pthread_create) calling inl_worker while main waits
 *     inline sigev        a SIGEV_THREAD timer's thread calling inl_worker
 *                         while main sleeps
 *     inline altstack     malloc, free and malloc_trim under a SIGALRM
 *                         handler that raises SIGUSR1, handled on an
 *                         alternate stack above it, until a signal ends it
 *                         (the report was written inside the SIGALRM
 *                         handler, in malloc)
 *     inline fifo PATH    opens a FIFO no one writes: waits there
 * These print "done TAKEN" (TAKEN: signals sigtimedwait returned).
 *
 * Prints, at the end (busy, threads, closeall):
 *     single S tasks T eintr E
 * S: glibc's __libc_single_threaded before any thread of its own (1: the
 * profiler made none), T: the process's threads then (/proc/self/task),
 * E: blocking calls that returned EINTR. Build with -O2
 * -fpatchable-function-entry=5 -pthread. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/single_threaded.h>
#include <sys/time.h>
#include <threads.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;
static int idle_pipe[2];
static unsigned eintr;

__attribute__((noinline)) void inl_hot(unsigned long i) {
    for (int k = 0; k < 40; k++) sink += i * (unsigned long)k;
}
__attribute__((noinline)) void inl_cold(unsigned long i) {
    for (int k = 0; k < 400; k++) sink ^= i + (unsigned long)k;
}
__attribute__((noinline)) void inl_worker(unsigned long i) {
    for (int k = 0; k < 100; k++) sink += i ^ (unsigned long)k;
}

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}
static void block_a_little(void) {
    struct timespec ts = {0, 200000};
    struct pollfd p = {idle_pipe[0], POLLIN, 0};
    if (nanosleep(&ts, 0) && errno == EINTR) eintr++;
    if (poll(&p, 1, 1) < 0 && errno == EINTR) eintr++;
}
static double cpu_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}
/* ms of calls on this thread, in its CPU time (the epochs' clock: a loaded
 * machine gives fewer epochs in wall time); blocking calls every 20 ms if
 * `block` */
static void busy(double ms, int block) {
    double end = cpu_ms() + ms, next_block = 0;
    unsigned long i = 0;
    while (cpu_ms() < end) {
        for (int j = 0; j < 200; j++, i++) {
            inl_hot(i);
            if (i % 16 == 0) inl_cold(i);
        }
        if (block && now_ms() >= next_block) {
            block_a_little();
            next_block = now_ms() + 20;
        }
    }
}
static int tasks(void) {
    DIR *d = opendir("/proc/self/task");
    struct dirent *e;
    int n = 0;
    if (!d) return -1;
    while ((e = readdir(d)))
        if (e->d_name[0] != '.') n++;
    closedir(d);
    return n;
}
/* ms of calls of inl_worker, in wall time */
static void work(double ms) {
    double end = now_ms() + ms;
    unsigned long i = 0;
    while (now_ms() < end)
        for (int j = 0; j < 200; j++) inl_worker(i++);
}
static double worker_ms;
static void *worker(void *arg) {
    (void)arg;
    work(worker_ms);
    return 0;
}
static int thread_work(void *arg) {
    (void)arg;
    work(900);
    return 0;
}
static void timer_work(union sigval v) {
    (void)v;
    work(1.5);
}
static void on_any(int sig) {
    char b[64];
    int n = snprintf(b, sizeof b, "program got signal %d\n", sig);
    if (write(2, b, (size_t)n) < 0) {}
    _exit(3);
}
/* not probed: nothing of the profiler runs in these handlers */
#define UNPROBED __attribute__((noinline, patchable_function_entry(0, 0)))
UNPROBED static void on_usr1(int sig) { sink += (unsigned long)sig; }
UNPROBED static void on_alrm(int sig) {
    double end;
    (void)sig;
    raise(SIGUSR1);
    end = now_ms() + 1;
    while (now_ms() < end) sink++;
}

static int hostile(const char *mode, int argc, char **argv) {
    unsigned long taken = 0;
    int s;
    if (!strcmp(mode, "reset") || !strcmp(mode, "catchall"))
        for (s = 1; s < NSIG; s++)
            if (s != SIGKILL && s != SIGSTOP && s != SIGCHLD && s != SIGSEGV && s != SIGTRAP)
                signal(s, !strcmp(mode, "reset") ? SIG_DFL : on_any);
    if (!strcmp(mode, "sigwait")) {
        sigset_t all;
        siginfo_t si;
        struct timespec zero = {0, 0};
        double end = now_ms() + 500;
        unsigned long i = 0;
        sigfillset(&all);
        sigprocmask(SIG_BLOCK, &all, 0);
        while (now_ms() < end) {
            for (int j = 0; j < 200; j++) inl_hot(i++);
            if (sigtimedwait(&all, &si, &zero) > 0) taken++;
        }
    } else if (!strcmp(mode, "altstack")) {
        char altstack[1 << 16]; /* on main's stack, above the SIGALRM handler's frames */
        stack_t ss = {.ss_sp = altstack, .ss_size = sizeof altstack};
        struct sigaction sa;
        struct itimerval it = {{0, 2000}, {0, 2000}};
        unsigned long i = 0;
        busy(300, 0);
        sigaltstack(&ss, 0);
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_usr1;
        sa.sa_flags = SA_ONSTACK;
        sigaction(SIGUSR1, &sa, 0);
        sa.sa_handler = on_alrm;
        sa.sa_flags = 0;
        sigaction(SIGALRM, &sa, 0);
        setitimer(ITIMER_REAL, &it, 0);
        for (;;) {
            void *q[4096];
            for (int j = 0; j < 4096; j++) q[j] = malloc(16 + (i++ % 100));
            for (int j = 0; j < 4096; j++) free(q[j]);
            malloc_trim(0);
            inl_hot(i);
        }
    } else {
        busy(300, 0);
    }
    if (!strcmp(mode, "c11")) {
        thrd_t t[2];
        for (int k = 0; k < 2; k++)
            if (thrd_create(&t[k], thread_work, 0) != thrd_success) return 1;
        for (int k = 0; k < 2; k++) thrd_join(t[k], 0);
    } else if (!strcmp(mode, "sigev")) {
        struct sigevent ev;
        struct itimerspec its = {{0, 2000000}, {0, 2000000}};
        timer_t t;
        memset(&ev, 0, sizeof ev);
        ev.sigev_notify = SIGEV_THREAD;
        ev.sigev_notify_function = timer_work;
        if (timer_create(CLOCK_MONOTONIC, &ev, &t)) return 1;
        timer_settime(t, 0, &its, 0);
        sleep(1);
        timer_delete(t);
    } else if (!strcmp(mode, "fifo") && argc > 2) {
        int fd = open(argv[2], O_RDONLY);
        printf("open returned %d\n", fd);
    }
    printf("done %lu\n", taken);
    return 0;
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "busy";
    double ms = argc > 2 ? atof(argv[2]) : 600;
    int single, n;
    if (pipe(idle_pipe)) return 1;
    if (strcmp(mode, "busy") && strcmp(mode, "threads") && strcmp(mode, "wait") && strcmp(mode, "closeall"))
        return hostile(mode, argc, argv);
    if (!strcmp(mode, "closeall")) {
        busy(100, 0);
        for (int fd = 3; fd < 1024; fd++) close(fd);
        for (int k = 0; k < 4; k++) /* the numbers taken again by files of its own, as logs are */
            if (open("/dev/null", O_RDWR) < 0) return 1;
        if (pipe(idle_pipe)) return 1;
    }
    if (!strcmp(mode, "wait")) {
        char c;
        busy(300, 0);
        while (read(0, &c, 1) != 0) {}
        return 0;
    }
    busy(!strcmp(mode, "threads") ? ms / 3 : ms, 1);
    single = __libc_single_threaded;
    n = tasks();
    if (!strcmp(mode, "threads")) {
        pthread_t t[2];
        worker_ms = ms * 2 / 3;
        for (long k = 0; k < 2; k++)
            if (pthread_create(&t[k], 0, worker, (void *)(k << 20))) return 1;
        for (int k = 0; k < 2; k++) pthread_join(t[k], 0);
    }
    printf("single %d tasks %d eintr %u\n", single, n, eintr);
    return 0;
}
