/* tools/trace_file.c - reading edgeprobe trace files (tools/trace_file.h).
 * Every length and count in a file is checked against what is left of the
 * file before it is used: a truncated, corrupted or hostile file gets a
 * message naming the offset, never a crash or a hang. */
#include "trace_file.h"

#include "export.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define HEADER_BYTES 48
#define BLOCK_HEAD 16
enum { BLK_EVENTS = 1, BLK_POINT, BLK_THREAD, BLK_END };

static int fail(char *err, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t n, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, n, fmt, ap);
    va_end(ap);
    return -1;
}
static uint32_t get32(const unsigned char *p) {
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}
static uint64_t get64(const unsigned char *p) {
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}
/* The whole file, mapped read-only (no copy: `record`'s closing count of
 * a trace of hundreds of megabytes took a second to read it into memory).
 * A file must not shrink while it is read: a new recording over the same
 * path does that, and the reader would then fault. */
static int read_all(const char *path, struct trace *t, char *err, size_t errlen) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    void *m;
    if (fd < 0) return fail(err, errlen, "%s: %s", path, strerror(errno));
    if (fstat(fd, &st) || !S_ISREG(st.st_mode)) { /* /dev/zero would never end */
        close(fd);
        return fail(err, errlen, "%s: not a regular file", path);
    }
    if (st.st_size == 0) { /* nothing to map: the header check says what is wrong */
        close(fd);
        return 0;
    }
    m = (uint64_t)st.st_size > SIZE_MAX ? MAP_FAILED
                                        : mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
    close(fd);
    if (m == MAP_FAILED) return fail(err, errlen, "%s: cannot read it (%s)", path, strerror(errno));
    t->data = m, t->size = (size_t)st.st_size;
    return 0;
}
/* A string field of a POINT block, copied with a NUL. */
static char *take_string(const unsigned char **p, uint32_t len) {
    char *s = malloc((size_t)len + 1);
    if (!s) return NULL;
    memcpy(s, *p, len);
    s[len] = 0;
    for (uint32_t i = 0; i < len; i++)
        if (!s[i]) s[i] = '?'; /* a NUL inside would hide the rest */
    *p += len;
    return s;
}
int trace_raw_names;

/* A C++ name demangled by the C++ runtime's __cxa_demangle, found at run
 * time (the command links no C++ library); NULL when it is not a mangled
 * name, or no runtime is there. */
