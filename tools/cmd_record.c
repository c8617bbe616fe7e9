/* tools/cmd_record.c - `edgeprobe record`: run PROGRAM with the recorder
 * preloaded (tools/record_agent.c), then say what the trace file holds.
 * The recording itself is the header's section 30, configured through the
 * environment (EDGEPROBE_RECORD and friends, README "Recording"). */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launch.h"
#include "tool.h"
#include "trace_file.h"

#define GLOBS_MAX 1000 /* bytes of -e (or -f) globs, joined by commas */

struct record_opts {
    const char *out;
    char events[GLOBS_MAX + 1], funcs[GLOBS_MAX + 1];
    char min_ns[24], buffer[24];
    int args;
};

static int usage_error(const char *msg, const char *arg) {
    fprintf(stderr, "edgeprobe record: %s%s%s\nusage: edgeprobe %s\n", msg, arg ? " " : "", arg ? arg : "", USAGE_RECORD);
    return TOOL_EXIT_USAGE;
}
/* A glob the header accepts: not empty, no ',' (the list separator), every
 * '[' closed. */
static int glob_ok(const char *g) {
    const char *p;
    if (!*g || strchr(g, ',') || strlen(g) > 255) return 0;
    for (p = g; *p; p++) {
        if (*p == '\\' && p[1]) p++;
        else if (*p == '[' && !strchr(p + 1, ']')) return 0;
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
    setenv("EDGEPROBE_RECORD", o->out, 1);
    if (*o->events) setenv("EDGEPROBE_ENABLE", o->events, 1);
    if (*o->funcs) setenv("EDGEPROBE_RECORD_FUNCS", o->funcs, 1);
    if (*o->min_ns) setenv("EDGEPROBE_RECORD_MIN_NS", o->min_ns, 1);
    if (*o->buffer) setenv("EDGEPROBE_RECORD_BUFFER", o->buffer, 1);
    if (o->args) setenv("EDGEPROBE_RECORD_ARGS", "1", 1);
}
static void summary(const char *path) {
    struct trace t;
    char err[512];
    if (trace_load(path, &t, err, sizeof err)) {
        fprintf(stderr, "edgeprobe record: no usable trace: %s\n", err);
    } else {
        fprintf(stderr, "edgeprobe record: %zu events from %zu threads, %" PRIu64 " lost, %zu bytes in %s%s\n", t.nevents,
                t.nthreads, t.lost, t.size, path, t.complete ? "" : " (incomplete: the program did not exit normally)");
    }
    trace_free(&t);
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
        } else if (a[0] != '-') {
            break;
        }
        if (!v) return usage_error("missing value for", a);
        if (!strcmp(a, "-o")) o.out = v;
        else if (!strcmp(a, "-e")) {
            if (add_glob(o.events, v)) return usage_error("bad probe glob", v);
        } else if (!strcmp(a, "-f")) {
            if (add_glob(o.funcs, v)) return usage_error("bad function glob", v);
        } else if (!strcmp(a, "-t")) {
            if ((n = parse_duration(v)) < 0) return usage_error("-t needs a duration such as 10us, 2ms, 500ns; not", v);
            snprintf(o.min_ns, sizeof o.min_ns, "%lld", n);
        } else if (!strcmp(a, "--buffer")) {
            if ((n = parse_size(v)) < 0) return usage_error("--buffer needs a power of two from 4K to 1G; not", v);
            snprintf(o.buffer, sizeof o.buffer, "%lld", n);
        } else {
            return usage_error("unknown option", a);
        }
        i++;
    }
    if (i < argc && !strcmp(argv[i], "--")) i++;
    if (i >= argc) return usage_error("no PROGRAM given", NULL);
    if (!*o.events && !*o.funcs) return usage_error("nothing to record: give -e PROBE_GLOB or -f FUNC_GLOB", NULL);
    if (launch_find_library("libedgeprobe-record.so", "EDGEPROBE_RECORD_LIB", lib, sizeof lib) < 0) {
        fprintf(stderr, "edgeprobe record: cannot find libedgeprobe-record.so (run `make tools`, or set EDGEPROBE_RECORD_LIB)\n");
        return 1;
    }
    status = launch_preloaded("edgeprobe record", lib, argv + i, child_env, &o);
    if (status < 0) return 1;
    if (status < 126) summary(o.out);
    return status;
}
