#include <stddef.h>
#include <stdint.h>
extern char trace_line[4096];
extern int trace_lines;
void ints(signed char a, unsigned char b, short c, unsigned short d, int e, unsigned f, long g, unsigned long h);
void narrowing(int a, int b, unsigned long long c, size_t z, intmax_t j, ptrdiff_t t);
void pointers(const char *s, const char *null, const void *p, char ch);
void floats(double d, float f, double neg, double inf, double nan);
void stars(int w, int prec, double d, const char *s);
void twelve(long a, long b, long c, long d, long e, long f, double g, long h, long i, const char *j, long k, long l);
void nothing(void);
void percent_n(int x);
void too_few(int x);
void long_line(const char *s);
int side_effects(int *counter);
int only_trace(int x);
