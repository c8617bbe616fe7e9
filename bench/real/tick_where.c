/* tick_where.c - LD_PRELOAD experiment for epochs run on the program's own
 * thread (no epoch thread, so glibc keeps its single-thread fast paths).
 *
 * The design weighed (bench/RESULTS-real.md, seventeenth session): a timer
 * on the main thread's CPU-time clock (timer_create with
 * CLOCK_THREAD_CPUTIME_ID, delivered to that thread) fires every part of an
 * epoch; its handler runs the epoch's work only at a safe point - the
 * interrupted instruction outside libc and the loader (which the epoch's
 * work calls into: malloc, dl_iterate_phdr), or inside a leaf system-call
 * wrapper (blocked in read, poll, nanosleep...) - and tries again shortly
 * otherwise. This library measures the two premises, changing nothing else:
 *
 *   1. How often a tick lands at such a point (per program): counts of
 *      ticks by where the interrupted instruction is: libc, the loader, the
 *      vDSO, this library, or elsewhere (the program and its other
 *      libraries); and of the libc ones, how many sit just after a
 *      `syscall` instruction.
 *   2. That a CPU-time timer does not cut blocking calls short: a thread
 *      blocked uses no CPU, so its timer does not advance. Every EINTR a
 *      program sees under this library would contradict that
 *      (tests it by hand: bench/real/tick_eintr.c).
 *
 * Environment: TICK_WHERE_US (default 2500, a quarter of the profiler's
 * 10 ms epoch). Prints one line to stderr at exit. Used by hand:
 *   cc -O2 -shared -fPIC bench/real/tick_where.c -o build/real/tick_where.so -lrt
 *   LD_PRELOAD=build/real/tick_where.so build/real/fpe/lua bench/real/bench.lua 5
 * or bench/real/tick_where.sh. x86-64 only. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>
#include <x86intrin.h>

typedef struct {
    uintptr_t lo[8], hi[8];
    int n;
} text_ranges;

enum { AT_LIBC, AT_LOADER, AT_VDSO, AT_SELF, AT_ELSEWHERE, AT_KINDS };
static const char *const kind_name[AT_KINDS] = {"libc", "loader", "vdso", "self", "elsewhere"};
static text_ranges ranges[AT_LIBC + 4];
static uintptr_t base_of[AT_SELF + 1];
static volatile unsigned long ticks[AT_KINDS], after_syscall, handler_ticks;
static timer_t timer;

/* The executable segments of the object loaded at base. */
static int add_object(struct dl_phdr_info *info, size_t size, void *arg) {
    int kind, i;
    (void)size, (void)arg;
    for (kind = 0; kind <= AT_SELF; kind++) {
        if (!base_of[kind] || info->dlpi_addr != base_of[kind]) continue;
        for (i = 0; i < info->dlpi_phnum && ranges[kind].n < 8; i++) {
            const ElfW(Phdr) *p = &info->dlpi_phdr[i];
            if (p->p_type != PT_LOAD || !(p->p_flags & PF_X)) continue;
            ranges[kind].lo[ranges[kind].n] = info->dlpi_addr + p->p_vaddr;
            ranges[kind].hi[ranges[kind].n++] = info->dlpi_addr + p->p_vaddr + p->p_memsz;
        }
    }
    return 0;
}
static uintptr_t object_base(void *sym) {
    Dl_info d;
    return dladdr(sym, &d) ? (uintptr_t)d.dli_fbase : 0;
}
static int where(uintptr_t pc) {
    int kind, i;
    for (kind = 0; kind <= AT_SELF; kind++)
        for (i = 0; i < ranges[kind].n; i++)
            if (pc >= ranges[kind].lo[i] && pc < ranges[kind].hi[i]) return kind;
    return AT_ELSEWHERE;
}
static void on_tick(int sig, siginfo_t *si, void *uc_) {
    ucontext_t *uc = (ucontext_t *)uc_;
    uintptr_t pc = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
    uint64_t t0 = __rdtsc();
    int kind = where(pc);
    (void)sig, (void)si;
    ticks[kind]++;
    if (kind == AT_LIBC && ((const unsigned char *)pc)[-2] == 0x0f && ((const unsigned char *)pc)[-1] == 0x05)
        after_syscall++;
    handler_ticks += __rdtsc() - t0;
}
__attribute__((constructor)) static void tick_where_start(void) {
    const char *e = getenv("TICK_WHERE_US");
    long us = e ? atol(e) : 2500;
    struct sigaction sa = {0};
    struct sigevent sev = {0};
    struct itimerspec its = {{0, 0}, {0, 0}};
    base_of[AT_LIBC] = object_base((void *)malloc);
    base_of[AT_LOADER] = getauxval(AT_BASE);
    base_of[AT_VDSO] = getauxval(AT_SYSINFO_EHDR);
    base_of[AT_SELF] = object_base((void *)on_tick);
    dl_iterate_phdr(add_object, 0);
    sa.sa_sigaction = on_tick;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigfillset(&sa.sa_mask);
    sigaction(SIGRTMIN + 5, &sa, 0);
    sev.sigev_notify = SIGEV_THREAD_ID;
    sev.sigev_signo = SIGRTMIN + 5;
    sev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
    if (timer_create(CLOCK_THREAD_CPUTIME_ID, &sev, &timer)) {
        perror("tick_where: timer_create");
        return;
    }
    its.it_interval.tv_sec = its.it_value.tv_sec = us / 1000000;
    its.it_interval.tv_nsec = its.it_value.tv_nsec = us % 1000000 * 1000;
    timer_settime(timer, 0, &its, 0);
}
__attribute__((destructor)) static void tick_where_report(void) {
    unsigned long all = 0;
    int k;
    for (k = 0; k < AT_KINDS; k++) all += ticks[k];
    fprintf(stderr, "tick_where: %lu ticks:", all);
    for (k = 0; k < AT_KINDS; k++)
        fprintf(stderr, " %s %lu (%.1f%%)", kind_name[k], ticks[k], all ? 100.0 * ticks[k] / all : 0);
    fprintf(stderr, "; libc just after a syscall %lu; handler %.0f ticks a tick\n", after_syscall,
            all ? (double)handler_ticks / all : 0);
}
