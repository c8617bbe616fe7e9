/* demo.c - worker threads serve fake requests through code full of probes
 * while a monitoring thread switches the probes on and off at a steady
 * rate. Prints what fired, how many toggles were made, and what a toggle
 * cost. Runs for about two seconds.
 *
 *     make demo                     # or: EDGEPROBE_ENABLE="req_*" ./build/demo
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Route EDGEPROBE_TRACE output into a small buffer instead of stderr: the
 * workers produce millions of events. Must be defined before the include. */
static int demo_sink(const char *fmt, ...);
#define EDGEPROBE_SINK(...) demo_sink(__VA_ARGS__)
#define EDGEPROBE_IMPLEMENTATION /* this program's one copy of the implementation */
#include "edgeprobe.h"

#define WORKERS 2
#define RUN_SECONDS 2.0
#define TOGGLE_PERIOD_US 500 /* the monitor switches something 2000 times a second */

static unsigned long long trace_lines;
static char first_lines[4][96];
static int demo_sink(const char *fmt, ...) {
    unsigned long long n = __atomic_fetch_add(&trace_lines, 1, __ATOMIC_RELAXED);
    if (n < 4) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(first_lines[n], sizeof first_lines[n], fmt, ap);
        va_end(ap);
    }
    return 0;
}

/* ---- the "application" ------------------------------------------------ */
static volatile int running = 1;
static unsigned long long requests[WORKERS], slow_checks, handler_events;

static int parse(int worker, int id) {
    EDGEPROBE_TRACE(req_parse, "worker %d parses request %d\n", worker, id);
    return id * 7 + 3;
}
static int compute(int v) {
    int i, acc = v;
    for (i = 0; i < 50; i++) acc = acc * 31 + i;
    if (EDGEPROBE_BRANCH(req_validate)) { /* an expensive check, off by default */
        __atomic_fetch_add(&slow_checks, 1, __ATOMIC_RELAXED);
    }
    return acc;
}
static void reply(int worker, int id, int result) {
    EDGEPROBE_HANDLER(req_reply, (uintptr_t)result);
    EDGEPROBE_TRACE(req_reply_trace, "worker %d replies %d to %d\n", worker, result, id);
}
static void *worker(void *arg) {
    int w = (int)(intptr_t)arg, id = 0;
    while (running) {
        reply(w, id, compute(parse(w, id)));
        id++;
        __atomic_store_n(&requests[w], requests[w] + 1, __ATOMIC_RELEASE);
    }
    return NULL;
}
static void count_replies(const edgeprobe_info *probe, void *user, uintptr_t result) {
    (void)probe, (void)user, (void)result;
    __atomic_fetch_add(&handler_events, 1, __ATOMIC_RELAXED);
}

/* ---- the monitor ---------------------------------------------------------- */
static double seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}
static int cmp_u64(const void *a, const void *b) {
    unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;
    return x < y ? -1 : x > y;
}
#define MAX_SAMPLES 8192
static unsigned long long lat[MAX_SAMPLES];
static int nlat, toggles;

/* One toggle, timed in TSC ticks. */
static void timed(int (*fn)(edgeprobe_probe *), edgeprobe_probe *p) {
    unsigned long long t0 = __builtin_ia32_rdtsc();
    int rc = fn(p);
    unsigned long long t1 = __builtin_ia32_rdtsc();
    if (rc < 0) fprintf(stderr, "toggle failed: %s\n", edgeprobe_strerror(rc));
    if (nlat < MAX_SAMPLES) lat[nlat++] = t1 - t0;
    toggles++;
}

int main(void) {
    pthread_t th[WORKERS];
    edgeprobe_probe *parse_p, *validate_p;
    struct timespec period = {0, TOGGLE_PERIOD_US * 1000};
    unsigned long long total = 0, quiet_before;
    double t0;
    int w, i, rc;

    if ((rc = edgeprobe_probe_find("req_parse", &parse_p)) < 0 ||
        (rc = edgeprobe_probe_find("req_validate", &validate_p)) < 0) {
        fprintf(stderr, "lookup failed: %s\n", edgeprobe_strerror(rc));
        return 1;
    }
    printf("probes in this program:\n");
    for (i = 0; i < edgeprobe_point_count(); i++) {
        edgeprobe_info info;
        if (edgeprobe_point_info(i, &info) == 0)
            printf("  #%d %-16s %s:%d in %s(), %d site(s)\n", info.id, info.name, info.file, info.line,
                   info.function, info.sites);
    }
    edgeprobe_attach("req_reply", count_replies, NULL);
    for (w = 0; w < WORKERS; w++) pthread_create(&th[w], NULL, worker, (void *)(intptr_t)w);

    t0 = seconds();
    for (i = 0; seconds() - t0 < RUN_SECONDS; i++) {
        /* handles for the hot pair, names and globs for the rest */
        timed(i & 1 ? edgeprobe_probe_off : edgeprobe_probe_on, parse_p);
        timed(i & 1 ? edgeprobe_probe_off : edgeprobe_probe_on, validate_p);
        if (i % 100 == 0) {
            rc = i % 200 ? edgeprobe_disable("req_reply*") : edgeprobe_enable("req_reply*");
            toggles++;
        }
        nanosleep(&period, NULL);
    }
    edgeprobe_disable("req_*");
    edgeprobe_detach("req_reply");
    /* An event already under way when the probes went off still ends (a
     * worker may be preempted inside it): count from the moment every
     * worker has started a new request, then wait a little. */
    for (w = 0; w < WORKERS; w++) {
        unsigned long long seen = __atomic_load_n(&requests[w], __ATOMIC_ACQUIRE);
        while (__atomic_load_n(&requests[w], __ATOMIC_ACQUIRE) < seen + 2) nanosleep(&period, NULL);
    }
    quiet_before = trace_lines + slow_checks + handler_events;
    nanosleep(&period, NULL);
    nanosleep(&period, NULL);
    running = 0;
    for (w = 0; w < WORKERS; w++) pthread_join(th[w], NULL);
    for (w = 0; w < WORKERS; w++) total += requests[w];

    qsort(lat, (size_t)nlat, sizeof lat[0], cmp_u64);
    printf("\n%llu requests served by %d workers in %.1f s while the monitor made %d toggles\n", total,
           WORKERS, RUN_SECONDS, toggles);
    printf("fired: %llu trace lines, %llu validation checks, %llu reply-handler events\n", trace_lines,
           slow_checks, handler_events);
    for (i = 0; i < 4 && first_lines[i][0]; i++) printf("  trace: %s", first_lines[i]);
    printf("toggle by handle: median %llu, p99 %llu TSC ticks over %d toggles\n", lat[nlat / 2],
           lat[nlat * 99 / 100], nlat);
    printf("after the final disable: %llu events (must be 0 once the workers passed the sites)\n",
           trace_lines + slow_checks + handler_events - quiet_before);
    return trace_lines && slow_checks && handler_events ? 0 : 1;
}
