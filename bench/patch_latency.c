/* patch_latency.c - activation / deactivation latency of edgeprobe's
 * low-level patching API, in TSC ticks (paper "Living on the Edge",
 * section 8.3, Table 2 and Figure 11).
 *
 * Every operation is timed on the calling thread with lfence;rdtsc ...
 * rdtscp;lfence; the timer's own cost is measured and printed (and
 * subtracted in the "net" column). Cases:
 *   nonstraddler      edgeprobe_patch, call <-> NOP5 inside one line
 *   straddler-sync    edgeprobe_patch, call <-> NOP5 across a line (S=2)
 *   async-start       edgeprobe_patch_start on a straddler (calling thread)
 *   async-poll        edgeprobe_patch_finish before Tmax has passed
 *   async-finish1/2   the finish calls that take the two steps
 *   batch1000         edgeprobe_patch_batch of 1,000 straddlers, whole call
 *                     (per-site amortised figures are printed separately)
 *   callpatch-S0..S4  edgeprobe_call_on / _deactivate, split S
 *   serialize-sync    edgeprobe_patch on a straddler, EDGEPROBE_SYNC_SERIALIZE
 * plus diagnostics that locate costs:
 *   floor-cmpxchg           one bare `lock cmpxchg` of the site's word
 *   nonstraddler-tmax0      edgeprobe_patch inside one line with Tmax = 0
 *   serialize-nonstraddler  edgeprobe_patch inside one line, SERIALIZE mode
 *   callpatch-S0-wxstrict   call patch with strict W^X (two mprotects)
 * each under two conditions: idle (the other core idle) and busy (a sibling
 * thread of this process spins on the other core).
 *
 * Output: a summary table on stdout, <outdir>/latency.csv, latency.md,
 * histograms.txt (log2 buckets) and samples/<cond>__<case>__<dir>.txt
 * (raw samples, for bench/plot_patch.py).
 *
 * Build: gcc -O2 -Iinclude -pthread bench/patch_latency.c -o build/patch_latency
 */
#define _GNU_SOURCE
#define EDGEPROBE_IMPLEMENTATION /* this program's one copy of the implementation */
#include "edgeprobe.h"

#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define LINE 64
#define PAGE 4096
#define BUF_BYTES (2u << 20)
#define BATCH_MAX 4096

static struct {
    long n;            /* toggles per direction per case                */
    long batch_n;      /* sites per batch                               */
    long batch_reps;   /* batches per direction                         */
    long tmax;         /* -1: edgeprobe's (EDGEPROBE_TMAX or 3000)       */
    const char *outdir;
    int conds;         /* bit 0 idle, bit 1 busy                         */
} opt = {10000, 1000, 200, -1, "bench/out/patch", 3};

static inline uint64_t t_begin(void) {
    uint32_t lo, hi;
    __asm__ volatile("lfence\n\trdtsc" : "=a"(lo), "=d"(hi)::"memory");
    return ((uint64_t)hi << 32) | lo;
}
/* -DPB_NO_RDTSCP for valgrind, which does not know rdtscp */
static inline uint64_t t_end(void) {
    uint32_t lo, hi;
#ifdef PB_NO_RDTSCP
    __asm__ volatile("lfence\n\trdtsc\n\tlfence" : "=a"(lo), "=d"(hi)::"memory");
#else
    uint32_t aux;
    __asm__ volatile("rdtscp\n\tlfence" : "=a"(lo), "=d"(hi), "=c"(aux)::"memory");
#endif
    return ((uint64_t)hi << 32) | lo;
}
static inline uint64_t rdtsc(void) {
    uint32_t lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return ((uint64_t)hi << 32) | lo;
}
static void spin_ticks(uint64_t since, uint64_t ticks) {
    while (rdtsc() - since < ticks) __asm__ volatile("pause");
}
static void pin(int cpu) {
    cpu_set_t set;
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    CPU_ZERO(&set);
    CPU_SET(cpu % (n > 0 ? n : 1), &set);
    sched_setaffinity(0, sizeof set, &set);
}

/* ---- code buffer -------------------------------------------------------- */
static unsigned char *buf, *ret_fn;
static const unsigned char NOP5[5] = {0x0f, 0x1f, 0x44, 0x00, 0x00};

