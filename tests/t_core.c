/* Core behaviour of markers and the probe API in one object: firing, site
 * bytes, layout, names with several sites, handles, counted enable,
 * listing, and every bad input of the name API. */
#include <stdarg.h>
#include <stdlib.h>
static int sink_calls;
static char sink_last[128];
static int test_sink(const char *fmt, ...);
#define EDGEPROBE_SINK(...) test_sink(__VA_ARGS__)
#define EDGEPROBE_IMPLEMENTATION /* this program's one copy of the implementation */
#include "edgeprobe.h"
#include "check.h"

static int test_sink(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(sink_last, sizeof sink_last, fmt, ap);
    va_end(ap);
    return ++sink_calls;
}

static int branch_hits, on_hits;
__attribute__((noinline)) static void traced(int n) { EDGEPROBE_TRACE(core_trace, "traced %d", n); }
__attribute__((noinline)) static void branched(void) {
    if (EDGEPROBE_BRANCH(core_branch)) branch_hits++;
}
__attribute__((noinline)) static void branched_on(void) {
    if (EDGEPROBE_BRANCH_ON(core_default_on)) on_hits++;
}
/* One point, inlined twice: one point, two sites. */
static inline __attribute__((always_inline)) void dup(void) { EDGEPROBE_TRACE(core_dup, "dup"); }
/* The two callers differ, or identical code folding (gcc -O2) makes them
 * one function with one site. */
static int dup_b_calls;
__attribute__((noinline)) static void dup_a(void) { dup(); }
__attribute__((noinline)) static void dup_b(void) {
    dup();
    dup_b_calls++;
}
/* One name at two source places. */
__attribute__((noinline)) static void same1(void) { EDGEPROBE_TRACE(core_same, "s1"); }
__attribute__((noinline)) static void same2(void) { EDGEPROBE_TRACE(core_same, "s2"); }

/* Do the bytes of every site of this binary match its probe's state? */
static void report_site(const unsigned char *site, const char *name, int on) {
    fprintf(stderr, "site %p of %s does not match state %d\n", (const void *)site, name, on);
}
static int sites_match_state(void) { return sites_mismatches(report_site) == 0; }

static void test_layout(void) {
    const edgeprobe__record *rec;
    int n = 0;
    for (rec = __start_edgeprobe_sites; rec < __stop_edgeprobe_sites; rec++, n++) {
        uintptr_t a = (uintptr_t)edgeprobe__rel(&rec->site);
        size_t len = CHECK_SITE_LEN(rec->flags);
        CHECK((a & ~(uintptr_t)7) == ((a + len - 1) & ~(uintptr_t)7)); /* one aligned word */
        CHECK((a & ~(uintptr_t)63) == ((a + len - 1) & ~(uintptr_t)63)); /* one line */
        if (len == 8) CHECK((a & 7) == 0);
        if (len == 4) CHECK((a & 3) == 0); /* aarch64: one aligned instruction */
    }
    CHECK(n >= 6);
    CHECK(sites_match_state());
}

static void test_firing(void) {
    int before;
    traced(1);
    CHECK_EQ(sink_calls, 0);
    CHECK_EQ(edgeprobe_enable("core_trace"), 1);
    CHECK(sites_match_state());
    traced(7);
    CHECK_EQ(sink_calls, 1);
    CHECK(strcmp(sink_last, "traced 7") == 0);
    CHECK_EQ(edgeprobe_enable("core_trace"), 0); /* idempotent */
    traced(8);
    CHECK_EQ(sink_calls, 2);
    CHECK_EQ(edgeprobe_disable("core_trace"), 1);
    CHECK_EQ(edgeprobe_disable("core_trace"), 0);
    CHECK(sites_match_state());
    before = sink_calls;
    traced(9);
    CHECK_EQ(sink_calls, before);

    branched();
    CHECK_EQ(branch_hits, 0);
    CHECK_EQ(edgeprobe_enable("core_branch"), 1);
    branched();
    branched();
    CHECK_EQ(branch_hits, 2);
    CHECK_EQ(edgeprobe_disable("core_branch"), 1);
    branched();
    CHECK_EQ(branch_hits, 2);

    branched_on(); /* on by default */
    CHECK_EQ(on_hits, 1);
    CHECK_EQ(edgeprobe_disable("core_default_on"), 1);
    CHECK(sites_match_state());
    branched_on();
    CHECK_EQ(on_hits, 1);
    CHECK_EQ(edgeprobe_enable("core_default_on"), 1);
    branched_on();
    CHECK_EQ(on_hits, 2);
}

static void test_several_sites(void) {
    edgeprobe_probe *p;
    edgeprobe_info info;
    int calls = sink_calls;
    CHECK_EQ(edgeprobe_probe_find("core_dup", &p), 0);
    CHECK_EQ(edgeprobe_enable("core_dup"), 1);
    dup_a();
    dup_b();
    CHECK_EQ(sink_calls, calls + 2);
    CHECK(sites_match_state());
    CHECK_EQ(edgeprobe_disable("core_dup"), 1);
    calls = sink_calls;
    CHECK_EQ(edgeprobe_enable("core_same"), 1); /* one name, two points */
    same1();
    same2();
    CHECK_EQ(sink_calls, calls + 2);
    CHECK_EQ(edgeprobe_disable("core_same"), 1);
    same1();
    same2();
    CHECK_EQ(sink_calls, calls + 2);
    CHECK_EQ(edgeprobe_probe_find("core_dup", &p), 0);
    CHECK_EQ(edgeprobe_point_info(0, &info), 0);
}

