/* bench/real/dense_phases.c - many short functions, a few at a time, in
 * phases of random length: what bench/real/prof_stagger.sh estimates
 * against the program's own counts.
 *
 *     dense_phases PHASES SEED
 *
 * Build with -O2 -fpatchable-function-entry=5. Each phase lasts 1 to 60 ms
 * (2.5 M to 152.5 M TSC ticks) and calls 3 to 8 functions picked at random
 * of FUNCTIONS, each every 1st to 5th turn of its loop. A function is a
 * dependent chain of 1 to 12 multiplies (a few to some tens of ticks): a
 * call every ten ticks or so, as in lua, but work that out-of-order
 * execution overlaps with the skip path's few instructions, where lua's
 * loads and stores do not. The phases run by the TSC, so the calls differ
 * from run to run: it prints its own, one line per function: NAME CALLS. */
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))
enum { FUNCTIONS = 48, MAX_SET = 8 };

static volatile unsigned long sink;

#define CHAIN(name, steps)                                                                                             \
    NOINLINE void name(void) {                                                                                         \
        unsigned long x = sink, i;                                                                                     \
        for (i = 0; i < (steps); i++) x = x * 2654435761u + 1;                                                         \
        sink = x;                                                                                                      \
    }
#define SIX(n) CHAIN(g##n##0, 1) CHAIN(g##n##1, 2) CHAIN(g##n##2, 3) CHAIN(g##n##3, 5) CHAIN(g##n##4, 8) CHAIN(g##n##5, 12)
SIX(0) SIX(1) SIX(2) SIX(3) SIX(4) SIX(5) SIX(6) SIX(7)
#define NAMES(n) g##n##0, g##n##1, g##n##2, g##n##3, g##n##4, g##n##5
static void (*const functions[FUNCTIONS])(void) = {NAMES(0), NAMES(1), NAMES(2), NAMES(3),
                                                   NAMES(4), NAMES(5), NAMES(6), NAMES(7)};
static const char *const names[FUNCTIONS] = {
#define QUOTED(n) "g" #n "0", "g" #n "1", "g" #n "2", "g" #n "3", "g" #n "4", "g" #n "5"
    QUOTED(0), QUOTED(1), QUOTED(2), QUOTED(3), QUOTED(4), QUOTED(5), QUOTED(6), QUOTED(7)};
static unsigned long calls[FUNCTIONS];

static unsigned long long state = 88172645463325252ull;
static unsigned next_random(void) { /* xorshift64 */
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return (unsigned)state;
}

static void phase(void) {
    unsigned long long len = 2500000ull + (unsigned long long)(next_random() % 151) * 1000000ull;
    unsigned long long t0 = __builtin_ia32_rdtsc();
    int set[MAX_SET], every[MAX_SET], n = 3 + (int)(next_random() % 6), j, i;
    unsigned long turn = 0;
    for (j = 0; j < n; j++) {
        set[j] = (int)(next_random() % FUNCTIONS);
        every[j] = 1 + (int)(next_random() % 5);
    }
    while (__builtin_ia32_rdtsc() - t0 < len) /* the clock read once in 16 turns */
        for (i = 0; i < 16; i++, turn++)
            for (j = 0; j < n; j++)
                if (turn % (unsigned long)every[j] == 0) {
                    functions[set[j]]();
                    calls[set[j]]++;
                }
}

int main(int argc, char **argv) {
    int phases = argc > 1 ? atoi(argv[1]) : 60, p, i;
    if (argc > 2) state = strtoull(argv[2], 0, 0) | 1;
    for (p = 0; p < phases; p++) phase();
    for (i = 0; i < FUNCTIONS; i++) printf("%s %lu\n", names[i], calls[i]);
    return 0;
}
