/* sites.c - EDGEPROBE_PROBE markers for t_probe.c (see sites.h). */
#include "edgeprobe.h"
#include "sites.h"

int widths(int8_t a, uint8_t b, int16_t c, uint16_t d, int32_t e, uint32_t f, int64_t g, uint64_t h) {
    EDGEPROBE_PROBE(pr_widths, a, b, c, d, e, f, g, h);
    return a + b + c + d + (int)e + (int)f + (int)g + (int)h;
}
int kinds(const char *s, void *p, _Bool z, enum color c, char ch, long l) {
    char arr[4] = {1, 2, 3, 4};
    EDGEPROBE_PROBE(pr_kinds, s, p, z, c, ch, l, arr);
    return arr[(unsigned)l & 3] + (int)z;
}
int constants(void) {
    EDGEPROBE_PROBE(pr_constants, 0, -1, 42, 0x7fffffffffffffffLL, -0x7fffffffffffffffLL - 1, 0xffffffffu, 'x');
    return 1;
}
/* Twelve arguments: at -O0 every one lives in a stack slot. */
long twelve(long a, int b, short c, signed char d, unsigned e, unsigned long f, long g, int h, unsigned short i,
            unsigned char j, long k, int l) {
    EDGEPROBE_PROBE(pr_twelve, a, b, c, d, e, f, g, h, i, j, k, l);
    return a + b + c + d + e + (long)f + g + h + i + j + k + l;
}
/* A leaf function with live data in the 128 bytes below %rsp (the red
 * zone) across the site: an enabled path that wrote there would change the
 * sum. */
long redzone_leaf(long seed) {
    volatile long buf[16];
    long sum = 0;
    int i;
    for (i = 0; i < 16; i++) buf[i] = seed * (i + 1) ^ 0x5a5a5a5a5a5aL;
    EDGEPROBE_PROBE(pr_redzone, seed);
    for (i = 0; i < 16; i++) sum += buf[i] * (i + 3);
    return sum;
}
int no_args(int x) {
    EDGEPROBE_PROBE(pr_none);
    return x + 1;
}
int hot_site(int x) {
    EDGEPROBE_PROBE(pr_hot, x, x * 3);
    return x;
}
