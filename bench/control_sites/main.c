/* bench/control_sites/main.c - does hit counting make disabled probes
 * dearer? Hit counts sit on the enabled path only, but code on the enabled
 * path makes probed functions bigger, and code size is what disabled probes
 * cost in large programs. 4,096 small functions per variant (gen.py), each
 * called once per pass in a fixed random order (the code overflows L1i);
 * all probes off; variants interleaved; TSC ticks per call, median of 301
 * passes, against the probe-free variant. counted = default build,
 * uncounted = -DEDGEPROBE_HIT_COUNTS=0. */
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#define N 4096
extern int (*const tab_none[N])(int), (*const tab_b0[N])(int), (*const tab_b1[N])(int), (*const tab_t0[N])(int), (*const tab_t1[N])(int);
static unsigned perm[N];
static int cmp(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return x < y ? -1 : x > y; }
static double pass(int (*const *t)(int)) {
    int acc = 1, i; uint64_t t0 = __builtin_ia32_rdtsc();
    for (i = 0; i < N; i++) acc = t[perm[i]](acc);
    __asm__ volatile("" :: "r"(acc));
    return (double)(__builtin_ia32_rdtsc() - t0) / N;
}
int main(void) {
    int (*const *tabs[5])(int) = {tab_none, tab_b0, tab_b1, tab_t0, tab_t1};
    const char *names[5] = {"none", "branch uncounted", "branch counted", "trace uncounted", "trace counted"};
    static double s[5][301]; int i, r, k;
    for (i = 0; i < N; i++) perm[i] = i;
    srand(1); for (i = N - 1; i > 0; i--) { int j = rand() % (i + 1); unsigned t = perm[i]; perm[i] = perm[j]; perm[j] = t; }
    for (r = 0; r < 301; r++) for (k = 0; k < 5; k++) s[(k + r) % 5][r] = pass(tabs[(k + r) % 5]);
    for (k = 0; k < 5; k++) { qsort(s[k], 301, sizeof(double), cmp); printf("%-18s %.2f ticks/call  (%.3fx none)\n", names[k], s[k][150], s[k][150] / s[0][150]); }
    return 0;
}
