/* own_malloc.c - a program whose executable defines malloc, calloc,
 * realloc and free (here over glibc's own, as an allocator built into a
 * program would be): `edgeprobe prof --epochs inline` must not run the
 * epochs on its thread, whose every instruction may then be inside the
 * allocator the epochs call (tests/drivers/prof.sh, case
 * prof-inline-own-malloc). Build with -O2 -fpatchable-function-entry=5. */
#include <stddef.h>
#include <stdio.h>

void *__libc_malloc(size_t);
void *__libc_calloc(size_t, size_t);
void *__libc_realloc(void *, size_t);
void __libc_free(void *);
void *malloc(size_t n) { return __libc_malloc(n); }
void *calloc(size_t n, size_t m) { return __libc_calloc(n, m); }
void *realloc(void *p, size_t n) { return __libc_realloc(p, n); }
void free(void *p) { __libc_free(p); }

static volatile unsigned long sink;
__attribute__((noinline)) void own_work(unsigned long i) {
    char *p = malloc(64 + i % 64);
    if (p) p[0] = (char)i, sink += (unsigned char)p[0];
    free(p);
}
int main(void) {
    for (unsigned long i = 0; i < 2000000; i++) own_work(i);
    printf("done %lu\n", sink > 0 ? 1ul : 0ul);
    return 0;
}
