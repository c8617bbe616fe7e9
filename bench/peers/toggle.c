/* toggle.c - workload 3: toggle latency, enable and disable separately.
 *
 * Each mechanism owns one generated TU of PEERS_SITES functions (one site per
 * function), as in the paper's Fig. 11 experiment: an enable pass over a
 * chunk of PEERS_CHUNK sites timing each call, then a disable pass over the
 * same chunk. Rounds walk the chunks and rotate the mechanism order, so all
 * mechanisms are measured interleaved in one run. A warm-up pass toggles
 * every site once first (it is reported separately as "first": it pays the
 * one-time mprotect of each page in edgeprobe's keep-writable policy, and
 * XRay's first patch).
 *
 *   ep_handle        edgeprobe_probe_on/off by handle (TRACE, NOP5; default
 *                    keep-writable policy)
 *   ep_handle_nop8   the same on EDGEPROBE_SITE_BYTES=8 sites
 *   ep_name          edgeprobe_enable/disable by exact name (BRANCH, NOP8)
 *   ep_strict        handles with edgeprobe_set_wx_strict(1) (BRANCH, NOP5):
 *                    every toggle opens and closes the page (2 mprotect)
 *   xray             __xray_patch_function/__xray_unpatch_function per
 *                    function (entry + exit sleds)
 *   naive_mprotect   the seed blog: mprotect(RWX) then plain writes
 *   mremap_wx        W^X by remapping: mmap a copy, patch it, mprotect RX,
 *                    mremap it over the original page(s)
 *   flag_store       the flag-test peer: one release store of the flag
 * Plus ep_glob: edgeprobe_enable/disable("t5_f*") of all PEERS_SITES probes,
 * reported per probe.
 */
#include "peers.h"
#define EDGEPROBE_IMPLEMENTATION /* this program's one copy of the implementation */
#include "edgeprobe.h"
#include "xray_c.h"

#include <errno.h>
#include <sys/mman.h>

#ifndef PEERS_SITES
#define PEERS_SITES 4096
#endif
#define PEERS_CHUNK 256
#define PAGE 4096ul

typedef int (*peers_fn)(int);
extern peers_fn const xr_tab[PEERS_SITES];

struct blog_rec { unsigned char *site, *target; };
extern struct blog_rec __start_peers_blog_bla[], __stop_peers_blog_bla[];
extern struct blog_rec __start_peers_blog_blb[], __stop_peers_blog_blb[];

volatile int peers_sink;
__attribute__((noinline)) void peers_hit(const void *tp, int x) {
    (void)tp;
    peers_sink += x;
}

static const char *raw_dir;
static edgeprobe_probe *h_t5[PEERS_SITES], *h_t8[PEERS_SITES], *h_b5[PEERS_SITES];
static char names_b8[PEERS_SITES][24];
static int32_t xray_ids[PEERS_SITES];
static struct { const char *name; int state, pad; void *probes; } flags[PEERS_SITES];
static const unsigned char nop5[5] = {0x0f, 0x1f, 0x44, 0x00, 0x00};
static int failures;

static void check(int ok, const char *what, int i, long rc) {
    if (ok) return;
    if (failures++ < 10) fprintf(stderr, "toggle: %s failed at site %d: %ld\n", what, i, rc);
}

/* ---- the seed blog's naive enable: unprotect (RWX), then plain writes ---- */
static void blog_unprotect(void *addr, size_t len) {
    uintptr_t pg1 = (uintptr_t)addr & ~(PAGE - 1), pg2 = ((uintptr_t)addr + len - 1) & ~(PAGE - 1);
    if (mprotect((void *)pg1, pg2 - pg1 + PAGE, PROT_READ | PROT_WRITE | PROT_EXEC))
        check(0, "blog mprotect", 0, errno);
}
static int naive_set(struct blog_rec *r, int on) {
    unsigned char *dest = r->site;
    blog_unprotect(dest, 5);
    if (on) {
        int32_t off = (int32_t)(r->target - r->site - 5);
        dest[0] = 0xe9;
        memcpy(dest + 1, &off, 4);
    } else {
        memcpy(dest, nop5, 5);
    }
    return 0;
}

