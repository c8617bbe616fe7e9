/* bench/real/prof_hot.c - many tiny functions, each called millions of
 * times, all of them hot at every tick: the shape where `edgeprobe prof`'s
 * estimated calls read low (lua's hottest functions read 0.6 of their calls
 * before THE SECOND COUNT, tools/prof_agent.c). Run by bench/real/
 * prof_hot.sh, which compares the report's estimates with the truth.
 *
 *     prof_hot ROUNDS TRUTHFILE
 *
 * Build with -O2 -fpatchable-function-entry=5. Each round calls hot_II (64
 * functions, II = 10..17, 20..27, ..., 80..87) 1 to 8 times (the last
 * digit + 1) through a table; TRUTHFILE gets NAME CALLS per function. */
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))
static volatile unsigned long sink;
#define F(n) NOINLINE void hot_##n(void) { sink = sink * 31 + n; }
#define F8(d) F(d##0) F(d##1) F(d##2) F(d##3) F(d##4) F(d##5) F(d##6) F(d##7)
F8(1) F8(2) F8(3) F8(4) F8(5) F8(6) F8(7) F8(8)
#define T(n) hot_##n,
#define T8(d) T(d##0) T(d##1) T(d##2) T(d##3) T(d##4) T(d##5) T(d##6) T(d##7)
static void (*const table[64])(void) = {T8(1) T8(2) T8(3) T8(4) T8(5) T8(6) T8(7) T8(8)};

int main(int argc, char **argv) {
    long rounds = argc > 2 ? atol(argv[1]) : 0, r;
    FILE *out = argc > 2 ? fopen(argv[2], "w") : 0;
    int i, k;
    if (rounds <= 0 || !out) {
        fprintf(stderr, "usage: prof_hot ROUNDS TRUTHFILE\n");
        return 2;
    }
    for (r = 0; r < rounds; r++)
        for (i = 0; i < 64; i++)
            for (k = 0; k <= (i & 7); k++) table[i]();
    for (i = 0; i < 64; i++) fprintf(out, "hot_%d%d %ld\n", i / 8 + 1, i % 8, rounds * ((i & 7) + 1));
    return fclose(out) != 0;
}
