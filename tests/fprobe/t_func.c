/* t_func.c - function probes on -fpatchable-function-entry=5 entries.
 *
 * Built with the flag (gcc and clang, -O0 and -O2, PIE and not) by
 * tests/drivers/fprobe.sh. Checks: every function is a probe and has the
 * right name; entry and exit handlers fire with the right ids and counts;
 * argument registers (integer, vector, varargs, a struct) survive an
 * enabled entry whose handler clobbers everything it may; return values
 * (long, __int128, double, a two-double struct, long double) survive an
 * exit probe; longjmp out of probed frames; pthread_exit from probed
 * frames; recursion 10,000 deep; probed functions in a signal handler;
 * a library built with the flag that does not include the header, and its
 * dlclose while its probes are on; bad ids, names and globs; a tampered
 * entry. `./t_func list` prints the function probes for the nm comparison. */
#define _GNU_SOURCE
#define EDGEPROBE_IMPLEMENTATION /* this program's one copy of the implementation */
#include "edgeprobe.h"
#include "check.h"

#include <dlfcn.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define NOINLINE __attribute__((noipa)) /* gcc: no inlining, cloning or renaming, LTO too */
#ifdef __clang__
#undef NOINLINE
#define NOINLINE __attribute__((noinline))
#endif
#define OPAQUE(x) __asm__ volatile("" : "+r"(x))
/* Keeps a probed function from being treated as const: every call happens. */
#define IMPURE() __asm__ volatile("" ::: "memory")

/* ---- handlers that count and clobber ------------------------------------ */
#define WATCH_MAX 16 /* the last slot counts every function not watched */
static long entries[WATCH_MAX], exits[WATCH_MAX];
static int watched_id[WATCH_MAX];
static int nwatched;
static volatile double sink_d;
static char clobber_buf[4096];

static int slot_of(int id) {
    int i;
    for (i = 0; i < nwatched; i++)
        if (watched_id[i] == id) return i;
    return WATCH_MAX - 1;
}
/* Clobber every caller-saved register a C function may: vectors through
 * floating-point work and a memset, the x87 stack (all eight slots). */
static NOINLINE void clobber(void) {
    double d[8];
    int i;
    for (i = 0; i < 8; i++) d[i] = i * 1.5 + sink_d;
    sink_d = d[0] * d[1] + d[2] * d[3] + d[4] * d[5] + d[6] * d[7];
    memset(clobber_buf, 0x5a, sizeof clobber_buf);
    __asm__ volatile("fldz\n fld1\n fldpi\n fldl2e\n fldln2\n fldlg2\n fldz\n fld1\n"
                     "fstp %%st(0)\n fstp %%st(0)\n fstp %%st(0)\n fstp %%st(0)\n"
                     "fstp %%st(0)\n fstp %%st(0)\n fstp %%st(0)\n fstp %%st(0)\n" ::: "memory");
}
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
/* AVX code: its vzeroupper wipes the upper halves of every ymm register. */
__attribute__((target("avx2"), noinline)) static void clobber_avx(void) {
    __asm__ volatile("vpcmpeqd %%ymm0, %%ymm0, %%ymm0\n vmovdqa %%ymm0, %%ymm1\n vmovdqa %%ymm0, %%ymm2\n"
                     "vmovdqa %%ymm0, %%ymm3\n vmovdqa %%ymm0, %%ymm4\n vmovdqa %%ymm0, %%ymm5\n"
                     "vmovdqa %%ymm0, %%ymm6\n vmovdqa %%ymm0, %%ymm7\n vzeroupper" ::: "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7");
}
#endif
static int have_avx2;
/* AVX2 usable: the CPU has it and the OS saves ymm state (no libgcc
 * helper: its functions are not built with the flag, see check_nm.py). */
