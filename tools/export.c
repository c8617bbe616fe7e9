/* tools/export.c - folded stacks and pprof from weighted stacks
 * (tools/export.h). Frame names are interned once; a stack is a run of
 * name indices in one array, found again through a hash of the run. */
#include "export.h"

#include <stdlib.h>
#include <string.h>

struct export_stacks {
    char **names;                /* interned frame names, [0] = ""        */
    size_t nnames, names_cap;
    size_t *name_slots, name_slots_cap; /* hash: index + 1, 0 = empty      */
    uint32_t *frames;            /* every stack's name indices, end to end */
    size_t nframes, frames_cap;
    struct stack { size_t first; uint32_t depth; uint64_t weight; } *stacks;
    size_t nstacks, stacks_cap;
    size_t *stack_slots, stack_slots_cap;
};

static uint64_t hash_bytes(const void *p, size_t n) {
    const unsigned char *b = p;
    uint64_t h = 1469598103934665603ull;
    while (n--) h = (h ^ *b++) * 1099511628211ull;
    return h;
}
static int grow(void **arr, size_t *cap, size_t need, size_t size) {
    size_t ncap = *cap ? *cap : 16;
    void *n;
    if (need <= *cap) return 0;
    while (ncap < need) ncap *= 2;
    if (!(n = realloc(*arr, ncap * size))) return -1;
    *arr = n, *cap = ncap;
    return 0;
}
/* Rebuild a table of index+1 slots at twice the size. */
static int rehash(size_t **slots, size_t *cap, size_t count, uint64_t (*key)(const struct export_stacks *, size_t),
                  const struct export_stacks *s) {
    size_t ncap = *cap ? *cap * 2 : 64, i;
    size_t *n = calloc(ncap, sizeof *n);
    if (!n) return -1;
    for (i = 0; i < count; i++) {
        size_t h = (size_t)key(s, i) & (ncap - 1);
        while (n[h]) h = (h + 1) & (ncap - 1);
        n[h] = i + 1;
    }
    free(*slots);
    *slots = n, *cap = ncap;
    return 0;
}
static uint64_t name_key(const struct export_stacks *s, size_t i) { return hash_bytes(s->names[i], strlen(s->names[i])); }
static uint64_t stack_key(const struct export_stacks *s, size_t i) {
    return hash_bytes(s->frames + s->stacks[i].first, s->stacks[i].depth * sizeof(uint32_t));
}
static long intern(struct export_stacks *s, const char *name) {
    size_t h;
    if ((s->nnames + 1) * 2 > s->name_slots_cap && rehash(&s->name_slots, &s->name_slots_cap, s->nnames, name_key, s))
        return -1;
    h = (size_t)hash_bytes(name, strlen(name)) & (s->name_slots_cap - 1);
    for (; s->name_slots[h]; h = (h + 1) & (s->name_slots_cap - 1))
        if (!strcmp(s->names[s->name_slots[h] - 1], name)) return (long)s->name_slots[h] - 1;
    if (grow((void **)&s->names, &s->names_cap, s->nnames + 1, sizeof *s->names) ||
        !(s->names[s->nnames] = strdup(name)))
        return -1;
    s->name_slots[h] = ++s->nnames;
    return (long)s->nnames - 1;
}
struct export_stacks *export_stacks_new(void) {
    struct export_stacks *s = calloc(1, sizeof *s);
    if (s && intern(s, "") < 0) export_stacks_free(s), s = NULL; /* pprof: string 0 is "" */
    return s;
}
void export_stacks_free(struct export_stacks *s) {
    size_t i;
    if (!s) return;
    for (i = 0; i < s->nnames; i++) free(s->names[i]);
    free(s->names), free(s->name_slots), free(s->frames), free(s->stacks), free(s->stack_slots), free(s);
}
int export_stacks_add(struct export_stacks *s, const char *const *frames, int depth, uint64_t weight) {
    size_t first = s->nframes, h;
    int i;
    if (depth <= 0) return 0;
    if (grow((void **)&s->frames, &s->frames_cap, first + (size_t)depth, sizeof *s->frames)) return -1;
    for (i = 0; i < depth; i++) {
        long id = intern(s, frames[i]);
        if (id < 0) return -1;
        s->frames[first + (size_t)i] = (uint32_t)id;
    }
    if ((s->nstacks + 1) * 2 > s->stack_slots_cap && rehash(&s->stack_slots, &s->stack_slots_cap, s->nstacks, stack_key, s))
        return -1;
    h = (size_t)hash_bytes(s->frames + first, (size_t)depth * sizeof(uint32_t)) & (s->stack_slots_cap - 1);
    for (; s->stack_slots[h]; h = (h + 1) & (s->stack_slots_cap - 1)) {
        struct stack *o = &s->stacks[s->stack_slots[h] - 1];
        if (o->depth == (uint32_t)depth && !memcmp(s->frames + o->first, s->frames + first, (size_t)depth * 4)) {
            o->weight += weight; /* the same stack: its frames are dropped */
            return 0;
        }
    }
    if (grow((void **)&s->stacks, &s->stacks_cap, s->nstacks + 1, sizeof *s->stacks)) return -1;
    s->stacks[s->nstacks] = (struct stack){first, (uint32_t)depth, weight};
    s->nframes += (size_t)depth;
    s->stack_slots[h] = ++s->nstacks;
    return 0;
}
int export_write_folded(const struct export_stacks *s, FILE *out) {
    size_t i, j;
    for (i = 0; i < s->nstacks; i++) {
        const struct stack *k = &s->stacks[i];
        for (j = 0; j < k->depth; j++) fprintf(out, "%s%s", j ? ";" : "", s->names[s->frames[k->first + j]]);
        fprintf(out, " %llu\n", (unsigned long long)k->weight);
    }
    return fflush(out) || ferror(out) ? -1 : 0;
}

