/* edgeprobe.h - static probes you switch on and off while threads run them.
 * version 0.1.0 - SPDX-License-Identifier: MIT - x86-64 Linux, gcc and clang
 *
 * A probe costs one NOP while off. Turning it on rewrites that NOP into a
 * jump, in place, from any thread, while other threads execute it: no
 * stop-the-world step, no ptrace, no kernel help.
 *
 * QUICK START (one minute)
 *
 *     #include "edgeprobe.h"            // the whole library; nothing to link
 *
 *     int foo(int n) {
 *         EDGEPROBE_TRACE(foo_entry, "foo(%d)\n", n);  // NOP until enabled
 *         if (EDGEPROBE_BRANCH(foo_check)) expensive_check(n);
 *         return n * 2;
 *     }
 *
 *     // any thread, any time:
 *     edgeprobe_enable("foo_*");       // glob; returns probes changed or -errno
 *     edgeprobe_disable("foo_entry");
 *
 *     $ EDGEPROBE_ENABLE="foo_*,net_rx" ./prog     // enable at start-up
 *
 * No implementation macro, no registration call, no linker flag: every
 * object (executable or shared library) that includes this header finds its
 * own probes, and all objects share one process-wide registry.
 *
 * CONTENTS
 *   1. configuration macros        5. low-level patching API (any address)
 *   2. errors                      6. handlers, discovery, the
 *   3. markers (EDGEPROBE_TRACE,       -finstrument-functions provider
 *      EDGEPROBE_BRANCH, ...)      7. how it works (byte layouts)
 *   4. probe API                   8. implementation (private)
 *                                  9. argument probes (EDGEPROBE_PROBE):
 *                                     marker, trampoline, locations
 *
 * COST AND THREAD SAFETY, in one table. Every function may be called from any
 * thread at any time, concurrently with threads executing the sites, unless
 * its comment says otherwise. "slow" marks table walks, syscalls or waits.
 *
 *   disabled probe                one NOP (5 or 8 bytes), no data access
 *   enabled TRACE/BRANCH          one jmp to out-of-line code the compiler wrote
 *   enabled HANDLER               jmp + call + indirect call, no locked
 *                                 instruction: ~2.4x a direct call (1.5x
 *                                 with EDGEPROBE_HANDLER_INLINE)
 *   enabled PROBE                 jmp + stub + register save + indirect call:
 *                                 ~7-9x a direct call (USDT trap: ~3000x)
 *   edgeprobe_probe_on/off        lock + one compare-and-swap per site
 *   edgeprobe_enable/disable      slow: hash lookup, or a walk of all names for a glob
 *   edgeprobe_patch (straddler)   slow: two waits of Tmax ticks, or two membarriers
 *   strict W^X (any toggle)       slow: two mprotect calls
 *   edgeprobe_call_activate/...   lock + one compare-and-swap, never waits
 *
 * Not async-signal-safe: do not toggle probes from a signal handler (a lock
 * is taken). Executing probes from signal handlers is fine.
 */
#ifndef EDGEPROBE_H
#define EDGEPROBE_H

#if !defined(__x86_64__)
#error "edgeprobe supports x86-64 only"
#endif

#include <stddef.h>
#include <stdint.h>

/* ======================================================================
 * 1. CONFIGURATION MACROS
 *
 * Per translation unit (may differ between TUs; each site records its form):
 *   EDGEPROBE_SITE_BYTES   5 (default): NOP5 after at most 4 bytes of padding;
 *                          8: an 8-byte NOP filling one aligned word.
 *   EDGEPROBE_SINK(...)    where EDGEPROBE_TRACE prints; printf-style.
 *                          Default: edgeprobe_printf, which writes to stderr.
 *   EDGEPROBE_PROVIDER     define in ONE translation unit to make it define
 *                          __cyg_profile_func_enter/exit (section 6).
 *   EDGEPROBE_DISABLE_ALL  compile every marker to nothing (no site at all).
 *   EDGEPROBE_HANDLER_INLINE  1: EDGEPROBE_HANDLER's enabled path holds the
 *                          dispatch itself (1.5x a direct call instead of
 *                          2.4x, at the price of a larger function; section 8.13).
 *   EDGEPROBE_USDT_PROVIDER  provider of the stapsdt notes (a bare token;
 *                          default edgeprobe).
 *
 * Global (every TU of the program must agree):
 *   EDGEPROBE_FREESTANDING no libc headers; supply the EDGEPROBE_OS_* hooks
 *                          listed in section 8.2. dlopen-awareness, SIGTRAP
 *                          emulation and the environment are then absent.
 *   EDGEPROBE_WX_STRICT    1: restore read+execute after every patch (strict
 *                          W^X, costs two mprotect calls). 0 (default): open a
 *                          code page once and keep it writable.
 *   EDGEPROBE_TMAX_DEFAULT default Tmax in TSC ticks: 6000. The paper chose
 *                          3000 on Sandy Bridge; on our 2-core EPYC VM, under
 *                          load, `make calibrate` saw failures at waits up to
 *                          1800, so the default keeps a 3x margin over that.
 *                          Measure your machine with `make calibrate`.
 *
 * Environment (read once, when the process-wide registry is created):
 *   EDGEPROBE_ENABLE="glob,glob"  enable matching probes before main; also
 *                          applied to probes of libraries loaded later.
 *   EDGEPROBE_TMAX=ticks   override Tmax.
 *   EDGEPROBE_WX=strict|keep   override the writable-code policy.
 *   EDGEPROBE_SYNC=tmax|serialize   choose the straddler protocol mode.
 *   EDGEPROBE_VERBOSE=1    log diagnostics to stderr.
 * ====================================================================== */
#ifndef EDGEPROBE_SITE_BYTES
#define EDGEPROBE_SITE_BYTES 5
#endif
#if EDGEPROBE_SITE_BYTES != 5 && EDGEPROBE_SITE_BYTES != 8
#error "EDGEPROBE_SITE_BYTES must be 5 or 8"
#endif
#ifndef EDGEPROBE_WX_STRICT
#define EDGEPROBE_WX_STRICT 0
#endif
#ifndef EDGEPROBE_TMAX_DEFAULT
#define EDGEPROBE_TMAX_DEFAULT 6000
#endif
#ifndef EDGEPROBE_SINK
#define EDGEPROBE_SINK(...) edgeprobe_printf(__VA_ARGS__)
#endif
/* Longest probe name or pattern, without the terminating NUL. */
#define EDGEPROBE_NAME_MAX 127

#ifdef __cplusplus
extern "C" {
#endif

/* ======================================================================
 * 2. ERRORS
 *
 * Every function that can fail returns a negative code from this list.
 * The codes equal the negated Linux errno values named beside them and will
 * not change. A failed call changes nothing: no code byte is written.
 * ====================================================================== */
#define EDGEPROBE__ERRORS(X)                                                   \
    X(EDGEPROBE_EINVAL, 22, "invalid argument (NULL, empty, or out of range)") \
    X(EDGEPROBE_ENOENT, 2, "no probe has that name")                           \
    X(EDGEPROBE_ENAMETOOLONG, 36, "name or pattern longer than EDGEPROBE_NAME_MAX") \
    X(EDGEPROBE_EPATTERN, 74, "malformed glob pattern (unterminated '[')")    \
    X(EDGEPROBE_EBYTES, 84, "code bytes at the site are not a form edgeprobe expects; left alone") \
    X(EDGEPROBE_EPROT, 13, "could not make the code page writable (mprotect failed)") \
    X(EDGEPROBE_EBUSY, 16, "another patch of this site (or an overlapping one) is in flight") \
    X(EDGEPROBE_ENOMEM, 12, "out of memory")                                   \
    X(EDGEPROBE_ENOTSUP, 95, "not supported here (kernel lacks membarrier SYNC_CORE, or freestanding build)") \
    X(EDGEPROBE_ERANGE, 34, "no ret trampoline can be placed within +-2 GiB of the site") \
    X(EDGEPROBE_ESRCH, 3, "no patch is in flight at that address")             \
    X(EDGEPROBE_EUNDERFLOW, 75, "probe_put without a matching probe_get")      \
    X(EDGEPROBE_EUNLOADED, 79, "the probe's library has been unloaded")        \
    X(EDGEPROBE_ENEVER, 61, "provider probe never reached: no site known yet") \
    X(EDGEPROBE_EABI, 71, "another copy of edgeprobe with a different ABI owns the registry") \
    X(EDGEPROBE_EKIND, 91, "wrong kind of probe: edgeprobe_attach needs EDGEPROBE_HANDLER, edgeprobe_attach_args needs EDGEPROBE_PROBE")

#define EDGEPROBE__ERR_ENUM(name, errno_value, text) name = -(errno_value),
enum edgeprobe_error { EDGEPROBE_OK = 0, EDGEPROBE__ERRORS(EDGEPROBE__ERR_ENUM) };

/* A readable message for a code from the list above (never NULL). */
const char *edgeprobe_strerror(int err);

/* Optional diagnostics: called with a message on refusals and failures
 * (address and bytes of a site that was left alone, mprotect failures...).
 * NULL (the default) is silent; EDGEPROBE_VERBOSE=1 logs to stderr. */
typedef void (*edgeprobe_log_fn)(const char *message, void *arg);
void edgeprobe_set_logger(edgeprobe_log_fn fn, void *arg);

/* ======================================================================
 * 4. PROBE API (markers are in section 3, after the types they use)
 *
 * A *probe* is a name. A name may be used at several places in the source
 * (each a *point*, with its own file, line, function and dense id), and a
 * point may have several *sites* in machine code (inlined or cloned copies).
 * Enabling a name switches every site of every point with that name, in
 * every loaded object.
 * ====================================================================== */

/* Enable / disable every probe whose name matches `pattern`: an exact name or
 * a glob (`*`, `?`, `[a-z]`, `[!x]`, backslash escapes). Returns how many
 * probes changed state (0 when a glob matched none, or all were already in
 * that state); EDGEPROBE_ENOENT when an exact name (no glob characters)
 * matches no probe. Applies to probes loaded at the time of the call.
 * Slow path: a hash lookup, or a walk over all names for a glob. */
int edgeprobe_enable(const char *pattern);
int edgeprobe_disable(const char *pattern);

/* Handles: look a name up once, toggle it many times at the cost of the
 * code writes alone. A handle stays valid for the life of the process, even
 * after the libraries holding its sites are unloaded (it then has no sites).
 * edgeprobe_probe_on/off return 1 if the state changed, 0 if not. */
typedef struct edgeprobe__probe edgeprobe_probe;
int edgeprobe_probe_find(const char *name, edgeprobe_probe **out);
int edgeprobe_probe_on(edgeprobe_probe *probe);
int edgeprobe_probe_off(edgeprobe_probe *probe);
int edgeprobe_probe_is_on(const edgeprobe_probe *probe);

/* Counted enable for independent users of one probe (the kernel's
 * static_key_slow_inc/dec): the probe is on while the count is above zero.
 * probe_on sets the count to at least 1; probe_off and edgeprobe_disable force
 * it to 0 (an operator's override). probe_put below zero is refused. Return
 * the new count, or a negative code. */
int edgeprobe_probe_get(edgeprobe_probe *probe);
int edgeprobe_probe_put(edgeprobe_probe *probe);

/* Metadata of one point, for listing and for discovery callbacks. */
enum edgeprobe_kind {
    EDGEPROBE_KIND_TRACE = 1,   /* EDGEPROBE_TRACE                         */
    EDGEPROBE_KIND_BRANCH,      /* EDGEPROBE_BRANCH, off by default        */
    EDGEPROBE_KIND_BRANCH_ON,   /* EDGEPROBE_BRANCH_ON, on by default      */
    EDGEPROBE_KIND_HANDLER,     /* EDGEPROBE_HANDLER                       */
    EDGEPROBE_KIND_ENTRY,       /* provider: function entry                */
    EDGEPROBE_KIND_EXIT,        /* provider: function exit                 */
    EDGEPROBE_KIND_PROBE        /* EDGEPROBE_PROBE (section 9)             */
};
typedef struct edgeprobe_info {
    int id;                     /* dense, from 0; stable for the process   */
    const char *name;           /* probe name (provider: function symbol)  */
    const char *file;           /* NULL for provider probes                */
    int line;
    const char *function;       /* enclosing function                      */
    enum edgeprobe_kind kind;
    int enabled;                /* state of the probe (the name)           */
    int sites;                  /* machine-code sites of this point        */
    void *site;                 /* first site's address                    */
} edgeprobe_info;

/* Call fn for every live point, in id order; stop early and return fn's
 * value when it returns non-zero. Returns 0 after a full walk. fn runs with
 * the registry locked: it must not call other edgeprobe functions. */
int edgeprobe_foreach(int (*fn)(const edgeprobe_info *info, void *arg), void *arg);

/* Number of ids handed out so far (live or unloaded). */
int edgeprobe_point_count(void);
/* Metadata for one id (array indexing). EDGEPROBE_EUNLOADED if its library
 * was unloaded, EDGEPROBE_EINVAL for an id never handed out. */
int edgeprobe_point_info(int id, edgeprobe_info *out);

/* printf to stderr: the default EDGEPROBE_SINK. */
#ifndef EDGEPROBE_FREESTANDING
int edgeprobe_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2), cold));
#endif

/* ======================================================================
 * 5. LOW-LEVEL PATCHING API: any instruction at any address
 *
 * For sites whose layout edgeprobe did not choose (compiler-generated calls,
 * your own code). `site` must be the first byte of an instruction of exactly
 * `len` bytes (1..8), and `insn` one instruction of the same length; both are
 * decoded and checked. Concurrent executors see the old or the new
 * instruction, never a mix:
 *   - inside one cache line: one locked compare-and-swap of 8 bytes;
 *   - across a line (a straddler): int3 lock, wait, back bytes, wait, front
 *     bytes, where "wait" is Tmax ticks or a serialising membarrier.
 * Threads that reach the int3 meanwhile take SIGTRAP; edgeprobe's handler
 * emulates nops, jmp and call, and otherwise waits for the patch.
 * ====================================================================== */
int edgeprobe_patch(void *site, const void *insn, size_t len);

/* Asynchronous form. start returns 1 if the patch is already complete (a
 * non-straddler), 0 if it is in flight; call finish until it returns 1 (0
 * while a wait has not elapsed). Many patches may be in flight at once. */
int edgeprobe_patch_start(void *site, const void *insn, size_t len);
int edgeprobe_patch_finish(void *site);

/* A batch: n patches with two waits in total. results[i] receives each
 * patch's outcome (0 or a negative code); returns the number that failed. */
typedef struct edgeprobe_patch_req {
    void *site;
    const void *insn;
    size_t len;
} edgeprobe_patch_req;
int edgeprobe_patch_batch(const edgeprobe_patch_req *reqs, size_t n, int *results);

/* Toggle a 5-byte `call rel32` at any address, never waiting (paper section
 * 6). `rel32` is the call's displacement when active. Return 1 if changed,
 * 0 if already in that state. Deactivated forms, by where a cache line
 * boundary cuts the call (front|back bytes):
 *     no split   0f 1f 44 00 00      NOP5
 *     1|4        e8 | <rel to ret>   call a `ret` trampoline within +-2 GiB
 *     2|3        eb 03 | r r r       jmp over the back bytes
 *     3|2, 4|1   eb 03 r | r r, ...  the same two front bytes */
int edgeprobe_call_activate(void *site, int32_t rel32);
int edgeprobe_call_deactivate(void *site);

/* Protocol mode for straddlers: wait Tmax ticks, or membarrier SYNC_CORE. */
enum edgeprobe_sync { EDGEPROBE_SYNC_TMAX = 0, EDGEPROBE_SYNC_SERIALIZE = 1 };
int edgeprobe_set_sync(enum edgeprobe_sync mode); /* EDGEPROBE_ENOTSUP if unavailable */
enum edgeprobe_sync edgeprobe_get_sync(void);
int edgeprobe_set_tmax(uint64_t ticks);           /* 0 is allowed (unsafe; tests) */
uint64_t edgeprobe_get_tmax(void);
/* Writable-code policy: 1 strict W^X, 0 keep pages writable once opened. */
int edgeprobe_set_wx_strict(int strict);

/* ======================================================================
 * 6. HANDLERS AND DISCOVERY
 *
 * A handler probe (EDGEPROBE_HANDLER) calls the function attached to its
 * name. Switching between two handlers is one atomic pointer store; only
 * attaching the first handler (off -> on) and detaching (on -> off) rewrite
 * code. RULE: when attach/detach returns, threads that had already loaded the
 * old handler may still enter it. Call edgeprobe_handler_sync() before
 * freeing anything the old handler or its `user` pointer uses.
 * ====================================================================== */
typedef void (*edgeprobe_handler_fn)(const edgeprobe_info *probe, void *user, uintptr_t value);
int edgeprobe_attach(const char *pattern, edgeprobe_handler_fn fn, void *user);
int edgeprobe_detach(const char *pattern);
int edgeprobe_handler_sync(void);

/* Discovery: fn is called once for every point already registered, then for
 * each new one (libraries loaded later; provider probes on first execution).
 * One callback per process; NULL removes it. It runs with the registry
 * locked and must not call other edgeprobe functions. */
typedef void (*edgeprobe_discover_fn)(const edgeprobe_info *info, void *arg);
int edgeprobe_set_discovery(edgeprobe_discover_fn fn, void *arg);

/* -finstrument-functions provider (define EDGEPROBE_PROVIDER in one TU).
 * Probes start on: every call site of __cyg_profile_func_enter/exit is
 * discovered on its first call and then calls the attached handler, if any.
 * Toggling uses the call patch above. By id, or by function-name glob. */
int edgeprobe_provider_activate(int id, edgeprobe_handler_fn fn, void *user);
int edgeprobe_provider_deactivate(int id);
int edgeprobe_provider_activate_glob(const char *pattern, edgeprobe_handler_fn fn, void *user);
int edgeprobe_provider_deactivate_glob(const char *pattern);

#ifdef __cplusplus
}
#endif

/* ======================================================================
 * 3. MARKERS
 *
 *   EDGEPROBE_TRACE(name, fmt, ...)   printf-style tracepoint via EDGEPROBE_SINK
 *   if (EDGEPROBE_BRANCH(name)) ...   static branch, off by default
 *   if (EDGEPROBE_BRANCH_ON(name)) ...static branch, on by default
 *   EDGEPROBE_HANDLER(name, value)    calls the handler attached to `name`
 *
 * `name` is a bare identifier-like token (letters, digits, _ . : -). Each use
 * emits, at the site, at most 4 bytes of NOP padding and a NOP5 (or an
 * aligned NOP8), plus one 16-byte record in section `edgeprobe_sites`:
 *
 *     .long site - .        where the NOP is
 *     .long target - .      the compiler's out-of-line code for the probe
 *     .long point - .       the point descriptor (writable data)
 *     .long flags           site form, default-on
 *
 * Enabled, the site holds `jmp target`. The out-of-line code may use the
 * function's local variables; the compiler wrote it, so the enabled path is
 * as good as an `if`. The statement-expression forms need GNU C (gcc, clang).
 * ====================================================================== */

/* A point descriptor: one per source-level marker (static, writable). */
typedef struct edgeprobe__point {
    const char *name;
    const char *file;
    const char *function;
    int line;
    unsigned short kind;         /* enum edgeprobe_kind */
    unsigned short flags;
    int id_plus_1;               /* 0 until registered                      */
    struct edgeprobe__binding *binding; /* handler probes: atomic pointer */
    struct edgeprobe__probe *probe;     /* the name it belongs to          */
    void *site;                  /* first site (provider: the call)         */
    int nsites;
} edgeprobe__point;

#define EDGEPROBE__F_NOP8 1u        /* record flag: 8-byte site           */
#define EDGEPROBE__F_DEFAULT_ON 2u  /* record flag: NOP means "on"        */
#define EDGEPROBE__F_ARGS 4u        /* record flag: PROBE site, target = its stub (section 9) */

#if EDGEPROBE_SITE_BYTES == 8
#define EDGEPROBE__NOP_ASM ".balign 8\n1: .byte 0x0f,0x1f,0x84,0,0,0,0,0\n"
#define EDGEPROBE__F_FORM EDGEPROBE__F_NOP8
#else
/* Pad only when 1-4 bytes are needed: the NOP5 then lies inside one aligned
 * 8-byte word, so it never straddles a cache line. */
#define EDGEPROBE__NOP_ASM ".balign 8, , 4\n1: .byte 0x0f,0x1f,0x44,0,0\n"
#define EDGEPROBE__F_FORM 0u
#endif

#define EDGEPROBE__POINT_DEF(var, pname, kind)                                 \
    static edgeprobe__point var = {#pname, __FILE__, __func__, __LINE__,       \
                                   (kind), 0, 0, 0, 0, 0, 0}

/* USDT interoperability: every site also gets a standard `.note.stapsdt`
 * entry (the format of systemtap's <sys/sdt.h>, version 3: pc, base,
 * semaphore 0, provider, name, argument specs), so `readelf -n`, bpftrace
 * and `perf probe` list edgeprobe markers. The note is not allocated: it
 * costs nothing at run time. `_.stapsdt.base` lets tools correct for
 * prelinking, as in sdt.h. Provider: EDGEPROBE_USDT_PROVIDER (a bare token,
 * per TU), default `edgeprobe`. */
#ifndef EDGEPROBE_USDT_PROVIDER
#define EDGEPROBE_USDT_PROVIDER edgeprobe
#endif
#define EDGEPROBE__STR2(x) #x
#define EDGEPROBE__STR(x) EDGEPROBE__STR2(x)
#define EDGEPROBE__USDT_ASM(pname, argspec)                                    \
    ".ifndef _.stapsdt.base\n"                                                \
    ".pushsection .stapsdt.base,\"aG\",@progbits,.stapsdt.base,comdat\n"      \
    ".weak _.stapsdt.base\n.hidden _.stapsdt.base\n"                           \
    "_.stapsdt.base: .space 1\n.size _.stapsdt.base, 1\n.popsection\n.endif\n" \
    ".pushsection .note.stapsdt,\"?\",@note\n"                                 \
    ".balign 4\n.4byte 992f-991f, 994f-993f, 3\n"                               \
    "991: .asciz \"stapsdt\"\n992: .balign 4\n"                                 \
    "993: .8byte 1b, _.stapsdt.base, 0\n"                                      \
    ".asciz \"" EDGEPROBE__STR(EDGEPROBE_USDT_PROVIDER) "\"\n"                  \
    ".asciz \"" #pname "\"\n"                                                  \
    ".asciz \"" argspec "\"\n"                                                 \
    "994: .balign 4\n.popsection\n"

#define EDGEPROBE__SITE_ASM                                                    \
    EDGEPROBE__NOP_ASM                                                         \
    ".pushsection edgeprobe_sites,\"aR\",@progbits\n"                          \
    ".balign 4\n"                                                              \
    ".long 1b - ., %l[edgeprobe__taken] - ., %c0 - ., %c1\n"                   \
    ".popsection\n"

#if defined(__cplusplus) && defined(__clang__)
/* clang (14) checks C++ asm-goto targets like indirect gotos across the whole
 * function, so labels inside statement expressions are refused once a
 * function holds two markers. A template per point keeps the asm and its
 * label in a function of their own; the operand stays a constant at -O0. */
#if __cplusplus < 201703L
#error "edgeprobe markers under clang++ need -std=c++17 or later"
#endif
template <edgeprobe__point *P, unsigned F>
static inline __attribute__((always_inline)) int edgeprobe__jumps(void) {
    __asm__ goto(EDGEPROBE__SITE_ASM : : "i"(P), "i"(F | EDGEPROBE__F_FORM) : : edgeprobe__taken);
    return 0;
edgeprobe__taken:
    return 1;
}
/* No stapsdt note here: the name cannot reach the template's asm. */
#define EDGEPROBE__JUMPS(var, flags, pname) (edgeprobe__jumps<&(var), (flags)>())
#define EDGEPROBE__JUMPS_ATTR(var, flags, pname, label_attr) EDGEPROBE__JUMPS(var, flags, pname)
#else
/* 1 when the site jumps (taken), 0 when it falls through the NOP. gcc
 * takes a `cold` attribute on the taken label (clang does not). */
#if defined(__clang__)
#define EDGEPROBE__COLD_LABEL
#else
#define EDGEPROBE__COLD_LABEL __attribute__((cold));
#endif
#define EDGEPROBE__JUMPS(var, flags, pname) EDGEPROBE__JUMPS_ATTR(var, flags, pname, )
#define EDGEPROBE__JUMPS_ATTR(var, flags, pname, label_attr)                  \
    __extension__({                                                            \
        __label__ edgeprobe__taken, edgeprobe__done;                           \
        int edgeprobe__r = 0;                                                  \
        __asm__ goto(EDGEPROBE__SITE_ASM EDGEPROBE__USDT_ASM(pname, "")        \
                     : : "i"(&(var)), "i"((flags) | EDGEPROBE__F_FORM)         \
                     : : edgeprobe__taken);                                    \
        goto edgeprobe__done;                                                  \
    edgeprobe__taken: label_attr                                               \
        edgeprobe__r = 1;                                                      \
    edgeprobe__done:                                                           \
        edgeprobe__r;                                                          \
    })