static int avx2_usable(void) {
    unsigned a, b, c, d, lo, hi;
    __asm__("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(1), "c"(0));
    if (!(c & (1u << 27))) return 0;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    if ((lo & 6) != 6) return 0;
    __asm__("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(7), "c"(0));
    return (b >> 5) & 1;
}
static int on_entry(edgeprobe_func_call *call, void *user) {
    __atomic_fetch_add(&entries[slot_of(call->probe->id)], 1, __ATOMIC_RELAXED);
    CHECK(user == (void *)entries);
    CHECK(call->fn == call->probe->site);
    call->data = (uint64_t)call->probe->id + 1000;
    clobber();
    if (have_avx2) clobber_avx();
    return 1;
}
static void on_exit_(const edgeprobe_func_call *call, void *user) {
    __atomic_fetch_add(&exits[slot_of(call->probe->id)], 1, __ATOMIC_RELAXED);
    CHECK(user == (void *)entries);
    CHECK_EQ(call->data, call->probe->id + 1000);
    clobber();
    if (have_avx2) clobber_avx();
}
static int func_id(const char *name) {
    int id, n = edgeprobe_point_count();
    for (id = 0; id < n; id++) {
        edgeprobe_info info;
        if (edgeprobe_point_info(id, &info) == 0 && info.kind == EDGEPROBE_KIND_FUNCTION && !strcmp(info.name, name))
            return id;
    }
    return -1;
}
static void watch(const char *name) {
    watched_id[nwatched++] = func_id(name);
}

/* ---- probed functions -------------------------------------------------- */
NOINLINE long ints6(long a, long b, long c, long d, long e, long f) { IMPURE(); return a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f; }
NOINLINE double doubles8(double a, double b, double c, double d, double e, double f, double g, double h) { IMPURE();
    return a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f + 7 * g + 8 * h;
}
NOINLINE long varsum(int n, ...) {
    __builtin_va_list ap;
    long s = 0;
    double x = 0;
    int i;
    __builtin_va_start(ap, n);
    for (i = 0; i < n; i++) {
        s += __builtin_va_arg(ap, long);
        x += __builtin_va_arg(ap, double);
    }
    __builtin_va_end(ap);
    return s + (long)x;
}
struct pair { long a; double b; };
NOINLINE double take_pair(struct pair p, long k) { IMPURE(); return (double)p.a * p.b + (double)k; }
NOINLINE long ret_long(long x) { IMPURE(); return x * 7 - 1; }
NOINLINE __int128 ret_i128(long x) { IMPURE(); return ((__int128)x << 64) | (unsigned long)(x + 5); }
NOINLINE double ret_double(double x) { IMPURE(); return x * 0.5 + 0.25; }
struct dd { double x, y; };
NOINLINE struct dd ret_dd(double x) {
    IMPURE(); struct dd r = {x + 1, x + 2}; return r; }
NOINLINE long double ret_ld(long double x) { IMPURE(); return x * 3 + 0.5L; }
#if defined(__x86_64__)
typedef float v8f __attribute__((vector_size(32)));
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"
__attribute__((target("avx"))) NOINLINE v8f vec_add(v8f a, v8f b) { return a + b; }
/* __m256 arguments and result in ymm registers, across entry and exit */
__attribute__((target("avx"), noinline)) static int vec_ok(void) {
    v8f a = {1, 2, 3, 4, 5, 6, 7, 8}, b = {10, 20, 30, 40, 50, 60, 70, 80}, c = vec_add(a, b);
    return c[0] == 11 && c[3] == 44 && c[4] == 55 && c[7] == 88;
}
#pragma GCC diagnostic pop
#endif

static jmp_buf jb;
NOINLINE void jump_deep(int n) {
    if (n < 0) return;
    if (n == 0) longjmp(jb, 1);
    jump_deep(n - 1);
    OPAQUE(n);
}
NOINLINE long recurse(long n) {
    long r;
    if (n == 0) return 0;
    r = recurse(n - 1) + 1;
    OPAQUE(r);
    return r;
}
NOINLINE void exit_deep(int n) {
    if (n < 0) return;
    if (n == 0) pthread_exit((void *)42);
    exit_deep(n - 1);
    OPAQUE(n);
}
static void *exiting_thread(void *arg) {
    (void)arg;
    exit_deep(5);
    return 0;
}
NOINLINE long leaf(long x) { IMPURE(); return x + 1; }
static volatile long in_signal;
static void on_alarm(int sig) {
    (void)sig;
    in_signal += leaf(ret_long(3)); /* probed functions inside a handler */
}
NOINLINE long with_signal(long x) {
    raise(SIGUSR1);
    return leaf(x);
}

static char last_log[512];
static void capture_log(const char *msg, void *arg) {
    (void)arg;
    snprintf(last_log, sizeof last_log, "%s", msg);
}

/* ---- listing for the nm comparison ---------------------------------------- */
static int print_function(const edgeprobe_info *info, void *arg) {
    (void)arg;
    if (info->kind == EDGEPROBE_KIND_FUNCTION) printf("%s %s %d\n", info->name, info->file, info->patchable);
    return 0;
}

int main(int argc, char **argv) {
    const char *lib = argc > 2 ? argv[2] : 0;
    int n, i;
    have_avx2 = avx2_usable();
    n = edgeprobe_func_scan();
    if (argc > 1 && !strcmp(argv[1], "list")) {
        edgeprobe_foreach(print_function, 0);
        return n > 0 ? 0 : 1;
    }
    CHECK(n >= 20);

    /* ---- bad input -------------------------------------------------------- */
    CHECK_EQ(edgeprobe_func_on(-1), EDGEPROBE_EINVAL);
    CHECK_EQ(edgeprobe_func_on(1 << 30), EDGEPROBE_EINVAL);
    CHECK_EQ(edgeprobe_func_attach("no_such_function", on_entry, 0, 0), EDGEPROBE_ENOENT);
    CHECK_EQ(edgeprobe_func_attach("no_such_*", on_entry, 0, 0), 0);
    CHECK_EQ(edgeprobe_func_attach("ints6", 0, 0, 0), EDGEPROBE_EINVAL);
    CHECK_EQ(edgeprobe_func_attach("[", on_entry, 0, 0), EDGEPROBE_EPATTERN);
    CHECK_EQ(edgeprobe_func_attach(0, on_entry, 0, 0), EDGEPROBE_EINVAL);
    CHECK_EQ(edgeprobe_func_enable("ints6"), EDGEPROBE_EINVAL); /* nothing attached yet */
    CHECK(func_id("ints6") >= 0);
    CHECK(func_id("main") >= 0);
    CHECK(func_id("on_entry") >= 0); /* static functions are named too */
    CHECK_EQ(func_id("edgeprobe__func_entry_c"), -1); /* edgeprobe's own code is never a probe */

    /* ---- arguments and return values under entry + exit probes ------------ */
    watch("ints6"), watch("doubles8"), watch("varsum"), watch("take_pair");
    watch("ret_long"), watch("ret_i128"), watch("ret_double");
    for (i = 0; i < nwatched; i++) CHECK(watched_id[i] >= 0);
    CHECK_EQ(edgeprobe_func_attach("ints6", on_entry, on_exit_, entries), 1);
    CHECK_EQ(edgeprobe_func_attach("doubles8", on_entry, on_exit_, entries), 1);
    CHECK_EQ(edgeprobe_func_attach("varsum", on_entry, on_exit_, entries), 1);
    CHECK_EQ(edgeprobe_func_attach("take_pair", on_entry, on_exit_, entries), 1);
    CHECK_EQ(edgeprobe_func_attach("ret_*", on_entry, on_exit_, entries), 5); /* _long _i128 _double _dd _ld */
    CHECK_EQ(edgeprobe_func_attach("vec_add", on_entry, on_exit_, entries), 1);
    for (i = 0; i < 3; i++) {
        struct pair p = {3, 2.5};
        struct dd r;
        __int128 w = ret_i128(9);
        CHECK_EQ(ints6(1, 2, 3, 4, 5, 6), 91);
        CHECK(doubles8(1, 2, 3, 4, 5, 6, 7, 8) == 204.0);
        CHECK_EQ(varsum(3, 1L, 0.5, 2L, 1.5, 3L, 2.0), 10);
        CHECK(take_pair(p, 4) == 11.5);
        CHECK_EQ(ret_long(6), 41);
        CHECK_EQ((long)(w >> 64), 9);
        CHECK_EQ((long)(unsigned long)w, 14);
        CHECK(ret_double(3.0) == 1.75);
        r = ret_dd(1.0);
        CHECK(r.x == 2.0 && r.y == 3.0);
        CHECK(ret_ld(2.0L) == 6.5L);
        if (have_avx2) CHECK(vec_ok());
    }
    for (i = 0; i < nwatched; i++) {
        CHECK_EQ(entries[i], 3);
        CHECK_EQ(exits[i], 3);
    }
    /* off: no more handler calls, results unchanged */
    CHECK_EQ(edgeprobe_func_disable("ret_*"), 5);
    CHECK_EQ(edgeprobe_func_disable("ret_*"), 0);
    CHECK_EQ(ret_long(6), 41);
    CHECK_EQ(entries[4], 3);
    CHECK_EQ(edgeprobe_func_enable("ret_long"), 1);
    CHECK_EQ(ret_long(6), 41);
    CHECK_EQ(entries[4], 4);
    CHECK_EQ(exits[4], 4);
    CHECK_EQ(edgeprobe_func_off(watched_id[4]), 1);
    CHECK_EQ(edgeprobe_func_off(watched_id[4]), 0);
    CHECK_EQ(edgeprobe_func_on(watched_id[4]), 1);
    CHECK_EQ(ret_long(1), 6);
    CHECK_EQ(entries[4], 5);

    /* ---- longjmp, recursion, pthread_exit, signals ------------------------ */
    CHECK_EQ(edgeprobe_func_attach("jump_deep", on_entry, on_exit_, entries), 1);
    CHECK_EQ(edgeprobe_func_attach("recurse", on_entry, on_exit_, entries), 1);
    CHECK_EQ(edgeprobe_func_attach("exit_deep", on_entry, on_exit_, entries), 1);
    CHECK_EQ(edgeprobe_func_attach("leaf", on_entry, on_exit_, entries), 1);
    CHECK_EQ(edgeprobe_func_attach("with_signal", on_entry, on_exit_, entries), 1);
    watch("jump_deep"), watch("recurse");
    for (i = 0; i < 100; i++) {
        if (!setjmp(jb)) jump_deep(20);
        CHECK_EQ(ret_long(2), 13); /* exits after the longjmp still work */
    }
    CHECK_EQ(entries[slot_of(func_id("jump_deep"))], 2100);
    CHECK_EQ(exits[slot_of(func_id("jump_deep"))], 0);
    CHECK_EQ(recurse(10000), 10000);
    CHECK_EQ(entries[slot_of(func_id("recurse"))], 10001);
    CHECK_EQ(exits[slot_of(func_id("recurse"))], 10001);
    for (i = 0; i < 20; i++) {
        pthread_t th;
        void *ret = 0;
        CHECK_EQ(pthread_create(&th, 0, exiting_thread, 0), 0);
        CHECK_EQ(pthread_join(th, &ret), 0);
        CHECK(ret == (void *)42);
    }
    signal(SIGUSR1, on_alarm);
    for (i = 0; i < 50; i++) CHECK_EQ(with_signal(i), i + 1);
    CHECK_EQ(in_signal, 50 * 21);
    CHECK_EQ(edgeprobe_func_lost_exits(), 0);

    /* ---- a library built with the flag, without the header ---------------- */
    if (lib) {
        void *h = dlopen(lib, RTLD_NOW);
        long (*lib_twice)(long);
        int id;
        CHECK(h != 0);
        lib_twice = h ? (long (*)(long))dlsym(h, "lib_twice") : 0;
        CHECK(lib_twice != 0);
        CHECK_EQ(edgeprobe_func_attach("lib_*", on_entry, on_exit_, entries), 2); /* lib_twice, lib_helper */
        id = func_id("lib_twice");
        CHECK(id >= 0);
        watch("lib_twice");
        if (lib_twice) CHECK_EQ(lib_twice(21), 43);
        CHECK_EQ(entries[slot_of(id)], 1);
        CHECK_EQ(exits[slot_of(id)], 1);
        /* unload while on: the probes drop out and are never written again */
        CHECK_EQ(dlclose(h), 0);
        CHECK_EQ(edgeprobe_func_on(id), EDGEPROBE_EUNLOADED);
        CHECK_EQ(edgeprobe_func_off(id), EDGEPROBE_EUNLOADED);
        CHECK_EQ(edgeprobe_func_disable("lib_*"), 0);
        CHECK_EQ(func_id("lib_twice"), -1);
        /* something else mapped where the library was: left alone */
        h = dlopen(lib, RTLD_NOW);
        CHECK(h != 0);
        CHECK(edgeprobe_func_scan() > 0);
        CHECK(func_id("lib_twice") >= 0 && func_id("lib_twice") != id);
        if (h) dlclose(h);
    }

    /* ---- a tampered entry is refused and left alone ------------------------ */
    {
        int id = func_id("leaf");
        edgeprobe_info info;
        unsigned char *site, before[5];
        CHECK_EQ(edgeprobe_func_off(id), 1);
        CHECK_EQ(edgeprobe_point_info(id, &info), 0);
        site = (unsigned char *)info.site;
        mprotect((void *)((uintptr_t)site & ~4095UL), 8192, PROT_READ | PROT_WRITE | PROT_EXEC);
        memcpy(before, site, 5);
        site[0] = 0xcc; /* a debugger's breakpoint */
        edgeprobe_set_logger(capture_log, 0);
        CHECK_EQ(edgeprobe_func_on(id), EDGEPROBE_EBYTES);
        edgeprobe_set_logger(0, 0);
        /* a straddling entry (where the layout puts one) is in its call form */
        CHECK(strstr(last_log, "refusing to patch unexpected bytes") != 0 ||
              strstr(last_log, "not the call or its deactivated form") != 0);
        CHECK(strstr(last_log, "found cc") != 0);
        CHECK_EQ(site[0], 0xcc);
        CHECK(memcmp(site + 1, before + 1, 4) == 0);
        site[0] = before[0];
        CHECK_EQ(edgeprobe_func_on(id), 1);
        CHECK_EQ(leaf(1), 2);
    }
    CHECK(edgeprobe_func_detach("*") > 0);
    CHECK_EQ(edgeprobe_func_detach("*"), 0);
    CHECK_EQ(edgeprobe_handler_sync(), 0);
    return check_done("t_func");
}
