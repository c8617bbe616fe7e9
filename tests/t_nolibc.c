/* No libc at all. Linked with -nostdlib -static: this file supplies _start,
 * raw system calls for the OS hooks, a bump allocator, and the memcpy,
 * memcmp and memset that GCC (and clang) require of every freestanding
 * environment. It toggles TRACE, BRANCH, BRANCH_ON and HANDLER probes,
 * checks every site's bytes after each enable and disable, runs both
 * writable-code policies, and reports through a raw write(2); the exit status
 * is the number of failed checks. No constructor runs here (no C runtime):
 * the first API call registers the sites. x86-64 and aarch64. */
#define EDGEPROBE_FREESTANDING
#include <stddef.h>
#include <stdint.h>

/* ---- the system: raw Linux system calls and _start ---------------------- */
#if defined(__x86_64__)
enum { NR_WRITE = 1, NR_MPROTECT = 10, NR_SCHED_YIELD = 24, NR_EXIT_GROUP = 231 };
static long sys3(long nr, long a, long b, long c) {
    long ret;
    __asm__ volatile("syscall" : "=a"(ret) : "a"(nr), "D"(a), "S"(b), "d"(c) : "rcx", "r11", "memory");
    return ret;
}
/* The kernel enters with %rsp 16-byte aligned; a call pushes 8 more, as the
 * ABI expects at a function's entry. */
