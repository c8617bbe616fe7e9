/* tools/cmd_export.c - `edgeprobe export --format perfetto|chrome|folded|pprof
 * [-o OUT] FILE`: a trace file for the viewers people use.
 *   perfetto Perfetto's protobuf trace (TrackEvent): a track per process
 *            and thread, a slice per call, an instant with debug
 *            annotations per marker hit (ui.perfetto.dev, trace_processor)
 *   chrome   Chrome JSON trace events (chrome://tracing, Perfetto's UI,
 *            speedscope): one complete event ("X") per call, one instant
 *            event ("i") with its arguments per marker hit, thread names
 *   folded   folded stacks weighted by self time in ns (flamegraph.pl,
 *            inferno, speedscope)
 *   pprof    profile.proto, samples weighted by self time in ns, with a
 *            function and a location per name (go tool pprof, Pyroscope) */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "tool.h"
#include "trace_file.h"

/* A JSON string (names come from the program: escape everything). */
static void json_string(FILE *out, const char *s) {
    fputc('"', out);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') fprintf(out, "\\%c", c);
        else if (c < 0x20 || c >= 0x7f) fprintf(out, "\\u%04x", c); /* bytes, not UTF-8: always valid */
        else fputc(c, out);
    }
    fputc('"', out);
}
static void chrome_marker(FILE *out, const struct trace *t, const struct trace_event *e, int *first) {
    const struct trace_point *p = trace_point(t, e->id);
    char id[24], line[1024];
    unsigned i;
    fprintf(out, "%s{\"ph\":\"i\",\"s\":\"t\",\"pid\":%" PRIu64 ",\"tid\":%d,\"ts\":%.3f,\"cat\":\"%s\",\"name\":", *first ? "" : ",\n",
            t->pid, e->tid, trace_ns(t, e->tsc) / 1e3, trace_kind_name(e->kind));
    *first = 0;
    json_string(out, trace_name(t, e->id, id, sizeof id));
    fputs(",\"args\":{", out);
    if (e->kind == TRACE_EV_TRACE && p && *p->format) {
        trace_format(line, sizeof line, p->format, e->args, e->nargs);
        fputs("\"line\":", out);
        json_string(out, line);
    } else {
        for (i = 0; i < e->nargs; i++) fprintf(out, "%s\"arg%u\":%" PRId64, i ? "," : "", i, (int64_t)e->args[i]);
    }
    fputs("}}", out);
}
static int write_chrome(FILE *out, const struct trace *t, const struct trace_call *c, long nc) {
    char id[24];
    size_t i;
    long k;
    int first = 1;
    fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n", out);
    for (i = 0; i < t->nthreads; i++) {
        fprintf(out, "%s{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%" PRIu64 ",\"tid\":%d,\"args\":{\"name\":",
                first ? "" : ",\n", t->pid, t->threads[i].tid);
        json_string(out, t->threads[i].name);
        fputs("}}", out);
        first = 0;
    }
    for (k = 0; k < nc; k++) {
        fprintf(out, "%s{\"ph\":\"X\",\"pid\":%" PRIu64 ",\"tid\":%d,\"ts\":%.3f,\"dur\":%.3f,\"name\":", first ? "" : ",\n",
                t->pid, c[k].tid, trace_ns(t, c[k].start) / 1e3, (double)(c[k].end - c[k].start) * 1e6 / (double)t->hz);
        json_string(out, trace_name(t, c[k].id, id, sizeof id));
        fprintf(out, ",\"cat\":\"function\"%s}", c[k].unmatched ? ",\"args\":{\"unmatched\":1}" : "");
        first = 0;
    }
    for (i = 0; i < t->nevents; i++)
        if (t->events[i].kind != TRACE_EV_ENTRY && t->events[i].kind != TRACE_EV_EXIT && t->events[i].kind != TRACE_EV_CALL)
            chrome_marker(out, t, &t->events[i], &first);
    fputs("\n]}\n", out);
    return fflush(out) || ferror(out) ? -1 : 0;
}
/* ---- Perfetto: TracePacket fields of the published schema ---- */
enum {
    PF_TRACE_PACKET = 1,                                  /* Trace           */
    PF_TIMESTAMP = 8, PF_SEQUENCE_ID = 10, PF_TRACK_EVENT = 11, PF_SEQUENCE_FLAGS = 13,
    PF_TRACK_DESCRIPTOR = 60,                             /* TracePacket     */
    PF_TD_UUID = 1, PF_TD_NAME = 2, PF_TD_PROCESS = 3, PF_TD_THREAD = 4, PF_TD_PARENT = 5, /* TrackDescriptor */
    PF_PD_PID = 1, PF_PD_NAME = 6,                        /* ProcessDescriptor */
    PF_THD_PID = 1, PF_THD_TID = 2, PF_THD_NAME = 5,      /* ThreadDescriptor */
    PF_TE_DEBUG = 4, PF_TE_TYPE = 9, PF_TE_TRACK = 11, PF_TE_CATEGORIES = 22, PF_TE_NAME = 23, /* TrackEvent */
    PF_DA_INT = 4, PF_DA_STRING = 6, PF_DA_NAME = 10,     /* DebugAnnotation */
    PF_SLICE_BEGIN = 1, PF_SLICE_END = 2, PF_INSTANT = 3  /* TrackEvent.Type */
};
#define PF_PROCESS_UUID(t) (((uint64_t)1 << 40) | (t)->pid)
#define PF_THREAD_UUID(tid) (((uint64_t)2 << 40) | (uint32_t)(tid))
struct pf { struct export_pb out, packet, msg, sub; FILE *f; int err; };
/* One TracePacket around what is in pf->msg (field `field`), at ns. */
static void pf_packet(struct pf *p, const struct trace *t, uint64_t tsc, unsigned field) {
    if (tsc) export_pb_uint(&p->packet, PF_TIMESTAMP, t->mono0 + (uint64_t)trace_ns(t, tsc));
    export_pb_uint(&p->packet, PF_SEQUENCE_ID, 1);
    export_pb_message(&p->packet, field, &p->msg);
    export_pb_message(&p->out, PF_TRACE_PACKET, &p->packet);
    if (p->out.n > (1 << 20)) p->err |= export_pb_write(&p->out, p->f);
}
static void pf_tracks(struct pf *p, const struct trace *t) {
    size_t i;
    char name[32];
    snprintf(name, sizeof name, "%s", trace_thread_name(t, (int)t->pid)); /* the main thread's */
    if (!*name) snprintf(name, sizeof name, "pid %" PRIu64, t->pid);
    export_pb_uint(&p->sub, PF_PD_PID, t->pid);
    export_pb_string(&p->sub, PF_PD_NAME, name);
    export_pb_uint(&p->msg, PF_TD_UUID, PF_PROCESS_UUID(t));
    export_pb_message(&p->msg, PF_TD_PROCESS, &p->sub);
    export_pb_uint(&p->packet, PF_SEQUENCE_FLAGS, 1); /* SEQ_INCREMENTAL_STATE_CLEARED */
    pf_packet(p, t, 0, PF_TRACK_DESCRIPTOR);
    for (i = 0; i < t->nthreads; i++) {
        export_pb_uint(&p->sub, PF_THD_PID, t->pid);
        export_pb_uint(&p->sub, PF_THD_TID, (uint32_t)t->threads[i].tid);
        export_pb_string(&p->sub, PF_THD_NAME, t->threads[i].name);
        export_pb_uint(&p->msg, PF_TD_UUID, PF_THREAD_UUID(t->threads[i].tid));
        export_pb_uint(&p->msg, PF_TD_PARENT, PF_PROCESS_UUID(t));
        export_pb_message(&p->msg, PF_TD_THREAD, &p->sub);
        pf_packet(p, t, 0, PF_TRACK_DESCRIPTOR);
    }
}
static void pf_slice(struct pf *p, const struct trace *t, const struct trace_call *c, int begin) {
    char id[24];
    export_pb_uint(&p->msg, PF_TE_TYPE, begin ? PF_SLICE_BEGIN : PF_SLICE_END);
    export_pb_uint(&p->msg, PF_TE_TRACK, PF_THREAD_UUID(c->tid));
    if (begin) export_pb_string(&p->msg, PF_TE_NAME, trace_name(t, c->id, id, sizeof id));
    pf_packet(p, t, begin ? c->start : c->end, PF_TRACK_EVENT);
}
static void pf_instant(struct pf *p, const struct trace *t, const struct trace_event *e) {
    const struct trace_point *pt = trace_point(t, e->id);
    char id[24], line[1024], arg[16];
    unsigned i;
    export_pb_uint(&p->msg, PF_TE_TYPE, PF_INSTANT);
    export_pb_uint(&p->msg, PF_TE_TRACK, PF_THREAD_UUID(e->tid));
    export_pb_string(&p->msg, PF_TE_NAME, trace_name(t, e->id, id, sizeof id));
    export_pb_string(&p->msg, PF_TE_CATEGORIES, trace_kind_name(e->kind));
    if (e->kind == TRACE_EV_TRACE && pt && *pt->format) {
        trace_format(line, sizeof line, pt->format, e->args, e->nargs);
        export_pb_string(&p->sub, PF_DA_NAME, "line");
        export_pb_string(&p->sub, PF_DA_STRING, line);
        export_pb_message(&p->msg, PF_TE_DEBUG, &p->sub);
    } else {
        for (i = 0; i < e->nargs; i++) {
            snprintf(arg, sizeof arg, "arg%u", i);
            export_pb_string(&p->sub, PF_DA_NAME, arg);
            export_pb_uint(&p->sub, PF_DA_INT, e->args[i]); /* int64: two's complement, as a varint */
            export_pb_message(&p->msg, PF_TE_DEBUG, &p->sub);
        }
    }
    pf_packet(p, t, e->tsc, PF_TRACK_EVENT);
}
/* Slices nest on each thread's track: calls come sorted by thread and
 * start (outer first); a call's end is written when a later call starts
 * after it, or its thread is done. */
