/* graph.c - a program whose call graph is known, for the views of
 * `edgeprobe prof` (tests/drivers/prof.sh, case prof-views):
 *
 *     graph ROUNDS
 *
 * Build with -O2 -g -fpatchable-function-entry=5. Every round, main calls
 *   - graph_a: spins OWN_A ticks of its own and calls graph_b once, which
 *     spins OWN_B: total(a) = OWN_A + OWN_B, self(a) = OWN_A;
 *   - graph_rec(DEPTH): recursive, OWN_REC ticks per level (half before the
 *     inner call, half after, so the call is no tail call): one outermost
 *     call lasts DEPTH * OWN_REC, while its calls together last DEPTH times
 *     that over 2 on average, which counted level by level pass the run;
 *   - graph_ping(DEPTH / 2): recursion through another function: ping calls
 *     pong (static), which calls ping one level down; OWN_PING ticks per call of
 *     either, so an outermost ping lasts DEPTH * OWN_PING;
 *   - graph_t: spins OWN_A ticks of its own, then jumps to graph_u (a tail
 *     call), which spins OWN_B: self(t)/total(t) = 0.4, as for graph_a.
 * The spins are TSC ticks, so the ratios hold whatever the machine does:
 * self(a)/total(a) = 0.4, total(b)/total(a) = 0.6, total(rec)/total(a) =
 * 0.8. */
#include <stdlib.h>

#define NOINLINE __attribute__((noinline, noclone))
enum { OWN_A = 20000, OWN_B = 30000, OWN_REC = 5000, DEPTH = 8, OWN_PING = 2500 };

static inline __attribute__((always_inline)) void spin(unsigned long long ticks) {
    unsigned long long t0 = __builtin_ia32_rdtsc();
    while (__builtin_ia32_rdtsc() - t0 < ticks) {}
}

NOINLINE void graph_b(void) { spin(OWN_B); }
NOINLINE void graph_a(void) {
    spin(OWN_A / 2);
    graph_b();
    spin(OWN_A / 2);
}
NOINLINE void graph_rec(int n) {
    spin(OWN_REC / 2);
    if (n > 1) graph_rec(n - 1);
    spin(OWN_REC / 2);
}

/* graph_u's return address is main's: only the profiler's frame of a timed
 * graph_t tells that graph_t called it */
NOINLINE void graph_u(void) { spin(OWN_B); }
NOINLINE void graph_t(void) {
    spin(OWN_A);
    graph_u(); /* -O2: a jmp (sibling call) */
}

/* static: without -g, addr2line names its file but no line (prof-file-line) */
static void graph_pong(int n);
NOINLINE void graph_ping(int n) {
    spin(OWN_PING / 2);
    graph_pong(n);
    spin(OWN_PING / 2);
}
static NOINLINE void graph_pong(int n) {
    spin(OWN_PING / 2);
    if (n > 1) graph_ping(n - 1);
    spin(OWN_PING / 2);
}

int main(int argc, char **argv) {
    long rounds = argc > 1 ? atol(argv[1]) : 1000, r;
    volatile int depth = DEPTH; /* no clone of graph_rec for a constant */
    for (r = 0; r < rounds; r++) {
        graph_a();
        graph_rec(depth);
        graph_ping(depth / 2);
        graph_t();
    }
    return 0;
}
