/* idle_thread.c - LD_PRELOAD experiment: start one thread that only sleeps,
 * change nothing else. glibc's malloc takes its fast single-thread paths
 * (no arena lock, no atomic instructions) only while a process has one
 * thread; any profiler with a background thread (edgeprobe prof's epoch
 * thread) turns them off. Timing a program with and without this library
 * measures that cost alone. Used by hand:
 *   cc -O2 -shared -fPIC -pthread bench/real/idle_thread.c -o build/real/idle_thread.so
 *   LD_PRELOAD=build/real/idle_thread.so build/real/fpe/lua bench/real/bench.lua 20
 * or bench/real/idle_thread.sh (interleaved, pinned rounds). */
#include <pthread.h>
#include <unistd.h>

static void *sleep_forever(void *arg) {
    (void)arg;
    for (;;) pause();
    return 0;
}

__attribute__((constructor)) static void idle_thread_init(void) {
    pthread_t t;
    if (pthread_create(&t, 0, sleep_forever, 0) == 0) pthread_detach(t);
}
