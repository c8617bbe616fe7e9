/* tools/cmd_record.c - `edgeprobe record`: run PROGRAM with the recorder
 * preloaded (tools/record_agent.c), then say what the trace file holds.
 * The recording itself is the header's section 30, configured through the
 * environment (EDGEPROBE_RECORD and friends, README "Recording"). */
#include <dirent.h>
#include <fcntl.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "control.h"
#include "edgeprobe.h" /* the ring's layout (section 11.8); no implementation */
#include "launch.h"
#include "ring_files.h"
#include "tool.h"
#include "trace_file.h"

#define GLOBS_MAX 1000 /* bytes of -e (or -f) globs, joined by commas */

struct record_opts {
    const char *out;
    char events[GLOBS_MAX + 1], funcs[GLOBS_MAX + 1];
    char min_ns[24], buffer[24], depth[24];
    char shm[64];                /* the rings' directory                   */
    int args, flight;
    int pid;                     /* -p: a running process                  */
    double seconds;              /* -d: how long, with -p                  */
    uint64_t last_bytes;         /* the status line's previous reading     */
    int status_shown;
};

static int usage_error(const char *msg, const char *arg) {
    fprintf(stderr, "edgeprobe record: %s%s%s\nusage: edgeprobe %s\n", msg, arg ? " " : "", arg ? arg : "", USAGE_RECORD);
    return TOOL_EXIT_USAGE;
}
/* A glob the header accepts (its edgeprobe__check_pattern, which the
 * program would otherwise refuse after it started): not empty, at most
 * EDGEPROBE_NAME_MAX bytes, no ',' (the list separator), no '\\' at the
 * end, every '[' closed by a ']' that is not its first member. */
static int glob_ok(const char *g) {
    const char *p;
    if (!*g || strchr(g, ',') || strlen(g) > EDGEPROBE_NAME_MAX) return 0;
    for (p = g; *p; p++) {
        if (*p == '\\') {
            if (!*++p) return 0;
        } else if (*p == '[') {
            p++;
            if (*p == '!' || *p == '^') p++;
            if (*p == ']') p++;
            while (*p && *p != ']') p++;
            if (!*p) return 0;
        }
    }
    return 1;
}
static int add_glob(char *list, const char *g) {
    size_t n = strlen(list);
    if (!glob_ok(g) || n + strlen(g) + 2 > GLOBS_MAX) return -1;
    sprintf(list + n, "%s%s", n ? "," : "", g);
    return 0;
}
/* "10us" -> ns; units ns, us, ms, s. -1 when malformed. */
static long long parse_duration(const char *s) {
    static const struct { const char *unit; long long ns; } units[] = {{"ns", 1}, {"us", 1000}, {"ms", 1000000}, {"s", 1000000000}};
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    size_t i;
    if (end == s || *s == '-') return -1;
    for (i = 0; i < sizeof units / sizeof units[0]; i++)
        if (!strcmp(end, units[i].unit) && v <= (unsigned long long)LLONG_MAX / (unsigned long long)units[i].ns)
            return (long long)v * units[i].ns;
    return -1;
}
/* "64K", "1M", "4096" -> bytes, a power of two from 4 KiB to 1 GiB; -1. */
static long long parse_size(const char *s) {
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    int shift = !strcmp(end, "K") ? 10 : !strcmp(end, "M") ? 20 : !strcmp(end, "G") ? 30 : *end ? -1 : 0;
    if (end == s || *s == '-' || shift < 0 || v > (1ull << 30)) return -1;
    v <<= shift;
    return v >= 4096 && v <= (1ull << 30) && !(v & (v - 1)) ? (long long)v : -1;
}
static void child_env(void *arg) {
    const struct record_opts *o = arg;
    char pid[24];
    setenv("EDGEPROBE_RECORD", o->out, 1);
    if (*o->events) setenv("EDGEPROBE_ENABLE", o->events, 1);
    if (*o->funcs) setenv("EDGEPROBE_RECORD_FUNCS", o->funcs, 1);
    if (*o->min_ns) setenv("EDGEPROBE_RECORD_MIN_NS", o->min_ns, 1);
    if (*o->depth) setenv("EDGEPROBE_RECORD_DEPTH", o->depth, 1);
    if (*o->buffer) setenv("EDGEPROBE_RECORD_BUFFER", o->buffer, 1);
    if (o->args) setenv("EDGEPROBE_RECORD_ARGS", "1", 1);
    if (o->flight) setenv("EDGEPROBE_RECORD_FLIGHT", "1", 1);
    if (*o->shm) setenv("EDGEPROBE_RECORD_SHM", o->shm, 1);
    snprintf(pid, sizeof pid, "%ld", (long)getpid()); /* exec keeps it: what PROGRAM runs records nothing */
    setenv("EDGEPROBE_RECORD_PID", pid, 1);
}