/* ---- flame graph: the stacks merged into a tree, drawn as SVG ---- */
struct flame_node { uint32_t name; long first_child, next; uint64_t total; };
struct flame { struct flame_node *n; size_t count, cap; };
static long flame_child(struct flame *f, long parent, uint32_t name) {
    long k, *link = &f->n[parent].first_child;
    for (k = *link; k >= 0; link = &f->n[k].next, k = *link)
        if (f->n[k].name == name) return k;
    if (grow((void **)&f->n, &f->cap, f->count + 1, sizeof *f->n)) return -1;
    link = &f->n[parent].first_child; /* the array may have moved */
    while (*link >= 0) link = &f->n[*link].next;
    f->n[f->count] = (struct flame_node){name, -1, -1, 0};
    *link = (long)f->count;
    return (long)f->count++;
}
static void xml_text(FILE *out, const char *s, size_t max) {
    size_t i;
    for (i = 0; s[i] && i < max; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '<') fputs("&lt;", out);
        else if (c == '>') fputs("&gt;", out);
        else if (c == '&') fputs("&amp;", out);
        else if (c == '"') fputs("&quot;", out);
        else if (c < 0x20 || c >= 0x7f) fputc('?', out);
        else fputc(c, out);
    }
    if (s[i]) fputs("..", out);
}
#define FLAME_WIDTH 1200.0
#define FLAME_ROW 17
static void flame_draw(FILE *out, const struct export_stacks *s, const struct flame *f, long k, double x, int depth,
                       double scale, int height) {
    for (; k >= 0; k = f->n[k].next) {
        double w = (double)f->n[k].total * scale;
        int y = height - (depth + 2) * FLAME_ROW;
        const char *name = s->names[f->n[k].name];
        if (w >= 0.5) {
            fprintf(out, "<g><title>");
            xml_text(out, name, 4096);
            fprintf(out, " (%llu)</title><rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"rgb(%d,%d,60)\"/>",
                    (unsigned long long)f->n[k].total, x, y, w, FLAME_ROW - 1, 205 + (int)(f->n[k].name * 37 % 50),
                    90 + (int)(f->n[k].name * 53 % 120));
            if (w > 40) {
                fprintf(out, "<text x=\"%.1f\" y=\"%d\">", x + 3, y + FLAME_ROW - 5);
                xml_text(out, name, (size_t)(w / 7) - 2); /* room for ".." */
                fputs("</text>", out);
            }
            fputs("</g>\n", out);
            flame_draw(out, s, f, f->n[k].first_child, x, depth + 1, scale, height);
        }
        x += w;
    }
}
/* The flame graph's x axis: a weight scale under the frames. per_weight
 * and unit say what a weight is (1e-6, "ms"); unit NULL: percent of the
 * total. Ticks at a round step, 5 to 10 of them. */
