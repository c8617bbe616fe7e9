/* scale.c - workload 4: executor throughput through one hot probe while
 * another thread toggles it (paper Figs. 12-14).
 *
 * One executor thread (this VM has 2 cores: all but one) calls the hot
 * function through a pointer in a tight loop and counts calls; the main
 * thread, on the other core, toggles the hot probe at a fixed rate (1 Hz ..
 * 1 MHz, decades, alternating on/off, evenly spaced, spinning on the TSC in
 * between; a missed deadline is skipped, never made up in a burst).
 *
 * Mechanisms (the hot function's probe):
 *   ep          if (EDGEPROBE_BRANCH(..)) hits++; edgeprobe_probe_on/off
 *   ep_strict   the same, with edgeprobe_set_wx_strict(1)
 *   flag        if (unlikely(tp.state)) hits++; a release store
 *   xray        an XRay-instrumented function with a counting handler;
 *               __xray_patch_function/__xray_unpatch_function
 *
 * Each repetition runs three windows back to back, all with the toggler
 * following the same schedule: probe off (dry: no toggle), toggled, probe on
 * (dry). The executor times blocks of 256 calls and drops blocks longer than
 * PEERS_BLOCK_DROP ticks (it was preempted). The ratio of a repetition is
 * the calls the executor made in the toggled window over the calls it would
 * have made at the untoggled rates, given the time it spent with the probe
 * on and off:  toggled / (d * on + (1 - d) * off)  with d the share of time
 * the probe was on (about 1/2; the weighting matters for XRay, whose enabled
 * handler is far slower than its sled). The result is the median over
 * repetitions, with its interquartile range.
 *
 * Shared machine: the toggler competes with other jobs for its CPU and is
 * descheduled for whole time slices. For rates with at least 4 toggles per
 * window, every window (toggled or dry) is therefore measured over its
 * *active stretches* only: the spans between consecutive toggles (or dry
 * ticks) at most 1.5 periods apart, where the executor really ran against
 * the requested rate. The achieved rate over the whole window and the share
 * of blocks that were active are reported with it. A mechanism too slow for
 * the rate has no active stretch and is measured over the whole window.
 */
#include "peers.h"
#define EDGEPROBE_IMPLEMENTATION /* this program's one copy of the implementation */
#include "edgeprobe.h"
#include "xray_c.h"

#include <pthread.h>

void xr_hot(void);
int32_t xr_scale_setup(void);

static volatile unsigned long hits;
static struct { const char *name; int state, pad; void *probes; } flag_tp = {"scale_flag", 0, 0, 0};

__attribute__((noinline)) void hot_ep(void) {
    if (EDGEPROBE_BRANCH(scale_hot)) hits++;
}
__attribute__((noinline)) void hot_ep_strict(void) {
    if (EDGEPROBE_BRANCH(scale_hot_strict)) hits++;
}
__attribute__((noinline)) void hot_flag(void) {
    if (__builtin_expect(flag_tp.state, 0)) hits++;
}

enum { M_EP, M_STRICT, M_FLAG, M_XRAY, NM };
static const char *const mnames[NM] = {"ep", "ep_strict", "flag", "xray"};
static void (*const hot[NM])(void) = {hot_ep, hot_ep_strict, hot_flag, xr_hot};
static edgeprobe_probe *p_ep, *p_strict;
static int32_t xray_id;

static int set_state(int m, int on) {
    int rc = 0;
    switch (m) {
    case M_EP: rc = on ? edgeprobe_probe_on(p_ep) : edgeprobe_probe_off(p_ep); return rc < 0 ? rc : 0;
    case M_STRICT: rc = on ? edgeprobe_probe_on(p_strict) : edgeprobe_probe_off(p_strict); return rc < 0 ? rc : 0;
    case M_FLAG: __atomic_store_n(&flag_tp.state, on, __ATOMIC_RELEASE); return 0;
    case M_XRAY:
        rc = on ? __xray_patch_function(xray_id) : __xray_unpatch_function(xray_id);
        return rc == PEERS_XRAY_SUCCESS ? 0 : -1;
    }
    return -1;
}

