/* EDGEPROBE_TRACE, argument form: every line equals snprintf of the same
 * format and values (integer widths and signs, pointers, strings, float and
 * double, '*' widths and precisions, 12 arguments, none, a line longer than
 * the stack buffer); formats with %n or too few arguments are refused; arguments are evaluated whether the
 * probe is on or not (EDGEPROBE_TRACE_LAZY: only while on); disabled probes
 * print nothing; sites toggled under executor threads. The sites live in
 * tests/trace/sites.c, linked in or loaded as a shared library. */
#include <math.h>
#include <pthread.h>
#include <unistd.h>
#include <stdlib.h>
#define EDGEPROBE_IMPLEMENTATION /* this program's one copy of the implementation */
#include "edgeprobe.h"
#include "check.h"
#include "trace/sites.h"

static char want[4096];
static const char *volatile null_string; /* NULL, unknown to the compiler */
/* The expected lines narrow ints for %hhd and %hu as printf does. */
#pragma GCC diagnostic ignored "-Wformat"
/* The line of one hit of `probe`, or a complaint. */
#define EXPECT_LINE(probe, call, ...)                                          \
    do {                                                                       \
        int before_ = trace_lines;                                             \
        snprintf(want, sizeof want, __VA_ARGS__);                              \
        CHECK_EQ(edgeprobe_enable(probe), 1);                                  \
        call;                                                                  \
        CHECK_EQ(trace_lines, before_ + 1);                                    \
        CHECK(!strcmp(trace_line, want));                                      \
        if (strcmp(trace_line, want))                                          \
            fprintf(stderr, "%s: got  \"%s\"\n%s: want \"%s\"\n", probe, trace_line, probe, want); \
        CHECK_EQ(edgeprobe_disable(probe), 1);                                 \
        call;                                                                  \
        CHECK_EQ(trace_lines, before_ + 1); /* off: nothing more */           \
    } while (0)

static void test_values(void) {
    static const char text[] = "hello";
    int local;
    EXPECT_LINE("tr_ints", ints(-128, 255, -32768, 65535, INT32_MIN, 4294967295u, INT64_MIN, UINT64_MAX),
                "%hhd %hhu %hd %hu %d %u %ld %lu|", -128, 255, -32768, 65535, INT32_MIN, 4294967295u, INT64_MIN,
                UINT64_MAX);
    EXPECT_LINE("tr_ints", ints(5, 6, 7, 8, 9, 10, 11, 12), "%hhd %hhu %hd %hu %d %u %ld %lu|", 5, 6, 7, 8, 9,
                10u, 11L, 12UL);
    EXPECT_LINE("tr_narrow", narrowing(300, 70000, 18446744073709551615ULL, (size_t)-1, INTMAX_MIN, -5),
                "%hhd %hx %llu %zu %jd %td %#llo %X", 300, 70000, 18446744073709551615ULL, (size_t)-1, INTMAX_MIN,
                (ptrdiff_t)-5, 18446744073709551615ULL, 70000);
    EXPECT_LINE("tr_ptrs", pointers(text, null_string, &local, 'Q'), "[%s] [%s] [%.3s] [%-8s] %p %c%c", text,
                null_string, text, text, (void *)&local, 'Q', 'k');
    EXPECT_LINE("tr_floats", floats(3.14159265358979, 2.5f, -1234.5678e10, INFINITY, NAN),
                "%f %.2f %e %g %a %10.3f %-9.1e| %f %f %G", 3.14159265358979, 2.5, 3.14159265358979,
                -1234.5678e10, 2.5, 3.14159265358979, -1234.5678e10, INFINITY, NAN, 1e-7);
    EXPECT_LINE("tr_stars", stars(7, 2, 2.71828, "abcdef"), "[%*d] [%-*.*f] [%.*s] [%*s]", 7, 42, 7, 2, 2.71828, 2,
                "abcdef", -7, "abcdef");
    EXPECT_LINE("tr_stars", stars(3, -1, 0.5, "xyz"), "[%*d] [%-*.*f] [%.*s] [%*s]", 3, 42, 3, -1, 0.5, -1, "xyz",
                -3, "xyz");
    EXPECT_LINE("tr_twelve", twelve(-1, -2, -3, -4, 4000000000L, 0x7edcba9876543210L, 6.5, -8, 65000, "twelve",
                                    1L << 40, -12),
                "%ld %ld %ld %ld %ld %ld %.1f %ld %ld %s %ld %ld", -1L, -2L, -3L, -4L, 4000000000L,
                0x7edcba9876543210L, 6.5, -8L, 65000L, "twelve", 1L << 40, -12L);
    EXPECT_LINE("tr_none", nothing(), "no arguments, 100%% literal\n");
}
/* Refused when switched on, every time (the driver checks the log lines). */
static void test_refused_formats(void) {
    int before = trace_lines;
    if (!EDGEPROBE__TRACE_ARGS_FORM) return; /* the lazy form is printf itself */
    CHECK_EQ(edgeprobe_enable("tr_pctn"), EDGEPROBE_EINVAL);
    CHECK_EQ(edgeprobe_enable("tr_pctn"), EDGEPROBE_EINVAL);
    CHECK_EQ(edgeprobe_enable("tr_toofew"), EDGEPROBE_EINVAL);
    percent_n(5);
    too_few(5);
    CHECK_EQ(trace_lines, before);
}
static void test_long_line(void) {
    char s[300];
    memset(s, 'z', sizeof s - 1);
    s[sizeof s - 1] = 0;
    EXPECT_LINE("tr_long", long_line(s), "%700s|%s", s, s);
    CHECK_EQ(strlen(trace_line), 700 + 1 + 299);
}
static void test_evaluation(void) {
    int counter = 0, before = trace_lines;
    side_effects(&counter);
    /* off: the argument form's argument is evaluated, TRACE_LAZY's is not */
    CHECK_EQ(counter, EDGEPROBE__TRACE_ARGS_FORM);
    CHECK_EQ(trace_lines, before);
    CHECK_EQ(edgeprobe_enable("tr_lazy"), 1);
    side_effects(&counter);
    CHECK_EQ(counter, 2 * EDGEPROBE__TRACE_ARGS_FORM + 1);
    CHECK_EQ(trace_lines, before + 1);
    CHECK_EQ(atoi(trace_line), counter);
    CHECK_EQ(edgeprobe_disable("tr_lazy"), 1);
}
/* The point of tr_only: a TRACE, with one site. */
static int find_only(const edgeprobe_info *info, void *arg) {
    if (strcmp(info->name, "tr_only")) return 0;
    *(edgeprobe_info *)arg = *info;
    return 1;
}
static int only_id(void) {
    edgeprobe_info info;
    memset(&info, 0, sizeof info);
    CHECK_EQ(edgeprobe_foreach(find_only, &info), 1);
    CHECK_EQ(info.kind, EDGEPROBE_KIND_TRACE);
    CHECK_EQ(info.sites, 1);
    return info.id;
}

