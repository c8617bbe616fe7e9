/* sites.h - functions holding EDGEPROBE_PROBE markers, built into the test
 * program or into a shared library (tests/drivers/markers.sh). */
#ifndef PROBE_SITES_H
#define PROBE_SITES_H
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif
enum color { RED = 1, BLUE = 70000 };
int widths(int8_t a, uint8_t b, int16_t c, uint16_t d, int32_t e, uint32_t f, int64_t g, uint64_t h);
int kinds(const char *s, void *p, _Bool z, enum color c, char ch, long l);
int constants(void);
long twelve(long a, int b, short c, signed char d, unsigned e, unsigned long f, long g, int h, unsigned short i,
            unsigned char j, long k, int l);
long redzone_leaf(long seed);
int no_args(int x);
int hot_site(int x);
#ifdef __cplusplus
}
#endif
#endif
