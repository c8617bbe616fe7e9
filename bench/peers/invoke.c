/* invoke.c - workload 2: enabled invocation cost with an empty handler.
 *
 * Every sample times one block of PEERS_BLOCK loop iterations; each
 * iteration does one of:
 *   loop_none          nothing (loop overhead; gcc)
 *   direct             a direct call of the empty handler (noipa; gcc)
 *   ep_handler         EDGEPROBE_HANDLER site, edgeprobe_attach'ed to the same
 *                      empty handler (off in phase "off", on in phase "on")
 *   ep_branch_call     if (EDGEPROBE_BRANCH(..)) direct call of the handler:
 *                      the jmp alone, without the handler dispatch
 *   xray_*             (clang, invoke_xray.c) a call of an XRay-instrumented
 *                      empty function, unpatched ("off") or patched with an
 *                      empty handler ("on"); "entry" = entry sled only
 *                      (-fxray-instrumentation-bundle=function-entry), one
 *                      handler call per invocation like edgeprobe; "full" =
 *                      entry + exit sleds (the default), two handler calls
 *   xray_direct        (clang) direct call of an uninstrumented empty function
 *   direct_2atomics    diagnostic: the direct call between two locked RMWs,
 *                      what edgeprobe's dispatch adds around the handler
 * Phase "off": no probe enabled; phase "on": all enabled. Within a phase the
 * variants are interleaved sample by sample.
 */
#include "peers.h"
#define EDGEPROBE_IMPLEMENTATION /* this program's one copy of the implementation */
#include "edgeprobe.h"

#define PEERS_BLOCK 256

/* invoke_xray.c (clang) */
void xr_loop_none(void);
void xr_loop_direct(void);
void xr_loop_full(void);
void xr_loop_entry(void);
void xr_target_full(uintptr_t);
void xr_target_entry(uintptr_t);
int xr_setup(int on, void *full, void *entry);

__attribute__((noipa)) void peers_empty(const edgeprobe_info *probe, void *user, uintptr_t value) {
    (void)probe, (void)user, (void)value;
}

static __attribute__((noinline)) void loop_none(void) {
    uintptr_t i;
    for (i = 0; i < PEERS_BLOCK; i++) __asm__ volatile("" ::"r"(i));
}
static __attribute__((noinline)) void loop_direct(void) {
    uintptr_t i;
    for (i = 0; i < PEERS_BLOCK; i++) peers_empty(0, 0, i);
}
static __attribute__((noinline)) void loop_ep(void) {
    uintptr_t i;
    for (i = 0; i < PEERS_BLOCK; i++) EDGEPROBE_HANDLER(inv_hot, i);
}
static __attribute__((noinline)) void loop_ep_branch(void) {
    uintptr_t i;
    for (i = 0; i < PEERS_BLOCK; i++)
        if (EDGEPROBE_BRANCH(inv_branch)) peers_empty(0, 0, i);
}

/* Diagnostic: a direct call between the two locked read-modify-writes that
 * edgeprobe's handler dispatch performs (enter/leave counters for
 * edgeprobe_handler_sync), to show where the enabled cost goes. */
static volatile unsigned long peers_counter;
static __attribute__((noinline)) void loop_direct_2atomics(void) {
    uintptr_t i;
    for (i = 0; i < PEERS_BLOCK; i++) {
        __atomic_fetch_add(&peers_counter, 1, __ATOMIC_SEQ_CST);
        peers_empty(0, 0, i);
        __atomic_fetch_sub(&peers_counter, 1, __ATOMIC_RELEASE);
    }
}

typedef void (*loop_fn)(void);
#define NV 9
static const loop_fn loops[NV] = {loop_none, loop_direct, loop_ep, loop_ep_branch, loop_direct_2atomics,
                                  xr_loop_none, xr_loop_direct, xr_loop_entry, xr_loop_full};
static const char *const names[NV] = {"loop_none", "direct", "ep_handler", "ep_branch_call", "direct_2atomics",
                                      "xray_loop_none", "xray_direct", "xray_entry", "xray_full"};
/* baseline of each variant: the direct call compiled by the same compiler */
static const int base[NV] = {1, 1, 1, 1, 1, 6, 6, 6, 6};
static const int none_of[NV] = {0, 0, 0, 0, 0, 5, 5, 5, 5};

static void phase(const char *label, size_t reps) {
    double *s[NV], med[NV];
    peers_stats st[NV];
    size_t r;
    int v, i;
    for (v = 0; v < NV; v++) s[v] = peers_xcalloc(reps, sizeof(double));
    for (r = 0; r < 200; r++)
        for (v = 0; v < NV; v++) loops[v]();
    for (r = 0; r < reps; r++)
        for (i = 0; i < NV; i++) {
            uint64_t t0, t1;
            v = (int)((r + (size_t)i) % NV);
            t0 = peers_tsc();
            loops[v]();
            t1 = peers_tsc();
            s[v][r] = (double)(t1 - t0) / PEERS_BLOCK;
        }
    for (v = 0; v < NV; v++) {
        st[v] = peers_summarize(s[v], reps);
        med[v] = st[v].median;
    }
    for (v = 0; v < NV; v++) {
        char extra[300];
        double net = med[v] - med[none_of[v]], netb = med[base[v]] - med[none_of[v]];
        snprintf(extra, sizeof extra,
                 "\"phase\":\"%s\",\"baseline\":\"%s\",\"ratio\":%.4f,\"net\":%.3f,\"net_ratio\":%.4f",
                 label, names[base[v]], med[v] / med[base[v]], net, netb > 0 ? net / netb : 0.0);
        peers_emit("invoke", names[v], &st[v], extra);
    }
    for (v = 0; v < NV; v++) free(s[v]);
}

int main(void) {
    size_t reps = (size_t)peers_env_long("PEERS_INVOKE_REPS", 20000);
    int rc;
    phase("off", reps);
    rc = edgeprobe_attach("inv_hot", peers_empty, 0);
    if (rc != 1) fprintf(stderr, "invoke: edgeprobe_attach: %d %s\n", rc, edgeprobe_strerror(rc));
    rc = edgeprobe_enable("inv_branch");
    if (rc != 1) fprintf(stderr, "invoke: edgeprobe_enable: %d %s\n", rc, edgeprobe_strerror(rc));
    rc = xr_setup(1, (void *)xr_target_full, (void *)xr_target_entry);
    if (rc) fprintf(stderr, "invoke: xray setup failed (%d)\n", rc);
    phase("on", reps);
    return 0;
}
