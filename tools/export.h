/* tools/export.h - stacks with weights, written for the tools people read
 * them with: folded stacks (flamegraph.pl, inferno, speedscope) and pprof's
 * profile.proto (go tool pprof, Pyroscope, Parca). Shared by `edgeprobe
 * export` and `report --svg`, and meant for the profiler too: give it
 * stacks, root frame first, with a weight each. */
#ifndef EDGEPROBE_EXPORT_H
#define EDGEPROBE_EXPORT_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct export_stacks;
struct export_stacks *export_stacks_new(void);
void export_stacks_free(struct export_stacks *s);
/* Add weight to one stack (frames[0] is the root). Equal stacks merge.
 * 0, or -1 on no memory. */
int export_stacks_add(struct export_stacks *s, const char *const *frames, int depth, uint64_t weight);
/* "root;child;leaf weight" lines. 0, or -1 on a write error. */
int export_write_folded(const struct export_stacks *s, FILE *out);
/* A flame graph (inclusive weight: each frame as wide as its stacks'
 * weights) as SVG, titled `title`. 0, or -1 (no memory, write error). */
int export_write_flame_svg(const struct export_stacks *s, FILE *out, const char *title);
/* The same, its x axis in unit (e.g. "ms"), a weight being per_weight of
 * it; unit NULL: in percent of the total (what export_write_flame_svg draws). */
int export_write_flame_svg_axis(const struct export_stacks *s, FILE *out, const char *title, double per_weight,
                                const char *unit);
/* Read folded stacks (as export_write_folded writes them) into s. 0, or -1
 * (no memory, a line without a weight). Stacks deeper than
 * EXPORT_FOLDED_DEPTH keep their root end. */
#define EXPORT_FOLDED_DEPTH 512
int export_read_folded(struct export_stacks *s, FILE *in);
/* An uncompressed profile.proto: one sample per stack, valued in `unit`
 * (e.g. "nanoseconds") of `type` (e.g. "self_time"); one function and one
 * location per frame name. 0, or -1 on a write error. */
int export_write_pprof(const struct export_stacks *s, FILE *out, const char *type, const char *unit);

/* Protobuf messages by hand, for pprof here and Perfetto in
 * tools/cmd_export.c: a buffer each; a nested message is built in its own
 * buffer and then added (export_pb_message empties it for reuse). Running
 * out of memory is remembered and reported by export_pb_write. */
struct export_pb { unsigned char *b; size_t n, cap; int oom; };
void export_pb_varint(struct export_pb *p, uint64_t v);
void export_pb_uint(struct export_pb *p, unsigned field, uint64_t v);
void export_pb_bytes(struct export_pb *p, unsigned field, const void *data, size_t n);
void export_pb_string(struct export_pb *p, unsigned field, const char *s);
void export_pb_message(struct export_pb *p, unsigned field, struct export_pb *m);
/* Write the buffer out and empty it: 0, or -1 (write error, no memory). */
int export_pb_write(struct export_pb *p, FILE *out);
void export_pb_free(struct export_pb *p);
#endif