/* Busy wait without `pause`: under a hypervisor a pause loop can trigger
 * pause-loop exiting, which deschedules the vCPU for far longer than the
 * wait itself. Both threads own a core, so plain spinning costs nothing. */
static inline void spin(void) { __asm__ volatile("" ::: "memory"); }

/* executor <-> toggler handshake */
static volatile int cmd, started, done, stop_flag, quit, record;
static void (*volatile cur_fn)(void);
static volatile double res_calls, res_ticks;
static volatile unsigned long res_dropped;
static int exec_cpu = 1, tog_cpu = 0;
static uint64_t block_drop = 500000;

/* Per-block records of the executor and toggle times of the toggler, kept
 * for fast toggled windows (see window()). */
#define PEERS_BLOCKS (1u << 19)
#define PEERS_TOGGLES (1u << 16)
static uint64_t *blk_t0, *blk_d, *tog_t;
static volatile size_t blk_n;

static void *executor(void *arg) {
    int seen = 0;
    (void)arg;
    peers_pin(exec_cpu);
    for (;;) {
        void (*fn)(void);
        uint64_t ticks = 0, calls = 0, dropped = 0;
        size_t n = 0;
        int k, rec;
        while (__atomic_load_n(&cmd, __ATOMIC_ACQUIRE) == seen && !quit) spin();
        if (quit) return 0;
        seen = cmd;
        fn = cur_fn;
        rec = record;
        __atomic_store_n(&started, seen, __ATOMIC_RELEASE);
        while (!__atomic_load_n(&stop_flag, __ATOMIC_ACQUIRE)) {
            uint64_t t0 = peers_tsc(), d;
            for (k = 0; k < 256; k++) fn();
            d = peers_tsc() - t0;
            if (d < block_drop) ticks += d, calls += 256;
            else dropped++;
            if (rec && n < PEERS_BLOCKS) blk_t0[n] = t0, blk_d[n] = d, n++;
        }
        res_calls = (double)calls;
        res_ticks = (double)ticks;
        res_dropped = dropped;
        blk_n = n;
        __atomic_store_n(&done, seen, __ATOMIC_RELEASE);
    }
}

static double hz;
static int failures;
static unsigned long dropped_total, blocks_total;

typedef struct {
    double tput;      /* calls/s over every undropped block of the window      */
    double achieved;  /* toggles per second of window                          */
    double duty;      /* fraction of the window the probe was on               */
    double active;    /* calls/s over blocks inside "active" stretches (below)  */
    double eff_rate;  /* toggles per second inside the active stretches        */
    double active_frac; /* share of the window's blocks that were active        */
    double ticks_on, ticks_off; /* executor ticks inside active stretches, by the
                                 * probe's state there (toggled windows)       */
    double calls_act;          /* calls inside active stretches                */
} peers_window;

/* One window of `secs`: `rate` toggles per second (0: none), evenly spaced
 * from half a period in.
 *
 * The toggler shares its CPU with other jobs on this VM, so it is sometimes
 * descheduled and misses deadlines (it then skips them rather than toggling
 * in a burst). For fast rates the window therefore also reports the
 * executor's throughput over the *active* stretches only: spans between two
 * consecutive toggles no more than 1.5 periods apart, i.e. where the
 * executor really ran against the requested rate; the probe is on half of
 * that time. With `dry` set the toggler keeps the same schedule and records
 * the same timestamps but does not toggle: the untoggled reference windows
 * are filtered exactly like the toggled ones (when the toggler is
 * descheduled another job runs on its CPU, which changes the executor's
 * speed too). */