static int write_perfetto(FILE *out, const struct trace *t, const struct trace_call *c, long nc) {
    struct pf p;
    long *open = malloc(((size_t)nc + 1) * sizeof *open), nopen = 0, k;
    size_t i;
    int rc;
    if (!open) return -1;
    memset(&p, 0, sizeof p);
    p.f = out;
    pf_tracks(&p, t);
    for (k = 0; k < nc; k++) {
        while (nopen && (c[open[nopen - 1]].tid != c[k].tid || c[open[nopen - 1]].end <= c[k].start))
            pf_slice(&p, t, &c[open[--nopen]], 0);
        pf_slice(&p, t, &c[k], 1);
        open[nopen++] = k;
    }
    while (nopen) pf_slice(&p, t, &c[open[--nopen]], 0);
    for (i = 0; i < t->nevents; i++)
        if (t->events[i].kind != TRACE_EV_ENTRY && t->events[i].kind != TRACE_EV_EXIT && t->events[i].kind != TRACE_EV_CALL)
            pf_instant(&p, t, &t->events[i]);
    rc = export_pb_write(&p.out, out) | p.err;
    export_pb_free(&p.out), export_pb_free(&p.packet), export_pb_free(&p.msg), export_pb_free(&p.sub);
    free(open);
    return rc ? -1 : 0;
}