static int count_points(const edgeprobe_info *info, void *arg) {
    int *seen = (int *)arg;
    if (strcmp(info->name, "core_dup") == 0) {
        CHECK_EQ(info->sites, 2);
        CHECK(strcmp(info->function, "dup") == 0);
        CHECK(strstr(info->file, "t_core.c") != NULL);
        CHECK(info->line > 0);
        CHECK_EQ(info->kind, EDGEPROBE_KIND_TRACE);
    }
    if (strcmp(info->name, "core_same") == 0) seen[1]++;
    if (strcmp(info->name, "core_default_on") == 0) CHECK_EQ(info->kind, EDGEPROBE_KIND_BRANCH_ON);
    seen[0]++;
    return 0;
}
static int stop_early(const edgeprobe_info *info, void *arg) {
    (void)info;
    return ++*(int *)arg == 2 ? 42 : 0;
}

static void test_listing(void) {
    int seen[2] = {0, 0}, n = 0, id;
    edgeprobe_info info;
    CHECK_EQ(edgeprobe_foreach(count_points, seen), 0);
    CHECK_EQ(seen[0], edgeprobe_point_count());
    CHECK_EQ(seen[1], 2);
    CHECK_EQ(edgeprobe_foreach(stop_early, &n), 42);
    for (id = 0; id < edgeprobe_point_count(); id++) {
        CHECK_EQ(edgeprobe_point_info(id, &info), 0);
        CHECK_EQ(info.id, id);
    }
    CHECK_EQ(edgeprobe_point_info(-1, &info), EDGEPROBE_EINVAL);
    CHECK_EQ(edgeprobe_point_info(edgeprobe_point_count(), &info), EDGEPROBE_EINVAL);
    CHECK_EQ(edgeprobe_foreach(NULL, NULL), EDGEPROBE_EINVAL);
}

static void test_handles_and_counts(void) {
    edgeprobe_probe *p = NULL;
    CHECK_EQ(edgeprobe_probe_find("core_branch", &p), 0);
    CHECK(p != NULL);
    CHECK_EQ(edgeprobe_probe_on(p), 1);
    CHECK_EQ(edgeprobe_probe_on(p), 0);
    CHECK_EQ(edgeprobe_probe_is_on(p), 1);
    CHECK_EQ(edgeprobe_probe_off(p), 1);
    CHECK_EQ(edgeprobe_probe_off(p), 0);
    /* counted: two users */
    CHECK_EQ(edgeprobe_probe_get(p), 1);
    CHECK_EQ(edgeprobe_probe_get(p), 2);
    CHECK_EQ(edgeprobe_probe_put(p), 1);
    CHECK_EQ(edgeprobe_probe_is_on(p), 1);
    branched();
    CHECK_EQ(branch_hits, 3);
    CHECK_EQ(edgeprobe_probe_put(p), 0);
    CHECK_EQ(edgeprobe_probe_is_on(p), 0);
    CHECK_EQ(edgeprobe_probe_put(p), EDGEPROBE_EUNDERFLOW);
    CHECK_EQ(edgeprobe_probe_is_on(p), 0);
    CHECK(sites_match_state());
    CHECK_EQ(edgeprobe_probe_on(NULL), EDGEPROBE_EINVAL);
    CHECK_EQ(edgeprobe_probe_find("core_nope", &p), EDGEPROBE_ENOENT);
    CHECK_EQ(edgeprobe_probe_find("core_branch", NULL), EDGEPROBE_EINVAL);
}

static void test_globs(void) {
    int n = edgeprobe_enable("core_*");
    CHECK_EQ(n, 4); /* trace, branch, dup, same; default_on was already on */
    CHECK(sites_match_state());
    CHECK_EQ(edgeprobe_disable("core_[bt]*"), 2);
    CHECK_EQ(edgeprobe_disable("core_?up"), 1);
    CHECK_EQ(edgeprobe_disable("core_[!x]ame"), 1);
    CHECK_EQ(edgeprobe_disable("core_default_o\\n"), 1);
    CHECK_EQ(edgeprobe_enable("nothing_matches_*"), 0);
    CHECK_EQ(edgeprobe_enable("core_default_on"), 1);
    CHECK(sites_match_state());
}

static void test_bad_names(void) {
    char longname[EDGEPROBE_NAME_MAX + 2];
    memset(longname, 'a', sizeof longname - 1);
    longname[sizeof longname - 1] = 0;
    CHECK_EQ(edgeprobe_enable(NULL), EDGEPROBE_EINVAL);
    CHECK_EQ(edgeprobe_enable(""), EDGEPROBE_EINVAL);
    CHECK_EQ(edgeprobe_disable(NULL), EDGEPROBE_EINVAL);
    CHECK_EQ(edgeprobe_enable("no_such_probe"), EDGEPROBE_ENOENT);
    CHECK_EQ(edgeprobe_enable(longname), EDGEPROBE_ENAMETOOLONG);
    CHECK_EQ(edgeprobe_enable("core_[abc"), EDGEPROBE_EPATTERN);
    CHECK_EQ(edgeprobe_enable("core_trace\\"), EDGEPROBE_EPATTERN);
    CHECK(sites_match_state());
    CHECK(strstr(edgeprobe_strerror(EDGEPROBE_EPATTERN), "glob") != NULL);
    CHECK(strstr(edgeprobe_strerror(EDGEPROBE_EBYTES), "bytes") != NULL);
    CHECK(edgeprobe_strerror(-9999) != NULL);
    CHECK_EQ(EDGEPROBE_EINVAL, -22);
    CHECK_EQ(EDGEPROBE_ENOENT, -2);
}

int main(void) {
    test_layout();
    test_firing();
    test_several_sites();
    test_listing();
    test_handles_and_counts();
    test_globs();
    test_bad_names();
    return check_done("t_core");
}
