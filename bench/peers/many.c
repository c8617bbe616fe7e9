/* many.c - workload 1: disabled cost with many distinct sites.
 *
 * Every variant is a generated TU of PEERS_SITES functions (gen_sites.py),
 * all linked into this one process so that every variant is measured in the
 * same run, interleaved sample by sample (the variant order rotates every
 * repetition so that none always runs after the same neighbour).
 *
 *   random: one pass calls all PEERS_SITES functions of a variant in a fixed
 *           pseudo-random permutation through its function-pointer table, so
 *           the code of one pass (64-200 KiB) overflows L1i and the branch
 *           predictors the way a large program does. Sample = one pass.
 *   tight:  one function of the variant called PEERS_TIGHT times in a loop
 *           (everything hot). Sample = one block.
 * Each call feeds the next (acc = f(acc)). Reported per call, in TSC ticks,
 * with a ratio against the probe-free TU built by the same compiler.
 * The *_coldbody variants call a cold function on the enabled path, which
 * lets gcc move that path out of the hot function (see gen_sites.py).
 */
#include "peers.h"

#ifndef PEERS_SITES
#define PEERS_SITES 4096
#endif
#define PEERS_TIGHT 1024

typedef int (*peers_fn)(int);

/* tag, display name, compiler, baseline tag */
#define PEERS_VARIANTS(X)                                      \
    X(n, "none", "gcc", n)                                     \
    X(fl, "flag", "gcc", n)                                    \
    X(flc, "flag_coldbody", "gcc", n)                          \
    X(us, "usdt", "gcc", n)                                    \
    X(uss, "usdt_sem", "gcc", n)                               \
    X(t5, "ep_trace_nop5", "gcc", n)                           \
    X(b5, "ep_branch_nop5", "gcc", n)                          \
    X(t8, "ep_trace_nop8", "gcc", n)                           \
    X(b8, "ep_branch_nop8", "gcc", n)                          \
    X(b5c, "ep_branch_nop5_coldbody", "gcc", n)                \
    X(nc, "none_clang", "clang", nc)                           \
    X(xr, "xray", "clang", nc)                                 \
    X(cb5, "ep_branch_nop5_clang", "clang", nc)

#define PEERS_DECL(tag, name, cc, base) extern peers_fn const tag##_tab[PEERS_SITES];
PEERS_VARIANTS(PEERS_DECL)

enum {
#define PEERS_ENUM(tag, name, cc, base) V_##tag,
    PEERS_VARIANTS(PEERS_ENUM) NV
};
static peers_fn const *const tabs[NV] = {
#define PEERS_TAB(tag, name, cc, base) tag##_tab,
    PEERS_VARIANTS(PEERS_TAB)};
static const char *const names[NV] = {
#define PEERS_NAME(tag, name, cc, base) name,
    PEERS_VARIANTS(PEERS_NAME)};
static const char *const compilers[NV] = {
#define PEERS_CC(tag, name, cc, base) cc,
    PEERS_VARIANTS(PEERS_CC)};
static const int bases[NV] = {
#define PEERS_BASE(tag, name, cc, base) V_##base,
    PEERS_VARIANTS(PEERS_BASE)};

volatile int peers_sink;
__attribute__((noinline)) void peers_hit(const void *tp, int x) {
    (void)tp;
    peers_sink += x;
}
__attribute__((noinline, cold)) void peers_hit_cold(const void *tp, int x) {
    (void)tp;
    peers_sink += x;
}

static uint32_t perm[PEERS_SITES];

static __attribute__((noinline)) int pass_random(peers_fn const *tab, int acc) {
    int j;
    for (j = 0; j < PEERS_SITES; j++) acc = tab[perm[j]](acc);
    return acc;
}
static __attribute__((noinline)) int pass_tight(peers_fn f, int acc) {
    int j;
    for (j = 0; j < PEERS_TIGHT; j++) acc = f(acc);
    return acc;
}

/* the flag-test variant with the same kind of enabled path, for the paired
 * "edgeprobe below the flag test" comparison */
static int flag_of(int v) { return v == V_b5c || v == V_flc ? V_flc : V_fl; }

