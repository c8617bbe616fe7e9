/* tools/cmd_report.c - `edgeprobe report [--sort total|self|calls]
 * [--graph] FILE`: per function, its calls, total and self time, min, p50,
 * p99 and max (calls rebuilt from entry and exit events, or recorded whole
 * with a minimum duration); per marker, its hits. --graph: the call tree
 * with times, as `uftrace graph` shows it. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "edgeprobe.h" /* the ring's header size (section 11.8); no implementation */
#include "export.h"
#include "tool.h"
#include "trace_file.h"

struct row {
    uint32_t id;
    uint64_t calls, hits, total, self, unmatched;
    uint64_t *durations;         /* ticks, one per call                   */
};
struct node {                    /* --graph: one call path                 */
    uint32_t id;
    long parent, first_child, next_sibling;
    uint64_t calls, total;
};
enum { SORT_TOTAL, SORT_SELF, SORT_CALLS };
static int sort_key;

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}
static uint64_t row_key(const struct row *r) {
    return sort_key == SORT_CALLS ? r->calls + r->hits : sort_key == SORT_SELF ? r->self : r->total;
}
static int cmp_row(const void *a, const void *b) {
    uint64_t x = row_key(a), y = row_key(b);
    if (x != y) return x > y ? -1 : 1;
    return ((const struct row *)a)->id < ((const struct row *)b)->id ? -1 : 1;
}
static double us(const struct trace *t, uint64_t ticks) { return (double)ticks * 1e6 / (double)t->hz; }

/* One row per id: function calls and marker hits. */
static struct row *make_rows(const struct trace *t, const struct trace_call *c, long nc, size_t *nrows) {
    size_t nids = t->nids, i;
    long k;
    struct row *rows;
    for (i = 0; i < t->nevents; i++)
        if (t->events[i].id >= nids) nids = (size_t)t->events[i].id + 1;
    if (nids > TRACE_MAX_ID || !(rows = calloc(nids + 1, sizeof *rows))) return NULL;
    for (i = 0; i < nids; i++) rows[i].id = (uint32_t)i;
    for (k = 0; k < nc; k++) rows[c[k].id].calls++;
    for (i = 0; i < nids; i++)
        if (rows[i].calls && !(rows[i].durations = malloc(rows[i].calls * sizeof(uint64_t)))) return NULL;
    for (i = 0; i < nids; i++) rows[i].calls = 0;
    for (k = 0; k < nc; k++) {
        struct row *r = &rows[c[k].id];
        uint64_t d = c[k].end - c[k].start;
        r->durations[r->calls++] = d;
        r->total += d, r->self += d - (c[k].child_ticks < d ? c[k].child_ticks : d), r->unmatched += (uint64_t)c[k].unmatched;
    }
    for (i = 0; i < t->nevents; i++) {
        unsigned kind = t->events[i].kind;
        if (kind == TRACE_EV_PROBE || kind == TRACE_EV_TRACE || kind == TRACE_EV_BRANCH || kind == TRACE_EV_HANDLER ||
            kind == TRACE_EV_USER)
            rows[t->events[i].id].hits++;
    }
    *nrows = nids;
    return rows;
}
static void print_rows(const struct trace *t, struct row *rows, size_t n) {
    size_t i;
    char id[24];
    qsort(rows, n, sizeof *rows, cmp_row);
    printf("%12s %12s %12s %10s %10s %10s %10s  %s\n", "calls", "total(us)", "self(us)", "min(us)", "p50(us)", "p99(us)",
           "max(us)", "name");
    for (i = 0; i < n; i++) {
        struct row *r = &rows[i];
        const char *name = trace_name(t, r->id, id, sizeof id);
        if (r->calls) {
            qsort(r->durations, r->calls, sizeof *r->durations, cmp_u64);
            printf("%12" PRIu64 " %12.3f %12.3f %10.3f %10.3f %10.3f %10.3f  %s%s\n", r->calls, us(t, r->total),
                   us(t, r->self), us(t, r->durations[0]), us(t, r->durations[r->calls / 2]),
                   us(t, r->durations[(r->calls * 99) / 100]), us(t, r->durations[r->calls - 1]), name,
                   r->unmatched ? " (unmatched entries)" : "");
        }
        if (r->hits)
            printf("%12" PRIu64 " %12s %12s %10s %10s %10s %10s  %s (hits)\n", r->hits, "-", "-", "-", "-", "-", "-", name);
    }
}