/* A site with S bytes before a line boundary (S = 0: inside one line). */
static unsigned char *site_at(int line, int S) {
    unsigned char *l = buf + (size_t)line * LINE;
    return S == 0 ? l + 16 : l + LINE - S;
}
static int32_t rel_to_ret(const unsigned char *site) { return (int32_t)(ret_fn - (site + 5)); }
static void make_call(unsigned char out[5], const unsigned char *site) {
    int32_t rel = rel_to_ret(site);
    out[0] = 0xe8;
    memcpy(out + 1, &rel, 4);
}
/* Put a call at site with plain stores (the page is ours and writable),
 * unless it is already there: strict W^X may have left the page read-only. */
static void write_call(unsigned char *site) {
    unsigned char c[5];
    make_call(c, site);
    if (memcmp(site, c, 5)) memcpy(site, c, 5);
}

/* ---- statistics --------------------------------------------------------- */
static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}
typedef struct {
    double med, p90, p99, mean;
    uint64_t min, max;
    long n;
} stats_t;
static stats_t stats(uint64_t *s, long n) {
    stats_t r;
    long i;
    double sum = 0;
    memset(&r, 0, sizeof r);
    if (n <= 0) return r;
    qsort(s, (size_t)n, sizeof *s, cmp_u64);
    for (i = 0; i < n; i++) sum += (double)s[i];
    r.n = n;
    r.med = (double)s[n / 2];
    r.p90 = (double)s[(long)(n * 0.90)];
    r.p99 = (double)s[(long)(n * 0.99)];
    r.mean = sum / n;
    r.min = s[0];
    r.max = s[n - 1];
    return r;
}

static FILE *csv, *md, *hist;
static uint64_t timer_cost;
static const char *cond_name;
static int errors;

static void write_samples(const char *cas, const char *dir, const uint64_t *s, long n) {
    char path[600];
    FILE *f;
    long i;
    snprintf(path, sizeof path, "%s/samples/%s__%s__%s.txt", opt.outdir, cond_name, cas, dir);
    if (!(f = fopen(path, "w"))) return;
    for (i = 0; i < n; i++) fprintf(f, "%llu\n", (unsigned long long)s[i]);
    fclose(f);
}
static void write_hist(const char *cas, const char *dir, const uint64_t *sorted, long n) {
    long counts[64] = {0}, i, maxc = 0;
    int b, lo = 63, hi = 0;
    for (i = 0; i < n; i++) {
        int k = sorted[i] ? 63 - __builtin_clzll(sorted[i]) : 0;
        counts[k]++;
        if (k < lo) lo = k;
        if (k > hi) hi = k;
    }
    for (b = lo; b <= hi; b++)
        if (counts[b] > maxc) maxc = counts[b];
    fprintf(hist, "%s / %s / %s (%ld samples, ticks)\n", cond_name, cas, dir, n);
    for (b = lo; b <= hi; b++) {
        int bar = maxc ? (int)(50.0 * counts[b] / maxc + 0.5) : 0;
        fprintf(hist, "  [%8llu, %8llu) %7ld %.*s\n", 1ULL << b, 2ULL << b, counts[b], bar,
                "##################################################");
    }
    fprintf(hist, "\n");
}

/* Report one direction of one case. Samples are sorted in place. */
static stats_t report(const char *cas, const char *dir, uint64_t *s, long n, const char *note) {
    stats_t st;
    write_samples(cas, dir, s, n);
    st = stats(s, n);
    write_hist(cas, dir, s, n);
    printf("  %-24s %-6s %7ld %9.0f %9.0f %9.0f %9.0f %9.0f  %s\n", cas, dir, n, st.med,
           st.med - (double)timer_cost, st.p90, st.p99, st.mean, note ? note : "");
    fprintf(csv, "%s,%s,%s,%ld,%.0f,%.0f,%.0f,%.0f,%.0f,%llu,%llu\n", cond_name, cas, dir, n, st.med,
            st.med - (double)timer_cost, st.p90, st.p99, st.mean, (unsigned long long)st.min,
            (unsigned long long)st.max);
    fprintf(md, "| %s | %s | %s | %ld | %.0f | %.0f | %.0f | %.0f | %s |\n", cond_name, cas, dir, n, st.med,
            st.med - (double)timer_cost, st.p90, st.p99, note ? note : "");
    return st;
}
static void expect_rc(int rc, int want, const char *what) {
    if (rc != want) {
        if (errors++ < 10)
            fprintf(stderr, "patch_latency: %s returned %d (%s), expected %d\n", what, rc,
                    rc < 0 ? edgeprobe_strerror(rc) : "", want);
    }
}

