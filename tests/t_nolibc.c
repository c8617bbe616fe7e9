/* No libc at all. Linked with -nostdlib -static; tests/nolibc.h supplies
 * _start, raw system calls for the OS hooks, a bump allocator, and the
 * memcpy, memcmp and memset that GCC (and clang) require of every
 * freestanding environment. This program toggles TRACE, BRANCH, BRANCH_ON
 * and HANDLER probes, checks every site's bytes after each enable and
 * disable, runs both writable-code policies, and reports through a raw
 * write(2); the exit status is the number of failed checks. No constructor
 * runs here (no C runtime): the first API call registers the sites. */
#include "nolibc.h"

static int trace_lines, trace_last;
static int trace_sink(const char *fmt, int n) {
    (void)fmt;
    trace_last = n;
    return ++trace_lines;
}
#define EDGEPROBE_SINK(...) trace_sink(__VA_ARGS__)
#define EDGEPROBE_IMPLEMENTATION /* this program's one copy of the implementation */
#include "edgeprobe.h"
#include "sites.h"

/* ---- the test ------------------------------------------------------------ */
static int checks, failures;
#define CHECK(cond) check_((cond) != 0, __LINE__, #cond)
static void check_(int ok, int line, const char *what) {
    checks++;
    if (ok) return;
    failures++;
    put("t_nolibc.c:");
    put_dec(line);
    put(": CHECK failed: ");
    put(what);
    put("\n");
}
#define CHECK_SITES() CHECK(sites_mismatches(0) == 0)

static int branch_hits, on_hits;
static uintptr_t handler_sum;
static void *handler_user;
__attribute__((noinline)) static void traced(int n) { EDGEPROBE_TRACE(nl_trace, "n=%d", n); }
__attribute__((noinline)) static void branched(void) {
    if (EDGEPROBE_BRANCH(nl_branch)) branch_hits++;
}
__attribute__((noinline)) static void branched_on(void) {
    if (EDGEPROBE_BRANCH_ON(nl_default_on)) on_hits++;
}
__attribute__((noinline)) static void handled(uintptr_t v) { EDGEPROBE_HANDLER(nl_handler, v); }
static void on_handler(const edgeprobe_info *info, void *user, uintptr_t value) {
    if (info && info->kind == EDGEPROBE_KIND_HANDLER) handler_sum += value;
    handler_user = user;
}
static void run_all(void) {
    traced(7);
    branched();
    branched_on();
    handled(5);
}

static void test_toggle(void) {
    static int cookie;
    run_all(); /* nothing registered yet: every site holds its NOP */
    CHECK(trace_lines == 0 && branch_hits == 0 && on_hits == 1 && handler_sum == 0);
    CHECK(edgeprobe_point_count() == 4); /* registers this object's sites */
    CHECK_SITES();

    CHECK(edgeprobe_enable("nl_*") == 3); /* trace, branch, handler; default_on was on */
    CHECK_SITES();
    CHECK(edgeprobe_attach("nl_handler", on_handler, &cookie) == 1);
    CHECK_SITES();
    run_all();
    CHECK(trace_lines == 1 && trace_last == 7 && branch_hits == 1 && on_hits == 2);
    CHECK(handler_sum == 5 && handler_user == &cookie);

    CHECK(edgeprobe_disable("nl_*") == 4);
    CHECK(edgeprobe_detach("nl_handler") == 1);
    CHECK(edgeprobe_handler_sync() == 0);
    CHECK_SITES();
    run_all();
    CHECK(trace_lines == 1 && branch_hits == 1 && on_hits == 2 && handler_sum == 5);

    CHECK(edgeprobe_enable("nl_default_on") == 1);
    CHECK_SITES();
    run_all();
    CHECK(on_hits == 3);
    CHECK(edgeprobe_enable("nl_nothing") == EDGEPROBE_ENOENT);
    CHECK(edgeprobe_enable("nl_[x") == EDGEPROBE_EPATTERN);
}

/* Strict W^X: open and close the page around every toggle. Keep-writable:
 * open it once. */
static void test_wx_policies(void) {
    edgeprobe_probe *p = 0;
    CHECK(edgeprobe_probe_find("nl_branch", &p) == 0);
    CHECK(edgeprobe_set_wx_strict(1) == 0);
    protect_calls = 0;
    CHECK(edgeprobe_probe_on(p) == 1);
    CHECK(protect_calls == 2);
    CHECK_SITES();
    branched();
    CHECK(branch_hits == 2);
    CHECK(edgeprobe_probe_off(p) == 1);
    CHECK(protect_calls == 4);
    CHECK_SITES();
    CHECK(edgeprobe_set_wx_strict(0) == 0);
    protect_calls = 0;
    CHECK(edgeprobe_probe_get(p) == 1);
    CHECK(edgeprobe_probe_put(p) == 0);
    CHECK(edgeprobe_probe_on(p) == 1);
    CHECK(protect_calls <= 1);
    CHECK_SITES();
    branched();
    CHECK(branch_hits == 3);
    CHECK(edgeprobe_probe_off(p) == 1);
    branched();
    CHECK(branch_hits == 3);
}

void nolibc_main(void) {
    test_toggle();
    test_wx_policies();
    put("t_nolibc: ");
    put_dec(checks);
    put(" checks, ");
    put_dec(failures);
    put(" failed\n");
    for (;;) sys3(NR_EXIT_GROUP, failures, 0, 0);
}
