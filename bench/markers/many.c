/* many.c (markers) - disabled cost with many distinct sites: EDGEPROBE_PROBE
 * beside no probes, USDT, EDGEPROBE_TRACE and LTTng-UST, in one process.
 *
 * Every variant is a generated TU of PEERS_SITES functions
 * (bench/peers/gen_sites.py), `int fI(int x) { <probe>; return x*K+C; }`.
 * One sample = one pass calling all functions of a variant in a fixed
 * pseudo-random permutation (the pass overflows L1i and the predictors, as
 * in a large program); variants are interleaved sample by sample, in an
 * order that rotates. Each call feeds the next. Per call, TSC ticks; ratio =
 * median of the per-sample ratios against the probe-free variant measured
 * right next to it (built by the same compiler). Every probe is disabled
 * (LTTng: no session). */
#include "../peers/peers.h"

#ifndef PEERS_SITES
#define PEERS_SITES 4096
#endif
typedef int (*fn_t)(int);
/* tag, name, the probe-free variant built by the same compiler (its
 * baseline). gcc builds every variant; clang the ones whose code it shapes
 * differently (argument constraints). */
#define VARIANTS(X)                                                            \
    X(mn, "none", mn)                                                          \
    X(mn5, "nop5_only", mn)                                                    \
    X(mus, "usdt", mn)                                                         \
    X(mp5, "ep_probe_nop5", mn)                                                \
    X(mp8, "ep_probe_nop8", mn)                                                \
    X(mt5, "ep_trace_nop5", mn)                                                \
    X(mtl, "ep_trace_lazy", mn)                                                \
    X(mlt, "lttng_ust", mn)                                                    \
    X(cn, "clang_none", cn)                                                    \
    X(cp5, "clang_ep_probe", cn)                                               \
    X(ct5, "clang_ep_trace", cn)                                               \
    X(ctl, "clang_ep_trace_lazy", cn)                                          \
    X(dn, "mid_none", dn)                                                      \
    X(dn5, "mid_nop5_only", dn)                                                \
    X(dus, "mid_usdt", dn)                                                     \
    X(dt5, "mid_ep_trace", dn)                                                 \
    X(dtl, "mid_ep_trace_lazy", dn)
#define DECL(tag, name, base) extern fn_t const tag##_tab[PEERS_SITES];
VARIANTS(DECL)
enum {
#define ENUM(tag, name, base) V_##tag,
    VARIANTS(ENUM) NV
};
static fn_t const *const tabs[NV] = {
#define TAB(tag, name, base) tag##_tab,
    VARIANTS(TAB)};
static const char *const names[NV] = {
#define NAME(tag, name, base) name,
    VARIANTS(NAME)};
static const int baseline[NV] = {
#define BASE(tag, name, base) V_##base,
    VARIANTS(BASE)};
/* The bare NOP5 of the same shape: the floor of any trap-free site. */
static int floor_of(int v) {
    if (baseline[v] == v) return -1; /* a baseline: its samples are rescaled last */
    return baseline[v] == V_mn ? V_mn5 : baseline[v] == V_dn ? V_dn5 : -1;
}

volatile int peers_sink;
__attribute__((noinline)) void peers_hit(const void *tp, int x) { (void)tp, peers_sink += x; }
__attribute__((noinline, cold)) void peers_hit_cold(const void *tp, int x) { (void)tp, peers_sink += x; }

static uint32_t perm[PEERS_SITES];
static __attribute__((noinline)) int pass(fn_t const *tab, int acc) {
    int j;
    for (j = 0; j < PEERS_SITES; j++) acc = tab[perm[j]](acc);
    return acc;
}

int main(void) {
    size_t reps = (size_t)peers_env_long("MARKERS_MANY_REPS", 10000), r;
    double *s[NV], *ratio = peers_xcalloc(reps, sizeof(double));
    uint64_t x = 0x9e3779b97f4a7c15ull;
    int v, i, acc = 1;
    for (i = 0; i < PEERS_SITES; i++) perm[i] = (uint32_t)i;
    for (i = PEERS_SITES - 1; i > 0; i--) {
        uint32_t j, t;
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        j = (uint32_t)(x % (uint64_t)(i + 1));
        t = perm[i], perm[i] = perm[j], perm[j] = t;
    }
    for (v = 0; v < NV; v++) s[v] = peers_xcalloc(reps, sizeof(double));
    for (r = 0; r < 20; r++)
        for (v = 0; v < NV; v++) acc = pass(tabs[v], acc);
    for (r = 0; r < reps; r++)
        for (i = 0; i < NV; i++) {
            uint64_t t0, t1;
            v = (int)((i + r) % NV);
            t0 = peers_tsc();
            acc = pass(tabs[v], acc);
            t1 = peers_tsc();
            s[v][r] = (double)(t1 - t0);
        }
    peers_sink += acc;
    for (v = NV - 1; v >= 0; v--) { /* baselines come first in their group: rescaled last */
        peers_stats st, rs, fl;
        char extra[200];
        uintptr_t lo = (uintptr_t)-1, hi = 0;
        if (floor_of(v) >= 0) {
            for (r = 0; r < reps; r++) ratio[r] = s[v][r] / s[floor_of(v)][r];
            fl = peers_summarize(ratio, reps);
        }
        for (r = 0; r < reps; r++) ratio[r] = s[v][r] / s[baseline[v]][r];
        rs = peers_summarize(ratio, reps);
        for (r = 0; r < reps; r++) s[v][r] /= PEERS_SITES;
        st = peers_summarize(s[v], reps);
        for (i = 0; i < PEERS_SITES; i++) {
            uintptr_t a = (uintptr_t)tabs[v][i];
            lo = a < lo ? a : lo;
            hi = a > hi ? a : hi;
        }
        snprintf(extra, sizeof extra,
                 "\"ratio_paired\":%.4f,\"ratio_min\":%.4f,\"ratio_p90\":%.4f,\"bytes_per_fn\":%.1f,"
                 "\"ratio_to_nop5\":%.4f",
                 rs.median, rs.min, rs.p90, (double)(hi - lo) / (PEERS_SITES - 1), floor_of(v) >= 0 ? fl.median : 0.0);
        peers_emit("markers_many", names[v], &st, extra);
    }
    return 0;
}
