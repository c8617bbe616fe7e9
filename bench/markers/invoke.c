/* invoke.c (markers) - enabled cost per hit, against a direct call with the
 * same arguments, in one process, interleaved sample by sample:
 *   none          the loop alone
 *   direct_args   a direct call of an empty function taking (i, i*3)
 *   ep_probe      EDGEPROBE_PROBE(inv_probe, i, i*3) with an empty args handler
 *   direct_handler a direct call of an empty edgeprobe_handler_fn (0, 0, i)
 *   ep_handler    EDGEPROBE_HANDLER(inv_handler, i) with that empty handler
 *   ep_handler_inline  the same, compiled with EDGEPROBE_HANDLER_INLINE=1
 *                 (invoke_inline.c)
 *   lttng_ust     lttng_ust_tracepoint(ep_bench, hit, i): its cost with the
 *                 session the driver set up (enabled) or none (disabled)
 *   direct_format a direct call of the sink below with TRACE's format and
 *                 arguments (vsnprintf into a buffer, as a logging sink does)
 *   ep_trace      EDGEPROBE_TRACE(inv_trace, "...", i, i*3, d): the argument
 *                 form, formatted conversion by conversion, then the sink
 *   ep_trace_lazy EDGEPROBE_TRACE_LAZY(...): the sink called in place
 * Phase "off": no handler attached; phase "on": both attached. One sample
 * times a block of BLOCK iterations; ticks per iteration. */
#include <stdarg.h>
#include "../peers/peers.h"
/* TRACE's sink: the line lands in memory (no system call to measure). */
static char inv_line[256];
static __attribute__((format(printf, 1, 2))) int inv_sink(const char *fmt, ...) {
    va_list ap;
    int n;
    va_start(ap, fmt);
    n = vsnprintf(inv_line, sizeof inv_line, fmt, ap);
    va_end(ap);
    return n;
}
#define EDGEPROBE_SINK(...) inv_sink(__VA_ARGS__)
#define EDGEPROBE_IMPLEMENTATION /* this program's one copy of the implementation */
#include "edgeprobe.h"
#include "lttng_tp.h"

#define BLOCK 256
__attribute__((noipa)) void empty_args(uintptr_t a, uintptr_t b) { (void)a, (void)b; }
__attribute__((noipa)) void empty_handler(const edgeprobe_info *p, void *u, uintptr_t v) { (void)p, (void)u, (void)v; }
__attribute__((noipa)) void empty_args_handler(const edgeprobe_info *p, void *u, const uint64_t *a, int n) {
    (void)p, (void)u, (void)a, (void)n;
}
static __attribute__((noinline)) void loop_none(void) {
    uintptr_t i;
    for (i = 0; i < BLOCK; i++) __asm__ volatile("" ::"r"(i));
}
static __attribute__((noinline)) void loop_direct_args(void) {
    uintptr_t i;
    for (i = 0; i < BLOCK; i++) empty_args(i, i * 3);
}
static __attribute__((noinline)) void loop_probe(void) {
    uintptr_t i;
    for (i = 0; i < BLOCK; i++) EDGEPROBE_PROBE(inv_probe, i, i * 3);
}
static __attribute__((noinline)) void loop_direct_handler(void) {
    uintptr_t i;
    for (i = 0; i < BLOCK; i++) empty_handler(0, 0, i);
}
static __attribute__((noinline)) void loop_handler(void) {
    uintptr_t i;
    for (i = 0; i < BLOCK; i++) EDGEPROBE_HANDLER(inv_handler, i);
}
void loop_handler_inline(void); /* invoke_inline.c */
static __attribute__((noinline)) void loop_direct_format(void) {
    uintptr_t i;
    for (i = 0; i < BLOCK; i++) inv_sink("req %lu len %lu t %.2f\n", (unsigned long)i, (unsigned long)i * 3, 0.5 * (double)i);
}
static __attribute__((noinline)) void loop_trace(void) {
    uintptr_t i;
    for (i = 0; i < BLOCK; i++)
        EDGEPROBE_TRACE(inv_trace, "req %lu len %lu t %.2f\n", (unsigned long)i, (unsigned long)i * 3, 0.5 * (double)i);
}
static __attribute__((noinline)) void loop_trace_lazy(void) {
    uintptr_t i;
    for (i = 0; i < BLOCK; i++)
        EDGEPROBE_TRACE_LAZY(inv_trace_lazy, "req %lu len %lu t %.2f\n", (unsigned long)i, (unsigned long)i * 3,
                             0.5 * (double)i);
}
static __attribute__((noinline)) void loop_lttng(void) {
    int i;
    for (i = 0; i < BLOCK; i++) lttng_ust_tracepoint(ep_bench, hit, i);
}
#define LOOPS(X)                                                               \
    X(loop_none, "none")                                                       \
    X(loop_direct_args, "direct_args")                                         \
    X(loop_probe, "ep_probe")                                                  \
    X(loop_direct_handler, "direct_handler")                                   \
    X(loop_handler, "ep_handler")                                              \
    X(loop_handler_inline, "ep_handler_inline")                                \
    X(loop_lttng, "lttng_ust")                                                 \
    X(loop_direct_format, "direct_format")                                     \
    X(loop_trace, "ep_trace")                                                  \
    X(loop_trace_lazy, "ep_trace_lazy")
static void (*const loops[])(void) = {
#define FN(f, n) f,
    LOOPS(FN)};
static const char *const names[] = {
#define NM(f, n) n,
    LOOPS(NM)};
#define NL ((int)(sizeof loops / sizeof loops[0]))

static void phase(const char *label, size_t reps) {
    char bench[96];
    snprintf(bench, sizeof bench, "markers_invoke_%s", label);
    peers_interleaved(bench, loops, names, NL, reps, BLOCK);
}
int main(void) {
    size_t reps = (size_t)peers_env_long("MARKERS_INVOKE_REPS", 20000);
    const char *lt = getenv("MARKERS_LTTNG_LABEL");
    peers_pin((int)peers_env_long("PEERS_CPU", 1));
    phase("off", reps);
    if (edgeprobe_attach_args("inv_probe", empty_args_handler, NULL) != 1 ||
        edgeprobe_attach("inv_handler", empty_handler, NULL) != 1 ||
        edgeprobe_attach("inv_handler_inline", empty_handler, NULL) != 1 ||
        edgeprobe_enable("inv_trace") != 1 || edgeprobe_enable("inv_trace_lazy") != 1) {
        fprintf(stderr, "invoke: attach failed\n");
        return 1;
    }
    phase(lt && *lt ? lt : "on", reps);
    return 0;
}
