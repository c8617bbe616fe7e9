/* nolibc.h - what a program with no libc at all supplies to edgeprobe.h,
 * x86-64 and aarch64 Linux: _start (which calls nolibc_main), raw system
 * calls, the memcpy/memcmp/memset that GCC and clang require of every
 * freestanding environment, a bump allocator, and the EDGEPROBE_OS_* hooks.
 * Include it before edgeprobe.h; link with -nostdlib -static (aarch64: and
 * -lgcc, for __builtin___clear_cache). Used by tests/t_nolibc.c and
 * bench/size_min.c. */
#ifndef NOLIBC_H
#define NOLIBC_H
#define EDGEPROBE_FREESTANDING
#include <stddef.h>
#include <stdint.h>

/* ---- the system: raw Linux system calls and _start ---------------------- */
#if defined(__x86_64__)
enum { NR_WRITE = 1, NR_MPROTECT = 10, NR_SCHED_YIELD = 24, NR_EXIT_GROUP = 231 };
static inline long sys3(long nr, long a, long b, long c) {
    long ret;
    __asm__ volatile("syscall" : "=a"(ret) : "a"(nr), "D"(a), "S"(b), "d"(c) : "rcx", "r11", "memory");
    return ret;
}
/* The kernel enters with %rsp 16-byte aligned; a call pushes 8 more, as the
 * ABI expects at a function's entry. */
__asm__(".text\n.globl _start\n_start:\n\txor %ebp, %ebp\n\tcall nolibc_main\n\thlt\n");
#elif defined(__aarch64__)
enum { NR_WRITE = 64, NR_MPROTECT = 226, NR_SCHED_YIELD = 124, NR_EXIT_GROUP = 94 };
static inline long sys3(long nr, long a, long b, long c) {
    register long x8 __asm__("x8") = nr;
    register long x0 __asm__("x0") = a;
    register long x1 __asm__("x1") = b;
    register long x2 __asm__("x2") = c;
    __asm__ volatile("svc #0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2) : "memory");
    return x0;
}
__asm__(".text\n.globl _start\n_start:\n\tmov x29, #0\n\tmov x30, #0\n\tbl nolibc_main\n\tbrk #0\n");
#endif

/* What the compiler may call by itself. volatile keeps these loops from being
 * recognised as the very functions they implement. */
void *memcpy(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
void *memcpy(void *dst, const void *src, size_t n) {
    volatile unsigned char *d = (volatile unsigned char *)dst;
    const unsigned char *s = (const unsigned char *)src;
    while (n--) *d++ = *s++;
    return dst;
}
void *memset(void *dst, int c, size_t n) {
    volatile unsigned char *d = (volatile unsigned char *)dst;
    while (n--) *d++ = (unsigned char)c;
    return dst;
}
int memcmp(const void *a, const void *b, size_t n) {
    const volatile unsigned char *x = (const volatile unsigned char *)a, *y = (const volatile unsigned char *)b;
    for (; n; n--, x++, y++)
        if (*x != *y) return *x < *y ? -1 : 1;
    return 0;
}

static inline void put(const char *s) {
    size_t n = 0;
    while (s[n]) n++;
    sys3(NR_WRITE, 2, (long)s, (long)n);
}
static inline void put_dec(long v) {
    char buf[24];
    int i = 23;
    unsigned long u = v < 0 ? 0ul - (unsigned long)v : (unsigned long)v;
    buf[i] = 0;
    do buf[--i] = (char)('0' + u % 10); while ((u /= 10) && i > 1);
    if (v < 0) buf[--i] = '-';
    put(buf + i);
}

/* ---- the OS hooks the header asks for ------------------------------------ */
static int protect_calls;
static inline int nolibc_protect(void *page, size_t len, int writable) {
    long rc = sys3(NR_MPROTECT, (long)page, (long)len, writable ? 7 : 5); /* RWX : RX */
    protect_calls++;
    return rc < 0 ? (int)rc : 0;
}
/* A bump allocator over a zeroed static arena; free is a no-op. The registry
 * is one block of ~580 KB with the x86 patch API, ~70 KB without. */
static unsigned char arena[1 << 21] __attribute__((aligned(16)));
static size_t arena_used;
static inline void *nolibc_alloc(size_t bytes) {
    size_t at = (arena_used + 15) & ~(size_t)15;
    if (bytes > sizeof arena - at) return NULL;
    arena_used = at + bytes;
    return arena + at;
}
static inline void nolibc_log(const char *msg) {
    put("edgeprobe: ");
    put(msg);
    put("\n");
}
#define EDGEPROBE_OS_PROTECT(page, len, w) nolibc_protect(page, len, w)
#define EDGEPROBE_OS_ALLOC(bytes) nolibc_alloc(bytes)
#define EDGEPROBE_OS_FREE(p) ((void)(p))
#define EDGEPROBE_OS_YIELD() ((void)sys3(NR_SCHED_YIELD, 0, 0, 0))
#define EDGEPROBE_OS_LOG(msg) nolibc_log(msg)

__attribute__((noreturn, used)) void nolibc_main(void);
#endif