static char *demangle(const char *name) {
    typedef char *(*demangle_fn)(const char *, char *, size_t *, int *);
    static demangle_fn fn;
    static int looked;
    int status = -1;
    char *out;
    if (trace_raw_names || strncmp(name, "_Z", 2)) return NULL;
    if (!looked) {
        void *lib = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
        looked = 1;
        if (lib) fn = (demangle_fn)(uintptr_t)dlsym(lib, "__cxa_demangle");
    }
    out = fn ? fn(name, NULL, NULL, &status) : NULL;
    if (out && status) free(out), out = NULL;
    return out;
}
static int parse_point(struct trace *t, const unsigned char *p, uint64_t len, size_t at, char *err, size_t errlen) {
    struct trace_point *pt;
    uint64_t need = 28;
    uint32_t lens[4];
    int i;
    if (len < 28) return fail(err, errlen, "point block at offset %zu: too short", at);
    for (i = 0; i < 4; i++) need += lens[i] = get32(p + 12 + 4 * i);
    if (need > len) return fail(err, errlen, "point block at offset %zu: its strings overrun it", at);
    if (get32(p) >= TRACE_MAX_ID) return fail(err, errlen, "point block at offset %zu: id %u out of range", at, get32(p));
    pt = &t->points[t->npoints++];
    pt->id = get32(p), pt->kind = get32(p + 4), pt->line = (int32_t)get32(p + 8);
    p += 28;
    pt->name = take_string(&p, lens[0]);
    pt->file = take_string(&p, lens[1]);
    pt->function = take_string(&p, lens[2]);
    pt->format = take_string(&p, lens[3]);
    if (!pt->name || !pt->file || !pt->function || !pt->format) return fail(err, errlen, "no memory");
    {
        char *readable = demangle(pt->name);
        if (readable) free(pt->name), pt->name = readable;
    }
    return 0;
}
/* Events of one EVENTS block: whole events only. */
static int parse_events(struct trace *t, const unsigned char *p, uint64_t len, int tid, size_t at, char *err,
                        size_t errlen) {
    uint64_t w = 0, words = len / 8;
    while (w < words) {
        uint64_t head, nargs;
        struct trace_event *e;
        if (words - w < 2) return fail(err, errlen, "events block at offset %zu: an event cut short", at);
        head = get64(p + 8 * (w + 1));
        nargs = (head >> 40) & 0xff;
        if (nargs > TRACE_MAX_ARGS || nargs > words - w - 2)
            return fail(err, errlen, "events block at offset %zu: event with %u arguments overruns it", at,
                        (unsigned)nargs);
        if (!t->events) { /* counting only */
            t->nevents++, w += 2 + nargs;
            continue;
        }
        if (t->nevents >= t->events_cap) return fail(err, errlen, "events block at offset %zu: the file changed while it was read", at);
        e = &t->events[t->nevents++];
        e->tsc = get64(p + 8 * w), e->tid = tid, e->id = (uint32_t)head, e->kind = (head >> 32) & 0xff;
        e->nargs = (unsigned)nargs, e->args = (const uint64_t *)(const void *)(p + 8 * (w + 2));
        w += 2 + nargs;
    }
    return 0;
}
static int parse_thread(struct trace *t, const unsigned char *p, uint64_t len, int tid, size_t at, char *err,
                        size_t errlen) {
    struct trace_thread *th;
    if (len < 24) return fail(err, errlen, "thread block at offset %zu: too short", at);
    th = &t->threads[t->nthreads++];
    th->tid = tid, th->lost = get64(p);
    memcpy(th->name, p + 8, 16);
    th->name[16] = 0;
    th->ring_bytes = len >= 32 ? get64(p + 24) : 0;
    return 0;
}
/* First pass: check the blocks' frame and count what to allocate. */
static int count_blocks(const struct trace *t, size_t *points, size_t *threads, size_t *words, char *err, size_t errlen) {
    size_t at = HEADER_BYTES;
    *points = *threads = *words = 0;
    while (at < t->size) {
        uint32_t type;
        uint64_t len;
        if (t->size - at < BLOCK_HEAD) return fail(err, errlen, "truncated: a block header cut short at offset %zu", at);
        type = get32(t->data + at), len = get64(t->data + at + 8);
        if (len > t->size - at - BLOCK_HEAD)
            return fail(err, errlen, "truncated: the block at offset %zu claims %llu bytes, %zu are left", at,
                        (unsigned long long)len, t->size - at - BLOCK_HEAD);
        if (len % 8) return fail(err, errlen, "corrupt: the block at offset %zu is not a multiple of 8 bytes", at);
        if (type < BLK_EVENTS || type > BLK_END)
            return fail(err, errlen, "corrupt: unknown block type %u at offset %zu", type, at);
        *points += type == BLK_POINT, *threads += type == BLK_THREAD, *words += type == BLK_EVENTS ? len / 8 : 0;
        at += BLOCK_HEAD + (size_t)len;
    }
    return 0;
}
static int parse_header(struct trace *t, const char *path, char *err, size_t errlen) {
    if (t->size < HEADER_BYTES || memcmp(t->data, "EPTRACE", 8))
        return fail(err, errlen, "%s: not an edgeprobe trace file (no EPTRACE header)", path);
    if (get32(t->data + 8) < 1 || get32(t->data + 8) > TRACE_VERSION)
        return fail(err, errlen, "%s: trace format version %u; this reader knows versions 1 to %d", path,
                    get32(t->data + 8), TRACE_VERSION);
    t->version = get32(t->data + 8);
    if (get32(t->data + 12) != HEADER_BYTES) return fail(err, errlen, "%s: corrupt header", path);
    t->hz = get64(t->data + 16), t->tsc0 = get64(t->data + 24), t->mono0 = get64(t->data + 32);
    t->pid = get64(t->data + 40);
    return 0;
}
/* A thread has one ring per copy of the implementation it recorded
 * through: one entry per tid, the losses summed. */
