/* control_many.c - a process with many probes (bench/gen_core.py writes
 * them) serving the control endpoint, for listing more rows than one
 * client buffer holds. Says "ready PID" and runs for argv[1] seconds,
 * calling every probe function in a loop. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define EDGEPROBE_IMPLEMENTATION /* this program's one copy of the implementation */
#include "edgeprobe.h"

extern void (*const core_funcs[])(void);
extern const int core_nfuncs;

int main(int argc, char **argv) {
    time_t end = time(NULL) + (argc > 1 ? atoi(argv[1]) : 10);
    int i;
    if (edgeprobe_control_start() < 0) return 1;
    printf("ready %d\n", (int)getpid());
    fflush(stdout);
    while (time(NULL) < end) {
        for (i = 0; i < core_nfuncs; i++) core_funcs[i]();
        usleep(1000);
    }
    return 0;
}