int cmd_export(int argc, char **argv) {
    const char *format = NULL, *outpath = NULL, *file = NULL;
    struct trace t;
    struct trace_call *c = NULL;
    struct export_stacks *s = NULL;
    FILE *out = stdout;
    char err[512];
    long nc;
    int i, rc;
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            printf("usage: edgeprobe %s\n", USAGE_EXPORT);
            return 0;
        } else if (!strcmp(argv[i], "--raw-names")) {
            trace_raw_names = 1;
        } else if (!strcmp(argv[i], "--format") && i + 1 < argc) {
            format = argv[++i];
        } else if (!strcmp(argv[i], "-o") && i + 1 < argc) {
            outpath = argv[++i];
        } else if (argv[i][0] == '-' || file) {
            break;
        } else {
            file = argv[i];
        }
    }
    if (i < argc || !file || !format ||
        (strcmp(format, "perfetto") && strcmp(format, "chrome") && strcmp(format, "folded") && strcmp(format, "pprof"))) {
        fprintf(stderr, "usage: edgeprobe %s\n", USAGE_EXPORT);
        return TOOL_EXIT_USAGE;
    }
    if (trace_load(file, &t, err, sizeof err)) {
        fprintf(stderr, "edgeprobe export: %s\n", err);
        trace_free(&t);
        return 1;
    }
    if ((nc = trace_calls(&t, &c)) < 0 ||
        ((!strcmp(format, "folded") || !strcmp(format, "pprof")) && !(s = trace_stacks(&t, c, nc)))) {
        fprintf(stderr, "edgeprobe export: no memory\n");
        rc = 1;
    } else if (outpath && !(out = fopen(outpath, "wb"))) {
        perror(outpath);
        rc = 1;
    } else {
        rc = !strcmp(format, "perfetto") ? write_perfetto(out, &t, c, nc)
             : !strcmp(format, "chrome") ? write_chrome(out, &t, c, nc)
             : !strcmp(format, "folded") ? export_write_folded(s, out)
                                         : export_write_pprof(s, out, "self_time", "nanoseconds");
        if (outpath && fclose(out)) rc = -1;
        if (rc) fprintf(stderr, "edgeprobe export: cannot write %s\n", outpath ? outpath : "the output");
        rc = rc ? 1 : 0;
    }
    export_stacks_free(s);
    free(c);
    trace_free(&t);
    return rc;
}
