/* TRACE sites for tests/t_trace.c: each function formats its arguments
 * through EDGEPROBE_TRACE; t_trace.c formats the same values with snprintf
 * and compares. Linked in, or built as a shared library. */
#include <stdarg.h>
#include <stdio.h>
#include "trace/sites.h"

/* The sink: one captured line per hit. Declared before the header, as the
 * argument form of TRACE requires. */
char trace_line[4096];
int trace_lines;
static int capture(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int capture(const char *fmt, ...) {
    va_list ap;
    int n;
    va_start(ap, fmt);
    n = vsnprintf(trace_line, sizeof trace_line, fmt, ap);
    va_end(ap);
    trace_lines++;
    return n;
}
#define EDGEPROBE_SINK(...) capture(__VA_ARGS__)
#include "edgeprobe.h"

void ints(signed char a, unsigned char b, short c, unsigned short d, int e, unsigned f, long g, unsigned long h) {
    EDGEPROBE_TRACE(tr_ints, "%hhd %hhu %hd %hu %d %u %ld %lu|", a, b, c, d, e, f, g, h);
}
/* printf narrows an int for %hhd and %hx itself; clang warns about it. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat"
void narrowing(int a, int b, unsigned long long c, size_t z, intmax_t j, ptrdiff_t t) {
    EDGEPROBE_TRACE(tr_narrow, "%hhd %hx %llu %zu %jd %td %#llo %X", a, b, c, z, j, t, c, b);
}
#pragma GCC diagnostic pop
void pointers(const char *s, const char *null, const void *p, char ch) {
    EDGEPROBE_TRACE(tr_ptrs, "[%s] [%s] [%.3s] [%-8s] %p %c%c", s, null, s, s, p, ch, 'k');
}
void floats(double d, float f, double neg, double inf, double nan) {
    EDGEPROBE_TRACE(tr_floats, "%f %.2f %e %g %a %10.3f %-9.1e| %f %f %G", d, f, d, neg, f, d, neg, inf, nan, 1e-7);
}
void stars(int w, int prec, double d, const char *s) {
    EDGEPROBE_TRACE(tr_stars, "[%*d] [%-*.*f] [%.*s] [%*s]", w, 42, w, prec, d, prec, s, -w, s);
}
void twelve(long a, long b, long c, long d, long e, long f, double g, long h, long i, const char *j, long k, long l) {
    EDGEPROBE_TRACE(tr_twelve, "%ld %ld %ld %ld %ld %ld %.1f %ld %ld %s %ld %ld", a, b, c, d, e, f, g, h, i, j, k, l);
}
void nothing(void) { EDGEPROBE_TRACE(tr_none, "no arguments, 100%% literal\n"); }
/* Formats the registry refuses (the site is left out, with a log line):
 * %n would write through a traced pointer; a conversion with no argument
 * would read past them (the compiler warns about this one). */
void percent_n(int x) {
    int count = 7;
    EDGEPROBE_TRACE(tr_pctn, "x=%d%n!", x, &count);
    if (count != 7) trace_lines = -1000;
}
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat"
#pragma GCC diagnostic ignored "-Wformat-extra-args"
void too_few(int x) { EDGEPROBE_TRACE(tr_toofew, "%d %s", x); }
#pragma GCC diagnostic pop
void long_line(const char *s) { EDGEPROBE_TRACE(tr_long, "%700s|%s", s, s); }
int side_effects(int *counter) {
    EDGEPROBE_TRACE(tr_eager, "%d", ++*counter); /* evaluated whether on or not */
    EDGEPROBE_TRACE_LAZY(tr_lazy, "%d", ++*counter); /* evaluated only while on */
    return *counter;
}
/* A function whose only content is a TRACE on an argument: disabled, the
 * function is the NOP and the return (the driver checks its code). */
int only_trace(int x) {
    EDGEPROBE_TRACE(tr_only, "only %d\n", x);
    return x;
}