/* ---- cases -------------------------------------------------------------- */
static uint64_t *act, *deact;

/* edgeprobe_patch toggling call <-> NOP5 at `site`. */
static void case_patch(const char *name, unsigned char *site, const char *note) {
    unsigned char call[5];
    long i;
    make_call(call, site);
    write_call(site);
    expect_rc(edgeprobe_patch(site, NOP5, 5), 0, "warm-up patch"); /* opens the page */
    expect_rc(edgeprobe_patch(site, call, 5), 0, "warm-up patch");
    for (i = 0; i < opt.n; i++) {
        uint64_t t0 = t_begin();
        int rc = edgeprobe_patch(site, NOP5, 5);
        uint64_t t1 = t_end();
        deact[i] = t1 - t0;
        expect_rc(rc, 0, name);
        t0 = t_begin();
        rc = edgeprobe_patch(site, call, 5);
        t1 = t_end();
        act[i] = t1 - t0;
        expect_rc(rc, 0, name);
    }
    report(name, "act", act, opt.n, note);
    report(name, "deact", deact, opt.n, note);
}

static void case_async(unsigned char *site) {
    unsigned char call[5];
    uint64_t *v[2][4];
    long i;
    int d, k;
    uint64_t tmax = edgeprobe_tmax();
    static const char *names[4] = {"async-start", "async-poll", "async-finish1", "async-finish2"};
    for (d = 0; d < 2; d++)
        for (k = 0; k < 4; k++) v[d][k] = malloc(sizeof(uint64_t) * (size_t)opt.n);
    make_call(call, site);
    write_call(site);
    for (i = 0; i < opt.n; i++)
        for (d = 0; d < 2; d++) { /* d = 0: deactivate (call -> nop), 1: activate */
            const unsigned char *want = d ? call : NOP5;
            uint64_t t0, t1, since;
            int rc;
            t0 = t_begin();
            rc = edgeprobe_patch_start(site, want, 5);
            t1 = t_end();
            since = t1;
            v[d][0][i] = t1 - t0;
            expect_rc(rc, 0, "patch_start");
            t0 = t_begin();
            rc = edgeprobe_patch_finish(site);
            t1 = t_end();
            v[d][1][i] = t1 - t0;
            expect_rc(rc, tmax > 2000 ? 0 : rc, "patch_finish (poll)");
            if (rc == 1) { /* Tmax tiny: the poll already finished it */
                v[d][2][i] = v[d][3][i] = 0;
                continue;
            }
            spin_ticks(since, tmax + 50);
            t0 = t_begin();
            rc = edgeprobe_patch_finish(site);
            t1 = t_end();
            since = t1;
            v[d][2][i] = t1 - t0;
            expect_rc(rc, 0, "patch_finish (step 1)");
            spin_ticks(since, tmax + 50);
            t0 = t_begin();
            rc = edgeprobe_patch_finish(site);
            t1 = t_end();
            v[d][3][i] = t1 - t0;
            expect_rc(rc, 1, "patch_finish (step 2)");
            while (rc == 0) rc = edgeprobe_patch_finish(site);
        }
    for (k = 0; k < 4; k++) {
        report(names[k], "act", v[1][k], opt.n, k == 0 ? "calling thread" : NULL);
        report(names[k], "deact", v[0][k], opt.n, NULL);
    }
    for (d = 0; d < 2; d++)
        for (k = 0; k < 4; k++) free(v[d][k]);
}