static void report(const char *workload, double **s, size_t reps, double per) {
    int v;
    double *ratio = peers_xcalloc(reps, sizeof *ratio);
    double med[NV], vs_flag[NV];
    peers_stats st[NV];
    /* paired ratios first (summarize sorts in place) */
    for (v = 0; v < NV; v++) {
        size_t i;
        for (i = 0; i < reps; i++) ratio[i] = s[v][i] / s[bases[v]][i];
        peers_stats r = peers_summarize(ratio, reps);
        med[v] = r.median;
        for (i = 0; i < reps; i++) ratio[i] = s[v][i] / s[flag_of(v)][i];
        vs_flag[v] = peers_summarize(ratio, reps).median;
    }
    for (v = 0; v < NV; v++) {
        size_t i;
        for (i = 0; i < reps; i++) s[v][i] /= per;
        st[v] = peers_summarize(s[v], reps);
    }
    for (v = 0; v < NV; v++) {
        char extra[400];
        uintptr_t lo = (uintptr_t)-1, hi = 0;
        int i;
        for (i = 0; i < PEERS_SITES; i++) {
            uintptr_t a = (uintptr_t)tabs[v][i];
            if (a < lo) lo = a;
            if (a > hi) hi = a;
        }
        snprintf(extra, sizeof extra,
                 "\"workload\":\"%s\",\"compiler\":\"%s\",\"baseline\":\"%s\","
                 "\"ratio\":%.4f,\"ratio_paired\":%.4f,\"p90_ratio\":%.4f,\"bytes_per_fn\":%.1f,"
                 "\"flag\":\"%s\",\"vs_flag_paired\":%.4f",
                 workload, compilers[v], names[bases[v]], st[v].median / st[bases[v]].median, med[v],
                 st[v].p90 / st[bases[v]].p90, (double)(hi - lo) / (PEERS_SITES - 1), names[flag_of(v)],
                 vs_flag[v]);
        peers_emit("many", names[v], &st[v], extra);
    }
    free(ratio);
}

int main(void) {
    size_t reps = (size_t)peers_env_long("PEERS_MANY_REPS", 10000);
    size_t treps = (size_t)peers_env_long("PEERS_TIGHT_REPS", 20000);
    double *rs[NV], *ts[NV];
    uint64_t x = 0x9e3779b97f4a7c15ull;
    size_t r;
    int v, i, acc = 1;

    for (i = 0; i < PEERS_SITES; i++) perm[i] = (uint32_t)i;
    for (i = PEERS_SITES - 1; i > 0; i--) { /* Fisher-Yates, xorshift64 */
        uint32_t j, t;
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        j = (uint32_t)(x % (uint64_t)(i + 1));
        t = perm[i], perm[i] = perm[j], perm[j] = t;
    }
    for (v = 0; v < NV; v++) {
        rs[v] = peers_xcalloc(reps, sizeof(double));
        ts[v] = peers_xcalloc(treps, sizeof(double));
    }
    for (r = 0; r < 20; r++) /* warm up: page in every variant */
        for (v = 0; v < NV; v++) acc = pass_random(tabs[v], acc);

    for (r = 0; r < reps; r++)
        for (i = 0; i < NV; i++) {
            uint64_t t0, t1;
            v = (int)((r + (size_t)i) % NV);
            t0 = peers_tsc();
            acc = pass_random(tabs[v], acc);
            t1 = peers_tsc();
            rs[v][r] = (double)(t1 - t0);
        }
    for (r = 0; r < treps; r++)
        for (i = 0; i < NV; i++) {
            uint64_t t0, t1;
            v = (int)((r + (size_t)i) % NV);
            peers_fn f = tabs[v][perm[0]];
            t0 = peers_tsc();
            acc = pass_tight(f, acc);
            t1 = peers_tsc();
            ts[v][r] = (double)(t1 - t0);
        }
    report("random", rs, reps, PEERS_SITES);
    report("tight", ts, treps, PEERS_TIGHT);
    fprintf(stderr, "many: acc=%d sink=%d\n", acc, peers_sink);
    return 0;
}