static void merge_threads(struct trace *t) {
    size_t i, j, n = 0;
    for (i = 0; i < t->nthreads; i++) {
        for (j = 0; j < n && t->threads[j].tid != t->threads[i].tid; j++) {
        }
        t->ring_bytes += t->threads[i].ring_bytes, t->rings++;
        if (j < n) t->threads[j].lost += t->threads[i].lost, t->threads[j].ring_bytes += t->threads[i].ring_bytes;
        else t->threads[n++] = t->threads[i];
    }
    t->nthreads = n;
}
static int cmp_tid(const void *a, const void *b) {
    const struct trace_event *x = a, *y = b;
    if (x->tid != y->tid) return x->tid < y->tid ? -1 : 1;
    return x < y ? -1 : x > y; /* qsort is not stable: keep file order */
}
static int load(const char *path, struct trace *t, int with_events, char *err, size_t errlen) {
    size_t npoints, nthreads, words, at = HEADER_BYTES, i;
    memset(t, 0, sizeof *t);
    if (read_all(path, t, err, errlen) || parse_header(t, path, err, errlen) ||
        count_blocks(t, &npoints, &nthreads, &words, err, errlen))
        return -1;
    t->points = calloc(npoints + 1, sizeof *t->points);
    t->threads = calloc(nthreads + 1, sizeof *t->threads);
    t->events = with_events ? calloc(words / 2 + 1, sizeof *t->events) : NULL;
    if (!t->points || !t->threads || (with_events && !t->events)) return fail(err, errlen, "%s: no memory", path);
    t->events_cap = words / 2 + 1;
    while (at < t->size) {
        uint32_t type = get32(t->data + at);
        int tid = (int)get32(t->data + at + 4);
        uint64_t len = get64(t->data + at + 8);
        const unsigned char *p = t->data + at + BLOCK_HEAD;
        int rc = 0;
        /* the file may be written while it is read (a program still
         * recording into it): the second pass holds to the first's counts */
        if (t->size - at < BLOCK_HEAD || len > t->size - at - BLOCK_HEAD || (type == BLK_POINT && t->npoints >= npoints) ||
            (type == BLK_THREAD && t->nthreads >= nthreads))
            return fail(err, errlen, "%s: the file changed while it was read", path);
        if (type == BLK_POINT) rc = parse_point(t, p, len, at, err, errlen);
        else if (type == BLK_EVENTS) rc = parse_events(t, p, len, tid, at, err, errlen);
        else if (type == BLK_THREAD) rc = parse_thread(t, p, len, tid, at, err, errlen);
        else if (len >= 32) {
            t->tsc_end = get64(p), t->mono_end = get64(p + 8), t->lost = get64(p + 24), t->complete = 1;
            if (get64(p + 16)) t->hz = get64(p + 16);
        }
        if (rc) return -1;
        at += BLOCK_HEAD + (size_t)len;
    }
    if (!t->hz) return fail(err, errlen, "%s: corrupt: no TSC frequency", path);
    for (i = 0; i < t->npoints; i++)
        if (t->points[i].id >= t->nids) t->nids = t->points[i].id + 1;
    if (!(t->by_id = calloc(t->nids + 1, sizeof *t->by_id))) return fail(err, errlen, "%s: no memory", path);
    for (i = 0; i < t->npoints; i++) t->by_id[t->points[i].id] = &t->points[i];
    if (t->events) qsort(t->events, t->nevents, sizeof *t->events, cmp_tid);
    merge_threads(t);
    return 0;
}
uint64_t trace_whole_bytes(const char *path) {
    unsigned char head[BLOCK_HEAD];
    struct stat st;
    uint64_t at = HEADER_BYTES;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    if (fstat(fd, &st) || (uint64_t)st.st_size < HEADER_BYTES) {
        close(fd);
        return 0;
    }
    while ((uint64_t)st.st_size - at >= BLOCK_HEAD && pread(fd, head, sizeof head, (off_t)at) == (ssize_t)sizeof head &&
           get64(head + 8) <= (uint64_t)st.st_size - at - BLOCK_HEAD)
        at += BLOCK_HEAD + get64(head + 8);
    close(fd);
    return at;
}
int trace_load(const char *path, struct trace *t, char *err, size_t errlen) { return load(path, t, 1, err, errlen); }
int trace_load_counts(const char *path, struct trace *t, char *err, size_t errlen) {
    return load(path, t, 0, err, errlen);
}
void trace_free(struct trace *t) {
    size_t i;
    for (i = 0; t->points && i < t->npoints; i++) {
        free(t->points[i].name), free(t->points[i].file);
        free(t->points[i].function), free(t->points[i].format);
    }
    free(t->points), free(t->threads), free(t->events), free(t->by_id);
    if (t->data) munmap(t->data, t->size);
    memset(t, 0, sizeof *t);
}
double trace_ns(const struct trace *t, uint64_t tsc) {
    return ((double)tsc - (double)t->tsc0) * 1e9 / (double)t->hz;
}
const struct trace_point *trace_point(const struct trace *t, uint32_t id) {
    return id < t->nids ? t->by_id[id] : NULL;
}
const char *trace_name(const struct trace *t, uint32_t id, char *buf, size_t n) {
    const struct trace_point *p = trace_point(t, id);
    if (p && *p->name) return p->name;
    snprintf(buf, n, "#%u", id);
    return buf;
}
const char *trace_thread_name(const struct trace *t, int tid) {
    size_t i;
    for (i = 0; i < t->nthreads; i++)
        if (t->threads[i].tid == tid) return t->threads[i].name;
    return "";
}
static int cmp_time(const void *a, const void *b) {
    const struct trace_event *x = a, *y = b;
    if (x->tsc != y->tsc) return x->tsc < y->tsc ? -1 : 1;
    return x < y ? -1 : x > y;
}
struct trace_event *trace_by_time(const struct trace *t) {
    struct trace_event *e = malloc((t->nevents + 1) * sizeof *e);
    if (!e) return NULL;
    memcpy(e, t->events, t->nevents * sizeof *e);
    qsort(e, t->nevents, sizeof *e, cmp_time);
    return e;
}
const char *trace_kind_name(unsigned kind) {
    static const char *const names[] = {"?", "probe", "trace", "hit", "handler", "entry", "exit", "call", "user"};
    return kind < sizeof names / sizeof names[0] ? names[kind] : "?";
}