/* ---- after a crash: what the rings in their files still hold ---- */
/* The program did not stop recording (a crash, _exit, a signal): add what
 * its ring files hold, the threads and an end block to the trace file. 1
 * when the file changed. */
static int salvage(const char *trace, const char *dir, uint64_t file_bytes, uint64_t hz) {
    FILE *f = fopen(trace, "ab");
    if (!f) return 0;
    ring_dir_copy(f, dir, 0, file_bytes, hz);
    if (fclose(f)) fprintf(stderr, "edgeprobe record: cannot complete %s: %s\n", trace, strerror(errno));
    else fprintf(stderr, "edgeprobe record: the program did not stop recording; its rings' last events were added\n");
    return 1;
}
/* Events lost so far: the rings' counters, read from their files. */
static uint64_t rings_lost(const char *dir) {
    char path[PATH_MAX];
    struct dirent *e;
    uint64_t lost = 0, v;
    DIR *d = opendir(dir);
    while (d && (e = readdir(d))) {
        int fd;
        if (strncmp(e->d_name, "ring-", 5) || (size_t)snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= sizeof path ||
            (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
            continue;
        if (pread(fd, &v, 8, offsetof(edgeprobe__ring, lost)) == 8) lost += v;
        close(fd);
    }
    if (d) closedir(d);
    return lost;
}
/* On a terminal: one line kept up to date while the program runs. */
static void status_line(void *arg) {
    struct record_opts *o = arg;
    struct stat st;
    uint64_t bytes = stat(o->out, &st) ? 0 : (uint64_t)st.st_size;
    fprintf(stderr, "\redgeprobe record: %.1f MB written, %.1f MB/s, %" PRIu64 " events lost\033[K", (double)bytes / 1e6,
            (double)(bytes - (bytes >= o->last_bytes ? o->last_bytes : bytes)) * 4 / 1e6, *o->shm ? rings_lost(o->shm) : 0);
    o->last_bytes = bytes, o->status_shown = 1;
}
static void remove_rings(const char *dir) {
    char path[PATH_MAX];
    struct dirent *e;
    DIR *d = opendir(dir);
    while (d && (e = readdir(d)))
        if (!strncmp(e->d_name, "ring-", 5) && (size_t)snprintf(path, sizeof path, "%s/%s", dir, e->d_name) < sizeof path)
            unlink(path);
    if (d) closedir(d);
    rmdir(dir);
}
/* A program ended inside one of its recorder's writes (a signal, SIGKILL)
 * leaves part of a block at the end: cut back to the last whole one, whose
 * events after it are still in the rings (their room is freed only once
 * written). 1 when the file was cut. */
static int cut_partial_block(const char *path) {
    uint64_t whole = trace_whole_bytes(path);
    struct stat st;
    if (!whole || stat(path, &st) || (uint64_t)st.st_size <= whole || truncate(path, (off_t)whole)) return 0;
    fprintf(stderr, "edgeprobe record: the program ended inside a write to %s; its last %llu bytes (part of a block) "
                    "were cut\n", path, (unsigned long long)((uint64_t)st.st_size - whole));
    return 1;
}
/* The closing line. With the ring files' directory (a program this run
 * launched), an incomplete file first gets what they hold. One count of
 * the file, not a load (a trace may be hundreds of megabytes). */
static void finish(const char *path, const char *ring_dir) {
    struct trace t;
    char err[512];
    int rc = trace_load_counts(path, &t, err, sizeof err);
    if (rc && ring_dir && *ring_dir && cut_partial_block(path)) rc = trace_load_counts(path, &t, err, sizeof err);
    if (!rc && !t.complete && ring_dir && *ring_dir && salvage(path, ring_dir, t.size, t.hz)) {
        trace_free(&t);
        rc = trace_load_counts(path, &t, err, sizeof err);
    }
    if (rc) {
        fprintf(stderr, "edgeprobe record: no usable trace: %s\n", err);
    } else {
        fprintf(stderr, "edgeprobe record: %zu events from %zu threads, %" PRIu64 " lost, %zu bytes in %s%s\n", t.nevents,
                t.nthreads, t.lost, t.size, path, t.complete ? "" : " (incomplete: the program did not exit normally)");
    }
    trace_free(&t);
}
/* A trace file left by an earlier run; never a device (-o /dev/full, run
 * as root, must not unlink the device) or anything but a regular file. */
static void remove_old_trace(const char *path) {
    struct stat st;
    if (!lstat(path, &st) && S_ISREG(st.st_mode)) unlink(path);
}
/* record -p: the process records itself through its control endpoint
 * (header section 28.3.1), attaching first when it has none; its recorder
 * thread writes the file, at an absolute path. */
static int record_running_process(struct record_opts *o) {
    char request[2 * GLOBS_MAX + PATH_MAX + 128], path[PATH_MAX], cwd[PATH_MAX];
    const char *reply;
    int rc = 1;
    ctl_conn *c;
    if (o->out[0] == '/') snprintf(path, sizeof path, "%s", o->out);
    else if (!getcwd(cwd, sizeof cwd) || (size_t)snprintf(path, sizeof path, "%s/%s", cwd, o->out) >= sizeof path)
        return usage_error("output path too long:", o->out);
    if ((size_t)snprintf(request, sizeof request, "record start %s %s %u %s %s %s%s%s", path, *o->buffer ? o->buffer : "0",
                         (o->args ? 1u : 0u) | (o->flight ? 2u : 0u), *o->min_ns ? o->min_ns : "0",
                         *o->funcs ? o->funcs : "-", *o->events ? o->events : "-", *o->depth ? " " : "", o->depth) > 500 ||
        strchr(path, ' '))
        return usage_error("with -p, the output path and globs must fit one 511-byte request, without spaces", NULL);
    if (!(c = ctl_attach_connect(o->pid))) return 1;
    remove_old_trace(path);
    if (ctl_send(c, request) || !(reply = ctl_expect_ok(c, "record"))) goto out;
    fprintf(stderr, "edgeprobe record: recording %s functions and probes in process %d for %.1f s%s\n", reply, o->pid, o->seconds,
            isatty(2) ? "; Ctrl-C ends it early" : "");
    ctl_wait(o->seconds);
    if (ctl_send(c, "record stop") || !ctl_expect_ok_within(c, "record", 12 * CTL_TIMEOUT_MS)) goto out;
    finish(path, NULL);
    rc = 0;
out:
    ctl_disconnect(c);
    return rc;
}

int cmd_record(int argc, char **argv) {
    struct record_opts o;
    char lib[PATH_MAX];
    int i, status;
    memset(&o, 0, sizeof o);
    o.out = "edgeprobe.trace";
    for (i = 1; i < argc && strcmp(argv[i], "--"); i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        long long n;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            printf("usage: edgeprobe %s\n", USAGE_RECORD);
            return 0;
        } else if (!strcmp(a, "--args")) {
            o.args = 1;
            continue;
        } else if (!strcmp(a, "--flight")) {
            o.flight = 1;
            continue;
        } else if (a[0] != '-') {
            break;
        }
        if (!v) return usage_error("missing value for", a);
        if (!strcmp(a, "-o")) o.out = v;
        else if (!strcmp(a, "-p")) {
            if (!ctl_is_pid(v)) return usage_error("-p needs a process id, not", v);
            o.pid = atoi(v);
        } else if (!strcmp(a, "-d")) {
            char *end;
            o.seconds = strtod(v, &end);
            if (end == v || *end || !(o.seconds > 0) || o.seconds > 86400)
                return usage_error("-d needs a number of seconds from 0 to 86400 (with -p), not", v);
        }
        else if (!strcmp(a, "-e")) {
            if (add_glob(o.events, v)) return usage_error("bad probe glob", v);
        } else if (!strcmp(a, "-f")) {
            if (add_glob(o.funcs, v)) return usage_error("bad function glob", v);
        } else if (!strcmp(a, "-t")) {
            if ((n = parse_duration(v)) < 0) return usage_error("-t needs a duration such as 10us, 2ms, 500ns; not", v);
            snprintf(o.min_ns, sizeof o.min_ns, "%lld", n);
        } else if (!strcmp(a, "--depth")) {
            char *end;
            unsigned long d = strtoul(v, &end, 10);
            if (end == v || *end || *v == '-' || d < 1 || d > EDGEPROBE_FUNC_DEPTH)
                return usage_error("--depth needs a whole number from 1 to 65536; not", v);
            snprintf(o.depth, sizeof o.depth, "%lu", d);
        } else if (!strcmp(a, "--buffer")) {
            if ((n = parse_size(v)) < 0) return usage_error("--buffer needs a power of two from 4K to 1G; not", v);
            snprintf(o.buffer, sizeof o.buffer, "%lld", n);
        } else {
            return usage_error("unknown option", a);
        }
        i++;
    }
    if (i < argc && !strcmp(argv[i], "--")) i++;
    if (!*o.events && !*o.funcs) return usage_error("nothing to record: give -e PROBE_GLOB or -f FUNC_GLOB", NULL);
    if (o.pid) {
        if (i < argc) return usage_error("-p records a running process: no PROGRAM, not", argv[i]);
        if (o.seconds <= 0) o.seconds = 10;
        return record_running_process(&o);
    }
    if (o.seconds > 0) return usage_error("-d goes with -p PID: a PROGRAM records until it exits", NULL);
    if (i >= argc) return usage_error("no PROGRAM given", NULL);
    if (launch_find_library("libedgeprobe-record.so", "EDGEPROBE_RECORD_LIB", lib, sizeof lib) < 0) {
        fprintf(stderr, "edgeprobe record: cannot find libedgeprobe-record.so (run `make tools`, or set EDGEPROBE_RECORD_LIB)\n");
        return 1;
    }
    /* rings as files, for what a crash leaves in them */
    snprintf(o.shm, sizeof o.shm, "/dev/shm/edgeprobe-record-%ld", (long)getpid());
    if (mkdir(o.shm, 0700)) *o.shm = 0; /* no /dev/shm: anonymous rings */
    remove_old_trace(o.out); /* the status line counts this run's bytes only */
    status = launch_preloaded("edgeprobe record", lib, argv + i, child_env, isatty(2) ? status_line : NULL, &o,
                              "EDGEPROBE_RECORD_DAEMON_FILE", 0); /* the agent's daemon() */
    if (o.status_shown) fputc('\n', stderr);
    if (status >= 0 && status != 126 && status != 127) finish(o.out, o.shm);
    if (*o.shm) remove_rings(o.shm);
    return status < 0 ? 1 : status;
}
