/* bench/startup/phases.c - registration and unregistration time, measured
 * inside the 100,000-probe program. Linked first, so that in .init_array its
 * priority-101 constructor runs before edgeprobe's (also 101) and the 102
 * one after; destructors run in reverse: 102 before edgeprobe's, 101 last.
 * Prints "register_ns N unregister_ns N register_cpu_ns N unregister_cpu_ns N"
 * to stderr at exit: wall time, and the process's CPU time (user + system,
 * page faults included), which a loaded machine's waits do not inflate. */
#include <stdio.h>
#include <time.h>

enum { WALL, CPU };
static long long t_init0[2], t_init1[2], t_fini0[2];
static void now_ns(long long t[2]) {
    struct timespec w, c;
    clock_gettime(CLOCK_MONOTONIC, &w);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c);
    t[WALL] = (long long)w.tv_sec * 1000000000 + w.tv_nsec;
    t[CPU] = (long long)c.tv_sec * 1000000000 + c.tv_nsec;
}
__attribute__((constructor(101))) static void init_start(void) { now_ns(t_init0); }
__attribute__((constructor(102))) static void init_end(void) { now_ns(t_init1); }
__attribute__((destructor(102))) static void fini_start(void) { now_ns(t_fini0); }
__attribute__((destructor(101))) static void fini_end(void) {
    long long t[2];
    now_ns(t);
    fprintf(stderr, "register_ns %lld unregister_ns %lld register_cpu_ns %lld unregister_cpu_ns %lld\n",
            t_init1[WALL] - t_init0[WALL], t[WALL] - t_fini0[WALL], t_init1[CPU] - t_init0[CPU], t[CPU] - t_fini0[CPU]);
}