static peers_window window(int m, double rate, double secs, int dry) {
    peers_window res;
    uint64_t t0, end, period = 0, next = 0, now, on_since = 0, on_ticks = 0;
    unsigned long toggles = 0, expected = 0;
    int state = 0, c;
    memset(&res, 0, sizeof res);
    cur_fn = hot[m];
    stop_flag = 0;
    if (rate > 0) {
        period = (uint64_t)(hz / rate);
        expected = (unsigned long)(secs * rate + 0.5);
    }
    record = expected >= 4;
    c = __atomic_add_fetch(&cmd, 1, __ATOMIC_ACQ_REL);
    while (__atomic_load_n(&started, __ATOMIC_ACQUIRE) != c) spin();
    t0 = peers_tsc();
    end = t0 + (uint64_t)(secs * hz);
    next = t0 + period / 2;
    /* A missed deadline may leave a slow window without its toggle: the
     * window is stretched (up to 3x) until it has held its toggles. */
    while ((now = peers_tsc()) < end || (toggles < expected && now < end + 2 * (end - t0))) {
        if (rate > 0 && now >= next) {
            state ^= 1;
            if (!dry && set_state(m, state) && failures++ < 5)
                fprintf(stderr, "scale: toggle failed (%s)\n", mnames[m]);
            if (state) on_since = now;
            else on_ticks += now - on_since;
            if (toggles < PEERS_TOGGLES) tog_t[toggles] = now;
            toggles++;
            next += period;
            if (next < now) next = now + period; /* fell behind: skip, no burst */
        }
        /* no `pause` here: under a hypervisor a pause loop can trigger
         * pause-loop exiting and deschedule this vCPU */
    }
    __atomic_store_n(&stop_flag, 1, __ATOMIC_RELEASE);
    if (state) on_ticks += now - on_since;
    while (__atomic_load_n(&done, __ATOMIC_ACQUIRE) != c) spin();
    if (state && !dry) set_state(m, 0);
    res.achieved = (double)toggles / ((double)(now - t0) / hz);
    res.duty = (double)on_ticks / (double)(now - t0);
    res.tput = res_ticks > 0 ? res_calls / (res_ticks / hz) : 0;
    res.active = res.tput;
    res.eff_rate = res.achieved;
    res.active_frac = record ? 0 : 1; /* 0: no active stretch found */
    dropped_total += res_dropped;
    blocks_total += res_dropped + (unsigned long)(res_calls / 256);
    if (record && toggles >= 2 && toggles <= PEERS_TOGGLES && blk_n < PEERS_BLOCKS) {
        /* sweep blocks and toggle gaps together (both in time order) */
        size_t b = 0, i, n = blk_n, nact = 0, nall = 0;
        double calls = 0, ticks = 0, span = 0, tog_in = 0;
        for (i = 0; i + 1 < toggles; i++) {
            uint64_t lo = tog_t[i], hi = tog_t[i + 1];
            /* toggle i (from 0, starting off) leaves the probe on when i is even */
            double *state_ticks = (i % 2 == 0) ? &res.ticks_on : &res.ticks_off;
            if (hi - lo > period + period / 2) continue;
            span += (double)(hi - lo);
            tog_in += 1;
            while (b < n && blk_t0[b] < lo) b++;
            while (b < n && blk_t0[b] + blk_d[b] <= hi) {
                if (blk_d[b] < block_drop) {
                    calls += 256, ticks += (double)blk_d[b], nact++;
                    *state_ticks += (double)blk_d[b];
                }
                b++;
            }
        }
        for (i = 0; i < n; i++) nall += blk_d[i] < block_drop;
        if (ticks > 0 && span > 0) {
            res.calls_act = calls;
            res.active = calls / (ticks / hz);
            res.eff_rate = tog_in / (span / hz);
            res.active_frac = nall ? (double)nact / (double)nall : 0;
        }
    }
    return res;
}