/* ---- --graph ---- */
static long child_of(struct node **nodes, size_t *n, size_t *cap, long parent, uint32_t id) {
    long k = parent >= 0 ? (*nodes)[parent].first_child : -1, last = -1;
    for (; k >= 0; last = k, k = (*nodes)[k].next_sibling)
        if ((*nodes)[k].id == id) return k;
    if (*n == *cap) {
        struct node *more = realloc(*nodes, (*cap = *cap ? *cap * 2 : 256) * sizeof *more);
        if (!more) return -1;
        *nodes = more;
    }
    (*nodes)[*n] = (struct node){id, parent, -1, -1, 0, 0};
    if (last >= 0) (*nodes)[last].next_sibling = (long)*n;
    else if (parent >= 0) (*nodes)[parent].first_child = (long)*n;
    return (long)(*n)++;
}
static void print_tree(const struct trace *t, const struct node *nodes, long k, int depth) {
    char id[24];
    for (; k >= 0; k = nodes[k].next_sibling) {
        printf("%12.3f us %10" PRIu64 " : %*s%s\n", us(t, nodes[k].total), nodes[k].calls, 2 * depth, "",
               trace_name(t, nodes[k].id, id, sizeof id));
        if (depth < 256) print_tree(t, nodes, nodes[k].first_child, depth + 1);
    }
}
static int print_graph(const struct trace *t, const struct trace_call *c, long nc) {
    struct node *nodes = NULL;
    size_t n = 0, cap = 0;
    long *at = malloc(((size_t)nc + 1) * sizeof *at), k, root;
    if (!at || (root = child_of(&nodes, &n, &cap, -1, UINT32_MAX)) < 0) return -1; /* a root above all threads */
    for (k = 0; k < nc; k++) { /* a call's parent comes before it (nest_calls' order) */
        at[k] = child_of(&nodes, &n, &cap, c[k].parent >= 0 ? at[c[k].parent] : root, c[k].id);
        if (at[k] < 0) return -1;
        nodes[at[k]].calls++, nodes[at[k]].total += c[k].end - c[k].start;
    }
    printf("%15s %10s   %s\n", "total time", "calls", "function");
    print_tree(t, nodes, nodes[root].first_child, 0);
    free(at), free(nodes);
    return 0;
}

/* The rings' memory in the program: each thread has one ring per copy of
 * the implementation it recorded through (`record --buffer` sets their
 * size; each also has a header of EDGEPROBE__RING_HEAD bytes). */
static void print_memory(const struct trace *t) {
    uint64_t each = t->rings ? t->ring_bytes / t->rings : 0;
    printf("# rings: %zu of %" PRIu64 " KiB (+%u bytes of header) for %zu threads: %.1f KiB of memory in the program\n",
           t->rings, (each > EDGEPROBE__RING_HEAD ? each - EDGEPROBE__RING_HEAD : 0) >> 10, EDGEPROBE__RING_HEAD, t->nthreads, (double)t->ring_bytes / 1024);
}

/* --svg: a flame graph of inclusive time. */
static int write_svg(const struct trace *t, const struct trace_call *c, long nc, const char *path, const char *title) {
    struct export_stacks *s = trace_stacks(t, c, nc);
    FILE *out = s ? fopen(path, "w") : NULL;
    int rc = out ? export_write_flame_svg(s, out, title) : -1;
    if (out && fclose(out)) rc = -1;
    if (rc) fprintf(stderr, "edgeprobe report: cannot write %s\n", path);
    export_stacks_free(s);
    return rc;
}
int cmd_report(int argc, char **argv) {
    const char *file = NULL, *svg = NULL;
    int graph = 0, i, rc = 0;
    struct trace t;
    struct trace_call *c = NULL;
    struct row *rows = NULL;
    size_t nrows = 0, j;
    long nc;
    char err[512];
    sort_key = SORT_TOTAL;
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            printf("usage: edgeprobe %s\n", USAGE_REPORT);
            return 0;
        } else if (!strcmp(argv[i], "--graph")) {
            graph = 1;
        } else if (!strcmp(argv[i], "--raw-names")) {
            trace_raw_names = 1;
        } else if (!strcmp(argv[i], "--svg") && i + 1 < argc) {
            svg = argv[++i];
        } else if (!strcmp(argv[i], "--sort") && i + 1 < argc) {
            const char *v = argv[++i];
            if (!strcmp(v, "total")) sort_key = SORT_TOTAL;
            else if (!strcmp(v, "self")) sort_key = SORT_SELF;
            else if (!strcmp(v, "calls")) sort_key = SORT_CALLS;
            else file = NULL, i = argc + 1;
        } else if (argv[i][0] == '-' || file) {
            i = argc + 1;
        } else {
            file = argv[i];
        }
    }
    if (!file || i > argc) {
        fprintf(stderr, "usage: edgeprobe %s\n", USAGE_REPORT);
        return TOOL_EXIT_USAGE;
    }
    if (trace_load(file, &t, err, sizeof err)) {
        fprintf(stderr, "edgeprobe report: %s\n", err);
        trace_free(&t);
        return 1;
    }
    if ((nc = trace_calls(&t, &c)) < 0 || !(rows = make_rows(&t, c, nc, &nrows)) ||
        (graph && print_graph(&t, c, nc))) {
        fprintf(stderr, "edgeprobe report: no memory\n");
        rc = 1;
    } else if (!graph) {
        printf("# %s: pid %" PRIu64 ", %zu events, %zu threads, %" PRIu64 " lost%s\n", file, t.pid, t.nevents, t.nthreads,
               t.lost, t.complete ? "" : " (incomplete: the recording did not stop)");
        print_rows(&t, rows, nrows);
        print_memory(&t);
    }
    if (!rc && svg && write_svg(&t, c, nc, svg, file)) rc = 1;
    for (j = 0; rows && j < nrows; j++) free(rows[j].durations);
    free(rows), free(c);
    trace_free(&t);
    return rc;
}
