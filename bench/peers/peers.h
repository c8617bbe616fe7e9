/* peers.h - shared helpers for the peer-comparison benchmarks (bench/peers).
 *
 * Time source: the TSC, read with `lfence; rdtsc` so that the read is not
 * hoisted above earlier work (perf cannot count cycles on this VM). Every
 * result is printed as one JSON object per line on stdout, which
 * bench/peers/report.py turns into tables and plots.
 */
#ifndef PEERS_H
#define PEERS_H

#define _GNU_SOURCE 1
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static inline __attribute__((always_inline)) uint64_t peers_tsc(void) {
    uint32_t lo, hi;
    __asm__ volatile("lfence\n\trdtsc\n\tlfence" : "=a"(lo), "=d"(hi)::"memory");
    return ((uint64_t)hi << 32) | lo;
}

static inline void peers_pause(void) { __asm__ volatile("pause" ::: "memory"); }

/* Pin the calling thread to one CPU; silently ignored when not possible. */
static inline void peers_pin(int cpu) {
    cpu_set_t set;
    if (cpu < 0) return;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    sched_setaffinity(0, sizeof set, &set);
}

static inline double peers_now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* TSC ticks per second, measured against CLOCK_MONOTONIC over ~100 ms. */
static inline double peers_tsc_hz(void) {
    double t0 = peers_now_s(), t1;
    uint64_t c0 = peers_tsc(), c1;
    do { t1 = peers_now_s(); } while (t1 - t0 < 0.1);
    c1 = peers_tsc();
    return (double)(c1 - c0) / (t1 - t0);
}

static int peers_cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

typedef struct {
    double median, p90, p99, min, mean;
    size_t n;
} peers_stats;

/* Sorts v in place. Percentiles by nearest rank. */
static inline peers_stats peers_summarize(double *v, size_t n) {
    peers_stats s;
    double sum = 0;
    size_t i;
    memset(&s, 0, sizeof s);
    if (!n) return s;
    qsort(v, n, sizeof *v, peers_cmp_double);
    for (i = 0; i < n; i++) sum += v[i];
    s.n = n;
    s.min = v[0];
    s.mean = sum / (double)n;
    s.median = v[n / 2];
    s.p90 = v[(size_t)((double)n * 0.90) < n ? (size_t)((double)n * 0.90) : n - 1];
    s.p99 = v[(size_t)((double)n * 0.99) < n ? (size_t)((double)n * 0.99) : n - 1];
    return s;
}

/* One JSON line: {"bench":..., "name":..., "unit":"ticks", stats..., extra} */
static inline void peers_emit(const char *bench, const char *name, const peers_stats *s,
                              const char *extra) {
    printf("{\"bench\":\"%s\",\"name\":\"%s\",\"n\":%zu,\"median\":%.3f,\"p90\":%.3f,"
           "\"p99\":%.3f,\"min\":%.3f,\"mean\":%.3f%s%s}\n",
           bench, name, s->n, s->median, s->p90, s->p99, s->min, s->mean,
           extra && *extra ? "," : "", extra ? extra : "");
    fflush(stdout);
}

/* Write raw samples (one per line) for histograms. */
static inline void peers_dump(const char *dir, const char *bench, const char *name,
                              const double *v, size_t n) {
    char path[512];
    FILE *f;
    size_t i;
    if (!dir) return;
    snprintf(path, sizeof path, "%s/%s-%s.txt", dir, bench, name);
    f = fopen(path, "w");
    if (!f) return;
    for (i = 0; i < n; i++) fprintf(f, "%.1f\n", v[i]);
    fclose(f);
}

static inline long peers_env_long(const char *name, long dflt) {
    const char *s = getenv(name);
    return s && *s ? strtol(s, 0, 0) : dflt;
}

static inline void *peers_xcalloc(size_t n, size_t size) {
    void *p = calloc(n, size);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    return p;
}

/* Time n loop functions of `block` iterations each, interleaved sample by
 * sample (loop v leads in round v, so that drift and a busy neighbour hit
 * every variant alike), after 200 warm-up rounds; print one JSON line per
 * loop, named names[v] in benchmark `bench`: ticks per iteration. */
static inline void peers_interleaved(const char *bench, void (*const *loops)(void), const char *const *names, int n,
                                     size_t reps, int block) {
    double **s = peers_xcalloc((size_t)n, sizeof *s);
    size_t r;
    int v, i;
    for (v = 0; v < n; v++) s[v] = peers_xcalloc(reps, sizeof(double));
    for (r = 0; r < 200; r++)
        for (v = 0; v < n; v++) loops[v]();
    for (r = 0; r < reps; r++)
        for (i = 0; i < n; i++) {
            uint64_t t0, t1;
            v = (int)((i + r) % (size_t)n);
            t0 = peers_tsc();
            loops[v]();
            t1 = peers_tsc();
            s[v][r] = (double)(t1 - t0) / block;
        }
    for (v = 0; v < n; v++) {
        peers_stats st = peers_summarize(s[v], reps);
        peers_emit(bench, names[v], &st, "");
        free(s[v]);
    }
    free(s);
}

#endif