__asm__(".text\n.globl _start\n_start:\n\txor %ebp, %ebp\n\tcall nolibc_main\n\thlt\n");
#elif defined(__aarch64__)
enum { NR_WRITE = 64, NR_MPROTECT = 226, NR_SCHED_YIELD = 124, NR_EXIT_GROUP = 94 };
static long sys3(long nr, long a, long b, long c) {
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

static void put(const char *s) {
    size_t n = 0;
    while (s[n]) n++;
    sys3(NR_WRITE, 2, (long)s, (long)n);
}
static void put_dec(long v) {
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
static int nolibc_protect(void *page, size_t len, int writable) {
    long rc = sys3(NR_MPROTECT, (long)page, (long)len, writable ? 7 : 5); /* RWX : RX */
    protect_calls++;
    return rc < 0 ? (int)rc : 0;
}
/* A bump allocator over a zeroed static arena; free is a no-op. The registry
 * is one block of ~580 KB with the x86 patch API, ~70 KB without. */
static unsigned char arena[1 << 21] __attribute__((aligned(16)));
static size_t arena_used;
static void *nolibc_alloc(size_t bytes) {
    size_t at = (arena_used + 15) & ~(size_t)15;
    if (bytes > sizeof arena - at) return NULL;
    arena_used = at + bytes;
    return arena + at;
}
static void nolibc_log(const char *msg) {
    put("edgeprobe: ");
    put(msg);
    put("\n");
}
static int trace_lines, trace_last;
static int trace_sink(const char *fmt, int n) {
    (void)fmt;
    trace_last = n;
    return ++trace_lines;
}
#define EDGEPROBE_OS_PROTECT(page, len, w) nolibc_protect(page, len, w)
#define EDGEPROBE_OS_ALLOC(bytes) nolibc_alloc(bytes)
#define EDGEPROBE_OS_FREE(p) ((void)(p))
#define EDGEPROBE_OS_YIELD() ((void)sys3(NR_SCHED_YIELD, 0, 0, 0))
#define EDGEPROBE_OS_LOG(msg) nolibc_log(msg)
#define EDGEPROBE_SINK(...) trace_sink(__VA_ARGS__)
#include "edgeprobe.h"
#include "sites.h"

/* ---- the test ------------------------------------------------------------ */
static int checks, failures;
#define CHECK(cond) check_((cond) != 0, __LINE__, #cond)
static void check_(int ok, int line, const char *what) {
    checks++;
    if (ok) return;
    failures++;
    put("t_nolibc.c:");
    put_dec(line);
    put(": CHECK failed: ");
    put(what);
    put("\n");
}
#define CHECK_SITES() CHECK(sites_mismatches(0) == 0)

static int branch_hits, on_hits;
static uintptr_t handler_sum;
static void *handler_user;
__attribute__((noinline)) static void traced(int n) { EDGEPROBE_TRACE(nl_trace, "n=%d", n); }
__attribute__((noinline)) static void branched(void) {
    if (EDGEPROBE_BRANCH(nl_branch)) branch_hits++;
}
__attribute__((noinline)) static void branched_on(void) {
    if (EDGEPROBE_BRANCH_ON(nl_default_on)) on_hits++;
}
__attribute__((noinline)) static void handled(uintptr_t v) { EDGEPROBE_HANDLER(nl_handler, v); }
static void on_handler(const edgeprobe_info *info, void *user, uintptr_t value) {
    if (info && info->kind == EDGEPROBE_KIND_HANDLER) handler_sum += value;
    handler_user = user;
}
static void run_all(void) {
    traced(7);
    branched();
    branched_on();
    handled(5);
}

static void test_toggle(void) {
    static int cookie;
    run_all(); /* nothing registered yet: every site holds its NOP */
    CHECK(trace_lines == 0 && branch_hits == 0 && on_hits == 1 && handler_sum == 0);
    CHECK(edgeprobe_point_count() == 4); /* registers this object's sites */
    CHECK_SITES();

    CHECK(edgeprobe_enable("nl_*") == 3); /* trace, branch, handler; default_on was on */
    CHECK_SITES();
    CHECK(edgeprobe_attach("nl_handler", on_handler, &cookie) == 1);
    CHECK_SITES();
    run_all();
    CHECK(trace_lines == 1 && trace_last == 7 && branch_hits == 1 && on_hits == 2);
    CHECK(handler_sum == 5 && handler_user == &cookie);

    CHECK(edgeprobe_disable("nl_*") == 4);
    CHECK(edgeprobe_detach("nl_handler") == 1);
    CHECK(edgeprobe_handler_sync() == 0);
    CHECK_SITES();
    run_all();
    CHECK(trace_lines == 1 && branch_hits == 1 && on_hits == 2 && handler_sum == 5);

    CHECK(edgeprobe_enable("nl_default_on") == 1);
    CHECK_SITES();
    run_all();
    CHECK(on_hits == 3);
    CHECK(edgeprobe_enable("nl_nothing") == EDGEPROBE_ENOENT);
    CHECK(edgeprobe_enable("nl_[x") == EDGEPROBE_EPATTERN);
}

/* Strict W^X: open and close the page around every toggle. Keep-writable:
 * open it once. */
static void test_wx_policies(void) {
    edgeprobe_probe *p = 0;
    CHECK(edgeprobe_probe_find("nl_branch", &p) == 0);
    CHECK(edgeprobe_set_wx_strict(1) == 0);
    protect_calls = 0;
    CHECK(edgeprobe_probe_on(p) == 1);
    CHECK(protect_calls == 2);
    CHECK_SITES();
    branched();
    CHECK(branch_hits == 2);
    CHECK(edgeprobe_probe_off(p) == 1);
    CHECK(protect_calls == 4);
    CHECK_SITES();
    CHECK(edgeprobe_set_wx_strict(0) == 0);
    protect_calls = 0;
    CHECK(edgeprobe_probe_get(p) == 1);
    CHECK(edgeprobe_probe_put(p) == 0);
    CHECK(edgeprobe_probe_on(p) == 1);
    CHECK(protect_calls <= 1);
    CHECK_SITES();
    branched();
    CHECK(branch_hits == 3);
    CHECK(edgeprobe_probe_off(p) == 1);
    branched();
    CHECK(branch_hits == 3);
}

__attribute__((noreturn, used)) void nolibc_main(void);
__attribute__((noreturn, used)) void nolibc_main(void) {
    test_toggle();
    test_wx_policies();
    put("t_nolibc: ");
    put_dec(checks);
    put(" checks, ");
    put_dec(failures);
    put(" failed\n");
    for (;;) sys3(NR_EXIT_GROUP, failures, 0, 0);
}