#endif

#ifdef EDGEPROBE_DISABLE_ALL
#define EDGEPROBE__TEST(pname, kind, flags) 0
#define EDGEPROBE_BRANCH_ON(pname) 1
#define EDGEPROBE_HANDLER(pname, value) ((void)(value))
#else
#define EDGEPROBE__TEST(pname, kind, flags)                                    \
    __extension__({                                                            \
        EDGEPROBE__POINT_DEF(edgeprobe__pt, pname, kind);                      \
        EDGEPROBE__JUMPS(edgeprobe__pt, flags, pname);                         \
    })
#define EDGEPROBE_BRANCH_ON(pname)                                             \
    __builtin_expect(!EDGEPROBE__TEST(pname, EDGEPROBE_KIND_BRANCH_ON,         \
                                      EDGEPROBE__F_DEFAULT_ON), 1)
#if defined(EDGEPROBE_HANDLER_INLINE) && EDGEPROBE_HANDLER_INLINE
#define EDGEPROBE__HANDLER_CALL edgeprobe__dispatch_inline
#define EDGEPROBE__HANDLER_LABEL EDGEPROBE__COLD_LABEL
#else
#define EDGEPROBE__HANDLER_CALL edgeprobe__dispatch
#define EDGEPROBE__HANDLER_LABEL
#endif
#define EDGEPROBE_HANDLER(pname, value)                                        \
    do {                                                                       \
        EDGEPROBE__POINT_DEF(edgeprobe__pt, pname, EDGEPROBE_KIND_HANDLER);    \
        if (__builtin_expect(EDGEPROBE__JUMPS_ATTR(edgeprobe__pt, 0, pname, EDGEPROBE__HANDLER_LABEL), 0)) \
            EDGEPROBE__HANDLER_CALL(&edgeprobe__pt, (uintptr_t)(value));       \
    } while (0)
#endif

#define EDGEPROBE_BRANCH(pname)                                                \
    __builtin_expect(EDGEPROBE__TEST(pname, EDGEPROBE_KIND_BRANCH, 0), 0)
#define EDGEPROBE_TRACE(pname, ...)                                            \
    do {                                                                       \
        if (__builtin_expect(EDGEPROBE__TEST(pname, EDGEPROBE_KIND_TRACE, 0), 0)) \
            (void)EDGEPROBE_SINK(__VA_ARGS__);                                 \
    } while (0)

/* ======================================================================
 * 7. HOW IT WORKS (see README.md for the long form)
 *
 * Marker site, NOP5 form, inside one aligned 8-byte word w:
 *
 *     w+0      w+1                    w+6   w+8
 *     | pad | 0f 1f 44 00 00        | ...   |   off: NOP5
 *     | pad | e9 <rel32 to target>  | ...   |   on:  jmp target
 *
 * Toggling = verify the 5 bytes, then one `lock cmpxchg` of the word (the
 * neighbouring bytes are compared and kept). Instruction fetch sees the
 * whole old or the whole new word (paper section 3).
 *
 * Process-wide state lives in one heap block, the *root*. Each object that
 * includes this header carries one ELF note (COMDAT, retained) pointing at
 * that object's hidden `edgeprobe__object` slot; the first call in an object
 * walks the loaded objects (dl_iterate_phdr), adopts a root it finds in any
 * slot, or creates one. Every object registers its site table from a
 * constructor and unregisters it from a destructor, so dlopen and dlclose
 * keep the registry exact. Root creation happens in those constructors,
 * which the dynamic loader runs one at a time; two roots could only appear if
 * two threads ran code of objects whose constructors have not yet run.
 * ====================================================================== */

/* ======================================================================
 * 8. IMPLEMENTATION
 *
 * Every function below is a weak, hidden definition: the linker keeps one
 * copy per object (executable or shared library), and all copies operate on
 * the one root. Nothing here is a per-TU `static` variable.
 * ====================================================================== */
#define EDGEPROBE__FN __attribute__((weak, visibility("hidden"), no_instrument_function))
#define EDGEPROBE__INLINE static inline __attribute__((always_inline, no_instrument_function))