static void case_batch(void) {
    static edgeprobe_patch_req on[BATCH_MAX], off[BATCH_MAX];
    static unsigned char calls[BATCH_MAX][5];
    static int results[BATCH_MAX];
    long n = opt.batch_n, i, r;
    uint64_t *ta = malloc(sizeof(uint64_t) * (size_t)opt.batch_reps),
             *td = malloc(sizeof(uint64_t) * (size_t)opt.batch_reps);
    uint64_t tmax = edgeprobe_tmax();
    stats_t sa, sd;
    char note[200];
    for (i = 0; i < n; i++) {
        unsigned char *site = site_at(1024 + (int)i, 1 + (int)(i % 4));
        write_call(site);
        make_call(calls[i], site);
        on[i].site = off[i].site = site;
        on[i].insn = calls[i];
        off[i].insn = NOP5;
        on[i].len = off[i].len = 5;
    }
    expect_rc(edgeprobe_patch_batch(off, (size_t)n, results), 0, "warm-up batch");
    expect_rc(edgeprobe_patch_batch(on, (size_t)n, results), 0, "warm-up batch");
    for (r = 0; r < opt.batch_reps; r++) {
        uint64_t t0 = t_begin();
        int rc = edgeprobe_patch_batch(off, (size_t)n, results);
        uint64_t t1 = t_end();
        td[r] = t1 - t0;
        expect_rc(rc, 0, "patch_batch off");
        t0 = t_begin();
        rc = edgeprobe_patch_batch(on, (size_t)n, results);
        t1 = t_end();
        ta[r] = t1 - t0;
        expect_rc(rc, 0, "patch_batch on");
    }
    snprintf(note, sizeof note, "%ld sites per call", n);
    sa = report("batch1000", "act", ta, opt.batch_reps, note);
    sd = report("batch1000", "deact", td, opt.batch_reps, note);
    printf("  %-24s act: %.0f ticks/site amortised, %.0f ticks/site beyond the two waits; "
           "deact: %.0f, %.0f\n",
           "  (batch per site)", sa.med / n, (sa.med - 2.0 * tmax) / n, sd.med / n, (sd.med - 2.0 * tmax) / n);
    fprintf(md, "| %s | batch1000 per site | act | %ld | %.1f | %.1f | | | amortised; beyond 2 waits |\n", cond_name,
            n, sa.med / n, (sa.med - 2.0 * tmax) / n);
    fprintf(md, "| %s | batch1000 per site | deact | %ld | %.1f | %.1f | | | amortised; beyond 2 waits |\n",
            cond_name, n, sd.med / n, (sd.med - 2.0 * tmax) / n);
    fprintf(csv, "%s,batch1000-per-site,act,%ld,%.1f,%.1f,,,,,\n", cond_name, n, sa.med / n,
            (sa.med - 2.0 * tmax) / n);
    fprintf(csv, "%s,batch1000-per-site,deact,%ld,%.1f,%.1f,,,,,\n", cond_name, n, sd.med / n,
            (sd.med - 2.0 * tmax) / n);
    free(ta);
    free(td);
}

static void case_callpatch(const char *name, unsigned char *site) {
    int32_t rel = rel_to_ret(site);
    long i;
    write_call(site);
    expect_rc(edgeprobe_call_off(site), 1, "warm-up call_deactivate");
    expect_rc(edgeprobe_call_on(site, rel), 1, "warm-up call_activate");
    for (i = 0; i < opt.n; i++) {
        uint64_t t0 = t_begin();
        int rc = edgeprobe_call_off(site);
        uint64_t t1 = t_end();
        deact[i] = t1 - t0;
        expect_rc(rc, 1, name);
        t0 = t_begin();
        rc = edgeprobe_call_on(site, rel);
        t1 = t_end();
        act[i] = t1 - t0;
        expect_rc(rc, 1, name);
    }
    report(name, "act", act, opt.n, NULL);
    report(name, "deact", deact, opt.n, NULL);
}

/* The floor: one `lock cmpxchg` of the aligned 8-byte word holding a site,
 * call <-> NOP5, with no lock, lookup or checks around it. */