/* ---- TRACE lines, formatted offline ---- */
/* One conversion spec [%...X] of at most 31 bytes: copy it, with its
 * length modifiers dropped and the right one for 64-bit values put back. */
static void format_one(char *out, size_t n, const char *spec, size_t len, uint64_t v) {
    char f[40];
    size_t k = 0, i;
    char conv = spec[len - 1];
    for (i = 0; i < len - 1 && k < 30; i++)
        if (!strchr("hlLqjzt", spec[i])) f[k++] = spec[i];
    if (strchr("diouxXc", conv)) {
        if (conv != 'c') f[k++] = 'l', f[k++] = 'l';
        f[k++] = conv, f[k] = 0;
        if (conv == 'c') snprintf(out, n, f, (int)v);
        else if (conv == 'd' || conv == 'i') snprintf(out, n, f, (long long)v);
        else snprintf(out, n, f, (unsigned long long)v);
    } else if (strchr("eEfFgGaA", conv)) {
        double d;
        memcpy(&d, &v, 8);
        f[k++] = conv, f[k] = 0;
        snprintf(out, n, f, d);
    } else { /* %s, %p: the value only (the string is not recorded) */
        snprintf(out, n, "0x%llx", (unsigned long long)v);
    }
}
void trace_format(char *out, size_t n, const char *fmt, const uint64_t *args, unsigned nargs) {
    size_t o = 0;
    unsigned a = 0;
    if (!n) return;
    while (*fmt && o + 1 < n) {
        size_t len = 1;
        if (*fmt != '%') {
            out[o++] = *fmt++;
            continue;
        }
        if (fmt[1] == '%') {
            out[o++] = '%', fmt += 2;
            continue;
        }
        while (fmt[len] && len < 31 && strchr("#0- +'.123456789hlLqjzt", fmt[len])) len++;
        if (!fmt[len] || !strchr("diouxXceEfFgGaAsp", fmt[len]) || a >= nargs) { /* %n, '*', ...: as written */
            out[o++] = *fmt++;
            continue;
        }
        format_one(out + o, n - o, fmt, len + 1, args[a++]);
        o += strlen(out + o);
        fmt += len + 1;
    }
    out[o] = 0;
}

