/* daemon.c - a program that becomes a daemon (tests/drivers/prof.sh, case
 * prof-daemon): daemon(0, 0) first (its parent exits inside it; the child
 * moves to "/" and puts its standard streams on /dev/null), then calls
 * daemon_work for MS ms (or 60 s with "forever": until a signal ends it)
 * and writes its own count of them to OUT (an absolute path: the daemon is
 * in "/").
 *
 *     daemon MS|forever OUT [foreground|cd-first]
 *
 * "foreground": no daemon(); the same calls in the process launched.
 * "cd-first": chdir("/") before daemon(1, 0), as many daemons do (the
 * parent then hands its child's pid on from "/").
 * OUT gets "daemon_work CALLS". Under `edgeprobe prof`, the profile follows
 * the daemon (the agent's DAEMONS), and the command waits for it. Build
 * with -O2 -fpatchable-function-entry=5. */
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

__attribute__((noinline)) void daemon_work(unsigned long i) {
    for (int k = 0; k < 300; k++) sink += i * (unsigned long)k;
}
static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}
int main(int argc, char **argv) {
    int forever = argc > 1 && !strcmp(argv[1], "forever");
    double end;
    unsigned long i = 0;
    FILE *out;
    const char *how = argc > 3 ? argv[3] : "";
    if (argc < 3 || argv[2][0] != '/') return 2;
    if (!strcmp(how, "cd-first") && chdir("/")) return 1;
    if (strcmp(how, "foreground") && daemon(!strcmp(how, "cd-first"), 0)) return 1;
    end = now_ms() + (forever ? 60000 : atof(argv[1]));
    while (now_ms() < end)
        for (int j = 0; j < 100; j++) daemon_work(i++);
    if (!(out = fopen(argv[2], "w"))) return 1;
    fprintf(out, "daemon_work %lu\n", i);
    return fclose(out) ? 1 : 0;
}