static void case_floor(unsigned char *site) {
    uint64_t *w = (uint64_t *)((uintptr_t)site & ~(uintptr_t)7), on, off;
    size_t o = (size_t)(site - (unsigned char *)w);
    unsigned char b[8];
    long i;
    write_call(site);
    memcpy(b, w, 8);
    memcpy(&on, b, 8);
    memcpy(b + o, NOP5, 5);
    memcpy(&off, b, 8);
    for (i = 0; i < opt.n; i++) {
        uint64_t t0 = t_begin();
        __atomic_compare_exchange_n(w, &on, off, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
        uint64_t t1 = t_end();
        deact[i] = t1 - t0;
        t0 = t_begin();
        __atomic_compare_exchange_n(w, &off, on, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
        t1 = t_end();
        act[i] = t1 - t0;
    }
    report("floor-cmpxchg", "act", act, opt.n, "one lock cmpxchg, nothing else");
    report("floor-cmpxchg", "deact", deact, opt.n, "one lock cmpxchg, nothing else");
}

/* ---- the busy sibling --------------------------------------------------- */
static volatile int sibling_stop;
static volatile uint64_t sibling_work;
static void *sibling(void *arg) {
    (void)arg;
    pin(1);
    while (!sibling_stop) sibling_work++;
    return NULL;
}

static enum edgeprobe_sync default_sync; /* the protocol a program gets by default */
static void run_all(void) {
    char note[128];
    uint64_t tmax = edgeprobe_tmax();
    int S;
    printf("  %-24s %-6s %7s %9s %9s %9s %9s %9s\n", "case", "dir", "n", "median", "net", "p90", "p99", "mean");
    snprintf(note, sizeof note, "Tmax %llu", (unsigned long long)tmax);
    case_patch("nonstraddler", site_at(4, 0), note);
    case_patch("straddler-sync", site_at(8, 2), note);
    case_async(site_at(12, 2));
    case_batch();
    for (S = 0; S <= 4; S++) {
        char name[32];
        snprintf(name, sizeof name, "callpatch-S%d", S);
        case_callpatch(name, site_at(16 + 4 * S, S));
    }
    /* diagnostics */
    case_floor(site_at(40, 0));
    edgeprobe_set_tmax(0);
    case_patch("nonstraddler-tmax0", site_at(44, 0), "Tmax 0: the cost without the waits");
    edgeprobe_set_tmax(tmax);
    write_call(site_at(48, 0));
    edgeprobe_set_wx_strict(1);
    case_callpatch("callpatch-S0-wxstrict", site_at(48, 0));
    edgeprobe_set_wx_strict(0);
    /* strict mode left our pages read+execute: this benchmark writes its own
     * sites with plain stores, so open the whole buffer again */
    mprotect(buf, BUF_BYTES, PROT_READ | PROT_WRITE | PROT_EXEC);
    if (edgeprobe_set_sync(EDGEPROBE_SYNC_SERIALIZE) == 0) {
        case_patch("serialize-sync", site_at(52, 2),
                   default_sync == EDGEPROBE_SYNC_SERIALIZE ? "membarrier SYNC_CORE (the default)" : "membarrier SYNC_CORE");
        case_patch("serialize-nonstraddler", site_at(56, 0), "membarrier SYNC_CORE");
        edgeprobe_set_sync(EDGEPROBE_SYNC_TMAX);
    } else {
        printf("  serialize: membarrier SYNC_CORE unavailable on this kernel; skipped\n");
    }
}

static void print_machine(void) {
    FILE *p = popen("lscpu 2>/dev/null | grep -E '^(Model name|CPU\\(s\\)|Hypervisor vendor)'", "r");
    char line[256];
    if (p) {
        while (fgets(line, sizeof line, p)) printf("# %s", line);
        pclose(p);
    }
    if ((p = popen("uname -sr", "r"))) {
        if (fgets(line, sizeof line, p)) printf("# kernel: %s", line);
        pclose(p);
    }
}

int main(int argc, char **argv) {
    int i, c;
    char path[600];
    double hz;
    struct timespec a, b;
    uint64_t c0;
    setvbuf(stdout, NULL, _IOLBF, 0);
    for (i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : "0";
        if (!strcmp(argv[i], "--n")) opt.n = atol(v), i++;
        else if (!strcmp(argv[i], "--batch-n")) opt.batch_n = atol(v), i++;
        else if (!strcmp(argv[i], "--batch-reps")) opt.batch_reps = atol(v), i++;
        else if (!strcmp(argv[i], "--tmax")) opt.tmax = atol(v), i++;
        else if (!strcmp(argv[i], "--outdir")) opt.outdir = v, i++;
        else if (!strcmp(argv[i], "--idle-only")) opt.conds = 1;
        else if (!strcmp(argv[i], "--busy-only")) opt.conds = 2;
        else {
            printf("usage: patch_latency [--n toggles] [--batch-n sites] [--batch-reps n] [--tmax ticks]\n"
                   "                     [--outdir dir] [--idle-only|--busy-only]\n");
            return strcmp(argv[i], "--help") ? 2 : 0;
        }
    }
    if (opt.n < 1) opt.n = 1;
    if (opt.batch_n < 1) opt.batch_n = 1;
    if (opt.batch_n > BATCH_MAX) opt.batch_n = BATCH_MAX;
    if (opt.batch_reps < 1) opt.batch_reps = 1;
    pin(0);
    buf = mmap(NULL, BUF_BYTES, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (buf == MAP_FAILED) return perror("mmap"), 2;
    memset(buf, 0xcc, BUF_BYTES);
    ret_fn = buf;
    *ret_fn = 0xc3;
    act = malloc(sizeof(uint64_t) * (size_t)opt.n);
    deact = malloc(sizeof(uint64_t) * (size_t)opt.n);
    if (opt.tmax >= 0) edgeprobe_set_tmax((uint64_t)opt.tmax);
    /* The Tmax cases ask for the Tmax protocol; serialising mode, the
     * default, is measured after them (serialize-*). */
    default_sync = edgeprobe_sync_mode();
    edgeprobe_set_sync(EDGEPROBE_SYNC_TMAX);

    mkdir("bench/out", 0777);
    mkdir(opt.outdir, 0777);
    snprintf(path, sizeof path, "%s/samples", opt.outdir);
    mkdir(path, 0777);
    snprintf(path, sizeof path, "%s/latency.csv", opt.outdir);
    csv = fopen(path, "w");
    snprintf(path, sizeof path, "%s/latency.md", opt.outdir);
    md = fopen(path, "w");
    snprintf(path, sizeof path, "%s/histograms.txt", opt.outdir);
    hist = fopen(path, "w");
    if (!csv || !md || !hist) return fprintf(stderr, "patch_latency: cannot write to %s\n", opt.outdir), 2;
    fprintf(csv, "cond,case,dir,n,median,net_median,p90,p99,mean,min,max\n");
    fprintf(md, "| cond | case | dir | n | median | net | p90 | p99 | note |\n|---|---|---|---|---|---|---|---|---|\n");

    clock_gettime(CLOCK_MONOTONIC, &a);
    c0 = rdtsc();
    do clock_gettime(CLOCK_MONOTONIC, &b);
    while ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec) < 5e7);
    hz = (double)(rdtsc() - c0) / ((b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) * 1e-9);
    {
        long k;
        for (k = 0; k < opt.n; k++) {
            uint64_t t0 = t_begin(), t1 = t_end();
            act[k] = t1 - t0;
        }
        qsort(act, (size_t)opt.n, sizeof *act, cmp_u64);
        timer_cost = act[opt.n / 2];
    }
    printf("# edgeprobe patch latency (TSC ticks; paper Table 2 / Figure 11)\n");
    print_machine();
    printf("# TSC %.0f MHz; timer overhead (median of an empty lfence;rdtsc..rdtscp;lfence) %llu ticks, "
           "subtracted in 'net'\n",
           hz / 1e6, (unsigned long long)timer_cost);
    printf("# Tmax %llu ticks; %ld toggles per direction per case; batch: %ld sites x %ld batches\n",
           (unsigned long long)edgeprobe_tmax(), opt.n, opt.batch_n, opt.batch_reps);

    for (c = 0; c < 2; c++) {
        pthread_t th;
        if (!(opt.conds & (1 << c))) continue;
        cond_name = c ? "busy" : "idle";
        printf("\n## %s: %s\n", cond_name,
               c ? "a sibling thread of this process spins on the other core" : "no other thread of this process");
        if (c) {
            sibling_stop = 0;
            pthread_create(&th, NULL, sibling, NULL);
            while (!sibling_work) sched_yield();
        }
        run_all();
        if (c) {
            sibling_stop = 1;
            pthread_join(th, NULL);
        }
    }
    fclose(csv);
    fclose(md);
    fclose(hist);
    printf("\n# %d unexpected return codes\n# results: %s/latency.{csv,md}, histograms.txt, samples/\n", errors,
           opt.outdir);
    return errors ? 1 : 0;
}
