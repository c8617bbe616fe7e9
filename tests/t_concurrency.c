/* Executor threads run marker sites while toggler threads flip them (by
 * name, glob, handle, counted), bounded by count and time. No crash; both
 * states seen; after the final disable and a settle, nothing fires. */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#define EDGEPROBE_IMPLEMENTATION /* this program's one copy of the implementation */
#include "edgeprobe.h"
#include "check.h"

#define EXECUTORS 2
#define TOGGLES_PER_THREAD 20000
#define MAX_SECONDS 3.0

static volatile int stop;
static unsigned long long hits[EXECUTORS], iterations[EXECUTORS];
static unsigned long long handler_calls;

static void on_handler(const edgeprobe_info *info, void *user, uintptr_t value) {
    (void)info;
    (void)user;
    __atomic_fetch_add(&handler_calls, value, __ATOMIC_RELAXED);
}
__attribute__((noinline)) static void work(int t) {
    if (EDGEPROBE_BRANCH(conc_a)) hits[t]++;
    if (EDGEPROBE_BRANCH(conc_b)) hits[t]++;
    EDGEPROBE_HANDLER(conc_h, 1);
    if (EDGEPROBE_BRANCH(conc_a)) hits[t]++; /* a second site of conc_a */
}
static void *executor(void *arg) {
    int t = (int)(intptr_t)arg;
    while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
        work(t);
        __atomic_store_n(&iterations[t], iterations[t] + 1, __ATOMIC_RELEASE);
    }
    return NULL;
}
static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}
static int errors;
static int any_hits(void) {
    int t;
    for (t = 0; t < EXECUTORS; t++)
        if (__atomic_load_n(&hits[t], __ATOMIC_RELAXED)) return 1;
    return 0;
}
/* TOGGLES_PER_THREAD toggles, and more until an executor has seen a probe
 * on (on a loaded machine the executors may not run while the togglers
 * do), within MAX_SECONDS. */
static void *toggler(void *arg) {
    int id = (int)(intptr_t)arg, i;
    edgeprobe_probe *b;
    double t0 = now();
    if (edgeprobe_probe_find("conc_b", &b) < 0) errors++;
    for (i = 0; (i < TOGGLES_PER_THREAD || !any_hits()) && now() - t0 < MAX_SECONDS; i++) {
        int rc;
        switch ((i + id) % 4) {
        case 0: rc = edgeprobe_enable(i & 1 ? "conc_a" : "conc_*"); break;
        case 1: rc = edgeprobe_disable(i & 2 ? "conc_a" : "conc_[ab]"); break;
        case 2: rc = i & 1 ? edgeprobe_probe_get(b) : edgeprobe_probe_off(b); break;
        default: rc = i & 1 ? edgeprobe_attach("conc_h", on_handler, NULL) : edgeprobe_detach("conc_h"); break;
        }
        if (rc < 0) __atomic_fetch_add(&errors, 1, __ATOMIC_RELAXED);
    }
    return NULL;
}
/* Wait until every executor has started a new iteration since now. */
static void settle(void) {
    unsigned long long seen[EXECUTORS];
    int t;
    for (t = 0; t < EXECUTORS; t++) seen[t] = __atomic_load_n(&iterations[t], __ATOMIC_ACQUIRE);
    for (t = 0; t < EXECUTORS; t++)
        while (__atomic_load_n(&iterations[t], __ATOMIC_ACQUIRE) < seen[t] + 2) sched_yield();
}

int main(void) {
    pthread_t ex[EXECUTORS], tg[2];
    unsigned long long total = 0, after = 0, calls_before;
    int t;
    for (t = 0; t < EXECUTORS; t++) pthread_create(&ex[t], NULL, executor, (void *)(intptr_t)t);
    settle(); /* executors running before toggling starts (a loaded machine may not schedule them) */
    for (t = 0; t < 2; t++) pthread_create(&tg[t], NULL, toggler, (void *)(intptr_t)t);
    for (t = 0; t < 2; t++) pthread_join(tg[t], NULL);
    CHECK_EQ(errors, 0);
    for (t = 0; t < EXECUTORS; t++) total += hits[t];
    CHECK(total > 0); /* the probes did fire while being toggled */

    CHECK(edgeprobe_disable("conc_*") >= 0);
    CHECK(edgeprobe_detach("conc_h") >= 0);
    settle(); /* every executor is past the sites it was in when disable returned */
    for (total = 0, t = 0; t < EXECUTORS; t++) total += hits[t];
    calls_before = __atomic_load_n(&handler_calls, __ATOMIC_RELAXED);
    settle();
    settle();
    for (t = 0; t < EXECUTORS; t++) after += hits[t];
    CHECK_EQ(after, total);
    CHECK_EQ(__atomic_load_n(&handler_calls, __ATOMIC_RELAXED), calls_before);
    __atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
    for (t = 0; t < EXECUTORS; t++) pthread_join(ex[t], NULL);
    printf("t_concurrency: %llu iterations, %llu hits while toggling\n", iterations[0] + iterations[1], total);
    return check_done("t_concurrency");
}
