/* t_hits.c - per-point hit counts (include/edgeprobe.h section 8.12a):
 * enabled TRACE, BRANCH and HANDLER sites count every hit, from any number
 * of threads, exactly; disabled ones count nothing; BRANCH_ON counts
 * nothing; EDGEPROBE_HIT_COUNTS=0 compiles counting out. */
#include <pthread.h>
#include <stdarg.h>

static int sink_lines;
static int hits_sink(const char *fmt, ...) {
    (void)fmt;
    __atomic_fetch_add(&sink_lines, 1, __ATOMIC_RELAXED);
    return 0;
}
#define EDGEPROBE_SINK(...) hits_sink(__VA_ARGS__)
#include "check.h"
#define EDGEPROBE_IMPLEMENTATION /* this program's one copy of the implementation */
#include "edgeprobe.h"

#define THREADS 4
#define HITS_PER_THREAD 100000

static int ht_work(int x) {
    EDGEPROBE_TRACE(ht_trace, "x=%d\n", x);
    if (EDGEPROBE_BRANCH(ht_branch)) x++;
    if (EDGEPROBE_BRANCH_ON(ht_branch_on)) x--;
    EDGEPROBE_HANDLER(ht_handler, x);
    return x;
}
static void on_handler(const edgeprobe_info *info, void *user, uintptr_t v) { (void)info, (void)user, (void)v; }
static void *hammer(void *arg) {
    int i, acc = 0;
    (void)arg;
    for (i = 0; i < HITS_PER_THREAD; i++) acc += ht_work(i);
    return (void *)(intptr_t)acc;
}
static uint64_t hits_of(const char *name) {
    int id, n = edgeprobe_point_count();
    edgeprobe_info info;
    uint64_t h = 0;
    for (id = 0; id < n; id++)
        if (edgeprobe_point_info(id, &info) == 0 && !strcmp(info.name, name)) CHECK_EQ(edgeprobe_point_hits(id, &h), 0);
    return h;
}

int main(void) {
    pthread_t t[THREADS];
    int i;
    uint64_t expect = EDGEPROBE_HIT_COUNTS ? (uint64_t)THREADS * HITS_PER_THREAD : 0, h;
    hammer(0); /* disabled: no counts */
    CHECK_EQ(hits_of("ht_trace"), 0);
    CHECK_EQ(hits_of("ht_branch"), 0);
    CHECK_EQ(edgeprobe_enable("ht_trace"), 1);
    CHECK_EQ(edgeprobe_enable("ht_branch"), 1);
    CHECK_EQ(edgeprobe_attach("ht_handler", on_handler, 0), 1);
    for (i = 0; i < THREADS; i++) pthread_create(&t[i], 0, hammer, 0);
    for (i = 0; i < THREADS; i++) pthread_join(t[i], 0);
    CHECK_EQ(hits_of("ht_trace"), expect);
    CHECK_EQ(hits_of("ht_branch"), expect);
    CHECK_EQ(hits_of("ht_handler"), expect);
    CHECK_EQ(hits_of("ht_branch_on"), 0);
    CHECK_EQ(sink_lines, THREADS * HITS_PER_THREAD);
    edgeprobe_disable("ht_*");
    hammer(0);
    CHECK_EQ(hits_of("ht_trace"), expect);
    CHECK_EQ(edgeprobe_point_hits(-1, &h), EDGEPROBE_EINVAL);
    CHECK_EQ(edgeprobe_point_hits(edgeprobe_point_count(), &h), EDGEPROBE_EINVAL);
    CHECK_EQ(edgeprobe_point_hits(0, 0), EDGEPROBE_EINVAL);
    return check_done("t_hits");
}
