/* Watches a process's threads for tracing stops while `edgeprobe attach`
 * and friends run: reads /proc/PID/task/<tid>/stat in a loop until STOPFILE
 * exists, and prints the threads ever seen stopped by a tracer (state 't'),
 * the most seen stopped at once, and how many scans it made.
 *     stopwatch PID STOPFILE */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_SEEN 64
/* The state letter of a task: after the ')' that ends its name. */
static char task_state(const char *dir, const char *tid) {
    char path[300], buf[512], *paren;
    FILE *f;
    size_t n;
    snprintf(path, sizeof path, "%s/%s/stat", dir, tid);
    if (!(f = fopen(path, "r"))) return 0;
    n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    paren = strrchr(buf, ')');
    return paren && paren[1] == ' ' ? paren[2] : 0;
}
int main(int argc, char **argv) {
    char dir[64];
    long seen[MAX_SEEN];
    int nseen = 0, most = 0, i;
    unsigned long scans = 0;
    if (argc != 3) return 2;
    snprintf(dir, sizeof dir, "/proc/%s/task", argv[1]);
    while (access(argv[2], F_OK) != 0) {
        DIR *d = opendir(dir);
        struct dirent *e;
        int now = 0;
        if (!d) break; /* the process is gone */
        while ((e = readdir(d))) {
            long tid = atol(e->d_name);
            if (tid <= 0 || task_state(dir, e->d_name) != 't') continue;
            now++;
            for (i = 0; i < nseen && seen[i] != tid; i++) {}
            if (i == nseen && nseen < MAX_SEEN) seen[nseen++] = tid;
        }
        closedir(d);
        if (now > most) most = now;
        scans++;
    }
    printf("threads seen in tracing stop: %d; most at once: %d; scans: %lu\n", nseen, most, scans);
    return 0;
}
