/* tools/cmd_snapshot.c - `edgeprobe snapshot PID [-o FILE]`: a flight
 * recorder's rings saved to a trace file while the program runs on and
 * keeps recording.
 *
 * A program under `edgeprobe record --flight` keeps its rings in files
 * (EDGEPROBE_RECORD_SHM, header section 11.8) and its trace file holds the
 * point tables as they are registered; the snapshot is that file's header
 * and POINT blocks, then every ring's events as they are now
 * (tools/ring_files.c), the threads and an END block. Nothing in the
 * program stops or is told. A process recording through its control
 * endpoint (`record -p PID --flight`) writes the snapshot itself (request
 * `record snapshot PATH`, header section 28.3.1). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "control.h"
#include "ring_files.h"
#include "tool.h"
#include "trace_file.h"

#define HEADER_BYTES 48
#define BLOCK_HEAD 16
#define BLK_POINT 2
#define ENV_MAX (1 << 20) /* bytes of /proc/PID/environ read */

/* The value of `name` in process pid's environment (as it was exec'ed), in
 * out; 0, or -1 when it is not there. */
static int proc_env(int pid, const char *name, char *out, size_t n) {
    char path[64], *buf = malloc(ENV_MAX + 1), *p;
    size_t len = 0, k = strlen(name);
    ssize_t got;
    int fd, rc = -1;
    snprintf(path, sizeof path, "/proc/%d/environ", pid);
    if (!buf || (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
        free(buf);
        return -1;
    }
    while (len < ENV_MAX && (got = read(fd, buf + len, ENV_MAX - len)) > 0) len += (size_t)got;
    close(fd);
    buf[len] = 0;
    for (p = buf; p < buf + len; p += strlen(p) + 1)
        if (!strncmp(p, name, k) && p[k] == '=' && strlen(p + k + 1) < n) {
            strcpy(out, p + k + 1);
            rc = 0;
            break;
        }
    free(buf);
    return rc;
}
/* The trace file the process writes: among its open files, the regular
 * one that starts with the trace-file magic. An open fd, or -1. */
static int find_trace_fd(int pid) {
    char dir[64], path[PATH_MAX], magic[8];
    struct dirent *e;
    DIR *d;
    int fd = -1;
    snprintf(dir, sizeof dir, "/proc/%d/fd", pid);
    if (!(d = opendir(dir))) return -1;
    while (fd < 0 && (e = readdir(d))) {
        struct stat st;
        if (e->d_name[0] == '.' || (size_t)snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= sizeof path ||
            (fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) < 0)
            continue;
        if (fstat(fd, &st) || !S_ISREG(st.st_mode) || pread(fd, magic, 8, 0) != 8 || memcmp(magic, "EPTRACE", 8))
            close(fd), fd = -1;
    }
    closedir(d);
    return fd;
}
/* The header and the whole POINT blocks of the live trace file (a block
 * being written is left out), copied to out. The TSC Hz, or 0. */
static uint64_t copy_tables(int fd, FILE *out) {
    struct stat st;
    unsigned char *b;
    uint64_t hz = 0, at = HEADER_BYTES;
    if (fstat(fd, &st) || st.st_size < HEADER_BYTES || !(b = malloc((size_t)st.st_size))) return 0;
    if (pread(fd, b, (size_t)st.st_size, 0) != st.st_size) {
        free(b);
        return 0;
    }
    memcpy(&hz, b + 16, 8);
    fwrite(b, HEADER_BYTES, 1, out);
    while ((uint64_t)st.st_size - at >= BLOCK_HEAD) {
        uint32_t type;
        uint64_t len;
        memcpy(&type, b + at, 4);
        memcpy(&len, b + at + 8, 8);
        if (len > (uint64_t)st.st_size - at - BLOCK_HEAD) break;
        if (type == BLK_POINT) fwrite(b + at, BLOCK_HEAD + len, 1, out);
        at += BLOCK_HEAD + len;
    }
    free(b);
    return hz;
}
/* A program under `edgeprobe record --flight`: its ring files. 0; 1 when
 * it is not such a program; -1 after a message. */
static int snapshot_ring_files(int pid, const char *out) {
    char dir[PATH_MAX], flight[8], owner[24];
    int fd;
    uint64_t hz;
    FILE *f;
    if (proc_env(pid, "EDGEPROBE_RECORD_SHM", dir, sizeof dir) || proc_env(pid, "EDGEPROBE_RECORD_FLIGHT", flight, sizeof flight) ||
        strcmp(flight, "1") || proc_env(pid, "EDGEPROBE_RECORD_PID", owner, sizeof owner) || atoi(owner) != pid)
        return 1;
    if ((fd = find_trace_fd(pid)) < 0) {
        fprintf(stderr, "edgeprobe snapshot: process %d has no trace file open (its recording ended, or never started)\n", pid);
        return -1;
    }
    if (!(f = fopen(out, "wb"))) {
        fprintf(stderr, "edgeprobe snapshot: %s: %s\n", out, strerror(errno));
        close(fd);
        return -1;
    }
    hz = copy_tables(fd, f);
    close(fd);
    ring_dir_copy(f, dir, 1, 0, hz);
    if (fclose(f) || !hz) {
        fprintf(stderr, "edgeprobe snapshot: cannot write %s%s\n", out, hz ? "" : " (the trace file has no header yet)");
        return -1;
    }
    return 0;
}
/* A process with a control endpoint writes the snapshot itself, at an
 * absolute path. 0, or -1 after a message. */
static int snapshot_endpoint(int pid, const char *out) {
    char request[PATH_MAX + 32], path[PATH_MAX], cwd[PATH_MAX], target[24];
    ctl_conn *c;
    int rc = -1;
    if (out[0] == '/') snprintf(path, sizeof path, "%s", out);
    else if (!getcwd(cwd, sizeof cwd) || (size_t)snprintf(path, sizeof path, "%s/%s", cwd, out) >= sizeof path) return -1;
    if (strchr(path, ' ') || strlen(path) > 480) {
        fprintf(stderr, "edgeprobe snapshot: the output path must have no spaces and fit a request: %s\n", path);
        return -1;
    }
    snprintf(request, sizeof request, "record snapshot %s", path);
    snprintf(target, sizeof target, "%d", pid);
    if (!(c = ctl_connect(target))) return -1;
    if (!ctl_send(c, request) && ctl_expect_ok_within(c, "snapshot", 4 * CTL_TIMEOUT_MS)) rc = 0;
    ctl_disconnect(c);
    return rc;
}
static void summary(const char *path) {
    struct trace t;
    char err[512];
    if (trace_load_counts(path, &t, err, sizeof err)) fprintf(stderr, "edgeprobe snapshot: %s\n", err);
    else
        fprintf(stderr, "edgeprobe snapshot: %zu events from %zu threads in %s\n", t.nevents, t.nthreads, path);
    trace_free(&t);
}
int cmd_snapshot(int argc, char **argv) {
    char out_buf[64];
    const char *out = NULL;
    int pid = 0, i, rc;
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            printf("usage: edgeprobe %s\n", USAGE_SNAPSHOT);
            return 0;
        } else if (!strcmp(argv[i], "-o") && i + 1 < argc) {
            out = argv[++i];
        } else if (!pid && ctl_is_pid(argv[i])) {
            pid = atoi(argv[i]);
        } else {
            fprintf(stderr, "edgeprobe snapshot: unexpected argument %s\nusage: edgeprobe %s\n", argv[i], USAGE_SNAPSHOT);
            return TOOL_EXIT_USAGE;
        }
    }
    if (!pid) {
        fprintf(stderr, "usage: edgeprobe %s\n", USAGE_SNAPSHOT);
        return TOOL_EXIT_USAGE;
    }
    if (!out) snprintf(out_buf, sizeof out_buf, "edgeprobe-%d-snapshot.trace", pid), out = out_buf;
    if (kill(pid, 0) && errno == ESRCH) {
        fprintf(stderr, "edgeprobe snapshot: no process %d\n", pid);
        return 1;
    }
    rc = snapshot_ring_files(pid, out);
    if (rc == 1 && ctl_reachable(pid)) rc = snapshot_endpoint(pid, out);
    else if (rc == 1) {
        fprintf(stderr, "edgeprobe snapshot: process %d has no flight recorder: run it under `edgeprobe record --flight`, "
                        "or record it with `edgeprobe record -p %d --flight` (a control endpoint)\n", pid, pid);
        rc = -1;
    }
    if (rc) return 1;
    summary(out);
    return 0;
}
