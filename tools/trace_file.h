/* tools/trace_file.h - the reader of edgeprobe's trace files (the format
 * is specified in README.md, "The trace file"; the writer is the header's
 * section 30). Shared by `edgeprobe dump`, `report` and `export`. */
#ifndef EDGEPROBE_TRACE_FILE_H
#define EDGEPROBE_TRACE_FILE_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define TRACE_MAX_ARGS 16
#define TRACE_VERSION 2      /* the newest this reader knows; it reads 1 too */
/* Function events with registers (version 2; version 1 had no vector
 * registers: 6 at entry, 2 at exit): */
#define TRACE_FUNC_INT_ARGS 6  /* ENTRY: %rdi %rsi %rdx %rcx %r8 %r9, then */
#define TRACE_FUNC_ARGS 14     /*        %xmm0-7's low 8 bytes            */
#define TRACE_FUNC_RETS 3      /* EXIT: %rax %rdx %xmm0 (CALL: after ticks) */
#define TRACE_MAX_ID (1u << 24) /* point ids a reader accepts */

enum { TRACE_EV_PROBE = 1, TRACE_EV_TRACE, TRACE_EV_BRANCH, TRACE_EV_HANDLER, TRACE_EV_ENTRY, TRACE_EV_EXIT,
       TRACE_EV_CALL, TRACE_EV_USER };

struct trace_point {
    uint32_t id, kind;           /* kind: enum edgeprobe_kind              */
    int32_t line;
    char *name, *file, *function, *format; /* NUL-terminated; may be ""   */
};
struct trace_thread {
    int tid;
    uint64_t lost;
    uint64_t ring_bytes;         /* its rings' memory (one per copy of the
                                    implementation it recorded through)   */
    char name[17];
};
struct trace_event {
    uint64_t tsc;
    int tid;
    uint32_t id;
    unsigned kind, nargs;
    const uint64_t *args;        /* into the file's bytes                  */
};
struct trace {
    unsigned char *data;
    size_t size;
    unsigned version;            /* of the file's format                   */
    uint64_t hz, tsc0, mono0, pid;
    uint64_t tsc_end, mono_end, lost;
    int complete;                /* the END block was there                */
    struct trace_point **by_id;  /* [nids]; NULL where the file has none   */
    uint32_t nids;
    struct trace_point *points;
    size_t npoints;
    struct trace_thread *threads;
    size_t nthreads;
    size_t rings;                /* rings, and their memory in bytes      */
    uint64_t ring_bytes;
    struct trace_event *events;  /* per thread in recorded order, threads
                                    one after another                     */
    size_t nevents;
    size_t events_cap; /* what the first pass counted (load) */
};

/* 1: keep C++ names as the file has them (mangled); 0 (default): demangle. */
extern int trace_raw_names;
/* Read and check a whole file. 0, or -1 with a message in err. */
int trace_load(const char *path, struct trace *t, char *err, size_t errlen);
/* The same checks and tables, and the events only counted (t->events NULL):
 * what `record` says at the end, without the time a whole load takes. */
int trace_load_counts(const char *path, struct trace *t, char *err, size_t errlen);
/* A file whose writer was ended inside a write: its length up to the
 * last whole block, or 0 when not even the header is whole (or it cannot
 * be read). */
uint64_t trace_whole_bytes(const char *path);
void trace_free(struct trace *t);
/* Nanoseconds from the start of the recording. */
double trace_ns(const struct trace *t, uint64_t tsc);
/* The point of an id, or NULL. */
const struct trace_point *trace_point(const struct trace *t, uint32_t id);
/* A point's name, or "#id" in buf when the file has none. */
const char *trace_name(const struct trace *t, uint32_t id, char *buf, size_t n);
/* The thread's name ("" if unknown). */
const char *trace_thread_name(const struct trace *t, int tid);
/* Events sorted by time, all threads (a new array; free it). */
struct trace_event *trace_by_time(const struct trace *t);
/* TRACE's line from its format and values, safely: %s prints the pointer,
 * %n and unknown conversions print as they are. */
void trace_format(char *out, size_t n, const char *fmt, const uint64_t *args, unsigned nargs);
const char *trace_kind_name(unsigned kind);

/* Calls rebuilt from function events: one per ENTRY..EXIT pair or CALL,
 * per thread, nested (parent index or -1). Entries without an exit end
 * at the thread's last event and are marked unmatched. */
struct trace_call {
    uint64_t start, end;         /* TSC                                    */
    uint32_t id;
    int tid, depth, unmatched;
    long parent;
    uint64_t child_ticks;        /* time in direct children               */
    const uint64_t *args, *rets;
    unsigned nargs, nrets;
};
/* Returns the number of calls (and an array to free), or -1 on no memory. */
long trace_calls(const struct trace *t, struct trace_call **out);
/* Every call's stack (its ancestors' names, root first), weighted by its
 * self time in ns (tools/export.h); NULL on no memory. */
struct export_stacks;
struct export_stacks *trace_stacks(const struct trace *t, const struct trace_call *c, long nc);
#endif
