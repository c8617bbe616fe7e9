/* tools/cmd_dump.c - `edgeprobe dump FILE`: a trace file, one event per
 * line, in time order: microseconds from the start, thread, kind, name,
 * then the arguments, the return values or the formatted TRACE line. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"
#include "trace_file.h"

static void print_values(FILE *out, const char *sep, const uint64_t *v, unsigned n) {
    unsigned i;
    for (i = 0; i < n; i++) fprintf(out, "%s%" PRId64, i ? ", " : sep, (int64_t)v[i]);
}
/* Vector registers' low 8 bytes, as the doubles they hold when the
 * function takes or returns doubles (the file has no types: %g of bits
 * that are not a double reads as a tiny or odd number). */
static void print_doubles(FILE *out, const uint64_t *v, unsigned n) {
    unsigned i;
    for (i = 0; i < n; i++) {
        double d;
        memcpy(&d, &v[i], sizeof d);
        fprintf(out, "%s%g", i ? ", " : " | ", d);
    }
}
/* A function's registers: integer ones, then after " | " the vector ones
 * (trace version 2: TRACE_FUNC_ARGS at entry, TRACE_FUNC_RETS at exit). */
static void print_registers(FILE *out, const char *sep, const uint64_t *v, unsigned n, unsigned ints, unsigned all) {
    if (n != all) ints = n; /* version 1, or not a function's: integers only */
    print_values(out, sep, v, ints);
    print_doubles(out, v + ints, n - ints);
}
static void print_event(FILE *out, const struct trace *t, const struct trace_event *e) {
    const struct trace_point *p = trace_point(t, e->id);
    char id[24], line[1024];
    fprintf(out, "%14.3f %7d %-7s %s", trace_ns(t, e->tsc) / 1e3, e->tid, trace_kind_name(e->kind),
            trace_name(t, e->id, id, sizeof id));
    if (e->kind == TRACE_EV_TRACE && p && *p->format) {
        size_t n;
        trace_format(line, sizeof line, p->format, e->args, e->nargs);
        n = strlen(line);
        while (n && line[n - 1] == '\n') line[--n] = 0;
        fprintf(out, ": %s", line);
    } else if (e->kind == TRACE_EV_CALL && e->nargs) {
        fprintf(out, " %.3f us", (double)e->args[0] * 1e6 / (double)t->hz);
        print_registers(out, " = ", e->args + 1, e->nargs - 1, TRACE_FUNC_RETS - 1, TRACE_FUNC_RETS);
    } else if (e->kind == TRACE_EV_EXIT) {
        print_registers(out, " = ", e->args, e->nargs, TRACE_FUNC_RETS - 1, TRACE_FUNC_RETS);
    } else if (e->kind == TRACE_EV_ENTRY && e->nargs) {
        fputs("(", out);
        print_registers(out, "", e->args, e->nargs, TRACE_FUNC_INT_ARGS, TRACE_FUNC_ARGS);
        fputs(")", out);
    } else if (e->nargs) {
        fputs("(", out);
        print_values(out, "", e->args, e->nargs);
        fputs(")", out);
    }
    fputc('\n', out);
}
int cmd_dump(int argc, char **argv) {
    struct trace t;
    struct trace_event *ev;
    char err[512];
    size_t i;
    if (argc == 3 && !strcmp(argv[1], "--raw-names")) trace_raw_names = 1, argc--, argv++;
    if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
        printf("usage: edgeprobe %s\n", USAGE_DUMP);
        return 0;
    }
    if (argc != 2) {
        fprintf(stderr, "usage: edgeprobe %s\n", USAGE_DUMP);
        return TOOL_EXIT_USAGE;
    }
    if (trace_load(argv[1], &t, err, sizeof err)) {
        fprintf(stderr, "edgeprobe dump: %s\n", err);
        trace_free(&t);
        return 1;
    }
    if (!(ev = trace_by_time(&t))) {
        fprintf(stderr, "edgeprobe dump: no memory\n");
        trace_free(&t);
        return 1;
    }
    printf("# pid %" PRIu64 ", %zu events, %zu threads, %" PRIu64 " lost, TSC %.3f GHz%s\n", t.pid, t.nevents,
           t.nthreads, t.lost, (double)t.hz / 1e9, t.complete ? "" : " (incomplete: the recording did not stop)");
    printf("#%13s %7s %-7s %s\n", "time(us)", "tid", "kind", "name");
    for (i = 0; i < t.nevents; i++) print_event(stdout, &t, &ev[i]);
    free(ev);
    trace_free(&t);
    return fflush(stdout) ? 1 : 0;
}
