/* deep_stack.c - a program of one thread that runs its calls with all but
 * MARGIN bytes of its stack in use (tests/drivers/prof.sh, case
 * prof-inline-deep-stack): it recurses, 1 KiB a frame, until the stack's
 * top (the [stack] line of /proc/self/maps) is RLIMIT_STACK - MARGIN away,
 * then calls deep_leaf for MS ms there. The epochs of `prof --epochs
 * inline` interrupt it at that depth: run on the thread's stack, a part
 * (about 25 KiB) overflowed it.
 *
 *     deep_stack MARGIN MS
 *
 * Prints "depth D" (frames) at the end. Build with -O2
 * -fpatchable-function-entry=5; run under a small `ulimit -s`. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static volatile unsigned long sink;
static uintptr_t stack_top, want_used;
static double ms;

__attribute__((noinline)) void deep_leaf(unsigned long i) { sink += i * 3; }

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}
__attribute__((noinline)) static unsigned long dive(unsigned long depth) {
    volatile char frame[1024];
    frame[0] = (char)depth;
    if (stack_top - (uintptr_t)&frame[0] < want_used) return dive(depth + 1) + frame[0];
    double end = now_ms() + ms;
    unsigned long i = 0;
    while (now_ms() < end)
        for (int j = 0; j < 1000; j++) deep_leaf(i++);
    printf("depth %lu\n", depth);
    return frame[0];
}
int main(int argc, char **argv) {
    struct rlimit rl;
    char line[256];
    FILE *maps = fopen("/proc/self/maps", "r");
    unsigned long margin = argc > 1 ? strtoul(argv[1], 0, 0) : 16384;
    ms = argc > 2 ? atof(argv[2]) : 500;
    if (!maps || getrlimit(RLIMIT_STACK, &rl) || rl.rlim_cur == RLIM_INFINITY) return 2;
    while (fgets(line, sizeof line, maps))
        if (strstr(line, "[stack]")) stack_top = strtoul(strchr(line, '-') + 1, 0, 16);
    fclose(maps);
    if (!stack_top || rl.rlim_cur < margin + 65536) return 2;
    want_used = rl.rlim_cur - margin;
    sink += dive(0);
    return 0;
}
