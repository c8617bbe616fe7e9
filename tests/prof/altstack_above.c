/* altstack_above.c - signal handlers on an alternate stack that lies just
 * above the frames they interrupt (tests/drivers/prof.sh, case
 * prof-altstack-above). `interrupted` spins, raises SIGUSR1 and spins
 * again; the handler runs on the alternate stack and calls the probed
 * `in_handler`. Two places for that stack:
 *
 *     frame   an array in a caller's frame, above `interrupted`'s
 *     thread  a thread whose stack was mapped right below it
 *
 * Seen from a call in the handler, `interrupted`'s frame lies below, as a
 * frame left by longjmp would: the header dropped it and its return
 * aborted the program ("return trampoline reached with no frame for it"),
 * and the profiler dropped its timed call (a mean of 0).
 *
 *     altstack_above frame|thread MS
 *
 * Prints "interrupted CALLS TICKS" (its calls, and their mean length in
 * TSC ticks as the program measured them). Build with -O2
 * -fpatchable-function-entry=5 -pthread. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <x86intrin.h>

#define ALT_SIZE (64 << 10)
static volatile unsigned long sink;
static double run_ms;
static unsigned long calls, ticks;

__attribute__((noinline)) void in_handler(void) {
    for (int i = 0; i < 200; i++) sink += (unsigned long)i;
}
static void on_usr1(int sig) {
    (void)sig;
    in_handler();
}
__attribute__((noinline)) void interrupted(void) {
    for (int i = 0; i < 2000; i++) sink += (unsigned long)i;
    raise(SIGUSR1);
    for (int i = 0; i < 2000; i++) sink += (unsigned long)i;
}
static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}
/* Calls `interrupted` for run_ms with its signal handled on [alt, alt +
 * ALT_SIZE). */
static void run_on(char *alt) {
    stack_t ss = {.ss_sp = alt, .ss_size = ALT_SIZE}, off = {.ss_flags = SS_DISABLE};
    struct sigaction sa;
    double end = now_ms() + run_ms;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_usr1;
    sa.sa_flags = SA_ONSTACK;
    if (sigaltstack(&ss, 0) || sigaction(SIGUSR1, &sa, 0)) exit(2);
    while (now_ms() < end) {
        unsigned long t0 = __rdtsc();
        interrupted();
        ticks += __rdtsc() - t0;
        calls++;
    }
    sigaltstack(&off, 0);
}
__attribute__((noinline)) static void in_frame(void) {
    char alt[ALT_SIZE];
    run_on(alt);
    __asm__ volatile("" ::"r"(alt) : "memory");
}
static void *thread_main(void *alt) {
    run_on((char *)alt);
    return 0;
}
static void below_altstack(void) {
    size_t stack_size = 1 << 20;
    char *m = (char *)mmap(0, stack_size + ALT_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    pthread_attr_t attr;
    pthread_t th;
    if (m == MAP_FAILED) exit(2);
    pthread_attr_init(&attr);
    pthread_attr_setstack(&attr, m, stack_size);
    if (pthread_create(&th, &attr, thread_main, m + stack_size)) exit(2);
    pthread_join(th, 0);
}
int main(int argc, char **argv) {
    run_ms = argc > 2 ? atof(argv[2]) : 300;
    if (argc > 1 && !strcmp(argv[1], "thread"))
        below_altstack();
    else
        in_frame();
    printf("interrupted %lu %lu\n", calls, calls ? ticks / calls : 0);
    return 0;
}
