/* bench/real/prof_chain.c - a chain of tiny calls with known counts, the
 * shape of lua's hot paths (a call every few tens of ticks), for
 * bench/real/prof_charge.sh. Build with -O2 -fpatchable-function-entry=5.
 *
 *     prof_chain N     prints NAME CALLS for chain_top, chain_mid,
 *                      chain_leaf and chain_spin
 *
 * chain_top calls chain_mid 4 times, each chain_mid calls chain_leaf twice;
 * every 8th round also calls chain_spin (200 multiply-adds). */
#include <stdio.h>
#include <stdlib.h>
#define NOINLINE __attribute__((noinline))
static volatile unsigned long sink;
NOINLINE unsigned long chain_leaf(unsigned long x) { return x * 2654435761u + 1; }
NOINLINE unsigned long chain_mid(unsigned long x) { return chain_leaf(x) ^ chain_leaf(x + 1); }
NOINLINE unsigned long chain_top(unsigned long x) {
    unsigned long s = 0;
    int i;
    for (i = 0; i < 4; i++) s += chain_mid(x + (unsigned long)i);
    return s;
}
NOINLINE unsigned long chain_spin(unsigned long x) {
    int i;
    for (i = 0; i < 200; i++) x = x * 6364136223846793005ull + 1;
    return x;
}
int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 20000000, i;
    unsigned long s = 0;
    for (i = 0; i < n; i++) {
        s += chain_top((unsigned long)i);
        if ((i & 7) == 0) s += chain_spin((unsigned long)i);
    }
    sink = s;
    printf("chain_top %ld\nchain_mid %ld\nchain_leaf %ld\nchain_spin %ld\n", n, 4 * n, 8 * n, (n + 7) / 8);
    return 0;
}
