/* signals.c - calls made by a signal handler, which often interrupts the
 * profiler's handlers (case prof-exact-calls):
 *     signals SECONDS [late]
 * The main thread calls 64 small functions in turn for SECONDS; a second
 * thread sends it SIGUSR1 as fast as it can, and the signal handler calls
 * sig_leaf. Under `edgeprobe prof --exact-calls` every call of sig_leaf
 * must be counted, those that came while the main thread was inside a
 * handler (none runs for them) too. With `late`, the signals start after
 * 0.3 s, and the handler calls sig_late, twice at most, only when the
 * signal interrupted the profiler's code (its library, by the interrupted
 * instruction): sig_late, asleep by then (its window open, idle for 30
 * epochs), sees only calls no handler runs for, which wake nobody.
 * Prints the calls of sig_leaf, sig_late and f00.
 * Build with -O2 -fpatchable-function-entry=5 -pthread. */
#define _GNU_SOURCE
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

static volatile unsigned long leaf_calls, late_calls, f00_calls, sink;
static volatile int done, late;
static pthread_t main_thread;
static uintptr_t prof_lo = ~(uintptr_t)0, prof_hi; /* the profiler's code */

__attribute__((noinline)) void sig_leaf(void) { leaf_calls++; }
__attribute__((noinline)) void sig_late(void) { late_calls++; }
__attribute__((noinline)) void f00(void) { f00_calls++; }
#define F(i) __attribute__((noinline)) void f##i(void) { sink++; }
#define F8(i) F(i##1) F(i##2) F(i##3) F(i##4) F(i##5) F(i##6) F(i##7)
F8(0) F(10) F8(1) F(20) F8(2) F(30) F8(3) F(40) F8(4) F(50) F8(5) F(60) F8(6) F(70) F8(7)
#define C(i) f##i();
#define C8(i) C(i##1) C(i##2) C(i##3) C(i##4) C(i##5) C(i##6) C(i##7)

static int find_profiler(struct dl_phdr_info *info, size_t size, void *arg) {
    int k;
    (void)size, (void)arg;
    if (!strstr(info->dlpi_name, "libedgeprobe-prof")) return 0;
    for (k = 0; k < info->dlpi_phnum; k++)
        if (info->dlpi_phdr[k].p_type == PT_LOAD && (info->dlpi_phdr[k].p_flags & PF_X)) {
            uintptr_t a = info->dlpi_addr + info->dlpi_phdr[k].p_vaddr;
            if (a < prof_lo) prof_lo = a;
            if (a + info->dlpi_phdr[k].p_memsz > prof_hi) prof_hi = a + info->dlpi_phdr[k].p_memsz;
        }
    return 0;
}
static void on_usr1(int sig, siginfo_t *si, void *context) {
    uintptr_t ip = (uintptr_t)((ucontext_t *)context)->uc_mcontext.gregs[REG_RIP];
    (void)sig, (void)si;
    if (!late) sig_leaf();
    else if (ip >= prof_lo && ip < prof_hi && late_calls < 2) sig_late();
}
static void *sender(void *arg) {
    (void)arg;
    if (late) usleep(300000);
    while (!__atomic_load_n(&done, __ATOMIC_ACQUIRE)) pthread_kill(main_thread, SIGUSR1);
    return 0;
}
static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}
int main(int argc, char **argv) {
    double secs = argc > 1 ? atof(argv[1]) : 0.5, t0 = now();
    struct sigaction sa;
    sigset_t usr1;
    pthread_t th;
    late = argc > 2 && !strcmp(argv[2], "late");
    if (late) dl_iterate_phdr(find_profiler, 0);
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART | SA_SIGINFO;
    sa.sa_sigaction = on_usr1;
    sigaction(SIGUSR1, &sa, 0);
    main_thread = pthread_self();
    if (pthread_create(&th, 0, sender, 0)) return 2;
    do {
        C(00) C8(0) C(10) C8(1) C(20) C8(2) C(30) C8(3) C(40) C8(4) C(50) C8(5) C(60) C8(6) C(70) C8(7)
    } while (now() - t0 < secs);
    sigemptyset(&usr1);
    sigaddset(&usr1, SIGUSR1);
    pthread_sigmask(SIG_BLOCK, &usr1, 0); /* no handler runs once the counts are read */
    __atomic_store_n(&done, 1, __ATOMIC_RELEASE);
    pthread_join(th, 0);
    if (late) printf("sig_late %lu\nf00 %lu\n", late_calls, f00_calls);
    else printf("sig_leaf %lu\nf00 %lu\n", leaf_calls, f00_calls);
    return 0;
}
