/* edgeprobe ps - the processes that serve a control endpoint. Sockets whose
 * process is gone (nothing accepts on them) are removed. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "control.h"
#include "tool.h"

static void command_of(int pid, char *buf, size_t cap) {
    char path[64];
    FILE *f;
    snprintf(path, sizeof path, "/proc/%d/comm", pid);
    buf[0] = 0;
    if ((f = fopen(path, "r"))) {
        if (fgets(buf, (int)cap, f)) buf[strcspn(buf, "\n")] = 0;
        fclose(f);
    }
}

/* 1 live (printed), 0 stale (removed) or not ours to judge. */
static int visit(const char *path, int pid) {
    struct sockaddr_un addr;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), rc;
    char comm[64];
    if (fd < 0) return 0;
    memset(&addr, 0, sizeof addr);
    addr.sun_family = AF_UNIX;
    if (snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path) >= (int)sizeof addr.sun_path) rc = -1, errno = ENAMETOOLONG;
    else rc = connect(fd, (struct sockaddr *)&addr, sizeof addr);
    close(fd);
    if (rc && errno == ECONNREFUSED) { /* no listener: its process died */
        if (!unlink(path)) fprintf(stderr, "edgeprobe ps: removed stale socket %s (process %d is gone)\n", path, pid);
        return 0;
    }
    if (rc) return 0; /* EACCES and the like: another user's */
    command_of(pid, comm, sizeof comm);
    printf("%-8d %-16s %s\n", pid, comm[0] ? comm : "?", path);
    return 1;
}

int cmd_ps(int argc, char **argv) {
    char dirs[64][256], path[600];
    int i, n;
    if (ctl_help(argc, argv, USAGE_PS)) return 0;
    if (argc != 1) {
        fprintf(stderr, "usage: edgeprobe " USAGE_PS "\n");
        return TOOL_EXIT_USAGE;
    }
    n = ctl_dirs(dirs, 64);
    printf("%-8s %-16s %s\n", "PID", "COMMAND", "SOCKET");
    for (i = 0; i < n; i++) {
        DIR *d = opendir(dirs[i]);
        struct dirent *e;
        while (d && (e = readdir(d))) {
            char digits[16];
            size_t len = strlen(e->d_name);
            if (len < 6 || len > 15 || strcmp(e->d_name + len - 5, ".sock")) continue;
            memcpy(digits, e->d_name, len - 5);
            digits[len - 5] = 0;
            /* This command carries the runtime too (tools/edgeprobe.c): with
             * EDGEPROBE_CONTROL=1 exported it serves an endpoint of its own. */
            if (!ctl_is_pid(digits) || atoi(digits) == (int)getpid()) continue;
            if (snprintf(path, sizeof path, "%s/%s", dirs[i], e->d_name) < (int)sizeof path) visit(path, atoi(digits));
        }
        if (d) closedir(d);
    }
    return 0;
}