/* ---- W^X by remapping: patch a private copy, then mremap it in place ---- */
static int mremap_set(struct blog_rec *r, int on) {
    uintptr_t pg = (uintptr_t)r->site & ~(PAGE - 1);
    size_t len = (((uintptr_t)r->site + 4) & ~(PAGE - 1)) - pg + PAGE;
    unsigned char *copy = mmap(0, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    unsigned char *s;
    if (copy == MAP_FAILED) return -errno;
    memcpy(copy, (void *)pg, len);
    s = copy + ((uintptr_t)r->site - pg);
    if (on) {
        int32_t off = (int32_t)(r->target - r->site - 5);
        s[0] = 0xe9;
        memcpy(s + 1, &off, 4);
    } else {
        memcpy(s, nop5, 5);
    }
    if (mprotect(copy, len, PROT_READ | PROT_EXEC)) return -errno;
    if (mremap(copy, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, (void *)pg) == MAP_FAILED) return -errno;
    return 0;
}

enum { M_HANDLE, M_HANDLE8, M_NAME, M_STRICT, M_XRAY, M_NAIVE, M_MREMAP, M_FLAG, NM };
static const char *const mnames[NM] = {"ep_handle", "ep_handle_nop8", "ep_name", "ep_strict",
                                       "xray", "naive_mprotect", "mremap_wx", "flag_store"};

/* PEERS_TOGGLE_ONLY="xray,ep_strict" restricts the run (diagnosis). */
static int enabled_m[NM];
static void select_mechanisms(void) {
    const char *only = getenv("PEERS_TOGGLE_ONLY");
    int m;
    for (m = 0; m < NM; m++) {
        const char *p = only ? strstr(only, mnames[m]) : 0;
        size_t l = strlen(mnames[m]);
        enabled_m[m] = !only || !*only || (p && (p[l] == 0 || p[l] == ','));
    }
}

static int toggle(int m, int i, int on) {
    int rc;
    switch (m) {
    case M_HANDLE: rc = on ? edgeprobe_probe_on(h_t5[i]) : edgeprobe_probe_off(h_t5[i]); return rc == 1 ? 0 : rc - 1000;
    case M_HANDLE8: rc = on ? edgeprobe_probe_on(h_t8[i]) : edgeprobe_probe_off(h_t8[i]); return rc == 1 ? 0 : rc - 1000;
    case M_NAME: rc = on ? edgeprobe_enable(names_b8[i]) : edgeprobe_disable(names_b8[i]); return rc == 1 ? 0 : rc - 1000;
    case M_STRICT: rc = on ? edgeprobe_probe_on(h_b5[i]) : edgeprobe_probe_off(h_b5[i]); return rc == 1 ? 0 : rc - 1000;
    case M_XRAY:
        rc = on ? __xray_patch_function(xray_ids[i]) : __xray_unpatch_function(xray_ids[i]);
        return rc == PEERS_XRAY_SUCCESS ? 0 : -rc;
    case M_NAIVE: return naive_set(&__start_peers_blog_bla[i], on);
    case M_MREMAP: return mremap_set(&__start_peers_blog_blb[i], on);
    case M_FLAG: __atomic_store_n(&flags[i].state, on, __ATOMIC_RELEASE); return 0;
    }
    return -1;
}

static void setup(void) {
    size_t nx = __xray_max_function_id(), k;
    uintptr_t *addr;
    int i, rc;
    char name[32];
    if (__stop_peers_blog_bla - __start_peers_blog_bla != PEERS_SITES ||
        __stop_peers_blog_blb - __start_peers_blog_blb != PEERS_SITES) {
        fprintf(stderr, "toggle: blog tables have the wrong size\n");
        exit(1);
    }
    for (i = 0; i < PEERS_SITES; i++) {
        snprintf(name, sizeof name, "t5_f%d", i);
        rc = edgeprobe_probe_find(name, &h_t5[i]);
        check(rc == 0, "probe_find t5", i, rc);
        snprintf(name, sizeof name, "t8_f%d", i);
        rc = edgeprobe_probe_find(name, &h_t8[i]);
        check(rc == 0, "probe_find t8", i, rc);
        snprintf(name, sizeof name, "b5_f%d", i);
        rc = edgeprobe_probe_find(name, &h_b5[i]);
        check(rc == 0, "probe_find b5", i, rc);
        snprintf(names_b8[i], sizeof names_b8[i], "b8_f%d", i);
    }
    /* XRay ids by address (ids are assigned in sled-table order) */
    addr = peers_xcalloc(nx + 1, sizeof *addr);
    for (k = 1; k <= nx; k++) addr[k] = __xray_function_address((int32_t)k);
    for (i = 0; i < PEERS_SITES; i++) {
        for (k = 1; k <= nx; k++) /* linear, but only once per site */
            if (addr[k] == (uintptr_t)xr_tab[i]) break;
        xray_ids[i] = k <= nx ? (int32_t)k : 0;
        check(k <= nx, "xray id lookup", i, 0);
    }
    free(addr);
}

static double median_of(const double *v, size_t n) {
    double *c = peers_xcalloc(n, sizeof(double)), med;
    memcpy(c, v, n * sizeof(double));
    med = peers_summarize(c, n).median;
    free(c);
    return med;
}

static void emit(const char *name, double *v, size_t n, const char *dir_name, const char *extra) {
    peers_stats s;
    if (raw_dir && dir_name) peers_dump(raw_dir, "toggle", dir_name, v, n);
    s = peers_summarize(v, n);
    peers_emit("toggle", name, &s, extra);
}

int main(void) {
    size_t rounds = (size_t)peers_env_long("PEERS_TOGGLE_ROUNDS", 40), n = rounds * PEERS_CHUNK;
    double *on[NM], *off[NM], *first_on[NM], *first_off[NM];
    size_t r;
    int m, i, k;
    raw_dir = getenv("PEERS_RAW_DIR");
    peers_pin((int)peers_env_long("PEERS_CPU", -1));
    setup();
    select_mechanisms();
    for (m = 0; m < NM; m++) {
        on[m] = peers_xcalloc(n, sizeof(double));
        off[m] = peers_xcalloc(n, sizeof(double));
        first_on[m] = peers_xcalloc(PEERS_SITES, sizeof(double));
        first_off[m] = peers_xcalloc(PEERS_SITES, sizeof(double));
    }
    /* warm-up ("first") pass over every site */
    for (m = 0; m < NM; m++) {
        if (!enabled_m[m]) continue;
        if (m == M_STRICT) edgeprobe_set_wx_strict(1);
        for (i = 0; i < PEERS_SITES; i++) {
            uint64_t t0 = peers_tsc();
            int rc = toggle(m, i, 1);
            uint64_t t1 = peers_tsc();
            int rc2 = toggle(m, i, 0);
            uint64_t t2 = peers_tsc();
            check(rc == 0 && rc2 == 0, mnames[m], i, rc ? rc : rc2);
            first_on[m][i] = (double)(t1 - t0);
            first_off[m][i] = (double)(t2 - t1);
        }
        if (m == M_STRICT) edgeprobe_set_wx_strict(0);
    }
    for (r = 0; r < rounds; r++) {
        int base = (int)(r % (PEERS_SITES / PEERS_CHUNK)) * PEERS_CHUNK;
        for (k = 0; k < NM; k++) {
            m = (int)((r + (size_t)k) % NM);
            if (!enabled_m[m]) continue;
            if (m == M_STRICT) edgeprobe_set_wx_strict(1);
            for (i = 0; i < PEERS_CHUNK; i++) {
                uint64_t t0 = peers_tsc();
                int rc = toggle(m, base + i, 1);
                uint64_t t1 = peers_tsc();
                check(rc == 0, mnames[m], base + i, rc);
                on[m][r * PEERS_CHUNK + (size_t)i] = (double)(t1 - t0);
            }
            for (i = 0; i < PEERS_CHUNK; i++) {
                uint64_t t0 = peers_tsc();
                int rc = toggle(m, base + i, 0);
                uint64_t t1 = peers_tsc();
                check(rc == 0, mnames[m], base + i, rc);
                off[m][r * PEERS_CHUNK + (size_t)i] = (double)(t1 - t0);
            }
            if (m == M_STRICT) edgeprobe_set_wx_strict(0);
        }
    }
    {
        /* every ratio is "XRay's median / this mechanism's median" */
        double xon = median_of(on[M_XRAY], n), xoff = median_of(off[M_XRAY], n);
        char extra[200], file[64];
        for (m = 0; m < NM; m++) {
            if (!enabled_m[m]) continue;
            snprintf(extra, sizeof extra, "\"op\":\"enable\",\"xray_over_this\":%.2f",
                     xon / median_of(on[m], n));
            snprintf(file, sizeof file, "%s-on", mnames[m]);
            emit(mnames[m], on[m], n, file, extra);
            snprintf(extra, sizeof extra, "\"op\":\"disable\",\"xray_over_this\":%.2f",
                     xoff / median_of(off[m], n));
            snprintf(file, sizeof file, "%s-off", mnames[m]);
            emit(mnames[m], off[m], n, file, extra);
        }
        for (m = 0; m < NM; m++) {
            char nm[64];
            if (!enabled_m[m]) continue;
            snprintf(nm, sizeof nm, "%s_first", mnames[m]);
            emit(nm, first_on[m], PEERS_SITES, 0, "\"op\":\"enable\"");
            emit(nm, first_off[m], PEERS_SITES, 0, "\"op\":\"disable\"");
        }
    }
    { /* glob: all t5 probes at once, per probe */
        int reps = 20, j;
        double ge[20], gd[20];
        for (j = 0; j < reps; j++) {
            uint64_t t0 = peers_tsc();
            int a = edgeprobe_enable("t5_f*");
            uint64_t t1 = peers_tsc();
            int b = edgeprobe_disable("t5_f*");
            uint64_t t2 = peers_tsc();
            check(a == PEERS_SITES && b == PEERS_SITES, "glob", j, a);
            ge[j] = (double)(t1 - t0) / PEERS_SITES;
            gd[j] = (double)(t2 - t1) / PEERS_SITES;
        }
        emit("ep_glob_per_probe", ge, (size_t)reps, 0, "\"op\":\"enable\"");
        emit("ep_glob_per_probe", gd, (size_t)reps, 0, "\"op\":\"disable\"");
    }
    { /* rdtsc pair overhead, for reference */
        double *c = peers_xcalloc(n, sizeof(double));
        size_t j;
        for (j = 0; j < n; j++) {
            uint64_t t0 = peers_tsc(), t1 = peers_tsc();
            c[j] = (double)(t1 - t0);
        }
        emit("tsc_overhead", c, n, 0, "\"op\":\"none\"");
        free(c);
    }
    if (failures) fprintf(stderr, "toggle: %d failures\n", failures);
    return failures ? 1 : 0;
}
