/* record_cost.c - what one recorded event costs, against its peers, in one
 * process, interleaved sample by sample (ticks per iteration, medians):
 *   none            the loop alone
 *   rdtsc           one rdtsc (the floor of any timestamped event)
 *   ep_probe_rec    EDGEPROBE_PROBE(rec_probe, i, i*3), recorded to the ring
 *   ep_trace_rec    EDGEPROBE_TRACE(rec_trace, fmt, i, i*3), recorded (the
 *                   format is applied offline)
 *   ep_trace_text   EDGEPROBE_TRACE(txt_trace, fmt, i, i*3) formatted to a
 *                   sink that keeps the line in memory (TRACE's text path)
 *   lttng_ust       lttng_ust_tracepoint(ep_rec, hit, i, i*3): two 64-bit
 *                   fields; recorded when the driver runs a session
 *                   (label on_lttng), else the disabled tracepoint
 *   call_plain      a call of a patchable function, its probe off
 *   call_rec        its twin, recorded at entry and exit
 * The recorder thread drains the rings to a file on tmpfs meanwhile; the
 * lost-event count is printed (a ring too small for a block drops events,
 * which would make recording look cheap: it must be 0). */
#include <stdarg.h>
#include "../peers/peers.h"
static char rec_line[256];
static __attribute__((format(printf, 1, 2))) int rec_sink(const char *fmt, ...) {
    va_list ap;
    int n;
    va_start(ap, fmt);
    n = vsnprintf(rec_line, sizeof rec_line, fmt, ap);
    va_end(ap);
    return n;
}
#define EDGEPROBE_SINK(...) rec_sink(__VA_ARGS__)
#define EDGEPROBE_IMPLEMENTATION
#include "edgeprobe.h"
#ifdef RECORD_LTTNG
#include "lttng_tp.h"
#endif

#define BLOCK 256
__attribute__((noipa, patchable_function_entry(5, 0))) uintptr_t rec_callee(uintptr_t a, uintptr_t b) {
    return a + b;
}
__attribute__((noipa, patchable_function_entry(5, 0))) uintptr_t plain_callee(uintptr_t a, uintptr_t b) {
    return a + b;
}
static __attribute__((noinline)) void loop_none(void) {
    uintptr_t i;
    for (i = 0; i < BLOCK; i++) __asm__ volatile("" ::"r"(i));
}
static __attribute__((noinline)) void loop_rdtsc(void) {
    uintptr_t i;
    for (i = 0; i < BLOCK; i++) {
        uint32_t lo, hi;
        __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    }
}
static __attribute__((noinline)) void loop_probe(void) {
    uintptr_t i;
    for (i = 0; i < BLOCK; i++) EDGEPROBE_PROBE(rec_probe, i, i * 3);
}
static __attribute__((noinline)) void loop_trace_rec(void) {
    uintptr_t i;
    for (i = 0; i < BLOCK; i++) EDGEPROBE_TRACE(rec_trace, "req %lu len %lu\n", (unsigned long)i, (unsigned long)i * 3);
}
static __attribute__((noinline)) void loop_trace_text(void) {
    uintptr_t i;
    for (i = 0; i < BLOCK; i++) EDGEPROBE_TRACE(txt_trace, "req %lu len %lu\n", (unsigned long)i, (unsigned long)i * 3);
}
static __attribute__((noinline)) void loop_lttng(void) {
#ifdef RECORD_LTTNG
    uint64_t i;
    for (i = 0; i < BLOCK; i++) lttng_ust_tracepoint(ep_rec, hit, i, i * 3);
#endif
}
static __attribute__((noinline)) void loop_call_plain(void) {
    uintptr_t i;
    for (i = 0; i < BLOCK; i++) __asm__ volatile("" ::"r"(plain_callee(i, i * 3)));
}
static __attribute__((noinline)) void loop_call_rec(void) {
    uintptr_t i;
    for (i = 0; i < BLOCK; i++) __asm__ volatile("" ::"r"(rec_callee(i, i * 3)));
}
#define LOOPS(X)                                                               \
    X(loop_none, "none")                                                       \
    X(loop_rdtsc, "rdtsc")                                                     \
    X(loop_probe, "ep_probe_rec")                                              \
    X(loop_trace_rec, "ep_trace_rec")                                          \
    X(loop_trace_text, "ep_trace_text")                                        \
    X(loop_lttng, "lttng_ust")                                                 \
    X(loop_call_plain, "call_plain")                                          \
    X(loop_call_rec, "call_rec")
static void (*const loops[])(void) = {
#define FN(f, n) f,
    LOOPS(FN)};
static const char *const names[] = {
#define NM(f, n) n,
    LOOPS(NM)};
#define NL ((int)(sizeof loops / sizeof loops[0]))

static void phase(const char *label, size_t reps) {
    char bench[96];
    snprintf(bench, sizeof bench, "record_cost_%s", label);
    peers_interleaved(bench, loops, names, NL, reps, BLOCK);
}
int main(int argc, char **argv) {
    size_t reps = (size_t)peers_env_long("RECORD_COST_REPS", 20000);
    const char *lt = getenv("RECORD_LTTNG_LABEL");
    const char *out = argc > 1 ? argv[1] : "/dev/shm/record_cost.trace";
    edgeprobe_record_options opt = {(size_t)1 << 24, 0, 0, 0};
    char label[64];
    int funcs;
    peers_pin((int)peers_env_long("PEERS_CPU", 1));
    if (edgeprobe_record_start(out, &opt) < 0 || edgeprobe_record_enable("rec_*") != 2 ||
        edgeprobe_enable("txt_trace") != 1) {
        fprintf(stderr, "record_cost: cannot record\n");
        return 1;
    }
    funcs = edgeprobe_record_funcs("rec_callee");
    snprintf(label, sizeof label, "%s%s", lt && *lt ? lt : "on", funcs == 1 ? "" : "_nofunc");
    phase(label, reps);
    if (edgeprobe_record_stop() < 0) return 1;
    fprintf(stderr, "record_cost: %llu events lost\n", (unsigned long long)edgeprobe_record_lost());
    return 0;
}
