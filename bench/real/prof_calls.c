/* bench/real/prof_calls.c - small and middle-sized functions called often, for
 * edgeprobe prof's cost and call counts against --mode on (bench/RESULTS-real.md,
 * "Call counts and latencies against known truth"):
 *     gcc -O2 -fpatchable-function-entry=5 bench/real/prof_calls.c -o prof_calls
 *     build/edgeprobe prof -o R -- ./prof_calls 40000 */
#include <stdio.h>
#include <stdlib.h>
#define NI __attribute__((noinline))
NI unsigned mix(unsigned x) { x ^= x >> 16; x *= 0x7feb352d; x ^= x >> 15; return x; }
NI unsigned fib(unsigned n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
NI unsigned block(unsigned s) { unsigned i, h = s; for (i = 0; i < 2000; i++) h = h * 31 + (i ^ s); return h; }
NI unsigned middle(unsigned s) { unsigned h = 0, i; for (i = 0; i < 20; i++) h += mix(s + i); return h + block(h); }
int main(int argc, char **argv) {
    unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : 200, i, acc = 0;
    for (i = 0; i < n; i++) { acc += fib(20); acc += middle(i); }
    printf("%u\n", acc);
    return 0;
}
