/* Arguments that live in globals: gcc hands a volatile global to the
 * marker as a memory operand with a symbol (`counter(%rip)`, and without
 * PIE `table(,%rax,8)`), which the run-time parser used to refuse when the
 * probe was switched on (EDGEPROBE_EINVAL, naming neither the site nor the
 * reason). Each form must switch on and read the right value; built as
 * PIE, non-PIE, and into a shared library. */
#include <stdarg.h>
#include <stdio.h>
static char line[256];
static int capture(const char *fmt, ...) { /* EDGEPROBE_SINK: called as ("%s", line) */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    return 0;
}
#define EDGEPROBE_SINK(...) capture(__VA_ARGS__)
#define EDGEPROBE_IMPLEMENTATION
#include "edgeprobe.h"
#include "check.h"

static volatile unsigned long counter = 41;
static volatile unsigned char small = 200;
static volatile long table[8] = {0, 10, 20, 30, 40, 50, 60, 70};
static volatile struct { int pad; int field; } rec = {1, -5};
static volatile double ratio = 2.5;
volatile long exported = 1234567890123L;

static uint64_t seen[8];
static int seen_n, calls;
static void on_args(const edgeprobe_info *probe, void *user, const uint64_t *args, int nargs) {
    int i;
    (void)probe, (void)user;
    calls++;
    seen_n = nargs;
    for (i = 0; i < nargs && i < 8; i++) seen[i] = args[i];
}

__attribute__((noinline)) static void probe_globals(int i) {
    static volatile int in_function = 7;
    EDGEPROBE_PROBE(globals, counter, small, table[i], rec.field, in_function, exported);
}
__attribute__((noinline)) static void trace_globals(int i) {
    EDGEPROBE_TRACE(globals_trace, "counter=%lu table=%ld ratio=%.2f\n", counter, table[i], ratio);
}

#ifdef LIBRARY /* tests/args/main.c calls it */
int global_args_main(void);
int global_args_main(void) {
#else
int main(void) {
#endif
    CHECK_EQ(edgeprobe_attach_args("globals", on_args, 0), 1);
    probe_globals(3);
    CHECK_EQ(calls, 1);
    CHECK_EQ(seen_n, 6);
    CHECK_EQ(seen[0], 41);
    CHECK_EQ(seen[1], 200);
    CHECK_EQ(seen[2], 30);
    CHECK_EQ((int64_t)seen[3], -5);
    CHECK_EQ(seen[4], 7);
    CHECK_EQ(seen[5], 1234567890123L);
    counter = 99, table[5] = -1;
    probe_globals(5);
    CHECK_EQ(seen[0], 99);
    CHECK_EQ((int64_t)seen[2], -1);

    CHECK_EQ(edgeprobe_enable("globals_trace"), 1);
    trace_globals(2);
    CHECK(strcmp(line, "counter=99 table=20 ratio=2.50\n") == 0);
    if (strcmp(line, "counter=99 table=20 ratio=2.50\n")) fprintf(stderr, "line: %s", line);
    return check_done("t_global_args");
}