#define PEERS_MAXREP 400
static double median(const double *v, int n) {
    double c[PEERS_MAXREP];
    memcpy(c, v, (size_t)n * sizeof *v);
    return peers_summarize(c, (size_t)n).median;
}

int main(void) {
    static const double rates[] = {1, 10, 100, 1e3, 1e4, 1e5, 1e6};
    const char *only = getenv("PEERS_SCALE_ONLY");
    const int nr = (int)(sizeof rates / sizeof rates[0]);
    double secs = (double)peers_env_long("PEERS_SCALE_US", 5000) / 1e6;
    double per_rate = (double)peers_env_long("PEERS_SCALE_MS_PER_RATE", 1200) / 1000.0;
    pthread_t th;
    int m, i, rc;

    exec_cpu = (int)peers_env_long("PEERS_EXEC_CPU", 1);
    tog_cpu = (int)peers_env_long("PEERS_TOGGLE_CPU", 0);
    block_drop = (uint64_t)peers_env_long("PEERS_BLOCK_DROP", 500000);

    peers_pin(tog_cpu);
    hz = peers_tsc_hz();
    if ((rc = edgeprobe_probe_find("scale_hot", &p_ep)) || (rc = edgeprobe_probe_find("scale_hot_strict", &p_strict))) {
        fprintf(stderr, "scale: probe_find: %s\n", edgeprobe_strerror(rc));
        return 1;
    }
    xray_id = xr_scale_setup();
    if (!xray_id) {
        fprintf(stderr, "scale: no XRay id for xr_hot\n");
        return 1;
    }
    blk_t0 = peers_xcalloc(PEERS_BLOCKS, sizeof *blk_t0);
    blk_d = peers_xcalloc(PEERS_BLOCKS, sizeof *blk_d);
    tog_t = peers_xcalloc(PEERS_TOGGLES, sizeof *tog_t);
    pthread_create(&th, 0, executor, 0);
    for (m = 0; m < NM; m++) {
        static double all_off[PEERS_MAXREP * 8];
        int n_all = 0;
        if (only && *only && !strstr(only, mnames[m])) continue;
        if (m == M_STRICT) edgeprobe_set_wx_strict(1);
        set_state(m, 1); /* first enable outside the windows (page opening) */
        set_state(m, 0);
        for (i = 0; i < nr; i++) {
            /* a window holds at least one period (one toggle); short
             * windows, many repetitions: neighbouring windows see the same
             * machine, so the paired ratios are tight */
            double w = 1.0 / rates[i] > secs ? 1.0 / rates[i] : secs;
            int reps = (int)(per_rate / (3 * w)), k;
            double off[PEERS_MAXREP], on[PEERS_MAXREP], tog[PEERS_MAXREP], ratio[PEERS_MAXREP],
                ratio_all[PEERS_MAXREP], ach[PEERS_MAXREP], eff[PEERS_MAXREP], frac[PEERS_MAXREP],
                duty[PEERS_MAXREP], rmin, rmax, q25, q75;
            char extra[800];
            peers_stats st;
            int fast, fast_missing = 0;
            if (reps < 3) reps = 3;
            if (reps > PEERS_MAXREP) reps = PEERS_MAXREP;
            fast = (unsigned long)(w * rates[i] + 0.5) >= 4;
            for (k = 0; k < reps; k++) {
                peers_window a, t, b;
                a = window(m, rates[i], w, 1);
                t = window(m, rates[i], w, 0);
                set_state(m, 1);
                b = window(m, rates[i], w, 1);
                set_state(m, 0);
                off[k] = fast && a.active_frac > 0 ? a.active : a.tput;
                on[k] = fast && b.active_frac > 0 ? b.active : b.tput;
                /* slow mechanisms never keep pace with a fast rate: no active
                 * stretch, so the whole window is used */
                if (fast && t.active_frac <= 0) fast_missing++;
                tog[k] = fast && t.active_frac > 0 ? t.active : t.tput;
                ach[k] = t.achieved, eff[k] = t.eff_rate, frac[k] = t.active_frac, duty[k] = t.duty;
                /* active stretches: calls done / calls expected from the time
                 * the executor spent in each state at the untoggled rates */
                ratio[k] = fast && t.active_frac > 0
                               ? t.calls_act / ((t.ticks_on * on[k] + t.ticks_off * off[k]) / hz)
                               : t.tput / (t.duty * on[k] + (1 - t.duty) * off[k]);
                ratio_all[k] = t.tput / (t.duty * b.tput + (1 - t.duty) * a.tput);
                all_off[n_all++] = off[k];
                if (getenv("PEERS_SCALE_DEBUG"))
                    fprintf(stderr, "%s rate %.0f rep %d: off %.0f tog %.0f (all %.0f) on %.0f duty %.3f ach %.0f eff %.0f frac %.2f\n",
                            mnames[m], rates[i], k, off[k] / 1e6, tog[k] / 1e6, t.tput / 1e6, on[k] / 1e6,
                            duty[k], ach[k], eff[k], frac[k]);
            }
            {
                double lo = ratio[0], hi = ratio[0], c[PEERS_MAXREP];
                for (k = 1; k < reps; k++) {
                    if (ratio[k] < lo) lo = ratio[k];
                    if (ratio[k] > hi) hi = ratio[k];
                }
                rmin = lo, rmax = hi;
                memcpy(c, ratio, (size_t)reps * sizeof *c);
                peers_summarize(c, (size_t)reps);
                q25 = c[reps / 4];
                q75 = c[(3 * reps) / 4];
            }
            memset(&st, 0, sizeof st);
            st.n = (size_t)reps;
            st.median = st.p90 = st.p99 = st.mean = st.min = median(tog, reps);
            snprintf(extra, sizeof extra,
                     "\"mechanism\":\"%s\",\"rate\":%.0f,\"achieved_rate\":%.1f,\"effective_rate\":%.1f,"
                     "\"active_share\":%.3f,\"active_only\":%d,\"no_active_windows\":%d,\"unit\":\"calls/s\","
                     "\"window_s\":%.3f,\"duty\":%.3f,\"off\":%.1f,\"on\":%.1f,"
                     "\"relative\":%.4f,\"relative_min\":%.4f,\"relative_max\":%.4f,\"relative_all\":%.4f,"
                     "\"relative_p25\":%.4f,\"relative_p75\":%.4f",
                     mnames[m], rates[i], median(ach, reps), median(eff, reps), median(frac, reps), fast, fast_missing, w,
                     median(duty, reps), median(off, reps), median(on, reps), median(ratio, reps), rmin, rmax,
                     median(ratio_all, reps), q25, q75);
            peers_emit("scale", mnames[m], &st, extra);
        }
        if (m == M_STRICT) edgeprobe_set_wx_strict(0);
        {
            peers_stats st = peers_summarize(all_off, (size_t)n_all);
            char extra[200];
            snprintf(extra, sizeof extra, "\"mechanism\":\"%s\",\"unit\":\"calls/s\",\"spread\":%.4f",
                     mnames[m], (all_off[n_all - 1] - all_off[0]) / st.median);
            peers_emit("scale_base", mnames[m], &st, extra);
        }
    }
    quit = 1;
    cmd++;
    pthread_join(th, 0);
    fprintf(stderr, "scale: tsc %.0f Hz, hits %lu, failures %d, dropped %lu of %lu blocks\n", hz, hits,
            failures, dropped_total, blocks_total);
    printf("{\"bench\":\"scale_meta\",\"name\":\"blocks\",\"tsc_hz\":%.0f,\"dropped\":%lu,\"blocks\":%lu,"
           "\"drop_ticks\":%lu}\n", hz, dropped_total, blocks_total, (unsigned long)block_drop);
    return failures ? 1 : 0;
}