#ifdef __cplusplus
extern "C" {
#endif

/* ---- 8.1 arch: x86-64 primitives -------------------------------------- */
#define EDGEPROBE__LINE 64u            /* cache line size                   */
#define EDGEPROBE__PAGE 4096u
#define EDGEPROBE__OP_INT3 0xccu
#define EDGEPROBE__OP_CALL 0xe8u
#define EDGEPROBE__OP_JMP32 0xe9u
#define EDGEPROBE__OP_JMP8 0xebu
#define EDGEPROBE__OP_RET 0xc3u

static const unsigned char edgeprobe__nop5[5] = {0x0f, 0x1f, 0x44, 0x00, 0x00};
static const unsigned char edgeprobe__nop8[8] = {0x0f, 0x1f, 0x84, 0, 0, 0, 0, 0};
static const unsigned char edgeprobe__nop3[3] = {0x0f, 0x1f, 0x00};

EDGEPROBE__INLINE uint64_t edgeprobe__rdtsc(void) {
    uint32_t lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return ((uint64_t)hi << 32) | lo;
}
EDGEPROBE__INLINE void edgeprobe__pause(void) { __asm__ volatile("pause" ::: "memory"); }
/* This thread's identity: the TCB self-pointer at %fs:0 (hosted x86-64
 * Linux). Freestanding builds have no SIGTRAP handler that needs it. */
EDGEPROBE__INLINE uintptr_t edgeprobe__self(void) {
#ifndef EDGEPROBE_FREESTANDING
    uintptr_t self;
    __asm__("mov %%fs:0, %0" : "=r"(self));
    return self;
#else
    return 0;
#endif
}

/* 8 bytes with no alignment requirement, for asm memory operands. */
typedef struct { unsigned char b[8]; } edgeprobe__bytes8;

/* lock cmpxchg on 8 bytes that lie inside one cache line (aligned or not:
 * a locked operation inside one line is atomic). */
EDGEPROBE__INLINE int edgeprobe__cmpxchg8(void *p, uint64_t *expected, uint64_t desired) {
    uint64_t prev = *expected;
    unsigned char ok;
    __asm__ volatile("lock cmpxchgq %3, %1\n\tsete %0"
                     : "=q"(ok), "+m"(*(volatile edgeprobe__bytes8 *)p), "+a"(prev)
                     : "r"(desired)
                     : "memory", "cc");
    *expected = prev;
    return ok;
}

EDGEPROBE__INLINE uint64_t edgeprobe__load8(const void *p) {
    uint64_t v;
    __builtin_memcpy(&v, (const void *)p, 8);
    return v;
}

EDGEPROBE__INLINE uintptr_t edgeprobe__line_of(const void *p) {
    return (uintptr_t)p & ~(uintptr_t)(EDGEPROBE__LINE - 1);
}
EDGEPROBE__INLINE void *edgeprobe__rel(const int32_t *field) {
    return (char *)field + *field;
}

/* x86-64 instruction length, enough to verify what a caller claims about a
 * site: legacy prefixes, REX, the one-byte map, 0f, 0f 38 and 0f 3a maps.
 * Returns 0 for what it does not know (VEX/EVEX, invalid opcodes): such an
 * instruction is refused, never guessed. */
EDGEPROBE__FN size_t edgeprobe__insn_len(const unsigned char *p, size_t avail);
EDGEPROBE__FN size_t edgeprobe__insn_len(const unsigned char *p, size_t avail) {
    /* one-byte map: bit 0 ModRM, bits 1-3 immediate: 1 imm8, 2 imm16,
     * 3 imm32 (imm16 with 66), 4 imm16+imm8, 5 imm32/imm64 (REX.W),
     * 6 moffs64; 0xff marks opcodes this decoder refuses. */
    static const unsigned char map1[256] = {
#define M 1
#define I8 (1 << 1)
#define I16 (2 << 1)
#define IZ (3 << 1)
#define IWB (4 << 1)
#define IV (5 << 1)
#define MO (6 << 1)
#define X 0xff
        /*0x00*/ M, M, M, M, I8, IZ, X, X, M, M, M, M, I8, IZ, X, 0,
        /*0x10*/ M, M, M, M, I8, IZ, X, X, M, M, M, M, I8, IZ, X, X,
        /*0x20*/ M, M, M, M, I8, IZ, 0, X, M, M, M, M, I8, IZ, 0, X,
        /*0x30*/ M, M, M, M, I8, IZ, 0, X, M, M, M, M, I8, IZ, 0, X,
        /*0x40*/ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        /*0x50*/ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        /*0x60*/ X, X, X, M, 0, 0, 0, 0, IZ, M | IZ, I8, M | I8, 0, 0, 0, 0,
        /*0x70*/ I8, I8, I8, I8, I8, I8, I8, I8, I8, I8, I8, I8, I8, I8, I8, I8,
        /*0x80*/ M | I8, M | IZ, X, M | I8, M, M, M, M, M, M, M, M, M, M, M, M,
        /*0x90*/ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, X, 0, 0, 0, 0, 0,
        /*0xa0*/ MO, MO, MO, MO, 0, 0, 0, 0, I8, IZ, 0, 0, 0, 0, 0, 0,
        /*0xb0*/ I8, I8, I8, I8, I8, I8, I8, I8, IV, IV, IV, IV, IV, IV, IV, IV,
        /*0xc0*/ M | I8, M | I8, I16, 0, X, X, M | I8, M | IZ, IWB, 0, I16, 0, 0, I8, X, 0,
        /*0xd0*/ M, M, M, M, X, X, X, 0, M, M, M, M, M, M, M, M,
        /*0xe0*/ I8, I8, I8, I8, I8, I8, I8, I8, IZ, IZ, X, I8, 0, 0, 0, 0,
        /*0xf0*/ 0, 0, 0, 0, 0, 0, M, M, 0, 0, 0, 0, 0, 0, M, M,
#undef M
#undef I8
#undef I16
#undef IZ
#undef IWB
#undef IV
#undef MO
#undef X
    };
    size_t i = 0, n;
    int opsize16 = 0, addr32 = 0, rexw = 0, modrm = 0, imm = 0;
    unsigned char op, cls;
    for (;; i++) { /* legacy prefixes */
        if (i >= avail || i >= 14) return 0;
        op = p[i];
        if (op == 0x66) opsize16 = 1;
        else if (op == 0x67) addr32 = 1;
        else if (!(op == 0xf0 || op == 0xf2 || op == 0xf3 || op == 0x2e || op == 0x36 ||
                   op == 0x3e || op == 0x26 || op == 0x64 || op == 0x65))
            break;
    }
    if ((op & 0xf0) == 0x40) { /* REX */
        rexw = (op & 8) != 0;
        if (++i >= avail) return 0;
        op = p[i];
    }
    i++;
    if (op == 0x0f) {
        if (i >= avail) return 0;
        op = p[i++];
        if (op == 0x38) { if (i >= avail) return 0; i++; modrm = 1; }
        else if (op == 0x3a) { if (i >= avail) return 0; i++; modrm = 1; imm = 1; }
        else if ((op & 0xf0) == 0x80) imm = opsize16 ? 2 : 4;          /* jcc rel32 */
        else if (op == 0x05 || op == 0x06 || op == 0x07 || op == 0x08 || op == 0x09 ||
                 op == 0x0b || op == 0x77 || op == 0xa0 || op == 0xa1 || op == 0xa2 ||
                 op == 0xa8 || op == 0xa9 || op == 0xaa || (op & 0xf8) == 0xc8 ||
                 (op >= 0x30 && op <= 0x37))
            modrm = 0;
        else {
            modrm = 1;
            if ((op >= 0x70 && op <= 0x73) || op == 0xa4 || op == 0xac || op == 0xba ||
                op == 0xc2 || op == 0xc4 || op == 0xc5 || op == 0xc6)
                imm = 1;
        }
    } else {
        cls = map1[op];
        if (cls == 0xff) return 0;
        modrm = cls & 1;
        switch (cls >> 1) {
        case 1: imm = 1; break;
        case 2: imm = 2; break;
        case 3: imm = opsize16 ? 2 : 4; break;
        case 4: imm = 3; break;
        case 5: imm = rexw ? 8 : (opsize16 ? 2 : 4); break;
        case 6: imm = addr32 ? 4 : 8; break;
        default: break;
        }
        if (op == 0xf6 || op == 0xf7) { /* test r/m, imm has an immediate */
            if (i >= avail) return 0;
            if (((p[i] >> 3) & 7) < 2) imm = op == 0xf6 ? 1 : (opsize16 ? 2 : 4);
        }
    }
    if (modrm) {
        unsigned char m, mod, rm;
        if (i >= avail) return 0;
        m = p[i++];
        mod = m >> 6;
        rm = m & 7;
        if (mod != 3 && rm == 4) { /* SIB */
            if (i >= avail) return 0;
            if (mod == 0 && (p[i] & 7) == 5) i += 4;
            i++;
        }
        if (mod == 1) i += 1;
        else if (mod == 2 || (mod == 0 && rm == 5)) i += 4;
    }
    n = i + (size_t)imm;
    return n <= avail && n <= 15 ? n : 0;
}

/* ---- 8.2 OS hooks --------------------------------------------------------
 * The core needs these. Hosted builds get Linux implementations that declare
 * the libc functions they use under private names (asm labels), so the header
 * works whatever feature macros or -std the including file uses. A
 * freestanding build defines them before including the header:
 *   EDGEPROBE_OS_PROTECT(page, len, writable)  -> 0 or -errno   (required)
 *        writable: 1 = read+write+execute, 0 = read+execute
 *   EDGEPROBE_OS_ALLOC(bytes) -> zeroed memory or NULL         (required)
 *   EDGEPROBE_OS_FREE(ptr)                                      (required)
 *   EDGEPROBE_OS_YIELD()                                        (required)
 *   EDGEPROBE_OS_SERIALIZE() -> 0 or -errno: make every thread
 *        execute a serialising instruction       (optional: ENOTSUP)
 *   EDGEPROBE_OS_MAP_NEAR(hint, bytes) -> executable page near
 *        hint, or NULL                            (optional: call patch 1|4
 *                                                 split then fails ERANGE)
 *   EDGEPROBE_OS_LOG(msg)                          (optional: silent)
 * Freestanding builds have no SIGTRAP emulation: straddling word patches
 * return EDGEPROBE_ENOTSUP (the call patch needs none). */
#ifndef EDGEPROBE_FREESTANDING
typedef struct edgeprobe__dl_phdr_info { /* glibc's struct dl_phdr_info */
    uintptr_t addr;
    const char *name;
    const struct edgeprobe__phdr *phdr;
    uint16_t phnum;
    unsigned long long adds, subs;
} edgeprobe__dl_phdr_info;
typedef struct edgeprobe__phdr { /* Elf64_Phdr */
    uint32_t type, flags;
    uint64_t offset, vaddr, paddr, filesz, memsz, align;
} edgeprobe__phdr;
typedef struct edgeprobe__dl_info { /* glibc's Dl_info */
    const char *fname;
    void *fbase;
    const char *sname;
    void *saddr;
} edgeprobe__dl_info;
typedef struct edgeprobe__sigaction_t { /* glibc's struct sigaction, x86-64 */
    void (*action)(int, void *, void *);
    unsigned long mask[16];
    int flags;
    void (*restorer)(void);
} edgeprobe__sigaction_t;
typedef struct edgeprobe__siginfo { int signo, err, code; } edgeprobe__siginfo;
typedef struct edgeprobe__ucontext { /* the kernel's ucontext, x86-64 */
    unsigned long flags;
    void *link;
    void *ss_sp;
    int ss_flags;
    size_t ss_size;
    uint64_t gregs[23]; /* r8..r15 rdi rsi rbp rbx rdx rax rcx rsp rip ... */
} edgeprobe__ucontext;
#define EDGEPROBE__REG_RSP 15
#define EDGEPROBE__REG_RIP 16

int edgeprobe__libc_mprotect(void *, size_t, int) __asm__("mprotect");
void *edgeprobe__libc_mmap(void *, size_t, int, int, int, long) __asm__("mmap");
int edgeprobe__libc_munmap(void *, size_t) __asm__("munmap");
void *edgeprobe__libc_calloc(size_t, size_t) __asm__("calloc");
void edgeprobe__libc_free(void *) __asm__("free");
int edgeprobe__libc_sched_yield(void) __asm__("sched_yield");
char *edgeprobe__libc_getenv(const char *) __asm__("getenv");
int edgeprobe__libc_vdprintf(int, const char *, __builtin_va_list) __asm__("vdprintf");
int *edgeprobe__libc_errno(void) __asm__("__errno_location");
int edgeprobe__libc_sigaction(int, const edgeprobe__sigaction_t *, edgeprobe__sigaction_t *) __asm__("sigaction");
int edgeprobe__libc_raise(int) __asm__("raise");
int edgeprobe__libc_dl_iterate_phdr(int (*)(edgeprobe__dl_phdr_info *, size_t, void *), void *) __asm__("dl_iterate_phdr");
int edgeprobe__libc_dladdr(const void *, edgeprobe__dl_info *) __asm__("dladdr");
void *edgeprobe__libc_dlopen(const char *, int) __asm__("dlopen");

#define EDGEPROBE__PROT_RX 5    /* PROT_READ | PROT_EXEC              */
#define EDGEPROBE__PROT_RWX 7
#define EDGEPROBE__MAP_ANON_PRIVATE 0x22
#define EDGEPROBE__MAP_FIXED_NOREPLACE 0x100000
#define EDGEPROBE__SIGTRAP 5
#define EDGEPROBE__SA_SIGINFO 4
#define EDGEPROBE__SA_RESTART 0x10000000
#define EDGEPROBE__SA_ONSTACK 0x08000000
#define EDGEPROBE__SI_KERNEL 0x80
#define EDGEPROBE__RTLD_PIN (2 | 4 | 0x1000) /* NOW | NOLOAD | NODELETE */
#define EDGEPROBE__PT_NOTE 4
#define EDGEPROBE__SYS_MEMBARRIER 324
#define EDGEPROBE__MB_QUERY 0
#define EDGEPROBE__MB_SYNC_CORE (1 << 5)
#define EDGEPROBE__MB_REGISTER_SYNC_CORE (1 << 6)

EDGEPROBE__INLINE long edgeprobe__syscall3(long nr, long a, long b, long c) {
    long ret;
    __asm__ volatile("syscall" : "=a"(ret) : "a"(nr), "D"(a), "S"(b), "d"(c)
                     : "rcx", "r11", "memory");
    return ret;
}
EDGEPROBE__FN int edgeprobe__os_protect(void *page, size_t len, int writable);
EDGEPROBE__FN int edgeprobe__os_protect(void *page, size_t len, int writable) {
    if (edgeprobe__libc_mprotect(page, len, writable ? EDGEPROBE__PROT_RWX : EDGEPROBE__PROT_RX))
        return -*edgeprobe__libc_errno();
    return 0;
}
EDGEPROBE__FN int edgeprobe__os_serialize(void);
EDGEPROBE__FN int edgeprobe__os_serialize(void) {
    return (int)edgeprobe__syscall3(EDGEPROBE__SYS_MEMBARRIER, EDGEPROBE__MB_SYNC_CORE, 0, 0);
}
/* An executable page within reach of hint: try hint-aligned addresses at
 * growing distances on both sides, never replacing an existing mapping. */
EDGEPROBE__FN void *edgeprobe__os_map_near(uintptr_t hint, size_t bytes);
EDGEPROBE__FN void *edgeprobe__os_map_near(uintptr_t hint, size_t bytes) {
    uintptr_t step, base = hint & ~(uintptr_t)(EDGEPROBE__PAGE - 1);
    for (step = (uintptr_t)1 << 20; step < ((uintptr_t)1 << 31); step <<= 1) {
        int side;
        for (side = -1; side <= 1; side += 2) {
            uintptr_t want = side < 0 ? base - step : base + step;
            void *p;
            if (side < 0 && base < step) continue;
            p = edgeprobe__libc_mmap((void *)want, bytes, EDGEPROBE__PROT_RWX,
                                     EDGEPROBE__MAP_ANON_PRIVATE | EDGEPROBE__MAP_FIXED_NOREPLACE, -1, 0);
            if (p != (void *)-1) return p;
        }
    }
    return (void *)0;
}
#define EDGEPROBE_OS_PROTECT(page, len, w) edgeprobe__os_protect(page, len, w)
#define EDGEPROBE_OS_ALLOC(bytes) edgeprobe__libc_calloc(1, bytes)
#define EDGEPROBE_OS_FREE(p) edgeprobe__libc_free(p)
#define EDGEPROBE_OS_YIELD() ((void)edgeprobe__libc_sched_yield())
#define EDGEPROBE_OS_SERIALIZE() edgeprobe__os_serialize()
#define EDGEPROBE_OS_MAP_NEAR(hint, bytes) edgeprobe__os_map_near(hint, bytes)
#define EDGEPROBE_OS_LOG(msg) ((void)edgeprobe__dprintf(2, "edgeprobe: %s\n", msg))
#define EDGEPROBE__GETENV(name) edgeprobe__libc_getenv(name)

EDGEPROBE__FN int edgeprobe__dprintf(int fd, const char *fmt, ...);
EDGEPROBE__FN int edgeprobe__dprintf(int fd, const char *fmt, ...) {
    __builtin_va_list ap;
    int n;
    __builtin_va_start(ap, fmt);
    n = edgeprobe__libc_vdprintf(fd, fmt, ap);
    __builtin_va_end(ap);
    return n;
}
EDGEPROBE__FN int edgeprobe_printf(const char *fmt, ...) {
    __builtin_va_list ap;
    int n;
    __builtin_va_start(ap, fmt);
    n = edgeprobe__libc_vdprintf(2, fmt, ap);
    __builtin_va_end(ap);
    return n;
}
#else /* EDGEPROBE_FREESTANDING */
#if !defined(EDGEPROBE_OS_PROTECT) || !defined(EDGEPROBE_OS_ALLOC) || \
    !defined(EDGEPROBE_OS_FREE) || !defined(EDGEPROBE_OS_YIELD)
#error "EDGEPROBE_FREESTANDING needs EDGEPROBE_OS_PROTECT, _ALLOC, _FREE and _YIELD (see section 8.2)"
#endif
#ifndef EDGEPROBE_OS_SERIALIZE
#define EDGEPROBE_OS_SERIALIZE() (-95)
#endif
#ifndef EDGEPROBE_OS_MAP_NEAR
#define EDGEPROBE_OS_MAP_NEAR(hint, bytes) ((void)(hint), (void *)0)
#endif
#ifndef EDGEPROBE_OS_LOG
#define EDGEPROBE_OS_LOG(msg) ((void)(msg))
#endif
#define EDGEPROBE__GETENV(name) ((const char *)0)
#endif

/* ---- 8.3 the root: process-wide state ---------------------------------- */
#define EDGEPROBE__ABI 1u
#define EDGEPROBE__MAGIC 0x65646765707262ULL /* "edgeprb" */
#define EDGEPROBE__FLIGHT_SETS 1024u /* in-flight table: sets, by cache line */
#define EDGEPROBE__FLIGHT_WAYS 8u   /* straddlers in flight per set          */
#define EDGEPROBE__RECENT 4096u     /* recently finished straddlers (ring)   */
#define EDGEPROBE__CHUNK 1024u     /* point ids per chunk                   */
#define EDGEPROBE__CHUNKS 4096u    /* => 4M points                          */
#define EDGEPROBE__STRIPES 16u     /* handler-entry counters                */
#define EDGEPROBE__TRAMPS 64u      /* ret-trampoline pages                  */

typedef struct {
    int v;
    uintptr_t owner;             /* thread holding it (hosted builds)      */
} edgeprobe__lock_t;

/* One site of a point: where the NOP is, where its jump goes. */
typedef struct edgeprobe__site {
    unsigned char *addr;
    unsigned char *target;
    unsigned flags;              /* EDGEPROBE__F_* */
    edgeprobe__point *point;
} edgeprobe__site;

/* A probe: a name, its state, and every site and point that bears it. */
struct edgeprobe__probe {
    struct edgeprobe__probe *next_hash;
    int count;                   /* on while > 0 */
    int nsites, site_cap;
    edgeprobe__site *sites;
    int npoints, point_cap;
    edgeprobe__point **points;
    char name[EDGEPROBE_NAME_MAX + 1];
};

/* A handler binding: immutable once published, freed only after a sync. */
typedef struct edgeprobe__binding {
    edgeprobe_handler_fn fn;
    void *user;
    struct edgeprobe__binding *next_retired;
} edgeprobe__binding;

/* A straddling patch in flight. The SIGTRAP handler reads these without
 * the lock: `seq` is odd while an entry is being rewritten. */
enum { EDGEPROBE__FLIGHT_EMPTY = 0, EDGEPROBE__FLIGHT_WAIT1, EDGEPROBE__FLIGHT_WAIT2 };
typedef struct edgeprobe__flight {
    uintptr_t site;              /* 0 = free                                */
    unsigned seq;
    int state;
    int error;                   /* a step found foreign bytes: EBYTES     */
    uintptr_t owner;             /* thread that started it                  */
    uint64_t stamp;              /* TSC of the last step                   */
    unsigned char len, old[8], insn[8];
} edgeprobe__flight;

/* A code page that edgeprobe made writable. */
typedef struct edgeprobe__page { uintptr_t addr; int refs; int open; } edgeprobe__page;

typedef struct edgeprobe__root {
    uint64_t magic;
    unsigned abi, size;
    edgeprobe__lock_t lock;      /* registry, pages, flights (writers)     */
    /* policy */
    int sync_mode;               /* enum edgeprobe_sync                    */
    int sync_registered;
    uint64_t tmax;
    int wx_strict;
    edgeprobe_log_fn log;
    void *log_arg;
    char env_enable[1024];       /* EDGEPROBE_ENABLE, validated           */
    /* registry */
    struct edgeprobe__probe **hash;
    unsigned hash_cap, nprobes;
    edgeprobe__point **chunks[EDGEPROBE__CHUNKS];
    int npoints;
    edgeprobe_discover_fn discover;
    void *discover_arg;
    /* handlers */
    volatile unsigned long entering[EDGEPROBE__STRIPES][8]; /* [stripe][epoch&1], padded */
    unsigned epoch;
    edgeprobe__binding *retired;
    edgeprobe__lock_t sync_lock; /* one edgeprobe_handler_sync at a time   */
    struct edgeprobe__reader *readers; /* per-thread handler state (8.13)  */
    int readers_fence;           /* 1: no membarrier; readers fence instead */
    /* code pages */
    edgeprobe__page *pages;
    unsigned page_cap, npages;
    /* low-level patching */
    edgeprobe__flight flights[EDGEPROBE__FLIGHT_SETS][EDGEPROBE__FLIGHT_WAYS];
    uintptr_t recent[EDGEPROBE__RECENT]; /* finished straddlers, newest last */
    unsigned recent_next;
    unsigned in_flight;          /* entries in use: 0 skips overlap checks */
    int trap_installed;
#ifndef EDGEPROBE_FREESTANDING
    edgeprobe__sigaction_t trap_prev;
#endif
    uintptr_t tramps[EDGEPROBE__TRAMPS];
    unsigned ntramps;
    /* -finstrument-functions provider */
    struct edgeprobe__provider *provider;
} edgeprobe__root;

/* One per object (weak + hidden: the linker keeps one copy per executable or
 * shared library). The ELF note below points at it. */
typedef struct edgeprobe__object {
    edgeprobe__root *root;
    int registered;
} edgeprobe__object;
__attribute__((weak, visibility("hidden"), used)) edgeprobe__object edgeprobe__this_object;

/* The object's note: name "EdgeProbe", type 0x45500001, descriptor = offset
 * from itself to edgeprobe__this_object. COMDAT keeps one per object; the
 * R flag keeps it under --gc-sections. */
__asm__(".pushsection .note.edgeprobe,\"aGR\",@note,edgeprobe__note,comdat\n"
        ".balign 4\n"
        ".long 10, 4, 0x45500001\n"
        ".asciz \"EdgeProbe\"\n"
        ".balign 4\n"
        ".long edgeprobe__this_object - .\n"
        ".popsection\n"
        /* an empty, retained site section: __start_/__stop_ always exist */
        ".pushsection edgeprobe_sites,\"aR\",@progbits\n"
        ".popsection\n");

/* The site table of this object, [__start, __stop). */
typedef struct edgeprobe__record {
    int32_t site, target, point;
    uint32_t flags;
} edgeprobe__record;
extern const edgeprobe__record __start_edgeprobe_sites[] __attribute__((visibility("hidden")));
extern const edgeprobe__record __stop_edgeprobe_sites[] __attribute__((visibility("hidden")));

/* ---- 8.4 small helpers --------------------------------------------------- */
EDGEPROBE__FN void edgeprobe__lock(edgeprobe__lock_t *l);
EDGEPROBE__FN void edgeprobe__lock(edgeprobe__lock_t *l) {
    while (__atomic_exchange_n(&l->v, 1, __ATOMIC_ACQUIRE)) {
        int spins;
        for (spins = 0; spins < 100 && __atomic_load_n(&l->v, __ATOMIC_RELAXED); spins++)
            edgeprobe__pause();
        if (__atomic_load_n(&l->v, __ATOMIC_RELAXED)) EDGEPROBE_OS_YIELD();
    }
    __atomic_store_n(&l->owner, edgeprobe__self(), __ATOMIC_RELAXED);
}
EDGEPROBE__INLINE void edgeprobe__unlock(edgeprobe__lock_t *l) {
    __atomic_store_n(&l->owner, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&l->v, 0, __ATOMIC_RELEASE);
}

/* Text assembly without libc: append to a bounded buffer. */
typedef struct { char *buf; size_t cap, len; } edgeprobe__text;
EDGEPROBE__FN void edgeprobe__puts(edgeprobe__text *t, const char *s);
EDGEPROBE__FN void edgeprobe__puts(edgeprobe__text *t, const char *s) {
    while (s && *s && t->len + 1 < t->cap) t->buf[t->len++] = *s++;
    t->buf[t->len < t->cap ? t->len : t->cap - 1] = 0;
}
EDGEPROBE__FN void edgeprobe__puthex(edgeprobe__text *t, uint64_t v, int digits);
EDGEPROBE__FN void edgeprobe__puthex(edgeprobe__text *t, uint64_t v, int digits) {
    char s[17];
    int i;
    for (i = 0; i < digits && i < 16; i++) s[i] = "0123456789abcdef"[(v >> (4 * (digits - 1 - i))) & 15];
    s[i] = 0;
    edgeprobe__puts(t, s);
}
EDGEPROBE__FN void edgeprobe__putdec(edgeprobe__text *t, int v);
EDGEPROBE__FN void edgeprobe__putdec(edgeprobe__text *t, int v) {
    char s[12];
    int i = 11;
    unsigned u = v < 0 ? 0u - (unsigned)v : (unsigned)v;
    s[i] = 0;
    do s[--i] = (char)('0' + u % 10); while ((u /= 10) && i > 1);
    if (v < 0) s[--i] = '-';
    edgeprobe__puts(t, s + i);
}
EDGEPROBE__FN void edgeprobe__putbytes(edgeprobe__text *t, const unsigned char *b, size_t n);
EDGEPROBE__FN void edgeprobe__putbytes(edgeprobe__text *t, const unsigned char *b, size_t n) {
    size_t i;
    for (i = 0; i < n; i++) {
        if (i) edgeprobe__puts(t, " ");
        edgeprobe__puthex(t, b[i], 2);
    }
}

EDGEPROBE__FN const char *edgeprobe_strerror(int err) {
#define EDGEPROBE__ERR_CASE(name, errno_value, text) case name: return text;
    switch (err) {
    case EDGEPROBE_OK: return "success";
    EDGEPROBE__ERRORS(EDGEPROBE__ERR_CASE)
    default: return err > 0 ? "success (a count)" : "unknown edgeprobe error";
    }
#undef EDGEPROBE__ERR_CASE
}

EDGEPROBE__FN void edgeprobe__log(edgeprobe__root *r, const char *msg);
EDGEPROBE__FN void edgeprobe__log(edgeprobe__root *r, const char *msg) {
    edgeprobe_log_fn fn = r ? __atomic_load_n(&r->log, __ATOMIC_ACQUIRE) : 0;
    if (fn) fn(msg, r->log_arg);
}
/* "<what> at 0x...: found <bytes>, expected <bytes>" - the refusal message. */
EDGEPROBE__FN void edgeprobe__log_bytes(edgeprobe__root *r, const char *what, const void *at,
                                        const unsigned char *expected, size_t n);
EDGEPROBE__FN void edgeprobe__log_bytes(edgeprobe__root *r, const char *what, const void *at,
                                        const unsigned char *expected, size_t n) {
    char buf[256];
    edgeprobe__text t = {buf, sizeof buf, 0};
    if (!r || !r->log) return;
    edgeprobe__puts(&t, what);
    edgeprobe__puts(&t, " at 0x");
    edgeprobe__puthex(&t, (uintptr_t)at, 12);
    edgeprobe__puts(&t, ": found ");
    edgeprobe__putbytes(&t, (const unsigned char *)at, n);
    if (expected) {
        edgeprobe__puts(&t, ", expected ");
        edgeprobe__putbytes(&t, expected, n);
    }
    edgeprobe__log(r, t.buf);
}
EDGEPROBE__FN void edgeprobe__log_stderr(const char *msg, void *arg);
EDGEPROBE__FN void edgeprobe__log_stderr(const char *msg, void *arg) {
    (void)arg;
    EDGEPROBE_OS_LOG(msg);
}

EDGEPROBE__FN uint64_t edgeprobe__parse_u64(const char *s, int *ok);
EDGEPROBE__FN uint64_t edgeprobe__parse_u64(const char *s, int *ok) {
    uint64_t v = 0;
    *ok = s && *s;
    for (; s && *s; s++) {
        if (*s < '0' || *s > '9' || v > (UINT64_MAX - 9) / 10) { *ok = 0; return 0; }
        v = v * 10 + (uint64_t)(*s - '0');
    }
    return v;
}
EDGEPROBE__INLINE int edgeprobe__streq(const char *a, const char *b) {
    while (*a && *a == *b) a++, b++;
    return *a == *b;
}
EDGEPROBE__INLINE size_t edgeprobe__strnlen(const char *s, size_t max) {
    size_t n = 0;
    while (n < max && s[n]) n++;
    return n;
}
EDGEPROBE__INLINE uint32_t edgeprobe__hash_str(const char *s) {
    uint32_t h = 2166136261u; /* FNV-1a */
    while (*s) h = (h ^ (unsigned char)*s++) * 16777619u;
    return h;
}
EDGEPROBE__INLINE uint32_t edgeprobe__hash_ptr(uintptr_t p) {
    uint64_t h = (uint64_t)p * 0x9e3779b97f4a7c15ULL;
    return (uint32_t)(h >> 32);
}

/* Grow an array of `size`-byte elements to hold at least `need`. */
EDGEPROBE__FN int edgeprobe__grow(void **arr, int *cap, int need, size_t size);
EDGEPROBE__FN int edgeprobe__grow(void **arr, int *cap, int need, size_t size) {
    int ncap = *cap ? *cap : 4;
    void *n;
    if (need <= *cap) return 0;
    while (ncap < need) ncap *= 2;
    n = EDGEPROBE_OS_ALLOC((size_t)ncap * size);
    if (!n) return EDGEPROBE_ENOMEM;
    if (*arr) {
        __builtin_memcpy(n, *arr, (size_t)*cap * size);
        EDGEPROBE_OS_FREE(*arr);
    }
    *arr = n;
    *cap = ncap;
    return 0;
}

/* ---- glob patterns ------------------------------------------------------ */
EDGEPROBE__INLINE int edgeprobe__is_glob(const char *p) {
    for (; *p; p++)
        if (*p == '*' || *p == '?' || *p == '[' || *p == '\\') return 1;
    return 0;
}
/* Check a pattern before use: NULL/empty, length, brackets, escapes. */
EDGEPROBE__FN int edgeprobe__check_pattern(const char *p);
EDGEPROBE__FN int edgeprobe__check_pattern(const char *p) {
    const char *s;
    if (!p || !*p) return EDGEPROBE_EINVAL;
    if (edgeprobe__strnlen(p, EDGEPROBE_NAME_MAX + 1) > EDGEPROBE_NAME_MAX) return EDGEPROBE_ENAMETOOLONG;
    for (s = p; *s; s++) {
        if (*s == '\\') {
            if (!*++s) return EDGEPROBE_EPATTERN;
        } else if (*s == '[') {
            s++;
            if (*s == '!' || *s == '^') s++;
            if (*s == ']') s++;
            while (*s && *s != ']') s++;
            if (!*s) return EDGEPROBE_EPATTERN;
        }
    }
    return 0;
}
/* fnmatch-style match of a checked pattern. */
EDGEPROBE__FN int edgeprobe__glob_match(const char *p, const char *s);
EDGEPROBE__FN int edgeprobe__glob_match(const char *p, const char *s) {
    const char *star_p = 0, *star_s = 0;
    while (*s) {
        if (*p == '*') {
            star_p = ++p;
            star_s = s;
            continue;
        }
        if (*p == '[') {
            const char *q = p + 1;
            int neg = 0, hit = 0;
            if (*q == '!' || *q == '^') neg = 1, q++;
            do {
                if (q[1] == '-' && q[2] && q[2] != ']') {
                    if ((unsigned char)*s >= (unsigned char)q[0] && (unsigned char)*s <= (unsigned char)q[2]) hit = 1;
                    q += 3;
                } else {
                    if (*q == *s) hit = 1;
                    q++;
                }
            } while (*q != ']');
            if (hit != neg) {
                p = q + 1;
                s++;
                continue;
            }
        } else if (*p == '?' || (*p == '\\' ? (p[1] == *s && (p++, 1)) : *p == *s)) {
            p++;
            s++;
            continue;
        }
        if (!star_p) return 0;
        p = star_p;
        s = ++star_s;
    }
    while (*p == '*') p++;
    return !*p;
}

/* ---- 8.5 finding the one root --------------------------------------------
 * Fast path: this object's slot. Slow path (once per object): walk loaded
 * objects for an edgeprobe note whose slot already holds a root; else make
 * one. */
#ifndef EDGEPROBE_FREESTANDING
typedef struct { edgeprobe__root *found; } edgeprobe__walk;
EDGEPROBE__FN int edgeprobe__walk_notes(edgeprobe__dl_phdr_info *info, size_t size, void *arg);
EDGEPROBE__FN int edgeprobe__walk_notes(edgeprobe__dl_phdr_info *info, size_t size, void *arg) {
    edgeprobe__walk *w = (edgeprobe__walk *)arg;
    int i;
    (void)size;
    for (i = 0; i < info->phnum && !w->found; i++) {
        const unsigned char *n, *end;
        if (info->phdr[i].type != EDGEPROBE__PT_NOTE) continue;
        n = (const unsigned char *)(info->addr + info->phdr[i].vaddr);
        end = n + info->phdr[i].memsz;
        while (n + 12 <= end) {
            uint32_t namesz, descsz, type;
            __builtin_memcpy(&namesz, n, 4);
            __builtin_memcpy(&descsz, n + 4, 4);
            __builtin_memcpy(&type, n + 8, 4);
            if (type == 0x45500001u && namesz == 10 && descsz == 4 &&
                __builtin_memcmp(n + 12, "EdgeProbe", 10) == 0) {
                const int32_t *off = (const int32_t *)(n + 12 + 12);
                edgeprobe__object *o = (edgeprobe__object *)edgeprobe__rel(off);
                edgeprobe__root *r = __atomic_load_n(&o->root, __ATOMIC_ACQUIRE);
                if (r) w->found = r;
            }
            n += 12 + ((namesz + 3) & ~3u) + ((descsz + 3) & ~3u);
        }
    }
    return w->found != 0;
}
#endif

EDGEPROBE__FN void edgeprobe__root_configure(edgeprobe__root *r);
EDGEPROBE__FN void edgeprobe__root_configure(edgeprobe__root *r) {
    const char *s;
    int ok;
    r->tmax = EDGEPROBE_TMAX_DEFAULT;
    r->wx_strict = EDGEPROBE_WX_STRICT;
    if ((s = EDGEPROBE__GETENV("EDGEPROBE_VERBOSE")) && *s && *s != '0') r->log = edgeprobe__log_stderr;
    if ((s = EDGEPROBE__GETENV("EDGEPROBE_TMAX"))) {
        uint64_t v = edgeprobe__parse_u64(s, &ok);
        if (ok) r->tmax = v;
        else EDGEPROBE_OS_LOG("EDGEPROBE_TMAX is not a number of ticks; using the default");
    }
    if ((s = EDGEPROBE__GETENV("EDGEPROBE_WX"))) {
        if (edgeprobe__streq(s, "strict")) r->wx_strict = 1;
        else if (edgeprobe__streq(s, "keep")) r->wx_strict = 0;
        else EDGEPROBE_OS_LOG("EDGEPROBE_WX must be 'strict' or 'keep'; ignored");
    }
    if ((s = EDGEPROBE__GETENV("EDGEPROBE_ENABLE"))) {
        size_t n = edgeprobe__strnlen(s, sizeof r->env_enable);
        if (n >= sizeof r->env_enable) EDGEPROBE_OS_LOG("EDGEPROBE_ENABLE is longer than 1023 bytes; ignored");
        else __builtin_memcpy(r->env_enable, s, n + 1);
    }
}

EDGEPROBE__FN int edgeprobe__set_sync_locked(edgeprobe__root *r, int mode);
EDGEPROBE__FN void edgeprobe__env_report(const edgeprobe__root *r);
EDGEPROBE__FN int edgeprobe__readers_need_fence(void);
EDGEPROBE__FN edgeprobe__root *edgeprobe__root_create(void);
EDGEPROBE__FN edgeprobe__root *edgeprobe__root_create(void) {
    edgeprobe__root *r = (edgeprobe__root *)EDGEPROBE_OS_ALLOC(sizeof *r);
    const char *s;
    if (!r) return 0;
    r->magic = EDGEPROBE__MAGIC;
    r->abi = EDGEPROBE__ABI;
    r->size = (unsigned)sizeof *r;
    edgeprobe__root_configure(r);
    edgeprobe__env_report(r);
    r->readers_fence = edgeprobe__readers_need_fence();
    if ((s = EDGEPROBE__GETENV("EDGEPROBE_SYNC")) && edgeprobe__streq(s, "serialize") &&
        edgeprobe__set_sync_locked(r, EDGEPROBE_SYNC_SERIALIZE) < 0)
        EDGEPROBE_OS_LOG("EDGEPROBE_SYNC=serialize: membarrier SYNC_CORE unavailable; using Tmax waits");
    return r;
}

/* The root, or NULL with *err set. */
EDGEPROBE__FN edgeprobe__root *edgeprobe__root_get(int *err);
EDGEPROBE__FN edgeprobe__root *edgeprobe__root_get(int *err) {
    edgeprobe__object *self = &edgeprobe__this_object;
    edgeprobe__root *r = __atomic_load_n(&self->root, __ATOMIC_ACQUIRE);
    if (!r) {
#ifndef EDGEPROBE_FREESTANDING
        edgeprobe__walk w = {0};
        edgeprobe__libc_dl_iterate_phdr(edgeprobe__walk_notes, &w);
        r = w.found;
#endif
        if (!r) r = edgeprobe__root_create();
        if (!r) {
            *err = EDGEPROBE_ENOMEM;
            return 0;
        }
        {
            edgeprobe__root *expected = 0;
            if (!__atomic_compare_exchange_n(&self->root, &expected, r, 0, __ATOMIC_ACQ_REL,
                                             __ATOMIC_ACQUIRE))
                r = expected; /* another thread of this object won; ours leaks once */
        }
    }
    if (r->magic != EDGEPROBE__MAGIC || r->abi != EDGEPROBE__ABI || r->size != sizeof *r) {
        *err = EDGEPROBE_EABI;
        return 0;
    }
    return r;
}
#define EDGEPROBE__ROOT_OR_RETURN(r)                                           \
    int edgeprobe__err = 0;                                                    \
    edgeprobe__root *r = edgeprobe__root_get(&edgeprobe__err);                 \
    if (!r) return edgeprobe__err

EDGEPROBE__FN void edgeprobe_set_logger(edgeprobe_log_fn fn, void *arg) {
    int err;
    edgeprobe__root *r = edgeprobe__root_get(&err);
    if (!r) return;
    edgeprobe__lock(&r->lock);
    r->log_arg = arg;
    __atomic_store_n(&r->log, fn, __ATOMIC_RELEASE);
    edgeprobe__unlock(&r->lock);
}

/* ---- 8.6 writing code ------------------------------------------------------
 * Pages: opened (made writable) on first use. Default policy: stay open.
 * Strict W^X: closed again when the last writer of the page is done. */
EDGEPROBE__FN edgeprobe__page *edgeprobe__page_slot(edgeprobe__root *r, uintptr_t page);
EDGEPROBE__FN edgeprobe__page *edgeprobe__page_slot(edgeprobe__root *r, uintptr_t page) {
    unsigned i, mask;
    if ((r->npages + 1) * 2 > r->page_cap) { /* rehash to keep probes short */
        unsigned old_cap = r->page_cap, ncap = old_cap ? old_cap * 2 : 64;
        edgeprobe__page *old = r->pages, *n = (edgeprobe__page *)EDGEPROBE_OS_ALLOC(ncap * sizeof *n);
        if (!n) return 0;
        for (i = 0; i < old_cap; i++) {
            unsigned j;
            if (!old[i].addr) continue;
            for (j = edgeprobe__hash_ptr(old[i].addr) & (ncap - 1); n[j].addr; j = (j + 1) & (ncap - 1)) {}
            n[j] = old[i];
        }
        r->pages = n;
        r->page_cap = ncap;
        if (old) EDGEPROBE_OS_FREE(old);
    }
    mask = r->page_cap - 1;
    for (i = edgeprobe__hash_ptr(page) & mask; r->pages[i].addr; i = (i + 1) & mask)
        if (r->pages[i].addr == page) return &r->pages[i];
    r->pages[i].addr = page;
    r->npages++;
    return &r->pages[i];
}

/* Make [p, p+n) writable for one writer; lock held. Nothing is written on
 * failure. */
EDGEPROBE__FN int edgeprobe__code_open(edgeprobe__root *r, const void *p, size_t n);
EDGEPROBE__FN int edgeprobe__code_open(edgeprobe__root *r, const void *p, size_t n) {
    uintptr_t first = (uintptr_t)p & ~(uintptr_t)(EDGEPROBE__PAGE - 1);
    uintptr_t last = ((uintptr_t)p + n - 1) & ~(uintptr_t)(EDGEPROBE__PAGE - 1), pg;
    for (pg = first; pg <= last; pg += EDGEPROBE__PAGE) {
        edgeprobe__page *e = edgeprobe__page_slot(r, pg);
        if (!e) return EDGEPROBE_ENOMEM;
        if (!e->open) {
            int rc = EDGEPROBE_OS_PROTECT((void *)pg, EDGEPROBE__PAGE, 1);
            if (rc) {
                char buf[96];
                edgeprobe__text t = {buf, sizeof buf, 0};
                edgeprobe__puts(&t, "mprotect(RWX) failed for page 0x");
                edgeprobe__puthex(&t, pg, 12);
                edgeprobe__log(r, buf);
                if (pg != first) { /* undo the pages opened by this call */
                    uintptr_t q;
                    for (q = first; q < pg; q += EDGEPROBE__PAGE) edgeprobe__page_slot(r, q)->refs--;
                }
                return EDGEPROBE_EPROT;
            }
            e->open = 1;
        }
        e->refs++;
    }
    return 0;
}
EDGEPROBE__FN void edgeprobe__code_close(edgeprobe__root *r, const void *p, size_t n);
EDGEPROBE__FN void edgeprobe__code_close(edgeprobe__root *r, const void *p, size_t n) {
    uintptr_t first = (uintptr_t)p & ~(uintptr_t)(EDGEPROBE__PAGE - 1);
    uintptr_t last = ((uintptr_t)p + n - 1) & ~(uintptr_t)(EDGEPROBE__PAGE - 1), pg;
    for (pg = first; pg <= last; pg += EDGEPROBE__PAGE) {
        edgeprobe__page *e = edgeprobe__page_slot(r, pg);
        if (!e) continue;
        if (--e->refs == 0 && r->wx_strict) {
            EDGEPROBE_OS_PROTECT((void *)pg, EDGEPROBE__PAGE, 0);
            e->open = 0;
        }
    }
}

/* The 8-byte window a locked cmpxchg uses for [p, p+n), n <= 8, inside one
 * cache line: the aligned word when it contains the bytes, else a window
 * that stays inside the line. */
EDGEPROBE__INLINE unsigned char *edgeprobe__window(unsigned char *p, size_t n) {
    uintptr_t w = (uintptr_t)p & ~(uintptr_t)7, line_end = edgeprobe__line_of(p) + EDGEPROBE__LINE;
    if (w + 8 >= (uintptr_t)p + n) return (unsigned char *)w;
    return (unsigned char *)((uintptr_t)p + 8 <= line_end ? (uintptr_t)p : line_end - 8);
}

/* Replace n bytes at p (one cache line) with val if they hold expect, in one
 * locked store; neighbouring bytes are kept even if they change meanwhile.
 * Returns 1 written, 0 already val, EDGEPROBE_EBYTES neither (no write).
 * The page must be open. */
EDGEPROBE__FN int edgeprobe__cas_bytes(unsigned char *p, const unsigned char *expect,
                                       const unsigned char *val, size_t n);
EDGEPROBE__FN int edgeprobe__cas_bytes(unsigned char *p, const unsigned char *expect,
                                       const unsigned char *val, size_t n) {
    unsigned char *w = edgeprobe__window(p, n);
    size_t off = (size_t)(p - w);
    uint64_t cur = edgeprobe__load8(w), next;
    for (;;) {
        unsigned char bytes[8];
        __builtin_memcpy(bytes, &cur, 8);
        if (__builtin_memcmp(bytes + off, val, n) == 0) return 0;
        if (__builtin_memcmp(bytes + off, expect, n) != 0) return EDGEPROBE_EBYTES;
        __builtin_memcpy(bytes + off, val, n);
        __builtin_memcpy(&next, bytes, 8);
        if (edgeprobe__cmpxchg8(w, &cur, next)) return 1;
    }
}

/* Open, compare-and-swap, close: one atomic code write with the page policy
 * applied and the refusal logged. Lock held. */
EDGEPROBE__FN int edgeprobe__write_code(edgeprobe__root *r, unsigned char *p, const unsigned char *expect,
                                        const unsigned char *val, size_t n);
EDGEPROBE__FN int edgeprobe__write_code(edgeprobe__root *r, unsigned char *p, const unsigned char *expect,
                                        const unsigned char *val, size_t n) {
    int rc;
    if (__builtin_memcmp(p, val, n) == 0) return 0; /* nothing to do: no mprotect */
    if (__builtin_memcmp(p, expect, n) != 0) {
        edgeprobe__log_bytes(r, "refusing to patch unexpected bytes", p, expect, n);
        return EDGEPROBE_EBYTES;
    }
    rc = edgeprobe__code_open(r, edgeprobe__window(p, n), 8);
    if (rc) return rc;
    rc = edgeprobe__cas_bytes(p, expect, val, n);
    if (rc == EDGEPROBE_EBYTES) edgeprobe__log_bytes(r, "site changed while patching", p, expect, n);
    edgeprobe__code_close(r, edgeprobe__window(p, n), 8);
    return rc;
}

/* ---- 8.7 marker sites ------------------------------------------------------
 * Off/on byte forms of one site (see section 7). */
EDGEPROBE__FN size_t edgeprobe__site_form(const edgeprobe__site *s, int jump, unsigned char out[8]);
EDGEPROBE__FN size_t edgeprobe__site_form(const edgeprobe__site *s, int jump, unsigned char out[8]) {
    size_t n = (s->flags & EDGEPROBE__F_NOP8) ? 8 : 5;
    if (!jump) {
        __builtin_memcpy(out, n == 8 ? edgeprobe__nop8 : edgeprobe__nop5, n);
    } else {
        int32_t rel = (int32_t)(s->target - (s->addr + 5));
        out[0] = EDGEPROBE__OP_JMP32;
        __builtin_memcpy(out + 1, &rel, 4);
        if (n == 8) __builtin_memcpy(out + 5, edgeprobe__nop3, 3);
    }
    return n;
}
/* Put a site in state `on` (a default-on site jumps when off). */
EDGEPROBE__FN int edgeprobe__site_set(edgeprobe__root *r, const edgeprobe__site *s, int on);
EDGEPROBE__FN int edgeprobe__site_set(edgeprobe__root *r, const edgeprobe__site *s, int on) {
    unsigned char want[8], other[8];
    int jump = (s->flags & EDGEPROBE__F_DEFAULT_ON) ? !on : on;
    size_t n = edgeprobe__site_form(s, jump, want);
    edgeprobe__site_form(s, !jump, other);
    return edgeprobe__write_code(r, s->addr, other, want, n);
}
/* Put every site of a probe in state `on`; on a failure, put back the ones
 * already changed, so the probe is never left half switched. */
EDGEPROBE__FN int edgeprobe__probe_apply(edgeprobe__root *r, struct edgeprobe__probe *p, int on);
EDGEPROBE__FN int edgeprobe__probe_apply(edgeprobe__root *r, struct edgeprobe__probe *p, int on) {
    int i, rc = 0;
    for (i = 0; i < p->nsites; i++) {
        rc = edgeprobe__site_set(r, &p->sites[i], on);
        if (rc < 0) break;
    }
    if (rc >= 0) return 0;
    while (i-- > 0) edgeprobe__site_set(r, &p->sites[i], !on);
    return rc;
}
/* Set a probe's count; rewrite code when on/off changes. Lock held. */
EDGEPROBE__FN int edgeprobe__probe_count(edgeprobe__root *r, struct edgeprobe__probe *p, int count);
EDGEPROBE__FN int edgeprobe__probe_count(edgeprobe__root *r, struct edgeprobe__probe *p, int count) {
    int was = p->count > 0, now = count > 0, rc;
    if (was != now && (rc = edgeprobe__probe_apply(r, p, now)) < 0) return rc;
    p->count = count;
    return was != now;
}

/* ---- 8.8 the registry -------------------------------------------------- */
EDGEPROBE__FN struct edgeprobe__probe *edgeprobe__probe_lookup(edgeprobe__root *r, const char *name);
EDGEPROBE__FN struct edgeprobe__probe *edgeprobe__probe_lookup(edgeprobe__root *r, const char *name) {
    struct edgeprobe__probe *p;
    if (!r->hash_cap) return 0;
    for (p = r->hash[edgeprobe__hash_str(name) & (r->hash_cap - 1)]; p; p = p->next_hash)
        if (edgeprobe__streq(p->name, name)) return p;
    return 0;
}
/* The next entry of the comma-separated EDGEPROBE_ENABLE list: copied into
 * pat (cut at EDGEPROBE_NAME_MAX) and checked. Returns 0 when the list is
 * exhausted, 1 for a usable pattern, or the reason it is not usable. */
EDGEPROBE__FN int edgeprobe__env_next(const char **s, char pat[EDGEPROBE_NAME_MAX + 1]);
EDGEPROBE__FN int edgeprobe__env_next(const char **s, char pat[EDGEPROBE_NAME_MAX + 1]) {
    size_t n = 0;
    int rc;
    if (!**s) return 0;
    while (**s && **s != ',') {
        if (n < EDGEPROBE_NAME_MAX) pat[n] = **s;
        n++, (*s)++;
    }
    if (**s) (*s)++;
    pat[n < EDGEPROBE_NAME_MAX ? n : EDGEPROBE_NAME_MAX] = 0;
    rc = n > EDGEPROBE_NAME_MAX ? EDGEPROBE_ENAMETOOLONG : edgeprobe__check_pattern(pat);
    return rc ? rc : 1;
}
/* Does a name match one of the globs of EDGEPROBE_ENABLE? */
EDGEPROBE__FN int edgeprobe__env_wants(const edgeprobe__root *r, const char *name);
EDGEPROBE__FN int edgeprobe__env_wants(const edgeprobe__root *r, const char *name) {
    const char *s = r->env_enable;
    char pat[EDGEPROBE_NAME_MAX + 1];
    int rc;
    while ((rc = edgeprobe__env_next(&s, pat)) != 0)
        if (rc == 1 && edgeprobe__glob_match(pat, name)) return 1;
    return 0;
}
/* Say once, clearly, which entries of EDGEPROBE_ENABLE are unusable. */
EDGEPROBE__FN void edgeprobe__env_report(const edgeprobe__root *r) {
    const char *s = r->env_enable;
    char pat[EDGEPROBE_NAME_MAX + 1];
    int rc, index = 0;
    while ((rc = edgeprobe__env_next(&s, pat)) != 0) {
        char buf[256];
        edgeprobe__text t = {buf, sizeof buf, 0};
        index++;
        if (rc == 1) continue;
        edgeprobe__puts(&t, "EDGEPROBE_ENABLE entry ");
        edgeprobe__putdec(&t, index);
        edgeprobe__puts(&t, " \"");
        edgeprobe__puts(&t, pat);
        edgeprobe__puts(&t, "\" ignored: ");
        edgeprobe__puts(&t, edgeprobe_strerror(rc));
        EDGEPROBE_OS_LOG(buf);
    }
}
/* A name with no loaded point (its libraries were unloaded) is not found by
 * name; handles to it stay valid, and it comes back if they are reloaded. */
EDGEPROBE__INLINE struct edgeprobe__probe *edgeprobe__probe_live(edgeprobe__root *r, const char *name) {
    struct edgeprobe__probe *p = edgeprobe__probe_lookup(r, name);
    return p && p->npoints ? p : 0;
}
EDGEPROBE__FN struct edgeprobe__probe *edgeprobe__probe_intern(edgeprobe__root *r, const char *name);
EDGEPROBE__FN struct edgeprobe__probe *edgeprobe__probe_intern(edgeprobe__root *r, const char *name) {
    struct edgeprobe__probe *p = edgeprobe__probe_lookup(r, name);
    size_t n;
    unsigned i;
    if (p) return p;
    if ((r->nprobes + 1) * 2 > r->hash_cap) { /* grow the name table */
        unsigned ncap = r->hash_cap ? r->hash_cap * 2 : 256;
        struct edgeprobe__probe **nh = (struct edgeprobe__probe **)EDGEPROBE_OS_ALLOC(ncap * sizeof *nh);
        if (!nh) return 0;
        for (i = 0; i < r->hash_cap; i++) {
            struct edgeprobe__probe *q = r->hash[i], *next;
            for (; q; q = next) {
                unsigned h = edgeprobe__hash_str(q->name) & (ncap - 1);
                next = q->next_hash;
                q->next_hash = nh[h];
                nh[h] = q;
            }
        }
        if (r->hash) EDGEPROBE_OS_FREE(r->hash);
        r->hash = nh;
        r->hash_cap = ncap;
    }
    p = (struct edgeprobe__probe *)EDGEPROBE_OS_ALLOC(sizeof *p);
    if (!p) return 0;
    n = edgeprobe__strnlen(name, EDGEPROBE_NAME_MAX);
    __builtin_memcpy(p->name, name, n);
    p->count = edgeprobe__env_wants(r, name);
    i = edgeprobe__hash_str(p->name) & (r->hash_cap - 1);
    p->next_hash = r->hash[i];
    r->hash[i] = p;
    r->nprobes++;
    return p;
}

EDGEPROBE__INLINE edgeprobe__point **edgeprobe__point_slot(edgeprobe__root *r, int id) {
    return &r->chunks[(unsigned)id / EDGEPROBE__CHUNK][(unsigned)id % EDGEPROBE__CHUNK];
}
EDGEPROBE__FN void edgeprobe__provider_name(edgeprobe__point *pt);
EDGEPROBE__FN void edgeprobe__fill_info(edgeprobe__point *pt, edgeprobe_info *out);
EDGEPROBE__FN void edgeprobe__fill_info(edgeprobe__point *pt, edgeprobe_info *out) {
    if (!pt->name) edgeprobe__provider_name(pt); /* provider points: named on demand */
    out->id = pt->id_plus_1 - 1;
    out->name = pt->name;
    out->file = pt->file;
    out->line = pt->line;
    out->function = pt->function;
    out->kind = (enum edgeprobe_kind)pt->kind;
    out->enabled = pt->probe ? pt->probe->count > 0 : 0;
    out->sites = pt->nsites;
    out->site = pt->site;
}
/* Give a point the next dense id and tell the discovery callback. */
EDGEPROBE__FN int edgeprobe__point_add(edgeprobe__root *r, edgeprobe__point *pt);
EDGEPROBE__FN int edgeprobe__point_add(edgeprobe__root *r, edgeprobe__point *pt) {
    int id = r->npoints;
    unsigned c = (unsigned)id / EDGEPROBE__CHUNK;
    if (c >= EDGEPROBE__CHUNKS) return EDGEPROBE_ENOMEM;
    if (!r->chunks[c]) {
        r->chunks[c] = (edgeprobe__point **)EDGEPROBE_OS_ALLOC(EDGEPROBE__CHUNK * sizeof(void *));
        if (!r->chunks[c]) return EDGEPROBE_ENOMEM;
    }
    *edgeprobe__point_slot(r, id) = pt;
    pt->id_plus_1 = id + 1;
    r->npoints = id + 1;
    if (r->discover) {
        edgeprobe_info info;
        edgeprobe__fill_info(pt, &info);
        r->discover(&info, r->discover_arg);
    }
    return 0;
}

EDGEPROBE__FN int edgeprobe__args_prepare(edgeprobe__root *r, const edgeprobe__record *rec); /* 9.3 */
/* Register one table record: point, probe, site; then give the new site the
 * probe's current state. Lock held. */
EDGEPROBE__FN int edgeprobe__record_add(edgeprobe__root *r, const edgeprobe__record *rec);
EDGEPROBE__FN int edgeprobe__record_add(edgeprobe__root *r, const edgeprobe__record *rec) {
    edgeprobe__point *pt = (edgeprobe__point *)edgeprobe__rel(&rec->point);
    struct edgeprobe__probe *p = pt->probe;
    edgeprobe__site s;
    int rc;
    if ((rec->flags & EDGEPROBE__F_ARGS) && (rc = edgeprobe__args_prepare(r, rec)) < 0) return rc;
    if (!p) {
        p = edgeprobe__probe_intern(r, pt->name);
        if (!p) return EDGEPROBE_ENOMEM;
        if (edgeprobe__grow((void **)&p->points, &p->point_cap, p->npoints + 1, sizeof(void *)))
            return EDGEPROBE_ENOMEM;
        if (pt->kind == EDGEPROBE_KIND_BRANCH_ON && p->npoints == 0 && p->count == 0) p->count = 1;
        p->points[p->npoints++] = pt;
        pt->probe = p;
    }
    if (edgeprobe__grow((void **)&p->sites, &p->site_cap, p->nsites + 1, sizeof s)) return EDGEPROBE_ENOMEM;
    s.addr = (unsigned char *)edgeprobe__rel(&rec->site);
    s.target = (unsigned char *)edgeprobe__rel(&rec->target);
    s.flags = rec->flags;
    s.point = pt;
    /* A fresh site holds its NOP: off, or on for default-on sites. */
    if ((p->count > 0) != ((s.flags & EDGEPROBE__F_DEFAULT_ON) != 0) &&
        (rc = edgeprobe__site_set(r, &s, p->count > 0)) < 0)
        return rc;
    p->sites[p->nsites++] = s;
    if (!pt->site) pt->site = s.addr;
    pt->nsites++;
    return pt->id_plus_1 ? 0 : edgeprobe__point_add(r, pt);
}
/* Forget one record of an object being unloaded. Lock held. */
EDGEPROBE__FN void edgeprobe__record_remove(edgeprobe__root *r, const edgeprobe__record *rec);
EDGEPROBE__FN void edgeprobe__record_remove(edgeprobe__root *r, const edgeprobe__record *rec) {
    edgeprobe__point *pt = (edgeprobe__point *)edgeprobe__rel(&rec->point);
    struct edgeprobe__probe *p = pt->probe;
    unsigned char *addr = (unsigned char *)edgeprobe__rel(&rec->site);
    int i;
    edgeprobe__page *page = edgeprobe__page_slot(r, (uintptr_t)addr & ~(uintptr_t)(EDGEPROBE__PAGE - 1));
    if (page) page->open = 0; /* the object may come back at this address, read-only */
    if (!p) return;
    for (i = 0; i < p->nsites && p->sites[i].addr != addr; i++) {}
    if (i == p->nsites) return; /* this site was never registered */
    p->sites[i] = p->sites[--p->nsites];
    if (--pt->nsites > 0) return;
    for (i = 0; i < p->npoints; i++)
        if (p->points[i] == pt) {
            p->points[i] = p->points[--p->npoints];
            break;
        }
    if (pt->id_plus_1) *edgeprobe__point_slot(r, pt->id_plus_1 - 1) = 0;
    pt->probe = 0;
}

/* Constructor and destructor of every object: register its site table with
 * the root, and drop it before the object's code goes away (dlclose). They
 * run once per TU; the per-object flag makes the extra runs no-ops. */
__attribute__((weak, visibility("hidden"), no_instrument_function, constructor(101)))
void edgeprobe__object_init(void);
__attribute__((weak, visibility("hidden"), no_instrument_function, constructor(101)))
void edgeprobe__object_init(void) {
    const edgeprobe__record *rec;
    edgeprobe__root *r;
    int err = 0;
    if (__atomic_load_n(&edgeprobe__this_object.registered, __ATOMIC_ACQUIRE)) return;
    r = edgeprobe__root_get(&err);
    if (!r) {
        EDGEPROBE_OS_LOG(edgeprobe_strerror(err));
        return;
    }
    edgeprobe__lock(&r->lock);
    if (!edgeprobe__this_object.registered) { /* another TU's constructor may have won */
        for (rec = __start_edgeprobe_sites; rec < __stop_edgeprobe_sites; rec++) {
            err = edgeprobe__record_add(r, rec);
            if (err < 0) /* left out, untouched; the object's other sites still register */
                edgeprobe__log_bytes(r, "cannot register site", edgeprobe__rel(&rec->site), 0, 5);
        }
        __atomic_store_n(&edgeprobe__this_object.registered, 1, __ATOMIC_RELEASE);
    }
    edgeprobe__unlock(&r->lock);
}
__attribute__((weak, visibility("hidden"), no_instrument_function, destructor(101)))
void edgeprobe__object_fini(void);
__attribute__((weak, visibility("hidden"), no_instrument_function, destructor(101)))
void edgeprobe__object_fini(void) {
    const edgeprobe__record *rec;
    edgeprobe__root *r = __atomic_load_n(&edgeprobe__this_object.root, __ATOMIC_ACQUIRE);
    if (!r || !edgeprobe__this_object.registered) return;
    edgeprobe__lock(&r->lock);
    if (edgeprobe__this_object.registered) {
        for (rec = __start_edgeprobe_sites; rec < __stop_edgeprobe_sites; rec++)
            edgeprobe__record_remove(r, rec);
        edgeprobe__this_object.registered = 0;
    }
    edgeprobe__unlock(&r->lock);
}

/* Every API entry point: the root, with this object's sites registered
 * (covers code that runs before this object's constructor). */
EDGEPROBE__FN edgeprobe__root *edgeprobe__ready(int *err);
EDGEPROBE__FN edgeprobe__root *edgeprobe__ready(int *err) {
    if (!__atomic_load_n(&edgeprobe__this_object.registered, __ATOMIC_ACQUIRE)) edgeprobe__object_init();
    return edgeprobe__root_get(err);
}
#define EDGEPROBE__READY_OR_RETURN(r)                                          \
    int edgeprobe__err = 0;                                                    \
    edgeprobe__root *r = edgeprobe__ready(&edgeprobe__err);                    \
    if (!r) return edgeprobe__err

/* ---- 8.9 probe API ----------------------------------------------------- */
/* Switch every loaded probe matching pattern on (count at least 1) or off
 * (count 0). Exact names that match nothing are an error; globs are not. */
EDGEPROBE__FN int edgeprobe__set_matching(const char *pattern, int on);
EDGEPROBE__FN int edgeprobe__set_matching(const char *pattern, int on) {
    int rc = edgeprobe__check_pattern(pattern), changed = 0;
    unsigned i;
    EDGEPROBE__READY_OR_RETURN(r);
    if (rc) return rc;
    edgeprobe__lock(&r->lock);
    if (!edgeprobe__is_glob(pattern)) {
        struct edgeprobe__probe *p = edgeprobe__probe_live(r, pattern);
        rc = p ? edgeprobe__probe_count(r, p, on ? (p->count > 0 ? p->count : 1) : 0) : EDGEPROBE_ENOENT;
        edgeprobe__unlock(&r->lock);
        return rc;
    }
    for (i = 0; i < r->hash_cap && rc >= 0; i++) {
        struct edgeprobe__probe *p;
        for (p = r->hash[i]; p && rc >= 0; p = p->next_hash) {
            if (!p->npoints || !edgeprobe__glob_match(pattern, p->name)) continue;
            rc = edgeprobe__probe_count(r, p, on ? (p->count > 0 ? p->count : 1) : 0);
            if (rc > 0) changed++;
        }
    }
    edgeprobe__unlock(&r->lock);
    return rc < 0 ? rc : changed;
}
EDGEPROBE__FN int edgeprobe_enable(const char *pattern) { return edgeprobe__set_matching(pattern, 1); }
EDGEPROBE__FN int edgeprobe_disable(const char *pattern) { return edgeprobe__set_matching(pattern, 0); }

EDGEPROBE__FN int edgeprobe_probe_find(const char *name, edgeprobe_probe **out) {
    int rc = edgeprobe__check_pattern(name);
    EDGEPROBE__READY_OR_RETURN(r);
    if (rc) return rc;
    if (!out) return EDGEPROBE_EINVAL;
    edgeprobe__lock(&r->lock);
    *out = edgeprobe__probe_live(r, name);
    edgeprobe__unlock(&r->lock);
    return *out ? 0 : EDGEPROBE_ENOENT;
}
/* Change a probe's count by handle: f(count) -> new count, or -1 refused. */
EDGEPROBE__FN int edgeprobe__probe_update(edgeprobe_probe *p, int op);
EDGEPROBE__FN int edgeprobe__probe_update(edgeprobe_probe *p, int op) {
    int rc, next;
    EDGEPROBE__ROOT_OR_RETURN(r);
    if (!p) return EDGEPROBE_EINVAL;
    edgeprobe__lock(&r->lock);
    switch (op) {
    case 0: next = 0; break;                              /* off  */
    case 1: next = p->count > 0 ? p->count : 1; break;    /* on   */
    case 2: next = p->count + 1; break;                   /* get  */
    default: next = p->count - 1; break;                  /* put  */
    }
    if (next < 0) rc = EDGEPROBE_EUNDERFLOW;
    else {
        rc = edgeprobe__probe_count(r, p, next);
        if (rc >= 0 && op >= 2) rc = next;
    }
    edgeprobe__unlock(&r->lock);
    return rc;
}
EDGEPROBE__FN int edgeprobe_probe_on(edgeprobe_probe *p) { return edgeprobe__probe_update(p, 1); }
EDGEPROBE__FN int edgeprobe_probe_off(edgeprobe_probe *p) { return edgeprobe__probe_update(p, 0); }
EDGEPROBE__FN int edgeprobe_probe_get(edgeprobe_probe *p) { return edgeprobe__probe_update(p, 2); }
EDGEPROBE__FN int edgeprobe_probe_put(edgeprobe_probe *p) { return edgeprobe__probe_update(p, 3); }
EDGEPROBE__FN int edgeprobe_probe_is_on(const edgeprobe_probe *p) {
    if (!p) return EDGEPROBE_EINVAL;
    return __atomic_load_n(&p->count, __ATOMIC_RELAXED) > 0;
}

EDGEPROBE__FN int edgeprobe_foreach(int (*fn)(const edgeprobe_info *, void *), void *arg) {
    int id, rc = 0;
    EDGEPROBE__READY_OR_RETURN(r);
    if (!fn) return EDGEPROBE_EINVAL;
    edgeprobe__lock(&r->lock);
    for (id = 0; id < r->npoints && !rc; id++) {
        edgeprobe__point *pt = *edgeprobe__point_slot(r, id);
        edgeprobe_info info;
        if (!pt) continue;
        edgeprobe__fill_info(pt, &info);
        rc = fn(&info, arg);
    }
    edgeprobe__unlock(&r->lock);
    return rc;
}
EDGEPROBE__FN int edgeprobe_point_count(void) {
    EDGEPROBE__READY_OR_RETURN(r);
    return __atomic_load_n(&r->npoints, __ATOMIC_ACQUIRE);
}
EDGEPROBE__FN int edgeprobe_point_info(int id, edgeprobe_info *out) {
    int rc = 0;
    EDGEPROBE__READY_OR_RETURN(r);
    if (!out) return EDGEPROBE_EINVAL;
    edgeprobe__lock(&r->lock);
    if (id < 0 || id >= r->npoints) rc = EDGEPROBE_EINVAL;
    else if (!*edgeprobe__point_slot(r, id)) rc = EDGEPROBE_EUNLOADED;
    else edgeprobe__fill_info(*edgeprobe__point_slot(r, id), out);
    edgeprobe__unlock(&r->lock);
    return rc;
}
EDGEPROBE__FN int edgeprobe_set_discovery(edgeprobe_discover_fn fn, void *arg) {
    int id;
    EDGEPROBE__READY_OR_RETURN(r);
    edgeprobe__lock(&r->lock);
    r->discover = fn;
    r->discover_arg = arg;
    for (id = 0; fn && id < r->npoints; id++) {
        edgeprobe__point *pt = *edgeprobe__point_slot(r, id);
        edgeprobe_info info;
        if (!pt) continue;
        edgeprobe__fill_info(pt, &info);
        fn(&info, arg);
    }
    edgeprobe__unlock(&r->lock);
    return 0;
}

/* ---- 8.10 straddling patches in flight ---------------------------------
 * A set-associative table keyed by the cache line of a site's first byte:
 * finding a site, or the sites that could overlap it (they start in the
 * same or the previous line), scans one or two sets of 8 entries. Entries
 * are freed as soon as a patch finishes; its address goes into a ring of
 * recently finished sites, so a thread whose trap is delivered late still
 * resumes correctly. Writers hold the root lock; the SIGTRAP handler reads
 * without it. */
EDGEPROBE__INLINE edgeprobe__flight *edgeprobe__flight_set(edgeprobe__root *r, uintptr_t addr) {
    return r->flights[edgeprobe__hash_ptr(addr / EDGEPROBE__LINE) & (EDGEPROBE__FLIGHT_SETS - 1)];
}
EDGEPROBE__FN edgeprobe__flight *edgeprobe__flight_find(edgeprobe__root *r, uintptr_t site);
EDGEPROBE__FN edgeprobe__flight *edgeprobe__flight_find(edgeprobe__root *r, uintptr_t site) {
    edgeprobe__flight *set = edgeprobe__flight_set(r, site);
    unsigned w;
    for (w = 0; w < EDGEPROBE__FLIGHT_WAYS; w++)
        if (__atomic_load_n(&set[w].site, __ATOMIC_ACQUIRE) == site) return &set[w];
    return 0;
}
/* Is any byte of [site, site+len) part of a patch in flight? Lock held. */
EDGEPROBE__FN int edgeprobe__flight_overlaps(edgeprobe__root *r, uintptr_t site, size_t len);
EDGEPROBE__FN int edgeprobe__flight_overlaps(edgeprobe__root *r, uintptr_t site, size_t len) {
    uintptr_t lines[2];
    int k;
    if (!r->in_flight) return 0; /* the common case: nothing to scan */
    lines[0] = site - 7;       /* a patch starts at most 7 bytes before us */
    lines[1] = site + len - 1;
    for (k = 0; k < 2; k++) {
        edgeprobe__flight *set = edgeprobe__flight_set(r, lines[k]);
        unsigned w;
        if (k == 1 && edgeprobe__line_of((void *)lines[0]) == edgeprobe__line_of((void *)lines[1])) break;
        for (w = 0; w < EDGEPROBE__FLIGHT_WAYS; w++) {
            uintptr_t a = set[w].site;
            if (a && a < site + len && a + set[w].len > site) return 1;
        }
    }
    return 0;
}
/* A free entry for a new patch of `site`, or NULL if its set is full.
 * Lock held. */
EDGEPROBE__FN edgeprobe__flight *edgeprobe__flight_claim(edgeprobe__root *r, uintptr_t site);
EDGEPROBE__FN edgeprobe__flight *edgeprobe__flight_claim(edgeprobe__root *r, uintptr_t site) {
    edgeprobe__flight *set = edgeprobe__flight_set(r, site);
    unsigned w;
    for (w = 0; w < EDGEPROBE__FLIGHT_WAYS; w++)
        if (!set[w].site) return &set[w];
    return 0;
}
/* Retire a finished patch: free its entry, remember its site. Lock held. */
EDGEPROBE__FN void edgeprobe__flight_retire(edgeprobe__root *r, edgeprobe__flight *f);
EDGEPROBE__FN void edgeprobe__flight_retire(edgeprobe__root *r, edgeprobe__flight *f) {
    __atomic_store_n(&r->recent[r->recent_next++ % EDGEPROBE__RECENT], f->site, __ATOMIC_RELEASE);
    r->in_flight--;
    __atomic_store_n(&f->seq, f->seq + 1, __ATOMIC_RELEASE); /* odd: changing */
    __atomic_store_n(&f->state, EDGEPROBE__FLIGHT_EMPTY, __ATOMIC_RELEASE);
    __atomic_store_n(&f->site, 0, __ATOMIC_RELEASE);
    __atomic_store_n(&f->seq, f->seq + 1, __ATOMIC_RELEASE);
}
EDGEPROBE__FN int edgeprobe__recently_finished(edgeprobe__root *r, uintptr_t site);
EDGEPROBE__FN int edgeprobe__recently_finished(edgeprobe__root *r, uintptr_t site) {
    unsigned i;
    for (i = 0; i < EDGEPROBE__RECENT; i++)
        if (__atomic_load_n(&r->recent[i], __ATOMIC_ACQUIRE) == site) return 1;
    return 0;
}

/* What a trapped thread may do instead of executing `insn`: continue at
 * *rip (and push *push if non-zero). 0 if the instruction is not one we
 * emulate. */
EDGEPROBE__FN int edgeprobe__emulate(const unsigned char *insn, size_t len, uintptr_t site,
                                     uintptr_t *rip, uintptr_t *push);
EDGEPROBE__FN int edgeprobe__emulate(const unsigned char *insn, size_t len, uintptr_t site,
                                     uintptr_t *rip, uintptr_t *push) {
    size_t i = 0;
    int32_t rel;
    *push = 0;
    while (i < len && (insn[i] == 0x66 || insn[i] == 0x2e)) i++; /* nop prefixes */
    if ((i + 1 == len && insn[i] == 0x90) || (i + 2 < len && insn[i] == 0x0f && insn[i + 1] == 0x1f)) {
        *rip = site + len;                                     /* a NOP */
        return 1;
    }
    if (len == 2 && insn[0] == EDGEPROBE__OP_JMP8) {
        *rip = site + 2 + (uintptr_t)(intptr_t)(signed char)insn[1];
        return 1;
    }
    if (len != 5 || (insn[0] != EDGEPROBE__OP_JMP32 && insn[0] != EDGEPROBE__OP_CALL)) return 0;
    __builtin_memcpy(&rel, insn + 1, 4);
    *rip = site + 5 + (uintptr_t)(intptr_t)rel;
    if (insn[0] == EDGEPROBE__OP_CALL) *push = site + 5;
    return 1;
}

#ifndef EDGEPROBE_FREESTANDING
/* A snapshot of a flight entry, consistent with respect to its seq. */
EDGEPROBE__FN int edgeprobe__flight_read(edgeprobe__flight *f, edgeprobe__flight *copy);
EDGEPROBE__FN int edgeprobe__flight_read(edgeprobe__flight *f, edgeprobe__flight *copy) {
    unsigned seq = __atomic_load_n(&f->seq, __ATOMIC_ACQUIRE);
    if (seq & 1) return 0;
    __builtin_memcpy(copy, f, sizeof *copy);
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    return __atomic_load_n(&f->seq, __ATOMIC_RELAXED) == seq;
}
EDGEPROBE__FN void edgeprobe__chain_trap(edgeprobe__root *r, int sig, void *si, void *uc);
EDGEPROBE__FN void edgeprobe__chain_trap(edgeprobe__root *r, int sig, void *si, void *uc) {
    edgeprobe__sigaction_t *prev = &r->trap_prev;
    uintptr_t h = (uintptr_t)prev->action;
    if (h == 1) return;                                       /* SIG_IGN */
    if (h == 0) {                                             /* SIG_DFL */
        edgeprobe__libc_sigaction(sig, prev, 0);
        edgeprobe__libc_raise(sig); /* delivered, with the default action, on return */
        return;
    }
    if (prev->flags & EDGEPROBE__SA_SIGINFO) prev->action(sig, si, uc);
    else ((void (*)(int))h)(sig);
}
EDGEPROBE__FN int edgeprobe__patch_step(edgeprobe__root *r, edgeprobe__flight *f);
EDGEPROBE__FN void edgeprobe__protocol_wait(edgeprobe__root *r, uint64_t since);
/* The thread that started a patch met its own int3 and the instruction
 * cannot be emulated: nobody else will finish the patch, so finish it here
 * (waits included) and run the new instruction. Only impossible if this
 * thread was interrupted inside edgeprobe with the lock held, i.e. a signal
 * handler of the patching thread runs the site: documented as unsupported. */
EDGEPROBE__FN void edgeprobe__finish_own(edgeprobe__root *r, uintptr_t site);
EDGEPROBE__FN void edgeprobe__finish_own(edgeprobe__root *r, uintptr_t site) {
    edgeprobe__flight *f;
    if (__atomic_load_n(&r->lock.owner, __ATOMIC_RELAXED) == edgeprobe__self()) {
        static const char msg[] = "edgeprobe: a signal handler ran a site its thread is patching; waiting\n";
        edgeprobe__syscall3(1, 2, (long)msg, sizeof msg - 1);
        while (*(volatile unsigned char *)site == EDGEPROBE__OP_INT3) EDGEPROBE_OS_YIELD();
        return;
    }
    edgeprobe__lock(&r->lock);
    while ((f = edgeprobe__flight_find(r, site)) && f->state != EDGEPROBE__FLIGHT_EMPTY) {
        edgeprobe__protocol_wait(r, f->stamp);
        edgeprobe__patch_step(r, f);
    }
    edgeprobe__unlock(&r->lock);
}
/* SIGTRAP: a thread met the int3 that locks a straddling site. Emulate the
 * new instruction (or the old one) when we can; otherwise wait for the
 * patch to finish (or finish it, on the thread that started it) and run
 * the site again. A trap at a site that just finished runs it again. Traps
 * that are not ours go to the handler installed before ours. */
EDGEPROBE__FN void edgeprobe__on_sigtrap(int sig, void *si_, void *uc_);
EDGEPROBE__FN void edgeprobe__on_sigtrap(int sig, void *si_, void *uc_) {
    edgeprobe__siginfo *si = (edgeprobe__siginfo *)si_;
    edgeprobe__ucontext *uc = (edgeprobe__ucontext *)uc_;
    edgeprobe__root *r = __atomic_load_n(&edgeprobe__this_object.root, __ATOMIC_ACQUIRE);
    uintptr_t site = (uintptr_t)uc->gregs[EDGEPROBE__REG_RIP] - 1;
    if (!r) return;
    if (si->code != EDGEPROBE__SI_KERNEL) {
        edgeprobe__chain_trap(r, sig, si_, uc_);
        return;
    }
    /* Our int3 is written after its entry is published and removed before
     * the entry is freed; so read the byte first, then look for the entry.
     * An int3 with no entry, seen again and again, is not ours. */
    for (int unowned = 0;;) {
        int locked = *(volatile unsigned char *)site == EDGEPROBE__OP_INT3;
        edgeprobe__flight *f = edgeprobe__flight_find(r, site), c;
        uintptr_t rip, push;
        if (!locked && (f || edgeprobe__recently_finished(r, site))) {
            uc->gregs[EDGEPROBE__REG_RIP] = site; /* finished meanwhile: run it */
            return;
        }
        if (!f) {
            if (locked && ++unowned < 64) { /* a new patch of this site may be starting */
                if (unowned > 2) EDGEPROBE_OS_YIELD();
                continue;
            }
            edgeprobe__chain_trap(r, sig, si_, uc_); /* not ours */
            return;
        }
        if (!edgeprobe__flight_read(f, &c) || c.site != site) continue; /* changing: look again */
        if (edgeprobe__emulate(c.insn, c.len, site, &rip, &push) ||
            edgeprobe__emulate(c.old, c.len, site, &rip, &push)) {
            if (push) {
                uc->gregs[EDGEPROBE__REG_RSP] -= 8;
                *(uintptr_t *)uc->gregs[EDGEPROBE__REG_RSP] = push;
            }
            uc->gregs[EDGEPROBE__REG_RIP] = rip;
            return;
        }
        if (c.owner == edgeprobe__self()) edgeprobe__finish_own(r, site);
        else EDGEPROBE_OS_YIELD(); /* not emulable: wait for the patch */
    }
}
/* Install the handler once per process, and pin the object holding it so a
 * dlclose cannot unmap a live signal handler. Lock held. */
EDGEPROBE__FN int edgeprobe__trap_install(edgeprobe__root *r);
EDGEPROBE__FN int edgeprobe__trap_install(edgeprobe__root *r) {
    edgeprobe__sigaction_t sa;
    edgeprobe__dl_info dli;
    if (r->trap_installed) return 0;
    if (edgeprobe__libc_dladdr((const void *)edgeprobe__on_sigtrap, &dli) && dli.fname)
        edgeprobe__libc_dlopen(dli.fname, EDGEPROBE__RTLD_PIN);
    __builtin_memset(&sa, 0, sizeof sa);
    sa.action = edgeprobe__on_sigtrap;
    sa.flags = EDGEPROBE__SA_SIGINFO | EDGEPROBE__SA_RESTART | EDGEPROBE__SA_ONSTACK;
    if (edgeprobe__libc_sigaction(EDGEPROBE__SIGTRAP, &sa, &r->trap_prev)) return EDGEPROBE_ENOTSUP;
    r->trap_installed = 1;
    return 0;
}
#else
#define edgeprobe__trap_install(r) ((void)(r), EDGEPROBE_ENOTSUP)
#endif

/* ---- 8.11 word patch: sync, async, batch ---------------------------------
 *
 *   straddler:   front line | back line
 *   step 0       o o o | o o        old instruction
 *   step 1       cc o o | o o       lock: int3 (trapped threads: SIGTRAP)
 *   wait         (Tmax, or membarrier SYNC_CORE)
 *   step 2       cc o o | n n       back bytes
 *   wait
 *   step 3       n n n | n n        front bytes, removing the int3
 */
EDGEPROBE__FN int edgeprobe__set_sync_locked(edgeprobe__root *r, int mode) {
    if (mode == EDGEPROBE_SYNC_SERIALIZE && !r->sync_registered) {
#ifndef EDGEPROBE_FREESTANDING
        long q = edgeprobe__syscall3(EDGEPROBE__SYS_MEMBARRIER, EDGEPROBE__MB_QUERY, 0, 0);
        if (q < 0 || !(q & EDGEPROBE__MB_SYNC_CORE) ||
            edgeprobe__syscall3(EDGEPROBE__SYS_MEMBARRIER, EDGEPROBE__MB_REGISTER_SYNC_CORE, 0, 0) < 0)
            return EDGEPROBE_ENOTSUP;
#else
        if (EDGEPROBE_OS_SERIALIZE() < 0) return EDGEPROBE_ENOTSUP;
#endif
        r->sync_registered = 1;
    }
    if (mode != EDGEPROBE_SYNC_TMAX && mode != EDGEPROBE_SYNC_SERIALIZE) return EDGEPROBE_EINVAL;
    __atomic_store_n(&r->sync_mode, mode, __ATOMIC_RELEASE);
    return 0;
}
EDGEPROBE__FN int edgeprobe_set_sync(enum edgeprobe_sync mode) {
    int rc;
    EDGEPROBE__ROOT_OR_RETURN(r);
    edgeprobe__lock(&r->lock);
    rc = edgeprobe__set_sync_locked(r, (int)mode);
    edgeprobe__unlock(&r->lock);
    return rc;
}
EDGEPROBE__FN enum edgeprobe_sync edgeprobe_get_sync(void) {
    int err;
    edgeprobe__root *r = edgeprobe__root_get(&err);
    return r ? (enum edgeprobe_sync)__atomic_load_n(&r->sync_mode, __ATOMIC_ACQUIRE) : EDGEPROBE_SYNC_TMAX;
}
EDGEPROBE__FN int edgeprobe_set_tmax(uint64_t ticks) {
    EDGEPROBE__ROOT_OR_RETURN(r);
    __atomic_store_n(&r->tmax, ticks, __ATOMIC_RELEASE);
    return 0;
}
EDGEPROBE__FN uint64_t edgeprobe_get_tmax(void) {
    int err;
    edgeprobe__root *r = edgeprobe__root_get(&err);
    return r ? __atomic_load_n(&r->tmax, __ATOMIC_ACQUIRE) : EDGEPROBE_TMAX_DEFAULT;
}
/* Going strict closes every page left open by the keep-writable policy. */
EDGEPROBE__FN int edgeprobe_set_wx_strict(int strict) {
    unsigned i;
    int rc = 0;
    EDGEPROBE__ROOT_OR_RETURN(r);
    edgeprobe__lock(&r->lock);
    r->wx_strict = strict != 0;
    for (i = 0; strict && i < r->page_cap; i++) {
        edgeprobe__page *e = &r->pages[i];
        if (!e->addr || !e->open || e->refs) continue;
        if (EDGEPROBE_OS_PROTECT((void *)e->addr, EDGEPROBE__PAGE, 0) < 0) rc = EDGEPROBE_EPROT;
        else e->open = 0;
    }
    edgeprobe__unlock(&r->lock);
    return rc;
}

/* One "wait" of the protocol, from `since`: a serialising membarrier, or
 * Tmax ticks (also when the membarrier fails: never skip a wait). */
EDGEPROBE__FN void edgeprobe__protocol_wait(edgeprobe__root *r, uint64_t since);
EDGEPROBE__FN void edgeprobe__protocol_wait(edgeprobe__root *r, uint64_t since) {
    if (__atomic_load_n(&r->sync_mode, __ATOMIC_ACQUIRE) == EDGEPROBE_SYNC_SERIALIZE &&
        EDGEPROBE_OS_SERIALIZE() == 0)
        return;
    while (edgeprobe__rdtsc() - since < __atomic_load_n(&r->tmax, __ATOMIC_RELAXED)) edgeprobe__pause();
}

/* Check a request: the site holds one instruction of len bytes, insn is one
 * instruction of len bytes. */
EDGEPROBE__FN int edgeprobe__check_patch(const void *site, const void *insn, size_t len);
EDGEPROBE__FN int edgeprobe__check_patch(const void *site, const void *insn, size_t len) {
    if (!site || !insn || len < 1 || len > 8) return EDGEPROBE_EINVAL;
    if (edgeprobe__insn_len((const unsigned char *)insn, len) != len) return EDGEPROBE_EINVAL;
    /* exactly len bytes: a longer instruction fails to decode, and nothing
     * past the claimed site is read (it may be the end of a mapping) */
    if (edgeprobe__insn_len((const unsigned char *)site, len) != len) return EDGEPROBE_EBYTES;
    return 0;
}
/* Bytes that change, front and back of the line boundary. */
EDGEPROBE__INLINE size_t edgeprobe__front_len(const void *site, size_t len) {
    size_t f = edgeprobe__line_of(site) + EDGEPROBE__LINE - (uintptr_t)site;
    return f < len ? f : len;
}

/* Start a patch; lock held. Returns 1 done (one store sufficed), 0 in
 * flight, or a negative code with nothing written. */
EDGEPROBE__FN int edgeprobe__patch_begin(edgeprobe__root *r, unsigned char *site, const unsigned char *insn,
                                         size_t len);
EDGEPROBE__FN int edgeprobe__patch_begin(edgeprobe__root *r, unsigned char *site, const unsigned char *insn,
                                         size_t len) {
    size_t front = edgeprobe__front_len(site, len);
    edgeprobe__flight *f;
    unsigned char old[8];
    int rc;
    if (edgeprobe__flight_overlaps(r, (uintptr_t)site, len)) return EDGEPROBE_EBUSY;
    if ((rc = edgeprobe__check_patch(site, insn, len)) < 0) {
        if (rc == EDGEPROBE_EBYTES) edgeprobe__log_bytes(r, "no instruction of the claimed length", site, 0, len);
        return rc;
    }
    __builtin_memcpy(old, site, len);
    /* Inside one line, or only one side changes: one atomic store suffices,
     * since every mix an executor can fetch is the old or the new insn. */
    if (front == len || __builtin_memcmp(old + front, insn + front, len - front) == 0)
        return (rc = edgeprobe__write_code(r, site, old, insn, front)) < 0 ? rc : 1;
    if (__builtin_memcmp(old, insn, front) == 0)
        return (rc = edgeprobe__write_code(r, site + front, old + front, insn + front, len - front)) < 0 ? rc : 1;
    if ((rc = edgeprobe__trap_install(r)) < 0) return rc;
    if (!(f = edgeprobe__flight_claim(r, (uintptr_t)site))) return EDGEPROBE_EBUSY;
    if ((rc = edgeprobe__code_open(r, site, len)) < 0) return rc;
    r->in_flight++;
    __atomic_store_n(&f->seq, f->seq + 1, __ATOMIC_RELAXED); /* odd: rewriting */
    __atomic_thread_fence(__ATOMIC_RELEASE);
    f->len = (unsigned char)len;
    __builtin_memcpy(f->old, old, len);
    __builtin_memcpy(f->insn, insn, len);
    f->owner = edgeprobe__self();
    f->error = 0;
    f->state = EDGEPROBE__FLIGHT_WAIT1;
    __atomic_store_n(&f->site, (uintptr_t)site, __ATOMIC_RELEASE);
    __atomic_store_n(&f->seq, f->seq + 1, __ATOMIC_RELEASE);
    {
        unsigned char int3 = EDGEPROBE__OP_INT3;
        rc = edgeprobe__cas_bytes(site, old, &int3, 1);
    }
    if (rc != 1) { /* someone else changed the first byte: back off */
        edgeprobe__flight_retire(r, f);
        edgeprobe__code_close(r, site, len);
        edgeprobe__log_bytes(r, "site changed before it could be locked", site, old, len);
        return EDGEPROBE_EBUSY;
    }
    f->stamp = edgeprobe__rdtsc();
    return 0;
}
/* Advance a patch in flight by one step; lock held. Returns 0 while in
 * flight, 1 when done, EDGEPROBE_EBYTES when a foreign write was found (the
 * back bytes changed: the front is put back and the patch abandoned). */
EDGEPROBE__FN int edgeprobe__patch_step(edgeprobe__root *r, edgeprobe__flight *f) {
    unsigned char *site = (unsigned char *)f->site, locked[8];
    size_t front = edgeprobe__front_len(site, f->len);
    int rc;
    __builtin_memcpy(locked, f->old, front);
    locked[0] = EDGEPROBE__OP_INT3;
    if (f->state == EDGEPROBE__FLIGHT_WAIT1) {
        rc = edgeprobe__cas_bytes(site + front, f->old + front, f->insn + front, f->len - front);
        if (rc >= 0) {
            f->stamp = edgeprobe__rdtsc();
            __atomic_store_n(&f->state, EDGEPROBE__FLIGHT_WAIT2, __ATOMIC_RELEASE);
            return 0;
        }
        edgeprobe__log_bytes(r, "back bytes changed during a patch; abandoned", site, 0, f->len);
        edgeprobe__cas_bytes(site, locked, f->old, front); /* unlock: the old insn again */
        f->error = EDGEPROBE_EBYTES;
    } else if (edgeprobe__cas_bytes(site, locked, f->insn, front) < 0) {
        edgeprobe__log_bytes(r, "front bytes changed during a patch", site, 0, f->len);
        f->error = EDGEPROBE_EBYTES;
    }
    rc = f->error ? f->error : 1;
    edgeprobe__code_close(r, site, f->len);
    edgeprobe__flight_retire(r, f);
    return rc;
}
/* Whether a patch in flight may take its next step now. */
EDGEPROBE__INLINE int edgeprobe__step_due(edgeprobe__root *r, const edgeprobe__flight *f) {
    return __atomic_load_n(&r->sync_mode, __ATOMIC_ACQUIRE) == EDGEPROBE_SYNC_SERIALIZE ||
           edgeprobe__rdtsc() - f->stamp >= __atomic_load_n(&r->tmax, __ATOMIC_RELAXED);
}

EDGEPROBE__FN int edgeprobe_patch_start(void *site, const void *insn, size_t len) {
    int rc;
    EDGEPROBE__ROOT_OR_RETURN(r);
    if (!site || !insn || len < 1 || len > 8) return EDGEPROBE_EINVAL;
    edgeprobe__lock(&r->lock);
    rc = edgeprobe__patch_begin(r, (unsigned char *)site, (const unsigned char *)insn, len);
    edgeprobe__unlock(&r->lock);
    return rc;
}
EDGEPROBE__FN int edgeprobe_patch_finish(void *site) {
    edgeprobe__flight *f;
    int rc = 0;
    EDGEPROBE__ROOT_OR_RETURN(r);
    if (!site) return EDGEPROBE_EINVAL;
    edgeprobe__lock(&r->lock);
    f = edgeprobe__flight_find(r, (uintptr_t)site);
    if (!f) rc = EDGEPROBE_ESRCH;
    while (rc == 0 && edgeprobe__step_due(r, f)) {
        edgeprobe__protocol_wait(r, f->stamp); /* membarrier, or already over */
        rc = edgeprobe__patch_step(r, f);
    }
    edgeprobe__unlock(&r->lock);
    return rc;
}
EDGEPROBE__FN int edgeprobe_patch_batch(const edgeprobe_patch_req *reqs, size_t n, int *results) {
    size_t i, in_flight = 0;
    int failed = 0, step;
    uint64_t last = 0;
    EDGEPROBE__ROOT_OR_RETURN(r);
    if ((!reqs || !results) && n) return EDGEPROBE_EINVAL;
    edgeprobe__lock(&r->lock);
    for (i = 0; i < n; i++) {
        results[i] = edgeprobe__patch_begin(r, (unsigned char *)reqs[i].site,
                                            (const unsigned char *)reqs[i].insn, reqs[i].len);
        if (results[i] < 0) failed++;
        if (results[i] == 0) in_flight++;
    }
    last = edgeprobe__rdtsc();
    edgeprobe__unlock(&r->lock);
    for (step = 0; step < 2 && in_flight; step++) { /* two waits for the whole batch */
        edgeprobe__protocol_wait(r, last);
        edgeprobe__lock(&r->lock);
        for (i = 0; i < n; i++) {
            edgeprobe__flight *f;
            if (results[i] != 0) continue;
            f = edgeprobe__flight_find(r, (uintptr_t)reqs[i].site);
            results[i] = f ? edgeprobe__patch_step(r, f) : 1; /* or finished by another thread */
            if (results[i] < 0) failed++;
        }
        last = edgeprobe__rdtsc();
        edgeprobe__unlock(&r->lock);
    }
    for (i = 0; i < n; i++)
        if (results[i] == 1) results[i] = 0;
    return failed;
}
EDGEPROBE__FN int edgeprobe_patch(void *site, const void *insn, size_t len) {
    edgeprobe_patch_req req;
    int result = 0, failed;
    req.site = site;
    req.insn = insn;
    req.len = len;
    failed = edgeprobe_patch_batch(&req, 1, &result);
    return failed < 0 ? failed : result;
}

/* ---- 8.12 call patch: never waits -----------------------------------------
 * Only one side of the line boundary changes, so every mix an executor can
 * fetch is a valid instruction: the active call, or the deactivated form. */

/* A `ret` within rel32 reach of the byte after the call. Pages of `ret`
 * are allocated once per +-2 GiB region and shared by every site in reach.
 * Lock held. */
EDGEPROBE__FN uintptr_t edgeprobe__tramp_near(edgeprobe__root *r, uintptr_t from);
EDGEPROBE__FN uintptr_t edgeprobe__tramp_near(edgeprobe__root *r, uintptr_t from) {
    const intptr_t reach = (intptr_t)0x7fff0000;
    unsigned i;
    unsigned char *page;
    for (i = 0; i < r->ntramps; i++) {
        intptr_t d = (intptr_t)(r->tramps[i] - from);
        if (d > -reach && d < reach) return r->tramps[i];
    }
    if (r->ntramps == EDGEPROBE__TRAMPS) return 0;
    page = (unsigned char *)EDGEPROBE_OS_MAP_NEAR(from, EDGEPROBE__PAGE);
    if (!page) return 0;
    if ((intptr_t)((uintptr_t)page - from) <= -reach || (intptr_t)((uintptr_t)page - from) >= reach) return 0;
    __builtin_memset(page, EDGEPROBE__OP_RET, EDGEPROBE__PAGE);
    EDGEPROBE_OS_PROTECT(page, EDGEPROBE__PAGE, 0);
    r->tramps[r->ntramps++] = (uintptr_t)page;
    return (uintptr_t)page;
}
EDGEPROBE__INLINE int edgeprobe__is_tramp(const edgeprobe__root *r, uintptr_t target) {
    unsigned i;
    for (i = 0; i < r->ntramps; i++)
        if (target >= r->tramps[i] && target < r->tramps[i] + EDGEPROBE__PAGE) return 1;
    return 0;
}
/* The active and deactivated forms of `call rel32` at site, per the split
 * of its 5 bytes by the line boundary. Lock held. */
EDGEPROBE__FN int edgeprobe__call_forms(edgeprobe__root *r, const unsigned char *site, int32_t rel32,
                                        unsigned char on[5], unsigned char off[5]);
EDGEPROBE__FN int edgeprobe__call_forms(edgeprobe__root *r, const unsigned char *site, int32_t rel32,
                                        unsigned char on[5], unsigned char off[5]) {
    size_t front = edgeprobe__front_len(site, 5);
    on[0] = EDGEPROBE__OP_CALL;
    __builtin_memcpy(on + 1, &rel32, 4);
    __builtin_memcpy(off, on, 5);
    if (front == 5) {
        __builtin_memcpy(off, edgeprobe__nop5, 5);
    } else if (front == 1) { /* 1|4: call a ret instead */
        uintptr_t t = edgeprobe__tramp_near(r, (uintptr_t)site + 5);
        int32_t rel;
        if (!t) return EDGEPROBE_ERANGE;
        rel = (int32_t)(intptr_t)(t - ((uintptr_t)site + 5));
        __builtin_memcpy(off + 1, &rel, 4);
    } else { /* 2|3, 3|2, 4|1: jmp over the rest */
        off[0] = EDGEPROBE__OP_JMP8;
        off[1] = 3;
    }
    return 0;
}
/* Do the bytes at site hold a deactivated call (of any displacement)? */
EDGEPROBE__FN int edgeprobe__call_is_off(const edgeprobe__root *r, const unsigned char *site);
EDGEPROBE__FN int edgeprobe__call_is_off(const edgeprobe__root *r, const unsigned char *site) {
    size_t front = edgeprobe__front_len(site, 5);
    int32_t rel;
    if (front == 5) return __builtin_memcmp(site, edgeprobe__nop5, 5) == 0;
    if (front > 1) return site[0] == EDGEPROBE__OP_JMP8 && site[1] == 3;
    __builtin_memcpy(&rel, site + 1, 4);
    return site[0] == EDGEPROBE__OP_CALL && edgeprobe__is_tramp(r, (uintptr_t)site + 5 + (uintptr_t)(intptr_t)rel);
}
/* Switch a call site; lock held. Only the bytes of one side of the line
 * boundary are written. */
EDGEPROBE__FN int edgeprobe__call_set(edgeprobe__root *r, unsigned char *site, int32_t rel32, int on);
EDGEPROBE__FN int edgeprobe__call_set(edgeprobe__root *r, unsigned char *site, int32_t rel32, int on) {
    unsigned char active[5], off[5], *from, *to;
    size_t front = edgeprobe__front_len(site, 5), at, n;
    int rc;
    if (edgeprobe__flight_overlaps(r, (uintptr_t)site, 5)) return EDGEPROBE_EBUSY;
    if ((rc = edgeprobe__call_forms(r, site, rel32, active, off)) < 0) return rc;
    if (front == 1 && edgeprobe__call_is_off(r, site)) __builtin_memcpy(off, site, 5); /* its trampoline */
    from = on ? off : active;
    to = on ? active : off;
    at = front == 1 ? 1 : 0;                  /* 1|4: the back 4 bytes */
    n = front == 5 ? 5 : front == 1 ? 4 : 2;  /* else: the front 2 bytes */
    if (__builtin_memcmp(site, to, 5) == 0) return 0;
    if (__builtin_memcmp(site, from, 5) != 0) {
        edgeprobe__log_bytes(r, "not the call or its deactivated form", site, from, 5);
        return EDGEPROBE_EBYTES;
    }
    rc = edgeprobe__write_code(r, site + at, from + at, to + at, n);
    return rc < 0 ? rc : 1;
}
EDGEPROBE__FN int edgeprobe_call_activate(void *site, int32_t rel32) {
    int rc;
    EDGEPROBE__ROOT_OR_RETURN(r);
    if (!site) return EDGEPROBE_EINVAL;
    edgeprobe__lock(&r->lock);
    rc = edgeprobe__call_set(r, (unsigned char *)site, rel32, 1);
    edgeprobe__unlock(&r->lock);
    return rc;
}
EDGEPROBE__FN int edgeprobe_call_deactivate(void *site) {
    unsigned char *p = (unsigned char *)site;
    int32_t rel32;
    int rc;
    EDGEPROBE__ROOT_OR_RETURN(r);
    if (!site) return EDGEPROBE_EINVAL;
    edgeprobe__lock(&r->lock);
    __builtin_memcpy(&rel32, p + 1, 4);
    if (edgeprobe__call_is_off(r, p)) rc = 0;
    else if (p[0] == EDGEPROBE__OP_CALL) rc = edgeprobe__call_set(r, p, rel32, 0);
    else {
        edgeprobe__log_bytes(r, "not a call", site, 0, 5);
        rc = EDGEPROBE_EBYTES;
    }
    edgeprobe__unlock(&r->lock);
    return rc;
}

/* ---- 8.13 handlers ---------------------------------------------------------
 * A binding {fn, user, identity} is immutable once published in a point, so
 * replacing a handler is one pointer store. edgeprobe_handler_sync must wait
 * for every thread that may still hold a binding retired before it began.
 *
 * Readers (the hot path) take no lock and execute no locked instruction.
 * Each thread owns a record, found through a thread-local pointer, holding
 * its handler-call depth, which only the owner writes, with plain stores:
 *     enter: depth = depth + 1              then load the binding and call
 *     leave: depth = depth - 1; if 0: gen = gen + 1
 * A signal handler that runs a probe between a load and its store leaves
 * both words as it found them (or gen moved on), so the pair is
 * signal-safe. The store of `enter`
 * must be visible before the binding load; x86 may reorder a store with a
 * later load, so sync first runs membarrier(PRIVATE_EXPEDITED), which puts
 * a full barrier on every running thread of the process (liburcu's "memb"
 * flavour): after it, a reader either shows depth > 0 or will load the new
 * binding. Sync then waits, for each record that shows depth > 0, until
 * depth reads 0 or gen has moved: the call that could hold an old binding
 * has then returned (gen spares sync from having to catch the short moment
 * between two calls of a thread that is inside handlers nearly all the
 * time). Without membarrier (old kernel,
 * EDGEPROBE_MEMBARRIER=0) readers put an mfence after `enter` themselves:
 * correct, slower.
 * Records are allocated on a thread's first handler call and kept (one per
 * thread and object, 64 bytes); freestanding builds, which have no
 * thread-local storage here, and threads whose record could not be
 * allocated fall back to striped counters with locked increments. */
struct edgeprobe__binding_full {
    edgeprobe__binding b;
    edgeprobe_info info;
};
typedef struct edgeprobe__reader {
    unsigned long depth;         /* handler calls in progress; owner writes */
    unsigned long gen;           /* outermost calls completed; owner writes */
    struct edgeprobe__reader *next; /* the root's list: push-only          */
    char pad[40];                /* one cache line per thread              */
} edgeprobe__reader;
#define EDGEPROBE__MB_PRIVATE_EXPEDITED (1 << 3)
#define EDGEPROBE__MB_REGISTER_PRIVATE_EXPEDITED (1 << 4)

#ifndef EDGEPROBE_FREESTANDING
__attribute__((weak, visibility("hidden"), tls_model("initial-exec")))
__thread edgeprobe__reader *edgeprobe__my_reader;
/* Register for membarrier's private expedited command at root creation.
 * Returns 1 when readers must fence themselves. */
EDGEPROBE__FN int edgeprobe__readers_need_fence(void) {
    const char *s = EDGEPROBE__GETENV("EDGEPROBE_MEMBARRIER");
    if (s && *s == '0') return 1;
    return edgeprobe__syscall3(EDGEPROBE__SYS_MEMBARRIER, EDGEPROBE__MB_REGISTER_PRIVATE_EXPEDITED, 0, 0) != 0;
}
#define EDGEPROBE__MEMBARRIER(cmd) edgeprobe__syscall3(EDGEPROBE__SYS_MEMBARRIER, cmd, 0, 0)
/* This thread's record; slow path on its first handler call. */
EDGEPROBE__FN edgeprobe__reader *edgeprobe__reader_new(edgeprobe__root *r);
EDGEPROBE__FN edgeprobe__reader *edgeprobe__reader_new(edgeprobe__root *r) {
    edgeprobe__reader *rd = (edgeprobe__reader *)EDGEPROBE_OS_ALLOC(sizeof *rd), *head;
    if (!rd) return 0;
    head = __atomic_load_n(&r->readers, __ATOMIC_RELAXED);
    do rd->next = head;
    while (!__atomic_compare_exchange_n(&r->readers, &head, rd, 1, __ATOMIC_RELEASE, __ATOMIC_RELAXED));
    edgeprobe__my_reader = rd;
    return rd;
}
#define edgeprobe__reader_tls() edgeprobe__my_reader
EDGEPROBE__INLINE edgeprobe__reader *edgeprobe__reader_self(edgeprobe__root *r) {
    edgeprobe__reader *rd = edgeprobe__my_reader;
    return rd ? rd : edgeprobe__reader_new(r);
}
#else
EDGEPROBE__FN int edgeprobe__readers_need_fence(void) { return 1; }
#define EDGEPROBE__MEMBARRIER(cmd) ((void)(cmd), -1L)
#define edgeprobe__reader_self(r) ((void)(r), (edgeprobe__reader *)0)
#define edgeprobe__reader_tls() ((edgeprobe__reader *)0)
#endif

EDGEPROBE__INLINE unsigned edgeprobe__stripe(void) {
    return edgeprobe__hash_ptr((uintptr_t)__builtin_frame_address(0) >> 16) & (EDGEPROBE__STRIPES - 1);
}
/* The fast reader pair on this thread's record. Nothing is kept across
 * the handler call: `out` finds the record again (one %fs load). */
EDGEPROBE__INLINE void edgeprobe__reader_in(edgeprobe__root *r, edgeprobe__reader *rd) {
    __atomic_store_n(&rd->depth, __atomic_load_n(&rd->depth, __ATOMIC_RELAXED) + 1, __ATOMIC_RELAXED);
    __atomic_signal_fence(__ATOMIC_SEQ_CST); /* no compiler reordering */
    if (__atomic_load_n(&r->readers_fence, __ATOMIC_RELAXED)) __atomic_thread_fence(__ATOMIC_SEQ_CST);
}
EDGEPROBE__INLINE void edgeprobe__reader_out(edgeprobe__reader *rd) {
    unsigned long d = __atomic_load_n(&rd->depth, __ATOMIC_RELAXED) - 1;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    __atomic_store_n(&rd->depth, d, __ATOMIC_RELEASE);
    if (d == 0) __atomic_store_n(&rd->gen, __atomic_load_n(&rd->gen, __ATOMIC_RELAXED) + 1, __ATOMIC_RELEASE);
}
/* A reader's ticket, for callers that may have no record (first call of a
 * thread whose record cannot be allocated, freestanding builds): then a
 * striped counter with locked increments. */
typedef struct {
    edgeprobe__reader *rd;
    volatile unsigned long *count;
} edgeprobe__ticket;
EDGEPROBE__INLINE edgeprobe__ticket edgeprobe__reader_enter(edgeprobe__root *r) {
    edgeprobe__ticket t;
    t.rd = edgeprobe__reader_self(r);
    t.count = 0;
    if (__builtin_expect(t.rd != 0, 1)) {
        edgeprobe__reader_in(r, t.rd);
    } else {
        t.count = &r->entering[edgeprobe__stripe()][__atomic_load_n(&r->epoch, __ATOMIC_RELAXED) & 1];
        __atomic_fetch_add(t.count, 1, __ATOMIC_SEQ_CST);
    }
    return t;
}
EDGEPROBE__INLINE void edgeprobe__reader_leave(edgeprobe__ticket t) {
    if (__builtin_expect(t.rd != 0, 1)) edgeprobe__reader_out(t.rd);
    else __atomic_fetch_sub(t.count, 1, __ATOMIC_RELEASE);
}
EDGEPROBE__INLINE void edgeprobe__call_binding(edgeprobe__point *pt, uintptr_t value) {
    struct edgeprobe__binding_full *b =
        (struct edgeprobe__binding_full *)__atomic_load_n(&pt->binding, __ATOMIC_ACQUIRE);
    if (b) b->b.fn(&b->info, b->b.user, value);
}
/* Any thread, any build: with a ticket. */
EDGEPROBE__FN void edgeprobe__dispatch_ticket(edgeprobe__root *r, edgeprobe__point *pt, uintptr_t value);
EDGEPROBE__FN void edgeprobe__dispatch_ticket(edgeprobe__root *r, edgeprobe__point *pt, uintptr_t value) {
    edgeprobe__ticket t = edgeprobe__reader_enter(r);
    edgeprobe__call_binding(pt, value);
    edgeprobe__reader_leave(t);
}
/* The handler site's enabled path. cold: calls to it mark that path as
 * unlikely, so the compiler moves it out of the hot function (and keeps
 * this small function in .text.unlikely; the fast path is a few loads and
 * stores either way). A thread with its record takes no lock. */
EDGEPROBE__FN __attribute__((cold)) void edgeprobe__dispatch(edgeprobe__point *pt, uintptr_t value);
EDGEPROBE__FN void edgeprobe__dispatch(edgeprobe__point *pt, uintptr_t value) {
    edgeprobe__root *r = __atomic_load_n(&edgeprobe__this_object.root, __ATOMIC_RELAXED);
    edgeprobe__reader *rd = edgeprobe__reader_tls();
    if (__builtin_expect(!rd || !r, 0)) {
        if (r) edgeprobe__dispatch_ticket(r, pt, value);
        return;
    }
    edgeprobe__reader_in(r, rd);
    edgeprobe__call_binding(pt, value);
    edgeprobe__reader_out(edgeprobe__reader_tls());
}
/* EDGEPROBE_HANDLER_INLINE: the same fast path, inlined into the site's
 * enabled block (one call/return pair less); anything unusual goes to
 * edgeprobe__dispatch. */
EDGEPROBE__INLINE void edgeprobe__dispatch_inline(edgeprobe__point *pt, uintptr_t value) {
    edgeprobe__root *r = __atomic_load_n(&edgeprobe__this_object.root, __ATOMIC_RELAXED);
    edgeprobe__reader *rd = edgeprobe__reader_tls();
    if (__builtin_expect(!rd || !r || __atomic_load_n(&r->readers_fence, __ATOMIC_RELAXED), 0)) {
        edgeprobe__dispatch(pt, value);
        return;
    }
    edgeprobe__reader_in(r, rd);
    edgeprobe__call_binding(pt, value);
    edgeprobe__reader_out(edgeprobe__reader_tls());
}
/* Publish a new binding (or NULL) in a point; retire the old one. Lock held. */
EDGEPROBE__FN int edgeprobe__bind(edgeprobe__root *r, edgeprobe__point *pt, edgeprobe_handler_fn fn, void *user);
EDGEPROBE__FN int edgeprobe__bind(edgeprobe__root *r, edgeprobe__point *pt, edgeprobe_handler_fn fn, void *user) {
    struct edgeprobe__binding_full *b = 0;
    edgeprobe__binding *old;
    if (fn) {
        b = (struct edgeprobe__binding_full *)EDGEPROBE_OS_ALLOC(sizeof *b);
        if (!b) return EDGEPROBE_ENOMEM;
        b->b.fn = fn;
        b->b.user = user;
        edgeprobe__fill_info(pt, &b->info);
    }
    old = __atomic_exchange_n(&pt->binding, b ? &b->b : (edgeprobe__binding *)0, __ATOMIC_ACQ_REL);
    if (old) {
        old->next_retired = r->retired;
        r->retired = old;
    }
    return 0;
}
/* How many points of probe p a handler of `kind` binds to. */
EDGEPROBE__INLINE int edgeprobe__points_of_kind(const struct edgeprobe__probe *p, int kind) {
    int k, n = 0;
    for (k = 0; k < p->npoints; k++) n += p->points[k]->kind == kind;
    return n;
}
/* Attach (fn != NULL) a handler to the points of `kind` of every probe
 * matching pattern, or detach (fn == NULL) every handler and args handler.
 * An exact name with no point of that kind is EDGEPROBE_EKIND; a glob
 * skips such names. */
EDGEPROBE__FN int edgeprobe__attach_matching(const char *pattern, int kind, edgeprobe_handler_fn fn, void *user);
EDGEPROBE__FN int edgeprobe__attach_matching(const char *pattern, int kind, edgeprobe_handler_fn fn, void *user) {
    int rc = edgeprobe__check_pattern(pattern), matched = 0, wrong_kind = 0;
    unsigned i;
    EDGEPROBE__READY_OR_RETURN(r);
    if (rc) return rc;
    edgeprobe__lock(&r->lock);
    for (i = 0; i < r->hash_cap && rc >= 0; i++) {
        struct edgeprobe__probe *p;
        for (p = r->hash[i]; p && rc >= 0; p = p->next_hash) {
            int k;
            if (!p->npoints || !edgeprobe__glob_match(pattern, p->name)) continue;
            if (fn && !edgeprobe__points_of_kind(p, kind)) {
                wrong_kind++;
                continue;
            }
            matched++;
            if (!fn) rc = edgeprobe__probe_count(r, p, 0); /* off before unbinding */
            for (k = 0; k < p->npoints && rc >= 0; k++)
                if (fn ? p->points[k]->kind == kind
                       : (p->points[k]->kind == EDGEPROBE_KIND_HANDLER || p->points[k]->kind == EDGEPROBE_KIND_PROBE))
                    rc = edgeprobe__bind(r, p->points[k], fn, user);
            if (fn && rc >= 0) rc = edgeprobe__probe_count(r, p, p->count > 0 ? p->count : 1);
        }
    }
    edgeprobe__unlock(&r->lock);
    if (rc < 0) return rc;
    if (matched || edgeprobe__is_glob(pattern)) return matched;
    return wrong_kind ? EDGEPROBE_EKIND : EDGEPROBE_ENOENT;
}
EDGEPROBE__FN int edgeprobe_attach(const char *pattern, edgeprobe_handler_fn fn, void *user) {
    return fn ? edgeprobe__attach_matching(pattern, EDGEPROBE_KIND_HANDLER, fn, user) : EDGEPROBE_EINVAL;
}
EDGEPROBE__FN int edgeprobe_detach(const char *pattern) { return edgeprobe__attach_matching(pattern, 0, 0, 0); }

/* Wait until every counter of one epoch parity reads zero (fallback). */
EDGEPROBE__FN void edgeprobe__drain(edgeprobe__root *r, unsigned parity);
EDGEPROBE__FN void edgeprobe__drain(edgeprobe__root *r, unsigned parity) {
    unsigned s;
    for (s = 0; s < EDGEPROBE__STRIPES; s++)
        while (__atomic_load_n(&r->entering[s][parity], __ATOMIC_ACQUIRE)) EDGEPROBE_OS_YIELD();
}
/* Wait for every thread that was inside a handler call when the barrier
 * ran: until its depth reads 0 or an outermost call has ended (gen moved;
 * gen is read first, so a call that began later cannot be mistaken for the
 * old one). */
EDGEPROBE__FN void edgeprobe__wait_readers(edgeprobe__root *r);
EDGEPROBE__FN void edgeprobe__wait_readers(edgeprobe__root *r) {
    edgeprobe__reader *rd;
    if (!__atomic_load_n(&r->readers_fence, __ATOMIC_RELAXED) &&
        EDGEPROBE__MEMBARRIER(EDGEPROBE__MB_PRIVATE_EXPEDITED) != 0)
        __atomic_store_n(&r->readers_fence, 1, __ATOMIC_SEQ_CST); /* cannot happen once registered */
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    for (rd = __atomic_load_n(&r->readers, __ATOMIC_ACQUIRE); rd; rd = rd->next) {
        unsigned long gen = __atomic_load_n(&rd->gen, __ATOMIC_ACQUIRE);
        int spins = 0;
        while (__atomic_load_n(&rd->depth, __ATOMIC_ACQUIRE) && __atomic_load_n(&rd->gen, __ATOMIC_ACQUIRE) == gen)
            if (++spins % 64 == 0) EDGEPROBE_OS_YIELD();
            else edgeprobe__pause();
    }
}
/* Waits with the registry unlocked, so handlers may toggle probes meanwhile;
 * syncs are serialised by their own lock. Never call it from a handler: it
 * would wait for itself. */
EDGEPROBE__FN int edgeprobe_handler_sync(void) {
    edgeprobe__binding *list, *next;
    unsigned e;
    EDGEPROBE__ROOT_OR_RETURN(r);
    edgeprobe__lock(&r->sync_lock);
    edgeprobe__lock(&r->lock);
    list = r->retired; /* retired before this call: safe to free after it */
    r->retired = 0;
    edgeprobe__unlock(&r->lock);
#ifndef EDGEPROBE__MUTANT_NOOP_SYNC /* tests: a sync that waits for nobody must be caught */
    edgeprobe__wait_readers(r);
    e = __atomic_add_fetch(&r->epoch, 1, __ATOMIC_SEQ_CST);
    edgeprobe__drain(r, (e - 1) & 1);
    e = __atomic_add_fetch(&r->epoch, 1, __ATOMIC_SEQ_CST);
    edgeprobe__drain(r, (e - 1) & 1);
#else
    (void)e;
#endif
    edgeprobe__unlock(&r->sync_lock);
    for (; list; list = next) {
        next = list->next_retired;
        EDGEPROBE_OS_FREE(list);
    }
    return 0;
}

/* ---- 8.14 the -finstrument-functions provider -------------------------------
 * Call sites of __cyg_profile_func_enter/exit, found on first call: the
 * call instruction ends at the return address. A lock-free, insert-only
 * hash maps each site to its point; tables only grow and old ones are kept
 * (readers may still be in them). */
typedef struct edgeprobe__psite {
    uintptr_t key;               /* call site; 0 = empty */
    edgeprobe__point *point;
} edgeprobe__psite;
typedef struct edgeprobe__ptable {
    unsigned cap, used;
    struct edgeprobe__ptable *older;
    edgeprobe__psite slot[1];
} edgeprobe__ptable;
struct edgeprobe__provider {
    edgeprobe__ptable *table;
};
/* Provider point: the marker point plus what the call patch needs. */
typedef struct edgeprobe__ppoint {
    edgeprobe__point pt;
    int32_t rel32;               /* the original call's displacement       */
    int patchable;               /* a 5-byte call that reaches the hook    */
    void *fn;                    /* instrumented function                  */
    unsigned long long unloads;  /* objects unloaded when last seen loaded */
    char name[40];               /* "0x..." when dladdr has no name         */
} edgeprobe__ppoint;

EDGEPROBE__INLINE edgeprobe__point *edgeprobe__ptable_get(const edgeprobe__ptable *t, uintptr_t key) {
    unsigned i = edgeprobe__hash_ptr(key) & (t->cap - 1);
    for (;; i = (i + 1) & (t->cap - 1)) {
        uintptr_t k = __atomic_load_n(&t->slot[i].key, __ATOMIC_ACQUIRE);
        if (k == key) return t->slot[i].point;
        if (!k) return 0;
    }
}
EDGEPROBE__FN void edgeprobe__ptable_put(edgeprobe__ptable *t, uintptr_t key, edgeprobe__point *pt);
EDGEPROBE__FN void edgeprobe__ptable_put(edgeprobe__ptable *t, uintptr_t key, edgeprobe__point *pt) {
    unsigned i = edgeprobe__hash_ptr(key) & (t->cap - 1);
    while (t->slot[i].key) i = (i + 1) & (t->cap - 1);
    t->slot[i].point = pt;
    __atomic_store_n(&t->slot[i].key, key, __ATOMIC_RELEASE);
    t->used++;
}
/* Room for one more entry; lock held. */
EDGEPROBE__FN edgeprobe__ptable *edgeprobe__ptable_reserve(struct edgeprobe__provider *pv);
EDGEPROBE__FN edgeprobe__ptable *edgeprobe__ptable_reserve(struct edgeprobe__provider *pv) {
    edgeprobe__ptable *t = pv->table, *n;
    unsigned cap = t ? t->cap * 2 : 1024, i;
    if (t && (t->used + 1) * 2 <= t->cap) return t;
    n = (edgeprobe__ptable *)EDGEPROBE_OS_ALLOC(sizeof *n + (cap - 1) * sizeof n->slot[0]);
    if (!n) return 0;
    n->cap = cap;
    n->older = t;
    for (i = 0; t && i < t->cap; i++)
        if (t->slot[i].key) edgeprobe__ptable_put(n, t->slot[i].key, t->slot[i].point);
    __atomic_store_n(&pv->table, n, __ATOMIC_RELEASE);
    return n;
}

#ifndef EDGEPROBE_FREESTANDING
/* How many objects the process has unloaded so far (glibc's dlpi_subs). */
EDGEPROBE__FN int edgeprobe__read_unloads(edgeprobe__dl_phdr_info *info, size_t size, void *arg);
EDGEPROBE__FN int edgeprobe__read_unloads(edgeprobe__dl_phdr_info *info, size_t size, void *arg) {
    *(unsigned long long *)arg = size >= sizeof *info ? info->subs : ~0ULL;
    return 1; /* the first object is enough */
}
EDGEPROBE__FN unsigned long long edgeprobe__dl_unloads(void);
EDGEPROBE__FN unsigned long long edgeprobe__dl_unloads(void) {
    unsigned long long subs = ~0ULL;
    edgeprobe__libc_dl_iterate_phdr(edgeprobe__read_unloads, &subs);
    return subs;
}
/* Is addr inside an executable segment of a loaded object? Lets the
 * discovery follow a call into a PLT stub without risking a fault. */
typedef struct { uintptr_t addr; int found; } edgeprobe__code_query;
EDGEPROBE__FN int edgeprobe__find_code(edgeprobe__dl_phdr_info *info, size_t size, void *arg);
EDGEPROBE__FN int edgeprobe__find_code(edgeprobe__dl_phdr_info *info, size_t size, void *arg) {
    edgeprobe__code_query *q = (edgeprobe__code_query *)arg;
    int i;
    (void)size;
    for (i = 0; i < info->phnum; i++) {
        uintptr_t lo = info->addr + info->phdr[i].vaddr;
        if (info->phdr[i].type == 1 /* PT_LOAD */ && (info->phdr[i].flags & 1 /* PF_X */) &&
            q->addr >= lo && q->addr + 16 <= lo + info->phdr[i].memsz)
            q->found = 1;
    }
    return q->found;
}
/* Does the 5-byte call at `call` reach `hook`, directly or through a PLT
 * stub (endbr64? bnd? jmp *GOT(%rip)) whose GOT slot holds hook? A tail
 * call (`jmp hook`) leaves the caller's return address: its call does not
 * reach the hook, and the site is not patched. */
EDGEPROBE__FN int edgeprobe__call_reaches(const unsigned char *call, const void *hook);
EDGEPROBE__FN int edgeprobe__call_reaches(const unsigned char *call, const void *hook) {
    const unsigned char *t;
    edgeprobe__code_query q;
    int32_t rel;
    if (call[0] != EDGEPROBE__OP_CALL) return 0;
    __builtin_memcpy(&rel, call + 1, 4);
    t = call + 5 + rel;
    if ((const void *)t == hook) return 1;
    q.addr = (uintptr_t)t;
    q.found = 0;
    edgeprobe__libc_dl_iterate_phdr(edgeprobe__find_code, &q);
    if (!q.found) return 0;
    if (t[0] == 0xf3 && t[1] == 0x0f && t[2] == 0x1e && t[3] == 0xfa) t += 4; /* endbr64 */
    if (t[0] == 0xf2) t++;                                                    /* bnd */
    if (t[0] != 0xff || t[1] != 0x25) return 0;                               /* jmp *disp(%rip) */
    __builtin_memcpy(&rel, t + 2, 4);
    return *(void *const *)(t + 6 + rel) == hook;
}
/* A provider point's name, from dladdr - on demand, because dladdr scans
 * the symbol table (slow in a program linked with -rdynamic) - and once per
 * function: entry and exit share it (the table maps fn|top bit to the point
 * that resolved it). Lock held. */
#define EDGEPROBE__FN_KEY(fn) ((uintptr_t)(fn) | ((uintptr_t)1 << 63))
EDGEPROBE__FN void edgeprobe__provider_name(edgeprobe__point *pt) {
    edgeprobe__ppoint *pp = (edgeprobe__ppoint *)pt;
    edgeprobe__root *r = edgeprobe__this_object.root;
    edgeprobe__ptable *t = r && r->provider ? r->provider->table : 0;
    edgeprobe__point *named = t ? edgeprobe__ptable_get(t, EDGEPROBE__FN_KEY(pp->fn)) : 0;
    edgeprobe__dl_info dli;
    if (pt->kind != EDGEPROBE_KIND_ENTRY && pt->kind != EDGEPROBE_KIND_EXIT) return;
    if (named && named->name) {
        pt->name = pt->function = named->name;
        pt->file = named->file;
        return;
    }
    if (t && (t = edgeprobe__ptable_reserve(r->provider))) edgeprobe__ptable_put(t, EDGEPROBE__FN_KEY(pp->fn), pt);
    if (edgeprobe__libc_dladdr(pp->fn, &dli) && dli.sname && dli.saddr == pp->fn) {
        pt->name = dli.sname;
        pt->file = dli.fname;
    } else {
        edgeprobe__text txt = {pp->name, sizeof pp->name, 0};
        edgeprobe__puts(&txt, "0x");
        edgeprobe__puthex(&txt, (uintptr_t)pp->fn, 12);
        pt->name = pp->name;
    }
    pt->function = pt->name;
}
#else
EDGEPROBE__FN void edgeprobe__provider_name(edgeprobe__point *pt) { (void)pt; }
#endif

#ifdef EDGEPROBE_PROVIDER
#ifdef EDGEPROBE_FREESTANDING
#error "EDGEPROBE_PROVIDER needs a hosted build (dladdr)"
#endif
/* First call from a site: make its point. Lock held. */
EDGEPROBE__FN edgeprobe__point *edgeprobe__provider_discover(edgeprobe__root *r, void *fn, uintptr_t ret,
                                                             int kind, const void *hook);
EDGEPROBE__FN edgeprobe__point *edgeprobe__provider_discover(edgeprobe__root *r, void *fn, uintptr_t ret,
                                                             int kind, const void *hook) {
    struct edgeprobe__provider *pv = r->provider;
    edgeprobe__ptable *t;
    edgeprobe__ppoint *pp;
    unsigned char *call = (unsigned char *)ret - 5;
    if (!pv && !(pv = r->provider = (struct edgeprobe__provider *)EDGEPROBE_OS_ALLOC(sizeof *pv))) return 0;
    if (pv->table && (pp = (edgeprobe__ppoint *)edgeprobe__ptable_get(pv->table, ret))) return &pp->pt;
    if (!(t = edgeprobe__ptable_reserve(pv)) || !(pp = (edgeprobe__ppoint *)EDGEPROBE_OS_ALLOC(sizeof *pp)))
        return 0;
    pp->fn = fn;
    pp->patchable = edgeprobe__call_reaches(call, hook);
    pp->unloads = edgeprobe__dl_unloads();
    __builtin_memcpy(&pp->rel32, call + 1, 4);
    pp->pt.kind = (unsigned short)kind;
    pp->pt.site = call;
    pp->pt.nsites = 1;
    edgeprobe__ptable_put(t, ret, &pp->pt);
    edgeprobe__point_add(r, &pp->pt);
    return &pp->pt;
}
EDGEPROBE__FN void edgeprobe__provider_hit(void *fn, uintptr_t ret, int kind, const void *hook);
EDGEPROBE__FN void edgeprobe__provider_hit(void *fn, uintptr_t ret, int kind, const void *hook) {
    edgeprobe__root *r = __atomic_load_n(&edgeprobe__this_object.root, __ATOMIC_ACQUIRE);
    struct edgeprobe__provider *pv;
    edgeprobe__point *pt = 0;
    edgeprobe__ptable *t;
    if (!r) {
        int err;
        if (!(r = edgeprobe__root_get(&err))) return;
    }
    pv = __atomic_load_n(&r->provider, __ATOMIC_ACQUIRE);
    if (pv && (t = __atomic_load_n(&pv->table, __ATOMIC_ACQUIRE))) pt = edgeprobe__ptable_get(t, ret);
    if (!pt) {
        edgeprobe__lock(&r->lock);
        pt = edgeprobe__provider_discover(r, fn, ret, kind, hook);
        edgeprobe__unlock(&r->lock);
        if (!pt) return;
    }
    if (__atomic_load_n(&pt->binding, __ATOMIC_RELAXED)) edgeprobe__dispatch(pt, (uintptr_t)fn);
}
/* noinline, and for gcc noipa (no constprop clone): every instrumented call
 * must reach the hook itself, also from this translation unit. */
#if defined(__GNUC__) && !defined(__clang__)
#define EDGEPROBE__HOOK __attribute__((no_instrument_function, noinline, noipa))
#else
#define EDGEPROBE__HOOK __attribute__((no_instrument_function, noinline))
#endif
EDGEPROBE__HOOK void __cyg_profile_func_enter(void *fn, void *call_site);
EDGEPROBE__HOOK void __cyg_profile_func_exit(void *fn, void *call_site);
EDGEPROBE__HOOK void __cyg_profile_func_enter(void *fn, void *call_site) {
    (void)call_site;
    edgeprobe__provider_hit(fn, (uintptr_t)__builtin_return_address(0), EDGEPROBE_KIND_ENTRY,
                            (const void *)__cyg_profile_func_enter);
}
EDGEPROBE__HOOK void __cyg_profile_func_exit(void *fn, void *call_site) {
    (void)call_site;
    edgeprobe__provider_hit(fn, (uintptr_t)__builtin_return_address(0), EDGEPROBE_KIND_EXIT,
                            (const void *)__cyg_profile_func_exit);
}
#endif /* EDGEPROBE_PROVIDER */

/* A provider point by id; lock held. */
EDGEPROBE__FN int edgeprobe__provider_point(edgeprobe__root *r, int id, edgeprobe__ppoint **out);
EDGEPROBE__FN int edgeprobe__provider_point(edgeprobe__root *r, int id, edgeprobe__ppoint **out) {
    edgeprobe__point *pt;
    if (id < 0 || id >= r->npoints) return EDGEPROBE_EINVAL;
    if (!(pt = *edgeprobe__point_slot(r, id))) return EDGEPROBE_EUNLOADED;
    if (pt->kind != EDGEPROBE_KIND_ENTRY && pt->kind != EDGEPROBE_KIND_EXIT) return EDGEPROBE_EINVAL;
    *out = (edgeprobe__ppoint *)pt;
    return 0;
}
#ifndef EDGEPROBE_FREESTANDING
/* Is the provider site still in a loaded object? Cheap while no object was
 * unloaded since the site was last seen; else ask dladdr. Lock held. */
EDGEPROBE__INLINE int edgeprobe__provider_loaded(edgeprobe__ppoint *pp) {
    edgeprobe__dl_info dli;
    unsigned long long unloads = edgeprobe__dl_unloads();
    if (unloads == pp->unloads) return 1;
    if (!edgeprobe__libc_dladdr(pp->pt.site, &dli)) return 0;
    pp->unloads = unloads;
    return 1;
}
#else
#define edgeprobe__provider_loaded(pp) 1
#endif
/* Activate (fn != NULL) or deactivate one provider point; lock held. */
EDGEPROBE__FN int edgeprobe__provider_set(edgeprobe__root *r, edgeprobe__ppoint *pp, edgeprobe_handler_fn fn,
                                          void *user);
EDGEPROBE__FN int edgeprobe__provider_set(edgeprobe__root *r, edgeprobe__ppoint *pp, edgeprobe_handler_fn fn,
                                          void *user) {
    int rc;
    edgeprobe__binding *cur = pp->pt.binding;
    if (!pp->patchable) return EDGEPROBE_EBYTES;
    if (!edgeprobe__provider_loaded(pp)) return EDGEPROBE_EUNLOADED;
    if (fn && !(cur && cur->fn == fn && cur->user == user) && (rc = edgeprobe__bind(r, &pp->pt, fn, user)) < 0)
        return rc;
    return edgeprobe__call_set(r, (unsigned char *)pp->pt.site, pp->rel32, fn != 0);
}
EDGEPROBE__FN int edgeprobe_provider_activate(int id, edgeprobe_handler_fn fn, void *user) {
    edgeprobe__ppoint *pp;
    int rc;
    EDGEPROBE__ROOT_OR_RETURN(r);
    if (!fn) return EDGEPROBE_EINVAL;
    edgeprobe__lock(&r->lock);
    rc = edgeprobe__provider_point(r, id, &pp);
    if (rc == 0) rc = edgeprobe__provider_set(r, pp, fn, user);
    edgeprobe__unlock(&r->lock);
    return rc;
}
EDGEPROBE__FN int edgeprobe_provider_deactivate(int id) {
    edgeprobe__ppoint *pp;
    int rc;
    EDGEPROBE__ROOT_OR_RETURN(r);
    edgeprobe__lock(&r->lock);
    rc = edgeprobe__provider_point(r, id, &pp);
    if (rc == 0) rc = edgeprobe__provider_set(r, pp, 0, 0);
    edgeprobe__unlock(&r->lock);
    return rc;
}
/* By function-name glob: returns the number of sites changed, or
 * EDGEPROBE_ENEVER when no provider probe exists yet. */
EDGEPROBE__FN int edgeprobe__provider_glob(const char *pattern, edgeprobe_handler_fn fn, void *user);
EDGEPROBE__FN int edgeprobe__provider_glob(const char *pattern, edgeprobe_handler_fn fn, void *user) {
    int rc = edgeprobe__check_pattern(pattern), id, changed = 0, seen = 0;
    EDGEPROBE__ROOT_OR_RETURN(r);
    if (rc) return rc;
    edgeprobe__lock(&r->lock);
    for (id = 0; id < r->npoints && rc >= 0; id++) {
        edgeprobe__ppoint *pp;
        if (edgeprobe__provider_point(r, id, &pp) < 0) continue;
        seen++;
        if (!pp->pt.name) edgeprobe__provider_name(&pp->pt);
        if (!edgeprobe__glob_match(pattern, pp->pt.name) || !pp->patchable) continue;
        rc = edgeprobe__provider_set(r, pp, fn, user);
        if (rc == EDGEPROBE_EUNLOADED) rc = 0;
        else if (rc > 0) changed++;
    }
    edgeprobe__unlock(&r->lock);
    if (rc < 0) return rc;
    return seen ? changed : EDGEPROBE_ENEVER;
}
EDGEPROBE__FN int edgeprobe_provider_activate_glob(const char *pattern, edgeprobe_handler_fn fn, void *user) {
    return fn ? edgeprobe__provider_glob(pattern, fn, user) : EDGEPROBE_EINVAL;
}
EDGEPROBE__FN int edgeprobe_provider_deactivate_glob(const char *pattern) {
    return edgeprobe__provider_glob(pattern, 0, 0);
}

/* ======================================================================
 * 9. ARGUMENT PROBES: EDGEPROBE_PROBE(name, args...)
 *
 *   EDGEPROBE_PROBE(name);                no arguments
 *   EDGEPROBE_PROBE(name, a, b, ...);     up to 12 integer or pointer args
 *   edgeprobe_attach_args("name*", fn, user);   edgeprobe_detach("name*");
 *
 * The function holds no code for the enabled path. As in a USDT probe, the
 * marker only describes where each argument lives at the site - a
 * register, a memory operand, a constant - as the asm operand text that is
 * also the stapsdt note's argument list ("-4@%edi 8@-24(%rbp) 4@$7"; size
 * in bytes, negative for signed). The compiler merely keeps each value
 * somewhere at the site: a disabled PROBE is the NOP and nothing else.
 *
 * Enabled, the site jumps to a stub the marker emitted in .text.unlikely:
 *
 *   site:     jmp stub                     (off: the NOP5 / NOP8)
 *   resume:   ...
 *
 *             .long argsite - .            the stub's own data (no lookup)
 *   stub:     lea -128(%rsp), %rsp         step over the red zone before
 *             call edgeprobe__args_tramp   anything is pushed or called
 *             lea 128(%rsp), %rsp
 *             jmp resume
 *
 * The trampoline (one per object) saves the 15 general registers other
 * than %rsp and xmm0-15, aligns the stack, and passes the saved registers
 * (with %rsp as it was at the site) to edgeprobe__args_hit. That reads each
 * argument from its location - parsed once, when the object registers its
 * sites, into the `argsite`, a writable block the marker emitted beside the
 * stub (no allocation per site) - and calls the handler:
 *
 *   fn(info, user, args, nargs)           args[i]: 64 bits, sign-extended
 *                                         for signed types, zero-extended
 *                                         for unsigned ones and pointers
 *
 * Arguments are passed as `(x) + 0`: arrays decay to pointers, small types
 * are promoted (same value), and an operand is never a symbol (`var(%rip)`)
 * that a run-time parser could not resolve. Floating-point, struct, union
 * and 128-bit arguments are compile-time errors. Handler dispatch is the
 * lock-free reader protocol of 8.13; edgeprobe_handler_sync covers args
 * handlers too. Upper halves of ymm/zmm registers are not saved: an args
 * handler must not use AVX (compile it without -mavx), as in a signal
 * handler. The trampoline carries no unwind information: a handler may not
 * throw or unwind through it.
 *
 * A site whose spec cannot be parsed is logged and left out (not enabled).
 * Cost: disabled, one NOP; enabled, jmp + the register save/restore + one
 * indirect call (bench/RESULTS.md, "argument probes").
 * ====================================================================== */
#define EDGEPROBE_ARGS_MAX 12
typedef void (*edgeprobe_args_fn)(const edgeprobe_info *probe, void *user, const uint64_t *args, int nargs);
/* Attach fn to every EDGEPROBE_PROBE matching pattern (and switch it on).
 * Returns the number of probes matched; EDGEPROBE_EKIND for an exact name
 * that has no EDGEPROBE_PROBE point (edgeprobe_attach likewise refuses a
 * PROBE name); EDGEPROBE_EINVAL for a NULL fn. Detach with edgeprobe_detach;
 * edgeprobe_handler_sync before freeing what the old handler used. */
int edgeprobe_attach_args(const char *pattern, edgeprobe_args_fn fn, void *user);

/* ---- 9.1 the marker ------------------------------------------------------ */
#define EDGEPROBE__ARGVAL(x) ((x) + 0)
#define EDGEPROBE__ARGBYTES(x) ((int)sizeof(__typeof__(EDGEPROBE__ARGVAL(x))))
#ifdef __cplusplus
extern "C++" {
template <typename T> struct edgeprobe__argsign { enum { value = !((T)-1 > (T)0) }; };
template <typename T> struct edgeprobe__argsign<T *> { enum { value = 0 }; };
/* g++ does not fold __builtin_classify_type of a variable: type traits. */
template <typename T> struct edgeprobe__argfloat { enum { value = 0 }; };
template <typename T> struct edgeprobe__argfloat<const T> : edgeprobe__argfloat<T> {};
template <typename T> struct edgeprobe__argfloat<volatile T> : edgeprobe__argfloat<T> {};
template <> struct edgeprobe__argfloat<float> { enum { value = 1 }; };
template <> struct edgeprobe__argfloat<double> { enum { value = 1 }; };
template <> struct edgeprobe__argfloat<long double> { enum { value = 1 }; };
}
#define EDGEPROBE__ARGOK(x)                                                    \
    (!edgeprobe__argfloat<__typeof__(x)>::value && !__is_class(__typeof__(x)) && !__is_union(__typeof__(x)))
#define EDGEPROBE__ARGSIGNED(x) (edgeprobe__argsign<__typeof__(EDGEPROBE__ARGVAL(x))>::value)
#define EDGEPROBE__ASSERT(cond, msg) static_assert(cond, msg)
#else
#define EDGEPROBE__ARGINT(x)                                                   \
    __typeof__(__builtin_choose_expr(__builtin_classify_type(EDGEPROBE__ARGVAL(x)) == 5, 0UL, \
                                     EDGEPROBE__ARGVAL(x)))
#define EDGEPROBE__ARGSIGNED(x) (!((EDGEPROBE__ARGINT(x))-1 > (EDGEPROBE__ARGINT(x))0))
#define EDGEPROBE__ASSERT(cond, msg) __extension__ _Static_assert(cond, msg)
/* __builtin_classify_type: 1 integer, 2 char, 3 enum, 4 bool, 5 pointer,
 * 6 reference, 14 array; 8 real, 9 complex, 12 struct, 13 union refused. */
#define EDGEPROBE__ARGOK(x)                                                    \
    ((__builtin_classify_type(x) >= 1 && __builtin_classify_type(x) <= 6) || __builtin_classify_type(x) == 14)
#endif
#define EDGEPROBE__ARGCHECK(x)                                                 \
    EDGEPROBE__ASSERT(EDGEPROBE__ARGOK(x),                                     \
                      "EDGEPROBE_PROBE arguments must be integers or pointers "\
                      "(not floating point, struct or union): " #x);           \
    EDGEPROBE__ASSERT(EDGEPROBE__ARGBYTES(x) <= 8,                                                    \
                      "EDGEPROBE_PROBE arguments must be at most 64 bits wide: " #x);
#define EDGEPROBE__ARGSIZE(x)                                                  \
    (EDGEPROBE__ARGSIGNED(x) ? -EDGEPROBE__ARGBYTES(x) : EDGEPROBE__ARGBYTES(x))
#define EDGEPROBE__ARGOPS(i, x)                                                \
    , [edgeprobe__s##i] "n"(EDGEPROBE__ARGSIZE(x)), [edgeprobe__a##i] "nor"(EDGEPROBE__ARGVAL(x))
#define EDGEPROBE__SPEC1(i) "%c[edgeprobe__s" #i "]@%[edgeprobe__a" #i "]"

/* The System V x86-64 red zone. Tests build a mutant with a smaller step,
 * which the red-zone test must catch. */
#ifndef EDGEPROBE__RED_ZONE
#define EDGEPROBE__RED_ZONE 128
#endif
/* Site, note, argsite (data), stub (cold text), record. Operands: %c0 the
 * point, %c1 the record flags, %c2 the argument count. */
#define EDGEPROBE__PROBE_ASM(pname, spec)                                      \
    EDGEPROBE__NOP_ASM                                                         \
    EDGEPROBE__USDT_ASM(pname, spec)                                           \
    ".pushsection .data,\"aw\",@progbits\n"                                    \
    ".balign 8\n"                                                              \
    "3: .long %c0 - ., %c2, 0, 0\n"                                            \
    ".fill 2 * %c2, 8, 0\n"                                                     \
    ".asciz \"" spec "\"\n"                                                    \
    ".popsection\n"                                                            \
    ".pushsection .text.unlikely,\"ax\",@progbits\n"                           \
    ".balign 4\n.long 3b - .\n"                                               \
    "2: lea -" EDGEPROBE__STR(EDGEPROBE__RED_ZONE) "(%%rsp), %%rsp\n"          \
    "call edgeprobe__args_tramp\n"                                             \
    "lea " EDGEPROBE__STR(EDGEPROBE__RED_ZONE) "(%%rsp), %%rsp\n"              \
    "jmp 1b + " EDGEPROBE__STR(EDGEPROBE_SITE_BYTES) "\n"                      \
    ".popsection\n"                                                            \
    ".pushsection edgeprobe_sites,\"aR\",@progbits\n"                          \
    ".balign 4\n"                                                              \
    ".long 1b - ., 2b - ., %c0 - ., %c1\n"                                     \
    ".popsection\n"

#ifdef EDGEPROBE_DISABLE_ALL
#define EDGEPROBE__PROBE_IMPL(pname, n, spec, checks, ops) do { checks } while (0)
#else
#define EDGEPROBE__PROBE_IMPL(pname, n, spec, checks, ops)                     \
    do {                                                                       \
        EDGEPROBE__POINT_DEF(edgeprobe__pt, pname, EDGEPROBE_KIND_PROBE);      \
        checks                                                                 \
        __asm__ __volatile__(EDGEPROBE__PROBE_ASM(pname, spec)                 \
                             : : "i"(&edgeprobe__pt), "i"(EDGEPROBE__F_ARGS | EDGEPROBE__F_FORM), \
                               "i"(n) ops);                                    \
    } while (0)
#endif

/* EDGEPROBE_PROBE(name, a0, ..., a11): count the arguments, then one
 * expansion per count. */
#define EDGEPROBE__CAT2(a, b) a##b
#define EDGEPROBE__CAT(a, b) EDGEPROBE__CAT2(a, b)
#define EDGEPROBE__NARGS(...) EDGEPROBE__NARGS_(__VA_ARGS__, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, _)
#define EDGEPROBE__NARGS_(n, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, N, ...) N
#define EDGEPROBE_PROBE(...) EDGEPROBE__CAT(EDGEPROBE__PROBE_, EDGEPROBE__NARGS(__VA_ARGS__))(__VA_ARGS__)

#define EDGEPROBE__SPEC_0 ""
#define EDGEPROBE__SPEC_1 EDGEPROBE__SPEC1(0)
#define EDGEPROBE__SPEC_2 EDGEPROBE__SPEC_1 " " EDGEPROBE__SPEC1(1)
#define EDGEPROBE__SPEC_3 EDGEPROBE__SPEC_2 " " EDGEPROBE__SPEC1(2)
#define EDGEPROBE__SPEC_4 EDGEPROBE__SPEC_3 " " EDGEPROBE__SPEC1(3)
#define EDGEPROBE__SPEC_5 EDGEPROBE__SPEC_4 " " EDGEPROBE__SPEC1(4)
#define EDGEPROBE__SPEC_6 EDGEPROBE__SPEC_5 " " EDGEPROBE__SPEC1(5)
#define EDGEPROBE__SPEC_7 EDGEPROBE__SPEC_6 " " EDGEPROBE__SPEC1(6)
#define EDGEPROBE__SPEC_8 EDGEPROBE__SPEC_7 " " EDGEPROBE__SPEC1(7)
#define EDGEPROBE__SPEC_9 EDGEPROBE__SPEC_8 " " EDGEPROBE__SPEC1(8)
#define EDGEPROBE__SPEC_10 EDGEPROBE__SPEC_9 " " EDGEPROBE__SPEC1(9)
#define EDGEPROBE__SPEC_11 EDGEPROBE__SPEC_10 " " EDGEPROBE__SPEC1(10)
#define EDGEPROBE__SPEC_12 EDGEPROBE__SPEC_11 " " EDGEPROBE__SPEC1(11)
/* Per-argument checks (C) and operands (O), accumulated left to right. */
#define EDGEPROBE__C1(a) EDGEPROBE__ARGCHECK(a)
#define EDGEPROBE__O1(a) EDGEPROBE__ARGOPS(0, a)
#define EDGEPROBE__C2(a, b) EDGEPROBE__C1(a) EDGEPROBE__ARGCHECK(b)
#define EDGEPROBE__O2(a, b) EDGEPROBE__O1(a) EDGEPROBE__ARGOPS(1, b)
#define EDGEPROBE__C3(a, b, c) EDGEPROBE__C2(a, b) EDGEPROBE__ARGCHECK(c)
#define EDGEPROBE__O3(a, b, c) EDGEPROBE__O2(a, b) EDGEPROBE__ARGOPS(2, c)
#define EDGEPROBE__C4(a, b, c, d) EDGEPROBE__C3(a, b, c) EDGEPROBE__ARGCHECK(d)
#define EDGEPROBE__O4(a, b, c, d) EDGEPROBE__O3(a, b, c) EDGEPROBE__ARGOPS(3, d)
#define EDGEPROBE__C5(a, b, c, d, e) EDGEPROBE__C4(a, b, c, d) EDGEPROBE__ARGCHECK(e)
#define EDGEPROBE__O5(a, b, c, d, e) EDGEPROBE__O4(a, b, c, d) EDGEPROBE__ARGOPS(4, e)
#define EDGEPROBE__C6(a, b, c, d, e, f) EDGEPROBE__C5(a, b, c, d, e) EDGEPROBE__ARGCHECK(f)
#define EDGEPROBE__O6(a, b, c, d, e, f) EDGEPROBE__O5(a, b, c, d, e) EDGEPROBE__ARGOPS(5, f)
#define EDGEPROBE__C7(a, b, c, d, e, f, g) EDGEPROBE__C6(a, b, c, d, e, f) EDGEPROBE__ARGCHECK(g)
#define EDGEPROBE__O7(a, b, c, d, e, f, g) EDGEPROBE__O6(a, b, c, d, e, f) EDGEPROBE__ARGOPS(6, g)
#define EDGEPROBE__C8(a, b, c, d, e, f, g, h) EDGEPROBE__C7(a, b, c, d, e, f, g) EDGEPROBE__ARGCHECK(h)
#define EDGEPROBE__O8(a, b, c, d, e, f, g, h) EDGEPROBE__O7(a, b, c, d, e, f, g) EDGEPROBE__ARGOPS(7, h)
#define EDGEPROBE__C9(a, b, c, d, e, f, g, h, i) EDGEPROBE__C8(a, b, c, d, e, f, g, h) EDGEPROBE__ARGCHECK(i)
#define EDGEPROBE__O9(a, b, c, d, e, f, g, h, i) EDGEPROBE__O8(a, b, c, d, e, f, g, h) EDGEPROBE__ARGOPS(8, i)
#define EDGEPROBE__C10(a, b, c, d, e, f, g, h, i, j) EDGEPROBE__C9(a, b, c, d, e, f, g, h, i) EDGEPROBE__ARGCHECK(j)
#define EDGEPROBE__O10(a, b, c, d, e, f, g, h, i, j) EDGEPROBE__O9(a, b, c, d, e, f, g, h, i) EDGEPROBE__ARGOPS(9, j)
#define EDGEPROBE__C11(a, b, c, d, e, f, g, h, i, j, k)                        \
    EDGEPROBE__C10(a, b, c, d, e, f, g, h, i, j) EDGEPROBE__ARGCHECK(k)
#define EDGEPROBE__O11(a, b, c, d, e, f, g, h, i, j, k)                        \
    EDGEPROBE__O10(a, b, c, d, e, f, g, h, i, j) EDGEPROBE__ARGOPS(10, k)
#define EDGEPROBE__C12(a, b, c, d, e, f, g, h, i, j, k, l)                     \
    EDGEPROBE__C11(a, b, c, d, e, f, g, h, i, j, k) EDGEPROBE__ARGCHECK(l)
#define EDGEPROBE__O12(a, b, c, d, e, f, g, h, i, j, k, l)                     \
    EDGEPROBE__O11(a, b, c, d, e, f, g, h, i, j, k) EDGEPROBE__ARGOPS(11, l)
#define EDGEPROBE__PROBE_0(pname) EDGEPROBE__PROBE_IMPL(pname, 0, EDGEPROBE__SPEC_0, , )
#define EDGEPROBE__PROBE_N(n, pname, ...)                                      \
    EDGEPROBE__PROBE_IMPL(pname, n, EDGEPROBE__SPEC_##n, EDGEPROBE__C##n(__VA_ARGS__), \
                          EDGEPROBE__O##n(__VA_ARGS__))
#define EDGEPROBE__PROBE_1(pname, ...) EDGEPROBE__PROBE_N(1, pname, __VA_ARGS__)
#define EDGEPROBE__PROBE_2(pname, ...) EDGEPROBE__PROBE_N(2, pname, __VA_ARGS__)
#define EDGEPROBE__PROBE_3(pname, ...) EDGEPROBE__PROBE_N(3, pname, __VA_ARGS__)
#define EDGEPROBE__PROBE_4(pname, ...) EDGEPROBE__PROBE_N(4, pname, __VA_ARGS__)
#define EDGEPROBE__PROBE_5(pname, ...) EDGEPROBE__PROBE_N(5, pname, __VA_ARGS__)
#define EDGEPROBE__PROBE_6(pname, ...) EDGEPROBE__PROBE_N(6, pname, __VA_ARGS__)
#define EDGEPROBE__PROBE_7(pname, ...) EDGEPROBE__PROBE_N(7, pname, __VA_ARGS__)
#define EDGEPROBE__PROBE_8(pname, ...) EDGEPROBE__PROBE_N(8, pname, __VA_ARGS__)
#define EDGEPROBE__PROBE_9(pname, ...) EDGEPROBE__PROBE_N(9, pname, __VA_ARGS__)
#define EDGEPROBE__PROBE_10(pname, ...) EDGEPROBE__PROBE_N(10, pname, __VA_ARGS__)
#define EDGEPROBE__PROBE_11(pname, ...) EDGEPROBE__PROBE_N(11, pname, __VA_ARGS__)
#define EDGEPROBE__PROBE_12(pname, ...) EDGEPROBE__PROBE_N(12, pname, __VA_ARGS__)

/* ---- 9.2 the trampoline (x86-64; one per object, COMDAT) -------------------
 * Entered from a stub with %rsp = site %rsp - 128 - 8. Frame it builds:
 *     regs[16] (by x86 register number: rax rcx rdx rbx rsp rbp rsi rdi
 *     r8..r15; the rsp slot holds the site's %rsp), return address
 * rflags are not kept: gcc and clang treat every x86 asm statement as
 * clobbering the flags, so no compiled code relies on them across a site,
 * and popfq alone cost a third of the enabled path here. DF is clear, as
 * the ABI requires at every call and asm boundary. xmm0-15 are saved
 * because the handler is ordinary C that may use them; they go in a
 * 16-byte-aligned area below the frame. %rbx (callee-saved) keeps the
 * frame across the C call. */
#define EDGEPROBE__XMM_LOAD(n) "movdqa " #n "*16(%rsp), %xmm" #n "\n"
#define EDGEPROBE__XMM_ALL(m)                                                  \
    m(0) m(1) m(2) m(3) m(4) m(5) m(6) m(7) m(8) m(9) m(10) m(11) m(12) m(13) m(14) m(15)
#define EDGEPROBE__XMM_SAVE(n) "movdqa %xmm" #n ", " #n "*16(%rsp)\n"
/* Site %rsp, seen from the pushed registers: 16 regs + return + red zone */
#define EDGEPROBE__ARGS_FRAME (136 + EDGEPROBE__RED_ZONE)
__asm__(".pushsection .text.edgeprobe__args_tramp,\"axG\",@progbits,edgeprobe__args_tramp,comdat\n"
        ".weak edgeprobe__args_tramp\n"
        ".hidden edgeprobe__args_tramp\n"
        ".type edgeprobe__args_tramp, @function\n"
        "edgeprobe__args_tramp:\n"
        "push %r15\npush %r14\npush %r13\npush %r12\npush %r11\npush %r10\npush %r9\npush %r8\n"
        "push %rdi\npush %rsi\npush %rbp\n"
        "lea -8(%rsp), %rsp\n"
        "push %rbx\npush %rdx\npush %rcx\npush %rax\n"
        "lea " EDGEPROBE__STR(EDGEPROBE__ARGS_FRAME) "(%rsp), %rax\n"
        "mov %rax, 32(%rsp)\n"
        "mov %rsp, %rbx\n"
        "and $-16, %rsp\n"
        "sub $256, %rsp\n"
        EDGEPROBE__XMM_ALL(EDGEPROBE__XMM_SAVE)
        "mov %rbx, %rdi\n"
        "mov 128(%rbx), %rsi\n"
        "call edgeprobe__args_hit\n"
        EDGEPROBE__XMM_ALL(EDGEPROBE__XMM_LOAD)
        "mov %rbx, %rsp\n"
        "pop %rax\npop %rcx\npop %rdx\npop %rbx\n"
        "lea 8(%rsp), %rsp\n"
        "pop %rbp\npop %rsi\npop %rdi\n"
        "pop %r8\npop %r9\npop %r10\npop %r11\npop %r12\npop %r13\npop %r14\npop %r15\n"
        "ret\n"
        ".size edgeprobe__args_tramp, . - edgeprobe__args_tramp\n"
        ".popsection\n");

/* ---- 9.3 argument locations ------------------------------------------------
 * The argsite the marker emitted (16-byte header, nargs locations, spec):
 *     .long point - ., nargs, status, 0     status: 0 new, 1 parsed, <0 error
 *     .fill 2 * nargs, 8, 0                 edgeprobe__argloc, filled at
 *     .asciz "spec"                         registration from the spec */
enum { EDGEPROBE__LOC_CONST = 1, EDGEPROBE__LOC_REG, EDGEPROBE__LOC_REG_HIGH8, EDGEPROBE__LOC_MEM };
#define EDGEPROBE__NOREG 0xff
#define EDGEPROBE__REG_SP 4
typedef struct edgeprobe__argloc {
    signed char size;            /* bytes; negative: signed                 */
    unsigned char kind, base, index, scale, pad[3];
    int64_t value;               /* the constant, or the displacement      */
} edgeprobe__argloc;
typedef struct edgeprobe__argsite {
    int32_t point;
    uint32_t nargs;
    int32_t status;
    uint32_t pad;
} edgeprobe__argsite;
/* Distance from the return address of the stub's call back to its data. */
#define EDGEPROBE__STUB_DATA_BACK 14 /* .long (4) + lea (5) + call (5) */

EDGEPROBE__INLINE edgeprobe__argloc *edgeprobe__argsite_locs(edgeprobe__argsite *as) {
    return (edgeprobe__argloc *)(void *)(as + 1);
}
EDGEPROBE__INLINE const char *edgeprobe__argsite_spec(edgeprobe__argsite *as) {
    return (const char *)(edgeprobe__argsite_locs(as) + as->nargs);
}

/* Register name (after '%') -> number 0..15 and width; *high for ah..bh. */
EDGEPROBE__FN int edgeprobe__reg_number(const char **s, int *high);
EDGEPROBE__FN int edgeprobe__reg_number(const char **s, int *high) {
    static const char names[] = /* 8 legacy registers in x86 order, per width */
        "rax rcx rdx rbx rsp rbp rsi rdi "
        "eax ecx edx ebx esp ebp esi edi "
        "ax  cx  dx  bx  sp  bp  si  di  "
        "al  cl  dl  bl  spl bpl sil dil "
        "ah  ch  dh  bh  ";
    const char *p = *s;
    size_t n = 0;
    int i;
    while ((p[n] >= 'a' && p[n] <= 'z') || (p[n] >= '0' && p[n] <= '9')) n++;
    *high = 0;
    if (n >= 2 && n <= 4 && p[0] == 'r' && p[1] >= '0' && p[1] <= '9') { /* r8..r15 [dwb] */
        int num = p[1] - '0', len = 2;
        if (n >= 3 && p[2] >= '0' && p[2] <= '9') num = num * 10 + (p[2] - '0'), len = 3;
        if (num < 8 || num > 15 || (n > (size_t)len + 1) ||
            (n == (size_t)len + 1 && p[len] != 'd' && p[len] != 'w' && p[len] != 'b'))
            return -1;
        *s = p + n;
        return num;
    }
    for (i = 0; i < 36; i++) {
        const char *q = names + 4 * i;
        size_t k = 0;
        while (k < 3 && q[k] != ' ') k++;
        if (k == n && __builtin_memcmp(q, p, n) == 0) {
            *s = p + n;
            *high = i >= 32;
            return i % 8;
        }
    }
    return -1;
}
/* A decimal or 0x-hex integer, optionally negative. */
EDGEPROBE__FN int edgeprobe__parse_int(const char **s, int64_t *out);
EDGEPROBE__FN int edgeprobe__parse_int(const char **s, int64_t *out) {
    const char *p = *s;
    int neg = *p == '-', base = 10, digits = 0;
    uint64_t v = 0;
    if (neg) p++;
    if (p[0] == '0' && p[1] == 'x') base = 16, p += 2;
    for (;; p++, digits++) {
        int d = *p >= '0' && *p <= '9' ? *p - '0'
              : base == 16 && *p >= 'a' && *p <= 'f' ? *p - 'a' + 10 : -1;
        if (d < 0) break;
        v = v * (uint64_t)base + (uint64_t)d;
    }
    if (!digits) return -1;
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    *s = p;
    return 0;
}
/* One operand: %reg, $imm, or [disp](%base[,%index[,scale]]). */
EDGEPROBE__FN int edgeprobe__parse_operand(const char **s, edgeprobe__argloc *loc);
EDGEPROBE__FN int edgeprobe__parse_operand(const char **s, edgeprobe__argloc *loc) {
    const char *p = *s;
    int high, reg;
    loc->base = loc->index = EDGEPROBE__NOREG;
    loc->scale = 1;
    loc->value = 0;
    if (*p == '$') {
        p++;
        loc->kind = EDGEPROBE__LOC_CONST;
        if (edgeprobe__parse_int(&p, &loc->value)) return -1;
    } else if (*p == '%') {
        p++;
        if ((reg = edgeprobe__reg_number(&p, &high)) < 0) return -1;
        loc->kind = (unsigned char)(high ? EDGEPROBE__LOC_REG_HIGH8 : EDGEPROBE__LOC_REG);
        loc->base = (unsigned char)reg;
    } else {
        loc->kind = EDGEPROBE__LOC_MEM;
        if (*p != '(' && edgeprobe__parse_int(&p, &loc->value)) return -1; /* a symbol: refused */
        if (*p++ != '(') return -1;
        if (*p == '%') {
            p++;
            if ((reg = edgeprobe__reg_number(&p, &high)) < 0 || high) return -1;
            loc->base = (unsigned char)reg;
        }
        if (*p == ',') {
            int64_t scale = 1;
            p++;
            if (*p++ != '%' || (reg = edgeprobe__reg_number(&p, &high)) < 0 || high) return -1;
            loc->index = (unsigned char)reg;
            if (*p == ',') {
                p++;
                if (edgeprobe__parse_int(&p, &scale) || (scale != 1 && scale != 2 && scale != 4 && scale != 8))
                    return -1;
            }
            loc->scale = (unsigned char)scale;
        }
        if (*p++ != ')') return -1;
    }
    *s = p;
    return 0;
}
/* Parse "size@operand size@operand ..." into the argsite's locations. */
EDGEPROBE__FN int edgeprobe__argsite_parse(edgeprobe__argsite *as);
EDGEPROBE__FN int edgeprobe__argsite_parse(edgeprobe__argsite *as) {
    const char *p = edgeprobe__argsite_spec(as);
    edgeprobe__argloc *loc = edgeprobe__argsite_locs(as);
    unsigned i;
    if (as->nargs > EDGEPROBE_ARGS_MAX) return EDGEPROBE_EINVAL;
    for (i = 0; i < as->nargs; i++) {
        int64_t size;
        while (*p == ' ') p++;
        if (edgeprobe__parse_int(&p, &size) || *p++ != '@' ||
            !(size == 1 || size == 2 || size == 4 || size == 8 || size == -1 || size == -2 || size == -4 ||
              size == -8) ||
            edgeprobe__parse_operand(&p, &loc[i]))
            return EDGEPROBE_EINVAL;
        loc[i].size = (signed char)size;
    }
    while (*p == ' ') p++;
    return *p ? EDGEPROBE_EINVAL : 0;
}
/* Registration hook (8.8): parse a PROBE site's spec once. Lock held. */
EDGEPROBE__FN int edgeprobe__args_prepare(edgeprobe__root *r, const edgeprobe__record *rec) {
    const unsigned char *stub = (const unsigned char *)edgeprobe__rel(&rec->target);
    edgeprobe__argsite *as = (edgeprobe__argsite *)edgeprobe__rel((const int32_t *)(stub - 4));
    if (as->status == 0) as->status = edgeprobe__argsite_parse(as) ? EDGEPROBE_EINVAL : 1;
    if (as->status < 0) {
        char buf[256];
        edgeprobe__text t = {buf, sizeof buf, 0};
        edgeprobe__puts(&t, "EDGEPROBE_PROBE: cannot read argument spec \"");
        edgeprobe__puts(&t, edgeprobe__argsite_spec(as));
        edgeprobe__puts(&t, "\"; site left out");
        edgeprobe__log(r, buf);
        return EDGEPROBE_EINVAL;
    }
    return 0;
}

/* One argument's value from the saved registers and the stack. */
EDGEPROBE__INLINE uint64_t edgeprobe__arg_read(const edgeprobe__argloc *loc, const uint64_t *regs) {
    unsigned bytes = (unsigned)(loc->size < 0 ? -loc->size : loc->size), shift = 64 - 8 * bytes;
    uint64_t v = 0;
    switch (loc->kind) {
    case EDGEPROBE__LOC_CONST: v = (uint64_t)loc->value; break;
    case EDGEPROBE__LOC_REG: v = regs[loc->base]; break;
    case EDGEPROBE__LOC_REG_HIGH8: v = regs[loc->base] >> 8; break;
    default: {
        uintptr_t a = (uintptr_t)loc->value;
        if (loc->base != EDGEPROBE__NOREG) a += regs[loc->base];
        if (loc->index != EDGEPROBE__NOREG) a += regs[loc->index] * loc->scale;
        __builtin_memcpy(&v, (const void *)a, bytes);
    }
    }
    if (bytes == 8) return v;
    v <<= shift; /* keep the low `bytes`, then extend by the type's sign */
    return loc->size < 0 ? (uint64_t)((int64_t)v >> shift) : v >> shift;
}
/* Called by the trampoline. `ret` is the stub's return address. */
EDGEPROBE__FN __attribute__((used)) void edgeprobe__args_hit(const uint64_t *regs, const unsigned char *ret);
EDGEPROBE__FN __attribute__((used)) void edgeprobe__args_hit(const uint64_t *regs, const unsigned char *ret) {
    edgeprobe__argsite *as = (edgeprobe__argsite *)edgeprobe__rel((const int32_t *)(ret - EDGEPROBE__STUB_DATA_BACK));
    edgeprobe__point *pt = (edgeprobe__point *)edgeprobe__rel(&as->point);
    edgeprobe__root *r = __atomic_load_n(&edgeprobe__this_object.root, __ATOMIC_RELAXED);
    struct edgeprobe__binding_full *b;
    edgeprobe__ticket t;
    if (!r) return;
    t = edgeprobe__reader_enter(r);
    b = (struct edgeprobe__binding_full *)__atomic_load_n(&pt->binding, __ATOMIC_ACQUIRE);
    if (b) {
        uint64_t args[EDGEPROBE_ARGS_MAX];
        const edgeprobe__argloc *loc = edgeprobe__argsite_locs(as);
        int i, n = (int)as->nargs;
        for (i = 0; i < n; i++) args[i] = edgeprobe__arg_read(&loc[i], regs);
        ((edgeprobe_args_fn)(void (*)(void))b->b.fn)(&b->info, b->b.user, args, n);
    }
    edgeprobe__reader_leave(t);
}
EDGEPROBE__FN int edgeprobe_attach_args(const char *pattern, edgeprobe_args_fn fn, void *user) {
    if (!fn) return EDGEPROBE_EINVAL;
    return edgeprobe__attach_matching(pattern, EDGEPROBE_KIND_PROBE, (edgeprobe_handler_fn)(void (*)(void))fn, user);
}

#ifdef __cplusplus
}
#endif
#endif /* EDGEPROBE_H */