#define FLAME_AXIS 40 /* pixels under the frames: line, labels, caption */
static double nice_step(double range) {
    double p = 1, r;
    if (range <= 0) return 1;
    while (p * 10 <= range) p *= 10;
    while (p > range) p /= 10;
    r = range / p; /* 1 <= r < 10 */
    return r >= 5 ? p : r >= 2 ? p / 2 : p / 5;
}
static void flame_axis(FILE *out, uint64_t total, double per_weight, const char *unit, int y) {
    double range = unit ? (double)total * per_weight : 100, step = nice_step(range), v;
    fprintf(out, "<line x1=\"0\" y1=\"%d\" x2=\"%.0f\" y2=\"%d\" stroke=\"#444\"/>\n", y, FLAME_WIDTH, y);
    for (v = 0; v <= range * (1 + 1e-9); v += step) {
        double x = v / range * FLAME_WIDTH;
        fprintf(out, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#444\"/>", x, y, x, y + 4);
        fprintf(out, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"%s\">%g%s</text>\n", x, y + 16,
                v == 0 ? "start" : x > FLAME_WIDTH - 30 ? "end" : "middle", v, unit ? "" : "%");
    }
    fprintf(out, "<text x=\"%.0f\" y=\"%d\" text-anchor=\"middle\" fill=\"#555\">%s%s%s: each frame as wide as "
                 "the time of its calls on that stack (its callees' above it)</text>\n",
            FLAME_WIDTH / 2, y + 32, unit ? "time (" : "share of the total", unit ? unit : "", unit ? ")" : "");
}
int export_write_flame_svg_axis(const struct export_stacks *s, FILE *out, const char *title, double per_weight,
                                const char *unit) {
    struct flame f = {NULL, 0, 0};
    size_t i, j;
    int depth = 0, height;
    if (grow((void **)&f.n, &f.cap, 1, sizeof *f.n)) return -1;
    f.n[f.count++] = (struct flame_node){0, -1, -1, 0}; /* the root: every stack */
    for (i = 0; i < s->nstacks; i++) {
        const struct stack *k = &s->stacks[i];
        long at = 0;
        f.n[0].total += k->weight;
        for (j = 0; j < k->depth && at >= 0; j++)
            if ((at = flame_child(&f, at, s->frames[k->first + j])) >= 0) f.n[at].total += k->weight;
        if (at < 0) {
            free(f.n);
            return -1;
        }
        if ((int)k->depth > depth) depth = (int)k->depth;
    }
    height = (depth + 3) * FLAME_ROW;
    fprintf(out, "<?xml version=\"1.0\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                 "font-family=\"monospace\" font-size=\"12\">\n<text x=\"4\" y=\"14\">",
            (int)FLAME_WIDTH, height + FLAME_AXIS);
    xml_text(out, title, 200);
    fputs("</text>\n", out);
    if (f.n[0].total) flame_draw(out, s, &f, f.n[0].first_child, 0, 0, FLAME_WIDTH / (double)f.n[0].total, height);
    flame_axis(out, f.n[0].total, per_weight, unit, height - FLAME_ROW + 2);
    fputs("</svg>\n", out);
    free(f.n);
    return fflush(out) || ferror(out) ? -1 : 0;
}
int export_write_flame_svg(const struct export_stacks *s, FILE *out, const char *title) {
    return export_write_flame_svg_axis(s, out, title, 0, NULL);
}

/* "root;child;leaf weight" lines (export_write_folded's) added to s: 0, -1
 * (no memory, or a line without a weight; lines of more than max frames
 * keep their first max). */
int export_read_folded(struct export_stacks *s, FILE *in) {
    char *line = NULL, *frames[EXPORT_FOLDED_DEPTH], *p, *sp;
    size_t cap = 0;
    int n, rc = 0;
    while (!rc && getline(&line, &cap, in) > 0) { /* lines of any length: C++ stacks are long */
        line[strcspn(line, "\n")] = 0;
        if (!line[0]) continue;
        if (!(sp = strrchr(line, ' '))) {
            rc = -1;
            break;
        }
        *sp = 0;
        for (n = 0, p = line; p && n < EXPORT_FOLDED_DEPTH; n++) {
            frames[n] = p;
            if ((p = strchr(p, ';'))) *p++ = 0;
        }
        rc = export_stacks_add(s, (const char *const *)frames, n, strtoull(sp + 1, NULL, 10));
    }
    free(line);
    return rc || ferror(in) ? -1 : 0;
}

/* ---- protobuf, by hand: varints and length-delimited fields ---- */
static void pb_byte(struct export_pb *p, unsigned char c) {
    if (p->n == p->cap && grow((void **)&p->b, &p->cap, p->n + 1, 1)) {
        p->oom = 1;
        return;
    }
    p->b[p->n++] = c;
}
void export_pb_varint(struct export_pb *p, uint64_t v) {
    for (; v >= 0x80; v >>= 7) pb_byte(p, (unsigned char)(v | 0x80));
    pb_byte(p, (unsigned char)v);
}
static void pb_tag(struct export_pb *p, unsigned field, unsigned wire) { export_pb_varint(p, (uint64_t)field << 3 | wire); }
void export_pb_uint(struct export_pb *p, unsigned field, uint64_t v) { pb_tag(p, field, 0), export_pb_varint(p, v); }
void export_pb_bytes(struct export_pb *p, unsigned field, const void *data, size_t n) {
    size_t i;
    pb_tag(p, field, 2), export_pb_varint(p, n);
    for (i = 0; i < n; i++) pb_byte(p, ((const unsigned char *)data)[i]);
}
void export_pb_string(struct export_pb *p, unsigned field, const char *s) { export_pb_bytes(p, field, s, strlen(s)); }
void export_pb_message(struct export_pb *p, unsigned field, struct export_pb *m) {
    export_pb_bytes(p, field, m->b, m->n);
    p->oom |= m->oom;
    m->n = 0, m->oom = 0;
}
int export_pb_write(struct export_pb *p, FILE *out) {
    int rc = p->oom || fwrite(p->b, 1, p->n, out) != p->n || fflush(out) ? -1 : 0;
    p->n = 0;
    return rc;
}
void export_pb_free(struct export_pb *p) {
    free(p->b);
    memset(p, 0, sizeof *p);
}
#define pb_uint export_pb_uint
#define pb_bytes export_pb_bytes
#define pb_message export_pb_message
#define pb_varint export_pb_varint
int export_write_pprof(const struct export_stacks *s, FILE *out, const char *type, const char *unit) {
    struct export_pb p = {0}, m = {0}, sub = {0};
    size_t i, j, type_id = s->nnames, unit_id = s->nnames + 1; /* appended to the strings */
    int rc;
    pb_uint(&m, 1, (uint64_t)type_id), pb_uint(&m, 2, (uint64_t)unit_id);
    pb_message(&p, 1, &m); /* sample_type */
    for (i = 0; i < s->nstacks; i++) {
        const struct stack *k = &s->stacks[i];
        for (j = k->depth; j-- > 0;) pb_varint(&sub, s->frames[k->first + j]); /* leaf first */
        pb_message(&m, 1, &sub); /* location_id, packed: location id = name index */
        pb_varint(&sub, k->weight);
        pb_message(&m, 2, &sub); /* value, packed */
        pb_message(&p, 2, &m);
    }
    for (i = 1; i < s->nnames; i++) { /* one function and one location per name */
        pb_uint(&m, 1, i), pb_uint(&m, 2, i), pb_uint(&m, 3, i);
        pb_message(&p, 5, &m);
        pb_uint(&sub, 1, i);
        pb_uint(&m, 1, i);
        pb_message(&m, 4, &sub); /* line { function_id } */
        pb_message(&p, 4, &m);
    }
    for (i = 0; i < s->nnames; i++) pb_bytes(&p, 6, s->names[i], strlen(s->names[i]));
    pb_bytes(&p, 6, type, strlen(type));
    pb_bytes(&p, 6, unit, strlen(unit));
    rc = export_pb_write(&p, out);
    export_pb_free(&p), export_pb_free(&m), export_pb_free(&sub);
    return rc;
}