/* ---- calls from function events ---- */
static int cmp_call(const void *a, const void *b) {
    const struct trace_call *x = a, *y = b;
    if (x->tid != y->tid) return x->tid < y->tid ? -1 : 1;
    if (x->start != y->start) return x->start < y->start ? -1 : 1;
    if (x->end != y->end) return x->end > y->end ? -1 : 1;
    return x < y ? -1 : x > y;
}
/* Parents and depths: intervals sorted by start (longest first), one
 * stack sweep per thread. */
static void nest_calls(struct trace_call *c, long n) {
    long *stack = malloc(((size_t)n + 1) * sizeof *stack), top = 0, i;
    if (!stack) return;
    qsort(c, (size_t)n, sizeof *c, cmp_call);
    for (i = 0; i < n; i++) {
        while (top && (c[stack[top - 1]].tid != c[i].tid || c[stack[top - 1]].end <= c[i].start)) top--;
        if (top && c[i].end > c[stack[top - 1]].end) c[i].end = c[stack[top - 1]].end; /* an overlap: clip */
        c[i].parent = top ? stack[top - 1] : -1;
        c[i].depth = (int)top;
        if (top) c[stack[top - 1]].child_ticks += c[i].end - c[i].start;
        stack[top++] = i;
    }
    free(stack);
}
long trace_calls(const struct trace *t, struct trace_call **out) {
    struct trace_call *c = calloc(t->nevents + 1, sizeof *c);
    size_t *open = malloc((t->nevents + 1) * sizeof *open), nopen = 0, i;
    long n = 0;
    if (!c || !open) {
        free(c), free(open);
        return -1;
    }
    for (i = 0; i < t->nevents; i++) {
        const struct trace_event *e = &t->events[i];
        size_t k;
        if (i && e->tid != t->events[i - 1].tid) { /* a new thread: close what is open */
            for (; nopen > 0; nopen--) c[open[nopen - 1]].end = t->events[i - 1].tsc, c[open[nopen - 1]].unmatched = 1;
        }
        if (e->kind == TRACE_EV_ENTRY) {
            c[n] = (struct trace_call){e->tsc, e->tsc, e->id, e->tid, 0, 0, -1, 0, e->args, NULL, e->nargs, 0};
            open[nopen++] = (size_t)n++;
        } else if (e->kind == TRACE_EV_EXIT) {
            for (k = nopen; k > 0 && c[open[k - 1]].id != e->id; k--) {
            }
            if (!k) continue; /* its entry came before the recording */
            while (nopen >= k) { /* skipped frames: longjmp, exceptions */
                struct trace_call *o = &c[open[--nopen]];
                o->end = e->tsc;
                if (nopen + 1 > k) o->unmatched = 1;
                else o->rets = e->args, o->nrets = e->nargs;
            }
        } else if (e->kind == TRACE_EV_CALL && e->nargs >= 1) {
            c[n++] = (struct trace_call){e->tsc, e->tsc + e->args[0], e->id, e->tid, 0, 0, -1, 0, NULL,
                                         e->args + 1, 0, e->nargs - 1};
        }
    }
    for (; nopen > 0; nopen--)
        c[open[nopen - 1]].end = t->events[t->nevents - 1].tsc, c[open[nopen - 1]].unmatched = 1;
    free(open);
    nest_calls(c, n);
    *out = c;
    return n;
}

#define MAX_DEPTH 512
/* Every call's stack (its ancestors' names, root first), weighted by its
 * self time in ns. */
struct export_stacks *trace_stacks(const struct trace *t, const struct trace_call *c, long nc) {
    struct export_stacks *s = export_stacks_new();
    static char ids[MAX_DEPTH][24];
    const char *frames[MAX_DEPTH];
    long k, p;
    for (k = 0; s && k < nc; k++) {
        uint64_t d = c[k].end - c[k].start, self = d - (c[k].child_ticks < d ? c[k].child_ticks : d);
        int depth = 0, i;
        for (p = k; p >= 0 && depth < MAX_DEPTH; p = c[p].parent) depth++;
        for (p = k, i = depth; p >= 0 && i > 0; p = c[p].parent) --i, frames[i] = trace_name(t, c[p].id, ids[i], sizeof ids[i]);
        if (export_stacks_add(s, frames, depth, (uint64_t)((double)self * 1e9 / (double)t->hz)))
            export_stacks_free(s), s = NULL;
    }
    return s;
}