/* Executors call a TRACE site while the main thread toggles it. */
static volatile int stop;
static void *executor(void *arg) {
    long n = 0;
    (void)arg;
    while (!stop) n += only_trace((int)n) >= 0;
    return (void *)n;
}
static void test_toggle_under_load(void) {
    pthread_t t[2];
    int i, ok = 1;
    for (i = 0; i < 2; i++) pthread_create(&t[i], NULL, executor, NULL);
    for (i = 0; i < 20000; i++) {
        ok &= edgeprobe_enable("tr_only") == 1;
        ok &= edgeprobe_disable("tr_only") == 1;
    }
    /* on once more until an executor printed (up to 5 s: on a loaded
     * machine they may not have run during the loop) */
    ok &= edgeprobe_enable("tr_only") == 1;
    for (i = 0; i < 5000 && !__atomic_load_n(&trace_lines, __ATOMIC_RELAXED); i++) usleep(1000);
    ok &= edgeprobe_disable("tr_only") == 1;
    stop = 1;
    for (i = 0; i < 2; i++) pthread_join(t[i], NULL);
    CHECK(ok);
    CHECK(trace_lines > 0);
}
/* An enabled TRACE counts its hits (section 8.12a). */
static void test_hits(void) {
    uint64_t before = 0, after = 0;
    int i, id = only_id();
    CHECK_EQ(edgeprobe_point_hits(id, &before), 0);
    CHECK_EQ(edgeprobe_enable("tr_only"), 1);
    for (i = 0; i < 10; i++) only_trace(i);
    CHECK_EQ(edgeprobe_disable("tr_only"), 1);
    for (i = 0; i < 10; i++) only_trace(i);
    CHECK_EQ(edgeprobe_point_hits(id, &after), 0);
    CHECK_EQ(after - before, 10);
}

int main(void) {
    test_values();
    test_refused_formats();
    test_long_line();
    test_evaluation();
    test_hits();
    test_toggle_under_load();
    return check_done("t_trace");
}
