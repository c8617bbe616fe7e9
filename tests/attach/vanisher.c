/* A process that exits, or runs exec, while `edgeprobe attach` holds it: a
 * helper thread reads its own TracerPid in a tight loop and, the moment a
 * tracer has seized the main thread (blocked in pause()), calls _exit(3) or
 * execs this program again as "vanisher execed", which pauses untraced.
 * _exit, not exit: exit() runs the loader's destructors under its lock,
 * which the injected dlopen holds on the seized thread, so exit() waits
 * for the attach to finish (as it should) and the attach wins the race.
 *     vanisher exit|exec|execed */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <pthread.h>

static int traced(void) {
    char line[256];
    int tracer = 0;
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) return 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "TracerPid: %d", &tracer) == 1) break;
    fclose(f);
    return tracer != 0;
}
static void *vanish_when_seized(void *mode) {
    while (!traced()) {
    }
    if (!strcmp(mode, "exec")) execl("/proc/self/exe", "vanisher", "execed", (char *)0);
    _exit(3);
}
int main(int argc, char **argv) {
    pthread_t t;
    if (argc != 2) return 2;
    printf("%s\n", argv[1]);
    fflush(stdout);
    if (strcmp(argv[1], "execed") && pthread_create(&t, 0, vanish_when_seized, argv[1])) return 2;
    for (;;) pause();
}
