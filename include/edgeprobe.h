/* edgeprobe.h - static probes you switch on and off while threads run them.
 * version 0.2.0 - SPDX-License-Identifier: MIT - Linux on x86-64 and aarch64,
 * gcc and clang
 *
 * A probe costs one NOP while off. Turning it on rewrites that NOP into a
 * jump, in place, from any thread, while other threads execute it: no
 * stop-the-world step, no ptrace, no kernel help.
 *
 * QUICK START (one minute)
 *
 *     #define EDGEPROBE_IMPLEMENTATION    // in ONE file of each executable
 *     #include "edgeprobe.h"              // or shared library; nothing to link
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
 * Every other file just includes the header: it compiles in about the time
 * of an empty file and its object holds its sites and nothing else. The
 * implementation is compiled once, in the file that defines
 * EDGEPROBE_IMPLEMENTATION (stb's rule: one such file per executable or
 * shared library). Forget it, and the link fails naming the symbol
 * edgeprobe_define_EDGEPROBE_IMPLEMENTATION_in_one_file_of_each_executable_
 * and_shared_library; define it twice in one object, and the link fails
 * with that symbol defined twice. No registration call, no linker flag:
 * every object finds its own probes, and all objects share one
 * process-wide registry.
 *
 * CONTENTS (search for the tag to jump to a section)
 *   PART I. USING IT
 *     1. configuration macros and environment               >>config
 *     2. errors                                             >>errors
 *     3. markers: EDGEPROBE_TRACE, _BRANCH, _HANDLER        >>markers
 *     4. probes by name, handle and count; listing          >>probes
 *     5. handlers and discovery                             >>handlers
 *     6. function probes: patchable entries, the
 *        -finstrument-functions provider                    >>functions
 *     7. argument probes: EDGEPROBE_PROBE                   >>args
 *        7.1 recording: per-thread rings, a trace file      >>record
 *     8. control endpoint (hosted): operate from a shell    >>control
 *     9. low-level patching of any instruction (x86-64)     >>patch
 *    (deprecated names, kept for one release               >>renamed)
 *   PART II. HOW IT IS BUILT
 *    10. how it works: byte layouts, the root               >>how
 *    11. what every file compiles                           >>sites
 *        11.1 architecture back ends (x86-64, aarch64)      >>arch
 *        11.2 the C library under private names             >>libc
 *        11.3 the registry's types                          >>types
 *        11.4 hit counts, the enabled paths' side           >>count
 *        11.5 handler dispatch, the enabled path            >>dispatch
 *        11.6 argument probes: the marker                   >>args-site
 *        11.7 TRACE as an argument probe: the marker        >>trace-site
 *        11.8 recording: a thread's ring                    >>ring-layout
 *     The implementation (EDGEPROBE_IMPLEMENTATION only)    >>impl
 *    12. x86-64 instruction lengths                         >>insn
 *    13. OS hooks (hosted, or supplied: freestanding)       >>os
 *    14. the root: process-wide state                       >>root
 *    15. small helpers                                      >>helpers
 *        15.1 glob patterns                                 >>glob
 *    16. finding the one root                               >>find-root
 *    17. writing code                                       >>write
 *    18. marker sites                                       >>marker-sites
 *    19. the registry                                       >>registry
 *    20. probes by name and handle                          >>probe-api
 *    21. straddling patches in flight, SIGTRAP              >>flight
 *    22. word patch: sync, async, batch                     >>word-patch
 *    23. call patch                                         >>call-patch
 *    24. per-point hit counts                               >>hits
 *    25. handlers: binding, sync                            >>bind
 *    26. the -finstrument-functions provider                >>provider
 *    27. function probes                                    >>fprobe
 *        27.1 the trampolines                               >>ftramp
 *        27.2 the per-thread shadow stack                   >>fshadow
 *        27.3 finding the entries: ELF                      >>felf
 *        27.4 stubs and mirror pages                        >>fstub
 *        27.5 switching one function                        >>fswitch
 *        27.6 the set of objects                            >>fobjects
 *        27.7 the function-probe API                        >>fapi
 *    28. the control endpoint                               >>control-impl
 *    29. argument probes                                    >>args-impl
 *        29.1 the argsite                                   >>argsite
 *        29.2 the trampoline                                >>args-tramp
 *        29.3 argument locations                            >>args-locate
 *        29.4 TRACE lines from an argument site             >>trace-format
 *    30. recording: per-thread rings, the recorder          >>ring
 *
 * ARCHITECTURES. x86-64 and (little-endian) aarch64 share everything but a
 * small back end (section 11.1: marker bytes, site forms, the code store and
 * its cache maintenance, time source, pause, thread identity). On aarch64 a
 * site is one 4-byte NOP <-> `b label`, switched by one compare-and-swap of
 * the aligned word plus __builtin___clear_cache. x86-64 ONLY: the low-level
 * patch API (section 9: edgeprobe_patch of any instruction, straddlers and
 * their SIGTRAP emulation, the call patch, Tmax and serialising mode), the
 * -finstrument-functions provider, function probes (section 6) and argument
 * probes (section 7). On aarch64 a call to any of them fails to compile with
 * a message saying so.
 *
 * COST AND THREAD SAFETY, in one table. Every function may be called from any
 * thread at any time, concurrently with threads executing the sites, unless
 * its comment says otherwise. "slow" marks table walks, syscalls or waits.
 * Ticks are TSC ticks per hit, medians from bench/ (bench/RESULTS.md).
 *
 *   including the header          a file without EDGEPROBE_IMPLEMENTATION
 *                                 compiles in about the time of an empty one;
 *                                 its object holds its sites, their records
 *                                 and notes, and 4 bytes (section 11)
 *   disabled probe                one NOP (5 or 8 bytes; aarch64: 4) plus, for
 *                                 a NOP5, 0-4 bytes of padding before it; no
 *                                 data access
 *   enabled TRACE/BRANCH          one jmp to out-of-line code the compiler
 *                                 wrote, plus a hit count: a call to a cold
 *                                 function that adds 1 to a counter striped by
 *                                 CPU - an unlocked add where the kernel
 *                                 publishes the CPU through rseq (x86-64,
 *                                 glibc 2.35+), a locked add elsewhere
 *                                 (aarch64, freestanding, older libc).
 *                                 EDGEPROBE_HIT_COUNTS=0: no count
 *   enabled HANDLER               jmp + call + indirect call, ~2.4-2.6x a
 *                                 direct call (1.5-2x with
 *                                 EDGEPROBE_HANDLER_INLINE); no locked
 *                                 instruction but the hit count's (above)
 *   enabled PROBE                 jmp + stub + register save + indirect call:
 *                                 ~7-11x a direct call (USDT trap: ~3000x)
 *   disabled TRACE (x86-64, C)    the NOP only: no code for the enabled path
 *                                 in the function (section 7)
 *   enabled TRACE (x86-64, C)     PROBE's path + one vsnprintf + the sink:
 *                                 ~1.3x calling the sink directly
 *   start-up, per probe           registration in the object's constructor,
 *                                 ~140 ns; the loader relocates nothing for
 *                                 probes and no page of the program is
 *                                 written until a probe is switched on
 *   edgeprobe_probe_on/off        lock + one compare-and-swap per site
 *   edgeprobe_enable/disable      slow: hash lookup, or a walk of all names for a glob
 *   edgeprobe_patch (straddler)   slow: a read of every thread's blocked signals
 *                                 (/proc), then two membarriers (default) or
 *                                 two waits of Tmax ticks (EDGEPROBE_SYNC=tmax)
 *   strict W^X (any toggle)       slow: two mprotect calls
 *   edgeprobe_control_start       slow: a socket and a thread (section 8)
 *   edgeprobe_call_on/off         lock + one compare-and-swap, never waits
 *   edgeprobe_provider_attach_id  lock + one compare-and-swap, never waits
 *   enabled function probe        entry: call stub + register save + handler
 *                                 call, ~11 ticks over the plain call; with
 *                                 exit ~45 (section 6)
 *   edgeprobe_func_on/off(id)     lock + loader lock + one compare-and-swap
 *
 * Not async-signal-safe: do not toggle probes from a signal handler (a lock
 * is taken). Executing probes from signal handlers is fine (nothing on an
 * enabled path allocates or locks), but for a -finstrument-functions
 * provider site's first hit (README, "Reliability").
 */
#ifndef EDGEPROBE_H
#define EDGEPROBE_H

#if !defined(__x86_64__) && !(defined(__aarch64__) && !defined(__AARCH64EB__))
#error "edgeprobe supports x86-64 and little-endian aarch64 only"
#endif

#include <stddef.h>
#include <stdint.h>

/* ======================================================================
 * PART I. USING IT
 * ====================================================================== */

/* ======================================================================
 * 1. CONFIGURATION: macros and environment                    >>config
 *
 * Per file (may differ between files; each site records its form):
 *   EDGEPROBE_IMPLEMENTATION  define in ONE file of each executable or shared
 *                          library, before the include: that file compiles
 *                          the implementation (Part II after section 11).
 *                          The macros marked [impl] below matter only there.
 *   EDGEPROBE_SITE_BYTES   x86-64: 5 (default): NOP5 after at most 4 bytes of
 *                          padding; 8: an 8-byte NOP filling one aligned word.
 *                          aarch64 ignores it: a site is one 4-byte NOP.
 *   EDGEPROBE_SINK(...)    where EDGEPROBE_TRACE prints; printf-style.
 *                          Default: edgeprobe_printf, which writes to stderr.
 *                          With the argument form of TRACE (below) the sink
 *                          is called as EDGEPROBE_SINK("%s", line), from a
 *                          function this header defines: a sink function
 *                          must be declared before the header is included.
 *   EDGEPROBE_TRACE_ARGS   1 (default where it exists: x86-64, hosted, C):
 *                          EDGEPROBE_TRACE is an argument probe (section 7):
 *                          no C code for the enabled path in the function,
 *                          arguments always evaluated, formatted from their
 *                          recorded locations when the probe is on. 0: every
 *                          TRACE is EDGEPROBE_TRACE_LAZY (arguments evaluated
 *                          only while on; the compiler's enabled path stays
 *                          in the function). C++, aarch64 and freestanding
 *                          builds always use the lazy form.
 *   EDGEPROBE_DISABLE_ALL  compile every marker to nothing (no site at all).
 *   EDGEPROBE_HIT_COUNTS   1 (default): enabled TRACE, BRANCH and HANDLER
 *                          sites count their hits (section 24); 0: not.
 *   EDGEPROBE_HANDLER_INLINE  1: EDGEPROBE_HANDLER's enabled path holds the
 *                          dispatch itself (1.5x a direct call instead of
 *                          2.4x, at the price of a larger function; section 11.5).
 *   EDGEPROBE_USDT_PROVIDER  provider of the stapsdt notes (a bare token;
 *                          default edgeprobe).
 *   EDGEPROBE_PROVIDER     [impl] the implementation file also defines
 *                          __cyg_profile_func_enter/exit (section 6.2).
 *   EDGEPROBE_FUNC_CTOR_CONVERT  [impl] 1 (default): in a non-PIE executable
 *                          built by gcc with -fpatchable-function-entry=5,
 *                          the constructor rewrites each entry's five 1-byte
 *                          NOPs as one NOP5 (section 6); 0: leave them (tests).
 *   EDGEPROBE_FUNC_UNWIND_TABLE  [impl] 1: give each object's stub mapping's
 *                          unwind table to libgcc's __register_frame, so that
 *                          a backtrace from a signal that lands in a stub or
 *                          in the head that counts calls goes on into the
 *                          function (27.4). 0 (default): it stops there.
 *                          Not with libgcc before gcc 13 where any thread
 *                          unwinds in a signal handler: one registered table
 *                          makes every unwind take libgcc's lock, and a
 *                          handler that unwinds on a thread inside an unwind
 *                          waits for ever.
 *   EDGEPROBE_FUNC_BULK    [impl] 1: this program switches (nearly) every
 *                          function probe, as the profiler does. A scan made
 *                          while the process is single-threaded rewrites
 *                          gcc's NOPs as one NOP5 in PIE objects too, at
 *                          every entry within one cache line (no mirror
 *                          page to map and fill, no jump through one); an
 *                          object whose entries keep the one-byte form gets
 *                          the mirror of its whole text with one mmap at its
 *                          first switch. 0 (default): a text page is copied,
 *                          and a mirror page mapped, only when one of its
 *                          functions is switched on (section 27.4).
 *   EDGEPROBE_WX_STRICT    [impl] 1: restore read+execute after every patch
 *                          (strict W^X, costs two mprotect calls). 0
 *                          (default): open a code page once and keep it
 *                          writable.
 *   EDGEPROBE_TMAX_DEFAULT [impl] Tmax in TSC ticks: 6000, for the straddler
 *                          protocol's waits when they are used (section 9:
 *                          EDGEPROBE_SYNC=tmax, or no membarrier SYNC_CORE).
 *                          The paper chose 3000 on Sandy Bridge. A wait is
 *                          only as good as a measurement of the machine it
 *                          runs on: `make calibrate` measures one.
 *   EDGEPROBE_DEBUG        [impl] check internal rules as the program runs
 *                          (functions named *_locked hold the registry lock);
 *                          a broken rule stops the program with a message.
 *
 * Global (every file of the program must agree):
 *   EDGEPROBE_FREESTANDING no libc headers; the implementation file supplies
 *                          the OS hooks EDGEPROBE_OS_PROTECT, EDGEPROBE_OS_ALLOC,
 *                          EDGEPROBE_OS_FREE and EDGEPROBE_OS_YIELD (required),
 *                          EDGEPROBE_OS_SERIALIZE, EDGEPROBE_OS_MAP_NEAR and
 *                          EDGEPROBE_OS_LOG (optional), described in section 
 *                          13. dlopen-awareness, SIGTRAP emulation and the
 *                          environment are then absent. README "Freestanding"
 *                          lists all a program must provide (memcpy, memcmp,
 *                          memset; libgcc on aarch64).
 *   EDGEPROBE_CORE_ONLY    for small targets: leave out the x86-64-only parts
 *                          (section 9's low-level patch API, straddlers,
 *                          SIGTRAP emulation, call patch, provider; absent on
 *                          aarch64 anyway) and cap the registry at 65,536
 *                          points. Markers, registry and handlers stay. The
 *                          registry's heap block shrinks from ~590 KB (x86) or
 *                          ~35 KB (aarch64) to ~3 KB; code sizes are in
 *                          bench/RESULTS.md.
 *   EDGEPROBE_PAGE_SIZE    aarch64: the kernel's page size, 4096 (default),
 *                          16384 or 65536. Too small a value makes toggles
 *                          fail with EDGEPROBE_EPROT (mprotect refuses the
 *                          address); too large a value would change the
 *                          protection of neighbouring pages: never set it
 *                          above the real page size.
 *
 * Environment (read once, when the process-wide registry is created):
 *   EDGEPROBE_ENABLE="glob,glob"  enable matching probes before main; also
 *                          applied to probes of libraries loaded later.
 *   EDGEPROBE_TMAX=ticks   override Tmax.
 *   EDGEPROBE_WX=strict|keep   override the writable-code policy.
 *   EDGEPROBE_SYNC=tmax|serialize   the straddler protocol: serialize (the
 *                          default where the kernel has membarrier SYNC_CORE)
 *                          or tmax (Tmax waits; only as safe as a
 *                          measurement of the machine).
 *   EDGEPROBE_MEMBARRIER=0 handler sync without membarrier: readers fence
 *                          themselves (for kernels without it; tests).
 *   EDGEPROBE_VERBOSE=1    log diagnostics to stderr.
 *   EDGEPROBE_RECORD=path  record to a trace file from before main to exit
 *                          (section 7.1), with EDGEPROBE_RECORD_BUFFER,
 *                          EDGEPROBE_RECORD_FUNCS, EDGEPROBE_RECORD_ARGS,
 *                          EDGEPROBE_RECORD_MIN_NS, EDGEPROBE_RECORD_DEPTH,
 *                          EDGEPROBE_RECORD_FLIGHT, EDGEPROBE_RECORD_PID and
 *                          EDGEPROBE_RECORD_SHM.
 *   EDGEPROBE_CONTROL=1    serve the control endpoint (section 8) from start-up.
 *   XDG_RUNTIME_DIR        where the control endpoint puts its socket (8).
 * ====================================================================== */
#ifndef EDGEPROBE_SITE_BYTES
#define EDGEPROBE_SITE_BYTES 5
#endif
#if EDGEPROBE_SITE_BYTES != 5 && EDGEPROBE_SITE_BYTES != 8 && !defined(__aarch64__)
#error "EDGEPROBE_SITE_BYTES must be 5 or 8"
#endif
#ifndef EDGEPROBE_WX_STRICT
#define EDGEPROBE_WX_STRICT 0
#endif
#ifndef EDGEPROBE_TMAX_DEFAULT
#define EDGEPROBE_TMAX_DEFAULT 6000
#endif
#ifndef EDGEPROBE_FUNC_CTOR_CONVERT
#define EDGEPROBE_FUNC_CTOR_CONVERT 1
#endif
#ifndef EDGEPROBE_FUNC_BULK
#define EDGEPROBE_FUNC_BULK 0
#endif
#ifndef EDGEPROBE_FUNC_UNWIND_TABLE
#define EDGEPROBE_FUNC_UNWIND_TABLE 0
#endif
#ifndef EDGEPROBE_SINK
#define EDGEPROBE_SINK(...) edgeprobe_printf(__VA_ARGS__)
#endif
#ifndef EDGEPROBE_HIT_COUNTS
#define EDGEPROBE_HIT_COUNTS 1
#endif
#ifndef EDGEPROBE_TRACE_ARGS
#define EDGEPROBE_TRACE_ARGS 1
#endif
/* 1 when EDGEPROBE_TRACE is the argument form (section 29.4). */
#if EDGEPROBE_TRACE_ARGS && defined(__x86_64__) && !defined(EDGEPROBE_FREESTANDING) && !defined(__cplusplus)
#define EDGEPROBE__TRACE_ARGS_FORM 1
#else
#define EDGEPROBE__TRACE_ARGS_FORM 0
#endif
#if defined(EDGEPROBE_PROVIDER) && !defined(EDGEPROBE_IMPLEMENTATION)
#error "EDGEPROBE_PROVIDER: define it in the file that defines EDGEPROBE_IMPLEMENTATION (the provider is part of the implementation)"
#endif
/* Longest probe name or pattern, without the terminating NUL. */
#define EDGEPROBE_NAME_MAX 127

/* The x86-64-only parts (see ARCHITECTURES above) exist when this is 1.
 * Otherwise their declarations carry an error attribute: a call fails to
 * compile, with the reason. */
#if defined(__x86_64__) && !defined(EDGEPROBE_CORE_ONLY)
#define EDGEPROBE__HAS_PATCH 1
#define EDGEPROBE__X86_ONLY
#else
#define EDGEPROBE__HAS_PATCH 0
#define EDGEPROBE__X86_ONLY                                                    \
    __attribute__((error("edgeprobe: the low-level patch API, the call patch and the provider are "  \
                         "x86-64 only, and left out by EDGEPROBE_CORE_ONLY")))
#endif

#ifdef __cplusplus
extern "C" {
#endif
/* Every function declared in Part I is hidden: each executable or shared
 * library has its own copy (the file with EDGEPROBE_IMPLEMENTATION), and a
 * shared library whose files call it without one fails to link, instead of
 * failing when it is loaded. (Not in C++, where the pragma would also hide
 * the types.) */
#ifndef __cplusplus
#pragma GCC visibility push(hidden)
#endif

/* ======================================================================
 * 2. ERRORS                                                   >>errors
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
    X(EDGEPROBE_ERANGE, 34, "no ret trampoline within +-2 GiB of the site, or (aarch64) a marker's b cannot reach its target") \
    X(EDGEPROBE_ESRCH, 3, "no patch is in flight at that address")             \
    X(EDGEPROBE_EUNDERFLOW, 75, "probe_put without a matching probe_get")      \
    X(EDGEPROBE_EUNLOADED, 79, "the probe's library has been unloaded")        \
    X(EDGEPROBE_ENEVER, 61, "provider probe never reached: no site known yet") \
    X(EDGEPROBE_EABI, 71, "another copy of edgeprobe with a different ABI owns the registry") \
    X(EDGEPROBE_ENOFUNC, 65, "no loaded object was built with -fpatchable-function-entry=5") \
    X(EDGEPROBE_EUNSAFE, 26, "cannot be switched safely here: a function entry (see edgeprobe_func_scan), or a straddler while a thread blocks SIGTRAP") \
    X(EDGEPROBE_EPERM, 1, "permission denied (control endpoint: another user, or an unsafe directory)") \
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
 * 3. MARKERS                                                 >>markers
 *
 *   EDGEPROBE_TRACE(name, fmt, ...)   printf-style tracepoint via EDGEPROBE_SINK
 *   EDGEPROBE_TRACE_LAZY(name, fmt, ...)  the same, arguments evaluated only
 *                                     while on (see below)
 *   if (EDGEPROBE_BRANCH(name)) ...   static branch, off by default
 *   if (EDGEPROBE_BRANCH_ON(name)) ...static branch, on by default
 *   EDGEPROBE_HANDLER(name, value)    calls the handler attached to `name`
 *
 * `name` is a bare identifier-like token (letters, digits, _ . : -). Each use
 * emits, at the site, at most 4 bytes of NOP padding and a NOP5 (or an
 * aligned NOP8), plus one 32-byte record in section `edgeprobe_sites`
 * (read-only; every address is an offset from its own field, so the
 * loader relocates nothing):
 *
 *     .long site - .        where the NOP is
 *     .long target - .      the compiler's out-of-line code for the probe
 *     .long mark - .        the marker's mark (below)
 *     .long flags           site form, default-on; kind << 16
 *     .long line
 *     .long name - .        NUL-terminated strings in .rodata
 *     .long file - .
 *     .long function - .
 *
 * and one 8-byte static mark, zero in the file (.bss): the enabled path's
 * way to the marker's point, which the registry keeps (section 19). Start-up
 * writes no mark; the registry links one just before its marker is first
 * bound or one of its sites first switched on.
 *
 * Enabled, the site holds `jmp target`. On aarch64 the site is one 4-byte
 * NOP (no padding), `b target` when enabled. The out-of-line code may use the
 * function's local variables; the compiler wrote it, so the enabled path is
 * as good as an `if`. The statement-expression forms need GNU C (gcc, clang).
 *
 * TRACE comes in two forms. EDGEPROBE_TRACE_LAZY is the one above: the
 * compiler's enabled path (evaluate the arguments, call the sink) sits in
 * the function, so a disabled site still shapes it: values the path needs
 * are kept in callee-saved registers (pushes and pops) and the code grows.
 * EDGEPROBE_TRACE is, on x86-64 hosted C builds (EDGEPROBE_TRACE_ARGS), an
 * argument probe like EDGEPROBE_PROBE (section 7): the site records where
 * each argument lives, the function holds nothing else, and an enabled site
 * formats the line from those locations. Its arguments are therefore always
 * evaluated, as in a USDT probe: give it values the code has anyway (or use
 * the lazy form for costly ones). Its format must be a string literal; its
 * arguments integers, pointers, float or double, at most 12. Elsewhere
 * (C++, aarch64, freestanding) EDGEPROBE_TRACE is the lazy form.
 * ====================================================================== */
/* The marker macros (their machinery is section 11). */
#define EDGEPROBE_TRACE(name, ...) EDGEPROBE__TRACE(name, __VA_ARGS__)
#define EDGEPROBE_TRACE_LAZY(name, ...) EDGEPROBE__TRACE_LAZY(name, __VA_ARGS__)
#define EDGEPROBE_BRANCH(name) EDGEPROBE__BRANCH(name)
#define EDGEPROBE_BRANCH_ON(name) EDGEPROBE__BRANCH_ON(name)
#define EDGEPROBE_HANDLER(name, value) EDGEPROBE__HANDLER(name, value)

/* ======================================================================
 * 4. PROBES BY NAME, HANDLE AND COUNT; LISTING                 >>probes
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
    EDGEPROBE_KIND_FUNCTION,    /* patchable function entry: entry + exit  */
    EDGEPROBE_KIND_PROBE        /* EDGEPROBE_PROBE (section 7)            */
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
    int patchable;              /* 0: listed, but never switched (why: see
                                   the log, EDGEPROBE_VERBOSE=1)            */
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
/* Hits counted so far on the enabled path of one point (TRACE, BRANCH,
 * HANDLER; see EDGEPROBE_HIT_COUNTS). Counters are striped by CPU (or
 * thread) and summed here, so the total may lag a concurrent hit. EDGEPROBE_EINVAL for an id
 * never handed out. */
int edgeprobe_point_hits(int id, uint64_t *out);

/* printf to stderr: the default EDGEPROBE_SINK. */
#ifndef EDGEPROBE_FREESTANDING
int edgeprobe_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2), cold));
#endif

/* ======================================================================
 * 5. HANDLERS AND DISCOVERY                                 >>handlers
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


/* ======================================================================
 * 6. FUNCTION PROBES (x86-64, hosted builds)               >>functions
 *
 * 6.1 On compiler NOP entries (-fpatchable-function-entry=5)
 *
 * Build any object (executable or shared library, with or without this
 * header) with -fpatchable-function-entry=5: every function then starts
 * with five bytes of NOP, listed by the compiler in the section
 * __patchable_function_entries. edgeprobe finds those sections in the
 * objects' files (dl_iterate_phdr + section headers), names every entry
 * from .symtab (static functions included; .dynsym when stripped), and
 * makes one probe per function, of kind EDGEPROBE_KIND_FUNCTION, with a
 * dense id shared with the markers (edgeprobe_foreach, edgeprobe_point_info,
 * the discovery callback).
 *
 * Off, a function costs its NOPs. On, the entry calls a per-function stub
 * that reaches the function's data directly (no lookup) and then the entry
 * handler, with every argument register preserved. If the entry handler
 * returns non-zero (or there is none) and an exit handler is attached, the
 * return address is swapped for a return trampoline and kept on a
 * per-thread shadow stack; the exit handler then runs when the function
 * returns, with %rax, %rdx, %xmm0-1 (their full vector width) and the x87
 * stack preserved. The entry handler sees the integer argument registers
 * (args) and the vector ones (EDGEPROBE_FUNC_FARG: double arguments); the
 * exit handler %rax, %rdx and %xmm0's low 8 bytes (a double result).
 *
 * Byte forms (see README "Function probes" for the safety argument):
 *   clang      0f 1f 44 00 xx     <-> e8 <rel32 to stub>     (8-byte CAS;
 *              a cache-line straddler: word patch once, then call patch)
 *   gcc        90 90 90 90 90     <-> e8 90 90 90 90         (ONE byte:
 *              the call's rel32 is the four NOPs; it lands on a mirror
 *              stub 0x6f6f6f6b bytes below the function, which jumps on
 *              to the function's stub. A thread anywhere inside the NOPs
 *              runs valid code in either state.)
 *   gcc, where no mirror page can be mapped (non-PIE executables below
 *   1.8 GiB): the five NOPs are rewritten as one NOP5 only while no thread
 *   can be between them - the process is single-threaded, or the object's
 *   own constructor runs - and listed as not patchable otherwise. With
 *   EDGEPROBE_FUNC_BULK, a single-threaded scan rewrites PIE entries too
 *   (no mirror pages; for a program that switches them all).
 *
 * Handlers run with recursion blocked: a probed function called from a
 * handler (or from a signal handler interrupting one) does not re-enter
 * handlers. Handlers must not throw or longjmp.
 * ====================================================================== */
typedef struct edgeprobe_func_call {
    const edgeprobe_info *probe;   /* the function: id, name, object file   */
    void *fn;                      /* its patched entry (after an endbr64)   */
    uintptr_t return_address;      /* where it returns to                   */
    uintptr_t slot;                /* where that address is kept: the call's
                                      place on its stack (a deeper call's is
                                      lower; a call made again from the same
                                      depth has the same), to tell the calls
                                      a longjmp left from live ones         */
    const uint64_t *args;          /* entry: %rdi %rsi %rdx %rcx %r8 %r9    */
    uint64_t ret[3];               /* exit: %rax, %rdx, %xmm0's low 8 bytes
                                      (a double return value's bits)       */
    uint64_t data;                 /* set by the entry handler, seen at exit */
    const unsigned char *vec;      /* entry: %xmm0-7 as saved, vec_bytes
                                      apart (EDGEPROBE_FUNC_FARG)          */
    unsigned vec_bytes;            /* 16, 32 or 64: what XCR0 enables      */
} edgeprobe_func_call;
/* Entry: the bits of the i-th floating-point argument (%xmm<i>, i < 8), a
 * uint64_t to memcpy into a double. A handler cannot tell which registers
 * the function reads; an unused one holds whatever the caller left there. */
#define EDGEPROBE_FUNC_FARG(call, i)                                           \
    (*(const uint64_t *)(const void *)((call)->vec + (unsigned)(i) * (call)->vec_bytes))
/* Entry: return non-zero to get the exit handler called for this call. */
typedef int (*edgeprobe_entry_fn)(edgeprobe_func_call *call, void *user);
typedef void (*edgeprobe_exit_fn)(const edgeprobe_func_call *call, void *user);

/* Find the functions of loaded objects built with the flag (also done by
 * every call below when objects were loaded or unloaded since). Returns the
 * number of function probes, or EDGEPROBE_ENOFUNC. Slow: reads files. */
EDGEPROBE__X86_ONLY int edgeprobe_func_scan(void);
/* Attach handlers (entry and/or exit; both NULL is EDGEPROBE_EINVAL) to
 * every function whose name matches `pattern`, and switch them on. Returns
 * the number switched on; an exact name that matches nothing is
 * EDGEPROBE_ENOENT, one that cannot be switched EDGEPROBE_EUNSAFE. */
EDGEPROBE__X86_ONLY int edgeprobe_func_attach(const char *pattern, edgeprobe_entry_fn entry, edgeprobe_exit_fn exit,
                          void *user);
EDGEPROBE__X86_ONLY int edgeprobe_func_detach(const char *pattern);  /* off, then unbind; count unbound */
/* Switch attached functions on or off without rebinding; count changed. */
EDGEPROBE__X86_ONLY int edgeprobe_func_enable(const char *pattern);
EDGEPROBE__X86_ONLY int edgeprobe_func_disable(const char *pattern);
/* By id: the fast path (lock + one code write). on/off return 1 if the
 * state changed, 0 if not; on needs an attached handler (EDGEPROBE_EINVAL). */
EDGEPROBE__X86_ONLY int edgeprobe_func_attach_id(int id, edgeprobe_entry_fn entry, edgeprobe_exit_fn exit, void *user);
EDGEPROBE__X86_ONLY int edgeprobe_func_on(int id);
EDGEPROBE__X86_ONLY int edgeprobe_func_off(int id);
/* Calls whose exit could not be hooked on this thread's shadow stack
 * (it holds EDGEPROBE_FUNC_DEPTH frames), summed over all threads. */
EDGEPROBE__X86_ONLY unsigned long edgeprobe_func_lost_exits(void);
/* Counting without handlers. While function probe `id` is on, its next
 * n - 1 calls are counted by the stubs' head (27.4) and go on at once: no
 * handler runs, no exit is hooked, no register but the flags changes
 * (bench/RESULTS.md: +4.4 ticks a call in a tight loop, 4.2 inside lua,
 * against +23.5 and 55 for a call that reaches an empty handler). The
 * n-th call, and every call after, runs the handlers as before: a handler
 * thus learns that the count ran out.
 * edgeprobe_func_skip(id, n) arms the count (n > 0) or disarms it (n = 0)
 * and returns the calls skipped since it was last armed, exactly (threads
 * that call the function at once take one each); a new binding (attach,
 * detach) disarms it and forgets them. Errors: EDGEPROBE_EINVAL (not the
 * id of a function probe already listed, n < 0), EDGEPROBE_EUNLOADED.
 * Lock-free and async-signal-safe; calls for one id must not overlap (a
 * profiler arms from one handler and takes from one thread at a time).
 * edgeprobe_func_thread_skipped: the calls skipped on this thread so far
 * (a profiler charges their cost to the thread's clock; a new thread
 * starts at 0: see 27.2). */
EDGEPROBE__X86_ONLY long edgeprobe_func_skip(int id, long n);
EDGEPROBE__X86_ONLY unsigned long edgeprobe_func_thread_skipped(void);
/* The calls of function probe `id` that found their thread already inside
 * a handler (a signal handler that interrupted one, or a handler's own
 * call of a probed function): no handler ran for them. A count since the
 * object was loaded, or EDGEPROBE_EINVAL, EDGEPROBE_EUNLOADED. A profiler
 * that counts every call adds them. Lock-free. */
EDGEPROBE__X86_ONLY long edgeprobe_func_nested(int id);
#define EDGEPROBE_FUNC_DEPTH 65536

/* 6.2 The -finstrument-functions provider. Define EDGEPROBE_PROVIDER in the
 * file that defines EDGEPROBE_IMPLEMENTATION: that file then defines
 * __cyg_profile_func_enter/exit. x86-64 only (not with EDGEPROBE_CORE_ONLY).
 * Probes start on: every call site of __cyg_profile_func_enter/exit is
 * discovered on its first call and then calls the attached handler, if any.
 * Switching uses the call patch (section 9). attach binds a handler and
 * switches on; off/disable switch off and keep the handler. By function-name
 * glob, or by id (_id). attach and disable return the number of sites
 * changed, or EDGEPROBE_ENEVER while no provider site has run yet. */
EDGEPROBE__X86_ONLY int edgeprobe_provider_attach(const char *pattern, edgeprobe_handler_fn fn, void *user);
EDGEPROBE__X86_ONLY int edgeprobe_provider_disable(const char *pattern);
EDGEPROBE__X86_ONLY int edgeprobe_provider_attach_id(int id, edgeprobe_handler_fn fn, void *user);
EDGEPROBE__X86_ONLY int edgeprobe_provider_off(int id);

/* ======================================================================
 * 7. ARGUMENT PROBES: EDGEPROBE_PROBE(name, args...)            >>args
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
 * The trampoline (one per object and vector width, section 29.2) saves the 15
 * general registers other than %rsp and the vector registers the TU's code
 * can use (xmm, ymm or zmm and masks), aligns the stack, and passes the saved registers
 * (with %rsp as it was at the site) to edgeprobe__args_hit. That reads each
 * argument from its location - parsed once, when the object registers its
 * sites, into the `argsite`, a writable block the marker emitted beside the
 * stub (no allocation per site) - and calls the handler:
 *
 *   fn(info, user, args, nargs)           args[i]: 64 bits, sign-extended
 *                                         for signed types, zero-extended
 *                                         for unsigned ones and pointers
 *
 * Arguments are passed as rvalues (EDGEPROBE__ARGVAL): arrays decay to
 * pointers, small types are promoted (same value), and an operand is never
 * a symbol (`var(%rip)`) that a run-time parser could not resolve.
 * Floating-point, struct, union and 128-bit arguments are compile-time
 * errors (TRACE, section 29.4, takes float and double). Handler dispatch is the
 * lock-free reader protocol of section 25; edgeprobe_handler_sync covers args
 * handlers too. The trampoline carries no unwind information: a handler
 * may not throw or unwind through it. The same stub and trampoline serve
 * EDGEPROBE_TRACE's argument form (section 29.4).
 *
 * A site's spec is parsed the first time it is switched on (start-up
 * neither parses nor writes the argsite); a spec that cannot be read makes
 * that switch fail with EDGEPROBE_EINVAL, logged once, and the probe stays
 * off (all its sites: section 18 never leaves a probe half switched).
 * Cost: disabled, one NOP; enabled, jmp + the register save/restore + one
 * indirect call (bench/RESULTS.md, "argument probes").
 * ====================================================================== */
#define EDGEPROBE_ARGS_MAX 12
#if defined(__x86_64__)
#define EDGEPROBE__ARGS_ONLY
#else
#define EDGEPROBE__ARGS_ONLY __attribute__((error("edgeprobe: EDGEPROBE_PROBE and edgeprobe_attach_args are x86-64 only")))
#endif
#define EDGEPROBE_PROBE(...) EDGEPROBE__PROBE(__VA_ARGS__) /* machinery: section 11.6 */
typedef void (*edgeprobe_args_fn)(const edgeprobe_info *probe, void *user, const uint64_t *args, int nargs);
/* Attach fn to every EDGEPROBE_PROBE matching pattern (and switch it on).
 * Returns the number of probes matched; EDGEPROBE_EKIND for an exact name
 * that has no EDGEPROBE_PROBE point (edgeprobe_attach likewise refuses a
 * PROBE name); EDGEPROBE_EINVAL for a NULL fn. Detach with edgeprobe_detach;
 * edgeprobe_handler_sync before freeing what the old handler used. */
EDGEPROBE__ARGS_ONLY int edgeprobe_attach_args(const char *pattern, edgeprobe_args_fn fn, void *user);
/* ======================================================================
 * 7.1 RECORDING: per-thread rings and a trace file (hosted)      >>record
 *
 * What enabled probes see, kept at ring-buffer speed and written to a file
 * that `edgeprobe dump`, `report` and `export` read (README, "Recording").
 *
 *   EDGEPROBE_RECORD=out.trace EDGEPROBE_ENABLE="net_*" ./prog
 *   edgeprobe record -e 'net_*' -f 'parse_*' -- ./prog     (the same, and
 *                                     function probes: section 6)
 *
 * or from the program itself:
 *
 *   edgeprobe_record_start("out.trace", NULL);   // a recorder thread
 *   edgeprobe_record_enable("net_*");           // markers: switch on, record
 *   edgeprobe_record_funcs("parse_*");          // function probes (x86-64)
 *   ...
 *   edgeprobe_record_stop();                    // drain, tables, close
 *
 * While recording, an enabled marker marked for recording (by
 * edgeprobe_record_enable, or by EDGEPROBE_ENABLE when EDGEPROBE_RECORD is
 * set) writes one event to its thread's ring instead of what it does
 * otherwise: a TRACE keeps its argument values, and its format is applied
 * offline, never in the program (the lazy TRACE form, C++ and aarch64 keep
 * a hit only); a PROBE keeps its arguments (and still calls its handler, if
 * any); a BRANCH keeps its hit; a HANDLER keeps its value (edgeprobe_record_
 * enable binds the recorder as its handler). A recorded function keeps its
 * entry and exit (with the argument registers at entry - %rdi..%r9, then
 * the low 8 bytes of %xmm0-7, where double arguments are - and %rax, %rdx
 * and %xmm0's low 8 bytes at exit, when asked), or, with a minimum
 * duration, one event per call that lasted at least that long.
 *
 * An event is 16 bytes plus 8 per argument: TSC, then point id, kind and
 * argument count in one word, then the raw 8-byte values. The producer is
 * edgeprobe_record_event: each thread writes its own ring (mmap'ed at its
 * first event), with plain stores and one release store of its position;
 * no lock, no syscall, no allocation, no formatting, so it may run in a
 * signal handler (an event written there, inside another one, is published
 * with it). A full ring drops the event and counts it for its thread; in
 * flight-recorder mode (EDGEPROBE_RECORD_FLIGHT) it overwrites its oldest
 * events instead, and the rings are written at stop (or saved meanwhile,
 * recording on: edgeprobe_record_snapshot, `edgeprobe snapshot`). The
 * recorder thread copies every ring's new events to the file every
 * millisecond, in large sequential writes, and stop writes the tables
 * (points with names, files, lines, kinds, TRACE formats; threads with
 * names; the TSC frequency and its CLOCK_MONOTONIC anchors). A forked child
 * records nothing (its parent's recorder does not run there).
 *
 * Environment (read when the registry is created; not in privileged
 * processes):
 *   EDGEPROBE_RECORD=path        start recording before main; stop at exit
 *   EDGEPROBE_RECORD_BUFFER=n    ring bytes per thread (power of two,
 *                                4096 .. 1 GiB; default 1 MiB)
 *   EDGEPROBE_RECORD_FUNCS=globs record these functions (comma-separated)
 *   EDGEPROBE_RECORD_ARGS=1      with the argument and return registers
 *   EDGEPROBE_RECORD_MIN_NS=n    only calls that lasted at least n ns
 *   EDGEPROBE_RECORD_DEPTH=n     only calls inside fewer than n recorded
 *                                calls of their thread (1 to 65536)
 *   EDGEPROBE_RECORD_FLIGHT=1    flight recorder: each ring keeps its
 *                                thread's last events (overwriting the
 *                                oldest); they are written at stop
 *   EDGEPROBE_RECORD_PID=pid     only the process with that pid records
 *                                (not the programs it runs, which inherit
 *                                the environment; `edgeprobe record` sets it)
 *   EDGEPROBE_RECORD_SHM=dir     rings are MAP_SHARED files in dir (ring-TID-N),
 *                                so that what a crash leaves in them can be
 *                                added to the trace (`edgeprobe record` does)
 * ====================================================================== */
enum edgeprobe_event_kind {
    EDGEPROBE_EV_PROBE = 1,     /* EDGEPROBE_PROBE: its arguments          */
    EDGEPROBE_EV_TRACE,         /* EDGEPROBE_TRACE: its arguments          */
    EDGEPROBE_EV_BRANCH,        /* a BRANCH (or lazy TRACE) hit            */
    EDGEPROBE_EV_HANDLER,       /* EDGEPROBE_HANDLER: its value            */
    EDGEPROBE_EV_ENTRY,         /* function entry: [%rdi %rsi %rdx %rcx %r8
                                   %r9, then %xmm0-7's low 8 bytes]        */
    EDGEPROBE_EV_EXIT,          /* function exit: [%rax, %rdx, %xmm0]      */
    EDGEPROBE_EV_CALL,          /* a call that lasted the minimum: TSC at
                                   entry, args[0] = ticks, [%rax, %rdx,
                                   %xmm0]                                   */
    EDGEPROBE_EV_USER           /* edgeprobe_record_event from user code   */
};
#define EDGEPROBE_RECORD_ARGS 1u   /* function entries keep their arguments */
#define EDGEPROBE_RECORD_FLIGHT 2u /* flight recorder: rings overwrite their
                                      oldest events and are written at stop */
typedef struct edgeprobe_record_options {
    size_t ring_bytes;          /* per thread; 0: 1 MiB (power of two)     */
    unsigned flags;             /* EDGEPROBE_RECORD_ARGS                   */
    uint64_t min_ns;            /* functions: record only calls this long  */
    unsigned max_depth;         /* functions: record only calls nested at
                                   most this deep among recorded calls
                                   (the outermost is 1); 0: no limit       */
} edgeprobe_record_options;
/* Start recording to `path` (created or truncated): a recorder thread.
 * opt may be NULL. EDGEPROBE_EBUSY while a recording runs. Slow. */
int edgeprobe_record_start(const char *path, const edgeprobe_record_options *opt);
/* Mark the markers matching pattern for recording and switch them on.
 * Returns the number of probes matched. Slow. */
int edgeprobe_record_enable(const char *pattern);
/* Record the function probes matching pattern (section 6; x86-64).
 * Returns the number switched on. Slow. */
int edgeprobe_record_funcs(const char *pattern);
/* Stop: drain every ring, write the tables, close the file. Returns 0, or
 * a negative code (the file could not be written, in which case the events
 * not written are counted by edgeprobe_record_lost). Slow. */
int edgeprobe_record_stop(void);
/* The producer: one event on this thread's ring (a no-op while nothing
 * records). Any thread, signal handlers included. nargs <= 16. */
void edgeprobe_record_event(int id, unsigned kind, const uint64_t *args, int nargs);
/* Events dropped so far (rings full, or the file not writable). */
uint64_t edgeprobe_record_lost(void);
/* Flight recorder: write the rings as they are now to a trace file of its
 * own at `path` (`edgeprobe snapshot` asks for it through the control
 * endpoint); the recording goes on. EDGEPROBE_ENOENT when no flight
 * recording runs; a negative errno when the file cannot be written. Slow:
 * copies every ring. */
int edgeprobe_record_snapshot(const char *path);
/* ======================================================================
 * 8. CONTROL ENDPOINT (hosted builds): operate probes from a shell  >>control
 *
 * Opt-in. EDGEPROBE_CONTROL=1 in the environment (started from a
 * constructor, before main) or a call to edgeprobe_control_start() starts
 * one control thread; nothing runs and no socket exists otherwise. The
 * thread serves a Unix stream socket in a private per-user directory:
 *     $XDG_RUNTIME_DIR/edgeprobe/PID.sock   when XDG_RUNTIME_DIR is set
 *     /tmp/edgeprobe-EUID/PID.sock          otherwise
 * The directory is created with mode 0700; if it exists and is not a
 * directory of this user closed to others, the endpoint is refused
 * (EDGEPROBE_EPERM). Peers whose uid (SO_PEERCRED) is neither ours nor root
 * are refused, and the refusal is logged to stderr. `build/edgeprobe` is the
 * client (README, "Operating a running process").
 *
 * What the program can rely on:
 *   - its threads never wait for the control thread: executing probes takes
 *     no lock; TRACE lines bound for a client go into a ring of
 *     EDGEPROBE__TRACE_SLOTS slots and are dropped (and counted) when it is
 *     full. The control thread takes the registry lock only as
 *     edgeprobe_enable does, and only for short batches.
 *   - every socket is non-blocking; a silent or slow client cannot stall the
 *     thread or other clients (idle ones are dropped after
 *     EDGEPROBE__CTL_IDLE_MS).
 *   - memory is bounded: EDGEPROBE__CTL_CLIENTS clients with fixed buffers,
 *     plus the trace ring (1 MiB) once a trace has run.
 *   - the socket file is removed by exit(); after a fork the child closes
 *     its copies of the sockets and does not answer (it may call
 *     edgeprobe_control_start() for an endpoint of its own). A process killed
 *     by a signal leaves its socket; `edgeprobe ps` removes such files.
 *   - the control thread blocks every signal: the program's handlers never
 *     run on it.
 *
 * Protocol: one request per line of at most EDGEPROBE__CTL_LINE - 1
 * printable ASCII bytes, then '\n'. Every reply is one or more lines; an
 * error is "error EDGEPROBE_<CODE> <message>" and changes nothing. An
 * overlong request is answered with an error and the connection closed.
 *     hello                ok edgeprobe-control 1 <pid>
 *     list                 probe<TAB>id<TAB>kind<TAB>on|off<TAB>hits<TAB>sites
 *                            <TAB>name<TAB>file<TAB>line<TAB>function
 *                          (one line per point), then "end <count>"
 *     enable GLOB          ok <probes changed>
 *     disable GLOB         ok <probes changed>
 *     trace GLOB...        ok <switched on> <already on, left alone>; then,
 *                          if any was switched on, "> <text>" for each line
 *                          their TRACE markers print (to this client only).
 *                          "stop" from the client ends it: the probes are
 *                          switched off, then "dropped <n>" and "end". A
 *                          client that disconnects ends it the same way.
 *     detach               ok <function probes switched off and unbound>
 *     record start PATH RING_BYTES FLAGS MIN_NS FUNCS EVENTS [DEPTH], record stop
 *                          `edgeprobe record -p` (section 28.3.1)
 * Function probes (x86-64, where edgeprobe_func_scan has listed them): the
 * GLOBs of enable, disable and trace match function names too. enable binds
 * a handler that does nothing (the hit is counted) to a function that has
 * none; trace binds a pair that writes "name(rdi, rsi, rdx)" and
 * "name = rax (N ticks)" to functions that are off and free; detach
 * unbinds every function the endpoint bound (never another handler's),
 * ends a trace session and the profiler's profile, and waits for handlers
 * in flight. A tool's agent may add requests of its own (the profiler's
 * "prof start K EPOCH_MS", "prof stop PATH [SVG]": tools/prof_agent.c).
 * One trace session at a time (a second gets EDGEPROBE_EBUSY). Trace lines
 * longer than EDGEPROBE__TRACE_TEXT - 1 bytes are cut.
 * ====================================================================== */
#ifndef EDGEPROBE_FREESTANDING
/* Start the endpoint. Returns 1 when started, 0 if it was already running
 * in this process, or a negative code (EDGEPROBE_EPERM: unsafe directory;
 * EDGEPROBE_ENOMEM; EDGEPROBE_EINVAL: path too long; other socket errors
 * as EDGEPROBE_EPROT). Slow: syscalls and a thread creation. */
int edgeprobe_control_start(void);
/* The socket's path, or NULL while no endpoint runs in this process. */
const char *edgeprobe_control_path(void);
/* The directory rule above, as printf formats, for clients (the edgeprobe
 * command uses these): the directory under an absolute $XDG_RUNTIME_DIR, the
 * one under /tmp for an effective uid, and a socket's name in either. */
#define EDGEPROBE_CONTROL_DIR_XDG "%s/edgeprobe"
#define EDGEPROBE_CONTROL_DIR_TMP "/tmp/edgeprobe-%u"
#define EDGEPROBE_CONTROL_SOCKET "%s/%d.sock"
#endif
/* ======================================================================
 * 9. LOW-LEVEL PATCHING: any instruction at any address        >>patch
 *
 * x86-64 only (not on aarch64, nor with EDGEPROBE_CORE_ONLY), except
 * edgeprobe_set_wx_strict.
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
EDGEPROBE__X86_ONLY int edgeprobe_patch(void *site, const void *insn, size_t len);

/* Asynchronous form. start returns 1 if the patch is already complete (a
 * non-straddler), 0 if it is in flight; call finish until it returns 1 (0
 * while a wait has not elapsed). Many patches may be in flight at once. */
EDGEPROBE__X86_ONLY int edgeprobe_patch_start(void *site, const void *insn, size_t len);
EDGEPROBE__X86_ONLY int edgeprobe_patch_finish(void *site);

/* A batch: n patches with two waits in total. results[i] receives each
 * patch's outcome (0 or a negative code); returns the number that failed. */
typedef struct edgeprobe_patch_req {
    void *site;
    const void *insn;
    size_t len;
} edgeprobe_patch_req;
EDGEPROBE__X86_ONLY int edgeprobe_patch_batch(const edgeprobe_patch_req *reqs, size_t n, int *results);

/* Toggle a 5-byte `call rel32` at any address, never waiting (paper section
 * 6). `rel32` is the call's displacement when active. Return 1 if changed,
 * 0 if already in that state. Deactivated forms, by where a cache line
 * boundary cuts the call (front|back bytes):
 *     no split   0f 1f 44 00 00      NOP5
 *     1|4        e8 | <rel to ret>   call a `ret` trampoline within +-2 GiB
 *     2|3        eb 03 | r r r       jmp over the back bytes
 *     3|2, 4|1   eb 03 r | r r, ...  the same two front bytes */
EDGEPROBE__X86_ONLY int edgeprobe_call_on(void *site, int32_t rel32);
EDGEPROBE__X86_ONLY int edgeprobe_call_off(void *site);

/* Protocol mode for straddlers: membarrier SYNC_CORE (serialising mode, the
 * default where the kernel has it: every running thread of the process
 * executes a serialising instruction, the architecture's own rule for
 * publishing cross-modified code), or a wait of Tmax ticks (the paper's
 * model: safe only if no core fetches stale bytes for longer than Tmax, a
 * bound measured on one machine and breakable by a hypervisor). */
enum edgeprobe_sync { EDGEPROBE_SYNC_TMAX = 0, EDGEPROBE_SYNC_SERIALIZE = 1 };
EDGEPROBE__X86_ONLY int edgeprobe_set_sync(enum edgeprobe_sync mode); /* EDGEPROBE_ENOTSUP if unavailable */
EDGEPROBE__X86_ONLY enum edgeprobe_sync edgeprobe_sync_mode(void);
EDGEPROBE__X86_ONLY int edgeprobe_set_tmax(uint64_t ticks);           /* 0 is allowed (unsafe; tests) */
EDGEPROBE__X86_ONLY uint64_t edgeprobe_tmax(void);
/* Writable-code policy: 1 strict W^X, 0 keep pages writable once opened. */
int edgeprobe_set_wx_strict(int strict);

#ifndef __cplusplus
#pragma GCC visibility pop
#endif

/* ======================================================================
 * RENAMED in 0.2: the old names, kept for one release           >>renamed
 *
 * One verb per meaning: enable/disable take a pattern, on/off a handle or
 * an id, get/put count, attach/detach bind handlers, and `_id` marks an
 * id where the verb otherwise takes a pattern. Each old name still
 * works, called or taken as an address, and warns where it is used.
 * ====================================================================== */
#define EDGEPROBE__PRAGMA(x) _Pragma(#x)
#define EDGEPROBE__RENAMED(msg) EDGEPROBE__PRAGMA(GCC warning #msg)
#define edgeprobe_provider_activate_glob EDGEPROBE__RENAMED(edgeprobe: edgeprobe_provider_activate_glob is now edgeprobe_provider_attach) edgeprobe_provider_attach
#define edgeprobe_provider_deactivate_glob EDGEPROBE__RENAMED(edgeprobe: edgeprobe_provider_deactivate_glob is now edgeprobe_provider_disable) edgeprobe_provider_disable
#define edgeprobe_provider_activate EDGEPROBE__RENAMED(edgeprobe: edgeprobe_provider_activate is now edgeprobe_provider_attach_id) edgeprobe_provider_attach_id
#define edgeprobe_provider_deactivate EDGEPROBE__RENAMED(edgeprobe: edgeprobe_provider_deactivate is now edgeprobe_provider_off) edgeprobe_provider_off
#define edgeprobe_call_activate EDGEPROBE__RENAMED(edgeprobe: edgeprobe_call_activate is now edgeprobe_call_on) edgeprobe_call_on
#define edgeprobe_call_deactivate EDGEPROBE__RENAMED(edgeprobe: edgeprobe_call_deactivate is now edgeprobe_call_off) edgeprobe_call_off
#define edgeprobe_get_sync EDGEPROBE__RENAMED(edgeprobe: edgeprobe_get_sync is now edgeprobe_sync_mode) edgeprobe_sync_mode
#define edgeprobe_get_tmax EDGEPROBE__RENAMED(edgeprobe: edgeprobe_get_tmax is now edgeprobe_tmax) edgeprobe_tmax
#define edgeprobe_call EDGEPROBE__RENAMED(edgeprobe: edgeprobe_call is now edgeprobe_func_call) edgeprobe_func_call
#ifdef __cplusplus
}
#endif

/* ======================================================================
 * PART II. HOW IT IS BUILT
 * ====================================================================== */

/* ======================================================================
 * 10. HOW IT WORKS (README.md has the long form)                  >>how
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
 * aarch64: the site is one aligned A64 word, d503201f (nop) when off,
 * 14000000 | imm26 (b target) when on; toggling = verify, compare-and-swap
 * the word, __builtin___clear_cache (section 11.1 says why that suffices).
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
 *
 * Locks: the registry lock (a spinlock in the root), then, if needed, the
 * loader's list lock (dl_iterate_phdr), never the loader's main lock
 * (dladdr, dlopen): the loader runs constructors and destructors - ours
 * take the registry lock - under its main lock, and never under its list
 * lock. Another object's code and tables are read and written only inside
 * dl_iterate_phdr's callback for that object, where it cannot be unmapped
 * (section 26, "how the provider meets the dynamic loader").
 * ====================================================================== */

/* ======================================================================
 * 11. WHAT EVERY FILE COMPILES                                   >>sites
 *
 * Every file that includes this header compiles this section and nothing
 * after it: the markers' machinery, the architecture back ends, the types
 * the enabled paths read, and those paths themselves (inline, or declared
 * here and defined once by the implementation). No function is defined
 * here that a file would have to emit; a file's object holds its sites,
 * their records and notes, and 4 bytes that ask for the implementation.
 * ====================================================================== */
#if defined(__has_attribute)
#if __has_attribute(patchable_function_entry)
#define EDGEPROBE__NOPATCH patchable_function_entry(0, 0),
#endif
#endif
#ifndef EDGEPROBE__NOPATCH
#define EDGEPROBE__NOPATCH
#endif
#define EDGEPROBE__FN __attribute__((EDGEPROBE__NOPATCH weak, visibility("hidden"), no_instrument_function))
#define EDGEPROBE__INLINE static inline __attribute__((EDGEPROBE__NOPATCH always_inline, no_instrument_function))
/* Code a recorded PROBE or TRACE runs before its trampoline has saved the
 * vector registers (section 29.2) is compiled without them: gcc and clang
 * then use none, memcpy and loops included. Where the attribute is not
 * known to work, there is no such path (EDGEPROBE__RECORD_FAST 0). Helpers
 * so marked still inline into ordinary code: their ISA is a subset. */
#if defined(__x86_64__) && ((defined(__clang__) && __clang_major__ >= 14) || (!defined(__clang__) && __GNUC__ >= 7))
#define EDGEPROBE__RECORD_FAST 1
#define EDGEPROBE__GPR_ONLY target("general-regs-only"),
#else
#define EDGEPROBE__RECORD_FAST 0
#define EDGEPROBE__GPR_ONLY
#endif
#define EDGEPROBE__INLINE_GPR                                                  \
    static inline __attribute__((EDGEPROBE__NOPATCH EDGEPROBE__GPR_ONLY always_inline, no_instrument_function))
#define EDGEPROBE__FN_GPR                                                      \
    __attribute__((EDGEPROBE__NOPATCH EDGEPROBE__GPR_ONLY weak, visibility("hidden"), no_instrument_function))
#ifdef __cplusplus
extern "C" {
#endif


/* A point: what the registry knows of one source-level marker (kept in
 * its object's block of points, section 19) or of one function probe. */
struct edgeprobe__mark;
typedef struct edgeprobe__point {
    const char *name;
    const char *file;
    const char *function;
    int line;
    unsigned short kind;         /* enum edgeprobe_kind */
    unsigned short flags;
    int id_plus_1;               /* 0 until registered                      */
    int nsites;
    struct edgeprobe__binding *binding; /* handler probes: atomic pointer */
    struct edgeprobe__probe *probe;     /* the name it belongs to          */
    void *site;                  /* first site (provider: the call)         */
    struct edgeprobe__mark *mark; /* a marker's mark; NULL for the others  */
    struct edgeprobe__point *next_mark; /* the registry's table of marks    */
} edgeprobe__point;
/* A marker's mark (see above). Its only field is written at run time, so
 * it lies in zero-filled pages that start-up never touches. */
typedef struct edgeprobe__mark {
    edgeprobe__point *point;     /* atomic; NULL until linked (section 19)         */
} edgeprobe__mark;

#define EDGEPROBE__F_NOP8 1u        /* record flag: 8-byte site           */
#define EDGEPROBE__PF_ON 1u         /* point flag: function probe is on   */
#define EDGEPROBE__PF_UNSAFE 2u     /* point flag: listed, never switched */
#define EDGEPROBE__PF_LINKED 4u     /* point flag: its mark points at it  */
#define EDGEPROBE__F_DEFAULT_ON 2u  /* record flag: NOP means "on"        */
#define EDGEPROBE__F_ARGS 4u        /* record flag: argument site (PROBE, TRACE), target = its stub (section 7) */

/* Marker bytes, per architecture (the rest of each back end: section 11.1).
 * "S" is aarch64's symbol operand for the record's fields, which
 * also works under -fPIC (its "i" does not). */
#if defined(__aarch64__)
/* One A64 NOP; like every A64 instruction it is 4-byte aligned, so it is one
 * aligned word and never straddles anything. */
#define EDGEPROBE__NOP_ASM "1: nop\n"
#define EDGEPROBE__F_FORM 0u
#define EDGEPROBE__SYM "S"
#elif EDGEPROBE_SITE_BYTES == 8
#define EDGEPROBE__NOP_ASM ".balign 8\n1: .byte 0x0f,0x1f,0x84,0,0,0,0,0\n"
#define EDGEPROBE__F_FORM EDGEPROBE__F_NOP8
#else
/* Pad only when 1-4 bytes are needed: the NOP5 then lies inside one aligned
 * 8-byte word, so it never straddles a cache line. */
#define EDGEPROBE__NOP_ASM ".balign 8, , 4\n1: .byte 0x0f,0x1f,0x44,0,0\n"
#define EDGEPROBE__F_FORM 0u
#endif
#ifndef EDGEPROBE__SYM
#define EDGEPROBE__SYM "i"
#endif

#define EDGEPROBE__MARK_DEF(var) static edgeprobe__mark var

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

/* Every file that places a marker needs the implementation in its
 * executable or shared library: each such file refers, once (the .ifndef),
 * to a symbol that only the implementation defines, so a forgotten
 * EDGEPROBE_IMPLEMENTATION is a link error that says what to do. 4
 * read-only bytes per file, resolved at link time (the symbol is hidden: no
 * dynamic relocation); the R flag keeps them under --gc-sections, so the
 * check holds there too. A file without markers (a client that only wants
 * the types and constants) needs nothing. */
#define EDGEPROBE__IMPL_SYM \
    "edgeprobe_define_EDGEPROBE_IMPLEMENTATION_in_one_file_of_each_executable_and_shared_library"
/* The same reference in a file's cold text, before its first argument stub
 * (whose call through edgeprobe__args_tramp_ptr is the other symbol only the
 * implementation defines): a linker that stops at its first undefined
 * symbol then names this one. */
#define EDGEPROBE__NEED_IMPL_TEXT_ASM                                          \
    ".ifndef .Ledgeprobe_need_text\n.set .Ledgeprobe_need_text, 1\n"           \
    ".balign 4\n.long " EDGEPROBE__IMPL_SYM " - .\n.hidden " EDGEPROBE__IMPL_SYM "\n.endif\n"
#define EDGEPROBE__NEED_IMPL_ASM                                               \
    ".ifndef .Ledgeprobe_need\n.set .Ledgeprobe_need, 1\n"                     \
    ".pushsection edgeprobe_need,\"aR\",@progbits\n.balign 4\n"                \
    ".long " EDGEPROBE__IMPL_SYM " - .\n.hidden " EDGEPROBE__IMPL_SYM "\n.popsection\n.endif\n"
/* A site's record (section 3's table). `target`, `line` and `name` are asm
 * text: the label the site jumps to, a number, a label. The other fields
 * are named operands (markers with arguments number theirs freely, and
 * gcc allows 30 in all, which a 12-argument TRACE needs nearly all of). */
#define EDGEPROBE__RECORD_ASM(target, line, name)                              \
    ".pushsection edgeprobe_sites,\"aR\",@progbits\n"                          \
    ".balign 4\n"                                                              \
    ".long 1b - ., " target " - ., %c[edgeprobe__m] - ., %c[edgeprobe__f]\n"   \
    ".long " line ", " name " - ., %c[edgeprobe__fl] - ., %c[edgeprobe__fn] - .\n" \
    ".popsection\n" EDGEPROBE__NEED_IMPL_ASM
#define EDGEPROBE__RECORD_OPERANDS(mark, flags, file, function)               \
    [edgeprobe__m] EDGEPROBE__SYM(mark), [edgeprobe__f] "i"((flags) | EDGEPROBE__F_FORM), \
    [edgeprobe__fl] EDGEPROBE__SYM(file), [edgeprobe__fn] EDGEPROBE__SYM(function)
/* The record of the marker being expanded, its name a string in .rodata
 * (label 995). `flags` holds the kind too (EDGEPROBE__KIND_FLAGS). */
#define EDGEPROBE__MARKER_RECORD_ASM(target, pname)                            \
    ".pushsection .rodata\n995: .asciz \"" #pname "\"\n.popsection\n"          \
    EDGEPROBE__RECORD_ASM(target, EDGEPROBE__STR(__LINE__), "995b")
#define EDGEPROBE__RECORD_OPS(mark, flags) EDGEPROBE__RECORD_OPERANDS(&(mark), flags, __FILE__, __func__)
#define EDGEPROBE__KIND_FLAGS(kind, flags) ((unsigned)(flags) | (unsigned)(kind) << 16)

#if defined(__cplusplus) && defined(__clang__)
/* clang (14) checks C++ asm-goto targets like indirect gotos across the whole
 * function, so labels inside statement expressions are refused once a
 * function holds two markers. A template per point keeps the asm and its
 * label in a function of their own; the operand stays a constant at -O0. */
#if __cplusplus < 201703L
#error "edgeprobe markers under clang++ need -std=c++17 or later"
#endif
extern "C++" {
/* __func__ cannot be a template argument; a constexpr copy of it can. */
template <unsigned long N> struct edgeprobe__fname { char s[N]; };
template <unsigned long N> constexpr edgeprobe__fname<N> edgeprobe__fname_of(const char (&f)[N]) {
    edgeprobe__fname<N> copy{};
    for (unsigned long i = 0; i < N; i++) copy.s[i] = f[i];
    return copy;
}
template <edgeprobe__mark *M, unsigned F, int L, const char *N, const char *FL, auto FN>
static inline __attribute__((always_inline)) int edgeprobe__jumps(void) {
    __asm__ goto(EDGEPROBE__NOP_ASM EDGEPROBE__RECORD_ASM("%l[edgeprobe__taken]", "%c[edgeprobe__ln]",
                                                          "%c[edgeprobe__nm]")
                 : : EDGEPROBE__RECORD_OPERANDS(M, F, FL, (const void *)FN), [edgeprobe__ln] "i"(L),
                     [edgeprobe__nm] "i"(N)
                 : : edgeprobe__taken);
    return 0;
edgeprobe__taken:
    return 1;
}
}
/* No stapsdt note here: the name cannot reach the template's asm text. */
#define EDGEPROBE__JUMPS(var, kind, flags, pname)                              \
    __extension__({                                                            \
        static constexpr char edgeprobe__nm[] = #pname;                        \
        static constexpr char edgeprobe__fl[] = __FILE__;                      \
        static constexpr auto edgeprobe__fn = edgeprobe__fname_of(__func__);   \
        edgeprobe__jumps<&(var), EDGEPROBE__KIND_FLAGS(kind, flags), __LINE__, edgeprobe__nm, edgeprobe__fl, \
                         &edgeprobe__fn>();                                    \
    })
#define EDGEPROBE__JUMPS_ATTR(var, kind, flags, pname, label_attr) EDGEPROBE__JUMPS(var, kind, flags, pname)
#else
/* 1 when the site jumps (taken), 0 when it falls through the NOP. gcc
 * takes a `cold` attribute on the taken label (clang does not). */
#if defined(__clang__)
#define EDGEPROBE__COLD_LABEL
#else
#define EDGEPROBE__COLD_LABEL __attribute__((cold));
#endif
#define EDGEPROBE__JUMPS(var, kind, flags, pname) EDGEPROBE__JUMPS_ATTR(var, kind, flags, pname, )
#define EDGEPROBE__JUMPS_ATTR(var, kind, flags, pname, label_attr)            \
    __extension__({                                                            \
        __label__ edgeprobe__taken, edgeprobe__done;                           \
        int edgeprobe__r = 0;                                                  \
        __asm__ goto(EDGEPROBE__NOP_ASM EDGEPROBE__MARKER_RECORD_ASM("%l[edgeprobe__taken]", pname) \
                     EDGEPROBE__USDT_ASM(pname, "")                            \
                     : : EDGEPROBE__RECORD_OPS(var, EDGEPROBE__KIND_FLAGS(kind, flags)) \
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
#define EDGEPROBE__TEST_COUNTED(pname, kind) 0
#define EDGEPROBE__BRANCH_ON(pname) 1
#define EDGEPROBE__HANDLER(pname, value) ((void)(value))
#define EDGEPROBE__TRACE_LAZY(pname, ...)                                       \
    do {                                                                       \
        if (0) (void)EDGEPROBE_SINK(__VA_ARGS__);                              \
    } while (0)
#define EDGEPROBE__TRACE EDGEPROBE__TRACE_LAZY
#else
#define EDGEPROBE__TEST(pname, kind, flags)                                    \
    __extension__({                                                            \
        EDGEPROBE__MARK_DEF(edgeprobe__mk);                                    \
        EDGEPROBE__JUMPS(edgeprobe__mk, kind, flags, pname);                   \
    })
#define EDGEPROBE__BRANCH_ON(pname)                                             \
    __builtin_expect(!EDGEPROBE__TEST(pname, EDGEPROBE_KIND_BRANCH_ON,         \
                                      EDGEPROBE__F_DEFAULT_ON), 1)
#if defined(EDGEPROBE_HANDLER_INLINE) && EDGEPROBE_HANDLER_INLINE
#define EDGEPROBE__HANDLER_CALL edgeprobe__dispatch_inline
#define EDGEPROBE__HANDLER_LABEL EDGEPROBE__COLD_LABEL
#else
#define EDGEPROBE__HANDLER_CALL edgeprobe__dispatch
#define EDGEPROBE__HANDLER_LABEL
#endif
#define EDGEPROBE__HANDLER(pname, value)                                        \
    do {                                                                       \
        EDGEPROBE__MARK_DEF(edgeprobe__mk);                                    \
        if (__builtin_expect(EDGEPROBE__JUMPS_ATTR(edgeprobe__mk, EDGEPROBE_KIND_HANDLER, 0, pname, \
                                                   EDGEPROBE__HANDLER_LABEL), 0)) \
            EDGEPROBE__HANDLER_CALL(&edgeprobe__mk, (uintptr_t)(value));       \
    } while (0)
/* The taken side counts the hit (section 24); the NOP side is untouched. */
#define EDGEPROBE__TEST_COUNTED(pname, kind)                                   \
    __extension__({                                                            \
        EDGEPROBE__MARK_DEF(edgeprobe__mk);                                    \
        EDGEPROBE__JUMPS(edgeprobe__mk, kind, 0, pname) ? (edgeprobe__count_hit(&edgeprobe__mk), 1) : 0; \
    })
/* A TRACE line goes to EDGEPROBE_SINK, or, while `edgeprobe trace` holds
 * the probe, to that client only (section 8). Arguments are evaluated once,
 * and only while the probe is on. */
#define EDGEPROBE__TRACE_LAZY(pname, ...)                                       \
    do {                                                                       \
        EDGEPROBE__MARK_DEF(edgeprobe__mk);                                    \
        if (__builtin_expect(EDGEPROBE__JUMPS(edgeprobe__mk, EDGEPROBE_KIND_TRACE, 0, pname), 0)) { \
            if (__builtin_expect(!edgeprobe__trace_hit(&edgeprobe__mk), 1))    \
                (void)EDGEPROBE_SINK(__VA_ARGS__);                             \
            else                                                               \
                EDGEPROBE__ROUTE(&edgeprobe__mk, __VA_ARGS__);                 \
        }                                                                      \
    } while (0)
#if EDGEPROBE__TRACE_ARGS_FORM
#define EDGEPROBE__TRACE(pname, ...) EDGEPROBE__TRACE_ARGS(pname, __VA_ARGS__) /* section 29.4 */
#else
#define EDGEPROBE__TRACE EDGEPROBE__TRACE_LAZY
#endif
#endif
#ifndef EDGEPROBE_FREESTANDING
#define EDGEPROBE__ROUTE(pt, ...) edgeprobe__route_printf(__VA_ARGS__)
#else
#define EDGEPROBE__ROUTE(pt, ...) (void)EDGEPROBE_SINK(__VA_ARGS__)
#endif

#define EDGEPROBE__BRANCH(pname)                                                \
    __builtin_expect(EDGEPROBE__TEST_COUNTED(pname, EDGEPROBE_KIND_BRANCH), 0)


/* ---- 11.1 architecture back ends: x86-64, then aarch64        >>arch ----
 * All that differs between x86-64 and aarch64, behind one interface (only
 * the marker bytes live apart, in section 3, which must precede this):
 *   EDGEPROBE__LINE, EDGEPROBE__PAGE   cache line and page size
 *   edgeprobe__ticks()                 time source (TSC, or the virtual counter)
 *   edgeprobe__pause()                 spin-wait hint
 *   EDGEPROBE__SELF_ASM                this thread's identity, for edgeprobe__self()
 *   edgeprobe__word_t                  the unit of one atomic code store, and
 *   edgeprobe__window(p, n)            the word that holds bytes [p, p+n)
 *   edgeprobe__word_load/_word_cas     load it; compare-and-swap it
 *   edgeprobe__code_sync(p, n)         make stored code visible to instruction
 *                                      fetch (cache maintenance)
 *   edgeprobe__site_len(flags)         a marker site's size in bytes, and
 *   edgeprobe__site_form(...)          its off (NOP) or on (jump) bytes; 0 if
 *                                      the jump cannot reach its target
 * The x86-only layers (instruction decoder, straddlers, SIGTRAP, call patch,
 * provider) are guarded by EDGEPROBE__HAS_PATCH where they stand. */
#if defined(__x86_64__) /* ===================== x86-64 ===================== */
#define EDGEPROBE__LINE 64u            /* cache line size                   */
#define EDGEPROBE__PAGE 4096u
#define EDGEPROBE__OP_INT3 0xccu
#define EDGEPROBE__OP_CALL 0xe8u
#define EDGEPROBE__OP_JMP32 0xe9u
#define EDGEPROBE__OP_JMP8 0xebu
#define EDGEPROBE__OP_RET 0xc3u

/* (literals, not static arrays: a file that includes the header emits no data) */
#define edgeprobe__nop5 ((const unsigned char *)"\x0f\x1f\x44\x00\x00")
#define edgeprobe__nop8 ((const unsigned char *)"\x0f\x1f\x84\x00\x00\x00\x00\x00")
#define edgeprobe__nop3 ((const unsigned char *)"\x0f\x1f\x00")

EDGEPROBE__INLINE_GPR uint64_t edgeprobe__rdtsc(void) {
    uint32_t lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return ((uint64_t)hi << 32) | lo;
}
#define edgeprobe__ticks() edgeprobe__rdtsc()
EDGEPROBE__INLINE void edgeprobe__pause(void) { __asm__ volatile("pause" ::: "memory"); }
/* This thread's identity: the TCB self-pointer at %fs:0. */
#define EDGEPROBE__SELF_ASM "mov %%fs:0, %0"
/* The vector registers code may hold live, and trampolines must save: what
 * the OS enabled in XCR0 - 16 (xmm), 32 (ymm) or 64 (zmm and masks) bytes. */
EDGEPROBE__INLINE int edgeprobe__vector_width(void) {
    uint32_t a, b, c, d, lo, hi;
    __asm__("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(1), "c"(0));
    if (!(c & (1u << 27))) return 16; /* no OSXSAVE: SSE only */
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    if ((lo & 0xe6) == 0xe6) return 64; /* opmask, ZMM_Hi256, Hi16_ZMM, YMM, SSE */
    return (lo & 6) == 6 ? 32 : 16;
}
/* AVX512BW: 64-bit mask registers (kmovq); without it, 16 bits (kmovw). */
EDGEPROBE__INLINE int edgeprobe__cpu_has_avx512bw(void) {
    uint32_t a, b, c, d;
    __asm__("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(7), "c"(0));
    return (b >> 30) & 1;
}
/* The upper-halves check of both trampoline kinds (sections 27.1 and
 * 29.2; drawn in 27.1): every register of the list OR-ed into register 8
 * (dead at a function's entry and return; saved already in 29.2), bits
 * 128 and up tested, the answer in the byte at `flag`; then vzeroupper. */
#define EDGEPROBE__ORY(n) "vorps %ymm" #n ", %ymm8, %ymm8\n"
#define EDGEPROBE__ORZ(n) "vpord %zmm" #n ", %zmm8, %zmm8\n"
#define EDGEPROBE__UPPERS_Y(first, rest, flag)                                 \
    "vmovaps %ymm" #first ", %ymm8\n" rest "vextractf128 $1, %ymm8, %xmm8\n"   \
    "vptest %xmm8, %xmm8\nsetz " flag "\nvzeroupper\n"
#define EDGEPROBE__UPPERS_Z(first, rest, flag)                                 \
    "vmovdqa64 %zmm" #first ", %zmm8\n" rest "vextractf64x4 $1, %zmm8, %ymm9\n" \
    "vextractf128 $1, %ymm8, %xmm8\nvorps %ymm9, %ymm8, %ymm8\n"               \
    "vptest %ymm8, %ymm8\nsetz " flag "\nvzeroupper\n"
/* After the C call: uppers that were zero come back as xmm registers on a
 * clean state (label 7: the whole registers). */
#define EDGEPROBE__RESTORE_UPPERS(flag, narrow, wide)                          \
    "cmpb $0, " flag "\nje 7f\nvzeroupper\n" narrow "jmp 8f\n7:\n" wide "8:\n"

/* 8 bytes with no alignment requirement, for asm memory operands. */
typedef struct { unsigned char b[8]; } edgeprobe__bytes8;
typedef uint64_t edgeprobe__word_t;

/* lock cmpxchg on 8 bytes that lie inside one cache line (aligned or not:
 * a locked operation inside one line is atomic). */
EDGEPROBE__INLINE int edgeprobe__word_cas(void *p, uint64_t *expected, uint64_t desired) {
    uint64_t prev = *expected;
    unsigned char ok;
    __asm__ volatile("lock cmpxchgq %3, %1\n\tsete %0"
                     : "=q"(ok), "+m"(*(volatile edgeprobe__bytes8 *)p), "+a"(prev)
                     : "r"(desired)
                     : "memory", "cc");
    *expected = prev;
    return ok;
}

EDGEPROBE__INLINE uint64_t edgeprobe__word_load(const void *p) {
    uint64_t v;
    __builtin_memcpy(&v, (const void *)p, 8);
    return v;
}
/* x86 keeps instruction fetch coherent with stores: nothing to do (the
 * paper's Tmax bound covers when other cores see it). */
#define edgeprobe__code_sync(p, n) ((void)(p), (void)(n))

EDGEPROBE__INLINE uintptr_t edgeprobe__line_of(const void *p) {
    return (uintptr_t)p & ~(uintptr_t)(EDGEPROBE__LINE - 1);
}
/* The 8-byte window a locked cmpxchg uses for [p, p+n), n <= 8, inside one
 * cache line: the aligned word when it contains the bytes, else a window
 * that stays inside the line. */
EDGEPROBE__INLINE unsigned char *edgeprobe__window(unsigned char *p, size_t n) {
    uintptr_t w = (uintptr_t)p & ~(uintptr_t)7, line_end = edgeprobe__line_of(p) + EDGEPROBE__LINE;
    if (w + 8 >= (uintptr_t)p + n) return (unsigned char *)w;
    return (unsigned char *)((uintptr_t)p + 8 <= line_end ? (uintptr_t)p : line_end - 8);
}

/* Marker sites (section 10): off NOP5 or NOP8, on `jmp rel32 target`. */
EDGEPROBE__INLINE size_t edgeprobe__site_len(unsigned flags) {
    return (flags & EDGEPROBE__F_NOP8) ? 8 : 5;
}
EDGEPROBE__INLINE size_t edgeprobe__site_form(const unsigned char *addr, const unsigned char *target,
                                          unsigned flags, int jump, unsigned char out[8]);
EDGEPROBE__INLINE size_t edgeprobe__site_form(const unsigned char *addr, const unsigned char *target,
                                          unsigned flags, int jump, unsigned char out[8]) {
    size_t n = edgeprobe__site_len(flags);
    if (!jump) {
        __builtin_memcpy(out, n == 8 ? edgeprobe__nop8 : edgeprobe__nop5, n);
    } else {
        int32_t rel = (int32_t)(target - (addr + 5));
        out[0] = EDGEPROBE__OP_JMP32;
        __builtin_memcpy(out + 1, &rel, 4);
        if (n == 8) __builtin_memcpy(out + 5, edgeprobe__nop3, 3);
    }
    return n;
}
#elif defined(__aarch64__) /* ================== aarch64 ================== */
/* A site is one A64 instruction: NOP, or `b target` (imm26, +-128 MiB). The
 * Arm ARM ("Concurrent modification and execution of instructions") lets one
 * thread replace a B or NOP by a B or NOP while other threads execute it:
 * each runs the old or the new instruction, nothing else. So one atomic
 * store of the aligned word switches a site - no straddlers, no Tmax - and
 * cache maintenance to the point of unification (__builtin___clear_cache:
 * DC CVAU, DSB ISH, IC IVAU, DSB ISH, ISB) makes the new instruction visible
 * to instruction fetch. A core that fetched the old one may run it until its
 * next context synchronisation: the guarantee the kernel's jump labels use.
 * Freestanding builds link libgcc (-lgcc) for __builtin___clear_cache, and
 * build with -mno-outline-atomics: libgcc's out-of-line atomics, the default
 * on aarch64 Linux, call getauxval from the C library. */
#define EDGEPROBE__LINE 64u
#ifndef EDGEPROBE_PAGE_SIZE
#define EDGEPROBE_PAGE_SIZE 4096       /* kernels with 16K or 64K pages: set it */
#endif
#define EDGEPROBE__PAGE ((unsigned)EDGEPROBE_PAGE_SIZE)
#define EDGEPROBE__A64_NOP 0xd503201fu
#define EDGEPROBE__A64_B 0x14000000u
#define EDGEPROBE__A64_IMM26 0x03ffffffu
#define EDGEPROBE__A64_B_REACH ((intptr_t)1 << 27) /* bytes, either way */

EDGEPROBE__INLINE uint64_t edgeprobe__ticks(void) {
    uint64_t v;
    __asm__ volatile("isb\n\tmrs %0, cntvct_el0" : "=r"(v) : : "memory");
    return v;
}
EDGEPROBE__INLINE void edgeprobe__pause(void) { __asm__ volatile("yield" ::: "memory"); }
/* This thread's identity: its TLS pointer. */
#define EDGEPROBE__SELF_ASM "mrs %0, tpidr_el0"

typedef uint32_t edgeprobe__word_t;
EDGEPROBE__INLINE unsigned char *edgeprobe__window(unsigned char *p, size_t n) {
    (void)n;
    return (unsigned char *)((uintptr_t)p & ~(uintptr_t)3);
}
EDGEPROBE__INLINE uint32_t edgeprobe__word_load(const void *p) {
    return __atomic_load_n((const uint32_t *)p, __ATOMIC_RELAXED);
}
EDGEPROBE__INLINE int edgeprobe__word_cas(void *p, uint32_t *expected, uint32_t desired) {
    return __atomic_compare_exchange_n((uint32_t *)p, expected, desired, 0, __ATOMIC_SEQ_CST,
                                       __ATOMIC_RELAXED);
}
EDGEPROBE__INLINE void edgeprobe__code_sync(void *p, size_t n) {
    __builtin___clear_cache((char *)p, (char *)p + n);
}

EDGEPROBE__INLINE size_t edgeprobe__site_len(unsigned flags) {
    (void)flags;
    return 4;
}
EDGEPROBE__INLINE size_t edgeprobe__site_form(const unsigned char *addr, const unsigned char *target,
                                          unsigned flags, int jump, unsigned char out[8]);
EDGEPROBE__INLINE size_t edgeprobe__site_form(const unsigned char *addr, const unsigned char *target,
                                          unsigned flags, int jump, unsigned char out[8]) {
    uint32_t insn = EDGEPROBE__A64_NOP;
    intptr_t d = target - addr;
    (void)flags;
    if (jump) {
        if ((d & 3) || d < -EDGEPROBE__A64_B_REACH || d >= EDGEPROBE__A64_B_REACH) return 0;
        insn = EDGEPROBE__A64_B | ((uint32_t)(d >> 2) & EDGEPROBE__A64_IMM26);
    }
    __builtin_memcpy(out, &insn, 4);
    return 4;
}
#endif /* ===================== end of the back ends ===================== */

/* Hosted Linux only: a freestanding program may not have set up the thread
 * pointer, and has no SIGTRAP handler that needs to know the thread. */
EDGEPROBE__INLINE_GPR uintptr_t edgeprobe__self(void) {
#ifndef EDGEPROBE_FREESTANDING
    uintptr_t self;
    __asm__(EDGEPROBE__SELF_ASM : "=r"(self));
    return self;
#else
    return 0;
#endif
}

/* ---- 11.2 the C library, under private names                 >>libc ----
 * The one type of the C library that the root (11.3) holds; the rest of the
 * C library, and the hooks a freestanding build supplies, are section 13. */
#ifndef EDGEPROBE_FREESTANDING
typedef struct edgeprobe__sigaction_t { /* glibc's struct sigaction, x86-64 */
    void (*action)(int, void *, void *);
    unsigned long mask[16];
    int flags;
    void (*restorer)(void);
} edgeprobe__sigaction_t;
#endif

/* ---- 11.3 the registry's types                              >>types ---- */
#define EDGEPROBE__SPARES 8         /* blocks of points kept for reuse     */
#define EDGEPROBE__FLIGHT_SETS 1024u /* in-flight table: sets, by cache line */
#define EDGEPROBE__FLIGHT_WAYS 8u   /* straddlers in flight per set          */
#define EDGEPROBE__CHUNK 1024u     /* point ids per chunk                   */
#ifndef EDGEPROBE_CORE_ONLY
#define EDGEPROBE__CHUNKS 4096u    /* => 4M points                          */
#else
#define EDGEPROBE__CHUNKS 64u      /* small targets: 64K points, 512 bytes  */
#endif
#define EDGEPROBE__STRIPES 16u     /* handler-entry counters, hit counters  */
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

/* A probe: a name, its state, and every site and point that bears it.
 * Carved from the registry arena (section 19) and never freed: handles stay valid.
 * Most probes have one site and one point: `sites` and `points` start as the
 * inline slots site0 and point0 and move to the heap only when they grow. */
struct edgeprobe__probe {
    struct edgeprobe__probe *next_hash;
    int count;                   /* on while > 0 */
    int nsites, site_cap;
    edgeprobe__site *sites;
    int npoints, point_cap;
    edgeprobe__point **points;
    int routed;                  /* TRACE lines go to `edgeprobe trace` (section 8) */
    int recorded;                /* hits go to the recorder's rings (section 30) */
    uint32_t hash;               /* edgeprobe__hash_str(name), computed once */
    const char *name;            /* NUL-terminated, in the arena after the probe */
    edgeprobe__site site0;
    edgeprobe__point *point0;
};

/* A handler binding: immutable once published, freed only after a sync. */
typedef struct edgeprobe__binding {
    edgeprobe_handler_fn fn;
    void *user;
    struct edgeprobe__binding *next_retired;
} edgeprobe__binding;
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
    int sync_fallback;           /* 1: serialising mode was wanted, but the
                                    kernel has no membarrier SYNC_CORE     */
    uint64_t tmax;
    int wx_strict;
    edgeprobe_log_fn log;
    void *log_arg;
    char env_enable[1024];       /* EDGEPROBE_ENABLE, validated           */
    /* registry */
    struct edgeprobe__probe **hash;
    unsigned hash_cap, nprobes;
    edgeprobe__point **marks;    /* markers' points by mark address (section 19)  */
    unsigned mark_cap, nmarks;
    edgeprobe__point *spare_points[EDGEPROBE__SPARES]; /* unloaded objects' */
    size_t spare_cap[EDGEPROBE__SPARES];                /* blocks (section 19)     */
    edgeprobe__point **chunks[EDGEPROBE__CHUNKS];
    int npoints;
    edgeprobe_discover_fn discover;
    void *discover_arg;
    /* handlers */
    volatile unsigned long entering[EDGEPROBE__STRIPES][8]; /* [stripe][epoch&1], padded */
    unsigned epoch;
    edgeprobe__binding *retired;
    edgeprobe__lock_t sync_lock; /* one edgeprobe_handler_sync at a time   */
    int forking;                 /* fork handlers running (section 19)     */
    uint64_t func_bind_gen;      /* last function-probe binding made (27)  */
    int fork_took;               /* 1: the fork's prepare took the locks   */
    struct edgeprobe__reader *readers; /* per-thread handler state (section 25)  */
    char *reader_chunk;          /* where the next records come from (25)  */
    int readers_fence;           /* 1: no membarrier; readers fence instead */
    /* code pages */
    edgeprobe__page *pages;
    unsigned page_cap, npages;
    unsigned long long pages_unloads; /* the loader's unload count they are for */
#if EDGEPROBE__HAS_PATCH
    /* low-level patching */
    edgeprobe__flight flights[EDGEPROBE__FLIGHT_SETS][EDGEPROBE__FLIGHT_WAYS];
    unsigned in_flight;          /* entries in use: 0 skips overlap checks */
    int trap_installed;
    int batch_sigtrap;           /* 0: no batch; 1: in one, threads not yet
                                  * checked for a blocked SIGTRAP; 2: checked */
#ifndef EDGEPROBE_FREESTANDING
    edgeprobe__sigaction_t trap_prev;
#endif
    uintptr_t tramps[EDGEPROBE__TRAMPS];
    unsigned ntramps;
#endif
    /* -finstrument-functions provider */
    struct edgeprobe__provider *provider;
    /* function probes on patchable entries (section 27) */
    struct edgeprobe__func_state *fstate;
    /* hit counts, per chunk of points: [stripe][id % CHUNK] (section 24) */
    uint64_t *hits[EDGEPROBE__CHUNKS];
    struct edgeprobe__control *control; /* section 8; NULL until started */
    struct edgeprobe__recorder *rec; /* section 30; NULL unless recording was asked for */
    /* registry arena (section 19): probes and names, one block per object's table */
    char *arena_next;
    size_t arena_left;
} edgeprobe__root;

/* One per object (weak + hidden: the linker keeps one copy per executable or
 * shared library). The ELF note below points at it. */
typedef struct edgeprobe__object {
    edgeprobe__root *root;
    int registered;
    int pinned;                  /* made undeletable: it may hold the SIGTRAP
                                    handler or the function trampolines    */
    edgeprobe__point *points;    /* its markers' points (section 19): a block with
                                    room for one per record                */
    size_t npoints, point_cap;
} edgeprobe__object;
/* The object's slot and the thread's handler record: defined once per object
 * by the implementation (weak and hidden), read by the enabled paths. */
extern edgeprobe__object edgeprobe__this_object __attribute__((visibility("hidden")));
#ifndef EDGEPROBE_FREESTANDING
extern __thread struct edgeprobe__reader *edgeprobe__my_reader
    __attribute__((visibility("hidden"), tls_model("initial-exec")));
#endif

/* The site table of this object, [__start, __stop). */
typedef struct edgeprobe__record {
    int32_t site, target, mark;
    uint32_t flags;              /* EDGEPROBE__F_* | kind << 16              */
    int32_t line;
    int32_t name, file, function;
} edgeprobe__record;
#define EDGEPROBE__RECORD_FLAGS(rec) ((rec)->flags & 0xffffu)
#define EDGEPROBE__RECORD_KIND(rec) ((rec)->flags >> 16)
/* This object's table of records, [__start, __stop). */
extern const edgeprobe__record __start_edgeprobe_sites[] __attribute__((visibility("hidden")));
extern const edgeprobe__record __stop_edgeprobe_sites[] __attribute__((visibility("hidden")));
/* The address a self-relative field names. Through an integer, so that the
 * result is not "based on" the field: the tables are const, the points they
 * name are written, and clang with LTO otherwise treats loads from the points
 * as loads from constant memory (and forwards stale values). */
EDGEPROBE__INLINE_GPR void *edgeprobe__rel(const int32_t *field) {
    return (void *)((uintptr_t)field + (uintptr_t)(intptr_t)*field);
}

/* gcc -flto renames a static function that two partitions share
 * NAME.lto_priv.N; it is still the one function the source calls NAME, so
 * that is its probe's name (as without LTO). Clones (.constprop, .isra,
 * .part, .cold) are other code and keep their suffixes. Used by the scan
 * (section 27.3) and the offline lister (tools/control_elf.c). */
EDGEPROBE__INLINE void edgeprobe__strip_lto_priv(char *name) {
    static const char tag[] = ".lto_priv.";
    char *p;
    if (!*name) return;
    for (p = name + 1; *p; p++) {
        const char *d;
        size_t i;
        for (i = 0; i < sizeof tag - 1 && p[i] == tag[i]; i++) {} /* stops at the NUL */
        if (i < sizeof tag - 1) continue;
        for (d = p + i; *d >= '0' && *d <= '9'; d++) {}
        if (!*d && d > p + sizeof tag - 1) {
            *p = 0;
            return;
        }
    }
}
EDGEPROBE__INLINE_GPR uint32_t edgeprobe__hash_ptr(uintptr_t p) {
    uint64_t h = (uint64_t)p * 0x9e3779b97f4a7c15ULL;
    return (uint32_t)(h >> 32);
}

/* ---- 11.4 hit counts: the enabled paths' side               >>count ----
 * Enabled TRACE, BRANCH and HANDLER sites count their hits (BRANCH_ON, on by
 * default, has no out-of-line path and counts nothing). A hot probe hit by
 * several threads must not become one contended cache line, so each point
 * has one counter per stripe; a chunk of EDGEPROBE__CHUNK points keeps
 * stripe s as one contiguous row [s][id % CHUNK], so hits on different
 * stripes never write the same line.
 *   - where the kernel publishes the current CPU through rseq (glibc 2.35
 *     and later), the stripe is the CPU number (mod EDGEPROBE__STRIPES) and
 *     the increment is one unlocked `addq`: an instruction is never split by
 *     preemption, so threads sharing a CPU never lose a count. A count can be
 *     lost only if a thread migrates between reading its CPU and the add
 *     while another thread hits the same point there, or on machines with
 *     more than EDGEPROBE__STRIPES CPUs (CPUs n and n + 16 share a stripe).
 *   - otherwise (older libc, rseq off, freestanding) the stripe is a hash of
 *     the thread pointer and the increment a locked add: exact, and
 *     contended only when two threads hash to the same stripe.
 * Cost and its floor: bench/control.c, bench/RESULTS.md. */
#if !defined(EDGEPROBE_FREESTANDING) && defined(__x86_64__) /* rseq's CPU through %fs */
/* glibc >= 2.35 (weak: absent before), under private names so that they
 * never clash with <sys/rseq.h>'s declarations (C++ linkage there). */
extern const ptrdiff_t edgeprobe__rseq_offset __asm__("__rseq_offset") __attribute__((weak));
extern const unsigned int edgeprobe__rseq_size __asm__("__rseq_size") __attribute__((weak));
#endif
EDGEPROBE__INLINE_GPR unsigned edgeprobe__hit_stripe(void) {
    return edgeprobe__hash_ptr(edgeprobe__self() >> 12) & (EDGEPROBE__STRIPES - 1);
}
EDGEPROBE__INLINE_GPR void edgeprobe__hit_add(uint64_t *row, unsigned id) {
    uint64_t *counter;
#if !defined(EDGEPROBE_FREESTANDING) && defined(__x86_64__)
    if (&edgeprobe__rseq_size && edgeprobe__rseq_size) {
        uint32_t cpu; /* struct rseq: cpu_id_start at 0, cpu_id at 4 */
        __asm__ volatile("movl %%fs:4(%1), %0" : "=r"(cpu) : "r"(edgeprobe__rseq_offset));
        counter = &row[(cpu & (EDGEPROBE__STRIPES - 1)) * EDGEPROBE__CHUNK + id % EDGEPROBE__CHUNK];
        __asm__ volatile("addq $1, %0" : "+m"(*counter)); /* one instruction, not locked */
        return;
    }
#endif
    counter = &row[edgeprobe__hit_stripe() * EDGEPROBE__CHUNK + id % EDGEPROBE__CHUNK];
    __atomic_fetch_add(counter, 1, __ATOMIC_RELAXED);
}
/* Count a hit of pt. Returns 1 when the point's TRACE lines go to
 * `edgeprobe trace` (9). */
EDGEPROBE__INLINE_GPR int edgeprobe__hit_point(edgeprobe__point *pt) {
    edgeprobe__root *r = __atomic_load_n(&edgeprobe__this_object.root, __ATOMIC_RELAXED);
    unsigned id = (unsigned)__atomic_load_n(&pt->id_plus_1, __ATOMIC_RELAXED) - 1u;
    struct edgeprobe__probe *p = __atomic_load_n(&pt->probe, __ATOMIC_RELAXED);
    uint64_t *row;
    if (r && id < EDGEPROBE__CHUNK * EDGEPROBE__CHUNKS && /* registered */
        (row = __atomic_load_n(&r->hits[id / EDGEPROBE__CHUNK], __ATOMIC_ACQUIRE)))
        edgeprobe__hit_add(row, id);
    return p && __atomic_load_n(&p->routed, __ATOMIC_RELAXED);
}
/* A marker's point, or NULL while its mark is not linked (section 19). */
EDGEPROBE__INLINE_GPR edgeprobe__point *edgeprobe__mark_point(edgeprobe__mark *m) {
    return __atomic_load_n(&m->point, __ATOMIC_ACQUIRE);
}
/* A marker's count. Out of line and cold: it adds one call to a site's
 * enabled path, not ~150 bytes of code to every probed function. Code size
 * is what disabled probes cost in large programs (bench/RESULTS.md, "Hit
 * counting"). */
EDGEPROBE__FN __attribute__((cold)) int edgeprobe__hit(edgeprobe__mark *m);
EDGEPROBE__INLINE void edgeprobe__count_hit(edgeprobe__mark *m) {
#if EDGEPROBE_HIT_COUNTS
    (void)edgeprobe__hit(m);
#else
    (void)m;
#endif
}
EDGEPROBE__INLINE void edgeprobe__count_point_hit(edgeprobe__point *pt) {
#if EDGEPROBE_HIT_COUNTS
    (void)edgeprobe__hit_point(pt);
#else
    (void)pt;
#endif
}
/* A TRACE hit: count it; 1 when its line goes to `edgeprobe trace`. */
EDGEPROBE__INLINE_GPR int edgeprobe__trace_point_hit(edgeprobe__point *pt) {
#if EDGEPROBE_HIT_COUNTS
    return edgeprobe__hit_point(pt);
#else
    struct edgeprobe__probe *p = __atomic_load_n(&pt->probe, __ATOMIC_RELAXED);
    return p && __atomic_load_n(&p->routed, __ATOMIC_RELAXED);
#endif
}
EDGEPROBE__INLINE int edgeprobe__trace_hit(edgeprobe__mark *m) {
#if EDGEPROBE_HIT_COUNTS
    return edgeprobe__hit(m); /* out of line, as above */
#else
    edgeprobe__point *pt = edgeprobe__mark_point(m);
    return pt && edgeprobe__trace_point_hit(pt);
#endif
}

/* ---- 11.5 handler dispatch: the enabled path            >>dispatch ----
 * A thread's handler calls, counted in its own record with plain stores, so
 * that edgeprobe_handler_sync can wait for them; section 25 has the whole
 * protocol. */
struct edgeprobe__binding_full {
    edgeprobe__binding b;
    edgeprobe_info info;
};
typedef struct edgeprobe__reader {
    unsigned long depth;         /* handler calls in progress; owner writes */
    unsigned long gen;           /* outermost calls completed; owner writes */
    struct edgeprobe__reader *next; /* the root's list: push-only          */
    int tid;                     /* the owner (0: unknown); see wait_readers */
    int guarded;                 /* guarded stretches in progress; owner writes (DEFERRED SIGNALS) */
    unsigned long deferred;      /* signals 1-64 held back until depth and guarded are 0 */
    char pad[24];                /* one cache line per thread              */
} edgeprobe__reader;
#ifndef EDGEPROBE_FREESTANDING
EDGEPROBE__FN void edgeprobe__signals_release(edgeprobe__reader *rd);
#define edgeprobe__reader_tls() edgeprobe__my_reader
#else
#define edgeprobe__reader_tls() ((edgeprobe__reader *)0)
#endif
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
    if (d) return;
    __atomic_store_n(&rd->gen, __atomic_load_n(&rd->gen, __ATOMIC_RELAXED) + 1, __ATOMIC_RELEASE);
#ifndef EDGEPROBE_FREESTANDING
    __atomic_signal_fence(__ATOMIC_SEQ_CST); /* depth 0 first: a signal from here runs now */
    if (__builtin_expect(__atomic_load_n(&rd->deferred, __ATOMIC_RELAXED) != 0, 0)) edgeprobe__signals_release(rd);
#endif
}
EDGEPROBE__INLINE void edgeprobe__call_binding(edgeprobe__point *pt, uintptr_t value) {
    struct edgeprobe__binding_full *b =
        (struct edgeprobe__binding_full *)__atomic_load_n(&pt->binding, __ATOMIC_ACQUIRE);
    if (b) b->b.fn(&b->info, b->b.user, value);
}
/* The handler site's enabled path. cold: calls to it mark that path as
 * unlikely, so the compiler moves it out of the hot function (and keeps
 * this small function in .text.unlikely; the fast path is a few loads and
 * stores either way). A thread with its record takes no lock. */
EDGEPROBE__FN __attribute__((cold)) void edgeprobe__dispatch(edgeprobe__mark *m, uintptr_t value);
/* EDGEPROBE_HANDLER_INLINE: the same fast path, inlined into the site's
 * enabled block (one call/return pair less); anything unusual goes to
 * edgeprobe__dispatch. */
EDGEPROBE__INLINE void edgeprobe__dispatch_inline(edgeprobe__mark *m, uintptr_t value) {
    edgeprobe__root *r = __atomic_load_n(&edgeprobe__this_object.root, __ATOMIC_RELAXED);
    edgeprobe__reader *rd = edgeprobe__reader_tls();
    edgeprobe__point *pt = edgeprobe__mark_point(m);
    if (__builtin_expect(!rd || !r || !pt || __atomic_load_n(&r->readers_fence, __ATOMIC_RELAXED), 0)) {
        edgeprobe__dispatch(m, value);
        return;
    }
    edgeprobe__count_point_hit(pt);
    edgeprobe__reader_in(r, rd);
    edgeprobe__call_binding(pt, value);
    edgeprobe__reader_out(edgeprobe__reader_tls());
}
#ifndef EDGEPROBE_FREESTANDING
/* TRACE lines bound for `edgeprobe trace` (the markers call it). */
void edgeprobe__route_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2), cold));
#endif /* !EDGEPROBE_FREESTANDING: section 8 */
#if defined(__x86_64__) /* section 7 is x86-64 only: its stubs and trampoline */

/* ---- 11.6 argument probes: the marker                    >>args-site ---- */
#ifdef __cplusplus
#define EDGEPROBE__ARGVAL(x) ((x) + 0)
#else
#define EDGEPROBE__ARGVAL(x) (1 ? (x) : (x))
#endif
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
#if defined(__clang__)
#define EDGEPROBE__WHERE "nr"
#define EDGEPROBE__WHERE_FP "nr"
#else
#define EDGEPROBE__WHERE "nor"
#define EDGEPROBE__WHERE_FP "norx"
#endif
#define EDGEPROBE__ARGOPS(i, x)                                                \
    , [edgeprobe__s##i] "n"(EDGEPROBE__ARGSIZE(x)), [edgeprobe__a##i] EDGEPROBE__WHERE(EDGEPROBE__ARGVAL(x))
#define EDGEPROBE__SPEC1(i) "%c[edgeprobe__s" #i "]@%[edgeprobe__a" #i "]"
/* After the spec, each argument's operand once more, in an instruction the
 * assembler encodes and the linker relocates: the one place a symbol in a
 * memory operand (gcc: a volatile global, `counter(%rip)`, or without PIE
 * `table(,%rax,8)`) becomes an address the run-time parser can read
 * (section 29.3). Never executed. */
#define EDGEPROBE__LOCATE1(i) "movq %q[edgeprobe__a" #i "], %%r11\n"
#ifndef EDGEPROBE__RED_ZONE
#define EDGEPROBE__RED_ZONE 128
#endif
/* The stubs call the trampoline through one pointer per object, which the
 * implementation sets to the variant that saves every vector register the
 * CPU and OS enable (section 29.2) - whatever this file was compiled for:
 * LTO and target attributes put AVX code into files built without -mavx. */
#define EDGEPROBE__ARGS_TRAMP_PTR "edgeprobe__args_tramp_ptr"
/* Site, note, argsite (data), stub (cold text), record; the record's
 * operands (EDGEPROBE__RECORD_OPS) and the argument count `n`, a literal;
 * `locate`, EDGEPROBE__LOCATE_n (a hand-written site writes its own).
 * `tail` ends the argsite's header: "0, 0" for PROBE, the format and sink
 * for TRACE. */
#define EDGEPROBE__PROBE_ASM(pname, n, spec, locate) EDGEPROBE__ARGSITE_ASM(pname, n, spec, locate, "0, 0")
#define EDGEPROBE__ARGSITE_ASM(pname, n, spec, locate, tail)                   \
    EDGEPROBE__NOP_ASM                                                         \
    EDGEPROBE__USDT_ASM(pname, spec)                                           \
    ".pushsection .data,\"aw\",@progbits\n"                                    \
    ".balign 8\n"                                                              \
    "3: .long %c[edgeprobe__m] - ., " #n ", 0, 0, " tail "\n"                  \
    ".fill 2 * " #n ", 8, 0\n"                                                  \
    ".asciz \"" spec "\"\n"                                                    \
    locate                                                                     \
    ".popsection\n"                                                            \
    ".pushsection .text.unlikely,\"ax\",@progbits\n"                           \
    EDGEPROBE__NEED_IMPL_TEXT_ASM                                              \
    ".balign 4\n.long 3b - .\n"                                               \
    "2: lea -" EDGEPROBE__STR(EDGEPROBE__RED_ZONE) "(%%rsp), %%rsp\n"          \
    ".hidden " EDGEPROBE__ARGS_TRAMP_PTR "\n"                                  \
    "call *" EDGEPROBE__ARGS_TRAMP_PTR "(%%rip)\n"                              \
    "lea " EDGEPROBE__STR(EDGEPROBE__RED_ZONE) "(%%rsp), %%rsp\n"              \
    "jmp 1b + " EDGEPROBE__STR(EDGEPROBE_SITE_BYTES) "\n"                      \
    ".popsection\n"                                                            \
    EDGEPROBE__MARKER_RECORD_ASM("2b", pname)
#ifdef EDGEPROBE_DISABLE_ALL
#define EDGEPROBE__PROBE_IMPL(pname, n, spec, checks, ops) do { checks } while (0)
#else
#define EDGEPROBE__PROBE_IMPL(pname, n, spec, checks, ops)                     \
    do {                                                                       \
        EDGEPROBE__MARK_DEF(edgeprobe__mk);                                    \
        checks                                                                 \
        __asm__ __volatile__(EDGEPROBE__PROBE_ASM(pname, n, spec, EDGEPROBE__LOCATE_##n) \
                             : : EDGEPROBE__RECORD_OPS(edgeprobe__mk,          \
                                   EDGEPROBE__KIND_FLAGS(EDGEPROBE_KIND_PROBE, EDGEPROBE__F_ARGS)) ops); \
    } while (0)
#endif

/* EDGEPROBE_PROBE(name, a0, ..., a11): count the arguments, then one
 * expansion per count. */
#define EDGEPROBE__CAT2(a, b) a##b
#define EDGEPROBE__CAT(a, b) EDGEPROBE__CAT2(a, b)
#define EDGEPROBE__NARGS(...) EDGEPROBE__NARGS_(__VA_ARGS__, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, _)
#define EDGEPROBE__NARGS_(n, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, N, ...) N
#define EDGEPROBE__PROBE(...) EDGEPROBE__CAT(EDGEPROBE__PROBE_, EDGEPROBE__NARGS(__VA_ARGS__))(__VA_ARGS__)

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
#define EDGEPROBE__LOCATE_0 ""
#define EDGEPROBE__LOCATE_1 EDGEPROBE__LOCATE1(0)
#define EDGEPROBE__LOCATE_2 EDGEPROBE__LOCATE_1 EDGEPROBE__LOCATE1(1)
#define EDGEPROBE__LOCATE_3 EDGEPROBE__LOCATE_2 EDGEPROBE__LOCATE1(2)
#define EDGEPROBE__LOCATE_4 EDGEPROBE__LOCATE_3 EDGEPROBE__LOCATE1(3)
#define EDGEPROBE__LOCATE_5 EDGEPROBE__LOCATE_4 EDGEPROBE__LOCATE1(4)
#define EDGEPROBE__LOCATE_6 EDGEPROBE__LOCATE_5 EDGEPROBE__LOCATE1(5)
#define EDGEPROBE__LOCATE_7 EDGEPROBE__LOCATE_6 EDGEPROBE__LOCATE1(6)
#define EDGEPROBE__LOCATE_8 EDGEPROBE__LOCATE_7 EDGEPROBE__LOCATE1(7)
#define EDGEPROBE__LOCATE_9 EDGEPROBE__LOCATE_8 EDGEPROBE__LOCATE1(8)
#define EDGEPROBE__LOCATE_10 EDGEPROBE__LOCATE_9 EDGEPROBE__LOCATE1(9)
#define EDGEPROBE__LOCATE_11 EDGEPROBE__LOCATE_10 EDGEPROBE__LOCATE1(10)
#define EDGEPROBE__LOCATE_12 EDGEPROBE__LOCATE_11 EDGEPROBE__LOCATE1(11)
/* Per-argument checks (C: m(x)) and operands (O: m(i, x)), accumulated left
 * to right; m is the per-argument macro of PROBE or TRACE. */
#define EDGEPROBE__C1(m, a) m(a)
#define EDGEPROBE__O1(m, a) m(0, a)
#define EDGEPROBE__C2(m, a, b) EDGEPROBE__C1(m, a) m(b)
#define EDGEPROBE__O2(m, a, b) EDGEPROBE__O1(m, a) m(1, b)
#define EDGEPROBE__C3(m, a, b, c) EDGEPROBE__C2(m, a, b) m(c)
#define EDGEPROBE__O3(m, a, b, c) EDGEPROBE__O2(m, a, b) m(2, c)
#define EDGEPROBE__C4(m, a, b, c, d) EDGEPROBE__C3(m, a, b, c) m(d)
#define EDGEPROBE__O4(m, a, b, c, d) EDGEPROBE__O3(m, a, b, c) m(3, d)
#define EDGEPROBE__C5(m, a, b, c, d, e) EDGEPROBE__C4(m, a, b, c, d) m(e)
#define EDGEPROBE__O5(m, a, b, c, d, e) EDGEPROBE__O4(m, a, b, c, d) m(4, e)
#define EDGEPROBE__C6(m, a, b, c, d, e, f) EDGEPROBE__C5(m, a, b, c, d, e) m(f)
#define EDGEPROBE__O6(m, a, b, c, d, e, f) EDGEPROBE__O5(m, a, b, c, d, e) m(5, f)
#define EDGEPROBE__C7(m, a, b, c, d, e, f, g) EDGEPROBE__C6(m, a, b, c, d, e, f) m(g)
#define EDGEPROBE__O7(m, a, b, c, d, e, f, g) EDGEPROBE__O6(m, a, b, c, d, e, f) m(6, g)
#define EDGEPROBE__C8(m, a, b, c, d, e, f, g, h) EDGEPROBE__C7(m, a, b, c, d, e, f, g) m(h)
#define EDGEPROBE__O8(m, a, b, c, d, e, f, g, h) EDGEPROBE__O7(m, a, b, c, d, e, f, g) m(7, h)
#define EDGEPROBE__C9(m, a, b, c, d, e, f, g, h, i) EDGEPROBE__C8(m, a, b, c, d, e, f, g, h) m(i)
#define EDGEPROBE__O9(m, a, b, c, d, e, f, g, h, i) EDGEPROBE__O8(m, a, b, c, d, e, f, g, h) m(8, i)
#define EDGEPROBE__C10(m, a, b, c, d, e, f, g, h, i, j) EDGEPROBE__C9(m, a, b, c, d, e, f, g, h, i) m(j)
#define EDGEPROBE__O10(m, a, b, c, d, e, f, g, h, i, j) EDGEPROBE__O9(m, a, b, c, d, e, f, g, h, i) m(9, j)
#define EDGEPROBE__C11(m, a, b, c, d, e, f, g, h, i, j, k) \
    EDGEPROBE__C10(m, a, b, c, d, e, f, g, h, i, j) m(k)
#define EDGEPROBE__O11(m, a, b, c, d, e, f, g, h, i, j, k) \
    EDGEPROBE__O10(m, a, b, c, d, e, f, g, h, i, j) m(10, k)
#define EDGEPROBE__C12(m, a, b, c, d, e, f, g, h, i, j, k, l) \
    EDGEPROBE__C11(m, a, b, c, d, e, f, g, h, i, j, k) m(l)
#define EDGEPROBE__O12(m, a, b, c, d, e, f, g, h, i, j, k, l) \
    EDGEPROBE__O11(m, a, b, c, d, e, f, g, h, i, j, k) m(11, l)
#define EDGEPROBE__PROBE_0(pname) EDGEPROBE__PROBE_IMPL(pname, 0, EDGEPROBE__SPEC_0, , )
#define EDGEPROBE__PROBE_N(n, pname, ...)                                      \
    EDGEPROBE__PROBE_IMPL(pname, n, EDGEPROBE__SPEC_##n, EDGEPROBE__C##n(EDGEPROBE__ARGCHECK, __VA_ARGS__), \
                          EDGEPROBE__O##n(EDGEPROBE__ARGOPS, __VA_ARGS__))
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

/* ---- 11.7 TRACE as an argument probe: the marker        >>trace-site ----
 * EDGEPROBE_TRACE(name, "fmt", args...) on x86-64 hosted C builds (section
 * 3 says when): an argument site whose argsite also points at the format
 * and at this TU's sink function. Enabled with no args handler, the
 * trampoline's call lands in edgeprobe__trace_args_hit, which formats the
 * line from the recorded locations with one call of the C library's
 * vsnprintf (section 29.4's va_list) and hands it to the sink (or to `edgeprobe
 * trace`).
 *
 * Arguments: integers and pointers as for PROBE; float and double travel
 * as the 64 bits of a double (gcc leaves them in their xmm register, which
 * the trampoline saved). The format is checked at compile time against the
 * arguments, as printf's is (the `if (0)` call below never runs). At a
 * site's first switch-on the format is checked against the argument count:
 * a format with %n, positional conversions (%1$d) or more conversions than
 * arguments is refused (EDGEPROBE_EINVAL), with a message in the log. Long
 * double is refused at compile time. A line longer than 512 bytes is
 * formatted again into a heap buffer. The marker is C only (section 3). */
#if EDGEPROBE__TRACE_ARGS_FORM
#define EDGEPROBE__IS_FP(x) (__builtin_classify_type(x) == 8) /* real_type_class */
#define EDGEPROBE__TRACE_CHECK(x)                                              \
    EDGEPROBE__ASSERT(EDGEPROBE__ARGOK(x) || (EDGEPROBE__IS_FP(x) && sizeof(x) <= 8), \
                      "EDGEPROBE_TRACE arguments must be integers, pointers, float or double "  \
                      "(not long double, struct or union; or use EDGEPROBE_TRACE_LAZY): " #x);  \
    EDGEPROBE__ASSERT(EDGEPROBE__ARGBYTES(x) <= 8, "EDGEPROBE_TRACE arguments must be at most 64 bits wide: " #x);
/* A floating-point argument as the bits of a double; others as for PROBE.
 * The inner choice keeps the cast to double valid for pointer arguments. */
#define EDGEPROBE__TRACE_VAL(x)                                                \
    __builtin_choose_expr(EDGEPROBE__IS_FP(x),                                 \
                          ((union { double d; uint64_t u; }){(double)__builtin_choose_expr(EDGEPROBE__IS_FP(x), (x), 0)}).u, \
                          EDGEPROBE__ARGVAL(x))
#define EDGEPROBE__TRACE_OPS(i, x)                                             \
    , [edgeprobe__s##i] "n"(EDGEPROBE__IS_FP(x) ? 8 : EDGEPROBE__ARGSIZE(x)),  \
        [edgeprobe__a##i] EDGEPROBE__WHERE_FP(EDGEPROBE__TRACE_VAL(x))
/* The sink, once per file: EDGEPROBE_SINK as this file defines it. static: one
 * per file; inline: emitted only by a file whose TRACE takes its address. */
static inline __attribute__((unused, cold)) void edgeprobe__trace_sink(const char *line) {
    (void)EDGEPROBE_SINK("%s", line);
}
/* Never called; gives the compiler's printf format check its arguments. */
int edgeprobe__trace_format_check(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#define EDGEPROBE__FIRST(...) EDGEPROBE__FIRST_(__VA_ARGS__, _)
#define EDGEPROBE__FIRST_(a, ...) a
/* __VA_ARGS__: the format, then the arguments. */
#define EDGEPROBE__TRACE_IMPL(pname, n, spec, checks, ops, ...)                \
    do {                                                                       \
        EDGEPROBE__MARK_DEF(edgeprobe__mk);                                    \
        EDGEPROBE__ASSERT(__builtin_constant_p(EDGEPROBE__FIRST(__VA_ARGS__)), \
                          "EDGEPROBE_TRACE: the format must be a string literal (or use EDGEPROBE_TRACE_LAZY)"); \
        checks                                                                 \
        if (0) (void)edgeprobe__trace_format_check(__VA_ARGS__);               \
        __asm__ __volatile__(EDGEPROBE__ARGSITE_ASM(pname, n, spec, EDGEPROBE__LOCATE_##n,   \
                                                    "%c[edgeprobe__fmt] - ., %c[edgeprobe__sink] - .") \
                             : : EDGEPROBE__RECORD_OPS(edgeprobe__mk,          \
                                   EDGEPROBE__KIND_FLAGS(EDGEPROBE_KIND_TRACE, EDGEPROBE__F_ARGS)), \
                               [edgeprobe__fmt] "i"(EDGEPROBE__FIRST(__VA_ARGS__)), \
                               [edgeprobe__sink] "i"(&edgeprobe__trace_sink) ops); \
    } while (0)
#define EDGEPROBE__TRACE_ARGS(pname, ...)                                      \
    EDGEPROBE__CAT(EDGEPROBE__TRACE_, EDGEPROBE__NARGS(__VA_ARGS__))(pname, __VA_ARGS__)
#define EDGEPROBE__TRACE_0(pname, ...) EDGEPROBE__TRACE_IMPL(pname, 0, EDGEPROBE__SPEC_0, , , __VA_ARGS__)
#define EDGEPROBE__TRACE_N(n, pname, fmt, ...)                                 \
    EDGEPROBE__TRACE_IMPL(pname, n, EDGEPROBE__SPEC_##n, EDGEPROBE__C##n(EDGEPROBE__TRACE_CHECK, __VA_ARGS__), \
                          EDGEPROBE__O##n(EDGEPROBE__TRACE_OPS, __VA_ARGS__), fmt, __VA_ARGS__)
#define EDGEPROBE__TRACE_1(pname, ...) EDGEPROBE__TRACE_N(1, pname, __VA_ARGS__)
#define EDGEPROBE__TRACE_2(pname, ...) EDGEPROBE__TRACE_N(2, pname, __VA_ARGS__)
#define EDGEPROBE__TRACE_3(pname, ...) EDGEPROBE__TRACE_N(3, pname, __VA_ARGS__)
#define EDGEPROBE__TRACE_4(pname, ...) EDGEPROBE__TRACE_N(4, pname, __VA_ARGS__)
#define EDGEPROBE__TRACE_5(pname, ...) EDGEPROBE__TRACE_N(5, pname, __VA_ARGS__)
#define EDGEPROBE__TRACE_6(pname, ...) EDGEPROBE__TRACE_N(6, pname, __VA_ARGS__)
#define EDGEPROBE__TRACE_7(pname, ...) EDGEPROBE__TRACE_N(7, pname, __VA_ARGS__)
#define EDGEPROBE__TRACE_8(pname, ...) EDGEPROBE__TRACE_N(8, pname, __VA_ARGS__)
#define EDGEPROBE__TRACE_9(pname, ...) EDGEPROBE__TRACE_N(9, pname, __VA_ARGS__)
#define EDGEPROBE__TRACE_10(pname, ...) EDGEPROBE__TRACE_N(10, pname, __VA_ARGS__)
#define EDGEPROBE__TRACE_11(pname, ...) EDGEPROBE__TRACE_N(11, pname, __VA_ARGS__)
#define EDGEPROBE__TRACE_12(pname, ...) EDGEPROBE__TRACE_N(12, pname, __VA_ARGS__)
#endif /* EDGEPROBE__TRACE_ARGS_FORM */
#endif /* section 7 */

#if !defined(__x86_64__) /* aarch64: argument probes are not there (section 10) */
__attribute__((error("edgeprobe: EDGEPROBE_PROBE is x86-64 only"))) void edgeprobe__probe_x86_64_only(void);
#define EDGEPROBE__PROBE(...) edgeprobe__probe_x86_64_only()
#endif

/* ---- 11.8 recording: a thread's ring                   >>ring-layout ----
 * Section 30 writes it; `edgeprobe record` reads what a crash leaves of it
 * in a ring file (EDGEPROBE_RECORD_SHM), so its layout is here, for both. */
#define EDGEPROBE__RING_HEAD 256u          /* bytes before the words       */
typedef struct edgeprobe__ring {
    uint64_t wpos, head, lost;
    uint64_t oldest;             /* flight mode: first whole event kept    */
    int busy;
    char pad0[28];
    uint64_t tail;               /* the consumer's: copied to the file     */
    uint64_t drained;            /* the consumer's: copied, not yet written */
    uint64_t file_end;           /* the consumer's: file offset its copy ends */
    char pad1[40];
    struct edgeprobe__ring *next;
    int tid;
    unsigned flight;             /* 1: overwrite (flight recorder)         */
    uint64_t mask;
    char name[16];
    uint64_t magic;              /* EDGEPROBE__RING_MAGIC: a ring file     */
} edgeprobe__ring;
#define EDGEPROBE__RING_MAGIC 0x31474e4952504525ull /* "%EPRING1" */
EDGEPROBE__INLINE_GPR uint64_t *edgeprobe__ring_words(edgeprobe__ring *g) {
    return (uint64_t *)(void *)((char *)g + EDGEPROBE__RING_HEAD);
}

#ifdef EDGEPROBE_IMPLEMENTATION
/* ======================================================================
 * THE IMPLEMENTATION: compiled in the one file of each executable or
 * shared library that defines EDGEPROBE_IMPLEMENTATION         >>impl
 *
 * Every function is hidden: each object has its own copy, and all copies
 * operate on the one root (section 14). They are also weak, as they were
 * when every file compiled them: gcc never inlines a weak function, so the
 * code and its measured costs stay as they were. Nothing here is a per-file
 * `static` variable.
 * ====================================================================== */
/* Never instrumented, never a function probe: edgeprobe's own code must not
 * call itself from a probe, whatever flags the including file is built with. */

/* ---- 12. x86-64 instruction lengths                          >>insn ----
 * What the low-level patch API (section 9) needs to check the instructions
 * it is handed, and the argument sites (section 29.3) to read the
 * displacements the linker wrote; the rest of the back ends is section 11.1. */
#if defined(__x86_64__)
/* Where an instruction's 32-bit memory displacement is, if it has one: what
 * the argument sites need (section 29.3). */
typedef struct {
    int disp32_at;               /* offset in the instruction, or -1        */
    int rip_relative;            /* the displacement counts from its end    */
} edgeprobe__insn_disp;
/* x86-64 instruction length, enough to verify what a caller claims about a
 * site: legacy prefixes, REX, the one-byte map, 0f, 0f 38 and 0f 3a maps.
 * Returns 0 for what it does not know (VEX/EVEX, invalid opcodes): such an
 * instruction is refused, never guessed. With d, also where its memory
 * operand's 32-bit displacement is. */
EDGEPROBE__FN size_t edgeprobe__insn_decode(const unsigned char *p, size_t avail, edgeprobe__insn_disp *d);
EDGEPROBE__FN size_t edgeprobe__insn_decode(const unsigned char *p, size_t avail, edgeprobe__insn_disp *d) {
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
    int opsize16 = 0, addr32 = 0, rexw = 0, modrm = 0, imm = 0, disp32_at = -1, rip_relative = 0;
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
            if (mod == 0 && (p[i] & 7) == 5) disp32_at = (int)i + 1, i += 4; /* no base */
            i++;
        }
        if (mod == 1) i += 1;
        else if (mod == 2 || (mod == 0 && rm == 5)) {
            disp32_at = (int)i;
            rip_relative = mod == 0 && rm == 5;
            i += 4;
        }
    }
    n = i + (size_t)imm;
    if (n > avail || n > 15) return 0;
    if (d) d->disp32_at = disp32_at, d->rip_relative = rip_relative;
    return n;
}
#define edgeprobe__insn_len(p, avail) edgeprobe__insn_decode((p), (avail), 0)
#endif /* __x86_64__ */

/* ---- 13. OS hooks                                              >>os ----
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
 *        execute a serialising instruction       (optional: ENOTSUP; x86-64)
 *   EDGEPROBE_OS_MAP_NEAR(hint, bytes) -> executable page near
 *        hint, or NULL                            (optional: call patch 1|4
 *                                                 split then fails ERANGE;
 *                                                 x86-64)
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
int edgeprobe__libc_madvise(void *, size_t, int) __asm__("madvise");
#define EDGEPROBE__MADV_POPULATE_WRITE 23
void *edgeprobe__libc_calloc(size_t, size_t) __asm__("calloc");
void edgeprobe__libc_free(void *) __asm__("free");
int edgeprobe__libc_sched_yield(void) __asm__("sched_yield");
char *edgeprobe__libc_getenv(const char *) __asm__("getenv");
int edgeprobe__libc_vsnprintf(char *, size_t, const char *, __builtin_va_list) __asm__("vsnprintf");
long edgeprobe__libc_write(int, const void *, size_t) __asm__("write");
int *edgeprobe__libc_errno(void) __asm__("__errno_location");
int edgeprobe__libc_sigaction(int, const edgeprobe__sigaction_t *, edgeprobe__sigaction_t *) __asm__("sigaction");
int edgeprobe__libc_raise(int) __asm__("raise");
int edgeprobe__libc_dl_iterate_phdr(int (*)(edgeprobe__dl_phdr_info *, size_t, void *), void *) __asm__("dl_iterate_phdr");
int edgeprobe__libc_dladdr(const void *, edgeprobe__dl_info *) __asm__("dladdr");
void *edgeprobe__libc_dlopen(const char *, int) __asm__("dlopen");
long edgeprobe__libc_readlink(const char *, char *, size_t) __asm__("readlink");
int edgeprobe__libc_open(const char *, int, ...) __asm__("open");
int edgeprobe__libc_getpid(void) __asm__("getpid");
int edgeprobe__libc_pthread_atfork(void (*)(void), void (*)(void), void (*)(void)) __asm__("pthread_atfork");
long edgeprobe__libc_read(int, void *, size_t) __asm__("read");
int edgeprobe__libc_close(int) __asm__("close");

#define EDGEPROBE__PROT_RX 5    /* PROT_READ | PROT_EXEC              */
#define EDGEPROBE__PROT_RWX 7
#define EDGEPROBE__MAP_ANON_PRIVATE 0x22
#define EDGEPROBE__MAP_FIXED_NOREPLACE 0x100000
#define EDGEPROBE__SIGTRAP 5
#define EDGEPROBE__SA_SIGINFO 4
#define EDGEPROBE__SA_RESTART 0x10000000
#define EDGEPROBE__SA_ONSTACK 0x08000000
#define EDGEPROBE__SA_NODEFER 0x40000000
#define EDGEPROBE__SI_KERNEL 0x80
#define EDGEPROBE__RTLD_PIN (2 | 4 | 0x1000) /* NOW | NOLOAD | NODELETE */
#define EDGEPROBE__PT_NOTE 4
#define EDGEPROBE__SYS_MEMBARRIER 324
#define EDGEPROBE__MB_QUERY 0
#define EDGEPROBE__MB_SYNC_CORE (1 << 5)
#define EDGEPROBE__MB_REGISTER_SYNC_CORE (1 << 6)
#if EDGEPROBE__HAS_PATCH /* straddlers' membarrier, the call patch's trampolines */
EDGEPROBE__INLINE long edgeprobe__syscall3(long nr, long a, long b, long c) {
    long ret;
    __asm__ volatile("syscall" : "=a"(ret) : "a"(nr), "D"(a), "S"(b), "d"(c)
                     : "rcx", "r11", "memory");
    return ret;
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
#define EDGEPROBE_OS_SERIALIZE() edgeprobe__os_serialize()
#define EDGEPROBE_OS_MAP_NEAR(hint, bytes) edgeprobe__os_map_near(hint, bytes)
#endif /* EDGEPROBE__HAS_PATCH */
EDGEPROBE__FN int edgeprobe__os_protect(void *page, size_t len, int writable);
EDGEPROBE__FN int edgeprobe__os_protect(void *page, size_t len, int writable) {
    if (edgeprobe__libc_mprotect(page, len, writable ? EDGEPROBE__PROT_RWX : EDGEPROBE__PROT_RX))
        return -*edgeprobe__libc_errno();
    return 0;
}
#define EDGEPROBE_OS_PROTECT(page, len, w) edgeprobe__os_protect(page, len, w)
#define EDGEPROBE_OS_ALLOC(bytes) edgeprobe__libc_calloc(1, bytes)
#define EDGEPROBE_OS_FREE(p) edgeprobe__libc_free(p)
#define EDGEPROBE_OS_YIELD() ((void)edgeprobe__libc_sched_yield())
#define EDGEPROBE_OS_LOG(msg) ((void)edgeprobe__dprintf(2, "edgeprobe: %s\n", msg))
unsigned long edgeprobe__libc_getauxval(unsigned long) __asm__("getauxval");
#define EDGEPROBE__AT_SECURE 23
/* Settings from the environment: none in a privileged process (setuid,
 * setgid, file capabilities: the kernel's AT_SECURE), whose environment is
 * the invoking user's and must not steer it - secure_getenv's rule, for
 * every variable edgeprobe reads. edgeprobe__root_create says so once. */
EDGEPROBE__FN const char *edgeprobe__getenv(const char *name);
EDGEPROBE__FN const char *edgeprobe__getenv(const char *name) {
    return edgeprobe__libc_getauxval(EDGEPROBE__AT_SECURE) ? (const char *)0 : edgeprobe__libc_getenv(name);
}
#define EDGEPROBE__GETENV(name) edgeprobe__getenv(name)
/* The variables edgeprobe reads, for that one line. */
#define EDGEPROBE__ENV_NAMES "EDGEPROBE_ENABLE", "EDGEPROBE_TMAX", "EDGEPROBE_WX", "EDGEPROBE_SYNC", \
    "EDGEPROBE_MEMBARRIER", "EDGEPROBE_VERBOSE", "EDGEPROBE_CONTROL", "XDG_RUNTIME_DIR"

/* Scratch memory for a line too long for the stack: mmap, which a signal
 * handler may call (malloc it may not: the thread it interrupted may be
 * inside malloc, holding its lock). NULL when none can be had. */
EDGEPROBE__FN char *edgeprobe__scratch(size_t bytes);
EDGEPROBE__FN char *edgeprobe__scratch(size_t bytes) {
    void *p = edgeprobe__libc_mmap(0, bytes, 3 /* RW */, EDGEPROBE__MAP_ANON_PRIVATE, -1, 0);
    return p == (void *)-1 ? (char *)0 : (char *)p;
}
/* All of [p, p+n) to fd, with write(2): no stdio, no lock, no allocation. */
EDGEPROBE__FN void edgeprobe__write_all(int fd, const char *p, size_t n);
EDGEPROBE__FN void edgeprobe__write_all(int fd, const char *p, size_t n) {
    while (n) {
        long w = edgeprobe__libc_write(fd, p, n);
        if (w <= 0) {
            if (w < 0 && *edgeprobe__libc_errno() == 4 /* EINTR */) continue;
            return;
        }
        p += w, n -= (size_t)w;
    }
}
/* printf to fd as the probes' paths must: formatted on the stack (or, for a
 * line over 511 bytes, in scratch memory), written with write(2). Safe in a
 * signal handler as far as vsnprintf is (glibc's takes no lock and
 * allocates nothing for the conversions of integers, strings and floating
 * point of ordinary precision). */
EDGEPROBE__FN int edgeprobe__vdprintf(int fd, const char *fmt, __builtin_va_list ap);
EDGEPROBE__FN int edgeprobe__vdprintf(int fd, const char *fmt, __builtin_va_list ap) {
    char small[512], *line = small;
    __builtin_va_list again;
    int n;
    __builtin_va_copy(again, ap);
    n = edgeprobe__libc_vsnprintf(small, sizeof small, fmt, ap);
    if (n >= (int)sizeof small && (line = edgeprobe__scratch((size_t)n + 1)) != 0)
        edgeprobe__libc_vsnprintf(line, (size_t)n + 1, fmt, again);
    else if (n >= (int)sizeof small)
        line = small, n = (int)sizeof small - 1; /* no memory: cut */
    __builtin_va_end(again);
    if (n > 0) edgeprobe__write_all(fd, line, (size_t)n);
    if (line != small) edgeprobe__libc_munmap(line, (size_t)n + 1);
    return n;
}
EDGEPROBE__FN int edgeprobe__dprintf(int fd, const char *fmt, ...);
EDGEPROBE__FN int edgeprobe__dprintf(int fd, const char *fmt, ...) {
    __builtin_va_list ap;
    int n;
    __builtin_va_start(ap, fmt);
    n = edgeprobe__vdprintf(fd, fmt, ap);
    __builtin_va_end(ap);
    return n;
}
EDGEPROBE__FN int edgeprobe_printf(const char *fmt, ...) {
    __builtin_va_list ap;
    int n;
    __builtin_va_start(ap, fmt);
    n = edgeprobe__vdprintf(2, fmt, ap);
    __builtin_va_end(ap);
    return n;
}
#else /* EDGEPROBE_FREESTANDING */
#if !defined(EDGEPROBE_OS_PROTECT) || !defined(EDGEPROBE_OS_ALLOC) || \
    !defined(EDGEPROBE_OS_FREE) || !defined(EDGEPROBE_OS_YIELD)
#error "EDGEPROBE_FREESTANDING needs EDGEPROBE_OS_PROTECT, _ALLOC, _FREE and _YIELD (see section 13)"
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

/* ---- 14. the root: process-wide state                        >>root ---- */
#define EDGEPROBE__ABI 15u /* 15: recorder.file_dev, file_ino; 14: func_thread.alt_lo, alt_hi; 13: func_point.nested; 12: the stub head (func_state.tls_offset, register_frame) */
#define EDGEPROBE__MAGIC 0x65646765707262ULL /* "edgeprb" */
#define EDGEPROBE__HIT_CHUNK_BYTES (EDGEPROBE__STRIPES * EDGEPROBE__CHUNK * sizeof(uint64_t))

/* A straddling patch in flight. The SIGTRAP handler reads these without
 * the lock: `seq` is odd while an entry is being rewritten. */
enum { EDGEPROBE__FLIGHT_EMPTY = 0, EDGEPROBE__FLIGHT_WAIT1, EDGEPROBE__FLIGHT_WAIT2 };
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
        ".popsection\n"
        /* what every including file refers to (EDGEPROBE__IMPL_SYM) */
        ".pushsection .rodata\n.globl " EDGEPROBE__IMPL_SYM "\n.hidden " EDGEPROBE__IMPL_SYM "\n"
        EDGEPROBE__IMPL_SYM ": .byte 0\n.popsection\n");

/* Recording (section 30): what the registry and the enabled paths call. */
struct edgeprobe__recorder;
EDGEPROBE__FN void edgeprobe__record_configure(edgeprobe__root *r);
EDGEPROBE__FN int edgeprobe__record_env_wants(const edgeprobe__root *r);
EDGEPROBE__FN_GPR struct edgeprobe__recorder *edgeprobe__recording(const edgeprobe__point *pt);
EDGEPROBE__FN_GPR void edgeprobe__record_point(struct edgeprobe__recorder *rec, const edgeprobe__point *pt, unsigned kind,
                                           const uint64_t *args, int n);
EDGEPROBE__FN_GPR struct edgeprobe__recorder *edgeprobe__recording_ready(const edgeprobe__point *pt);
EDGEPROBE__FN void edgeprobe__record_hit(const edgeprobe__point *pt);

/* ---- 15. small helpers                                   >>helpers ---- */
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
/* The lock if it is free now, else 0 - for paths that must not wait (a
 * provider site's first hit may be in a signal handler that interrupted
 * this very thread while it held the lock). */
EDGEPROBE__INLINE int edgeprobe__trylock(edgeprobe__lock_t *l) {
    if (__atomic_exchange_n(&l->v, 1, __ATOMIC_ACQUIRE)) return 0;
    __atomic_store_n(&l->owner, edgeprobe__self(), __ATOMIC_RELAXED);
    return 1;
}
/* The lock if it comes free within `tries` looks (a pause between two),
 * else 0: for a caller that must not wait for ever, because it may hold a
 * lock the holder waits for. */
EDGEPROBE__FN int edgeprobe__lock_within(edgeprobe__lock_t *l, unsigned tries);
EDGEPROBE__FN int edgeprobe__lock_within(edgeprobe__lock_t *l, unsigned tries) {
    while (!edgeprobe__trylock(l))
        if (!tries--) return 0;
        else edgeprobe__pause();
    return 1;
}
EDGEPROBE__INLINE void edgeprobe__unlock(edgeprobe__lock_t *l) {
    __atomic_store_n(&l->owner, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&l->v, 0, __ATOMIC_RELEASE);
}
/* Whether this thread holds l (hosted builds). */
EDGEPROBE__INLINE int edgeprobe__lock_mine(edgeprobe__lock_t *l) {
    return __atomic_load_n(&l->v, __ATOMIC_RELAXED) && __atomic_load_n(&l->owner, __ATOMIC_RELAXED) == edgeprobe__self();
}
/* Whether this thread may hold l: it does, or l is held with no owner
 * written (a holder between its exchange and its owner store, or between
 * its two stores of unlock). Code that a signal handler may run on a
 * thread that holds l - a handler of a probed call that the signal's
 * handler made - must not wait for it then: that thread cannot let it go.
 * The windows are hit: after a fork, the parent's first store to the
 * root's page faults (copy on write), and the kernel delivers a pending
 * signal on the way back - between unlock's two stores, in 2 of 4 runs of
 * tests/prof/forks.c under an attached profile. */
EDGEPROBE__INLINE int edgeprobe__lock_maybe_mine(edgeprobe__lock_t *l) {
    uintptr_t owner = __atomic_load_n(&l->owner, __ATOMIC_RELAXED);
    return __atomic_load_n(&l->v, __ATOMIC_RELAXED) && (owner == edgeprobe__self() || owner == 0);
}
/* Functions named *_locked must be called with the registry lock held by
 * this thread. EDGEPROBE_DEBUG builds check it, and stop the program with a
 * message naming the function when it is not (an edgeprobe bug). */
#ifdef EDGEPROBE_DEBUG
EDGEPROBE__FN int edgeprobe__assert_locked(edgeprobe__root *r, const char *fn);
EDGEPROBE__FN int edgeprobe__assert_locked(edgeprobe__root *r, const char *fn) {
    if (!r || edgeprobe__lock_mine(&r->lock)) return 1;
    EDGEPROBE_OS_LOG(fn);
    EDGEPROBE_OS_LOG("internal error: the function above needs the registry lock (EDGEPROBE_DEBUG)");
    __builtin_trap();
}
/* And the functions that call dladdr or dlopen must be called WITHOUT it
 * (section 26, "how the provider meets the dynamic loader"). */
EDGEPROBE__FN int edgeprobe__assert_unlocked(edgeprobe__root *r, const char *fn);
EDGEPROBE__FN int edgeprobe__assert_unlocked(edgeprobe__root *r, const char *fn) {
    if (!r || !__atomic_load_n(&r->lock.v, __ATOMIC_RELAXED) ||
        __atomic_load_n(&r->lock.owner, __ATOMIC_RELAXED) != edgeprobe__self())
        return 1;
    EDGEPROBE_OS_LOG(fn);
    EDGEPROBE_OS_LOG("internal error: the function above asks the loader with the registry lock held (EDGEPROBE_DEBUG)");
    __builtin_trap();
}
/* Declarations, so that they may stand before a function's others. */
#define EDGEPROBE__ASSERT_LOCKED(r) \
    const int edgeprobe__locked_ok __attribute__((unused)) = edgeprobe__assert_locked((r), __func__)
#define EDGEPROBE__ASSERT_UNLOCKED(r) \
    const int edgeprobe__unlocked_ok __attribute__((unused)) = edgeprobe__assert_unlocked((r), __func__)
#else
#define EDGEPROBE__ASSERT_LOCKED(r) typedef int edgeprobe__locked_unchecked __attribute__((unused))
#define EDGEPROBE__ASSERT_UNLOCKED(r) typedef int edgeprobe__unlocked_unchecked __attribute__((unused))
#endif

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
/* A recording's depth limit (--depth, EDGEPROBE_RECORD_DEPTH): 1 to the
 * shadow stack's size; clears *ok otherwise (never sets it). */
EDGEPROBE__INLINE unsigned edgeprobe__record_depth(const char *s, int *ok) {
    int valid;
    uint64_t v = edgeprobe__parse_u64(s, &valid);
    if (valid && v >= 1 && v <= 65536 /* EDGEPROBE_FUNC_DEPTH */) return (unsigned)v;
    *ok = 0;
    return 0;
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
/* Whether n bytes at a and b are equal. Code writes compare a few bytes
 * (at most a word) twice each; a loop is cheaper than calling memcmp. */
EDGEPROBE__INLINE int edgeprobe__same_bytes(const unsigned char *a, const unsigned char *b, size_t n) {
    while (n && *a == *b) a++, b++, n--;
    return n == 0;
}

/* ---- 15.1 glob patterns                                     >>glob ---- */
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

/* ---- 16. finding the one root                          >>find-root ----
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
    edgeprobe__record_configure(r);
}

EDGEPROBE__FN int edgeprobe__set_sync_locked(edgeprobe__root *r, int mode);
#if EDGEPROBE__HAS_PATCH
/* Is a CET user shadow stack on for this thread (Linux 6.6+, and a C
 * library that enables it)? Then a replaced return address (exit probes)
 * and a `call` emulated by the SIGTRAP handler would make the next `ret`
 * fault: exit handlers are refused (EDGEPROBE_ENOTSUP) and trapped calls
 * wait for the patch instead. arch_prctl(ARCH_SHSTK_STATUS): the calling
 * thread's, asked each time (a program may turn it on after start-up) -
 * unless the kernel has refused the request once: a kernel without user
 * shadow stacks never gains them, and asking cost a system call per
 * function switched (the profiler's start-up) and per trap. */
EDGEPROBE__FN int edgeprobe__shadow_stack_on(void);
EDGEPROBE__FN int edgeprobe__shadow_stack_on(void) {
#ifndef EDGEPROBE_FREESTANDING
    static int kernel_lacks_it; /* racy by design: every writer writes 1 */
    unsigned long features = 0;
    if (__atomic_load_n(&kernel_lacks_it, __ATOMIC_RELAXED)) return 0;
    if (edgeprobe__syscall3(158 /* arch_prctl */, 0x5005 /* ARCH_SHSTK_STATUS */, (long)&features, 0) != 0) {
        __atomic_store_n(&kernel_lacks_it, 1, __ATOMIC_RELAXED);
        return 0;
    }
    return (features & 1 /* ARCH_SHSTK_SHSTK */) != 0;
#else
    return 0;
#endif
}
/* The straddler protocol at start-up: serialising mode wherever the kernel
 * has membarrier SYNC_CORE. It rests on the architecture's rule for
 * cross-modified code; a Tmax wait rests on a measurement of one machine,
 * which a virtual machine's host can break (a KVM guest crashed at a
 * 6,000-tick wait, once in about a million toggles). Tmax waits only when
 * asked for (EDGEPROBE_SYNC=tmax) or when membarrier is missing; that case is
 * logged at the first straddling write (edgeprobe__protocol_wait). */
EDGEPROBE__FN void edgeprobe__sync_default(edgeprobe__root *r, const char *env);
EDGEPROBE__FN void edgeprobe__sync_default(edgeprobe__root *r, const char *env) {
    if (env && edgeprobe__streq(env, "tmax")) return; /* sync_mode starts as EDGEPROBE_SYNC_TMAX */
    if (env && !edgeprobe__streq(env, "serialize"))
        EDGEPROBE_OS_LOG("EDGEPROBE_SYNC must be 'tmax' or 'serialize'; using serialize");
    if (edgeprobe__set_sync_locked(r, EDGEPROBE_SYNC_SERIALIZE) < 0) r->sync_fallback = 1;
}
#endif
EDGEPROBE__FN void edgeprobe__env_report(const edgeprobe__root *r);
EDGEPROBE__FN int edgeprobe__readers_need_fence(void);
/* A privileged process ignores its environment (edgeprobe__getenv); say so,
 * once per process (the root is made once), if it holds any setting. */
EDGEPROBE__FN void edgeprobe__secure_report(void);
EDGEPROBE__FN void edgeprobe__secure_report(void) {
#ifndef EDGEPROBE_FREESTANDING
    static const char *const names[] = {EDGEPROBE__ENV_NAMES};
    unsigned i;
    if (!edgeprobe__libc_getauxval(EDGEPROBE__AT_SECURE)) return;
    for (i = 0; i < sizeof names / sizeof names[0]; i++)
        if (edgeprobe__libc_getenv(names[i])) {
            EDGEPROBE_OS_LOG("privileged process (AT_SECURE): settings in the environment ignored");
            return;
        }
#endif
}
EDGEPROBE__FN edgeprobe__root *edgeprobe__root_create(void);
EDGEPROBE__FN edgeprobe__root *edgeprobe__root_create(void) {
    edgeprobe__root *r = (edgeprobe__root *)EDGEPROBE_OS_ALLOC(sizeof *r);
    const char *s;
    if (!r) return 0;
    r->magic = EDGEPROBE__MAGIC;
    r->abi = EDGEPROBE__ABI;
    r->size = (unsigned)sizeof *r;
    edgeprobe__secure_report();
    edgeprobe__root_configure(r);
    edgeprobe__env_report(r);
    r->readers_fence = edgeprobe__readers_need_fence();
#if EDGEPROBE__HAS_PATCH
    edgeprobe__sync_default(r, EDGEPROBE__GETENV("EDGEPROBE_SYNC"));
#endif
    (void)s;
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

/* ---- 17. writing code                                     >>write ----
 * Pages: opened (made writable) on first use. Default policy: stay open.
 * Strict W^X: closed again when the last writer of the page is done. */
/* The slot of page in the open-addressed page table: its entry, or the empty
 * slot where it would go. Table not empty. */
EDGEPROBE__INLINE unsigned edgeprobe__page_probe(const edgeprobe__root *r, uintptr_t page) {
    unsigned i, mask = r->page_cap - 1;
    for (i = edgeprobe__hash_ptr(page) & mask; r->pages[i].addr && r->pages[i].addr != page; i = (i + 1) & mask) {}
    return i;
}
EDGEPROBE__FN edgeprobe__page *edgeprobe__page_slot(edgeprobe__root *r, uintptr_t page);
EDGEPROBE__FN edgeprobe__page *edgeprobe__page_slot(edgeprobe__root *r, uintptr_t page) {
    unsigned i;
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
    i = edgeprobe__page_probe(r, page);
    if (r->pages[i].addr) return &r->pages[i];
    r->pages[i].addr = page;
    r->npages++;
    return &r->pages[i];
}
/* The page's entry, or NULL if edgeprobe never wrote to it (no entry made). */
EDGEPROBE__FN edgeprobe__page *edgeprobe__page_find(edgeprobe__root *r, uintptr_t page);
EDGEPROBE__FN edgeprobe__page *edgeprobe__page_find(edgeprobe__root *r, uintptr_t page) {
    unsigned i;
    if (!r->page_cap) return 0;
    i = edgeprobe__page_probe(r, page);
    return r->pages[i].addr ? &r->pages[i] : 0;
}

#ifndef EDGEPROBE_FREESTANDING
/* How many objects the process has loaded and unloaded so far (glibc's
 * dlpi_adds and dlpi_subs; ~0 if the loader does not say). */
EDGEPROBE__FN int edgeprobe__read_counters(edgeprobe__dl_phdr_info *info, size_t size, void *arg);
EDGEPROBE__FN int edgeprobe__read_counters(edgeprobe__dl_phdr_info *info, size_t size, void *arg) {
    unsigned long long *c = (unsigned long long *)arg;
    c[0] = size >= sizeof *info ? info->adds : ~0ULL;
    c[1] = size >= sizeof *info ? info->subs : ~0ULL;
    return 1; /* the first object is enough */
}
EDGEPROBE__FN unsigned long long edgeprobe__dl_counter(int which);
EDGEPROBE__FN unsigned long long edgeprobe__dl_counter(int which) {
    unsigned long long c[2] = {~0ULL, ~0ULL};
    edgeprobe__libc_dl_iterate_phdr(edgeprobe__read_counters, c);
    return c[which];
}
#define edgeprobe__dl_loads() edgeprobe__dl_counter(0)
#define edgeprobe__dl_unloads() edgeprobe__dl_counter(1)
#endif
/* The pages' "open" holds only while no object was unloaded since it was
 * recorded: what is mapped at an unloaded object's address now - the same
 * library loaded again, there as a rule - is read-only again, and a write
 * trusting the old "open" faults. So every page is opened anew at its next
 * write (our own mirror pages, refs < 0, stay as they are):
 *   - when an object that includes this header is loaded (its constructor,
 *     before it writes its first marker site: marker sites are written only
 *     in such objects);
 *   - when a write elsewhere - a provider site, a function entry, the
 *     low-level API - sees that the loader's unload count moved (the first
 *     two read it inside dl_iterate_phdr's callback, where it is free).
 * Lock held. */
EDGEPROBE__FN void edgeprobe__pages_forget_locked(edgeprobe__root *r);
EDGEPROBE__FN void edgeprobe__pages_forget_locked(edgeprobe__root *r) {
    EDGEPROBE__ASSERT_LOCKED(r);
    unsigned i;
    for (i = 0; i < r->page_cap; i++)
        if (r->pages[i].addr && r->pages[i].refs >= 0) r->pages[i].open = 0;
}
EDGEPROBE__FN void edgeprobe__pages_check_locked(edgeprobe__root *r, unsigned long long unloads);
EDGEPROBE__FN void edgeprobe__pages_check_locked(edgeprobe__root *r, unsigned long long unloads) {
    EDGEPROBE__ASSERT_LOCKED(r);
    if (unloads == r->pages_unloads && unloads != ~0ULL) return;
    edgeprobe__pages_forget_locked(r);
    r->pages_unloads = unloads;
}
#ifndef EDGEPROBE_FREESTANDING
#define edgeprobe__pages_check_now_locked(r) edgeprobe__pages_check_locked((r), edgeprobe__dl_unloads())
#else
#define edgeprobe__pages_check_now_locked(r) ((void)(r)) /* nothing is unloaded */
#endif
/* Make [p, p+n) writable for one writer; lock held. Nothing is written on
 * failure. */
EDGEPROBE__FN int edgeprobe__code_open_locked(edgeprobe__root *r, const void *p, size_t n);
EDGEPROBE__FN int edgeprobe__code_open_locked(edgeprobe__root *r, const void *p, size_t n) {
    EDGEPROBE__ASSERT_LOCKED(r);
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

/* Replace n bytes at p (inside one word of the back end's window) with val
 * if they hold expect, in one atomic store, then make it visible to
 * instruction fetch; neighbouring bytes are kept even if they change
 * meanwhile. Returns 1 written, 0 already val, EDGEPROBE_EBYTES neither (no
 * write). The page must be open. */
EDGEPROBE__FN int edgeprobe__cas_bytes(unsigned char *p, const unsigned char *expect,
                                       const unsigned char *val, size_t n);
EDGEPROBE__FN int edgeprobe__cas_bytes(unsigned char *p, const unsigned char *expect,
                                       const unsigned char *val, size_t n) {
    unsigned char *w = edgeprobe__window(p, n);
    size_t off = (size_t)(p - w);
    edgeprobe__word_t cur = edgeprobe__word_load(w), next;
    if (off + n > sizeof cur) return EDGEPROBE_EINVAL; /* not one word: never for our sites */
    for (;;) {
        unsigned char bytes[sizeof cur];
        __builtin_memcpy(bytes, &cur, sizeof cur);
        if (edgeprobe__same_bytes(bytes + off, val, n)) return 0;
        if (!edgeprobe__same_bytes(bytes + off, expect, n)) return EDGEPROBE_EBYTES;
        __builtin_memcpy(bytes + off, val, n);
        __builtin_memcpy(&next, bytes, sizeof cur);
        if (edgeprobe__word_cas(w, &cur, next)) {
            edgeprobe__code_sync(w, sizeof cur);
            return 1;
        }
    }
}

/* Open, compare-and-swap, close: one atomic code write with the page policy
 * applied and the refusal logged. Lock held. */
EDGEPROBE__FN int edgeprobe__write_code_locked(edgeprobe__root *r, unsigned char *p, const unsigned char *expect,
                                        const unsigned char *val, size_t n);
EDGEPROBE__FN int edgeprobe__write_code_locked(edgeprobe__root *r, unsigned char *p, const unsigned char *expect,
                                        const unsigned char *val, size_t n) {
    EDGEPROBE__ASSERT_LOCKED(r);
    int rc;
    if (edgeprobe__same_bytes(p, val, n)) return 0; /* nothing to do: no mprotect */
    if (!edgeprobe__same_bytes(p, expect, n)) {
        edgeprobe__log_bytes(r, "refusing to patch unexpected bytes", p, expect, n);
        return EDGEPROBE_EBYTES;
    }
    rc = edgeprobe__code_open_locked(r, edgeprobe__window(p, n), sizeof(edgeprobe__word_t));
    if (rc) return rc;
    rc = edgeprobe__cas_bytes(p, expect, val, n);
    if (rc == EDGEPROBE_EBYTES) edgeprobe__log_bytes(r, "site changed while patching", p, expect, n);
    edgeprobe__code_close(r, edgeprobe__window(p, n), sizeof(edgeprobe__word_t));
    return rc;
}

/* ---- 18. marker sites                              >>marker-sites ----
 * Off/on byte forms of one site: edgeprobe__site_form, in the back end. */
EDGEPROBE__FN int edgeprobe__args_prepare_locked(edgeprobe__root *r, const edgeprobe__site *s); /* section 29.3 */
/* Point a marker's mark at its point, before the point is first bound or
 * one of its sites first switched on: until then no enabled path runs, so
 * start-up writes no mark (section 19). Lock held. */
EDGEPROBE__INLINE void edgeprobe__point_link_locked(edgeprobe__point *pt) {
    EDGEPROBE__ASSERT_LOCKED(edgeprobe__this_object.root);
    if (!pt->mark || (pt->flags & EDGEPROBE__PF_LINKED)) return;
    __atomic_store_n(&pt->mark->point, pt, __ATOMIC_RELEASE);
    pt->flags |= EDGEPROBE__PF_LINKED;
}
/* Put a site in state `on` (a default-on site jumps when off). An argument
 * site's locations are parsed the first time it is switched on, so
 * start-up neither parses nor writes them; the same goes for its mark. */
EDGEPROBE__FN int edgeprobe__site_set(edgeprobe__root *r, const edgeprobe__site *s, int on);
EDGEPROBE__FN int edgeprobe__site_set(edgeprobe__root *r, const edgeprobe__site *s, int on) {
    unsigned char want[8], other[8];
    int jump = (s->flags & EDGEPROBE__F_DEFAULT_ON) ? !on : on, rc;
    size_t n = edgeprobe__site_form(s->addr, s->target, s->flags, jump, want);
    if (on && (s->flags & EDGEPROBE__F_ARGS) && (rc = edgeprobe__args_prepare_locked(r, s)) < 0) return rc;
    if (jump) edgeprobe__point_link_locked(s->point);
    if (!n || !edgeprobe__site_form(s->addr, s->target, s->flags, !jump, other)) {
        edgeprobe__log_bytes(r, "jump target out of reach", s->addr, 0, edgeprobe__site_len(s->flags));
        return EDGEPROBE_ERANGE;
    }
    return edgeprobe__write_code_locked(r, s->addr, other, want, n);
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
EDGEPROBE__FN int edgeprobe__probe_count_locked(edgeprobe__root *r, struct edgeprobe__probe *p, int count);
EDGEPROBE__FN int edgeprobe__probe_count_locked(edgeprobe__root *r, struct edgeprobe__probe *p, int count) {
    EDGEPROBE__ASSERT_LOCKED(r);
    int was = p->count > 0, now = count > 0, rc;
    if (was != now && (rc = edgeprobe__probe_apply(r, p, now)) < 0) return rc;
    p->count = count;
    return was != now;
}

/* ---- 19. the registry                                  >>registry ----
 * Start-up cost is this section's business: an object's constructor
 * registers every record of its table, so per site it may do no allocation,
 * hashes a name once and writes nothing into the program's own pages (the
 * loader relocated nothing for the table either: section 3). Before the
 * walk, the object gets its block of points and edgeprobe__registry_reserve
 * sizes everything else from the table's length: one arena block for the
 * probes and their names, the name and mark tables, the point-id chunks and
 * hit rows. A probe with one site and one point then lives entirely in its
 * arena slot and its point in the object's block. A marker's mark is linked
 * to its point only when the marker is first switched on or bound. */
EDGEPROBE__FN struct edgeprobe__probe *edgeprobe__probe_find_hashed(edgeprobe__root *r, const char *name, uint32_t h);
EDGEPROBE__FN struct edgeprobe__probe *edgeprobe__probe_find_hashed(edgeprobe__root *r, const char *name, uint32_t h) {
    struct edgeprobe__probe *p;
    if (!r->hash_cap) return 0;
    for (p = r->hash[h & (r->hash_cap - 1)]; p; p = p->next_hash)
        if (p->hash == h && edgeprobe__streq(p->name, name)) return p;
    return 0;
}
EDGEPROBE__FN struct edgeprobe__probe *edgeprobe__probe_lookup(edgeprobe__root *r, const char *name);
EDGEPROBE__FN struct edgeprobe__probe *edgeprobe__probe_lookup(edgeprobe__root *r, const char *name) {
    return edgeprobe__probe_find_hashed(r, name, edgeprobe__hash_str(name));
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
/* Zeroed memory for the registry's large blocks. Hosted: a block of 2 MB or
 * more gets a 2 MB-aligned mapping of its own with MADV_HUGEPAGE, so where
 * the kernel has transparent huge pages, touching it costs one page fault
 * per 2 MB instead of 512 (a fault costs ~12 us on the project's VM: for a
 * 100,000-probe table that is most of the registration). */
#define EDGEPROBE__HUGE_BYTES ((size_t)2 << 20)
#define EDGEPROBE__MADV_HUGEPAGE 14
EDGEPROBE__INLINE size_t edgeprobe__huge_round(size_t bytes) {
    return (bytes + EDGEPROBE__HUGE_BYTES - 1) & ~(EDGEPROBE__HUGE_BYTES - 1);
}
EDGEPROBE__FN void *edgeprobe__big_alloc(size_t bytes);
EDGEPROBE__FN void *edgeprobe__big_alloc(size_t bytes) {
#ifndef EDGEPROBE_FREESTANDING
    if (bytes >= EDGEPROBE__HUGE_BYTES) {
        size_t len = edgeprobe__huge_round(bytes), head;
        char *m = (char *)edgeprobe__libc_mmap(0, len + EDGEPROBE__HUGE_BYTES, 3 /* RW */,
                                               EDGEPROBE__MAP_ANON_PRIVATE, -1, 0);
        if (m != (char *)-1) { /* trim to a 2 MB-aligned [a, a + len) */
            char *a = (char *)edgeprobe__huge_round((uintptr_t)m);
            head = (size_t)(a - m);
            if (head) edgeprobe__libc_munmap(m, head);
            if (head < EDGEPROBE__HUGE_BYTES) edgeprobe__libc_munmap(a + len, EDGEPROBE__HUGE_BYTES - head);
            edgeprobe__libc_madvise(a, len, EDGEPROBE__MADV_HUGEPAGE); /* advice only */
            return a;
        }
    }
#endif
    return EDGEPROBE_OS_ALLOC(bytes);
}
EDGEPROBE__FN void edgeprobe__big_free(void *p, size_t bytes);
EDGEPROBE__FN void edgeprobe__big_free(void *p, size_t bytes) {
    if (!p) return;
#ifndef EDGEPROBE_FREESTANDING
    if (bytes >= EDGEPROBE__HUGE_BYTES) {
        edgeprobe__libc_munmap(p, edgeprobe__huge_round(bytes));
        return;
    }
#endif
    (void)bytes;
    EDGEPROBE_OS_FREE(p);
}

/* Zeroed pages that a provider site's first hit may take, in a signal
 * handler that interrupted malloc: mmap in hosted builds, the OS hook in
 * freestanding ones. For page-sized and larger blocks only. They hold
 * pointers to the heap, so a leak checker (LeakSanitizer) is told to scan
 * them. */
#ifndef EDGEPROBE_FREESTANDING
void __lsan_register_root_region(const void *p, size_t size) __attribute__((weak));
#endif
EDGEPROBE__FN void *edgeprobe__pages_zeroed(size_t bytes);
EDGEPROBE__FN void *edgeprobe__pages_zeroed(size_t bytes) {
#ifndef EDGEPROBE_FREESTANDING
    char *p = edgeprobe__scratch(bytes);
    if (p && __lsan_register_root_region) __lsan_register_root_region(p, bytes);
    return p;
#else
    return EDGEPROBE_OS_ALLOC(bytes);
#endif
}

/* The arena: probes and their names, bump-allocated, never freed (handles
 * stay valid after their objects are unloaded). A new block holds at least
 * `bytes`; edgeprobe__registry_reserve asks for a whole table's worth.
 * Blocks are pages (see edgeprobe__pages_zeroed), never malloc. */
#define EDGEPROBE__ARENA_MIN 4096u
EDGEPROBE__FN int edgeprobe__arena_block(edgeprobe__root *r, size_t bytes);
EDGEPROBE__FN int edgeprobe__arena_block(edgeprobe__root *r, size_t bytes) {
    char *b;
    if (bytes < EDGEPROBE__ARENA_MIN) bytes = EDGEPROBE__ARENA_MIN;
    b = (char *)(bytes >= EDGEPROBE__HUGE_BYTES ? edgeprobe__big_alloc(bytes) : edgeprobe__pages_zeroed(bytes));
    if (!b) return EDGEPROBE_ENOMEM;
    r->arena_next = b;
    r->arena_left = bytes;
    return 0;
}
/* Zeroed, 8-byte aligned bytes from the arena, or NULL. */
EDGEPROBE__FN void *edgeprobe__arena_take(edgeprobe__root *r, size_t bytes);
EDGEPROBE__FN void *edgeprobe__arena_take(edgeprobe__root *r, size_t bytes) {
    char *p;
    bytes = (bytes + 7) & ~(size_t)7;
    if (r->arena_left < bytes && edgeprobe__arena_block(r, bytes) < 0) return 0;
    p = r->arena_next;
    r->arena_next += bytes;
    r->arena_left -= bytes;
    return p;
}

/* Grow the name table (chained, load at most 1/2) to hold n probes: one
 * rehash, from the stored hashes, however many names are coming. */
EDGEPROBE__FN int edgeprobe__hash_reserve(edgeprobe__root *r, unsigned n);
EDGEPROBE__FN int edgeprobe__hash_reserve(edgeprobe__root *r, unsigned n) {
    unsigned ncap = r->hash_cap ? r->hash_cap : 256, i;
    struct edgeprobe__probe **nh;
    while ((uint64_t)n * 2 > ncap) ncap *= 2;
    if (ncap == r->hash_cap) return 0;
    nh = (struct edgeprobe__probe **)edgeprobe__big_alloc(ncap * sizeof *nh);
    if (!nh) return EDGEPROBE_ENOMEM;
    for (i = 0; i < r->hash_cap; i++) {
        struct edgeprobe__probe *q = r->hash[i], *next;
        for (; q; q = next) {
            next = q->next_hash;
            q->next_hash = nh[q->hash & (ncap - 1)];
            nh[q->hash & (ncap - 1)] = q;
        }
    }
    edgeprobe__big_free(r->hash, r->hash_cap * sizeof *nh);
    r->hash = nh;
    r->hash_cap = ncap;
    return 0;
}

/* The probe named `name` (whose hash is h), made if new. */
EDGEPROBE__FN struct edgeprobe__probe *edgeprobe__probe_intern(edgeprobe__root *r, const char *name, uint32_t h);
EDGEPROBE__FN struct edgeprobe__probe *edgeprobe__probe_intern(edgeprobe__root *r, const char *name, uint32_t h) {
    struct edgeprobe__probe *p = edgeprobe__probe_find_hashed(r, name, h);
    size_t n;
    char *copy;
    if (p) return p;
    if (edgeprobe__hash_reserve(r, r->nprobes + 1) < 0) return 0;
    n = edgeprobe__strnlen(name, EDGEPROBE_NAME_MAX);
    p = (struct edgeprobe__probe *)edgeprobe__arena_take(r, sizeof *p + n + 1);
    if (!p) return 0;
    copy = (char *)(p + 1); /* zeroed: the NUL is there */
    __builtin_memcpy(copy, name, n);
    p->name = copy;
    p->hash = name[n] ? edgeprobe__hash_str(copy) : h; /* a cut name hashes as cut */
    p->sites = &p->site0;
    p->site_cap = 1;
    p->points = &p->point0;
    p->point_cap = 1;
    p->count = edgeprobe__env_wants(r, copy);
    p->recorded = p->count && edgeprobe__record_env_wants(r); /* EDGEPROBE_RECORD */
    p->next_hash = r->hash[p->hash & (r->hash_cap - 1)];
    r->hash[p->hash & (r->hash_cap - 1)] = p;
    r->nprobes++;
    return p;
}
/* edgeprobe__grow for a probe's sites or points, which may still be the
 * probe's inline slot: that one is copied out, never freed. */
EDGEPROBE__FN int edgeprobe__slots_grow(void **arr, int *cap, int need, size_t size, void *inline_slot);
EDGEPROBE__FN int edgeprobe__slots_grow(void **arr, int *cap, int need, size_t size, void *inline_slot) {
    void *old = *arr;
    int old_cap = *cap, rc;
    if (need <= *cap || old != inline_slot) return edgeprobe__grow(arr, cap, need, size);
    *arr = 0;
    *cap = 0;
    rc = edgeprobe__grow(arr, cap, need, size);
    if (rc) {
        *arr = old;
        *cap = old_cap;
        return rc;
    }
    __builtin_memcpy(*arr, old, (size_t)old_cap * size);
    return 0;
}

EDGEPROBE__INLINE edgeprobe__point **edgeprobe__point_slot(edgeprobe__root *r, int id) {
    return &r->chunks[(unsigned)id / EDGEPROBE__CHUNK][(unsigned)id % EDGEPROBE__CHUNK];
}
EDGEPROBE__FN void edgeprobe__fill_info(edgeprobe__point *pt, edgeprobe_info *out);
EDGEPROBE__FN void edgeprobe__fill_info(edgeprobe__point *pt, edgeprobe_info *out) {
    out->id = pt->id_plus_1 - 1;
    out->name = pt->name;
    out->file = pt->file;
    out->line = pt->line;
    out->function = pt->function;
    out->kind = (enum edgeprobe_kind)pt->kind;
    out->enabled = pt->probe ? pt->probe->count > 0 : (pt->flags & EDGEPROBE__PF_ON) != 0;
    out->sites = pt->nsites;
    out->site = pt->site;
    out->patchable = !(pt->flags & EDGEPROBE__PF_UNSAFE);
}
/* Give a point the next dense id and tell the discovery callback. */
EDGEPROBE__FN int edgeprobe__point_add(edgeprobe__root *r, edgeprobe__point *pt);
EDGEPROBE__FN int edgeprobe__point_add(edgeprobe__root *r, edgeprobe__point *pt) {
    int id = r->npoints;
    unsigned c = (unsigned)id / EDGEPROBE__CHUNK;
    if (c >= EDGEPROBE__CHUNKS) return EDGEPROBE_ENOMEM;
    if (!r->chunks[c]) { /* not malloc: see edgeprobe__pages_zeroed */
        r->chunks[c] = (edgeprobe__point **)edgeprobe__arena_take(r, EDGEPROBE__CHUNK * sizeof(void *));
        if (!r->chunks[c]) return EDGEPROBE_ENOMEM;
    }
    if (!r->hits[c]) /* no memory: the chunk's points simply count nothing */
        __atomic_store_n(&r->hits[c], (uint64_t *)edgeprobe__pages_zeroed(EDGEPROBE__HIT_CHUNK_BYTES), __ATOMIC_RELEASE);
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

/* Allocate the id chunks (from the arena) and hit rows (one block) that ids
 * [npoints, npoints + n) need. Best effort: edgeprobe__point_add allocates
 * whatever is still missing, a chunk at a time. Chunks are filled in order,
 * so the missing ones are those from the first NULL on. Lock held. */
EDGEPROBE__FN void edgeprobe__ids_reserve_locked(edgeprobe__root *r, unsigned n);
EDGEPROBE__FN void edgeprobe__ids_reserve_locked(edgeprobe__root *r, unsigned n) {
    EDGEPROBE__ASSERT_LOCKED(r);
    unsigned c, first = (unsigned)r->npoints / EDGEPROBE__CHUNK, end = ((unsigned)r->npoints + n + EDGEPROBE__CHUNK - 1) / EDGEPROBE__CHUNK;
    edgeprobe__point **ids;
    char *hits;
    if (end > EDGEPROBE__CHUNKS) end = EDGEPROBE__CHUNKS;
    while (first < end && r->chunks[first] && r->hits[first]) first++;
    if (first >= end) return;
    ids = (edgeprobe__point **)edgeprobe__arena_take(r, (size_t)(end - first) * EDGEPROBE__CHUNK * sizeof(void *));
    hits = (char *)EDGEPROBE_OS_ALLOC((size_t)(end - first) * EDGEPROBE__HIT_CHUNK_BYTES); /* untouched until counted */
    for (c = first; c < end; c++) {
        if (ids && !r->chunks[c]) r->chunks[c] = ids + (size_t)(c - first) * EDGEPROBE__CHUNK;
        if (hits && !r->hits[c])
            __atomic_store_n(&r->hits[c], (uint64_t *)(hits + (size_t)(c - first) * EDGEPROBE__HIT_CHUNK_BYTES),
                             __ATOMIC_RELEASE);
    }
}
/* Markers' points by the address of their marks: chained, load at most
 * 1/2, grown (one rehash) before a table is walked. The records of one
 * marker that the compiler inlined or unrolled share its mark. */
EDGEPROBE__INLINE unsigned edgeprobe__mark_bucket(const edgeprobe__root *r, const void *mark) {
    return (unsigned)(((uint64_t)(uintptr_t)mark * 0x9e3779b97f4a7c15ull) >> 32) & (r->mark_cap - 1);
}
EDGEPROBE__INLINE edgeprobe__point *edgeprobe__mark_find(const edgeprobe__root *r, const void *mark) {
    edgeprobe__point *pt = r->mark_cap ? r->marks[edgeprobe__mark_bucket(r, mark)] : 0;
    while (pt && pt->mark != mark) pt = pt->next_mark;
    return pt;
}
EDGEPROBE__FN int edgeprobe__marks_reserve(edgeprobe__root *r, unsigned n);
EDGEPROBE__FN int edgeprobe__marks_reserve(edgeprobe__root *r, unsigned n) {
    unsigned ncap = r->mark_cap ? r->mark_cap : 256, i, old_cap = r->mark_cap;
    edgeprobe__point **old = r->marks;
    while ((uint64_t)n * 2 > ncap) ncap *= 2;
    if (ncap == r->mark_cap) return 0;
    r->marks = (edgeprobe__point **)edgeprobe__big_alloc(ncap * sizeof *r->marks);
    if (!r->marks) {
        r->marks = old;
        return EDGEPROBE_ENOMEM;
    }
    r->mark_cap = ncap;
    for (i = 0; i < old_cap; i++) {
        edgeprobe__point *pt = old[i], *next;
        for (; pt; pt = next) {
            next = pt->next_mark;
            pt->next_mark = r->marks[edgeprobe__mark_bucket(r, pt->mark)];
            r->marks[edgeprobe__mark_bucket(r, pt->mark)] = pt;
        }
    }
    edgeprobe__big_free(old, old_cap * sizeof *old);
    return 0;
}
EDGEPROBE__INLINE void edgeprobe__mark_unlink(edgeprobe__root *r, edgeprobe__point *pt) {
    edgeprobe__point **at = &r->marks[edgeprobe__mark_bucket(r, pt->mark)];
    while (*at && *at != pt) at = &(*at)->next_mark;
    if (*at) *at = pt->next_mark, r->nmarks--;
}
/* A new point for a record's marker, from its object's block, named and
 * placed from the record and entered in the table of marks. */
EDGEPROBE__FN edgeprobe__point *edgeprobe__point_new(edgeprobe__root *r, edgeprobe__object *o,
                                                      const edgeprobe__record *rec);
EDGEPROBE__FN edgeprobe__point *edgeprobe__point_new(edgeprobe__root *r, edgeprobe__object *o,
                                                      const edgeprobe__record *rec) {
    edgeprobe__point *pt;
    unsigned b;
    if (o->npoints >= o->point_cap || edgeprobe__marks_reserve(r, r->nmarks + 1) < 0) return 0;
    pt = &o->points[o->npoints++];
    pt->name = (const char *)edgeprobe__rel(&rec->name);
    pt->file = (const char *)edgeprobe__rel(&rec->file);
    pt->function = (const char *)edgeprobe__rel(&rec->function);
    pt->line = rec->line;
    pt->kind = (unsigned short)EDGEPROBE__RECORD_KIND(rec);
    pt->mark = (edgeprobe__mark *)edgeprobe__rel(&rec->mark);
    b = edgeprobe__mark_bucket(r, pt->mark);
    pt->next_mark = r->marks[b];
    r->marks[b] = pt;
    r->nmarks++;
    return pt;
}

/* Before an object's table of n records is walked: room for n new probes,
 * names and point ids, so the walk allocates nothing per site. Names are
 * estimated at 32 bytes; a longer one may start one more block. */
EDGEPROBE__FN void edgeprobe__registry_reserve(edgeprobe__root *r, unsigned n);
EDGEPROBE__FN void edgeprobe__registry_reserve(edgeprobe__root *r, unsigned n) {
    size_t want = (size_t)n * (sizeof(struct edgeprobe__probe) + 32) + ((size_t)n + 2 * EDGEPROBE__CHUNK) * sizeof(void *);
    if (!n) return;
    if (r->arena_left < want) edgeprobe__arena_block(r, want); /* else: the walk allocates */
    edgeprobe__hash_reserve(r, r->nprobes + n);
    edgeprobe__marks_reserve(r, r->nmarks + n);
    edgeprobe__ids_reserve_locked(r, n);
}

/* Register one table record: point, probe, site; then give the new site the
 * probe's current state. h: the hash of the record's name. Lock held. */
EDGEPROBE__FN int edgeprobe__record_add_locked(edgeprobe__root *r, edgeprobe__object *o, const edgeprobe__record *rec,
                                        uint32_t h);
EDGEPROBE__FN int edgeprobe__record_add_locked(edgeprobe__root *r, edgeprobe__object *o, const edgeprobe__record *rec,
                                        uint32_t h) {
    EDGEPROBE__ASSERT_LOCKED(r);
    edgeprobe__point *pt = edgeprobe__mark_find(r, edgeprobe__rel(&rec->mark));
    struct edgeprobe__probe *p;
    edgeprobe__site s;
    int rc;
    if (!pt && !(pt = edgeprobe__point_new(r, o, rec))) return EDGEPROBE_ENOMEM;
    if (!pt->probe) { /* new, or its probe could not be had before: try again */
        p = edgeprobe__probe_intern(r, pt->name, h);
        if (!p) return EDGEPROBE_ENOMEM;
        if (edgeprobe__slots_grow((void **)&p->points, &p->point_cap, p->npoints + 1, sizeof(void *), &p->point0))
            return EDGEPROBE_ENOMEM;
        if (pt->kind == EDGEPROBE_KIND_BRANCH_ON && p->npoints == 0 && p->count == 0) p->count = 1;
        p->points[p->npoints++] = pt;
        pt->probe = p;
    }
    p = pt->probe;
    if (edgeprobe__slots_grow((void **)&p->sites, &p->site_cap, p->nsites + 1, sizeof s, &p->site0))
        return EDGEPROBE_ENOMEM;
    s.addr = (unsigned char *)edgeprobe__rel(&rec->site);
    s.target = (unsigned char *)edgeprobe__rel(&rec->target);
    s.flags = EDGEPROBE__RECORD_FLAGS(rec);
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
/* Register a table [rec, end). The name table and the table of marks are
 * the random accesses per site: the walk hashes names EDGEPROBE__AHEAD
 * records ahead and prefetches both buckets, so the cache misses overlap
 * instead of adding up. Lock held. */
#define EDGEPROBE__AHEAD 16u
EDGEPROBE__FN void edgeprobe__table_add(edgeprobe__root *r, edgeprobe__object *o, const edgeprobe__record *rec,
                                        const edgeprobe__record *end);
EDGEPROBE__FN void edgeprobe__table_add(edgeprobe__root *r, edgeprobe__object *o, const edgeprobe__record *rec,
                                        const edgeprobe__record *end) {
    uint32_t ahead[EDGEPROBE__AHEAD];
    size_t i, n = (size_t)(end - rec);
    for (i = 0; i < n + EDGEPROBE__AHEAD; i++) {
        if (i >= EDGEPROBE__AHEAD) { /* record i - AHEAD, whose hash is in slot i % AHEAD */
            const edgeprobe__record *at = rec + (i - EDGEPROBE__AHEAD);
            if (edgeprobe__record_add_locked(r, o, at, ahead[i % EDGEPROBE__AHEAD]) < 0) /* left out, untouched */
                edgeprobe__log_bytes(r, "cannot register site", edgeprobe__rel(&at->site), 0,
                                     edgeprobe__site_len(EDGEPROBE__RECORD_FLAGS(at)));
        }
        if (i < n) { /* then the slot takes record i's; both tables' buckets are fetched */
            uint32_t h = edgeprobe__hash_str((const char *)edgeprobe__rel(&rec[i].name));
            ahead[i % EDGEPROBE__AHEAD] = h;
            if (r->hash_cap) __builtin_prefetch(&r->hash[h & (r->hash_cap - 1)]);
            if (r->mark_cap) __builtin_prefetch(&r->marks[edgeprobe__mark_bucket(r, edgeprobe__rel(&rec[i].mark))]);
        }
    }
}
/* Forget a point whose sites are gone (or never came): out of its probe,
 * its id, the table of marks; its mark unlinked. Lock held. */
EDGEPROBE__FN void edgeprobe__point_forget_locked(edgeprobe__root *r, edgeprobe__point *pt);
EDGEPROBE__FN void edgeprobe__point_forget_locked(edgeprobe__root *r, edgeprobe__point *pt) {
    EDGEPROBE__ASSERT_LOCKED(r);
    struct edgeprobe__probe *p = pt->probe;
    int i;
    for (i = 0; p && i < p->npoints; i++)
        if (p->points[i] == pt) {
            p->points[i] = p->points[--p->npoints];
            break;
        }
    if (pt->id_plus_1) *edgeprobe__point_slot(r, pt->id_plus_1 - 1) = 0;
    pt->probe = 0;
    if (!pt->mark) return;
    if (pt->flags & EDGEPROBE__PF_LINKED) /* others' pages stay untouched */
        __atomic_store_n(&pt->mark->point, (edgeprobe__point *)0, __ATOMIC_RELEASE);
    edgeprobe__mark_unlink(r, pt);
    pt->mark = 0;
}
/* Forget one record of an object being unloaded. Lock held. */
EDGEPROBE__FN void edgeprobe__record_remove_locked(edgeprobe__root *r, const edgeprobe__record *rec);
EDGEPROBE__FN void edgeprobe__record_remove_locked(edgeprobe__root *r, const edgeprobe__record *rec) {
    EDGEPROBE__ASSERT_LOCKED(r);
    edgeprobe__point *pt = edgeprobe__mark_find(r, edgeprobe__rel(&rec->mark));
    struct edgeprobe__probe *p = pt ? pt->probe : 0;
    unsigned char *addr = (unsigned char *)edgeprobe__rel(&rec->site);
    int i;
    edgeprobe__page *page = edgeprobe__page_find(r, (uintptr_t)addr & ~(uintptr_t)(EDGEPROBE__PAGE - 1));
    if (page) page->open = 0; /* the object may come back at this address, read-only */
    if (!p) return;
    for (i = 0; i < p->nsites && p->sites[i].addr != addr; i++) {}
    if (i == p->nsites) return; /* this site was never registered */
    p->sites[i] = p->sites[--p->nsites];
    if (--pt->nsites == 0) edgeprobe__point_forget_locked(r, pt);
}
/* Forget an object's table [rec, end), prefetching as edgeprobe__table_add. */
EDGEPROBE__FN void edgeprobe__table_remove(edgeprobe__root *r, const edgeprobe__record *rec, const edgeprobe__record *end);
EDGEPROBE__FN void edgeprobe__table_remove(edgeprobe__root *r, const edgeprobe__record *rec, const edgeprobe__record *end) {
    for (; rec < end; rec++) {
        if (r->mark_cap && end - rec > (ptrdiff_t)EDGEPROBE__AHEAD)
            __builtin_prefetch(&r->marks[edgeprobe__mark_bucket(r, edgeprobe__rel(&rec[EDGEPROBE__AHEAD].mark))]);
        edgeprobe__record_remove_locked(r, rec);
    }
}

/* An unloaded object's block of points is never freed: at exit, other
 * threads still run enabled sites while destructors unregister, and one may
 * hold a point it read from its mark just before the mark was cleared. The
 * block is kept for the next object that needs as many points (a library
 * loaded again); with every spare slot taken, it is kept for good. */
EDGEPROBE__FN void edgeprobe__points_keep(edgeprobe__root *r, edgeprobe__point *block, size_t cap);
EDGEPROBE__FN void edgeprobe__points_keep(edgeprobe__root *r, edgeprobe__point *block, size_t cap) {
    unsigned i;
    for (i = 0; i < EDGEPROBE__SPARES; i++)
        if (!r->spare_points[i]) {
            r->spare_points[i] = block;
            r->spare_cap[i] = cap;
            return;
        }
}
/* A zeroed block of room for n points: the smallest spare that fits, or new. */
EDGEPROBE__FN edgeprobe__point *edgeprobe__points_take(edgeprobe__root *r, size_t n, size_t *cap);
EDGEPROBE__FN edgeprobe__point *edgeprobe__points_take(edgeprobe__root *r, size_t n, size_t *cap) {
    unsigned i, best = EDGEPROBE__SPARES;
    edgeprobe__point *block;
    for (i = 0; i < EDGEPROBE__SPARES; i++)
        if (r->spare_points[i] && r->spare_cap[i] >= n &&
            (best == EDGEPROBE__SPARES || r->spare_cap[i] < r->spare_cap[best]))
            best = i;
    if (best == EDGEPROBE__SPARES) {
        *cap = n;
        return (edgeprobe__point *)edgeprobe__big_alloc(n * sizeof *block);
    }
    block = r->spare_points[best];
    *cap = r->spare_cap[best];
    r->spare_points[best] = 0;
    __builtin_memset(block, 0, n * sizeof *block);
    return block;
}
/* Give an object its block of points, zeroed, room for n (n = 0: give it
 * up, once its records are removed; a point whose site could not be
 * registered is forgotten here). A block that cannot be had leaves every
 * record out (logged), not the program. Lock held. */
EDGEPROBE__FN void edgeprobe__object_points_locked(edgeprobe__root *r, edgeprobe__object *o, size_t n);
EDGEPROBE__FN void edgeprobe__object_points_locked(edgeprobe__root *r, edgeprobe__object *o, size_t n) {
    EDGEPROBE__ASSERT_LOCKED(r);
    size_t i;
    for (i = 0; i < o->npoints; i++)
        if (o->points[i].mark) edgeprobe__point_forget_locked(r, &o->points[i]);
    if (o->points) edgeprobe__points_keep(r, o->points, o->point_cap);
    o->points = n ? edgeprobe__points_take(r, n, &o->point_cap) : 0;
    if (!o->points) o->point_cap = 0;
    o->npoints = 0;
}

/* Section 27: function probes need these from the layers below. */
EDGEPROBE__FN void edgeprobe__func_convert_own(edgeprobe__root *r);
EDGEPROBE__FN void edgeprobe__reader_forked(void); /* section 25 */

#ifndef EDGEPROBE_FREESTANDING
/* fork: a child must not inherit a lock that another thread of its parent
 * held - nobody would ever release it (the child would hang at exit, at
 * its first switch, or in dlopen of an object with probes). Every object
 * registers these handlers; a count in the root makes the first prepare
 * take the locks, handler_sync's then the registry's (the order they are
 * always taken in), and the last parent or child handler release them,
 * so the child gets them free and can go on using edgeprobe. A fork from a
 * discovery callback, which runs with the registry locked by the forking
 * thread itself, takes nothing. handler_sync's own lock is not taken: its
 * holder may be waiting for the forking thread to leave a handler. A child
 * in which another thread held it (a sync under way) releases it: that
 * thread does not exist there. */
EDGEPROBE__FN void edgeprobe__fork_prepare(void);
EDGEPROBE__FN void edgeprobe__fork_prepare(void) {
    edgeprobe__root *r = __atomic_load_n(&edgeprobe__this_object.root, __ATOMIC_ACQUIRE);
    if (!r || __atomic_fetch_add(&r->forking, 1, __ATOMIC_ACQ_REL) != 0) return;
    if (edgeprobe__lock_mine(&r->lock)) return;
    edgeprobe__lock(&r->lock);
    r->fork_took = 1;
}
EDGEPROBE__FN void edgeprobe__fork_release(void);
EDGEPROBE__FN void edgeprobe__fork_release(void) {
    edgeprobe__root *r = __atomic_load_n(&edgeprobe__this_object.root, __ATOMIC_ACQUIRE);
    if (!r || __atomic_sub_fetch(&r->forking, 1, __ATOMIC_ACQ_REL) != 0 || !r->fork_took) return;
    r->fork_took = 0;
    edgeprobe__unlock(&r->lock);
}
/* In the child, the forking thread's records (section 25) belong to a new
 * tid; then the locks are released as in the parent. The count of forks
 * under way holds the parent's other forking threads too, which the child
 * does not have: it is this fork's alone there (else a fork beside another
 * left the registry's lock held in the child for good: a daemon's
 * profile stopped, found by an independent review). */
EDGEPROBE__FN void edgeprobe__fork_child(void);
EDGEPROBE__FN void edgeprobe__fork_child(void) {
    edgeprobe__root *r = __atomic_load_n(&edgeprobe__this_object.root, __ATOMIC_ACQUIRE);
    edgeprobe__reader_forked();
    if (r && __atomic_load_n(&r->sync_lock.v, __ATOMIC_RELAXED) &&
        __atomic_load_n(&r->sync_lock.owner, __ATOMIC_RELAXED) != edgeprobe__self())
        edgeprobe__unlock(&r->sync_lock);
    if (r && __atomic_load_n(&r->forking, __ATOMIC_RELAXED) > 1) __atomic_store_n(&r->forking, 1, __ATOMIC_RELAXED);
    edgeprobe__fork_release();
}
#endif

/* Constructor and destructor of every object: register its site table with
 * the root, and drop it before the object's code goes away (dlclose). The
 * per-object flag makes a second run (a constructor called again) a no-op.
 * EDGEPROBE__ROOT_LATER (private: the attach agent, tools/attach_agent.c)
 * leaves it to the object's first API call: creating the root registers
 * with membarrier, about 12 ms per command in a multi-threaded process (the
 * kernel waits for an RCU grace period), which must not stall the thread
 * `edgeprobe attach` seized to run dlopen. */
#ifdef EDGEPROBE__ROOT_LATER
#define EDGEPROBE__CONSTRUCTOR
#else
#define EDGEPROBE__CONSTRUCTOR constructor(101),
#endif
__attribute__((EDGEPROBE__NOPATCH EDGEPROBE__CONSTRUCTOR weak, visibility("hidden"), no_instrument_function))
void edgeprobe__object_init(void);
__attribute__((EDGEPROBE__NOPATCH EDGEPROBE__CONSTRUCTOR weak, visibility("hidden"), no_instrument_function))
void edgeprobe__object_init(void) {
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
        unsigned n = (unsigned)(__stop_edgeprobe_sites - __start_edgeprobe_sites);
        edgeprobe__object_points_locked(r, &edgeprobe__this_object, n);
        edgeprobe__registry_reserve(r, n);
        edgeprobe__pages_forget_locked(r); /* we may be where an unloaded object was (section 17) */
        edgeprobe__table_add(r, &edgeprobe__this_object, __start_edgeprobe_sites,
                             __stop_edgeprobe_sites); /* a bad site is left out */
        edgeprobe__func_convert_own(r);
#ifndef EDGEPROBE_FREESTANDING
        edgeprobe__libc_pthread_atfork(edgeprobe__fork_prepare, edgeprobe__fork_release, edgeprobe__fork_child);
#endif
        __atomic_store_n(&edgeprobe__this_object.registered, 1, __ATOMIC_RELEASE);
    }
    edgeprobe__unlock(&r->lock);
}
__attribute__((EDGEPROBE__NOPATCH weak, visibility("hidden"), no_instrument_function, destructor(101)))
void edgeprobe__object_fini(void);
__attribute__((EDGEPROBE__NOPATCH weak, visibility("hidden"), no_instrument_function, destructor(101)))
void edgeprobe__object_fini(void) {
    edgeprobe__root *r = __atomic_load_n(&edgeprobe__this_object.root, __ATOMIC_ACQUIRE);
    if (!r || !edgeprobe__this_object.registered) return;
    edgeprobe__lock(&r->lock);
    if (edgeprobe__this_object.registered) {
        edgeprobe__table_remove(r, __start_edgeprobe_sites, __stop_edgeprobe_sites);
        edgeprobe__object_points_locked(r, &edgeprobe__this_object, 0);
        edgeprobe__this_object.registered = 0;
    }
    edgeprobe__unlock(&r->lock);
}

#ifndef EDGEPROBE_FREESTANDING
/* Pin this object (dlclose then leaves it mapped): the calls that may
 * install its SIGTRAP handler, publish its trampolines or start its control
 * thread do this first, WITHOUT the registry lock - dladdr and dlopen take
 * the loader's lock, and a constructor running under that lock takes the
 * registry lock. */
EDGEPROBE__FN void edgeprobe__pin_self(void);
EDGEPROBE__FN void edgeprobe__pin_self(void) {
    EDGEPROBE__ASSERT_UNLOCKED(edgeprobe__this_object.root);
    edgeprobe__dl_info dli;
    if (__atomic_load_n(&edgeprobe__this_object.pinned, __ATOMIC_ACQUIRE)) return;
    if (edgeprobe__libc_dladdr((const void *)&edgeprobe__this_object, &dli) && dli.fname)
        edgeprobe__libc_dlopen(dli.fname, EDGEPROBE__RTLD_PIN);
    __atomic_store_n(&edgeprobe__this_object.pinned, 1, __ATOMIC_RELEASE);
}
#else
#define edgeprobe__pin_self() ((void)0)
#endif

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

/* ---- 20. probes by name and handle                     >>probe-api ---- */
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
        rc = p ? edgeprobe__probe_count_locked(r, p, on ? (p->count > 0 ? p->count : 1) : 0) : EDGEPROBE_ENOENT;
        edgeprobe__unlock(&r->lock);
        return rc;
    }
    for (i = 0; i < r->hash_cap && rc >= 0; i++) {
        struct edgeprobe__probe *p;
        for (p = r->hash[i]; p && rc >= 0; p = p->next_hash) {
            if (!p->npoints || !edgeprobe__glob_match(pattern, p->name)) continue;
            rc = edgeprobe__probe_count_locked(r, p, on ? (p->count > 0 ? p->count : 1) : 0);
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
        rc = edgeprobe__probe_count_locked(r, p, next);
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
#if EDGEPROBE__HAS_PATCH /* sections 21 to 23, but edgeprobe_set_wx_strict: x86-64 only */
/* ---- 21. straddling patches in flight, SIGTRAP             >>flight ----
 * A set-associative table keyed by the cache line of a site's first byte:
 * finding a site, or the sites that could overlap it (they start in the
 * same or the previous line), scans one or two sets of 8 entries. Entries
 * are freed as soon as a patch finishes: a thread whose trap is handled
 * late finds no entry, and no int3 at its site either, and runs the site
 * again (edgeprobe__on_sigtrap). Writers hold the root lock; the SIGTRAP
 * handler reads without it. */
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
EDGEPROBE__FN int edgeprobe__flight_overlaps_locked(edgeprobe__root *r, uintptr_t site, size_t len);
EDGEPROBE__FN int edgeprobe__flight_overlaps_locked(edgeprobe__root *r, uintptr_t site, size_t len) {
    EDGEPROBE__ASSERT_LOCKED(r);
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
EDGEPROBE__FN edgeprobe__flight *edgeprobe__flight_claim_locked(edgeprobe__root *r, uintptr_t site);
EDGEPROBE__FN edgeprobe__flight *edgeprobe__flight_claim_locked(edgeprobe__root *r, uintptr_t site) {
    EDGEPROBE__ASSERT_LOCKED(r);
    edgeprobe__flight *set = edgeprobe__flight_set(r, site);
    unsigned w;
    for (w = 0; w < EDGEPROBE__FLIGHT_WAYS; w++)
        if (!set[w].site) return &set[w];
    return 0;
}
/* Retire a finished patch: free its entry. Lock held. */
EDGEPROBE__FN void edgeprobe__flight_retire_locked(edgeprobe__root *r, edgeprobe__flight *f);
EDGEPROBE__FN void edgeprobe__flight_retire_locked(edgeprobe__root *r, edgeprobe__flight *f) {
    EDGEPROBE__ASSERT_LOCKED(r);
    r->in_flight--;
    __atomic_store_n(&f->seq, f->seq + 1, __ATOMIC_RELEASE); /* odd: changing */
    __atomic_store_n(&f->state, EDGEPROBE__FLIGHT_EMPTY, __ATOMIC_RELEASE);
    __atomic_store_n(&f->site, 0, __ATOMIC_RELEASE);
    __atomic_store_n(&f->seq, f->seq + 1, __ATOMIC_RELEASE);
}
/* Did the trap come from `int $3` (cd 03), whose trap address is one byte
 * past its second byte, rather than from an int3 (cc) at site? Then the
 * program trapped on purpose, and the trap is not ours. Not checked on the
 * first byte of a page, where the byte before may be unmapped (and a
 * `cd 03` across a page boundary is taken for our trap: a limit). */
EDGEPROBE__INLINE int edgeprobe__int_imm3_at(uintptr_t site) {
    return (site & (EDGEPROBE__PAGE - 1)) && *(volatile unsigned char *)site == 0x03 &&
           *(volatile unsigned char *)(site - 1) == 0xcd;
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
EDGEPROBE__FN int edgeprobe__patch_step_locked(edgeprobe__root *r, edgeprobe__flight *f);
EDGEPROBE__FN void edgeprobe__protocol_wait(edgeprobe__root *r, uint64_t since);
/* The thread that started a patch met its own int3 and the instruction
 * cannot be emulated: nobody else will finish the patch, so finish it here
 * (waits included) and run the new instruction. Only impossible if this
 * thread was interrupted inside edgeprobe with the lock held, i.e. a signal
 * handler of the patching thread runs the site: documented as unsupported. */
EDGEPROBE__FN void edgeprobe__finish_own(edgeprobe__root *r, uintptr_t site);
EDGEPROBE__FN void edgeprobe__finish_own(edgeprobe__root *r, uintptr_t site) {
    edgeprobe__flight *f;
    if (edgeprobe__lock_mine(&r->lock)) {
        static const char msg[] = "edgeprobe: a signal handler ran a site its thread is patching; waiting\n";
        edgeprobe__syscall3(1, 2, (long)msg, sizeof msg - 1);
        while (*(volatile unsigned char *)site == EDGEPROBE__OP_INT3) EDGEPROBE_OS_YIELD();
        return;
    }
    edgeprobe__lock(&r->lock);
    while ((f = edgeprobe__flight_find(r, site)) && f->state != EDGEPROBE__FLIGHT_EMPTY) {
        edgeprobe__protocol_wait(r, f->stamp);
        edgeprobe__patch_step_locked(r, f);
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
        if (!locked && !edgeprobe__int_imm3_at(site)) {
            /* The int3 this thread met is gone: a patch finished meanwhile,
             * however long ago (the thread may have been descheduled across
             * any number of later patches). Run the site as it is now. */
            uc->gregs[EDGEPROBE__REG_RIP] = site;
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
        if ((edgeprobe__emulate(c.insn, c.len, site, &rip, &push) ||
             edgeprobe__emulate(c.old, c.len, site, &rip, &push)) &&
            !(push && edgeprobe__shadow_stack_on())) { /* an emulated call: no shadow-stack entry; wait */
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
/* Thread tid's /proc/self/task/TID/NAME (tid 0: the process's
 * /proc/self/NAME) into buf (NUL-terminated): its length, or -1 when the
 * thread is gone. */
EDGEPROBE__FN long edgeprobe__read_task_file(int tid, const char *name, char *buf, long size);
EDGEPROBE__FN long edgeprobe__read_task_file(int tid, const char *name, char *buf, long size) {
    char path[64];
    long n;
    int fd;
    edgeprobe__text t = {path, sizeof path, 0};
    edgeprobe__puts(&t, "/proc/self/");
    if (tid) {
        edgeprobe__puts(&t, "task/");
        edgeprobe__putdec(&t, tid);
        edgeprobe__puts(&t, "/");
    }
    edgeprobe__puts(&t, name);
    if ((fd = edgeprobe__libc_open(path, 0x80000 /* O_RDONLY | O_CLOEXEC */)) < 0) return -1;
    n = edgeprobe__libc_read(fd, buf, size - 1);
    edgeprobe__libc_close(fd);
    buf[n > 0 ? n : 0] = 0;
    return n > 0 ? n : 0;
}
/* Field `field` of thread tid's stat line (tid 0: the process's; fields
 * numbered from 1, as proc(5) does), a decimal number, into *value: 0, or
 * -1 when the thread is gone or the line cannot be read. The name (field
 * 2) may hold spaces and ')': the fields count from its last ')'. */
EDGEPROBE__FN int edgeprobe__stat_field(int tid, int field, unsigned long *value);
EDGEPROBE__FN int edgeprobe__stat_field(int tid, int field, unsigned long *value) {
    char buf[1024], *p, *last_paren = 0;
    int at = 2;
    if (edgeprobe__read_task_file(tid, "stat", buf, sizeof buf) <= 0) return -1;
    for (p = buf; *p; p++)
        if (*p == ')') last_paren = p;
    if (!last_paren) return -1;
    for (p = last_paren + 1; *p && at < field; p++)
        if (*p == ' ') at++;
    if (at != field || *p < '0' || *p > '9') return -1;
    for (*value = 0; *p >= '0' && *p <= '9'; p++) *value = *value * 10 + (unsigned long)(*p - '0');
    return 0;
}
/* Has thread tid entered the kernel's do_exit (PF_EXITING, 0x4, in field 9
 * of /proc/self/task/TID/stat)? Such a thread never runs user code again,
 * so the mask it exits with is no reason to refuse: glibc blocks every
 * signal before a thread's exit call, and pthread_join returns (the kernel
 * clears the thread id in exit_mm) before the thread leaves
 * /proc/self/task. A thread descheduled in between, on a loaded machine,
 * outlasted the retries below, and the first switch of a straddling entry
 * after a join was refused (tests/signal/t_join_straddle.c). 1 when it
 * has, or is gone already (its stat unreadable). */
EDGEPROBE__FN int edgeprobe__task_exiting(int tid);
EDGEPROBE__FN int edgeprobe__task_exiting(int tid) {
    unsigned long flags;
    return edgeprobe__stat_field(tid, 9, &flags) < 0 || (flags & 0x4) != 0;
}
EDGEPROBE__FN int edgeprobe__status_blocks_sigtrap(int tid);
EDGEPROBE__FN int edgeprobe__status_blocks_sigtrap(int tid) {
    char buf[4096], *p;
    if (edgeprobe__read_task_file(tid, "status", buf, sizeof buf) < 0) return 0; /* gone */
    for (p = buf; *p; p++)
        if (p[0] == 'S' && !__builtin_memcmp(p, "SigBlk:\t", 8)) {
            char d = p[8 + 14]; /* 16 hex digits; the 15th holds signals 5-8 */
            int blocked = ((d >= 'a' ? d - 'a' + 10 : d - '0') & 1) != 0; /* SIGTRAP = 5 */
            return blocked && !edgeprobe__task_exiting(tid);
        }
    return 0;
}
/* The kernel's struct linux_dirent64, as getdents64 fills it. */
typedef struct edgeprobe__dirent64 {
    unsigned long long ino, off;
    unsigned short reclen;
    unsigned char type;
    char name[1];
} edgeprobe__dirent64;
/* Does a thread of this process block SIGTRAP now? One that meets our int3
 * with SIGTRAP blocked is not stopped by our handler: the kernel forces
 * the default action, and the whole process dies. Read from each thread's
 * /proc/self/task/TID/status ("SigBlk:", SIGTRAP is bit 4). Returns that
 * thread's id, 0 if none does (a thread that is exiting does not count),
 * or -1 if /proc could not tell (then the patch goes on, as it always
 * did). Racy by nature: a thread may block SIGTRAP just after the check
 * (README, "Reliability": "A thread with SIGTRAP blocked"). */
EDGEPROBE__FN int edgeprobe__sigtrap_blocker(void);
EDGEPROBE__FN int edgeprobe__sigtrap_blocker(void) {
    const edgeprobe__dirent64 *d;
    unsigned long long buf[512]; /* 4 KiB, aligned for the records */
    long n, i;
    int fd = edgeprobe__libc_open("/proc/self/task", 0x10000 | 0x80000 /* O_DIRECTORY | O_CLOEXEC */), found = 0;
    if (fd < 0) return -1;
    while (!found && (n = edgeprobe__syscall3(217 /* getdents64 */, fd, (long)buf, sizeof buf)) > 0)
        for (i = 0; i < n && !found; i += d->reclen) {
            int tid = 0;
            const char *c;
            d = (const edgeprobe__dirent64 *)(const void *)((const char *)buf + i);
            for (c = d->name; *c >= '0' && *c <= '9'; c++) tid = tid * 10 + (*c - '0');
            if (tid && edgeprobe__status_blocks_sigtrap(tid)) found = tid;
        }
    edgeprobe__libc_close(fd);
    return found;
}
/* A thread that blocks every signal for a moment (pthread_create and
 * posix_spawn do, around clone) is no reason to refuse: look again, a few
 * times over about a millisecond, and refuse only for a thread that still
 * blocks SIGTRAP. */
EDGEPROBE__FN int edgeprobe__sigtrap_blocked_for_good(void);
EDGEPROBE__FN int edgeprobe__sigtrap_blocked_for_good(void) {
    int tid = edgeprobe__sigtrap_blocker(), tries;
    for (tries = 0; tid > 0 && tries < 4; tries++) {
        uint64_t t0 = edgeprobe__rdtsc();
        while (edgeprobe__rdtsc() - t0 < 500000) EDGEPROBE_OS_YIELD(); /* ~0.2 ms at 2.5 GHz */
        tid = edgeprobe__sigtrap_blocker();
    }
    return tid;
}
/* Install the handler once per process (its object is pinned: see the
 * callers). Lock held. */
EDGEPROBE__FN int edgeprobe__trap_install_locked(edgeprobe__root *r);
EDGEPROBE__FN int edgeprobe__trap_install_locked(edgeprobe__root *r) {
    EDGEPROBE__ASSERT_LOCKED(r);
    edgeprobe__sigaction_t sa;
    if (r->trap_installed) return 0;
    __builtin_memset(&sa, 0, sizeof sa);
    sa.action = edgeprobe__on_sigtrap;
    /* SA_NODEFER: SIGTRAP stays unblocked while the handler runs, so that a
     * thread inside it is not taken for one that blocks SIGTRAP
     * (edgeprobe__sigtrap_blocker), and a trap within it is handled too. */
    sa.flags = EDGEPROBE__SA_SIGINFO | EDGEPROBE__SA_RESTART | EDGEPROBE__SA_ONSTACK | EDGEPROBE__SA_NODEFER;
    if (edgeprobe__libc_sigaction(EDGEPROBE__SIGTRAP, &sa, &r->trap_prev)) return EDGEPROBE_ENOTSUP;
    r->trap_installed = 1;
    return 0;
}
#else
#define edgeprobe__trap_install_locked(r) ((void)(r), EDGEPROBE_ENOTSUP)
#define edgeprobe__sigtrap_blocked_for_good() 0
#endif

/* ---- 22. word patch: sync, async, batch                >>word-patch ----
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
EDGEPROBE__FN enum edgeprobe_sync edgeprobe_sync_mode(void) {
    int err;
    edgeprobe__root *r = edgeprobe__root_get(&err);
    return r ? (enum edgeprobe_sync)__atomic_load_n(&r->sync_mode, __ATOMIC_ACQUIRE) : EDGEPROBE_SYNC_TMAX;
}
EDGEPROBE__FN int edgeprobe_set_tmax(uint64_t ticks) {
    EDGEPROBE__ROOT_OR_RETURN(r);
    __atomic_store_n(&r->tmax, ticks, __ATOMIC_RELEASE);
    return 0;
}
EDGEPROBE__FN uint64_t edgeprobe_tmax(void) {
    int err;
    edgeprobe__root *r = edgeprobe__root_get(&err);
    return r ? __atomic_load_n(&r->tmax, __ATOMIC_ACQUIRE) : EDGEPROBE_TMAX_DEFAULT;
}
#endif /* EDGEPROBE__HAS_PATCH */
/* Going strict closes every page left open by the keep-writable policy. */
EDGEPROBE__FN int edgeprobe_set_wx_strict(int strict) {
    unsigned i;
    int rc = 0;
    EDGEPROBE__ROOT_OR_RETURN(r);
    edgeprobe__lock(&r->lock);
    r->wx_strict = strict != 0;
    for (i = 0; strict && i < r->page_cap; i++) {
        edgeprobe__page *e = &r->pages[i];
        if (!e->addr || !e->open || e->refs > 0) continue; /* refs < 0: a mirror page (27.4) */
        if (EDGEPROBE_OS_PROTECT((void *)e->addr, EDGEPROBE__PAGE, 0) < 0) rc = EDGEPROBE_EPROT;
        else e->open = 0;
    }
    edgeprobe__unlock(&r->lock);
    return rc;
}
#if EDGEPROBE__HAS_PATCH
/* One "wait" of the protocol, from `since`: a serialising membarrier, or
 * Tmax ticks (also when the membarrier fails: never skip a wait). */
EDGEPROBE__FN void edgeprobe__protocol_wait(edgeprobe__root *r, uint64_t since);
EDGEPROBE__FN void edgeprobe__protocol_wait(edgeprobe__root *r, uint64_t since) {
    if (__atomic_load_n(&r->sync_mode, __ATOMIC_ACQUIRE) == EDGEPROBE_SYNC_SERIALIZE &&
        EDGEPROBE_OS_SERIALIZE() == 0)
        return;
    if (__atomic_exchange_n(&r->sync_fallback, 0, __ATOMIC_RELAXED)) /* once */
        edgeprobe__log(r, "straddling writes use Tmax waits: this kernel has no membarrier SYNC_CORE, and a "
                          "wait is only as safe as a measurement of the machine it runs on (make calibrate)");
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
EDGEPROBE__FN int edgeprobe__patch_begin_locked(edgeprobe__root *r, unsigned char *site, const unsigned char *insn,
                                         size_t len);
EDGEPROBE__FN int edgeprobe__patch_begin_locked(edgeprobe__root *r, unsigned char *site, const unsigned char *insn,
                                         size_t len) {
    EDGEPROBE__ASSERT_LOCKED(r);
    size_t front = edgeprobe__front_len(site, len);
    edgeprobe__flight *f;
    unsigned char old[8];
    int rc;
    edgeprobe__pages_check_now_locked(r);
    if (edgeprobe__flight_overlaps_locked(r, (uintptr_t)site, len)) return EDGEPROBE_EBUSY;
    if ((rc = edgeprobe__check_patch(site, insn, len)) < 0) {
        if (rc == EDGEPROBE_EBYTES) edgeprobe__log_bytes(r, "no instruction of the claimed length", site, 0, len);
        return rc;
    }
    __builtin_memcpy(old, site, len);
    /* Inside one line, or only one side changes: one atomic store suffices,
     * since every mix an executor can fetch is the old or the new insn. */
    if (front == len || edgeprobe__same_bytes(old + front, insn + front, len - front))
        return (rc = edgeprobe__write_code_locked(r, site, old, insn, front)) < 0 ? rc : 1;
    if (edgeprobe__same_bytes(old, insn, front))
        return (rc = edgeprobe__write_code_locked(r, site + front, old + front, insn + front, len - front)) < 0 ? rc : 1;
    if ((rc = edgeprobe__trap_install_locked(r)) < 0) return rc;
    if (r->batch_sigtrap != 2 && (rc = edgeprobe__sigtrap_blocked_for_good()) > 0) {
        char msg[128];
        edgeprobe__text t = {msg, sizeof msg, 0};
        edgeprobe__puts(&t, "straddling patch refused: thread ");
        edgeprobe__putdec(&t, rc);
        edgeprobe__puts(&t, " blocks SIGTRAP and would die at the int3 (EDGEPROBE_EUNSAFE)");
        edgeprobe__log(r, msg);
        return EDGEPROBE_EUNSAFE;
    }
    if (r->batch_sigtrap) r->batch_sigtrap = 2; /* once per batch: the check reads every thread */
    if (!(f = edgeprobe__flight_claim_locked(r, (uintptr_t)site))) return EDGEPROBE_EBUSY;
    if ((rc = edgeprobe__code_open_locked(r, site, len)) < 0) return rc;
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
        edgeprobe__flight_retire_locked(r, f);
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
EDGEPROBE__FN int edgeprobe__patch_step_locked(edgeprobe__root *r, edgeprobe__flight *f) {
    EDGEPROBE__ASSERT_LOCKED(r);
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
    edgeprobe__flight_retire_locked(r, f);
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
    edgeprobe__pin_self();
    if (!site || !insn || len < 1 || len > 8) return EDGEPROBE_EINVAL;
    edgeprobe__lock(&r->lock);
    rc = edgeprobe__patch_begin_locked(r, (unsigned char *)site, (const unsigned char *)insn, len);
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
        rc = edgeprobe__patch_step_locked(r, f);
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
    edgeprobe__pin_self();
    edgeprobe__lock(&r->lock);
    r->batch_sigtrap = 1;
    for (i = 0; i < n; i++) {
        results[i] = edgeprobe__patch_begin_locked(r, (unsigned char *)reqs[i].site,
                                            (const unsigned char *)reqs[i].insn, reqs[i].len);
        if (results[i] < 0) failed++;
        if (results[i] == 0) in_flight++;
    }
    r->batch_sigtrap = 0;
    last = edgeprobe__rdtsc();
    edgeprobe__unlock(&r->lock);
    for (step = 0; step < 2 && in_flight; step++) { /* two waits for the whole batch */
        edgeprobe__protocol_wait(r, last);
        edgeprobe__lock(&r->lock);
        for (i = 0; i < n; i++) {
            edgeprobe__flight *f;
            if (results[i] != 0) continue;
            f = edgeprobe__flight_find(r, (uintptr_t)reqs[i].site);
            results[i] = f ? edgeprobe__patch_step_locked(r, f) : 1; /* or finished by another thread */
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

/* ---- 23. call patch: never waits                      >>call-patch ----
 * Only one side of the line boundary changes, so every mix an executor can
 * fetch is a valid instruction: the active call, or the deactivated form. */

/* A `ret` within rel32 reach of the byte after the call. Pages of `ret`
 * are allocated once per +-2 GiB region and shared by every site in reach.
 * Lock held. */
EDGEPROBE__FN uintptr_t edgeprobe__tramp_near_locked(edgeprobe__root *r, uintptr_t from);
EDGEPROBE__FN uintptr_t edgeprobe__tramp_near_locked(edgeprobe__root *r, uintptr_t from) {
    EDGEPROBE__ASSERT_LOCKED(r);
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
EDGEPROBE__FN int edgeprobe__call_forms_locked(edgeprobe__root *r, const unsigned char *site, int32_t rel32,
                                        unsigned char on[5], unsigned char off[5]);
EDGEPROBE__FN int edgeprobe__call_forms_locked(edgeprobe__root *r, const unsigned char *site, int32_t rel32,
                                        unsigned char on[5], unsigned char off[5]) {
    EDGEPROBE__ASSERT_LOCKED(r);
    size_t front = edgeprobe__front_len(site, 5);
    on[0] = EDGEPROBE__OP_CALL;
    __builtin_memcpy(on + 1, &rel32, 4);
    __builtin_memcpy(off, on, 5);
    if (front == 5) {
        __builtin_memcpy(off, edgeprobe__nop5, 5);
    } else if (front == 1) { /* 1|4: call a ret instead */
        uintptr_t t = edgeprobe__tramp_near_locked(r, (uintptr_t)site + 5);
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
EDGEPROBE__FN int edgeprobe__call_set_locked(edgeprobe__root *r, unsigned char *site, int32_t rel32, int on);
EDGEPROBE__FN int edgeprobe__call_set_locked(edgeprobe__root *r, unsigned char *site, int32_t rel32, int on) {
    EDGEPROBE__ASSERT_LOCKED(r);
    unsigned char active[5], off[5], *from, *to;
    size_t front = edgeprobe__front_len(site, 5), at, n;
    int rc;
    if (edgeprobe__flight_overlaps_locked(r, (uintptr_t)site, 5)) return EDGEPROBE_EBUSY;
    if ((rc = edgeprobe__call_forms_locked(r, site, rel32, active, off)) < 0) return rc;
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
    rc = edgeprobe__write_code_locked(r, site + at, from + at, to + at, n);
    return rc < 0 ? rc : 1;
}
EDGEPROBE__FN int edgeprobe_call_on(void *site, int32_t rel32) {
    int rc;
    EDGEPROBE__ROOT_OR_RETURN(r);
    if (!site) return EDGEPROBE_EINVAL;
    edgeprobe__lock(&r->lock);
    edgeprobe__pages_check_now_locked(r);
    rc = edgeprobe__call_set_locked(r, (unsigned char *)site, rel32, 1);
    edgeprobe__unlock(&r->lock);
    return rc;
}
EDGEPROBE__FN int edgeprobe_call_off(void *site) {
    unsigned char *p = (unsigned char *)site;
    int32_t rel32;
    int rc;
    EDGEPROBE__ROOT_OR_RETURN(r);
    if (!site) return EDGEPROBE_EINVAL;
    edgeprobe__lock(&r->lock);
    edgeprobe__pages_check_now_locked(r);
    __builtin_memcpy(&rel32, p + 1, 4);
    if (edgeprobe__call_is_off(r, p)) rc = 0;
    else if (p[0] == EDGEPROBE__OP_CALL) rc = edgeprobe__call_set_locked(r, p, rel32, 0);
    else {
        edgeprobe__log_bytes(r, "not a call", site, 0, 5);
        rc = EDGEPROBE_EBYTES;
    }
    edgeprobe__unlock(&r->lock);
    return rc;
}
#endif /* EDGEPROBE__HAS_PATCH: sections 21 to 23 */

/* ---- 24. per-point hit counts: the sums                       >>hits ----
 * How hits are counted, and what a count may miss: section 11.4. */
EDGEPROBE__FN int edgeprobe__hit(edgeprobe__mark *m) {
    edgeprobe__point *pt = edgeprobe__mark_point(m);
    if (pt) edgeprobe__record_hit(pt); /* BRANCH, lazy TRACE (section 30) */
    return pt ? edgeprobe__hit_point(pt) : 0;
}
/* Sum of one point's stripes. */
EDGEPROBE__FN uint64_t edgeprobe__point_hits(edgeprobe__root *r, int id);
EDGEPROBE__FN uint64_t edgeprobe__point_hits(edgeprobe__root *r, int id) {
    const uint64_t *row = __atomic_load_n(&r->hits[(unsigned)id / EDGEPROBE__CHUNK], __ATOMIC_ACQUIRE);
    uint64_t sum = 0;
    unsigned s;
    for (s = 0; row && s < EDGEPROBE__STRIPES; s++)
        sum += __atomic_load_n(&row[s * EDGEPROBE__CHUNK + (unsigned)id % EDGEPROBE__CHUNK], __ATOMIC_RELAXED);
    return sum;
}
EDGEPROBE__FN int edgeprobe_point_hits(int id, uint64_t *out) {
    EDGEPROBE__READY_OR_RETURN(r);
    if (!out || id < 0 || id >= __atomic_load_n(&r->npoints, __ATOMIC_ACQUIRE)) return EDGEPROBE_EINVAL;
    *out = edgeprobe__point_hits(r, id);
    return 0;
}

/* ---- 25. handlers                                      >>bind ----
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
#define EDGEPROBE__MB_PRIVATE_EXPEDITED (1 << 3)
#define EDGEPROBE__MB_REGISTER_PRIVATE_EXPEDITED (1 << 4)
#ifndef EDGEPROBE_FREESTANDING
__attribute__((weak, visibility("hidden"), tls_model("initial-exec")))
__thread edgeprobe__reader *edgeprobe__my_reader;
/* Register for membarrier's private expedited command at root creation.
 * Returns 1 when readers must fence themselves. */
long edgeprobe__libc_syscall(long, ...) __asm__("syscall");
#if defined(__x86_64__)
#define EDGEPROBE__NR_MEMBARRIER 324L
#else
#define EDGEPROBE__NR_MEMBARRIER 283L /* aarch64 (the generic syscall table) */
#endif
/* 0, or non-zero when membarrier refuses (libc's syscall(): -1, errno). */
#define EDGEPROBE__MEMBARRIER(cmd) edgeprobe__libc_syscall(EDGEPROBE__NR_MEMBARRIER, (long)(cmd), 0L, 0L)
#if defined(__x86_64__)
#define EDGEPROBE__NR_GETTID 186L
#define EDGEPROBE__NR_TGKILL 234L
#else
#define EDGEPROBE__NR_GETTID 178L
#define EDGEPROBE__NR_TGKILL 131L
#endif
#define EDGEPROBE__GETTID() ((int)edgeprobe__libc_syscall(EDGEPROBE__NR_GETTID))
/* Is the owner of a reader record gone from this process? The threads of a
 * parent that forked do not exist in the child, but their records (one
 * maybe inside a handler at the fork) do: sync must not wait for those. */
EDGEPROBE__INLINE int edgeprobe__reader_gone(const edgeprobe__reader *rd) {
    return rd->tid && edgeprobe__libc_syscall(EDGEPROBE__NR_TGKILL, (long)edgeprobe__libc_getpid(), (long)rd->tid, 0L) != 0;
}
/* In a child made by fork: this thread's record now belongs to a new tid. */
EDGEPROBE__FN void edgeprobe__reader_forked(void);
EDGEPROBE__FN void edgeprobe__reader_forked(void) {
    if (edgeprobe__my_reader) edgeprobe__my_reader->tid = EDGEPROBE__GETTID();
}
/* DEFERRED SIGNALS. A program's signal handler may leave by siglongjmp (a
 * timeout), wherever the signal found the thread: inside one of our
 * handlers too, which then never ends. Its reader record stays inside (no
 * handler on that thread again, edgeprobe_handler_sync waits for ever),
 * and what the handler held stays held: under `edgeprobe prof`, a program
 * that left a SIGALRM handler by siglongjmp 2,000 times hung at exit or
 * crashed (tests/prof/jumps.c). So the libraries edgeprobe preloads route
 * the program's handlers through edgeprobe__signal_defer
 * (tools/signal_defer.h). A signal that finds the thread inside a handler
 * call goes back to the kernel, queued to this thread with its siginfo
 * and blocked, also in the interrupted context's mask (which the handler's
 * return restores); the outermost call's end unblocks it
 * (edgeprobe__reader_out), and the kernel delivers it there, a few
 * microseconds late. A signal that arrives after depth 0 runs at once,
 * first unblocking any still held back in the context it interrupted (a
 * handler that leaves by siglongjmp then takes them along). */
#if defined(__x86_64__)
#define EDGEPROBE__NR_RT_SIGPROCMASK 14L
#define EDGEPROBE__NR_RT_SIGTIMEDWAIT 128L
#define EDGEPROBE__NR_RT_TGSIGQUEUEINFO 297L
#else
#define EDGEPROBE__NR_RT_SIGPROCMASK 135L
#define EDGEPROBE__NR_RT_SIGTIMEDWAIT 137L
#define EDGEPROBE__NR_RT_TGSIGQUEUEINFO 240L
#endif
#define EDGEPROBE__SIG_BLOCK 0
#define EDGEPROBE__SIG_UNBLOCK 1
#define EDGEPROBE__SIG_SETMASK 2
#define EDGEPROBE__SIGRTMIN_KERNEL 32
#define EDGEPROBE__QUEUED_KEPT 16 /* instances of a real-time signal kept in order */
EDGEPROBE__INLINE long edgeprobe__sigmask_change(int how, unsigned long bits) {
    return edgeprobe__libc_syscall(EDGEPROBE__NR_RT_SIGPROCMASK, (long)how, (long)&bits, 0L, 8L);
}
EDGEPROBE__INLINE long edgeprobe__signal_requeue(int sig, const void *info) {
    return edgeprobe__libc_syscall(EDGEPROBE__NR_RT_TGSIGQUEUEINFO, (long)edgeprobe__libc_getpid(),
                                   (long)EDGEPROBE__GETTID(), (long)sig, (long)info);
}
/* Real-time signals lost: held back when the process had used up its
 * RLIMIT_SIGPENDING, the kernel refused to queue them again. */
static unsigned long edgeprobe__signals_dropped;
/* Queue sig (just taken, blocked) again behind nothing: a real-time signal
 * keeps its place before the instances still queued (the kernel's order is
 * first in, first out), which are taken first and queued again after it. */
EDGEPROBE__FN void edgeprobe__signal_hold(int sig, const void *info, unsigned long bit);
EDGEPROBE__FN void edgeprobe__signal_hold(int sig, const void *info, unsigned long bit) {
    unsigned long later[EDGEPROBE__QUEUED_KEPT][16]; /* siginfo: 128 bytes each */
    long zero[2] = {0, 0};
    int n = 0, i;
    if (sig >= EDGEPROBE__SIGRTMIN_KERNEL)
        while (n < EDGEPROBE__QUEUED_KEPT &&
               edgeprobe__libc_syscall(EDGEPROBE__NR_RT_SIGTIMEDWAIT, (long)&bit, (long)later[n], (long)zero, 8L) == sig)
            n++;
    /* a standard signal is always queued again (as pending, if need be) */
    if (edgeprobe__signal_requeue(sig, info) != 0) __atomic_add_fetch(&edgeprobe__signals_dropped, 1, __ATOMIC_RELAXED);
    for (i = 0; i < n; i++)
        if (edgeprobe__signal_requeue(sig, later[i]) != 0) __atomic_add_fetch(&edgeprobe__signals_dropped, 1, __ATOMIC_RELAXED);
}
/* Called by the program's handler's wrapper with the signal, its siginfo
 * and the interrupted context's mask (signals 1-64: the first word of
 * uc_sigmask). Returns 1 if the signal is held back (the wrapper returns
 * at once), 0 if the program's handler is to run now. It never runs the
 * handler inside ours: a real-time signal the kernel will not queue again
 * is lost (edgeprobe__signals_dropped) rather than cut a handler short.
 * errno kept. */
EDGEPROBE__FN int edgeprobe__signal_defer(int sig, const void *info, unsigned long *interrupted_mask);
EDGEPROBE__FN int edgeprobe__signal_defer(int sig, const void *info, unsigned long *interrupted_mask) {
    edgeprobe__reader *rd = edgeprobe__my_reader;
    int saved = *edgeprobe__libc_errno(), held = 0;
    unsigned long bit = sig >= 1 && sig <= 64 ? 1ul << (sig - 1) : 0;
    if (!rd || !bit) return 0;
    if (!__atomic_load_n(&rd->depth, __ATOMIC_RELAXED) && !__atomic_load_n(&rd->guarded, __ATOMIC_RELAXED)) {
        *interrupted_mask &= ~__atomic_exchange_n(&rd->deferred, 0, __ATOMIC_RELAXED); /* a release cut short */
    } else if (edgeprobe__sigmask_change(EDGEPROBE__SIG_BLOCK, bit) == 0) { /* SA_NODEFER: not again now */
        edgeprobe__signal_hold(sig, info, bit);
        __atomic_fetch_or(&rd->deferred, bit, __ATOMIC_RELAXED);
        *interrupted_mask |= bit;
        held = 1;
    }
    *edgeprobe__libc_errno() = saved;
    return held;
}
/* The outermost handler call (or guarded stretch) ended with signals held
 * back: unblock them, and the kernel delivers them now - unless a guarded
 * stretch is still in progress, whose end does. The mask changes first: a
 * signal that comes between finds them still listed and unblocks them in
 * the context it interrupted (edgeprobe__signal_defer). */
EDGEPROBE__FN void edgeprobe__signals_release(edgeprobe__reader *rd) {
    int saved;
    unsigned long held;
    if (__atomic_load_n(&rd->guarded, __ATOMIC_RELAXED)) return;
    saved = *edgeprobe__libc_errno();
    held = __atomic_load_n(&rd->deferred, __ATOMIC_RELAXED);
    edgeprobe__sigmask_change(EDGEPROBE__SIG_UNBLOCK, held);
    __atomic_fetch_and(&rd->deferred, ~held, __ATOMIC_RELAXED); /* (a handler run meanwhile may hold others) */
    *edgeprobe__libc_errno() = saved;
}
EDGEPROBE__FN int edgeprobe__readers_need_fence(void) {
    const char *s = EDGEPROBE__GETENV("EDGEPROBE_MEMBARRIER");
    if (s && *s == '0') return 1;
    return EDGEPROBE__MEMBARRIER(EDGEPROBE__MB_REGISTER_PRIVATE_EXPEDITED) != 0;
}
/* Records come from page-sized chunks of mmap, 63 to a chunk after a
 * 64-byte header holding the count handed out; one atomic add takes one.
 * Not malloc: a thread's first handler call may be in a signal handler
 * that interrupted malloc. Records and chunks are kept for the process. */
#define EDGEPROBE__READER_CHUNK 4096u
EDGEPROBE__FN edgeprobe__reader *edgeprobe__reader_alloc(edgeprobe__root *r);
EDGEPROBE__FN edgeprobe__reader *edgeprobe__reader_alloc(edgeprobe__root *r) {
    for (;;) {
        char *c = __atomic_load_n(&r->reader_chunk, __ATOMIC_ACQUIRE), *fresh;
        if (c) {
            unsigned i = __atomic_fetch_add((unsigned *)c, 1u, __ATOMIC_RELAXED);
            if (i < EDGEPROBE__READER_CHUNK / sizeof(edgeprobe__reader) - 1)
                return (edgeprobe__reader *)(c + sizeof(edgeprobe__reader) * (i + 1));
        }
        if (!(fresh = edgeprobe__scratch(EDGEPROBE__READER_CHUNK))) return 0;
        if (!__atomic_compare_exchange_n(&r->reader_chunk, &c, fresh, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
            edgeprobe__libc_munmap(fresh, EDGEPROBE__READER_CHUNK); /* another thread's chunk won */
    }
}
/* This thread's record; slow path on its first handler call. */
EDGEPROBE__FN edgeprobe__reader *edgeprobe__reader_new(edgeprobe__root *r);
EDGEPROBE__FN edgeprobe__reader *edgeprobe__reader_new(edgeprobe__root *r) {
    edgeprobe__reader *rd = edgeprobe__reader_alloc(r), *head;
    if (!rd) return 0;
    rd->tid = EDGEPROBE__GETTID();
    head = __atomic_load_n(&r->readers, __ATOMIC_RELAXED);
    do rd->next = head;
    while (!__atomic_compare_exchange_n(&r->readers, &head, rd, 1, __ATOMIC_RELEASE, __ATOMIC_RELAXED));
    edgeprobe__my_reader = rd;
    return rd;
}
EDGEPROBE__INLINE edgeprobe__reader *edgeprobe__reader_self(edgeprobe__root *r) {
    edgeprobe__reader *rd = edgeprobe__my_reader;
    return rd ? rd : edgeprobe__reader_new(r);
}
/* A GUARDED STRETCH: code of ours that runs on a program thread outside
 * any handler call and holds something a siglongjmp must not carry away -
 * a provider site's first hit, which asks dladdr (the loader's lock) and
 * then takes the registry's. Signals are held back there as in a handler
 * call (DEFERRED SIGNALS), but the stretch is no reader:
 * edgeprobe_handler_sync does not wait for it. NULL: no record, no guard. */
EDGEPROBE__INLINE edgeprobe__reader *edgeprobe__guard_in(edgeprobe__root *r) {
    edgeprobe__reader *rd = edgeprobe__reader_self(r);
    if (!rd) return 0;
    __atomic_store_n(&rd->guarded, __atomic_load_n(&rd->guarded, __ATOMIC_RELAXED) + 1, __ATOMIC_RELAXED);
    __atomic_signal_fence(__ATOMIC_SEQ_CST); /* before the stretch's first store */
    return rd;
}
EDGEPROBE__INLINE void edgeprobe__guard_out(edgeprobe__reader *rd) {
    if (!rd) return;
    __atomic_signal_fence(__ATOMIC_SEQ_CST); /* after the stretch's last store */
    __atomic_store_n(&rd->guarded, __atomic_load_n(&rd->guarded, __ATOMIC_RELAXED) - 1, __ATOMIC_RELAXED);
    __atomic_signal_fence(__ATOMIC_SEQ_CST); /* 0 first: a signal from here runs now */
    if (!__atomic_load_n(&rd->depth, __ATOMIC_RELAXED) && __atomic_load_n(&rd->deferred, __ATOMIC_RELAXED))
        edgeprobe__signals_release(rd);
}
#else
EDGEPROBE__FN int edgeprobe__readers_need_fence(void) { return 1; }
#define EDGEPROBE__MEMBARRIER(cmd) ((void)(cmd), -1L)
#define edgeprobe__reader_self(r) ((void)(r), (edgeprobe__reader *)0)
#define edgeprobe__reader_gone(rd) ((void)(rd), 0)
#endif

EDGEPROBE__INLINE unsigned edgeprobe__stripe(void) {
    return edgeprobe__hash_ptr((uintptr_t)__builtin_frame_address(0) >> 16) & (EDGEPROBE__STRIPES - 1);
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
/* Any thread, any build: with a ticket. */
EDGEPROBE__FN void edgeprobe__dispatch_ticket(edgeprobe__root *r, edgeprobe__point *pt, uintptr_t value);
EDGEPROBE__FN void edgeprobe__dispatch_ticket(edgeprobe__root *r, edgeprobe__point *pt, uintptr_t value) {
    edgeprobe__ticket t = edgeprobe__reader_enter(r);
    edgeprobe__call_binding(pt, value);
    edgeprobe__reader_leave(t);
}
EDGEPROBE__FN void edgeprobe__dispatch(edgeprobe__mark *m, uintptr_t value) {
    edgeprobe__root *r = __atomic_load_n(&edgeprobe__this_object.root, __ATOMIC_RELAXED);
    edgeprobe__reader *rd = edgeprobe__reader_tls();
    edgeprobe__point *pt = edgeprobe__mark_point(m);
    if (__builtin_expect(!rd || !r || !pt, 0)) {
        if (r && pt) edgeprobe__count_point_hit(pt), edgeprobe__dispatch_ticket(r, pt, value);
        return;
    }
    edgeprobe__count_point_hit(pt);
    edgeprobe__reader_in(r, rd);
    edgeprobe__call_binding(pt, value);
    edgeprobe__reader_out(edgeprobe__reader_tls());
}
/* Publish a new binding (or NULL) in a point; retire the old one. Lock held. */
EDGEPROBE__FN int edgeprobe__bind_locked(edgeprobe__root *r, edgeprobe__point *pt, edgeprobe_handler_fn fn, void *user);
EDGEPROBE__FN int edgeprobe__bind_locked(edgeprobe__root *r, edgeprobe__point *pt, edgeprobe_handler_fn fn, void *user) {
    EDGEPROBE__ASSERT_LOCKED(r);
    struct edgeprobe__binding_full *b = 0;
    edgeprobe__binding *old;
    if (fn) {
        b = (struct edgeprobe__binding_full *)EDGEPROBE_OS_ALLOC(sizeof *b);
        if (!b) return EDGEPROBE_ENOMEM;
        b->b.fn = fn;
        b->b.user = user;
        edgeprobe__fill_info(pt, &b->info);
        edgeprobe__point_link_locked(pt); /* detaching links (and writes) no mark */
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
            /* Switch first (off before unbinding; on before binding, since
             * switching on can fail: then nothing is bound). A site on
             * with no binding yet calls nothing. */
            rc = edgeprobe__probe_count_locked(r, p, fn ? (p->count > 0 ? p->count : 1) : 0);
            for (k = 0; k < p->npoints && rc >= 0; k++)
                if (fn ? p->points[k]->kind == kind
                       : (p->points[k]->kind == EDGEPROBE_KIND_HANDLER || p->points[k]->kind == EDGEPROBE_KIND_PROBE))
                    rc = edgeprobe__bind_locked(r, p->points[k], fn, user);
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
        while (__atomic_load_n(&rd->depth, __ATOMIC_ACQUIRE) && __atomic_load_n(&rd->gen, __ATOMIC_ACQUIRE) == gen) {
            if (++spins % 64) {
                edgeprobe__pause();
                continue;
            }
            if (edgeprobe__reader_gone(rd)) break; /* a parent's thread, in a forked child */
            EDGEPROBE_OS_YIELD();
        }
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
#if EDGEPROBE__HAS_PATCH /* section 26: x86-64 only */
/* ---- 26. the -finstrument-functions provider              >>provider ----
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
    edgeprobe__mark self;        /* -> pt: what edgeprobe__dispatch takes  */
    int32_t rel32;               /* the original call's displacement       */
    int patchable;               /* a 5-byte call that reaches the hook    */
    void *fn;                    /* instrumented function                  */
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
EDGEPROBE__FN edgeprobe__ptable *edgeprobe__ptable_reserve_locked(struct edgeprobe__provider *pv);
EDGEPROBE__FN edgeprobe__ptable *edgeprobe__ptable_reserve_locked(struct edgeprobe__provider *pv) {
    EDGEPROBE__ASSERT_LOCKED(edgeprobe__this_object.root);
    edgeprobe__ptable *t = pv->table, *n;
    unsigned cap = t ? t->cap * 2 : 1024, i;
    if (t && (t->used + 1) * 2 <= t->cap) return t;
    n = (edgeprobe__ptable *)edgeprobe__pages_zeroed(sizeof *n + (cap - 1) * sizeof n->slot[0]); /* not malloc: a first hit */
    if (!n) return 0;
    n->cap = cap;
    n->older = t;
    for (i = 0; t && i < t->cap; i++)
        if (t->slot[i].key) edgeprobe__ptable_put(n, t->slot[i].key, t->slot[i].point);
    __atomic_store_n(&pv->table, n, __ATOMIC_RELEASE);
    return n;
}
#ifndef EDGEPROBE_FREESTANDING
/* Are [addr, addr + len) inside an executable segment of a loaded object?
 * Lets the discovery follow a call into a PLT stub without risking a fault,
 * and a switch find the object of its site. */
typedef struct { uintptr_t addr, len; int found; } edgeprobe__code_query;
EDGEPROBE__FN int edgeprobe__find_code(edgeprobe__dl_phdr_info *info, size_t size, void *arg);
EDGEPROBE__FN int edgeprobe__find_code(edgeprobe__dl_phdr_info *info, size_t size, void *arg) {
    edgeprobe__code_query *q = (edgeprobe__code_query *)arg;
    int i;
    (void)size;
    for (i = 0; i < info->phnum; i++) {
        uintptr_t lo = info->addr + info->phdr[i].vaddr;
        if (info->phdr[i].type == 1 /* PT_LOAD */ && (info->phdr[i].flags & 1 /* PF_X */) &&
            q->addr >= lo && q->addr + q->len <= lo + info->phdr[i].memsz)
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
    q.len = 16; /* the longest PLT stub read below */
    q.found = 0;
    edgeprobe__libc_dl_iterate_phdr(edgeprobe__find_code, &q);
    if (!q.found) return 0;
    if (t[0] == 0xf3 && t[1] == 0x0f && t[2] == 0x1e && t[3] == 0xfa) t += 4; /* endbr64 */
    if (t[0] == 0xf2) t++;                                                    /* bnd */
    if (t[0] != 0xff || t[1] != 0x25) return 0;                               /* jmp *disp(%rip) */
    __builtin_memcpy(&rel, t + 2, 4);
    return *(void *const *)(t + 6 + rel) == hook;
}
/* ---- how the provider meets the dynamic loader ----
 * Lock order: the registry lock, then the loader's list lock (which
 * dl_iterate_phdr takes, and which the loader holds only while it changes
 * its list or unmaps an object - never while a constructor or destructor
 * runs). The loader's main lock (dladdr, dlopen, dlclose) is never taken
 * with the registry lock held: the loader runs constructors and
 * destructors under it, and those of an object that includes this header
 * take the registry lock. So a site's first hit asks the loader what it
 * needs before it takes the lock, and a switch writes a site from inside
 * dl_iterate_phdr's callback for the site's object, where no dlclose can
 * unmap it.
 *
 * What a site's first hit learns, without the lock. Its own object cannot
 * go away meanwhile: the hit is a call from that object's running code. */
typedef struct {
    void *fn;
    uintptr_t ret;               /* the hook call's return address          */
    int kind;
    const void *hook;
    int patchable;
    const char *sname, *fname;   /* dladdr's, valid while the caller runs   */
} edgeprobe__provider_found;
EDGEPROBE__FN void edgeprobe__provider_look(edgeprobe__provider_found *f, int named);
EDGEPROBE__FN void edgeprobe__provider_look(edgeprobe__provider_found *f, int named) {
    EDGEPROBE__ASSERT_UNLOCKED(edgeprobe__this_object.root);
    edgeprobe__dl_info dli;
    f->patchable = edgeprobe__call_reaches((const unsigned char *)f->ret - 5, f->hook);
    f->sname = f->fname = 0;
    if (!named && edgeprobe__libc_dladdr(f->fn, &dli) && dli.sname && dli.saddr == f->fn) {
        f->sname = dli.sname;
        f->fname = dli.fname;
    }
}
/* A lasting copy of dladdr's name and file, "name\0file\0", in the arena:
 * the loader's strings go with their object (dlclose), while the point
 * stays listed and matched by every glob. Lock held. */
EDGEPROBE__FN void edgeprobe__provider_name_locked(edgeprobe__root *r, edgeprobe__ppoint *pp,
                                                   const edgeprobe__provider_found *f);
EDGEPROBE__FN void edgeprobe__provider_name_locked(edgeprobe__root *r, edgeprobe__ppoint *pp,
                                                   const edgeprobe__provider_found *f) {
    EDGEPROBE__ASSERT_LOCKED(r);
    size_t n = f->sname ? edgeprobe__strnlen(f->sname, 4095) : 0, k = f->fname ? edgeprobe__strnlen(f->fname, 4095) : 0;
    char *copy = n ? (char *)edgeprobe__arena_take(r, n + k + 2) : 0;
    if (copy) { /* zeroed: both strings end */
        __builtin_memcpy(copy, f->sname, n);
        if (k) __builtin_memcpy(copy + n + 1, f->fname, k);
        pp->pt.name = copy;
        pp->pt.file = k ? copy + n + 1 : 0;
    } else { /* no symbol names it (or no memory) */
        edgeprobe__text txt = {pp->name, sizeof pp->name, 0};
        edgeprobe__puts(&txt, "0x");
        edgeprobe__puthex(&txt, (uintptr_t)pp->fn, 12);
        pp->pt.name = pp->name;
    }
    pp->pt.function = pp->pt.name;
}
#endif
#ifdef EDGEPROBE_PROVIDER
#ifdef EDGEPROBE_FREESTANDING
#error "EDGEPROBE_PROVIDER needs a hosted build (dladdr)"
#endif
/* Entry and exit of one function share its name: the table maps fn|top bit
 * to the point that was named first. */
#define EDGEPROBE__FN_KEY(fn) ((uintptr_t)(fn) | ((uintptr_t)1 << 63))
EDGEPROBE__INLINE edgeprobe__point *edgeprobe__provider_get(edgeprobe__root *r, uintptr_t key) {
    struct edgeprobe__provider *pv = __atomic_load_n(&r->provider, __ATOMIC_ACQUIRE);
    edgeprobe__ptable *t = pv ? __atomic_load_n(&pv->table, __ATOMIC_ACQUIRE) : 0;
    return t ? edgeprobe__ptable_get(t, key) : 0;
}
/* Make a first-hit site's point: memory from the arena and pages, never
 * malloc. Lock held. */
EDGEPROBE__FN edgeprobe__point *edgeprobe__provider_discover_locked(edgeprobe__root *r, const edgeprobe__provider_found *f);
EDGEPROBE__FN edgeprobe__point *edgeprobe__provider_discover_locked(edgeprobe__root *r, const edgeprobe__provider_found *f) {
    EDGEPROBE__ASSERT_LOCKED(r);
    struct edgeprobe__provider *pv = r->provider;
    edgeprobe__ptable *t;
    edgeprobe__ppoint *pp;
    edgeprobe__point *named;
    unsigned char *call = (unsigned char *)f->ret - 5;
    if (!pv && !(pv = (struct edgeprobe__provider *)edgeprobe__arena_take(r, sizeof *pv))) return 0;
    __atomic_store_n(&r->provider, pv, __ATOMIC_RELEASE);
    if (pv->table && (pp = (edgeprobe__ppoint *)edgeprobe__ptable_get(pv->table, f->ret))) return &pp->pt;
    if (!(t = edgeprobe__ptable_reserve_locked(pv)) || !(pp = (edgeprobe__ppoint *)edgeprobe__arena_take(r, sizeof *pp)))
        return 0;
    pp->fn = f->fn;
    pp->patchable = f->patchable;
    if (!pp->patchable) pp->pt.flags = EDGEPROBE__PF_UNSAFE;
    __builtin_memcpy(&pp->rel32, call + 1, 4);
    pp->pt.kind = (unsigned short)f->kind;
    pp->pt.site = call;
    pp->pt.nsites = 1;
    pp->self.point = &pp->pt;
    if ((named = edgeprobe__ptable_get(t, EDGEPROBE__FN_KEY(f->fn))) != 0) {
        pp->pt.name = pp->pt.function = named->name;
        pp->pt.file = named->file;
    } else {
        edgeprobe__provider_name_locked(r, pp, f);
        edgeprobe__ptable_put(t, EDGEPROBE__FN_KEY(f->fn), &pp->pt);
        if (!(t = edgeprobe__ptable_reserve_locked(pv))) return 0;
    }
    edgeprobe__ptable_put(t, f->ret, &pp->pt);
    edgeprobe__point_add(r, &pp->pt);
    return &pp->pt;
}
/* A site's first hit, safe in a signal handler: the loader is asked with no
 * lock held, and the registry lock is only tried - when it is busy (maybe
 * held by the very thread this handler interrupted), the site is found at
 * a later hit. The whole hit is a guarded stretch: a program's handler that
 * leaves by siglongjmp runs after it, not inside dladdr or the lock. */
EDGEPROBE__FN edgeprobe__point *edgeprobe__provider_discover(edgeprobe__root *r, void *fn, uintptr_t ret, int kind,
                                                             const void *hook);
EDGEPROBE__FN edgeprobe__point *edgeprobe__provider_discover(edgeprobe__root *r, void *fn, uintptr_t ret, int kind,
                                                             const void *hook) {
    edgeprobe__provider_found f;
    edgeprobe__point *pt = 0;
    edgeprobe__reader *guard = edgeprobe__guard_in(r);
    f.fn = fn, f.ret = ret, f.kind = kind, f.hook = hook;
    edgeprobe__provider_look(&f, edgeprobe__provider_get(r, EDGEPROBE__FN_KEY(fn)) != 0);
    if (edgeprobe__trylock(&r->lock)) {
        pt = edgeprobe__provider_discover_locked(r, &f);
        edgeprobe__unlock(&r->lock);
    }
    edgeprobe__guard_out(guard);
    return pt;
}
EDGEPROBE__FN void edgeprobe__provider_hit(void *fn, uintptr_t ret, int kind, const void *hook);
EDGEPROBE__FN void edgeprobe__provider_hit(void *fn, uintptr_t ret, int kind, const void *hook) {
    edgeprobe__root *r = __atomic_load_n(&edgeprobe__this_object.root, __ATOMIC_ACQUIRE);
    edgeprobe__point *pt;
    if (!r) {
        int err;
        if (!(r = edgeprobe__root_get(&err))) return;
    }
    if (!(pt = edgeprobe__provider_get(r, ret)) && !(pt = edgeprobe__provider_discover(r, fn, ret, kind, hook))) return;
    if (__atomic_load_n(&pt->binding, __ATOMIC_RELAXED)) edgeprobe__dispatch(&((edgeprobe__ppoint *)pt)->self, (uintptr_t)fn);
}
/* noinline, and for gcc noipa (no constprop clone): every instrumented call
 * must reach the hook itself, also from this translation unit. */
#if defined(__GNUC__) && !defined(__clang__)
#define EDGEPROBE__HOOK __attribute__((EDGEPROBE__NOPATCH no_instrument_function, noinline, noipa))
#else
#define EDGEPROBE__HOOK __attribute__((EDGEPROBE__NOPATCH no_instrument_function, noinline))
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
EDGEPROBE__FN int edgeprobe__provider_point_locked(edgeprobe__root *r, int id, edgeprobe__ppoint **out);
EDGEPROBE__FN int edgeprobe__provider_point_locked(edgeprobe__root *r, int id, edgeprobe__ppoint **out) {
    EDGEPROBE__ASSERT_LOCKED(r);
    edgeprobe__point *pt;
    if (id < 0 || id >= r->npoints) return EDGEPROBE_EINVAL;
    if (!(pt = *edgeprobe__point_slot(r, id))) return EDGEPROBE_EUNLOADED;
    if (pt->kind != EDGEPROBE_KIND_ENTRY && pt->kind != EDGEPROBE_KIND_EXIT) return EDGEPROBE_EINVAL;
    *out = (edgeprobe__ppoint *)pt;
    return 0;
}
/* Bind (fn != NULL) and switch on, or switch off, one provider point, its
 * site known to be loaded. Lock held. */
EDGEPROBE__FN int edgeprobe__provider_switch_locked(edgeprobe__root *r, edgeprobe__ppoint *pp, edgeprobe_handler_fn fn,
                                                    void *user);
EDGEPROBE__FN int edgeprobe__provider_switch_locked(edgeprobe__root *r, edgeprobe__ppoint *pp, edgeprobe_handler_fn fn,
                                                    void *user) {
    EDGEPROBE__ASSERT_LOCKED(r);
    int rc;
    edgeprobe__binding *cur = pp->pt.binding;
    if (fn && !(cur && cur->fn == fn && cur->user == user) && (rc = edgeprobe__bind_locked(r, &pp->pt, fn, user)) < 0)
        return rc;
    return edgeprobe__call_set_locked(r, (unsigned char *)pp->pt.site, pp->rel32, fn != 0);
}
/* Switch provider points - one (`only`), or every patchable one whose name
 * matches `pattern` - from inside dl_iterate_phdr's callback for the object
 * that holds each one's site: dlclose cannot unmap it meanwhile (see "how
 * the provider meets the dynamic loader"). A point no loaded object holds
 * is left alone (EDGEPROBE_EUNLOADED for `only`). One walk of the loader's
 * list serves a whole glob. Lock held. */
typedef struct {
    edgeprobe__root *r;
    edgeprobe__ppoint *only;
    const char *pattern;
    edgeprobe_handler_fn fn;
    void *user;
    int found, changed, rc;
} edgeprobe__provider_switching;
#ifndef EDGEPROBE_FREESTANDING
EDGEPROBE__FN int edgeprobe__provider_here(edgeprobe__dl_phdr_info *info, size_t size, edgeprobe__provider_switching *w,
                                           edgeprobe__ppoint *pp);
EDGEPROBE__FN int edgeprobe__provider_here(edgeprobe__dl_phdr_info *info, size_t size, edgeprobe__provider_switching *w,
                                           edgeprobe__ppoint *pp) {
    edgeprobe__code_query q;
    int rc;
    q.addr = (uintptr_t)pp->pt.site;
    q.len = 5;
    q.found = 0;
    if (!edgeprobe__find_code(info, size, &q)) return 0;
    if (w->pattern && !edgeprobe__glob_match(w->pattern, pp->pt.name)) return 0; /* after the cheaper test */
    w->found++;
    rc = edgeprobe__provider_switch_locked(w->r, pp, w->fn, w->user);
    if (rc < 0) w->rc = rc;
    else if (rc > 0) w->changed++;
    return 1;
}
EDGEPROBE__FN int edgeprobe__provider_switch_cb(edgeprobe__dl_phdr_info *info, size_t size, void *arg);
EDGEPROBE__FN int edgeprobe__provider_switch_cb(edgeprobe__dl_phdr_info *info, size_t size, void *arg) {
    edgeprobe__provider_switching *w = (edgeprobe__provider_switching *)arg;
    edgeprobe__ppoint *pp;
    int id;
    edgeprobe__pages_check_locked(w->r, size >= sizeof *info ? info->subs : ~0ULL);
    if (w->only) return edgeprobe__provider_here(info, size, w, w->only); /* stop once found */
    for (id = 0; id < w->r->npoints && w->rc >= 0; id++)
        if (edgeprobe__provider_point_locked(w->r, id, &pp) == 0 && pp->patchable)
            edgeprobe__provider_here(info, size, w, pp);
    return w->rc < 0;
}
#endif
EDGEPROBE__FN int edgeprobe__provider_switch_all_locked(edgeprobe__provider_switching *w);
EDGEPROBE__FN int edgeprobe__provider_switch_all_locked(edgeprobe__provider_switching *w) {
    EDGEPROBE__ASSERT_LOCKED(w->r);
#ifndef EDGEPROBE_FREESTANDING
    edgeprobe__libc_dl_iterate_phdr(edgeprobe__provider_switch_cb, w);
    return w->rc;
#else
    return (void)w, EDGEPROBE_ENOTSUP; /* no provider points in freestanding builds */
#endif
}
/* Activate (fn != NULL) or deactivate one provider point; lock held. */
EDGEPROBE__FN int edgeprobe__provider_set_locked(edgeprobe__root *r, edgeprobe__ppoint *pp, edgeprobe_handler_fn fn,
                                          void *user);
EDGEPROBE__FN int edgeprobe__provider_set_locked(edgeprobe__root *r, edgeprobe__ppoint *pp, edgeprobe_handler_fn fn,
                                          void *user) {
    edgeprobe__provider_switching w = {r, pp, 0, fn, user, 0, 0, 0};
    EDGEPROBE__ASSERT_LOCKED(r);
    if (!pp->patchable) return EDGEPROBE_EBYTES;
    if (edgeprobe__provider_switch_all_locked(&w) < 0) return w.rc;
    return w.found ? w.changed : EDGEPROBE_EUNLOADED;
}
EDGEPROBE__FN int edgeprobe_provider_attach_id(int id, edgeprobe_handler_fn fn, void *user) {
    edgeprobe__ppoint *pp;
    int rc;
    EDGEPROBE__ROOT_OR_RETURN(r);
    if (!fn) return EDGEPROBE_EINVAL;
    edgeprobe__lock(&r->lock);
    rc = edgeprobe__provider_point_locked(r, id, &pp);
    if (rc == 0) rc = edgeprobe__provider_set_locked(r, pp, fn, user);
    edgeprobe__unlock(&r->lock);
    return rc;
}
EDGEPROBE__FN int edgeprobe_provider_off(int id) {
    edgeprobe__ppoint *pp;
    int rc;
    EDGEPROBE__ROOT_OR_RETURN(r);
    edgeprobe__lock(&r->lock);
    rc = edgeprobe__provider_point_locked(r, id, &pp);
    if (rc == 0) rc = edgeprobe__provider_set_locked(r, pp, 0, 0);
    edgeprobe__unlock(&r->lock);
    return rc;
}
/* By function-name glob: returns the number of sites changed, or
 * EDGEPROBE_ENEVER when no provider probe exists yet. */
EDGEPROBE__FN int edgeprobe__provider_glob(const char *pattern, edgeprobe_handler_fn fn, void *user);
EDGEPROBE__FN int edgeprobe__provider_glob(const char *pattern, edgeprobe_handler_fn fn, void *user) {
    int rc = edgeprobe__check_pattern(pattern), id, seen = 0;
    edgeprobe__provider_switching w = {0, 0, pattern, fn, user, 0, 0, 0};
    edgeprobe__ppoint *pp;
    EDGEPROBE__ROOT_OR_RETURN(r);
    if (rc) return rc;
    w.r = r;
    edgeprobe__lock(&r->lock);
    for (id = 0; id < r->npoints; id++) seen += edgeprobe__provider_point_locked(r, id, &pp) == 0;
    rc = seen ? edgeprobe__provider_switch_all_locked(&w) : 0;
    edgeprobe__unlock(&r->lock);
    if (rc < 0) return rc;
    return seen ? w.changed : EDGEPROBE_ENEVER;
}
EDGEPROBE__FN int edgeprobe_provider_attach(const char *pattern, edgeprobe_handler_fn fn, void *user) {
    return fn ? edgeprobe__provider_glob(pattern, fn, user) : EDGEPROBE_EINVAL;
}
EDGEPROBE__FN int edgeprobe_provider_disable(const char *pattern) {
    return edgeprobe__provider_glob(pattern, 0, 0);
}
#elif defined(EDGEPROBE_PROVIDER)
#error "EDGEPROBE_PROVIDER: the -finstrument-functions provider is x86-64 only (not with EDGEPROBE_CORE_ONLY)"
#endif /* EDGEPROBE__HAS_PATCH: section 26 */

/* ---- 27. function probes on patchable entries              >>fprobe ----
 * The back end of section 6, in five parts: finding the entries (ELF),
 * per-function stubs and mirror pages, the trampolines, the per-thread
 * shadow stack, and the API. Only the registry lock protects the tables;
 * the trampolines read them without it. */
#if EDGEPROBE__HAS_PATCH && !defined(EDGEPROBE_FREESTANDING)
long edgeprobe__libc_pread(int, void *, size_t, long) __asm__("pread");
int edgeprobe__libc_key_create(unsigned *, void (*)(void *)) __asm__("pthread_key_create");
int edgeprobe__libc_setspecific(unsigned, const void *) __asm__("pthread_setspecific");
void *edgeprobe__libc_dlsym(void *, const char *) __asm__("dlsym");
void edgeprobe__libc_abort(void) __asm__("abort");
#define EDGEPROBE__MAP_NORESERVE 0x4000

/* The gcc form's call, e8 90 90 90 90, lands this far below the function:
 * -(int32_t)0x90909090 - 5. */
#define EDGEPROBE__MIRROR_OFFSET ((uintptr_t)0x6f6f6f6b)
#define EDGEPROBE__STUB_BYTES 16u

/* Site forms of a function entry. */
enum {
    EDGEPROBE__FORM_NONE = 0, /* not patchable: listed only                   */
    EDGEPROBE__FORM_NOPS,     /* gcc: 90 x5; on = e8 in byte 0 (mirror stub)  */
    EDGEPROBE__FORM_NOP5,     /* 0f 1f 44 00 xx; on = call stub               */
    EDGEPROBE__FORM_CALLP     /* straddler after its first activation: call   */
};                            /* stub <-> its call-patch deactivated form     */

struct edgeprobe__func_object;
typedef struct edgeprobe__func_point {
    edgeprobe__point pt;       /* kind FUNCTION; file = the object's path     */
    long skip_left;            /* > 0: calls the stubs' head (27.4) counts
                                  without handlers (edgeprobe_func_skip)     */
    long skip_armed;           /* what skip_left was last set to            */
    unsigned long nested;      /* calls inside a handler: none ran (edgeprobe_func_nested) */
    struct edgeprobe__func_object *obj;
    unsigned char *stub;       /* this function's stub (EDGEPROBE__STUB_BYTES) */
    unsigned char form;
    unsigned char nop_last;    /* last byte of the NOP5 form (clang: 08)      */
} edgeprobe__func_point;

/* One loaded object built with the flag. Kept after unloading (points are
 * then unregistered and never touched): threads may still hold a pointer. */
typedef struct edgeprobe__func_object {
    struct edgeprobe__func_object *next;
    uintptr_t base, text_lo, text_hi;
    const char *path;
    int n, loaded, single_threaded_scan;
    int one_text_segment;      /* [text_lo, text_hi) is one PF_X segment     */
    int mirror_span_tried;     /* its mirror pages' one mmap was tried (27.4) */
    unsigned char *stubs;      /* slot, head and n stubs (27.4)               */
    size_t stubs_len;
    edgeprobe__func_point *fn;     /* n points                                     */
} edgeprobe__func_object;

/* A handler pair; immutable once published (retired like bindings). */
typedef struct edgeprobe__func_bind {
    edgeprobe__binding b;      /* first: freed through the retired list       */
    edgeprobe_entry_fn entry;
    edgeprobe_exit_fn exit;
    edgeprobe_info info;
    uint64_t gen;              /* unique in the process: a binding made at
                                  the address of a freed one is not it      */
} edgeprobe__func_bind;

/* A call whose return goes through the return trampoline. */
typedef struct edgeprobe__func_frame {
    uintptr_t ret;             /* the real return address                     */
    uintptr_t slot;            /* where it was on the stack                   */
    edgeprobe__func_point *fp;
    uint64_t gen;              /* binding at entry: exit only if still bound  */
    uint64_t data;
} edgeprobe__func_frame;

/* Per-thread shadow stack; one mapping each, listed in the root, reused
 * after the thread exits. (edgeprobe_handler_sync waits for function-probe
 * handlers through the thread's reader record, section 25.) */
typedef struct edgeprobe__func_thread {
    struct edgeprobe__func_thread *next;
    int live;
    unsigned depth;
    unsigned long lost;
    /* the alternate signal stack a call last found itself on, [0, 0) if
     * none: frames there are dead once a call runs off it (27.2) */
    uintptr_t alt_lo, alt_hi;
    edgeprobe__func_frame frames[EDGEPROBE_FUNC_DEPTH];
} edgeprobe__func_thread;
/* The stub head's skip path (27.4) reads it at a fixed offset. */
#define EDGEPROBE__SKIP_LEFT_AT 80
EDGEPROBE__ASSERT(__builtin_offsetof(edgeprobe__func_point, skip_left) == EDGEPROBE__SKIP_LEFT_AT, "skip_left moved");

struct edgeprobe__func_state {
    edgeprobe__func_object *objects;
    edgeprobe__func_thread *threads;   /* lock-free push, never removed          */
    unsigned long long adds, subs; /* loader counters at the last sync        */
    uintptr_t entry_tramp, ret_tramp;
    /* this thread's skipped calls, as the trampolines' object counts them
     * (its TLS: every other copy of the header asks it; 27.2) */
    unsigned long (*thread_skipped)(void);
    unsigned thread_key;
    unsigned vec_bytes;            /* the trampolines' vector slot size      */
    /* edgeprobe__func_skipped_tls of the trampolines' object, as an offset
     * from the thread pointer (initial-exec: the same in every thread);
     * 0 when it does not fit the stub head's 32 bits (27.4) */
    int32_t tls_offset;
    /* the unwinder's __register_frame, if the trampolines' object was
     * built to give it the stubs' unwind tables (27.4) */
    void (*register_frame)(void *);
};

/* ---- 27.1 the trampolines                                 >>ftramp ----
 * Entry: a site calls its stub, which loads its point into %r11 and jumps
 * to its object's stub head (27.4); a call that the head does not count
 * comes on here. On entry [rsp] = fn+5 (back into the function), [rsp+8] =
 * the caller's return address (the slot). Saved: %rax (varargs count), the six
 * argument registers, %r10 (static chain), %xmm/ymm/zmm0-7; the stack is
 * realigned to 64 for the C call.
 *
 *     frame:  0 rax  8 rdi  16 rsi  24 rdx  32 rcx  40 r8  48 r9  56 r10
 *             64.. vector registers 0-7 (16, 32 or 64 bytes each)
 *
 * Return: the function's `ret` lands here with rsp = slot + 8. The CFI says
 * CFA = rsp and the return address is at CFA-8 (the slot), and names a
 * personality routine, so that an unwinder (C++ throw, pthread_exit) that
 * meets this frame lets us put the real address back into the slot first.
 *
 *     frame:  0 rax  8 rdx  16 x87 depth  24 uppers flag
 *             64.. x87 values (16 each, <= 8)  192.. vector registers 0-1
 *
 * Upper halves (the ymm and zmm variants). Where the bits above 128 of the
 * saved registers are all zero - any code built for SSE, which is most
 * code - the trampolines restore them as xmm registers after a vzeroupper,
 * so the program goes on with its upper state clean, and the C code runs
 * with it clean in every case (vzeroupper once the registers are saved).
 * Restoring with 256- or 512-bit loads instead leaves the state dirty, and
 * on Intel CPUs every later SSE instruction then pays for it: on the
 * Intel machine of bench/RESULTS.md, an entry probe cost +306 ticks, not +21,
 * and SSE code after the probed call ~300 more per call. Registers 16-31
 * and the mask registers have no such cost. */
#define EDGEPROBE__FRAME_VEC 8       /* entry frame: words before %xmm0     */
#define EDGEPROBE__FRAME_RET_VEC 24  /* return frame: words before %xmm0    */
#define EDGEPROBE__TEXT(sym)                                                   \
    ".pushsection .text." #sym ",\"axG\",@progbits," #sym ",comdat\n"          \
    ".weak " #sym "\n.hidden " #sym "\n.type " #sym ",@function\n"
#define EDGEPROBE__ENTRY_TRAMP(sym, size, save, restore)                       \
    EDGEPROBE__TEXT(sym)                                                       \
    ".p2align 4\n" #sym ":\n.cfi_startproc\n"                                  \
    "push %rbp\n.cfi_adjust_cfa_offset 8\n.cfi_offset %rbp, -16\n"             \
    "mov %rsp, %rbp\n.cfi_def_cfa_register %rbp\n"                             \
    "and $-64, %rsp\nsub $" #size "+64, %rsp\n"                                \
    "mov %rax, 0(%rsp)\nmov %rdi, 8(%rsp)\nmov %rsi, 16(%rsp)\n"               \
    "mov %rdx, 24(%rsp)\nmov %rcx, 32(%rsp)\nmov %r8, 40(%rsp)\n"              \
    "mov %r9, 48(%rsp)\nmov %r10, 56(%rsp)\n" save                             \
    "mov %r11, %rdi\nmov %rsp, %rsi\nlea 16(%rbp), %rdx\n"                     \
    "call edgeprobe__func_entry_c\n" restore                                       \
    "mov 0(%rsp), %rax\nmov 8(%rsp), %rdi\nmov 16(%rsp), %rsi\n"               \
    "mov 24(%rsp), %rdx\nmov 32(%rsp), %rcx\nmov 40(%rsp), %r8\n"              \
    "mov 48(%rsp), %r9\nmov 56(%rsp), %r10\n"                                  \
    "mov %rbp, %rsp\npop %rbp\n.cfi_def_cfa %rsp, 8\n.cfi_restore %rbp\nret\n" \
    ".cfi_endproc\n.size " #sym ", .-" #sym "\n.popsection\n"
#define EDGEPROBE__RET_TRAMP(sym, save, restore)                               \
    EDGEPROBE__TEXT(sym)                                                       \
    ".p2align 4\n.cfi_startproc\n"                                             \
    ".cfi_personality 0x1b, edgeprobe__func_ret_personality\n"                     \
    ".cfi_def_cfa %rsp, 0\n.cfi_offset 16, -8\n"                               \
    "nop\n" /* unwinders look up the return address minus one */               \
    #sym ":\n"                                                                 \
    "sub $16, %rsp\n.cfi_adjust_cfa_offset 16\n"                               \
    "push %rbp\n.cfi_adjust_cfa_offset 8\n.cfi_offset %rbp, -24\n"             \
    "mov %rsp, %rbp\n.cfi_def_cfa_register %rbp\n"                             \
    "and $-64, %rsp\nsub $320, %rsp\n"                                         \
    "mov %rax, 0(%rsp)\nmov %rdx, 8(%rsp)\n" save                              \
    "fnstsw %ax\nshr $11, %eax\nand $7, %eax\nneg %eax\nand $7, %eax\n"        \
    "mov %eax, 16(%rsp)\nlea 64(%rsp), %rcx\n"                                 \
    "1: test %eax, %eax\njz 2f\nfstpt (%rcx)\nadd $16, %rcx\ndec %eax\njmp 1b\n" \
    "2: mov %rsp, %rdi\nlea 16(%rbp), %rsi\n"                                  \
    "call edgeprobe__func_exit_c\nmov %rax, %r11\n"                                \
    "mov 16(%rsp), %eax\nlea 64(%rsp), %rcx\n"                                 \
    "3: test %eax, %eax\njz 4f\ndec %eax\nmov %eax, %edx\nshl $4, %edx\n"      \
    "fldt (%rcx,%rdx)\njmp 3b\n"                                               \
    "4:\n" restore "mov 0(%rsp), %rax\nmov 8(%rsp), %rdx\n"                    \
    "mov %rbp, %rsp\npop %rbp\n.cfi_def_cfa %rsp, 16\n"                        \
    "add $16, %rsp\n.cfi_def_cfa_offset 0\njmp *%r11\n"                        \
    ".cfi_endproc\n.size " #sym ", .-" #sym "\n.popsection\n"

#define EDGEPROBE__V8(op, w, r)                                                \
    op " %" r "0, " #w "*0+64(%rsp)\n" op " %" r "1, " #w "*1+64(%rsp)\n"      \
    op " %" r "2, " #w "*2+64(%rsp)\n" op " %" r "3, " #w "*3+64(%rsp)\n"      \
    op " %" r "4, " #w "*4+64(%rsp)\n" op " %" r "5, " #w "*5+64(%rsp)\n"      \
    op " %" r "6, " #w "*6+64(%rsp)\n" op " %" r "7, " #w "*7+64(%rsp)\n"
#define EDGEPROBE__V8R(op, w, r)                                               \
    op " " #w "*0+64(%rsp), %" r "0\n" op " " #w "*1+64(%rsp), %" r "1\n"      \
    op " " #w "*2+64(%rsp), %" r "2\n" op " " #w "*3+64(%rsp), %" r "3\n"      \
    op " " #w "*4+64(%rsp), %" r "4\n" op " " #w "*5+64(%rsp), %" r "5\n"      \
    op " " #w "*6+64(%rsp), %" r "6\n" op " " #w "*7+64(%rsp), %" r "7\n"
#define EDGEPROBE__V2(op, w, r) op " %" r "0, 192(%rsp)\n" op " %" r "1, 192+" #w "(%rsp)\n"
#define EDGEPROBE__V2R(op, w, r) op " 192(%rsp), %" r "0\n" op " 192+" #w "(%rsp), %" r "1\n"
#define EDGEPROBE__Y8 EDGEPROBE__ORY(1) EDGEPROBE__ORY(2) EDGEPROBE__ORY(3) EDGEPROBE__ORY(4) EDGEPROBE__ORY(5) \
    EDGEPROBE__ORY(6) EDGEPROBE__ORY(7)
#define EDGEPROBE__Z8 EDGEPROBE__ORZ(1) EDGEPROBE__ORZ(2) EDGEPROBE__ORZ(3) EDGEPROBE__ORZ(4) EDGEPROBE__ORZ(5) \
    EDGEPROBE__ORZ(6) EDGEPROBE__ORZ(7)

/* Entry frames keep the uppers flag at their end (size + 64 allocated);
 * the return frame at 24. */
__asm__(EDGEPROBE__ENTRY_TRAMP(edgeprobe__func_entry_sse, 192, EDGEPROBE__V8("movaps", 16, "xmm"),
                               EDGEPROBE__V8R("movaps", 16, "xmm"))
        EDGEPROBE__ENTRY_TRAMP(edgeprobe__func_entry_avx, 320,
                               EDGEPROBE__V8("vmovdqa", 32, "ymm") EDGEPROBE__UPPERS_Y(0, EDGEPROBE__Y8, "320(%rsp)"),
                               EDGEPROBE__RESTORE_UPPERS("320(%rsp)", EDGEPROBE__V8R("movaps", 32, "xmm"),
                                                         EDGEPROBE__V8R("vmovdqa", 32, "ymm")))
        EDGEPROBE__ENTRY_TRAMP(edgeprobe__func_entry_avx512, 576,
                               EDGEPROBE__V8("vmovdqa64", 64, "zmm") EDGEPROBE__UPPERS_Z(0, EDGEPROBE__Z8, "576(%rsp)"),
                               EDGEPROBE__RESTORE_UPPERS("576(%rsp)", EDGEPROBE__V8R("movaps", 64, "xmm"),
                                                         EDGEPROBE__V8R("vmovdqa64", 64, "zmm")))
        EDGEPROBE__RET_TRAMP(edgeprobe__func_ret_sse, EDGEPROBE__V2("movaps", 16, "xmm"),
                             EDGEPROBE__V2R("movaps", 16, "xmm"))
        EDGEPROBE__RET_TRAMP(edgeprobe__func_ret_avx,
                             EDGEPROBE__V2("vmovdqa", 32, "ymm") EDGEPROBE__UPPERS_Y(0, EDGEPROBE__ORY(1), "24(%rsp)"),
                             EDGEPROBE__RESTORE_UPPERS("24(%rsp)", EDGEPROBE__V2R("movaps", 32, "xmm"),
                                                       EDGEPROBE__V2R("vmovdqa", 32, "ymm")))
        EDGEPROBE__RET_TRAMP(edgeprobe__func_ret_avx512,
                             EDGEPROBE__V2("vmovdqa64", 64, "zmm") EDGEPROBE__UPPERS_Z(0, EDGEPROBE__ORZ(1), "24(%rsp)"),
                             EDGEPROBE__RESTORE_UPPERS("24(%rsp)", EDGEPROBE__V2R("movaps", 64, "xmm"),
                                                       EDGEPROBE__V2R("vmovdqa64", 64, "zmm"))));
extern const char edgeprobe__func_entry_sse[] __attribute__((visibility("hidden")));
extern const char edgeprobe__func_entry_avx[] __attribute__((visibility("hidden")));
extern const char edgeprobe__func_entry_avx512[] __attribute__((visibility("hidden")));
extern const char edgeprobe__func_ret_sse[] __attribute__((visibility("hidden")));
extern const char edgeprobe__func_ret_avx[] __attribute__((visibility("hidden")));
extern const char edgeprobe__func_ret_avx512[] __attribute__((visibility("hidden")));


/* ---- 27.2 the per-thread shadow stack                    >>fshadow ---- */
__attribute__((weak, used, visibility("hidden"), tls_model("initial-exec"))) __thread edgeprobe__func_thread *edgeprobe__func_thread_tls;
/* The calls the stub heads' skip path (27.4) counted on this thread, ever:
 * the head adds one at %fs:edgeprobe__func_tls_offset() of the object that
 * made the trampolines (edgeprobe_func_thread_skipped asks that copy). A
 * new thread starts at 0; a reader that keeps the last value must take a
 * lower one as a new start. */
__attribute__((weak, used, visibility("hidden"), tls_model("initial-exec"))) __thread unsigned long edgeprobe__func_skipped_tls;
/* Where edgeprobe__func_skipped_tls lies from the thread pointer (%fs:0
 * holds it, by the x86-64 ABI); 0 if that does not fit 32 bits. */
EDGEPROBE__FN int32_t edgeprobe__func_tls_offset(void);
EDGEPROBE__FN int32_t edgeprobe__func_tls_offset(void) {
    uintptr_t tp;
    __asm__("mov %%fs:0, %0" : "=r"(tp));
    intptr_t off = (intptr_t)((uintptr_t)&edgeprobe__func_skipped_tls - tp);
    return off == (int32_t)off ? (int32_t)off : 0;
}
EDGEPROBE__FN unsigned long edgeprobe__func_thread_skipped_here(void);
EDGEPROBE__FN unsigned long edgeprobe__func_thread_skipped_here(void) {
    return __atomic_load_n(&edgeprobe__func_skipped_tls, __ATOMIC_RELAXED);
}

EDGEPROBE__FN void edgeprobe__func_thread_exit(void *p);
EDGEPROBE__FN void edgeprobe__func_thread_exit(void *p) {
    edgeprobe__func_thread *t = (edgeprobe__func_thread *)p;
    edgeprobe__func_thread_tls = 0;
    t->depth = 0;
    t->alt_lo = t->alt_hi = 0;
    __atomic_store_n(&t->live, 0, __ATOMIC_RELEASE); /* reusable by a new thread */
}
/* This thread's record: a free one from the list, or a new mapping (mmap is
 * async-signal-safe: the first probe a thread meets may be in a handler). */
EDGEPROBE__FN edgeprobe__func_thread *edgeprobe__func_thread_new(void);
EDGEPROBE__FN edgeprobe__func_thread *edgeprobe__func_thread_new(void) {
    edgeprobe__root *r = __atomic_load_n(&edgeprobe__this_object.root, __ATOMIC_ACQUIRE);
    struct edgeprobe__func_state *fs = r ? r->fstate : 0;
    edgeprobe__func_thread *t;
    if (!fs) return 0;
    for (t = __atomic_load_n(&fs->threads, __ATOMIC_ACQUIRE); t; t = t->next) {
        int free_ = 0;
        if (__atomic_compare_exchange_n(&t->live, &free_, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) break;
    }
    if (!t) {
        void *m = edgeprobe__libc_mmap(0, sizeof *t, 3 /* RW */, EDGEPROBE__MAP_ANON_PRIVATE | EDGEPROBE__MAP_NORESERVE, -1, 0);
        if (m == (void *)-1) return 0;
        t = (edgeprobe__func_thread *)m;
        t->live = 1;
        t->next = __atomic_load_n(&fs->threads, __ATOMIC_RELAXED);
        while (!__atomic_compare_exchange_n(&fs->threads, &t->next, t, 1, __ATOMIC_RELEASE, __ATOMIC_RELAXED)) {}
    }
    edgeprobe__libc_setspecific(fs->thread_key, t); /* frees it at thread exit */
    edgeprobe__func_thread_tls = t;
    return t;
}
/* Enter handler context on this thread's reader record (section 25), unless a
 * handler already runs here: probed functions called from handlers, or
 * from signal handlers interrupting one, do not run handlers again. */
EDGEPROBE__INLINE edgeprobe__reader *edgeprobe__func_enter(edgeprobe__root *r) {
    edgeprobe__reader *rd = r ? edgeprobe__reader_self(r) : 0;
    if (!rd || __atomic_load_n(&rd->depth, __ATOMIC_RELAXED)) return 0;
    edgeprobe__reader_in(r, rd);
    return rd;
}
/* Drop the frames of this thread's shadow stack that a call whose return
 * address is at `slot` proves dead. On the same stack (within
 * EDGEPROBE__FUNC_SAME_STACK of it), a frame whose slot lies below this one
 * was left by a longjmp (a coroutine's yield: Lua's, at every switch); so
 * was a frame at this very slot, unless the slot still holds the return
 * trampoline: then this call is that frame's function's tail call (a
 * sibling `jmp` reuses the caller's return slot), and both are live. Dead
 * frames are the newest, so the scan stops at the first that may be live.
 * Without it, frames left by calls whose caller is not hooked (a sampling
 * profiler hooks only some calls) were dropped by nobody and filled the
 * stack: lua under `edgeprobe prof` lost 647,128 exits in 200,000 coroutine
 * switches. Done at every entry, before the handlers: one that reads the
 * depth (record --depth) sees the live frames only.
 *
 * A signal handler on the alternate signal stack breaks the address order:
 * that stack may lie just above the frames the signal interrupted (an array
 * in main's frame, or a mapping made before the thread's stack, which the
 * kernel then places right below it), and those frames are live. So before
 * it drops anything, the scan asks the kernel once (sigaltstack) whether
 * this code runs on the alternate stack; if it does, a frame outside that
 * stack is live. The question costs a system call, asked only when a frame
 * is about to go (a longjmp's leftovers: rare under sampling; once per
 * coroutine switch when every call is recorded: about 440 ticks each).
 * The stack it found is kept: code runs off an alternate stack only once
 * its handlers are over (returned, or left by siglongjmp: a fault's
 * recovery), so when a call runs off it, the newest frames on it are dead
 * (kept, they and the interrupted frames under them filled the shadow
 * stack, two a signal). Not covered: a handler whose stack is disarmed
 * while it runs (SS_AUTODISARM: the kernel then reports no alternate
 * stack), which calls probed functions from a stack just above the
 * frames it interrupted: their returns abort. Stacks switched in user
 * space are not supported with exit handlers in any case (the return
 * trampoline's abort, below). A signal handler that runs here meanwhile
 * leaves the depth as it found it, so the plain store is safe. */
#define EDGEPROBE__FUNC_SAME_STACK ((uintptr_t)256 << 10)
/* The kernel's stack_t (x86-64 and aarch64 alike). */
typedef struct edgeprobe__stack {
    void *sp;
    int flags; /* SS_ONSTACK 1, SS_DISABLE 2 */
    size_t size;
} edgeprobe__stack;
/* The alternate signal stack this code runs on, as [*lo, *hi); [0, 0) if
 * it runs on no such stack. */
EDGEPROBE__FN void edgeprobe__signal_stack_here(uintptr_t *lo, uintptr_t *hi);
EDGEPROBE__FN void edgeprobe__signal_stack_here(uintptr_t *lo, uintptr_t *hi) {
    edgeprobe__stack ss;
    *lo = *hi = 0;
    if (edgeprobe__syscall3(131 /* sigaltstack */, 0, (long)&ss, 0) != 0 || !(ss.flags & 1 /* SS_ONSTACK */)) return;
    *lo = (uintptr_t)ss.sp, *hi = *lo + ss.size;
}
EDGEPROBE__INLINE void edgeprobe__func_drop_dead(edgeprobe__func_thread *t, const uintptr_t *slot, uintptr_t ret_tramp) {
    unsigned d = t->depth;
    uintptr_t at = (uintptr_t)slot, alt_lo = 0, alt_hi = 0;
    int asked = 0;
    if (t->alt_lo != t->alt_hi && (at < t->alt_lo || at >= t->alt_hi)) { /* off the alternate stack: its frames are dead */
        for (; d > 0 && t->frames[d - 1].slot >= t->alt_lo && t->frames[d - 1].slot < t->alt_hi; d--) {}
        t->alt_lo = t->alt_hi = 0;
    }
    for (; d > 0; d--) {
        uintptr_t f = t->frames[d - 1].slot;
        if (f > at || at - f >= EDGEPROBE__FUNC_SAME_STACK || (f == at && *slot == ret_tramp)) break;
        if (!asked++) { /* asked once, before the first goes */
            edgeprobe__signal_stack_here(&alt_lo, &alt_hi);
            if (alt_lo != alt_hi) t->alt_lo = alt_lo, t->alt_hi = alt_hi;
        }
        if (alt_lo != alt_hi && (f < alt_lo || f >= alt_hi)) break; /* the interrupted code's: live */
    }
    if (d != t->depth) t->depth = d;
}

/* Called by the entry trampoline. */
/* called from the trampolines' assembly: kept under LTO */
EDGEPROBE__FN __attribute__((used)) void edgeprobe__func_entry_c(edgeprobe__func_point *fp, uint64_t *regs, uintptr_t *slot);
EDGEPROBE__FN void edgeprobe__func_entry_c(edgeprobe__func_point *fp, uint64_t *regs, uintptr_t *slot) {
    edgeprobe__func_thread *t = edgeprobe__func_thread_tls;
    edgeprobe__root *r = edgeprobe__this_object.root;
    edgeprobe__reader *rd;
    edgeprobe__func_bind *b;
    edgeprobe_func_call call;
    if (!t && !(t = edgeprobe__func_thread_new())) return;
    if (!(rd = edgeprobe__func_enter(r))) {
        __atomic_add_fetch(&fp->nested, 1, __ATOMIC_RELAXED); /* counted, not handled */
        return;
    }
    b = (edgeprobe__func_bind *)__atomic_load_n(&fp->pt.binding, __ATOMIC_ACQUIRE);
    if (b) {
        edgeprobe__count_point_hit(&fp->pt); /* `edgeprobe top` */
        call.probe = &b->info;
        call.fn = fp->pt.site;
        call.return_address = *slot;
        call.slot = (uintptr_t)slot;
        call.args = regs + 1;
        call.ret[0] = call.ret[1] = call.ret[2] = 0;
        call.data = 0;
        call.vec = (const unsigned char *)(regs + EDGEPROBE__FRAME_VEC);
        call.vec_bytes = r->fstate->vec_bytes;
        edgeprobe__func_drop_dead(t, slot, r->fstate->ret_tramp); /* before the handler: it may read the depth */
        if ((!b->entry || b->entry(&call, b->b.user)) && b->exit) {
            unsigned d = t->depth;
            if (d < EDGEPROBE_FUNC_DEPTH) {
                edgeprobe__func_frame *f = &t->frames[d];
                t->depth = d + 1; /* claim first: a signal handler pushes above */
                __asm__ volatile("" ::: "memory");
                f->ret = *slot;
                f->slot = (uintptr_t)slot;
                f->fp = fp;
                f->gen = b->gen;
                f->data = call.data;
                __asm__ volatile("" ::: "memory");
                *slot = r->fstate->ret_tramp;
            } else {
                t->lost++;
            }
        }
    }
    edgeprobe__reader_out(rd);
}

/* Called by the return trampoline with the slot the function returned
 * through. The newest frame with that slot is this call; frames above it
 * were left by longjmp (or an exception that restored them) and are
 * dropped. Returns the real return address. */
/* called from the trampolines' assembly: kept under LTO */
EDGEPROBE__FN __attribute__((used)) uintptr_t edgeprobe__func_exit_c(uint64_t *regs, uintptr_t slot);
EDGEPROBE__FN uintptr_t edgeprobe__func_exit_c(uint64_t *regs, uintptr_t slot) {
    edgeprobe__func_thread *t = edgeprobe__func_thread_tls;
    edgeprobe__reader *rd;
    edgeprobe__func_frame f;
    unsigned d = t ? t->depth : 0;
    while (d > 0 && t->frames[d - 1].slot != slot) d--;
    if (d == 0) {
        static const char msg[] = "edgeprobe: return trampoline reached with no frame for it "
                                  "(was the stack switched in user space?)\n";
        edgeprobe__syscall3(1, 2, (long)msg, sizeof msg - 1);
        edgeprobe__libc_abort();
    }
    f = t->frames[d - 1];
    t->depth = d - 1;
    *(uintptr_t *)slot = f.ret; /* backtraces from the exit handler see the caller */
    if ((rd = edgeprobe__func_enter(edgeprobe__this_object.root)) != 0) {
        edgeprobe__func_bind *b = (edgeprobe__func_bind *)__atomic_load_n(&f.fp->pt.binding, __ATOMIC_ACQUIRE);
        if (b && b->gen == f.gen && b->exit) { /* not a later binding, even at its address */
            edgeprobe_func_call call;
            call.probe = &b->info;
            call.fn = f.fp->pt.site;
            call.return_address = f.ret;
            call.slot = f.slot;
            call.args = 0;
            call.ret[0] = regs[0];
            call.ret[1] = regs[1];
            call.ret[2] = regs[EDGEPROBE__FRAME_RET_VEC]; /* %xmm0's low half */
            call.data = f.data;
            call.vec = 0;
            call.vec_bytes = 0;
            b->exit(&call, b->b.user);
        }
        edgeprobe__reader_out(rd);
    }
    return f.ret;
}

/* The unwinder met a frame whose return address is the return trampoline
 * (a C++ exception or pthread_exit leaving a probed function). Put the real
 * return address back into that slot (CFA - 8) before the unwinder reads it;
 * the exit handler of that call does not run. */
typedef uintptr_t (*edgeprobe__getcfa_fn)(void *context);
/* libgcc's, under a name of our own: a file that includes <unwind.h> as
 * well declares it with its own types */
extern uintptr_t edgeprobe__unwind_getcfa(void *) __asm__("_Unwind_GetCFA") __attribute__((weak));
/* called from the trampolines' assembly: kept under LTO */
EDGEPROBE__FN __attribute__((used)) int edgeprobe__func_ret_personality(int version, int actions, uint64_t cls, void *exc, void *context);
EDGEPROBE__FN int edgeprobe__func_ret_personality(int version, int actions, uint64_t cls, void *exc, void *context) {
    enum { CONTINUE_UNWIND = 8, FATAL_PHASE1 = 3, FATAL_PHASE2 = 2 };
    edgeprobe__getcfa_fn getcfa = edgeprobe__unwind_getcfa;
    edgeprobe__func_thread *t = edgeprobe__func_thread_tls;
    edgeprobe__root *r = edgeprobe__this_object.root;
    uintptr_t slot;
    unsigned d;
    (void)version, (void)cls, (void)exc;
    if (!getcfa) { /* libgcc_s loaded privately (glibc's pthread_exit) */
        void *h = edgeprobe__libc_dlopen("libgcc_s.so.1", 1 | 4 /* LAZY | NOLOAD */);
        if (!h) h = edgeprobe__libc_dlopen("libunwind.so.1", 1 | 4);
        getcfa = h ? (edgeprobe__getcfa_fn)edgeprobe__libc_dlsym(h, "_Unwind_GetCFA") : 0;
    }
    if (!getcfa || !t || !r) return (actions & 1) ? FATAL_PHASE1 : FATAL_PHASE2;
    slot = getcfa(context) - 8;
    if (*(uintptr_t *)slot != r->fstate->ret_tramp) return CONTINUE_UNWIND; /* restored */
    for (d = t->depth; d > 0; d--) {
        edgeprobe__func_frame *f = &t->frames[d - 1];
        if (f->slot != slot) continue;
        *(uintptr_t *)slot = f->ret;
        f->slot = 0; /* this call never returns through the trampoline */
        return CONTINUE_UNWIND;
    }
    return (actions & 1) ? FATAL_PHASE1 : FATAL_PHASE2;
}
#if EDGEPROBE_FUNC_UNWIND_TABLE
/* The unwinder's __register_frame where the process has it at its start
 * (libgcc_s: any C++ program, and C programs that unwind), bound by the
 * dynamic linker: no lookup then, under the registry lock, that would take
 * the loader's lock. Where LLVM's libunwind has the name instead, it
 * expects one FDE, finds a CIE, and registers nothing. */
extern void edgeprobe__unwind_register_frame(void *) __asm__("__register_frame") __attribute__((weak));
#define EDGEPROBE__REGISTER_FRAME edgeprobe__unwind_register_frame
#else
#define EDGEPROBE__REGISTER_FRAME 0
#endif

/* ---- 27.3 finding the entries: ELF section headers and symbols >>felf ---- */
typedef struct {
    unsigned char ident[16];
    uint16_t type, machine;
    uint32_t version;
    uint64_t entry, phoff, shoff;
    uint32_t flags;
    uint16_t ehsize, phentsize, phnum, shentsize, shnum, shstrndx;
} edgeprobe__ehdr;
typedef struct {
    uint32_t name, type;
    uint64_t flags, addr, offset, size;
    uint32_t link, info;
    uint64_t addralign, entsize;
} edgeprobe__shdr;
typedef struct {
    uint32_t name;
    unsigned char info, other;
    uint16_t shndx;
    uint64_t value, size;
} edgeprobe__sym;

/* Sort n records of `size` bytes by the uint64_t at byte offset `key` of
 * each, ascending and stable: a radix sort, a byte of the key a pass from
 * the lowest, passing over the bytes every key shares (the addresses of
 * one object's functions differ in three or four). The scan and the
 * profiler's report sort thousands of symbols and entries; qsort's merge
 * sort called its comparison about a dozen times a record, which cost a
 * tenth of a microsecond a function at start-up. spare: n * size bytes
 * the sort may use, or NULL to allocate them. 0, or ENOMEM (spare NULL and
 * no memory) with the records unchanged. */
EDGEPROBE__INLINE uint64_t edgeprobe__key_at(const unsigned char *records, size_t i, size_t size, size_t key) {
    uint64_t k;
    __builtin_memcpy(&k, records + i * size + key, 8);
    return k;
}
EDGEPROBE__FN int edgeprobe__sort_by_key(void *base, size_t n, size_t size, size_t key, void *spare);
EDGEPROBE__FN int edgeprobe__sort_by_key(void *base, size_t n, size_t size, size_t key, void *spare) {
    unsigned char *from = (unsigned char *)base, *to, *allocated = 0;
    uint64_t first, differ = 0;
    size_t i, at[256];
    int shift, d;
    if (n < 2) return 0;
    first = edgeprobe__key_at(from, 0, size, key);
    for (i = 1; i < n; i++) differ |= edgeprobe__key_at(from, i, size, key) ^ first;
    if (!differ) return 0;
    if (!spare && !(spare = allocated = (unsigned char *)EDGEPROBE_OS_ALLOC(n * size))) return EDGEPROBE_ENOMEM;
    to = (unsigned char *)spare;
    for (shift = 0; shift < 64; shift += 8) {
        size_t sum = 0;
        unsigned char *was = from;
        if (!((differ >> shift) & 0xff)) continue;
        __builtin_memset(at, 0, sizeof at);
        for (i = 0; i < n; i++) at[(edgeprobe__key_at(from, i, size, key) >> shift) & 0xff]++;
        for (d = 0; d < 256; d++) { /* counts to each digit's first place */
            size_t c = at[d];
            at[d] = sum;
            sum += c;
        }
        for (i = 0; i < n; i++)
            __builtin_memcpy(to + at[(edgeprobe__key_at(from, i, size, key) >> shift) & 0xff]++ * size, from + i * size, size);
        from = to;
        to = was;
    }
    if (from != (unsigned char *)base) __builtin_memcpy(base, from, n * size);
    if (allocated) EDGEPROBE_OS_FREE(allocated);
    return 0;
}
/* A whole region of a file, in a buffer with `room` bytes more after it
 * (and one for a terminating NUL), or NULL. */
EDGEPROBE__FN void *edgeprobe__read_at(int fd, uint64_t off, uint64_t len, uint64_t room);
EDGEPROBE__FN void *edgeprobe__read_at(int fd, uint64_t off, uint64_t len, uint64_t room) {
    char *buf;
    uint64_t got = 0;
    if (len > ((uint64_t)1 << 32) || room > ((uint64_t)1 << 32) || !(buf = (char *)EDGEPROBE_OS_ALLOC(len + room + 1)))
        return 0;
    while (got < len) {
        long n = edgeprobe__libc_pread(fd, buf + got, len - got, (long)(off + got));
        if (n <= 0) {
            EDGEPROBE_OS_FREE(buf);
            return 0;
        }
        got += (uint64_t)n;
    }
    return buf;
}

/* What a scan needs from one file: the entry table's address and size,
 * and the function symbols. */
typedef struct {
    uint64_t entries_addr, entries_size;
    edgeprobe__sym *syms;      /* FUNC symbols, sorted by value            */
    size_t nsyms;
    char *strtab;
    uint64_t strtab_size;
    int stripped;              /* names from .dynsym only                   */
} edgeprobe__elf;

/* Keep the defined function symbols of one symbol table, sorted. */
EDGEPROBE__FN int edgeprobe__elf_symbols(int fd, const edgeprobe__shdr *sh, unsigned nsh, unsigned idx,
                                         edgeprobe__elf *e);
EDGEPROBE__FN int edgeprobe__elf_symbols(int fd, const edgeprobe__shdr *sh, unsigned nsh, unsigned idx,
                                         edgeprobe__elf *e) {
    edgeprobe__sym *all;
    size_t n, i, kept = 0;
    if (sh[idx].link >= nsh || sh[idx].entsize != sizeof(edgeprobe__sym)) return -1;
    n = sh[idx].size / sizeof(edgeprobe__sym);
    /* read with room for the sort's spare: it cannot then fail */
    if (!(all = (edgeprobe__sym *)edgeprobe__read_at(fd, sh[idx].offset, n * sizeof *all, n * sizeof *all))) return -1;
    if (!(e->strtab = (char *)edgeprobe__read_at(fd, sh[sh[idx].link].offset, sh[sh[idx].link].size, 0))) {
        EDGEPROBE_OS_FREE(all);
        return -1;
    }
    e->strtab_size = sh[sh[idx].link].size;
    e->strtab[e->strtab_size] = 0;
    for (i = 0; i < n; i++) {
        unsigned type = all[i].info & 15;
        if ((type == 2 /* FUNC */ || type == 10 /* IFUNC */) && all[i].shndx && all[i].value &&
            all[i].name < e->strtab_size) {
            edgeprobe__strip_lto_priv(e->strtab + all[i].name);
            all[kept++] = all[i];
        }
    }
    edgeprobe__sort_by_key(all, kept, sizeof *all, __builtin_offsetof(edgeprobe__sym, value), all + n);
    e->syms = all;
    e->nsyms = kept;
    return 0;
}
/* Read what a scan needs from an object's file; 0, or -1 when the file has
 * no entry table (or cannot be read). */
EDGEPROBE__FN int edgeprobe__elf_read(const char *path, edgeprobe__elf *e);
EDGEPROBE__FN int edgeprobe__elf_read(const char *path, edgeprobe__elf *e) {
    edgeprobe__ehdr eh;
    edgeprobe__shdr *sh = 0;
    char *names = 0;
    unsigned nsh, i, symtab = 0, dynsym = 0;
    int fd = edgeprobe__libc_open(path, 0 /* O_RDONLY */), rc = -1;
    __builtin_memset(e, 0, sizeof *e);
    if (fd < 0) return -1;
    if (edgeprobe__libc_pread(fd, &eh, sizeof eh, 0) != (long)sizeof eh || __builtin_memcmp(eh.ident, "\177ELF\2\1", 6) ||
        eh.machine != 62 || eh.shentsize != sizeof(edgeprobe__shdr) || !eh.shoff)
        goto out;
    nsh = eh.shnum;
    if (!(sh = (edgeprobe__shdr *)edgeprobe__read_at(fd, eh.shoff, (nsh ? nsh : 1) * sizeof *sh, 0))) goto out;
    if (!nsh) { /* more than 0xff00 sections: the count is in section 0 */
        nsh = (unsigned)sh[0].size;
        EDGEPROBE_OS_FREE(sh);
        if (!(sh = (edgeprobe__shdr *)edgeprobe__read_at(fd, eh.shoff, nsh * sizeof *sh, 0))) goto out;
    }
    i = eh.shstrndx == 0xffff ? sh[0].link : eh.shstrndx;
    if (i >= nsh || !(names = (char *)edgeprobe__read_at(fd, sh[i].offset, sh[i].size, 0))) goto out;
    names[sh[i].size] = 0;
    for (i = 1; i < nsh; i++) {
        const char *nm = sh[i].name < sh[eh.shstrndx == 0xffff ? sh[0].link : eh.shstrndx].size ? names + sh[i].name : "";
        if (sh[i].type == 2) symtab = i;
        if (sh[i].type == 11) dynsym = i;
        if (edgeprobe__streq(nm, "__patchable_function_entries") && (sh[i].flags & 2 /* ALLOC */) && sh[i].size) {
            if (e->entries_size) { /* several tables: one span covering them */
                uint64_t lo = e->entries_addr < sh[i].addr ? e->entries_addr : sh[i].addr;
                uint64_t hi = e->entries_addr + e->entries_size > sh[i].addr + sh[i].size
                                  ? e->entries_addr + e->entries_size : sh[i].addr + sh[i].size;
                e->entries_addr = lo;
                e->entries_size = hi - lo;
            } else {
                e->entries_addr = sh[i].addr;
                e->entries_size = sh[i].size;
            }
        }
    }
    if (!e->entries_size) goto out;
    e->stripped = !symtab;
    if (symtab ? edgeprobe__elf_symbols(fd, sh, nsh, symtab, e) : dynsym ? edgeprobe__elf_symbols(fd, sh, nsh, dynsym, e) : 0)
        e->syms = 0, e->nsyms = 0;
    rc = 0;
out:
    if (names) EDGEPROBE_OS_FREE(names);
    if (sh) EDGEPROBE_OS_FREE(sh);
    edgeprobe__libc_close(fd);
    return rc;
}
/* The symbol naming file address a (the function, or 4 bytes before it
 * when the NOPs follow an endbr64), or NULL. Addresses are looked up in
 * ascending order: *next, 0 for the first, keeps the first symbol past the
 * last one, so the scan walks the table once. */
EDGEPROBE__FN const edgeprobe__sym *edgeprobe__elf_symbol_at(const edgeprobe__elf *e, uint64_t a, size_t *next);
EDGEPROBE__FN const edgeprobe__sym *edgeprobe__elf_symbol_at(const edgeprobe__elf *e, uint64_t a, size_t *next) {
    size_t lo = *next;
    while (lo < e->nsyms && e->syms[lo].value <= a) lo++; /* first symbol with value > a */
    *next = lo;
    while (lo > 0) {
        const edgeprobe__sym *s = &e->syms[lo - 1];
        if (s->value == a || s->value + 4 == a || (a >= s->value && a < s->value + s->size)) return s;
        if (s->value + 4 < a) return 0;
        lo--;
    }
    return 0;
}

/* Is this process single-threaded? (Field 20 of /proc/self/stat.) A
 * thread created meanwhile could only come from this thread. */
EDGEPROBE__FN int edgeprobe__single_threaded(void);
EDGEPROBE__FN int edgeprobe__single_threaded(void) {
    unsigned long threads;
    return edgeprobe__stat_field(0, 20, &threads) == 0 && threads == 1;
}

/* ---- 27.4 stubs and mirror pages                          >>fstub ----
 * An object's stubs lie in one mapping within 2 GiB of its text (and of
 * its mirror), written once when the object is found:
 *
 *     0    slot: the entry trampoline's address (8 bytes)
 *     16   head: the skip path (32 bytes)
 *     48   unwind table of the whole mapping (64 bytes; written only
 *          to be registered, under EDGEPROBE_FUNC_UNWIND_TABLE)
 *     128  stubs, 16 bytes each:
 *            49 bb <fpoint, 8 bytes>   movabs $fpoint, %r11
 *            e9 <rel32>                jmp head
 *            cc
 *
 * Mirror stub (gcc form), at fn - 0x6f6f6f6b, in a page mapped on demand:
 *     e9 <rel32>                  jmp stub
 *
 * The head counts a call without handlers while the point's skip_left is
 * positive (edgeprobe_func_skip): it takes one from it (locked: threads
 * calling the function at once take one each), adds one to the thread's
 * edgeprobe__func_skipped_tls at its initial-exec offset from %fs (an
 * immediate: the same in every thread) and returns into the function. The
 * call that takes skip_left to 0, and every call while it is not
 * positive, goes on to the trampoline, which runs the handlers. No
 * register but the flags and %r11 changes, nor the stack: where the
 * trampoline did this, behind a jump through the slot, lua paid 7.7 ticks
 * a counted call; here 4.2 (bench/real/skip_cost.sh, bench/RESULTS.md).
 *
 *     +0   49 83 7b 50 00          cmpq $0, left(%r11)
 *     +5   7e 11                   jle +24
 *     +7   f0 49 ff 4b 50          lock decq left(%r11)
 *     +12  7e 0a                   jle +24                the last: handlers
 *     +14  64 48 ff 04 25 <off32>  incq %fs:off           (off 0: a 9-byte nop)
 *     +23  c3                      ret                    back into the function
 *     +24  ff 25 <rel32>           jmp *slot(%rip)        the trampoline
 *
 * Everywhere in the mapping the return address is at %rsp, as at the
 * function's first byte; the unwind table says so (CFA = %rsp + 8, return
 * address at CFA - 8). It is given to libgcc's unwinder only under
 * EDGEPROBE_FUNC_UNWIND_TABLE (fs->register_frame), and then a signal's
 * backtrace from a stub or the head goes on into the function; by default
 * it stops there, cleanly (no table claims the address). Registering is
 * not the default because libgcc before gcc 13, once any table is
 * registered, takes a lock in every unwind's lookups (and allocates in the
 * first after a registration): a signal handler that unwinds on a thread
 * already inside an unwind then waits for ever (a sampler calling
 * backtrace() in SIGPROF while the program throws or calls backtrace()
 * itself). The trampolines' own code, in their object's .eh_frame, needs
 * no registering. The mirror's one `jmp` is covered by no table. */
#define EDGEPROBE__STUB_HEAD_AT 16u
#define EDGEPROBE__STUB_UNWIND_AT 48u
#define EDGEPROBE__STUBS_AT 128u
/* Whether a mirror can serve code at addr: there is room for it below
 * (non-PIE executables sit below 1.8 GiB, where there is none). */
EDGEPROBE__INLINE int edgeprobe__has_mirror(uintptr_t addr) { return addr > EDGEPROBE__MIRROR_OFFSET + (1u << 24); }
EDGEPROBE__INLINE int edgeprobe__reaches(uintptr_t from, uintptr_t to) {
    intptr_t d = (intptr_t)(to - from);
    return d > -(intptr_t)0x7fff0000 && d < (intptr_t)0x7fff0000;
}
/* The head (above) at p + EDGEPROBE__STUB_HEAD_AT, for the slot at p. */
EDGEPROBE__FN void edgeprobe__func_head_make(unsigned char *p, int32_t tls_offset);
EDGEPROBE__FN void edgeprobe__func_head_make(unsigned char *p, int32_t tls_offset) {
    static const unsigned char head[30] = {
        0x49, 0x83, 0x7b, EDGEPROBE__SKIP_LEFT_AT, 0x00, 0x7e, 0x11,      /* cmpq, jle */
        0xf0, 0x49, 0xff, 0x4b, EDGEPROBE__SKIP_LEFT_AT, 0x7e, 0x0a,      /* lock decq, jle */
        0x64, 0x48, 0xff, 0x04, 0x25, 0, 0, 0, 0, 0xc3,                   /* incq %fs:off, ret */
        0xff, 0x25, 0, 0, 0, 0};                                          /* jmp *slot(%rip) */
    static const unsigned char nop9[9] = {0x66, 0x0f, 0x1f, 0x84, 0, 0, 0, 0, 0};
    unsigned char *h = p + EDGEPROBE__STUB_HEAD_AT;
    int32_t rel = (int32_t)((intptr_t)p - (intptr_t)(h + 30));
    __builtin_memcpy(h, head, sizeof head);
    if (tls_offset) __builtin_memcpy(h + 19, &tls_offset, 4);
    else __builtin_memcpy(h + 14, nop9, sizeof nop9); /* counts, but no thread's */
    __builtin_memcpy(h + 26, &rel, 4);
}
/* The unwind table (.eh_frame format) of the mapping [p, p + len), at
 * p + EDGEPROBE__STUB_UNWIND_AT: one CIE whose rule holds everywhere, one
 * FDE over the whole mapping, and the 0 that ends the table.
 *
 *     0   CIE: length 20, id 0, version 1, "zR", code align 1, data align -8,
 *              return address r16, augmentation: pointers absolute;
 *              def_cfa r7 (%rsp) + 8, r16 at CFA - 8
 *     24  FDE: length 28, CIE at 28 bytes back, start p, size len
 *     56  0                                                              */
EDGEPROBE__FN void edgeprobe__func_unwind_make(unsigned char *p, size_t len);
EDGEPROBE__FN void edgeprobe__func_unwind_make(unsigned char *p, size_t len) {
    static const unsigned char cie[24] = {20, 0, 0, 0, 0, 0, 0, 0, 1, 'z', 'R', 0, 1, 0x78, 16, 1, 0x00,
                                          0x0c, 7, 8, 0x90, 1, 0, 0};
    static const unsigned char fde_head[8] = {28, 0, 0, 0, 28, 0, 0, 0};
    unsigned char *u = p + EDGEPROBE__STUB_UNWIND_AT;
    uint64_t start = (uint64_t)(uintptr_t)p, size = (uint64_t)len;
    __builtin_memcpy(u, cie, sizeof cie);
    __builtin_memcpy(u + 24, fde_head, sizeof fde_head);
    __builtin_memcpy(u + 32, &start, 8);
    __builtin_memcpy(u + 40, &size, 8);
    __builtin_memset(u + 48, 0, 12); /* no augmentation, no instructions; the end */
}
/* Map the stubs of an object where both its text and its mirror reach. */
EDGEPROBE__FN int edgeprobe__func_stubs_make(edgeprobe__func_object *o, const struct edgeprobe__func_state *fs);
EDGEPROBE__FN int edgeprobe__func_stubs_make(edgeprobe__func_object *o, const struct edgeprobe__func_state *fs) {
    size_t len = (EDGEPROBE__STUBS_AT + (size_t)o->n * EDGEPROBE__STUB_BYTES + EDGEPROBE__PAGE - 1) & ~(size_t)(EDGEPROBE__PAGE - 1);
    int mirror = edgeprobe__has_mirror(o->text_lo);
    uintptr_t hint = mirror ? o->text_lo - EDGEPROBE__MIRROR_OFFSET / 2 : o->text_lo;
    unsigned char *p = (unsigned char *)EDGEPROBE_OS_MAP_NEAR(hint, len);
    int i;
    if (!p) return EDGEPROBE_ERANGE;
    if (!edgeprobe__reaches(o->text_hi, (uintptr_t)p) || !edgeprobe__reaches(o->text_lo, (uintptr_t)p + len) ||
        (mirror && (!edgeprobe__reaches(o->text_lo - EDGEPROBE__MIRROR_OFFSET, (uintptr_t)p + len) ||
                    !edgeprobe__reaches(o->text_hi - EDGEPROBE__MIRROR_OFFSET, (uintptr_t)p)))) {
        edgeprobe__libc_munmap(p, len);
        return EDGEPROBE_ERANGE;
    }
    __builtin_memcpy(p, &fs->entry_tramp, 8);
    edgeprobe__func_head_make(p, fs->tls_offset);
    if (fs->register_frame) edgeprobe__func_unwind_make(p, len);
    for (i = 0; i < o->n; i++) {
        unsigned char *s = p + EDGEPROBE__STUBS_AT + (size_t)i * EDGEPROBE__STUB_BYTES;
        uintptr_t fp = (uintptr_t)&o->fn[i];
        int32_t rel = (int32_t)((intptr_t)(p + EDGEPROBE__STUB_HEAD_AT) - (intptr_t)(s + 15));
        s[0] = 0x49, s[1] = 0xbb;
        __builtin_memcpy(s + 2, &fp, 8);
        s[10] = EDGEPROBE__OP_JMP32;
        __builtin_memcpy(s + 11, &rel, 4);
        s[15] = 0xcc;
        o->fn[i].stub = s;
    }
    EDGEPROBE_OS_PROTECT(p, len, 0);
    if (fs->register_frame) fs->register_frame(p + EDGEPROBE__STUB_UNWIND_AT); /* kept: never unmapped */
    o->stubs = p;
    o->stubs_len = len;
    return 0;
}
/* The mirror stub of a gcc-form function: `jmp stub`, written into buf. */
EDGEPROBE__FN unsigned char *edgeprobe__func_mirror_stub(const edgeprobe__func_point *fp, unsigned char jmp[5]);
EDGEPROBE__FN unsigned char *edgeprobe__func_mirror_stub(const edgeprobe__func_point *fp, unsigned char jmp[5]) {
    unsigned char *m = (unsigned char *)fp->pt.site - EDGEPROBE__MIRROR_OFFSET;
    int32_t rel = (int32_t)((intptr_t)fp->stub - (intptr_t)(m + 5));
    jmp[0] = EDGEPROBE__OP_JMP32;
    __builtin_memcpy(jmp + 1, &rel, 4);
    return m;
}
/* The index of the object's first function at or above addr (n: none);
 * its functions are sorted by address (section 27.6). */
EDGEPROBE__FN int edgeprobe__func_first_at(const edgeprobe__func_object *o, uintptr_t addr);
EDGEPROBE__FN int edgeprobe__func_first_at(const edgeprobe__func_object *o, uintptr_t addr) {
    int lo = 0, hi = o->n;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if ((uintptr_t)o->fn[mid].pt.site < addr) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}
/* Mirror pages are ours (refs < 0 in the page table; never unmapped):
 *   EDGEPROBE__MIRROR_ZERO  mapped, still zero (no stub read or written);
 *   EDGEPROBE__MIRROR_FILLED  the stubs of the functions it holds written.
 * A mirror page is mapped writable under the default page policy, as text
 * pages stay once opened (section 17), and written with no mprotect;
 * strict W^X maps it read+execute and opens it around each write
 * (edgeprobe_set_wx_strict closes it later too). */
#define EDGEPROBE__MIRROR_FILLED (-1)
#define EDGEPROBE__MIRROR_ZERO (-2)
/* Map [addr, addr+len) for mirror stubs, exactly there and never over a
 * mapping; 0, or -1 with nothing mapped. */
EDGEPROBE__FN int edgeprobe__func_mirror_map(const edgeprobe__root *r, uintptr_t addr, size_t len);
EDGEPROBE__FN int edgeprobe__func_mirror_map(const edgeprobe__root *r, uintptr_t addr, size_t len) {
    void *got = edgeprobe__libc_mmap((void *)addr, len, r->wx_strict ? EDGEPROBE__PROT_RX : EDGEPROBE__PROT_RWX,
                                     EDGEPROBE__MAP_ANON_PRIVATE | EDGEPROBE__MAP_FIXED_NOREPLACE, -1, 0);
    if (got == (void *)addr) return 0;
    if (got != (void *)-1) edgeprobe__libc_munmap(got, len); /* old kernel: a hint only */
    return -1;
}
/* With EDGEPROBE_FUNC_BULK, map the mirror of an object's whole text with
 * one mmap, the first time one of its gcc-form functions is switched on:
 * switching all of them then costs one system call per object, not one per
 * mirror page. (Not by default: under the default page policy a mapping is
 * writable, so all of it counts against the kernel's commit limit.) Never
 * replaces a mapping: where anything is in the way (the mirror of an
 * unloaded object at the same address, another mapping), or the page table
 * cannot grow, the pages are left to be mapped one by one. */
EDGEPROBE__FN void edgeprobe__func_mirror_span_locked(edgeprobe__root *r, edgeprobe__func_object *o);
EDGEPROBE__FN void edgeprobe__func_mirror_span_locked(edgeprobe__root *r, edgeprobe__func_object *o) {
    EDGEPROBE__ASSERT_LOCKED(r);
    const uintptr_t mask = ~(uintptr_t)(EDGEPROBE__PAGE - 1);
    uintptr_t lo = (o->text_lo - EDGEPROBE__MIRROR_OFFSET) & mask, pg;
    uintptr_t hi = (o->text_hi - EDGEPROBE__MIRROR_OFFSET + EDGEPROBE__PAGE - 1) & mask; /* entries end by text_hi */
    if (!EDGEPROBE_FUNC_BULK || o->mirror_span_tried || o->text_hi <= o->text_lo) return;
    o->mirror_span_tried = 1;
    if (edgeprobe__func_mirror_map(r, lo, hi - lo) < 0) return;
    for (pg = lo; pg < hi; pg += EDGEPROBE__PAGE) {
        edgeprobe__page *e = edgeprobe__page_slot(r, pg);
        if (!e) { /* unrecorded pages must not stay mapped: the one-by-one path maps them */
            edgeprobe__libc_munmap((void *)pg, hi - pg);
            return;
        }
        e->refs = EDGEPROBE__MIRROR_ZERO;
        e->open = !r->wx_strict;
    }
}
/* Make sure the mirror stub of a gcc-form function exists: its page(s)
 * mapped (the object's span, or one by one) and `jmp stub` written there.
 * A page still zero also gets the stubs of the object's other gcc-form
 * functions that lie in it, written without reading it first: a read would
 * fault the shared zero page in, and the write then fault again. The bytes
 * of a mirror stub never change once written (a reloaded object's may:
 * those are compared first), and nothing jumps to one before its
 * function's site is on. Under strict W^X the pages are opened for the
 * write and closed again, all of them: each is then recorded closed, as a
 * page mapped open beside one mapped closed (the policy changed between)
 * would otherwise be recorded open and read+execute. Lock held. */
EDGEPROBE__FN int edgeprobe__func_mirror_ready_locked(edgeprobe__root *r, edgeprobe__func_point *fp);
EDGEPROBE__FN int edgeprobe__func_mirror_ready_locked(edgeprobe__root *r, edgeprobe__func_point *fp) {
    EDGEPROBE__ASSERT_LOCKED(r);
    unsigned char jmp[5], *m = edgeprobe__func_mirror_stub(fp, jmp);
    uintptr_t first = (uintptr_t)m & ~(uintptr_t)(EDGEPROBE__PAGE - 1), pg;
    uintptr_t end = (((uintptr_t)m + 4) & ~(uintptr_t)(EDGEPROBE__PAGE - 1)) + EDGEPROBE__PAGE, zero = 0;
    int i, writable = 1;
    edgeprobe__func_mirror_span_locked(r, fp->obj);
    for (pg = first; pg < end; pg += EDGEPROBE__PAGE) {
        edgeprobe__page *e = edgeprobe__page_slot(r, pg);
        if (!e) return EDGEPROBE_ENOMEM;
        if (e->refs > 0 || (e->refs == 0 && e->open)) return EDGEPROBE_ERANGE; /* text, not ours */
        if (e->refs == 0) { /* the span could not be mapped: this page alone */
            if (edgeprobe__func_mirror_map(r, pg, EDGEPROBE__PAGE) < 0) return EDGEPROBE_ERANGE;
            e->refs = EDGEPROBE__MIRROR_ZERO;
            e->open = !r->wx_strict;
        }
        if (e->refs == EDGEPROBE__MIRROR_ZERO && !zero) zero = pg; /* the first page still zero */
        writable &= e->open;
    }
    if (!zero && __builtin_memcmp(m, jmp, 5) == 0) return 0;
    if (!writable && EDGEPROBE_OS_PROTECT((void *)first, end - first, 1) < 0) return EDGEPROBE_EPROT;
    __builtin_memcpy(m, jmp, 5);
    /* the object's functions are sorted by address: those whose mirror
     * stubs lie in the zero pages start at the first site >= zero + OFFSET
     * (a filled page's stubs are not written again: they may be running) */
    for (i = zero ? edgeprobe__func_first_at(fp->obj, zero + EDGEPROBE__MIRROR_OFFSET) : fp->obj->n;
         i < fp->obj->n; i++) {
        edgeprobe__func_point *q = &fp->obj->fn[i];
        unsigned char qjmp[5], *qm = edgeprobe__func_mirror_stub(q, qjmp);
        if ((uintptr_t)qm + 5 > end) break;
        if (q->form == EDGEPROBE__FORM_NOPS) __builtin_memcpy(qm, qjmp, 5);
    }
    if (!writable) EDGEPROBE_OS_PROTECT((void *)first, end - first, 0);
    for (pg = first; pg < end; pg += EDGEPROBE__PAGE) {
        edgeprobe__page *e = edgeprobe__page_find(r, pg);
        e->refs = EDGEPROBE__MIRROR_FILLED;
        if (!writable) e->open = 0;
    }
    return 0;
}
/* Under the default page policy (pages stay writable once opened, section
 * 17) the first write to a function-probe object's text opens all of it
 * with one mprotect and records each page open: switching every function
 * of a program (the profiler's start-up) then costs one system call per
 * object, not one per text page. Only for an object whose text is one
 * segment (no other segment between, made executable by the call); strict
 * W^X, or a failed call, leaves it to section 17's page by page. Lock
 * held; the object is loaded. */
EDGEPROBE__FN void edgeprobe__func_text_open_locked(edgeprobe__root *r, const edgeprobe__func_point *fp);
EDGEPROBE__FN void edgeprobe__func_text_open_locked(edgeprobe__root *r, const edgeprobe__func_point *fp) {
    EDGEPROBE__ASSERT_LOCKED(r);
    const uintptr_t mask = ~(uintptr_t)(EDGEPROBE__PAGE - 1);
    const edgeprobe__func_object *o = fp->obj;
    uintptr_t lo = o->text_lo & mask, hi = (o->text_hi + EDGEPROBE__PAGE - 1) & mask, pg;
    edgeprobe__page *e = edgeprobe__page_find(r, (uintptr_t)fp->pt.site & mask);
    if (r->wx_strict || !o->one_text_segment || (e && e->open) || hi <= lo) return;
    if (EDGEPROBE_OS_PROTECT((void *)lo, hi - lo, 1) < 0) return;
    /* a program that switches every function writes nearly every text
     * page of an object with at least a function a page: copy them all in
     * one call, not a fault each (Linux 5.14; an older kernel refuses, and
     * the faults come as before). Not an object of a few functions (the
     * profiler's own, 28 pages for its calibration's two) */
    if (EDGEPROBE_FUNC_BULK && (uintptr_t)o->n * EDGEPROBE__PAGE >= hi - lo)
        edgeprobe__libc_madvise((void *)lo, hi - lo, EDGEPROBE__MADV_POPULATE_WRITE);
    for (pg = lo; pg < hi; pg += EDGEPROBE__PAGE)
        if ((e = edgeprobe__page_slot(r, pg)) != 0) e->open = 1;
}

/* ---- 27.5 switching one function                         >>fswitch ---- */
/* Lock held, and the object known to be loaded (see edgeprobe__func_loader). */
EDGEPROBE__FN int edgeprobe__func_site_set_locked(edgeprobe__root *r, edgeprobe__func_point *fp, int on);
EDGEPROBE__FN int edgeprobe__func_site_set_locked(edgeprobe__root *r, edgeprobe__func_point *fp, int on) {
    EDGEPROBE__ASSERT_LOCKED(r);
    static const unsigned char nop = 0x90, nops[4] = {0x90, 0x90, 0x90, 0x90};
    const unsigned char e8 = EDGEPROBE__OP_CALL;
    unsigned char *site = (unsigned char *)fp->pt.site, nop5[5], call[5];
    int32_t rel = (int32_t)((intptr_t)fp->stub - (intptr_t)(site + 5));
    int rc;
    if (((fp->pt.flags & EDGEPROBE__PF_ON) != 0) == (on != 0)) return 0;
    __builtin_memcpy(nop5, edgeprobe__nop5, 5);
    nop5[4] = fp->nop_last;
    call[0] = EDGEPROBE__OP_CALL;
    __builtin_memcpy(call + 1, &rel, 4);
    switch (fp->form) {
    case EDGEPROBE__FORM_NOPS: /* one byte; the other four are the rel32 */
        if (__builtin_memcmp(site + 1, nops, 4) != 0) {
            edgeprobe__log_bytes(r, "refusing to patch unexpected bytes", site, 0, 5);
            return EDGEPROBE_EBYTES;
        }
        if (on && (rc = edgeprobe__func_mirror_ready_locked(r, fp)) < 0) return rc;
        edgeprobe__func_text_open_locked(r, fp);
        rc = edgeprobe__write_code_locked(r, site, on ? &nop : &e8, on ? &e8 : &nop, 1);
        break;
    case EDGEPROBE__FORM_NOP5:
        if (edgeprobe__front_len(site, 5) == 5) {
            edgeprobe__func_text_open_locked(r, fp);
            rc = edgeprobe__write_code_locked(r, site, on ? nop5 : call, on ? call : nop5, 5);
            break;
        }
        /* a straddler: the word patch once, the call patch from then on;
         * patch_begin checks only that one 5-byte instruction is there.
         * (Only reached to switch on: a NOP5 straddler is never on.) */
        if (__builtin_memcmp(site, nop5, 5) != 0) {
            edgeprobe__log_bytes(r, "refusing to patch unexpected bytes", site, nop5, 5);
            return EDGEPROBE_EBYTES;
        }
        if ((rc = edgeprobe__patch_begin_locked(r, site, call, 5)) < 0) return rc;
        while (rc == 0) {
            edgeprobe__flight *f = edgeprobe__flight_find(r, (uintptr_t)site);
            if (!f) break;
            edgeprobe__protocol_wait(r, f->stamp);
            rc = edgeprobe__patch_step_locked(r, f);
        }
        if (rc < 0) return rc;
        fp->form = EDGEPROBE__FORM_CALLP;
        break;
    case EDGEPROBE__FORM_CALLP:
        rc = edgeprobe__call_set_locked(r, site, rel, on);
        break;
    default:
        return EDGEPROBE_EUNSAFE;
    }
    if (rc < 0) return rc;
    if (on) fp->pt.flags |= EDGEPROBE__PF_ON;
    else fp->pt.flags &= (unsigned short)~EDGEPROBE__PF_ON;
    return 1;
}

/* ---- 27.6 the set of objects                             >>fobjects ----
 * Objects are (re)listed when the loader's counters change, and scanned
 * while the loader's list lock is held. A site is written only while that
 * lock is held and the counters are those of the last listing, so a
 * concurrent dlclose cannot unmap it between the check and the write (the
 * lock order: section 26, "how the provider meets the dynamic loader"). */
typedef struct {
    uintptr_t base, text_lo, text_hi;
    const char *name;
    int text_segments;
} edgeprobe__func_object_seen;
typedef struct {
    edgeprobe__func_object_seen *v;
    int n, cap;
    unsigned long long adds, subs;
} edgeprobe__func_object_list;
EDGEPROBE__FN int edgeprobe__func_list_cb(edgeprobe__dl_phdr_info *info, size_t size, void *arg);
EDGEPROBE__FN int edgeprobe__func_list_cb(edgeprobe__dl_phdr_info *info, size_t size, void *arg) {
    edgeprobe__func_object_list *l = (edgeprobe__func_object_list *)arg;
    edgeprobe__func_object_seen s;
    int i;
    if (size < sizeof *info) return 1;
    l->adds = info->adds;
    l->subs = info->subs;
    s.base = info->addr;
    s.name = info->name ? info->name : "";
    s.text_lo = ~(uintptr_t)0;
    s.text_hi = 0;
    s.text_segments = 0;
    for (i = 0; i < info->phnum; i++) {
        uintptr_t lo = info->addr + info->phdr[i].vaddr;
        if (info->phdr[i].type != 1 /* PT_LOAD */ || !(info->phdr[i].flags & 1 /* PF_X */)) continue;
        if (lo < s.text_lo) s.text_lo = lo;
        if (lo + info->phdr[i].memsz > s.text_hi) s.text_hi = lo + info->phdr[i].memsz;
        s.text_segments++;
    }
    if (!s.text_hi) return 0;
    if (edgeprobe__grow((void **)&l->v, &l->cap, l->n + 1, sizeof s)) return 1;
    l->v[l->n++] = s;
    return 0;
}
/* Unregister an unloaded object's points: their ids say EUNLOADED. */
EDGEPROBE__FN void edgeprobe__func_object_gone(edgeprobe__root *r, edgeprobe__func_object *o);
EDGEPROBE__FN void edgeprobe__func_object_gone(edgeprobe__root *r, edgeprobe__func_object *o) {
    int i;
    o->loaded = 0;
    for (i = 0; i < o->n; i++) {
        edgeprobe__func_point *fp = &o->fn[i];
        if (fp->pt.id_plus_1) *edgeprobe__point_slot(r, fp->pt.id_plus_1 - 1) = 0;
        fp->form = EDGEPROBE__FORM_NONE;
    }
}

/* "0x<file address>": the name of a function no symbol names. */
EDGEPROBE__FN void edgeprobe__func_name_hex(edgeprobe__text *t, uint64_t a);
EDGEPROBE__FN void edgeprobe__func_name_hex(edgeprobe__text *t, uint64_t a) {
    int digits = 1;
    while (digits < 16 && (a >> (4 * digits))) digits++;
    edgeprobe__puts(t, "0x");
    edgeprobe__puthex(t, a, digits);
    t->len++; /* keep the terminating NUL: names are packed one after another */
}
/* Whether a scan rewrites gcc's NOPs at site as one NOP5: only while no
 * thread can be between them, and where no mirror can serve the site or
 * EDGEPROBE_FUNC_BULK asks for it (not under strict W^X: a page opened and
 * closed per entry would cost more than the mirror; not where the five
 * bytes straddle a cache line: such a NOP5 needs the straddler protocol,
 * the one-byte form does not). */
EDGEPROBE__INLINE int edgeprobe__func_converts(const edgeprobe__root *r, const void *site, int single_threaded) {
    if (!single_threaded) return 0;
    if (!edgeprobe__has_mirror((uintptr_t)site)) return 1;
    return EDGEPROBE_FUNC_BULK && !r->wx_strict && edgeprobe__front_len(site, 5) == 5;
}
/* Rewrite gcc's five one-byte NOPs at site as one NOP5, where no other
 * thread can be inside them (the caller knows). One 4-byte store of
 * 0f 1f 44 00 over the first four; the fifth NOP, 90, stays as the new
 * instruction's displacement byte. So a signal handler of this thread that
 * calls the function meets five NOPs or one NOP5, never a mix: a 5-byte
 * memcpy is two stores, and in one order it leaves 90 90 90 90 00, whose
 * last byte starts an `add` made of the function's first bytes. Lock held. */
EDGEPROBE__FN int edgeprobe__func_nops_to_nop5_locked(edgeprobe__root *r, unsigned char *site);
EDGEPROBE__FN int edgeprobe__func_nops_to_nop5_locked(edgeprobe__root *r, unsigned char *site) {
    EDGEPROBE__ASSERT_LOCKED(r);
    typedef uint32_t edgeprobe__u32_any __attribute__((aligned(1), may_alias));
    uint32_t first4;
    int rc = edgeprobe__code_open_locked(r, site, 5);
    if (rc < 0) return rc;
    __builtin_memcpy(&first4, edgeprobe__nop5, 4);
    *(volatile edgeprobe__u32_any *)site = first4; /* one store */
    edgeprobe__code_close(r, site, 5);
    return 0;
}
/* The form of a fresh entry; converts gcc's NOPs into one NOP5 where
 * edgeprobe__func_converts says so. */
EDGEPROBE__FN int edgeprobe__func_form(edgeprobe__root *r, edgeprobe__func_point *fp, int single_threaded);
EDGEPROBE__FN int edgeprobe__func_form(edgeprobe__root *r, edgeprobe__func_point *fp, int single_threaded) {
    static const unsigned char nops[5] = {0x90, 0x90, 0x90, 0x90, 0x90};
    unsigned char *site = (unsigned char *)fp->pt.site;
    if (__builtin_memcmp(site, edgeprobe__nop5, 4) == 0) {
        fp->nop_last = site[4];
        return EDGEPROBE__FORM_NOP5;
    }
    if (__builtin_memcmp(site, nops, 5) != 0) {
        edgeprobe__log_bytes(r, "function entry is not 5 bytes of NOP; not patchable", site, 0, 5);
        return EDGEPROBE__FORM_NONE;
    }
    if (edgeprobe__func_converts(r, site, single_threaded)) {
        if (EDGEPROBE_FUNC_BULK) edgeprobe__func_text_open_locked(r, fp); /* the first: one mprotect for all */
        if (edgeprobe__func_nops_to_nop5_locked(r, site) == 0) {
            fp->nop_last = site[4];
            return EDGEPROBE__FORM_NOP5;
        }
    }
    return edgeprobe__has_mirror((uintptr_t)site) ? EDGEPROBE__FORM_NOPS : EDGEPROBE__FORM_NONE;
}
/* Scan one newly loaded object: its entries, names, forms and stubs; then
 * register its points. Lock held. */
EDGEPROBE__FN edgeprobe__func_object *edgeprobe__func_object_scan_locked(edgeprobe__root *r, const edgeprobe__func_object_seen *s,
                                                          int single_threaded);
EDGEPROBE__FN edgeprobe__func_object *edgeprobe__func_object_scan_locked(edgeprobe__root *r, const edgeprobe__func_object_seen *s,
                                                          int single_threaded) {
    EDGEPROBE__ASSERT_LOCKED(r);
    char exe[4096];
    const char *path = s->name;
    edgeprobe__elf e;
    edgeprobe__func_object *o;
    uintptr_t *addr = 0, *name_of = 0; /* entries; their names' strtab offset + 1 */
    size_t i, n = 0, count, names = 0, plen, next_sym = 0;
    if (!*path) { /* the main program */
        long k = edgeprobe__libc_readlink("/proc/self/exe", exe, sizeof exe - 1);
        exe[k > 0 ? k : 0] = 0;
        path = k > 0 ? exe : "/proc/self/exe";
    }
    plen = edgeprobe__strnlen(path, 4095) + 1;
    if (edgeprobe__elf_read(path, &e) == 0) {
        const uintptr_t *table = (const uintptr_t *)(s->base + e.entries_addr);
        count = e.entries_size / 8;
        if ((addr = (uintptr_t *)EDGEPROBE_OS_ALLOC(2 * count * sizeof *addr + 1)) != 0) {
            name_of = addr + count;
            for (i = 0; i < count; i++) /* drop entries of discarded functions */
                if (table[i] >= s->text_lo && table[i] + 5 <= s->text_hi) addr[n++] = table[i];
            edgeprobe__sort_by_key(addr, n, sizeof *addr, 0, name_of); /* name_of: not yet written */
            for (i = count = 0; i < n; i++)
                if (!i || addr[i] != addr[i - 1]) addr[count++] = addr[i];
            n = count;
        }
        for (i = 0; i < n; i++) { /* one symbol lookup per entry, in address order */
            const edgeprobe__sym *sym = edgeprobe__elf_symbol_at(&e, addr[i] - s->base, &next_sym);
            name_of[i] = sym ? (uintptr_t)sym->name + 1 : 0;
            names += sym ? edgeprobe__strnlen(e.strtab + sym->name, 4096) + 1 : 20;
        }
    }
    o = (edgeprobe__func_object *)EDGEPROBE_OS_ALLOC(sizeof *o + n * sizeof(edgeprobe__func_point) + names + plen);
    if (o) {
        edgeprobe__text t;
        char *pathcopy;
        o->fn = (edgeprobe__func_point *)(o + 1);
        t.buf = (char *)(o->fn + n);
        t.cap = names + 1;
        t.len = 0;
        pathcopy = t.buf + names;
        __builtin_memcpy(pathcopy, path, plen);
        o->path = pathcopy;
        o->base = s->base;
        o->text_lo = s->text_lo;
        o->text_hi = s->text_hi;
        o->one_text_segment = s->text_segments == 1;
        o->n = (int)n;
        o->loaded = 1;
        for (i = 0; i < n; i++) {
            edgeprobe__func_point *fp = &o->fn[i];
            fp->pt.name = t.buf + t.len;
            if (name_of[i]) {
                edgeprobe__puts(&t, e.strtab + name_of[i] - 1);
                t.len++;
            } else {
                edgeprobe__func_name_hex(&t, addr[i] - s->base);
            }
            fp->pt.function = fp->pt.name;
            fp->pt.file = o->path;
            fp->pt.kind = EDGEPROBE_KIND_FUNCTION;
            fp->pt.site = (void *)addr[i];
            fp->pt.nsites = 1;
            fp->obj = o;
            fp->form = (unsigned char)edgeprobe__func_form(r, fp, single_threaded);
        }
        if (n && edgeprobe__func_stubs_make(o, r->fstate) < 0) {
            edgeprobe__log(r, "no room for function stubs within 2 GiB of the code; its functions are not patchable");
            for (i = 0; i < n; i++) o->fn[i].form = EDGEPROBE__FORM_NONE;
        }
        for (i = 0; i < n; i++) {
            if (o->fn[i].form == EDGEPROBE__FORM_NONE) o->fn[i].pt.flags |= EDGEPROBE__PF_UNSAFE;
            edgeprobe__point_add(r, &o->fn[i].pt);
        }
        if (n && e.stripped) {
            char buf[4200];
            edgeprobe__text m = {buf, sizeof buf, 0};
            edgeprobe__puts(&m, o->path);
            edgeprobe__puts(&m, " has no .symtab (stripped): functions not in .dynsym are named by address");
            edgeprobe__log(r, buf);
        }
        o->next = r->fstate->objects;
        r->fstate->objects = o;
    }
    if (addr) EDGEPROBE_OS_FREE(addr);
    if (e.syms) EDGEPROBE_OS_FREE(e.syms);
    if (e.strtab) EDGEPROBE_OS_FREE(e.strtab);
    return o;
}
/* Bring the object list up to date with the loader: drop unloaded objects,
 * and, if scan_new, scan new ones - from inside dl_iterate_phdr's callback,
 * where the loader cannot unmap the object (or free its name) while its
 * file, entry table and entries are read. Lock held. */
typedef struct {
    edgeprobe__root *r;
    int scan_new, single;           /* single: -1 until asked            */
    edgeprobe__func_object_list l;  /* what is loaded now                */
} edgeprobe__func_sync;
EDGEPROBE__FN int edgeprobe__func_known(struct edgeprobe__func_state *fs, const edgeprobe__func_object_seen *s);
EDGEPROBE__FN int edgeprobe__func_known(struct edgeprobe__func_state *fs, const edgeprobe__func_object_seen *s) {
    edgeprobe__func_object *o;
    for (o = fs->objects; o; o = o->next)
        if (o->loaded && o->base == s->base && o->text_lo == s->text_lo) return 1;
    return 0;
}
EDGEPROBE__FN int edgeprobe__func_sync_cb(edgeprobe__dl_phdr_info *info, size_t size, void *arg);
EDGEPROBE__FN int edgeprobe__func_sync_cb(edgeprobe__dl_phdr_info *info, size_t size, void *arg) {
    edgeprobe__func_sync *y = (edgeprobe__func_sync *)arg;
    struct edgeprobe__func_state *fs = y->r->fstate;
    int n = y->l.n;
    if (size >= sizeof *info) edgeprobe__pages_check_locked(y->r, info->subs); /* before a scan's first write */
    if (edgeprobe__func_list_cb(info, size, &y->l)) return 1;
    if (y->l.n == n || !y->scan_new || edgeprobe__func_known(fs, &y->l.v[n])) return 0;
    if (y->single < 0) y->single = edgeprobe__single_threaded();
    edgeprobe__func_object_scan_locked(y->r, &y->l.v[n], y->single);
    return 0;
}
EDGEPROBE__FN int edgeprobe__func_sync_objects_locked(edgeprobe__root *r, int scan_new);
EDGEPROBE__FN int edgeprobe__func_sync_objects_locked(edgeprobe__root *r, int scan_new) {
    EDGEPROBE__ASSERT_LOCKED(r);
    struct edgeprobe__func_state *fs = r->fstate;
    edgeprobe__func_sync y;
    edgeprobe__func_object *o;
    int i;
    __builtin_memset(&y, 0, sizeof y);
    y.r = r, y.scan_new = scan_new, y.single = -1;
    edgeprobe__libc_dl_iterate_phdr(edgeprobe__func_sync_cb, &y);
    for (o = fs->objects; o; o = o->next) {
        if (!o->loaded) continue;
        for (i = 0; i < y.l.n; i++)
            if (y.l.v[i].base == o->base && y.l.v[i].text_lo == o->text_lo) break;
        if (i == y.l.n) edgeprobe__func_object_gone(r, o);
    }
    if (scan_new) fs->adds = y.l.adds;
    fs->subs = y.l.subs;
    if (y.l.v) EDGEPROBE_OS_FREE(y.l.v);
    return 0;
}
/* The function-probe state, created on first use. Lock held. */
EDGEPROBE__FN struct edgeprobe__func_state *edgeprobe__func_state_get_locked(edgeprobe__root *r);
EDGEPROBE__FN struct edgeprobe__func_state *edgeprobe__func_state_get_locked(edgeprobe__root *r) {
    EDGEPROBE__ASSERT_LOCKED(r);
    struct edgeprobe__func_state *fs = r->fstate;
    int width;
    if (fs) return fs;
    if (!(fs = (struct edgeprobe__func_state *)EDGEPROBE_OS_ALLOC(sizeof *fs))) return 0;
    width = edgeprobe__vector_width();
    fs->entry_tramp = (uintptr_t)(width == 64 ? edgeprobe__func_entry_avx512 : width == 32 ? edgeprobe__func_entry_avx : edgeprobe__func_entry_sse);
    fs->ret_tramp = (uintptr_t)(width == 64 ? edgeprobe__func_ret_avx512 : width == 32 ? edgeprobe__func_ret_avx : edgeprobe__func_ret_sse);
    fs->vec_bytes = width == 64 || width == 32 ? (unsigned)width : 16u;
    fs->tls_offset = edgeprobe__func_tls_offset();
    fs->register_frame = EDGEPROBE__REGISTER_FRAME;
    fs->thread_skipped = edgeprobe__func_thread_skipped_here;
    if (edgeprobe__libc_key_create(&fs->thread_key, edgeprobe__func_thread_exit)) {
        EDGEPROBE_OS_FREE(fs);
        return 0;
    }
    edgeprobe__trap_install_locked(r); /* now, not later with the loader lock held */
    __atomic_store_n(&r->fstate, fs, __ATOMIC_RELEASE);
    edgeprobe__func_sync_objects_locked(r, 1);
    return fs;
}

/* Run fn(r, arg) with the loader's list lock held and no object unloaded
 * since the list was last synced (see above); objects loaded since are not
 * needed for that, and are scanned by the calls that name functions by
 * pattern. Lock held. */
typedef struct {
    edgeprobe__root *r;
    int (*fn)(edgeprobe__root *, void *);
    void *arg;
    int rc, stale;
} edgeprobe__func_loader_call;
EDGEPROBE__FN int edgeprobe__func_loader_cb(edgeprobe__dl_phdr_info *info, size_t size, void *arg);
EDGEPROBE__FN int edgeprobe__func_loader_cb(edgeprobe__dl_phdr_info *info, size_t size, void *arg) {
    edgeprobe__func_loader_call *c = (edgeprobe__func_loader_call *)arg;
    struct edgeprobe__func_state *fs = c->r->fstate;
    c->stale = size < sizeof *info || info->subs != fs->subs;
    if (!c->stale) {
        edgeprobe__pages_check_locked(c->r, info->subs);
        c->rc = c->fn(c->r, c->arg);
    }
    return 1;
}
EDGEPROBE__FN int edgeprobe__func_loader(edgeprobe__root *r, int (*fn)(edgeprobe__root *, void *), void *arg);
EDGEPROBE__FN int edgeprobe__func_loader(edgeprobe__root *r, int (*fn)(edgeprobe__root *, void *), void *arg) {
    edgeprobe__func_loader_call c;
    c.r = r, c.fn = fn, c.arg = arg, c.rc = 0;
    for (;;) {
        c.stale = 1;
        edgeprobe__libc_dl_iterate_phdr(edgeprobe__func_loader_cb, &c);
        if (!c.stale) return c.rc;
        edgeprobe__func_sync_objects_locked(r, 0);
    }
}

/* ---- 27.7 the function-probe API                             >>fapi ---- */
/* What one call of the API does to each function it selects. */
typedef struct {
    const char *pattern;       /* glob, or NULL with id                       */
    int id;
    int op;                    /* EDGEPROBE__FUNC_OP_*                            */
    edgeprobe__func_bind *bind;    /* attach: the new binding                     */
    int matched, changed, refused;
    edgeprobe_entry_fn owner;      /* not NULL: only functions bound with this
                                    * entry handler (what one tool switched) */
} edgeprobe__func_op;
/* ENABLE: on with the function's binding, or bound to op->bind if it has
 * none (the control endpoint's `enable`). BIND_FREE: bound to op->bind and
 * on if it has no binding (or only `enable`'s, and is off), left alone
 * otherwise (`trace`). */
enum { EDGEPROBE__FUNC_OP_ATTACH, EDGEPROBE__FUNC_OP_DETACH, EDGEPROBE__FUNC_OP_ON, EDGEPROBE__FUNC_OP_OFF,
       EDGEPROBE__FUNC_OP_ENABLE, EDGEPROBE__FUNC_OP_BIND_FREE };

/* Publish a binding (or NULL) in a function point; retire the old one. */
EDGEPROBE__FN void edgeprobe__func_bind_set(edgeprobe__root *r, edgeprobe__func_point *fp, edgeprobe__func_bind *b);
EDGEPROBE__FN void edgeprobe__func_bind_set(edgeprobe__root *r, edgeprobe__func_point *fp, edgeprobe__func_bind *b) {
    edgeprobe__binding *old = __atomic_exchange_n(&fp->pt.binding, b ? &b->b : (edgeprobe__binding *)0, __ATOMIC_ACQ_REL);
    /* a count armed for the old handlers is not the new ones' to miss */
    __atomic_store_n(&fp->skip_left, 0, __ATOMIC_RELEASE);
    fp->skip_armed = 0;
    if (old) {
        old->next_retired = r->retired;
        r->retired = old;
    }
}
EDGEPROBE__FN int edgeprobe__ctl_count_entry(edgeprobe_func_call *call, void *user); /* section 28 */
/* Apply op to one function. Returns 1 changed, 0 not, or an error. */
EDGEPROBE__FN int edgeprobe__func_op_one(edgeprobe__root *r, edgeprobe__func_point *fp, edgeprobe__func_op *op);
EDGEPROBE__FN int edgeprobe__func_op_one(edgeprobe__root *r, edgeprobe__func_point *fp, edgeprobe__func_op *op) {
    edgeprobe__func_bind *b = (edgeprobe__func_bind *)fp->pt.binding;
    int rc;
    if (op->owner && (!b || b->entry != op->owner)) return 0;
    switch (op->op) {
    case EDGEPROBE__FUNC_OP_BIND_FREE: /* an `enable`d function is the endpoint's to take, once off */
        if (b && (b->entry != edgeprobe__ctl_count_entry || (fp->pt.flags & EDGEPROBE__PF_ON))) return 0;
        b = 0;
        /* fall through */
    case EDGEPROBE__FUNC_OP_ENABLE:
        if (b) return edgeprobe__func_site_set_locked(r, fp, 1);
        /* fall through */
    case EDGEPROBE__FUNC_OP_ATTACH:
        if (fp->form == EDGEPROBE__FORM_NONE) return EDGEPROBE_EUNSAFE;
        if (op->bind->exit && edgeprobe__shadow_stack_on()) { /* the return trampoline replaces a return address */
            edgeprobe__log(r, "exit handlers refused: this process runs with a CET shadow stack");
            return EDGEPROBE_ENOTSUP;
        }
        if (!(b = (edgeprobe__func_bind *)EDGEPROBE_OS_ALLOC(sizeof *b))) return EDGEPROBE_ENOMEM;
        *b = *op->bind;
        b->gen = ++r->func_bind_gen;
        edgeprobe__fill_info(&fp->pt, &b->info);
        b->info.enabled = 1;
        /* switch first: a failure changes nothing. Until the new binding is
         * published the site runs the old one, or none (entry skipped). */
        if ((rc = edgeprobe__func_site_set_locked(r, fp, 1)) < 0) {
            EDGEPROBE_OS_FREE(b);
            return rc;
        }
        edgeprobe__func_bind_set(r, fp, b);
        return 1;
    case EDGEPROBE__FUNC_OP_DETACH: /* changed: switched off, or only unbound */
        rc = edgeprobe__func_site_set_locked(r, fp, 0);
        if (rc < 0 || !b) return rc;
        edgeprobe__func_bind_set(r, fp, 0);
        return 1;
    case EDGEPROBE__FUNC_OP_ON:
        if (!fp->pt.binding) return EDGEPROBE_EINVAL;
        return edgeprobe__func_site_set_locked(r, fp, 1);
    default:
        return edgeprobe__func_site_set_locked(r, fp, 0);
    }
}
/* The function point with this id, or an error. Safe without the lock for
 * an id already listed: points are never freed, and the slot is read once. */
EDGEPROBE__FN int edgeprobe__func_point_by_id(edgeprobe__root *r, int id, edgeprobe__func_point **out);
EDGEPROBE__FN int edgeprobe__func_point_by_id(edgeprobe__root *r, int id, edgeprobe__func_point **out) {
    edgeprobe__point *pt;
    if (id < 0 || id >= __atomic_load_n(&r->npoints, __ATOMIC_ACQUIRE)) return EDGEPROBE_EINVAL;
    if (!(pt = __atomic_load_n(edgeprobe__point_slot(r, id), __ATOMIC_ACQUIRE))) return EDGEPROBE_EUNLOADED;
    if (pt->kind != EDGEPROBE_KIND_FUNCTION) return EDGEPROBE_EINVAL;
    *out = (edgeprobe__func_point *)pt;
    return 0;
}
/* Apply op to every selected function (loader lock held). A glob skips
 * functions that cannot be switched; an exact name or an id reports it. */
EDGEPROBE__FN int edgeprobe__func_op_all(edgeprobe__root *r, void *arg);
EDGEPROBE__FN int edgeprobe__func_op_all(edgeprobe__root *r, void *arg) {
    edgeprobe__func_op *op = (edgeprobe__func_op *)arg;
    edgeprobe__func_object *o;
    int i, rc = 0, glob;
    if (!op->pattern) {
        edgeprobe__func_point *fp;
        EDGEPROBE__ASSERT_LOCKED(r);
        if ((rc = edgeprobe__func_point_by_id(r, op->id, &fp)) < 0) return rc;
        op->matched = 1;
        return edgeprobe__func_op_one(r, fp, op);
    }
    glob = edgeprobe__is_glob(op->pattern);
    for (o = r->fstate->objects; o && rc >= 0; o = o->next)
        for (i = 0; o->loaded && i < o->n && rc >= 0; i++) {
            edgeprobe__func_point *fp = &o->fn[i];
            if (!edgeprobe__glob_match(op->pattern, fp->pt.name)) continue;
            op->matched++;
            if (glob && fp->form == EDGEPROBE__FORM_NONE) {
                op->refused++;
                continue;
            }
            rc = edgeprobe__func_op_one(r, fp, op);
            if (rc > 0) op->changed++;
        }
    if (rc < 0) return rc;
    if (!op->matched && !glob) return EDGEPROBE_ENOENT;
    return op->changed;
}
/* tries: 0 waits for the registry lock; else EDGEPROBE_EBUSY when it is
 * not free within that many looks (edgeprobe__func_off_nowait). */
EDGEPROBE__FN int edgeprobe__func_run_tries(edgeprobe__func_op *op, unsigned tries);
EDGEPROBE__FN int edgeprobe__func_run_tries(edgeprobe__func_op *op, unsigned tries) {
    int rc = op->pattern ? edgeprobe__check_pattern(op->pattern) : 0;
    EDGEPROBE__READY_OR_RETURN(r);
    if (rc) return rc;
    edgeprobe__pin_self(); /* the trampolines may be this object's */
    if (!tries) edgeprobe__lock(&r->lock);
    else if (!edgeprobe__lock_within(&r->lock, tries)) return EDGEPROBE_EBUSY;
    if (!edgeprobe__func_state_get_locked(r)) rc = EDGEPROBE_ENOMEM;
    else {
        if (op->pattern && edgeprobe__dl_loads() != r->fstate->adds) edgeprobe__func_sync_objects_locked(r, 1);
        rc = edgeprobe__func_loader(r, edgeprobe__func_op_all, op);
    }
    edgeprobe__unlock(&r->lock);
    return rc;
}
EDGEPROBE__FN int edgeprobe__func_run(edgeprobe__func_op *op);
EDGEPROBE__FN int edgeprobe__func_run(edgeprobe__func_op *op) { return edgeprobe__func_run_tries(op, 0); }
/* edgeprobe_func_off for a handler on a program thread (a profiler's),
 * which must not wait for the registry lock: its thread may hold the
 * loader's lock (a program that calls probed functions from a
 * dl_iterate_phdr callback, or a signal handler that interrupted one),
 * which a holder of the registry lock switching functions waits for
 * (edgeprobe__func_loader). EDGEPROBE_EBUSY when the lock is not free
 * within `tries` looks. */
EDGEPROBE__FN int edgeprobe__func_off_nowait(int id, unsigned tries);
EDGEPROBE__FN int edgeprobe__func_off_nowait(int id, unsigned tries) {
    edgeprobe__func_op op = {0, id, EDGEPROBE__FUNC_OP_OFF, 0, 0, 0, 0, 0};
    return edgeprobe__func_run_tries(&op, tries ? tries : 1);
}
/* op (one that binds: ATTACH, ENABLE, BIND_FREE) with these handlers, to
 * the functions selected by pattern or id. */
EDGEPROBE__FN int edgeprobe__func_bind_op(const char *pattern, int id, int what, edgeprobe_entry_fn entry,
                                          edgeprobe_exit_fn exit, void *user);
EDGEPROBE__FN int edgeprobe__func_bind_op(const char *pattern, int id, int what, edgeprobe_entry_fn entry,
                                          edgeprobe_exit_fn exit, void *user) {
    edgeprobe__func_bind b;
    edgeprobe__func_op op = {pattern, id, what, &b, 0, 0, 0, 0};
    if (!entry && !exit) return EDGEPROBE_EINVAL;
    __builtin_memset(&b, 0, sizeof b);
    b.b.user = user;
    b.entry = entry;
    b.exit = exit;
    return edgeprobe__func_run(&op);
}
EDGEPROBE__FN int edgeprobe__func_attach(const char *pattern, int id, edgeprobe_entry_fn entry,
                                         edgeprobe_exit_fn exit, void *user);
EDGEPROBE__FN int edgeprobe__func_attach(const char *pattern, int id, edgeprobe_entry_fn entry,
                                         edgeprobe_exit_fn exit, void *user) {
    return edgeprobe__func_bind_op(pattern, id, EDGEPROBE__FUNC_OP_ATTACH, entry, exit, user);
}
/* OFF or DETACH of the functions matching pattern that are bound with the
 * entry handler owner: what one tool switched, and nothing else. */
EDGEPROBE__FN int edgeprobe__func_owned(const char *pattern, int what, edgeprobe_entry_fn owner);
EDGEPROBE__FN int edgeprobe__func_owned(const char *pattern, int what, edgeprobe_entry_fn owner) {
    edgeprobe__func_op op = {pattern, 0, what, 0, 0, 0, 0, owner};
    return edgeprobe__func_run(&op);
}
EDGEPROBE__FN int edgeprobe__func_simple(const char *pattern, int id, int what);
EDGEPROBE__FN int edgeprobe__func_simple(const char *pattern, int id, int what) {
    edgeprobe__func_op op = {pattern, id, what, 0, 0, 0, 0, 0};
    return edgeprobe__func_run(&op);
}
EDGEPROBE__FN int edgeprobe_func_attach(const char *pattern, edgeprobe_entry_fn entry, edgeprobe_exit_fn exit, void *user) {
    return pattern ? edgeprobe__func_attach(pattern, 0, entry, exit, user) : EDGEPROBE_EINVAL;
}
EDGEPROBE__FN int edgeprobe_func_attach_id(int id, edgeprobe_entry_fn entry, edgeprobe_exit_fn exit, void *user) {
    return edgeprobe__func_attach(0, id, entry, exit, user);
}
EDGEPROBE__FN int edgeprobe_func_detach(const char *pattern) {
    return pattern ? edgeprobe__func_simple(pattern, 0, EDGEPROBE__FUNC_OP_DETACH) : EDGEPROBE_EINVAL;
}
EDGEPROBE__FN int edgeprobe_func_enable(const char *pattern) {
    return pattern ? edgeprobe__func_simple(pattern, 0, EDGEPROBE__FUNC_OP_ON) : EDGEPROBE_EINVAL;
}
EDGEPROBE__FN int edgeprobe_func_disable(const char *pattern) {
    return pattern ? edgeprobe__func_simple(pattern, 0, EDGEPROBE__FUNC_OP_OFF) : EDGEPROBE_EINVAL;
}
EDGEPROBE__FN int edgeprobe_func_on(int id) { return edgeprobe__func_simple(0, id, EDGEPROBE__FUNC_OP_ON); }
EDGEPROBE__FN int edgeprobe_func_off(int id) { return edgeprobe__func_simple(0, id, EDGEPROBE__FUNC_OP_OFF); }
EDGEPROBE__FN int edgeprobe_func_scan(void) {
    int n = 0;
    edgeprobe__func_object *o;
    EDGEPROBE__READY_OR_RETURN(r);
    edgeprobe__pin_self();
    edgeprobe__lock(&r->lock);
    if (edgeprobe__func_state_get_locked(r)) {
        if (edgeprobe__dl_loads() != r->fstate->adds || edgeprobe__dl_unloads() != r->fstate->subs)
            edgeprobe__func_sync_objects_locked(r, 1);
        for (o = r->fstate->objects; o; o = o->next) n += o->loaded ? o->n : 0;
    } else {
        n = EDGEPROBE_ENOMEM;
    }
    edgeprobe__unlock(&r->lock);
    return n ? n : EDGEPROBE_ENOFUNC;
}
/* Lock-free (edgeprobe__func_point_by_id). */
EDGEPROBE__FN long edgeprobe_func_skip(int id, long n) {
    edgeprobe__root *r = __atomic_load_n(&edgeprobe__this_object.root, __ATOMIC_ACQUIRE);
    edgeprobe__func_point *fp;
    long armed, left;
    int rc;
    if (!r || n < 0) return EDGEPROBE_EINVAL;
    if ((rc = edgeprobe__func_point_by_id(r, id, &fp)) < 0) return rc;
    armed = fp->skip_armed;
    left = __atomic_exchange_n(&fp->skip_left, 0, __ATOMIC_ACQ_REL); /* calls meet 0 from here */
    fp->skip_armed = n;
    __atomic_store_n(&fp->skip_left, n, __ATOMIC_RELEASE);
    /* the decrements that left a positive count were skipped; the one that
     * reached 0, and any below it, ran the handlers */
    return armed > 0 ? armed - (left > 1 ? left : 1) : 0;
}
EDGEPROBE__FN long edgeprobe_func_nested(int id) {
    edgeprobe__root *r = __atomic_load_n(&edgeprobe__this_object.root, __ATOMIC_ACQUIRE);
    edgeprobe__func_point *fp;
    int rc;
    if (!r) return EDGEPROBE_EINVAL;
    if ((rc = edgeprobe__func_point_by_id(r, id, &fp)) < 0) return rc;
    return (long)__atomic_load_n(&fp->nested, __ATOMIC_RELAXED);
}
EDGEPROBE__FN unsigned long edgeprobe_func_thread_skipped(void) {
    edgeprobe__root *r = __atomic_load_n(&edgeprobe__this_object.root, __ATOMIC_ACQUIRE);
    struct edgeprobe__func_state *fs = r ? __atomic_load_n(&r->fstate, __ATOMIC_ACQUIRE) : 0;
    return fs ? fs->thread_skipped() : 0;
}
EDGEPROBE__FN unsigned long edgeprobe_func_lost_exits(void) {
    int err;
    edgeprobe__root *r = edgeprobe__root_get(&err);
    edgeprobe__func_thread *t;
    unsigned long lost = 0;
    if (!r || !r->fstate) return 0;
    for (t = __atomic_load_n(&r->fstate->threads, __ATOMIC_ACQUIRE); t; t = t->next) lost += t->lost;
    return lost;
}

/* gcc's five one-byte NOPs in an object that cannot have a mirror (a
 * non-PIE executable): rewrite them as one NOP5 from the object's own
 * constructor, before its code runs. */
extern const uintptr_t __start___patchable_function_entries[] __attribute__((weak, visibility("hidden")));
extern const uintptr_t __stop___patchable_function_entries[] __attribute__((weak, visibility("hidden")));
EDGEPROBE__FN void edgeprobe__func_convert_own(edgeprobe__root *r);
EDGEPROBE__FN void edgeprobe__func_convert_own(edgeprobe__root *r) {
    static const unsigned char nops[5] = {0x90, 0x90, 0x90, 0x90, 0x90};
    const uintptr_t *e;
    if (!EDGEPROBE_FUNC_CTOR_CONVERT) return;
    for (e = __start___patchable_function_entries; e && e < __stop___patchable_function_entries; e++) {
        unsigned char *site = (unsigned char *)*e;
        if (!site || edgeprobe__has_mirror((uintptr_t)site) || __builtin_memcmp(site, nops, 5)) continue;
        edgeprobe__func_nops_to_nop5_locked(r, site);
    }
}
#else /* freestanding, aarch64 or EDGEPROBE_CORE_ONLY: no function probes */
EDGEPROBE__FN void edgeprobe__func_convert_own(edgeprobe__root *r) { (void)r; }
#if EDGEPROBE__HAS_PATCH /* x86-64 freestanding: the API is there, and says no */
EDGEPROBE__FN int edgeprobe_func_scan(void) { return EDGEPROBE_ENOTSUP; }
EDGEPROBE__FN int edgeprobe_func_attach(const char *p, edgeprobe_entry_fn en, edgeprobe_exit_fn ex, void *u) {
    (void)p, (void)en, (void)ex, (void)u;
    return EDGEPROBE_ENOTSUP;
}
EDGEPROBE__FN int edgeprobe_func_attach_id(int id, edgeprobe_entry_fn en, edgeprobe_exit_fn ex, void *u) {
    (void)id, (void)en, (void)ex, (void)u;
    return EDGEPROBE_ENOTSUP;
}
EDGEPROBE__FN int edgeprobe_func_detach(const char *p) { return (void)p, EDGEPROBE_ENOTSUP; }
EDGEPROBE__FN int edgeprobe_func_enable(const char *p) { return (void)p, EDGEPROBE_ENOTSUP; }
EDGEPROBE__FN int edgeprobe_func_disable(const char *p) { return (void)p, EDGEPROBE_ENOTSUP; }
EDGEPROBE__FN int edgeprobe_func_on(int id) { return (void)id, EDGEPROBE_ENOTSUP; }
EDGEPROBE__FN int edgeprobe_func_off(int id) { return (void)id, EDGEPROBE_ENOTSUP; }
EDGEPROBE__FN unsigned long edgeprobe_func_lost_exits(void) { return 0; }
EDGEPROBE__FN long edgeprobe_func_skip(int id, long n) { return (void)id, (void)n, EDGEPROBE_ENOTSUP; }
EDGEPROBE__FN unsigned long edgeprobe_func_thread_skipped(void) { return 0; }
EDGEPROBE__FN long edgeprobe_func_nested(int id) { return (void)id, EDGEPROBE_ENOTSUP; }
#endif
#endif
#ifndef EDGEPROBE_FREESTANDING

/* ======================================================================
 * 28. THE CONTROL ENDPOINT (hosted builds)                  >>control-impl
 * What section 8 promises, built from a poll loop on one thread.
 * ====================================================================== */
#define EDGEPROBE__CTL_LINE 512        /* longest request, '\n' included    */
#define EDGEPROBE__CTL_CLIENTS 32      /* connected clients at once          */
#define EDGEPROBE__CTL_OUT 8192        /* per-client output buffer           */
#define EDGEPROBE__CTL_ROW 1024        /* room kept for one list row         */
#define EDGEPROBE__CTL_BATCH 64        /* list rows per registry-lock hold   */
#define EDGEPROBE__CTL_IDLE_MS 10000   /* silent or unread client: dropped   */
#define EDGEPROBE__CTL_TICK_MS 2       /* ring drain period while tracing    */
#define EDGEPROBE__CTL_GRACE_MS 10     /* threads still past a switched-off site */
#define EDGEPROBE__CTL_TRACE_ARGS 16   /* globs per trace request            */
#define EDGEPROBE__TRACE_SLOTS 4096u   /* trace ring: lines (power of two)   */
#define EDGEPROBE__TRACE_TEXT 248      /* bytes per line, NUL included       */

/* libc, under private names (see section 13) */
typedef struct edgeprobe__pollfd { int fd; short events, revents; } edgeprobe__pollfd;
typedef struct edgeprobe__sockaddr_un { unsigned short family; char path[108]; } edgeprobe__sockaddr_un;
typedef struct edgeprobe__ucred { int pid; unsigned uid, gid; } edgeprobe__ucred;
typedef struct edgeprobe__timespec { long sec, nsec; } edgeprobe__timespec;
int edgeprobe__libc_socket(int, int, int) __asm__("socket");
int edgeprobe__libc_bind(int, const void *, unsigned) __asm__("bind");
int edgeprobe__libc_listen(int, int) __asm__("listen");
int edgeprobe__libc_accept4(int, void *, void *, int) __asm__("accept4");
int edgeprobe__libc_getsockopt(int, int, int, void *, unsigned *) __asm__("getsockopt");
long edgeprobe__libc_send(int, const void *, size_t, int) __asm__("send");
int edgeprobe__libc_poll(edgeprobe__pollfd *, unsigned long, int) __asm__("poll");
int edgeprobe__libc_unlink(const char *) __asm__("unlink");
int edgeprobe__libc_mkdir(const char *, unsigned) __asm__("mkdir");
unsigned edgeprobe__libc_geteuid(void) __asm__("geteuid");
int edgeprobe__libc_atexit(void (*)(void)) __asm__("atexit");
int edgeprobe__libc_pthread_create(unsigned long *, const void *, void *(*)(void *), void *) __asm__("pthread_create");
int edgeprobe__libc_pthread_detach(unsigned long) __asm__("pthread_detach");
int edgeprobe__libc_pthread_sigmask(int, const void *, void *) __asm__("pthread_sigmask");
int edgeprobe__libc_pthread_setname_np(unsigned long, const char *) __asm__("pthread_setname_np");
int edgeprobe__libc_clock_gettime(int, edgeprobe__timespec *) __asm__("clock_gettime");

#define EDGEPROBE__AF_UNIX 1
#define EDGEPROBE__SOCK_STREAM 1
#define EDGEPROBE__SOCK_NONBLOCK 0x800
#define EDGEPROBE__SOCK_CLOEXEC 0x80000
#define EDGEPROBE__SOL_SOCKET 1
#define EDGEPROBE__SO_PEERCRED 17
#define EDGEPROBE__MSG_DONTWAIT 0x40
#define EDGEPROBE__MSG_NOSIGNAL 0x4000
#define EDGEPROBE__POLLIN 1
#define EDGEPROBE__POLLOUT 4
#define EDGEPROBE__O_DIRECTORY_NOFOLLOW (0x10000 | 0x20000 | 0x80000) /* + CLOEXEC */
int edgeprobe__libc_fstat(int, void *) __asm__("fstat"); /* glibc >= 2.33 */
#if defined(__x86_64__)
#define EDGEPROBE__ST_MODE 24
#define EDGEPROBE__ST_UID 28
#else
#define EDGEPROBE__ST_MODE 16
#define EDGEPROBE__ST_UID 24
#endif
#define EDGEPROBE__S_IFMT 0170000u
#define EDGEPROBE__S_IFDIR 0040000u
#define EDGEPROBE__EAGAIN 11
#define EDGEPROBE__EINTR 4
#define EDGEPROBE__EEXIST 17
#define EDGEPROBE__CLOCK_MONOTONIC 1

/* A thread of edgeprobe's own (the control endpoint's, the recorder's, the
 * profiler's epoch thread), started with every asynchronous signal blocked.
 * The kernel gives a process-directed signal (a timer's SIGALRM, SIGINT,
 * SIGCHLD) to any thread that does not block it; on ours, the program's
 * handler would run on a thread it never made, and one that leaves by
 * siglongjmp would carry that thread onto the program's stack (a SIGALRM
 * timeout under `edgeprobe prof`: the epoch thread jumped to main's stack
 * and crashed). The synchronous signals stay open: a fault of our own code
 * still goes where it would, and a thread that blocks SIGTRAP would make
 * the int3 protocols refuse every straddler (section 21). Returns
 * pthread_create's result. */
EDGEPROBE__FN int edgeprobe__thread_start(unsigned long *thread, void *(*fn)(void *), void *arg);
EDGEPROBE__FN int edgeprobe__thread_start(unsigned long *thread, void *(*fn)(void *), void *arg) {
    static const int synchronous[] = {4 /* SIGILL */, 5 /* SIGTRAP */, 7 /* SIGBUS */, 8 /* SIGFPE */,
                                      11 /* SIGSEGV */, 31 /* SIGSYS */};
    unsigned long all[16], old[16]; /* glibc's sigset_t: 1024 bits */
    unsigned i;
    int rc;
    __builtin_memset(all, 0xff, sizeof all);
    for (i = 0; i < sizeof synchronous / sizeof synchronous[0]; i++)
        all[0] &= ~(1ul << (synchronous[i] - 1));
    edgeprobe__libc_pthread_sigmask(EDGEPROBE__SIG_SETMASK, all, old);
    rc = edgeprobe__libc_pthread_create(thread, 0, fn, arg);
    edgeprobe__libc_pthread_sigmask(EDGEPROBE__SIG_SETMASK, old, 0);
    return rc;
}

enum { EDGEPROBE__CLIENT_FREE = 0, EDGEPROBE__CLIENT_REQUEST, EDGEPROBE__CLIENT_LISTING,
       EDGEPROBE__CLIENT_TRACING, EDGEPROBE__CLIENT_CLOSING };
typedef struct edgeprobe__client {
    int fd, state;
    int cursor, listed;          /* LISTING: next point id, rows sent      */
    uint64_t active_ms;          /* last byte read or written              */
    unsigned in_len, out_pos, out_len;
    char in[EDGEPROBE__CTL_LINE];
    char out[EDGEPROBE__CTL_OUT];
} edgeprobe__client;

/* Trace ring: a bounded multi-producer queue (D. Vyukov's). A slot is free
 * for position pos when seq == pos, holds a line when seq == pos + 1. A
 * producer claims a position with one compare-and-swap and never waits. */
typedef struct edgeprobe__trace_slot {
    unsigned long seq;
    char text[EDGEPROBE__TRACE_TEXT];
} edgeprobe__trace_slot;

struct edgeprobe__control {
    int pid, listen_fd;
    unsigned uid;
    char path[108];              /* what clients see: DIR/PID.sock           */
    char at[108];                /* the same socket through the checked
                                  * directory's descriptor, for bind and
                                  * unlink: /proc/self/fd/N/PID.sock        */
    edgeprobe__client clients[EDGEPROBE__CTL_CLIENTS];
    /* the one trace session */
    int tracer;                  /* client index, or -1                   */
    struct edgeprobe__probe **traced;
    int ntraced, traced_cap;
    int ftraced;                 /* functions the session bound (27.7)    */
    int recording;               /* `record start` ran, `record stop` not */
    char rec_events[EDGEPROBE__CTL_LINE]; /* its marker globs, to switch off */
    edgeprobe__trace_slot *ring; /* allocated by the first trace, kept    */
    unsigned long head;          /* producers: next position to claim    */
    unsigned long tail;          /* control thread: next line to send     */
    unsigned long dropped;
};

EDGEPROBE__INLINE struct edgeprobe__control *edgeprobe__control_get(void) {
    edgeprobe__root *r = __atomic_load_n(&edgeprobe__this_object.root, __ATOMIC_ACQUIRE);
    return r ? __atomic_load_n(&r->control, __ATOMIC_ACQUIRE) : 0;
}
EDGEPROBE__INLINE uint64_t edgeprobe__now_ms(void) {
    edgeprobe__timespec ts;
    edgeprobe__libc_clock_gettime(EDGEPROBE__CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.sec * 1000u + (uint64_t)ts.nsec / 1000000u;
}
EDGEPROBE__FN int edgeprobe__snprintf(char *buf, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
EDGEPROBE__FN int edgeprobe__snprintf(char *buf, size_t cap, const char *fmt, ...) {
    __builtin_va_list ap;
    int n;
    __builtin_va_start(ap, fmt);
    n = edgeprobe__libc_vsnprintf(buf, cap, fmt, ap);
    __builtin_va_end(ap);
    return n;
}

/* ---- 28.1 trace lines: program threads -> ring ---- */
EDGEPROBE__FN void edgeprobe__route_printf(const char *fmt, ...) {
    struct edgeprobe__control *ctl = edgeprobe__control_get();
    edgeprobe__trace_slot *ring = ctl ? __atomic_load_n(&ctl->ring, __ATOMIC_ACQUIRE) : 0, *slot;
    unsigned long pos;
    __builtin_va_list ap;
    __builtin_va_start(ap, fmt);
    if (!ring) { /* no session (a forked child): behave as the default sink */
        edgeprobe__vdprintf(2, fmt, ap);
        __builtin_va_end(ap);
        return;
    }
    pos = __atomic_load_n(&ctl->head, __ATOMIC_RELAXED);
    for (;;) {
        long diff;
        slot = &ring[pos & (EDGEPROBE__TRACE_SLOTS - 1)];
        diff = (long)(__atomic_load_n(&slot->seq, __ATOMIC_ACQUIRE) - pos);
        if (diff == 0 && __atomic_compare_exchange_n(&ctl->head, &pos, pos + 1, 1, __ATOMIC_RELAXED,
                                                     __ATOMIC_RELAXED))
            break;
        if (diff < 0) { /* full: drop, never wait */
            __atomic_fetch_add(&ctl->dropped, 1, __ATOMIC_RELAXED);
            __builtin_va_end(ap);
            return;
        }
        if (diff > 0) pos = __atomic_load_n(&ctl->head, __ATOMIC_RELAXED);
    }
    edgeprobe__libc_vsnprintf(slot->text, sizeof slot->text, fmt, ap);
    __builtin_va_end(ap);
    __atomic_store_n(&slot->seq, pos + 1, __ATOMIC_RELEASE);
}

/* Function probes from a shell (x86-64): the endpoint binds these entry
 * and exit handlers, and only ever unbinds functions bound with them (a
 * program's or the profiler's own handlers are left alone). `enable`
 * binds one that does nothing: the entry path counts the hit (27.2), which
 * is what `edgeprobe top` shows. `trace` binds a pair that writes a line
 * at entry (the first three argument registers) and at exit (the return
 * value and the call's TSC ticks). Only where this process has listed its
 * functions (edgeprobe_func_scan: the attach agent and the profiler do). */
#if EDGEPROBE__HAS_PATCH
EDGEPROBE__FN int edgeprobe__ctl_count_entry(edgeprobe_func_call *call, void *user);
EDGEPROBE__FN int edgeprobe__ctl_count_entry(edgeprobe_func_call *call, void *user) {
    (void)call, (void)user;
    return 0;
}
EDGEPROBE__FN int edgeprobe__ctl_trace_entry(edgeprobe_func_call *call, void *user);
EDGEPROBE__FN int edgeprobe__ctl_trace_entry(edgeprobe_func_call *call, void *user) {
    (void)user;
    edgeprobe__route_printf("%s(%#llx, %#llx, %#llx)\n", call->probe->name, (unsigned long long)call->args[0],
                            (unsigned long long)call->args[1], (unsigned long long)call->args[2]);
    call->data = __builtin_ia32_rdtsc();
    return 1;
}
EDGEPROBE__FN void edgeprobe__ctl_trace_exit(const edgeprobe_func_call *call, void *user);
EDGEPROBE__FN void edgeprobe__ctl_trace_exit(const edgeprobe_func_call *call, void *user) {
    (void)user;
    edgeprobe__route_printf("%s = %#llx (%llu ticks)\n", call->probe->name, (unsigned long long)call->ret[0],
                            (unsigned long long)(__builtin_ia32_rdtsc() - call->data));
}
EDGEPROBE__INLINE int edgeprobe__ctl_has_functions(edgeprobe__root *r) {
    return __atomic_load_n(&r->fstate, __ATOMIC_ACQUIRE) != 0;
}
#endif
/* `enable` and `disable`: the markers, then the functions. An exact name is
 * EDGEPROBE_ENOENT only when it names neither. */
EDGEPROBE__FN int edgeprobe__ctl_switch(edgeprobe__root *r, const char *pattern, int on);
EDGEPROBE__FN int edgeprobe__ctl_switch(edgeprobe__root *r, const char *pattern, int on) {
    int rc = edgeprobe__set_matching(pattern, on);
#if EDGEPROBE__HAS_PATCH
    int frc;
    if (!edgeprobe__ctl_has_functions(r) || (rc < 0 && rc != EDGEPROBE_ENOENT)) return rc;
    frc = on ? edgeprobe__func_bind_op(pattern, 0, EDGEPROBE__FUNC_OP_ENABLE, edgeprobe__ctl_count_entry, 0, 0)
             : edgeprobe__func_simple(pattern, 0, EDGEPROBE__FUNC_OP_OFF);
    if (frc == EDGEPROBE_ENOENT) return rc;
    if (frc < 0) return frc;
    return (rc > 0 ? rc : 0) + frc;
#else
    (void)r;
    return rc;
#endif
}
/* A tool's own requests (the profiler agent's `prof ...`, tools/prof_agent.c,
 * which sets these in the same translation unit). ext is called with a
 * request the endpoint does not know: it writes its reply (whole lines)
 * into reply, at most cap bytes, and returns the bytes written, or -1 for
 * a request that is not its own. ext_detach is called by `detach`: it
 * switches off what the tool switched on and returns how many functions.
 * Both run on the control thread, lock not held. */
typedef int (*edgeprobe__ctl_ext_fn)(char **args, int nargs, char *reply, unsigned cap);
static edgeprobe__ctl_ext_fn edgeprobe__ctl_ext;
static int (*edgeprobe__ctl_ext_detach)(void);

/* ---- 28.2 client output ---- */
EDGEPROBE__INLINE unsigned edgeprobe__out_room(const edgeprobe__client *c) {
    return EDGEPROBE__CTL_OUT - c->out_len;
}
EDGEPROBE__FN void edgeprobe__out(edgeprobe__client *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
EDGEPROBE__FN void edgeprobe__out(edgeprobe__client *c, const char *fmt, ...) {
    __builtin_va_list ap;
    int n;
    __builtin_va_start(ap, fmt);
    n = edgeprobe__libc_vsnprintf(c->out + c->out_len, edgeprobe__out_room(c), fmt, ap);
    __builtin_va_end(ap);
    if (n > 0) c->out_len += (unsigned)n < edgeprobe__out_room(c) ? (unsigned)n : edgeprobe__out_room(c) - 1;
}
/* A string field of a row: at most max bytes, control bytes (tab, newline)
 * shown as '?', so a field can never break the line format. */
EDGEPROBE__FN void edgeprobe__out_field(edgeprobe__client *c, const char *s, unsigned max, char sep);
EDGEPROBE__FN void edgeprobe__out_field(edgeprobe__client *c, const char *s, unsigned max, char sep) {
    unsigned n;
    for (n = 0; s && s[n] && n < max && edgeprobe__out_room(c) > 2; n++)
        c->out[c->out_len++] = (unsigned char)s[n] < 0x20 || s[n] == 0x7f ? '?' : s[n];
    if (edgeprobe__out_room(c) > 1) c->out[c->out_len++] = sep;
}
EDGEPROBE__FN const char *edgeprobe__error_name(int err);
EDGEPROBE__FN const char *edgeprobe__error_name(int err) {
#define EDGEPROBE__ERR_NAME(name, errno_value, text) if (err == -(errno_value)) return #name;
    EDGEPROBE__ERRORS(EDGEPROBE__ERR_NAME)
#undef EDGEPROBE__ERR_NAME
    return "EDGEPROBE_EINVAL";
}
EDGEPROBE__FN void edgeprobe__out_error(edgeprobe__client *c, int err, const char *detail);
EDGEPROBE__FN void edgeprobe__out_error(edgeprobe__client *c, int err, const char *detail) {
    edgeprobe__out(c, "error %s %s%s%s\n", edgeprobe__error_name(err), edgeprobe_strerror(err),
                   detail ? ": " : "", detail ? detail : "");
}

/* ---- 28.3 requests ---- */
EDGEPROBE__FN const char *edgeprobe__kind_name(int kind);
EDGEPROBE__FN const char *edgeprobe__kind_name(int kind) {
    static const char *const names[] = {"?", "trace", "branch", "branch_on", "handler", "entry", "exit", "function", "probe"};
    return kind > 0 && kind < (int)(sizeof names / sizeof names[0]) ? names[kind] : "other";
}
/* Refill a LISTING client's output: rows while room remains, the registry
 * locked for at most EDGEPROBE__CTL_BATCH points at a time. */
EDGEPROBE__FN void edgeprobe__list_more(edgeprobe__root *r, edgeprobe__client *c);
EDGEPROBE__FN void edgeprobe__list_more(edgeprobe__root *r, edgeprobe__client *c) {
    while (c->state == EDGEPROBE__CLIENT_LISTING && edgeprobe__out_room(c) > EDGEPROBE__CTL_ROW) {
        int batch = 0, npoints;
        edgeprobe__lock(&r->lock);
        npoints = r->npoints;
        for (; c->cursor < npoints && batch < EDGEPROBE__CTL_BATCH && edgeprobe__out_room(c) > EDGEPROBE__CTL_ROW;
             c->cursor++, batch++) {
            edgeprobe__point *pt = *edgeprobe__point_slot(r, c->cursor);
            edgeprobe_info info;
            if (!pt) continue;
            edgeprobe__fill_info(pt, &info);
            edgeprobe__out(c, "probe\t%d\t%s\t%s\t%llu\t%d\t", info.id, edgeprobe__kind_name(info.kind),
                           info.enabled ? "on" : "off", (unsigned long long)edgeprobe__point_hits(r, info.id),
                           info.sites);
            edgeprobe__out_field(c, info.name, EDGEPROBE_NAME_MAX, '\t');
            edgeprobe__out_field(c, info.file ? info.file : "", 512, '\t');
            edgeprobe__out(c, "%d\t", info.line);
            edgeprobe__out_field(c, info.function ? info.function : "", 256, '\n');
            c->listed++;
        }
        edgeprobe__unlock(&r->lock);
        if (c->cursor >= npoints) {
            edgeprobe__out(c, "end %d\n", c->listed);
            c->state = EDGEPROBE__CLIENT_REQUEST;
        }
    }
}
EDGEPROBE__FN int edgeprobe__probe_has_kind(const struct edgeprobe__probe *p, int kind);
EDGEPROBE__FN int edgeprobe__probe_has_kind(const struct edgeprobe__probe *p, int kind) {
    int k;
    for (k = 0; k < p->npoints; k++)
        if (p->points[k]->kind == kind) return 1;
    return 0;
}
EDGEPROBE__FN int edgeprobe__matches_any(const char *name, char **globs, int n);
EDGEPROBE__FN int edgeprobe__matches_any(const char *name, char **globs, int n) {
    int i;
    for (i = 0; i < n; i++)
        if (edgeprobe__glob_match(globs[i], name)) return 1;
    return 0;
}
/* Switch off the probes the session switched on; lock held. */
EDGEPROBE__FN void edgeprobe__trace_switch_off_locked(edgeprobe__root *r, struct edgeprobe__control *ctl);
EDGEPROBE__FN void edgeprobe__trace_switch_off_locked(edgeprobe__root *r, struct edgeprobe__control *ctl) {
    EDGEPROBE__ASSERT_LOCKED(r);
    int i;
    for (i = 0; i < ctl->ntraced; i++) edgeprobe__probe_count_locked(r, ctl->traced[i], 0);
}
EDGEPROBE__FN void edgeprobe__trace_unroute(struct edgeprobe__control *ctl);
EDGEPROBE__FN void edgeprobe__trace_unroute(struct edgeprobe__control *ctl) {
    int i;
    for (i = 0; i < ctl->ntraced; i++) __atomic_store_n(&ctl->traced[i]->routed, 0, __ATOMIC_RELAXED);
    ctl->ntraced = 0;
}
/* Route, then switch on, every TRACE probe matching a glob that is off. On
 * a failure everything switched so far is put back. Returns the number
 * switched on (and *already the number left alone), or a negative code. */
EDGEPROBE__FN int edgeprobe__trace_begin(edgeprobe__root *r, struct edgeprobe__control *ctl, char **globs, int n,
                                          int *already);
EDGEPROBE__FN int edgeprobe__trace_begin(edgeprobe__root *r, struct edgeprobe__control *ctl, char **globs, int n,
                                          int *already) {
    unsigned i;
    int rc = 0;
    edgeprobe__lock(&r->lock);
    for (i = 0; i < r->hash_cap && rc >= 0; i++) {
        struct edgeprobe__probe *p;
        for (p = r->hash[i]; p && rc >= 0; p = p->next_hash) {
            if (!p->npoints || !edgeprobe__probe_has_kind(p, EDGEPROBE_KIND_TRACE) ||
                !edgeprobe__matches_any(p->name, globs, n))
                continue;
            if (p->count > 0) {
                (*already)++;
                continue;
            }
            rc = edgeprobe__grow((void **)&ctl->traced, &ctl->traced_cap, ctl->ntraced + 1, sizeof(void *));
            if (rc < 0) break;
            __atomic_store_n(&p->routed, 1, __ATOMIC_RELAXED); /* before the first line */
            ctl->traced[ctl->ntraced++] = p;
            rc = edgeprobe__probe_count_locked(r, p, 1);
        }
    }
    if (rc < 0) edgeprobe__trace_switch_off_locked(r, ctl);
    edgeprobe__unlock(&r->lock);
    if (rc < 0) edgeprobe__trace_unroute(ctl);
#if EDGEPROBE__HAS_PATCH
    for (i = 0; rc >= 0 && edgeprobe__ctl_has_functions(r) && i < (unsigned)n; i++) {
        int f = edgeprobe__func_bind_op(globs[i], 0, EDGEPROBE__FUNC_OP_BIND_FREE, edgeprobe__ctl_trace_entry,
                                        edgeprobe__ctl_trace_exit, 0);
        if (f > 0) ctl->ftraced += f;
    }
#endif
    return rc < 0 ? rc : ctl->ntraced + ctl->ftraced;
}
/* Unbind the functions the session bound, and wait for their handlers. */
EDGEPROBE__FN void edgeprobe__trace_unbind_functions(struct edgeprobe__control *ctl);
EDGEPROBE__FN void edgeprobe__trace_unbind_functions(struct edgeprobe__control *ctl) {
#if EDGEPROBE__HAS_PATCH
    if (ctl->ftraced) {
        edgeprobe__func_owned("*", EDGEPROBE__FUNC_OP_DETACH, edgeprobe__ctl_trace_entry);
        edgeprobe_handler_sync();
    }
#endif
    ctl->ftraced = 0;
}
/* Move complete lines from the ring to the tracer's output while it has
 * room; lines stay in the ring (and new ones drop) while it has none. */
EDGEPROBE__FN void edgeprobe__trace_drain(struct edgeprobe__control *ctl, edgeprobe__client *c);
EDGEPROBE__FN void edgeprobe__trace_drain(struct edgeprobe__control *ctl, edgeprobe__client *c) {
    edgeprobe__trace_slot *ring = ctl->ring;
    while (ring) {
        edgeprobe__trace_slot *slot = &ring[ctl->tail & (EDGEPROBE__TRACE_SLOTS - 1)];
        const char *s;
        if (__atomic_load_n(&slot->seq, __ATOMIC_ACQUIRE) != ctl->tail + 1) break;
        if (c && edgeprobe__out_room(c) < 2 * EDGEPROBE__TRACE_TEXT + 8) break;
        for (s = slot->text; c && *s;) { /* "> " before each line of the text */
            unsigned n = 0;
            while (s[n] && s[n] != '\n') n++;
            edgeprobe__out(c, "> %.*s\n", (int)n, s);
            s += n + (s[n] == '\n');
        }
        __atomic_store_n(&slot->seq, ctl->tail + EDGEPROBE__TRACE_SLOTS, __ATOMIC_RELEASE);
        ctl->tail++;
    }
}
EDGEPROBE__FN void edgeprobe__trace_request(edgeprobe__root *r, struct edgeprobe__control *ctl, int index,
                                             char **args, int nargs);
EDGEPROBE__FN void edgeprobe__trace_request(edgeprobe__root *r, struct edgeprobe__control *ctl, int index,
                                             char **args, int nargs) {
    edgeprobe__client *c = &ctl->clients[index];
    int i, rc = 0, already = 0;
    if (nargs < 1 || nargs > EDGEPROBE__CTL_TRACE_ARGS) {
        edgeprobe__out_error(c, EDGEPROBE_EINVAL, "trace takes 1 to 16 globs");
        return;
    }
    for (i = 0; i < nargs && !rc; i++) rc = edgeprobe__check_pattern(args[i]);
    if (!rc && ctl->tracer >= 0) rc = EDGEPROBE_EBUSY;
    if (!rc && !ctl->ring) {
        edgeprobe__trace_slot *ring =
            (edgeprobe__trace_slot *)EDGEPROBE_OS_ALLOC(EDGEPROBE__TRACE_SLOTS * sizeof *ring);
        unsigned long k;
        if (!ring) rc = EDGEPROBE_ENOMEM;
        for (k = 0; ring && k < EDGEPROBE__TRACE_SLOTS; k++) ring[k].seq = k;
        if (ring) __atomic_store_n(&ctl->ring, ring, __ATOMIC_RELEASE);
    }
    if (!rc) edgeprobe__trace_drain(ctl, 0); /* a late line of an earlier session */
    if (!rc) rc = edgeprobe__trace_begin(r, ctl, args, nargs, &already);
    if (rc < 0) {
        edgeprobe__out_error(c, rc, rc == EDGEPROBE_EBUSY ? "another trace session is running" : 0);
        return;
    }
    edgeprobe__out(c, "ok %d %d\n", rc, already);
    if (rc > 0) {
        ctl->tracer = index;
        ctl->dropped = 0;
        c->state = EDGEPROBE__CLIENT_TRACING;
    }
}
/* End the session: switch its probes off, give threads already past a
 * site a grace period, deliver what they wrote (c NULL: discard), then
 * stop routing. */
EDGEPROBE__FN void edgeprobe__trace_end(edgeprobe__root *r, struct edgeprobe__control *ctl, edgeprobe__client *c);
EDGEPROBE__FN void edgeprobe__trace_end(edgeprobe__root *r, struct edgeprobe__control *ctl, edgeprobe__client *c) {
    edgeprobe__lock(&r->lock);
    edgeprobe__trace_switch_off_locked(r, ctl);
    edgeprobe__unlock(&r->lock);
    edgeprobe__trace_unbind_functions(ctl);
    edgeprobe__libc_poll(0, 0, EDGEPROBE__CTL_GRACE_MS);
    edgeprobe__trace_unroute(ctl);
    edgeprobe__trace_drain(ctl, c);
    if (c) edgeprobe__out(c, "dropped %lu\nend\n", __atomic_load_n(&ctl->dropped, __ATOMIC_RELAXED));
    edgeprobe__trace_drain(ctl, 0); /* whatever did not fit */
    ctl->tracer = -1;
}

/* ---- 28.3.1 recording from a shell: `edgeprobe record -p` ----
 *     record start PATH RING_BYTES FLAGS MIN_NS FUNCS EVENTS [DEPTH]
 *                          ok <functions bound + markers marked>
 *     record stop          ok <events lost>
 *     record snapshot PATH ok 0: a flight recorder's rings as they are
 *                          now, to PATH (edgeprobe_record_snapshot; one
 *                          started here or from the environment)
 * FUNCS and EVENTS are comma-separated globs, or "-". FLAGS: the bits of
 * edgeprobe_record_options.flags. The functions matched are bound to the
 * recorder where they are off and free (as `trace` does) and unbound at
 * stop; the markers are marked and switched on (edgeprobe_record_enable),
 * and switched off at stop. The recording runs in the process: its
 * recorder thread writes PATH. */
EDGEPROBE__FN int edgeprobe__record_entry(edgeprobe_func_call *call, void *user); /* section 30 */
EDGEPROBE__FN void edgeprobe__record_exit(const edgeprobe_func_call *call, void *user);
/* The next glob of a comma-separated list (cut in place), or NULL. */
EDGEPROBE__FN char *edgeprobe__next_glob(char **list);
EDGEPROBE__FN char *edgeprobe__next_glob(char **list) {
    char *g = *list, *s;
    if (!g || !*g || edgeprobe__streq(g, "-")) return 0;
    for (s = g; *s && *s != ','; s++) {}
    *list = *s ? s + 1 : 0;
    *s = 0;
    return g;
}
EDGEPROBE__FN int edgeprobe__ctl_record_stop(struct edgeprobe__control *ctl);
EDGEPROBE__FN int edgeprobe__ctl_record_stop(struct edgeprobe__control *ctl) {
    char events[EDGEPROBE__CTL_LINE], *list = events, *g;
    int rc;
    if (!ctl->recording) return EDGEPROBE_ENOENT;
#if EDGEPROBE__HAS_PATCH
    edgeprobe__func_owned("*", EDGEPROBE__FUNC_OP_DETACH, edgeprobe__record_entry);
#endif
    __builtin_memcpy(events, ctl->rec_events, sizeof events);
    while ((g = edgeprobe__next_glob(&list))) (void)edgeprobe_disable(g);
    edgeprobe_handler_sync();
    rc = edgeprobe_record_stop();
    ctl->recording = 0;
    return rc < 0 ? rc : (int)(edgeprobe_record_lost() & 0x7fffffff);
}
EDGEPROBE__FN int edgeprobe__ctl_record_start(struct edgeprobe__control *ctl, char **args, const char *depth);
EDGEPROBE__FN int edgeprobe__ctl_record_start(struct edgeprobe__control *ctl, char **args, const char *depth) {
    edgeprobe_record_options opt;
    char *list, *g;
    int ok_bytes, ok_flags, ok_min, ok_depth = 1, rc, n = 0;
    if (ctl->recording) return EDGEPROBE_EBUSY;
    opt.ring_bytes = (size_t)edgeprobe__parse_u64(args[1], &ok_bytes);
    opt.flags = (unsigned)edgeprobe__parse_u64(args[2], &ok_flags) & (EDGEPROBE_RECORD_ARGS | EDGEPROBE_RECORD_FLIGHT);
    opt.min_ns = edgeprobe__parse_u64(args[3], &ok_min);
    opt.max_depth = depth ? edgeprobe__record_depth(depth, &ok_depth) : 0;
    if (!(ok_bytes && ok_flags && ok_min && ok_depth)) return EDGEPROBE_EINVAL;
    __builtin_memcpy(ctl->rec_events, args[5], edgeprobe__strnlen(args[5], sizeof ctl->rec_events - 1) + 1);
    if ((rc = edgeprobe_record_start(args[0], &opt)) < 0) return rc;
    ctl->recording = 1;
#if EDGEPROBE__HAS_PATCH
    for (list = args[4]; rc >= 0 && (g = edgeprobe__next_glob(&list));)
        if ((rc = edgeprobe__func_bind_op(g, 0, EDGEPROBE__FUNC_OP_BIND_FREE, edgeprobe__record_entry,
                                          edgeprobe__record_exit, 0)) > 0)
            n += rc;
#endif
    for (list = args[5]; rc >= 0 && (g = edgeprobe__next_glob(&list));)
        if ((rc = edgeprobe_record_enable(g)) > 0) n += rc;
    if (rc < 0) (void)edgeprobe__ctl_record_stop(ctl);
    return rc < 0 ? rc : n;
}
EDGEPROBE__FN void edgeprobe__record_request(struct edgeprobe__control *ctl, edgeprobe__client *c, char **args, int nargs);
EDGEPROBE__FN void edgeprobe__record_request(struct edgeprobe__control *ctl, edgeprobe__client *c, char **args, int nargs) {
    int rc, start = (nargs == 8 || nargs == 9) && edgeprobe__streq(args[1], "start");
    int snap = nargs == 3 && edgeprobe__streq(args[1], "snapshot");
    const char *why = 0;
    if (start && args[2][0] != '/') rc = EDGEPROBE_EINVAL, why = "PATH must be absolute (the process's directory is not the client's)";
    else if (start) rc = edgeprobe__ctl_record_start(ctl, args + 2, nargs == 9 ? args[8] : 0);
    else if (nargs == 2 && edgeprobe__streq(args[1], "stop")) rc = edgeprobe__ctl_record_stop(ctl);
    else if (snap && args[2][0] != '/') rc = EDGEPROBE_EINVAL, why = "PATH must be absolute";
    else if (snap) rc = edgeprobe_record_snapshot(args[2]);
    else rc = EDGEPROBE_EINVAL, why = "record start PATH RING_BYTES FLAGS MIN_NS FUNCS EVENTS [DEPTH], record stop, or record snapshot PATH";
    if (rc == EDGEPROBE_EBUSY) why = "a recording is running";
    else if (rc == EDGEPROBE_ENOENT && snap) why = "no flight recorder: no recording runs, or not in flight mode";
    else if (rc == EDGEPROBE_ENOENT) why = start ? "an exact name matches no probe" : "no recording runs";
    if (rc < 0) edgeprobe__out_error(c, rc, why);
    else edgeprobe__out(c, "ok %d\n", rc);
}

/* `detach`: switch off and unbind what the endpoint and its tool switched
 * on (a trace session ends first), then wait for handlers in flight. Return
 * trampolines are code of this object, which is never unloaded (pinned):
 * calls in flight return through them safely, their exit handlers skipped.
 * The endpoint stays up, dormant, for the next `edgeprobe` command. */
EDGEPROBE__FN void edgeprobe__detach_request(edgeprobe__root *r, struct edgeprobe__control *ctl, edgeprobe__client *c);
EDGEPROBE__FN void edgeprobe__detach_request(edgeprobe__root *r, struct edgeprobe__control *ctl, edgeprobe__client *c) {
    int n = 0, ext = 0;
    if (ctl->tracer >= 0) {
        edgeprobe__client *t = &ctl->clients[ctl->tracer];
        edgeprobe__trace_end(r, ctl, t);
        t->state = EDGEPROBE__CLIENT_CLOSING;
    }
    if (ctl->recording) (void)edgeprobe__ctl_record_stop(ctl);
    if (edgeprobe__ctl_ext_detach) ext = edgeprobe__ctl_ext_detach();
#if EDGEPROBE__HAS_PATCH
    if (edgeprobe__ctl_has_functions(r)) {
        n = edgeprobe__func_owned("*", EDGEPROBE__FUNC_OP_DETACH, edgeprobe__ctl_count_entry);
        edgeprobe_handler_sync();
    }
#endif
    if (n < 0) edgeprobe__out_error(c, n, "detach");
    else edgeprobe__out(c, "ok %d\n", n + (ext > 0 ? ext : 0));
}

/* One request line (NUL-terminated, no '\n'). */
EDGEPROBE__FN void edgeprobe__request(edgeprobe__root *r, struct edgeprobe__control *ctl, int index, char *line);
EDGEPROBE__FN void edgeprobe__request(edgeprobe__root *r, struct edgeprobe__control *ctl, int index, char *line) {
    edgeprobe__client *c = &ctl->clients[index];
    char *args[EDGEPROBE__CTL_TRACE_ARGS + 2], *s;
    int nargs = 0, rc;
    for (s = line; *s; s++)
        if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e) {
            edgeprobe__out_error(c, EDGEPROBE_EINVAL, "request holds a byte that is not printable ASCII");
            return;
        }
    for (s = line; *s && nargs < EDGEPROBE__CTL_TRACE_ARGS + 2;) { /* split at spaces */
        while (*s == ' ') *s++ = 0;
        if (*s) args[nargs++] = s;
        while (*s && *s != ' ') s++;
    }
    if (c->state == EDGEPROBE__CLIENT_TRACING) {
        if (nargs == 1 && edgeprobe__streq(args[0], "stop")) {
            edgeprobe__trace_end(r, ctl, c);
            c->state = EDGEPROBE__CLIENT_CLOSING;
        } else
            edgeprobe__out_error(c, EDGEPROBE_EINVAL, "only 'stop' is accepted while tracing");
        return;
    }
    if (!nargs) edgeprobe__out_error(c, EDGEPROBE_EINVAL, "empty request");
    else if (edgeprobe__streq(args[0], "hello") && nargs == 1)
        edgeprobe__out(c, "ok edgeprobe-control 1 %d\n", ctl->pid);
    else if (edgeprobe__streq(args[0], "list") && nargs == 1) {
        c->state = EDGEPROBE__CLIENT_LISTING;
        c->cursor = c->listed = 0;
    } else if ((edgeprobe__streq(args[0], "enable") || edgeprobe__streq(args[0], "disable")) && nargs == 2) {
        rc = edgeprobe__ctl_switch(r, args[1], args[0][0] == 'e');
        if (rc < 0) edgeprobe__out_error(c, rc, args[1]);
        else edgeprobe__out(c, "ok %d\n", rc);
    } else if (edgeprobe__streq(args[0], "trace"))
        edgeprobe__trace_request(r, ctl, index, args + 1, nargs - 1);
    else if (edgeprobe__streq(args[0], "detach") && nargs == 1)
        edgeprobe__detach_request(r, ctl, c);
    else if (edgeprobe__streq(args[0], "record"))
        edgeprobe__record_request(ctl, c, args, nargs);
    else if (!edgeprobe__ctl_ext || (rc = edgeprobe__ctl_ext(args, nargs, c->out + c->out_len, edgeprobe__out_room(c))) < 0)
        edgeprobe__out_error(c, EDGEPROBE_EINVAL, "unknown request or wrong number of arguments");
    else
        c->out_len += (unsigned)rc;
}

/* ---- 28.4 connections ---- */
EDGEPROBE__FN void edgeprobe__client_close(edgeprobe__root *r, struct edgeprobe__control *ctl, int index);
EDGEPROBE__FN void edgeprobe__client_close(edgeprobe__root *r, struct edgeprobe__control *ctl, int index) {
    edgeprobe__client *c = &ctl->clients[index];
    if (ctl->tracer == index) edgeprobe__trace_end(r, ctl, 0); /* killed or gone: restore */
    edgeprobe__libc_close(c->fd);
    c->fd = -1;
    c->state = EDGEPROBE__CLIENT_FREE;
}
/* Handle every complete line in the input buffer (not while a list is
 * being sent: further requests wait for it). */
EDGEPROBE__FN void edgeprobe__client_lines(edgeprobe__root *r, struct edgeprobe__control *ctl, int index);
EDGEPROBE__FN void edgeprobe__client_lines(edgeprobe__root *r, struct edgeprobe__control *ctl, int index) {
    edgeprobe__client *c = &ctl->clients[index];
    while (c->state == EDGEPROBE__CLIENT_REQUEST || c->state == EDGEPROBE__CLIENT_TRACING) {
        unsigned n = 0;
        while (n < c->in_len && c->in[n] != '\n') n++;
        if (n == c->in_len) {
            if (c->in_len == sizeof c->in) { /* no newline in reach: cannot resynchronise */
                edgeprobe__out_error(c, EDGEPROBE_ENAMETOOLONG, "request longer than 511 bytes; closing");
                c->state = EDGEPROBE__CLIENT_CLOSING;
            }
            return;
        }
        /* Replies not yet read: wait. A tracer's buffer is kept full of
         * lines, but its drain always leaves room for a short reply. */
        if (edgeprobe__out_room(c) < (c->state == EDGEPROBE__CLIENT_TRACING ? 256u : 2u * EDGEPROBE__CTL_ROW)) return;
        c->in[n] = 0;
        edgeprobe__request(r, ctl, index, c->in);
        __builtin_memmove(c->in, c->in + n + 1, c->in_len - n - 1);
        c->in_len -= n + 1;
    }
}
EDGEPROBE__FN void edgeprobe__client_read(edgeprobe__root *r, struct edgeprobe__control *ctl, int index, uint64_t now);
EDGEPROBE__FN void edgeprobe__client_read(edgeprobe__root *r, struct edgeprobe__control *ctl, int index, uint64_t now) {
    edgeprobe__client *c = &ctl->clients[index];
    long n;
    if (c->in_len == sizeof c->in) return;
    n = edgeprobe__libc_read(c->fd, c->in + c->in_len, sizeof c->in - c->in_len);
    if (n == 0 || (n < 0 && *edgeprobe__libc_errno() != EDGEPROBE__EAGAIN && *edgeprobe__libc_errno() != EDGEPROBE__EINTR)) {
        edgeprobe__client_close(r, ctl, index);
        return;
    }
    if (n < 0) return;
    c->in_len += (unsigned)n;
    c->active_ms = now;
    if (c->state != EDGEPROBE__CLIENT_CLOSING) edgeprobe__client_lines(r, ctl, index);
}
/* Send what is buffered; never blocks. Returns 0, or -1 if it closed. */
EDGEPROBE__FN int edgeprobe__client_flush(edgeprobe__root *r, struct edgeprobe__control *ctl, int index, uint64_t now);
EDGEPROBE__FN int edgeprobe__client_flush(edgeprobe__root *r, struct edgeprobe__control *ctl, int index, uint64_t now) {
    edgeprobe__client *c = &ctl->clients[index];
    while (c->out_pos < c->out_len) {
        long n = edgeprobe__libc_send(c->fd, c->out + c->out_pos, c->out_len - c->out_pos,
                                      EDGEPROBE__MSG_DONTWAIT | EDGEPROBE__MSG_NOSIGNAL);
        if (n < 0 && (*edgeprobe__libc_errno() == EDGEPROBE__EAGAIN || *edgeprobe__libc_errno() == EDGEPROBE__EINTR))
            return 0;
        if (n <= 0) {
            edgeprobe__client_close(r, ctl, index);
            return -1;
        }
        c->out_pos += (unsigned)n;
        c->active_ms = now;
    }
    c->out_pos = c->out_len = 0;
    if (c->state == EDGEPROBE__CLIENT_CLOSING) {
        edgeprobe__client_close(r, ctl, index);
        return -1;
    }
    return 0;
}
/* Everything a client needs besides reading: produce output, send it,
 * drop it if it has been idle too long (a tracer is never idle). */
EDGEPROBE__FN void edgeprobe__client_pump(edgeprobe__root *r, struct edgeprobe__control *ctl, int index, uint64_t now);
EDGEPROBE__FN void edgeprobe__client_pump(edgeprobe__root *r, struct edgeprobe__control *ctl, int index, uint64_t now) {
    edgeprobe__client *c = &ctl->clients[index];
    int pending, rounds;
    for (rounds = 0; rounds < 64; rounds++) { /* until the socket is full or nothing is left */
        unsigned before = c->out_len;
        edgeprobe__list_more(r, c);
        if (c->state == EDGEPROBE__CLIENT_TRACING) edgeprobe__trace_drain(ctl, c);
        if (c->out_len == before) break;
        if (edgeprobe__client_flush(r, ctl, index, now) < 0) return;
        if (c->out_len) break;
    }
    if (edgeprobe__client_flush(r, ctl, index, now) < 0) return;
    if (c->state == EDGEPROBE__CLIENT_REQUEST) edgeprobe__client_lines(r, ctl, index); /* after a list */
    pending = c->out_len > 0 || c->state == EDGEPROBE__CLIENT_LISTING;
    if ((c->state != EDGEPROBE__CLIENT_TRACING || pending) && now - c->active_ms > EDGEPROBE__CTL_IDLE_MS)
        edgeprobe__client_close(r, ctl, index);
}
/* Accept every waiting connection: check the peer's uid, find a slot. */
EDGEPROBE__FN void edgeprobe__accept_all(struct edgeprobe__control *ctl, uint64_t now);
EDGEPROBE__FN void edgeprobe__accept_all(struct edgeprobe__control *ctl, uint64_t now) {
    int fd, i;
    while ((fd = edgeprobe__libc_accept4(ctl->listen_fd, 0, 0, EDGEPROBE__SOCK_NONBLOCK | EDGEPROBE__SOCK_CLOEXEC)) >= 0) {
        edgeprobe__ucred cred = {0, 0xffffffffu, 0};
        unsigned len = sizeof cred;
        char msg[160];
        if (edgeprobe__libc_getsockopt(fd, EDGEPROBE__SOL_SOCKET, EDGEPROBE__SO_PEERCRED, &cred, &len) ||
            (cred.uid != 0 && cred.uid != ctl->uid)) {
            edgeprobe__snprintf(msg, sizeof msg, "control: refused a client of uid %u (pid %d): not this process's user",
                                cred.uid, cred.pid);
            EDGEPROBE_OS_LOG(msg);
            edgeprobe__snprintf(msg, sizeof msg, "error EDGEPROBE_EPERM %s\n", edgeprobe_strerror(EDGEPROBE_EPERM));
            edgeprobe__libc_send(fd, msg, edgeprobe__strnlen(msg, sizeof msg), EDGEPROBE__MSG_DONTWAIT | EDGEPROBE__MSG_NOSIGNAL);
            edgeprobe__libc_close(fd);
            continue;
        }
        for (i = 0; i < EDGEPROBE__CTL_CLIENTS && ctl->clients[i].state != EDGEPROBE__CLIENT_FREE; i++) {}
        if (i == EDGEPROBE__CTL_CLIENTS) {
            edgeprobe__snprintf(msg, sizeof msg, "error EDGEPROBE_EBUSY too many control clients; try again\n");
            edgeprobe__libc_send(fd, msg, edgeprobe__strnlen(msg, sizeof msg), EDGEPROBE__MSG_DONTWAIT | EDGEPROBE__MSG_NOSIGNAL);
            edgeprobe__libc_close(fd);
            continue;
        }
        __builtin_memset(&ctl->clients[i], 0, sizeof ctl->clients[i] - sizeof ctl->clients[i].out);
        ctl->clients[i].fd = fd;
        ctl->clients[i].state = EDGEPROBE__CLIENT_REQUEST;
        ctl->clients[i].active_ms = now;
    }
}
/* The control thread. */
EDGEPROBE__FN void *edgeprobe__control_main(void *arg);
EDGEPROBE__FN void *edgeprobe__control_main(void *arg) {
    edgeprobe__root *r = (edgeprobe__root *)arg;
    struct edgeprobe__control *ctl = r->control;
    edgeprobe__pollfd fds[1 + EDGEPROBE__CTL_CLIENTS];
    int who[1 + EDGEPROBE__CTL_CLIENTS];
    for (;;) {
        int n = 1, i;
        uint64_t now;
        fds[0].fd = ctl->listen_fd;
        fds[0].events = EDGEPROBE__POLLIN;
        for (i = 0; i < EDGEPROBE__CTL_CLIENTS; i++) {
            edgeprobe__client *c = &ctl->clients[i];
            if (c->state == EDGEPROBE__CLIENT_FREE) continue;
            fds[n].fd = c->fd;
            fds[n].events = (short)((c->in_len < sizeof c->in ? EDGEPROBE__POLLIN : 0) |
                                    (c->out_len ? EDGEPROBE__POLLOUT : 0));
            who[n++] = i;
        }
        if (edgeprobe__libc_poll(fds, (unsigned long)n, ctl->tracer >= 0 ? EDGEPROBE__CTL_TICK_MS : 1000) < 0) {
            if (*edgeprobe__libc_errno() != EDGEPROBE__EINTR) return 0; /* cannot happen with valid fds */
            continue;
        }
        if (edgeprobe__control_get() != ctl) return 0; /* cannot happen: a child has no such thread */
        now = edgeprobe__now_ms();
        if (fds[0].revents) edgeprobe__accept_all(ctl, now);
        for (i = 1; i < n; i++)
            if (fds[i].revents & ~EDGEPROBE__POLLOUT && ctl->clients[who[i]].state != EDGEPROBE__CLIENT_FREE)
                edgeprobe__client_read(r, ctl, who[i], now);
        for (i = 0; i < EDGEPROBE__CTL_CLIENTS; i++)
            if (ctl->clients[i].state != EDGEPROBE__CLIENT_FREE) edgeprobe__client_pump(r, ctl, i, now);
    }
}

/* ---- 28.5 start, exit, fork ---- */
EDGEPROBE__FN void edgeprobe__control_atexit(void);
EDGEPROBE__FN void edgeprobe__control_atexit(void) {
    struct edgeprobe__control *ctl = edgeprobe__control_get();
    if (ctl && ctl->pid == edgeprobe__libc_getpid()) edgeprobe__libc_unlink(ctl->at);
}
/* In a forked child (one thread, the parent's lock state unknown): close
 * the inherited sockets and forget the endpoint; take no lock. */
EDGEPROBE__FN void edgeprobe__control_forked(void);
EDGEPROBE__FN void edgeprobe__control_forked(void) {
    edgeprobe__root *r = __atomic_load_n(&edgeprobe__this_object.root, __ATOMIC_ACQUIRE);
    struct edgeprobe__control *ctl = r ? r->control : 0;
    int i;
    if (!ctl || ctl->pid == edgeprobe__libc_getpid()) return;
    edgeprobe__libc_close(ctl->listen_fd);
    for (i = 0; i < EDGEPROBE__CTL_CLIENTS; i++)
        if (ctl->clients[i].state != EDGEPROBE__CLIENT_FREE) edgeprobe__libc_close(ctl->clients[i].fd);
    for (i = 0; i < ctl->ntraced; i++) __atomic_store_n(&ctl->traced[i]->routed, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&r->control, (struct edgeprobe__control *)0, __ATOMIC_RELEASE); /* ctl leaks, once */
}
/* The private directory: created 0700, or checked to be ours; returns its
 * descriptor (kept open: every later use goes through it, so a directory
 * renamed or replaced after the check is never the one used), or an error. */
EDGEPROBE__FN int edgeprobe__control_dir(char *dir, size_t cap);
EDGEPROBE__FN int edgeprobe__control_dir(char *dir, size_t cap) {
    const char *xdg = EDGEPROBE__GETENV("XDG_RUNTIME_DIR");
    unsigned char st[256]; /* struct stat: mode and uid at 24 and 28 (x86-64), 16 and 24 (aarch64) */
    unsigned mode, uid;
    char msg[300];
    int fd, n;
    if (xdg && xdg[0] == '/') n = edgeprobe__snprintf(dir, cap, EDGEPROBE_CONTROL_DIR_XDG, xdg);
    else n = edgeprobe__snprintf(dir, cap, EDGEPROBE_CONTROL_DIR_TMP, edgeprobe__libc_geteuid());
    if (n < 0 || (size_t)n >= cap) return EDGEPROBE_EINVAL;
    if (edgeprobe__libc_mkdir(dir, 0700) && *edgeprobe__libc_errno() != EDGEPROBE__EEXIST) return EDGEPROBE_EPERM;
    fd = edgeprobe__libc_open(dir, EDGEPROBE__O_DIRECTORY_NOFOLLOW); /* never through a symlink */
    if (fd < 0) return EDGEPROBE_EPERM;
    n = edgeprobe__libc_fstat(fd, st);
    __builtin_memcpy(&mode, st + EDGEPROBE__ST_MODE, 4);
    __builtin_memcpy(&uid, st + EDGEPROBE__ST_UID, 4);
    if (n || (mode & EDGEPROBE__S_IFMT) != EDGEPROBE__S_IFDIR || uid != edgeprobe__libc_geteuid() || (mode & 077)) {
        edgeprobe__libc_close(fd);
        edgeprobe__snprintf(msg, sizeof msg, "control: %s is not a directory of this user closed to others; not serving", dir);
        EDGEPROBE_OS_LOG(msg);
        return EDGEPROBE_EPERM;
    }
    return fd;
}
/* Create, bind and listen on the socket; fill ctl. */
EDGEPROBE__FN int edgeprobe__control_listen(struct edgeprobe__control *ctl);
EDGEPROBE__FN int edgeprobe__control_listen(struct edgeprobe__control *ctl) {
    edgeprobe__sockaddr_un addr;
    char dir[sizeof addr.path], fd_dir[32];
    int dir_fd = edgeprobe__control_dir(dir, sizeof dir - 16), n;
    if (dir_fd < 0) return dir_fd;
    ctl->pid = edgeprobe__libc_getpid();
    ctl->uid = edgeprobe__libc_geteuid();
    edgeprobe__snprintf(fd_dir, sizeof fd_dir, "/proc/self/fd/%d", dir_fd);
    n = edgeprobe__snprintf(ctl->path, sizeof ctl->path, EDGEPROBE_CONTROL_SOCKET, dir, ctl->pid);
    if (n > 0 && (size_t)n < sizeof ctl->path)
        n = edgeprobe__snprintf(ctl->at, sizeof ctl->at, EDGEPROBE_CONTROL_SOCKET, fd_dir, ctl->pid);
    if (n < 0 || (size_t)n >= sizeof ctl->at) {
        edgeprobe__libc_close(dir_fd);
        return EDGEPROBE_EINVAL;
    }
    __builtin_memset(&addr, 0, sizeof addr);
    addr.family = EDGEPROBE__AF_UNIX;
    __builtin_memcpy(addr.path, ctl->at, (size_t)n + 1);
    edgeprobe__libc_unlink(ctl->at); /* a stale socket of an earlier process with our pid */
    ctl->listen_fd = edgeprobe__libc_socket(EDGEPROBE__AF_UNIX,
                                            EDGEPROBE__SOCK_STREAM | EDGEPROBE__SOCK_NONBLOCK | EDGEPROBE__SOCK_CLOEXEC, 0);
    if (ctl->listen_fd < 0 || edgeprobe__libc_bind(ctl->listen_fd, &addr, sizeof addr) ||
        edgeprobe__libc_listen(ctl->listen_fd, 64)) {
        if (ctl->listen_fd >= 0) edgeprobe__libc_close(ctl->listen_fd);
        edgeprobe__libc_unlink(ctl->at);
        edgeprobe__libc_close(dir_fd);
        return EDGEPROBE_EPROT;
    }
    return 0;
}
/* The thread, with the asynchronous signals blocked (edgeprobe__thread_start);
 * its object pinned by the caller (dlclose must not unmap the code it runs). */
EDGEPROBE__FN int edgeprobe__control_thread(edgeprobe__root *r);
EDGEPROBE__FN int edgeprobe__control_thread(edgeprobe__root *r) {
    unsigned long thread;
    if (edgeprobe__thread_start(&thread, edgeprobe__control_main, r)) return EDGEPROBE_ENOMEM;
    edgeprobe__libc_pthread_setname_np(thread, "edgeprobe-ctl");
    edgeprobe__libc_pthread_detach(thread);
    return 0;
}
EDGEPROBE__FN int edgeprobe_control_start(void) {
    struct edgeprobe__control *ctl;
    int rc, i;
    EDGEPROBE__READY_OR_RETURN(r);
    edgeprobe__pin_self(); /* the thread runs this object's code; not under the lock */
    edgeprobe__lock(&r->lock);
    if (r->control) {
        edgeprobe__unlock(&r->lock);
        return 0;
    }
    ctl = (struct edgeprobe__control *)EDGEPROBE_OS_ALLOC(sizeof *ctl);
    rc = ctl ? edgeprobe__control_listen(ctl) : EDGEPROBE_ENOMEM;
    if (!rc) {
        ctl->tracer = -1;
        for (i = 0; i < EDGEPROBE__CTL_CLIENTS; i++) ctl->clients[i].fd = -1;
        __atomic_store_n(&r->control, ctl, __ATOMIC_RELEASE);
        rc = edgeprobe__control_thread(r);
        if (rc) {
            __atomic_store_n(&r->control, (struct edgeprobe__control *)0, __ATOMIC_RELEASE);
            edgeprobe__libc_close(ctl->listen_fd);
            edgeprobe__libc_unlink(ctl->at);
        }
    }
    edgeprobe__unlock(&r->lock);
    if (rc) {
        if (ctl) EDGEPROBE_OS_FREE(ctl);
        return rc;
    }
    edgeprobe__libc_atexit(edgeprobe__control_atexit);
    edgeprobe__libc_pthread_atfork(0, 0, edgeprobe__control_forked);
    return 1;
}
EDGEPROBE__FN const char *edgeprobe_control_path(void) {
    struct edgeprobe__control *ctl = edgeprobe__control_get();
    return ctl ? ctl->path : 0;
}
/* EDGEPROBE_CONTROL=1: start before main (after this object's sites are
 * registered by the priority-101 constructor). */
__attribute__((EDGEPROBE__NOPATCH weak, visibility("hidden"), no_instrument_function, constructor(102)))
void edgeprobe__control_autostart(void);
__attribute__((EDGEPROBE__NOPATCH weak, visibility("hidden"), no_instrument_function, constructor(102)))
void edgeprobe__control_autostart(void) {
    const char *s = EDGEPROBE__GETENV("EDGEPROBE_CONTROL");
    char msg[160];
    int rc;
    if (!s || !*s || edgeprobe__streq(s, "0")) return;
    if (!edgeprobe__streq(s, "1")) {
        EDGEPROBE_OS_LOG("EDGEPROBE_CONTROL must be 1 or 0; ignored");
        return;
    }
    if ((rc = edgeprobe_control_start()) < 0) {
        edgeprobe__snprintf(msg, sizeof msg, "EDGEPROBE_CONTROL=1: no control endpoint: %s", edgeprobe_strerror(rc));
        EDGEPROBE_OS_LOG(msg);
    }
}
#endif /* !EDGEPROBE_FREESTANDING: section 8 */
#if defined(__x86_64__) /* section 7 is x86-64 only: its stubs and trampoline */

/* ======================================================================
 * 29. ARGUMENT PROBES: the argsite, the trampoline, argument locations and
 * TRACE lines (x86-64; section 7)                              >>args-impl
 * ====================================================================== */
/* ---- 29.1 the argsite                                       >>argsite ---- */
/* The argument as an rvalue: arrays decay, small types are promoted, and
 * gcc never offers a global's own memory operand (`var(%rip)`, a symbol
 * the run-time parser cannot resolve). In C the conditional does that
 * without arithmetic on void pointers, which -Wpointer-arith flags. */
/* Where an argument may live at the site. clang takes the first register
 * class it finds and, offered memory, spills every value to the stack (one
 * store per argument on the hot path), so clang gets registers and
 * constants only. gcc keeps values where they are. TRACE's floating-point
 * values: gcc leaves them in their xmm register ("x"); clang moves the bits
 * to a general register (one movq). */

/* The System V x86-64 red zone. Tests build a mutant with a smaller step,
 * which the red-zone test must catch. */

/* ---- 29.2 the trampoline (x86-64; one per object and variant) >>args-tramp ----
 * Entered from a stub with %rsp = site %rsp - 128 - 8. Frame it builds:
 *     regs[16] (by x86 register number: rax rcx rdx rbx rsp rbp rsi rdi
 *     r8..r15; the rsp slot holds the site's %rsp), return address
 * rflags are not kept: gcc and clang treat every x86 asm statement as
 * clobbering the flags, so no compiled code relies on them across a site,
 * and popfq alone cost a third of the enabled path here. DF is clear, as
 * the ABI requires at every call and asm boundary. %rbx (callee-saved)
 * keeps the frame across the C call.
 *
 * Vector registers are saved because the handler is ordinary C, and the
 * libc it calls (printf for TRACE) uses AVX or AVX-512 where the CPU has
 * them, vzeroupper included. Which registers can hold live values at a site
 * is known only at run time (LTO, target attributes and ifuncs mix code of
 * every width in one function), so every variant is here, and the stubs
 * call the one that covers what the CPU and OS enable (XCR0, section 11.1)
 * through edgeprobe__args_tramp_ptr, into an area aligned below the frame:
 *     edgeprobe__args_tramp              xmm0-15          16 x 16 bytes
 *     edgeprobe__args_tramp_ymm          ymm0-15 (AVX)    16 x 32
 *     edgeprobe__args_tramp_zmm[_bw]     zmm0-31, k0-7    32 x 64 + 8 x 8
 *                                        (AVX-512F; _bw: 64-bit masks)
 * Not covered: x87 registers held across a site (the handler must not use
 * long double). edgeprobe__args_hit gets the area and its stride, to read
 * TRACE's floating-point arguments from xmm registers. */
#define EDGEPROBE__VEC16(m) m(0) m(1) m(2) m(3) m(4) m(5) m(6) m(7) m(8) m(9) m(10) m(11) m(12) m(13) m(14) m(15)
#define EDGEPROBE__VEC32(m)                                                    \
    EDGEPROBE__VEC16(m) m(16) m(17) m(18) m(19) m(20) m(21) m(22) m(23) m(24) m(25) m(26) m(27) m(28) \
        m(29) m(30) m(31)
#define EDGEPROBE__KREGS(m) m(0) m(1) m(2) m(3) m(4) m(5) m(6) m(7)
#define EDGEPROBE__XMM_SAVE(n) "movdqa %xmm" #n ", " #n "*16(%rsp)\n"
#define EDGEPROBE__XMM_LOAD(n) "movdqa " #n "*16(%rsp), %xmm" #n "\n"
#define EDGEPROBE__YMM_SAVE(n) "vmovdqa %ymm" #n ", " #n "*32(%rsp)\n"
#define EDGEPROBE__YMM_LOAD(n) "vmovdqa " #n "*32(%rsp), %ymm" #n "\n"
#define EDGEPROBE__ZMM_SAVE(n) "vmovdqa64 %zmm" #n ", " #n "*64(%rsp)\n"
#define EDGEPROBE__ZMM_LOAD(n) "vmovdqa64 " #n "*64(%rsp), %zmm" #n "\n"
#define EDGEPROBE__KW_SAVE(n) "kmovw %k" #n ", 2048+" #n "*8(%rsp)\n"
#define EDGEPROBE__KW_LOAD(n) "kmovw 2048+" #n "*8(%rsp), %k" #n "\n"
#define EDGEPROBE__KQ_SAVE(n) "kmovq %k" #n ", 2048+" #n "*8(%rsp)\n"
#define EDGEPROBE__KQ_LOAD(n) "kmovq 2048+" #n "*8(%rsp), %k" #n "\n"
/* Site %rsp, seen from the pushed registers: 16 regs + return + red zone */
#define EDGEPROBE__ARGS_FRAME (136 + EDGEPROBE__RED_ZONE)
/* The recorded probe's fast path: before any vector register is saved,
 * edgeprobe__args_record_fast (compiled without them) records the event and
 * returns 1 when nothing else is due; the trampoline then restores only the
 * general registers (label 1). 0: the whole path below. */
#if EDGEPROBE__RECORD_FAST
#define EDGEPROBE__ARGS_FAST_ASM                                               \
    "mov %rbx, %rdi\n"                                                         \
    "mov 128(%rbx), %rsi\n"                                                    \
    "and $-16, %rsp\n"                                                         \
    "call edgeprobe__args_record_fast\n"                                       \
    "test %eax, %eax\n"                                                        \
    "jnz 1f\n"
#else
#define EDGEPROBE__ARGS_FAST_ASM ""
#endif
/* One variant: its name, the area's alignment, size and stride (strings),
 * and the save and restore sequences (for ymm and zmm, the restore chooses
 * as section 27.1 draws; its flag is the byte after the area). */
#define EDGEPROBE__ARGS_TRAMP_ASM(name, align, area, stride, save, load)        \
    ".pushsection .text." name ",\"axG\",@progbits," name ",comdat\n"          \
    ".weak " name "\n.hidden " name "\n.type " name ", @function\n"             \
    name ":\n"                                                                 \
    "push %r15\npush %r14\npush %r13\npush %r12\npush %r11\npush %r10\npush %r9\npush %r8\n" \
    "push %rdi\npush %rsi\npush %rbp\n"                                        \
    "lea -8(%rsp), %rsp\n"                                                     \
    "push %rbx\npush %rdx\npush %rcx\npush %rax\n"                             \
    "lea " EDGEPROBE__STR(EDGEPROBE__ARGS_FRAME) "(%rsp), %rax\n"              \
    "mov %rax, 32(%rsp)\n"                                                     \
    "mov %rsp, %rbx\n"                                                         \
    EDGEPROBE__ARGS_FAST_ASM                                                   \
    "and $-" align ", %rsp\n"                                                  \
    "sub $" area "+64, %rsp\n"                                                 \
    save                                                                       \
    "mov %rbx, %rdi\n"                                                         \
    "mov 128(%rbx), %rsi\n"                                                    \
    "mov %rsp, %rdx\n"                                                         \
    "mov $" stride ", %ecx\n"                                                  \
    "call edgeprobe__args_hit\n"                                               \
    load                                                                       \
    "1:\n"                                                                     \
    "mov %rbx, %rsp\n"                                                         \
    "pop %rax\npop %rcx\npop %rdx\npop %rbx\n"                                 \
    "lea 8(%rsp), %rsp\n"                                                      \
    "pop %rbp\npop %rsi\npop %rdi\n"                                           \
    "pop %r8\npop %r9\npop %r10\npop %r11\npop %r12\npop %r13\npop %r14\npop %r15\n" \
    "ret\n"                                                                    \
    ".size " name ", . - " name "\n"                                           \
    ".popsection\n"
/* Registers 0-15 OR-ed into register 8 (which holds its own value
 * already), for the upper-halves check. */
#define EDGEPROBE__BUT8(m) m(0) m(1) m(2) m(3) m(4) m(5) m(6) m(7) m(9) m(10) m(11) m(12) m(13) m(14) m(15)
#define EDGEPROBE__XMM_LOAD_AT(n, w) "movdqa " #n "*" #w "(%rsp), %xmm" #n "\n"
#define EDGEPROBE__XMM_LOAD32(n) EDGEPROBE__XMM_LOAD_AT(n, 32)
#define EDGEPROBE__XMM_LOAD64(n) EDGEPROBE__XMM_LOAD_AT(n, 64)
#define EDGEPROBE__ZMM_HI16(m) m(16) m(17) m(18) m(19) m(20) m(21) m(22) m(23) m(24) m(25) m(26) m(27) m(28) m(29) m(30) m(31)
/* The zmm variants differ in their mask moves (kmovq with AVX512BW). */
#define EDGEPROBE__ARGS_TRAMP_ZMM(name, kmask_save, kmask_load)                \
    EDGEPROBE__ARGS_TRAMP_ASM(name, "64", "2112", "64",                        \
                              EDGEPROBE__VEC32(EDGEPROBE__ZMM_SAVE) EDGEPROBE__KREGS(kmask_save) \
                                  EDGEPROBE__UPPERS_Z(8, EDGEPROBE__BUT8(EDGEPROBE__ORZ), "2112(%rsp)"), \
                              EDGEPROBE__RESTORE_UPPERS("2112(%rsp)",          \
                                  EDGEPROBE__VEC16(EDGEPROBE__XMM_LOAD64)      \
                                      EDGEPROBE__ZMM_HI16(EDGEPROBE__ZMM_LOAD) EDGEPROBE__KREGS(kmask_load), \
                                  EDGEPROBE__VEC32(EDGEPROBE__ZMM_LOAD) EDGEPROBE__KREGS(kmask_load)))
__asm__(EDGEPROBE__ARGS_TRAMP_ZMM("edgeprobe__args_tramp_zmm_bw", EDGEPROBE__KQ_SAVE, EDGEPROBE__KQ_LOAD));
__asm__(EDGEPROBE__ARGS_TRAMP_ZMM("edgeprobe__args_tramp_zmm", EDGEPROBE__KW_SAVE, EDGEPROBE__KW_LOAD));
__asm__(EDGEPROBE__ARGS_TRAMP_ASM("edgeprobe__args_tramp_ymm", "32", "512", "32",
                                  EDGEPROBE__VEC16(EDGEPROBE__YMM_SAVE)
                                      EDGEPROBE__UPPERS_Y(8, EDGEPROBE__BUT8(EDGEPROBE__ORY), "512(%rsp)"),
                                  EDGEPROBE__RESTORE_UPPERS("512(%rsp)", EDGEPROBE__VEC16(EDGEPROBE__XMM_LOAD32),
                                                            EDGEPROBE__VEC16(EDGEPROBE__YMM_LOAD))));
__asm__(EDGEPROBE__ARGS_TRAMP_ASM("edgeprobe__args_tramp", "16", "256", "16", EDGEPROBE__VEC16(EDGEPROBE__XMM_SAVE),
                                  EDGEPROBE__VEC16(EDGEPROBE__XMM_LOAD)));
extern const char edgeprobe__args_tramp[], edgeprobe__args_tramp_ymm[], edgeprobe__args_tramp_zmm[],
    edgeprobe__args_tramp_zmm_bw[] __attribute__((visibility("hidden")));
/* What the stubs call (section 11.6); the narrowest variant until
 * edgeprobe__args_tramp_choose has run, which is before any argument site
 * is first switched on. `used`: only asm text names it, so gcc's LTO would
 * otherwise make it local to one partition and the stubs in another would
 * not link (seen with two LTRANS partitions of tests/t_core.c). */
__attribute__((weak, used, visibility("hidden"))) const void *edgeprobe__args_tramp_ptr = edgeprobe__args_tramp;
/* The variant for what the CPU and OS enable: 0 xmm, 1 ymm, 2 zmm with
 * 16-bit masks, 3 zmm with 64-bit masks (AVX512BW). Tests build mutants
 * with EDGEPROBE__ARGS_VEC set to too narrow a variant, which they must
 * catch. */
EDGEPROBE__FN void edgeprobe__args_tramp_choose(void);
EDGEPROBE__FN void edgeprobe__args_tramp_choose(void) {
    static const char *const variants[] = {edgeprobe__args_tramp, edgeprobe__args_tramp_ymm,
                                           edgeprobe__args_tramp_zmm, edgeprobe__args_tramp_zmm_bw};
#ifdef EDGEPROBE__ARGS_VEC
    int v = EDGEPROBE__ARGS_VEC;
#else
    int w = edgeprobe__vector_width();
    int v = w == 64 ? 2 + edgeprobe__cpu_has_avx512bw() : w == 32 ? 1 : 0;
#endif
    __atomic_store_n(&edgeprobe__args_tramp_ptr, (const void *)variants[v], __ATOMIC_RELEASE);
}

/* ---- 29.3 argument locations                         >>args-locate ----
 * The argsite the marker emitted (24-byte header, nargs locations, spec):
 *     .long mark - ., nargs, status, 0      status: 0 new, 1 parsed, <0 error
 *     .long fmt - ., sink - .               TRACE (section 29.4) only; PROBE: 0, 0
 *     .fill 2 * nargs, 8, 0                 edgeprobe__argloc, filled at
 *     .asciz "spec"                         registration from the spec
 *     movq OPERAND, %r11    (one per argument: EDGEPROBE__LOCATE1)
 * A location is a register, a constant, a memory operand, or (TRACE's
 * floating-point values under gcc) an xmm register. */
enum {
    EDGEPROBE__LOC_CONST = 1, EDGEPROBE__LOC_REG, EDGEPROBE__LOC_REG_HIGH8, EDGEPROBE__LOC_MEM, EDGEPROBE__LOC_XMM,
    EDGEPROBE__LOC_MEM_SYMBOL /* while parsing: a displacement the spec names by symbol */
};
#define EDGEPROBE__NOREG 0xff
#define EDGEPROBE__RIP 0xfe /* while parsing: "(%rip)" */
#define EDGEPROBE__REG_SP 4
typedef struct edgeprobe__argloc {
    signed char size;            /* bytes; negative: signed                 */
    unsigned char kind, base, index, scale, pad[3];
    int64_t value;               /* the constant, or the displacement      */
} edgeprobe__argloc;
typedef struct edgeprobe__argsite {
    int32_t mark;   /* the marker's mark, relative to this field           */
    uint32_t nargs;
    int32_t status;
    uint32_t pad;
    int32_t format; /* TRACE: its format string, relative to this field   */
    int32_t sink;   /* TRACE: the TU's sink function, likewise             */
} edgeprobe__argsite;
/* Distance from the return address of the stub's call back to its data. */
#define EDGEPROBE__STUB_DATA_BACK 15 /* .long (4) + lea (5) + call *ptr(%rip) (6) */

EDGEPROBE__INLINE_GPR edgeprobe__argloc *edgeprobe__argsite_locs(edgeprobe__argsite *as) {
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
    } else if (p[0] == '%' && p[1] == 'x' && p[2] == 'm' && p[3] == 'm') {
        int64_t n;
        p += 4;
        if (edgeprobe__parse_int(&p, &n) || n < 0 || n > 15) return -1; /* "x": xmm0-15 */
        loc->kind = EDGEPROBE__LOC_XMM;
        loc->base = (unsigned char)n;
    } else if (*p == '%') {
        p++;
        if ((reg = edgeprobe__reg_number(&p, &high)) < 0) return -1;
        loc->kind = (unsigned char)(high ? EDGEPROBE__LOC_REG_HIGH8 : EDGEPROBE__LOC_REG);
        loc->base = (unsigned char)reg;
    } else {
        const char *disp = p;
        loc->kind = EDGEPROBE__LOC_MEM;
        if (*p != '(' && (edgeprobe__parse_int(&p, &loc->value) || *p != '(')) {
            for (p = disp; *p && *p != '(' && *p != ' '; p++) {} /* "counter+8": see edgeprobe__argsite_locate */
            loc->kind = EDGEPROBE__LOC_MEM_SYMBOL;
            loc->value = 0;
        }
        if (*p++ != '(') return -1;
        if (p[0] == '%' && p[1] == 'r' && p[2] == 'i' && p[3] == 'p' && p[4] == ')') {
            p += 4;
            loc->base = EDGEPROBE__RIP;
        } else if (*p == '%') {
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
/* Displacements the spec names by symbol, from the instructions that follow
 * it: the linker put the address in each one's displacement (relative to
 * the instruction's end for %rip). Every instruction is decoded, so each
 * argument meets its own. */
EDGEPROBE__FN int edgeprobe__argsite_locate(edgeprobe__argsite *as, const unsigned char *insn);
EDGEPROBE__FN int edgeprobe__argsite_locate(edgeprobe__argsite *as, const unsigned char *insn) {
    edgeprobe__argloc *loc = edgeprobe__argsite_locs(as);
    unsigned i;
    for (i = 0; i < as->nargs; i++) {
        edgeprobe__insn_disp d;
        size_t len = edgeprobe__insn_decode(insn, 15, &d);
        int32_t disp;
        if (!len) return -1;
        if (loc[i].kind == EDGEPROBE__LOC_MEM_SYMBOL) {
            if (d.disp32_at < 0 || d.rip_relative != (loc[i].base == EDGEPROBE__RIP)) return -1;
            __builtin_memcpy(&disp, insn + d.disp32_at, 4);
            loc[i].value = d.rip_relative ? (int64_t)(uintptr_t)(insn + len) + disp : (int64_t)disp;
            loc[i].kind = EDGEPROBE__LOC_MEM;
            if (loc[i].base == EDGEPROBE__RIP) loc[i].base = EDGEPROBE__NOREG; /* an absolute address now */
        } else if (loc[i].base == EDGEPROBE__RIP) {
            return -1; /* "(%rip)" without a symbol: never emitted */
        }
        insn += len;
    }
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
    return *p || edgeprobe__argsite_locate(as, (const unsigned char *)p + 1) ? EDGEPROBE_EINVAL : 0;
}
EDGEPROBE__FN const char *edgeprobe__trace_format_refused(const char *fmt, unsigned nargs); /* section 29.4 */
/* Before a site is first switched on (section 18): parse its spec once; a TRACE
 * site's format must also suit its arguments. A site that fails is
 * refused (EDGEPROBE_EINVAL) every time, logged once. Lock held. */
EDGEPROBE__FN int edgeprobe__args_prepare_locked(edgeprobe__root *r, const edgeprobe__site *s) {
    EDGEPROBE__ASSERT_LOCKED(r);
    edgeprobe__argsite *as = (edgeprobe__argsite *)edgeprobe__rel((const int32_t *)(s->target - 4));
    const char *why = 0;
    char buf[512];
    edgeprobe__text t = {buf, sizeof buf, 0};
    if (as->status) return as->status < 0 ? as->status : 0;
    edgeprobe__args_tramp_choose(); /* before the first argument site can be entered */
    as->status = edgeprobe__argsite_parse(as) ? EDGEPROBE_EINVAL : 1;
    if (as->status >= 0 && !(as->format && (why = edgeprobe__trace_format_refused(
                                                 (const char *)edgeprobe__rel(&as->format), as->nargs))))
        return 0;
    as->status = EDGEPROBE_EINVAL;
    /* "EDGEPROBE_TRACE tick (server.c:42): refused: <why>" */
    edgeprobe__puts(&t, as->format ? "EDGEPROBE_TRACE " : "EDGEPROBE_PROBE ");
    edgeprobe__puts(&t, s->point->name);
    edgeprobe__puts(&t, " (");
    edgeprobe__puts(&t, s->point->file ? s->point->file : "?");
    edgeprobe__puts(&t, ":");
    edgeprobe__putdec(&t, s->point->line);
    edgeprobe__puts(&t, "): refused: ");
    if (why) {
        edgeprobe__puts(&t, why);
    } else {
        edgeprobe__puts(&t, "cannot read its argument locations \"");
        edgeprobe__puts(&t, edgeprobe__argsite_spec(as));
        edgeprobe__puts(&t, "\"");
    }
    edgeprobe__log(r, buf);
    return EDGEPROBE_EINVAL;
}

/* The registers a stub's trampoline saved: general ones by number, and the
 * vector area (vec, one register every `stride` bytes). */
typedef struct edgeprobe__saved {
    const uint64_t *regs;
    const unsigned char *vec;
    unsigned stride;
} edgeprobe__saved;
/* 1, 2, 4 or 8 bytes at any alignment, as plain loads: a memcpy of a
 * variable size may be a call to the C library's, which uses vector
 * registers (the fast path above must not). */
typedef uint64_t __attribute__((aligned(1), may_alias)) edgeprobe__u64_any;
typedef uint32_t __attribute__((aligned(1), may_alias)) edgeprobe__u32_any;
typedef uint16_t __attribute__((aligned(1), may_alias)) edgeprobe__u16_any;
EDGEPROBE__INLINE_GPR uint64_t edgeprobe__load_bytes(const void *p, unsigned bytes) {
    switch (bytes) {
    case 1: return *(const unsigned char *)p;
    case 2: return *(const edgeprobe__u16_any *)p;
    case 4: return *(const edgeprobe__u32_any *)p;
    default: return *(const edgeprobe__u64_any *)p;
    }
}
/* One argument's value from the saved registers and the stack. */
EDGEPROBE__INLINE_GPR uint64_t edgeprobe__arg_read(const edgeprobe__argloc *loc, const edgeprobe__saved *saved) {
    const uint64_t *regs = saved->regs;
    unsigned bytes = (unsigned)(loc->size < 0 ? -loc->size : loc->size), shift = 64 - 8 * bytes;
    uint64_t v = 0;
    switch (loc->kind) {
    case EDGEPROBE__LOC_CONST: v = (uint64_t)loc->value; break;
    case EDGEPROBE__LOC_REG: v = regs[loc->base]; break;
    case EDGEPROBE__LOC_REG_HIGH8: v = regs[loc->base] >> 8; break;
    case EDGEPROBE__LOC_XMM: v = edgeprobe__load_bytes(saved->vec + loc->base * saved->stride, 8); break;
    default: {
        uintptr_t a = (uintptr_t)loc->value;
        if (loc->base != EDGEPROBE__NOREG) a += regs[loc->base];
        if (loc->index != EDGEPROBE__NOREG) a += regs[loc->index] * loc->scale;
        v = edgeprobe__load_bytes((const void *)a, bytes);
    }
    }
    if (bytes == 8) return v;
    v <<= shift; /* keep the low `bytes`, then extend by the type's sign */
    return loc->size < 0 ? (uint64_t)((int64_t)v >> shift) : v >> shift;
}
/* Every argument of a site, from its locations. */
EDGEPROBE__INLINE_GPR int edgeprobe__args_read(edgeprobe__argsite *as, const edgeprobe__saved *saved, uint64_t *args) {
    const edgeprobe__argloc *loc = edgeprobe__argsite_locs(as);
    int i, n = (int)as->nargs;
    for (i = 0; i < n; i++) args[i] = edgeprobe__arg_read(&loc[i], saved);
    return n;
}
EDGEPROBE__FN void edgeprobe__trace_args_hit(edgeprobe__point *pt, edgeprobe__argsite *as, const uint64_t *args,
                                             int nargs); /* section 29.4 */
/* The stub's argument site and its point, from the stub's return address. */
EDGEPROBE__INLINE_GPR edgeprobe__argsite *edgeprobe__stub_argsite(const unsigned char *ret) {
    return (edgeprobe__argsite *)edgeprobe__rel((const int32_t *)(ret - EDGEPROBE__STUB_DATA_BACK));
}
#if EDGEPROBE__RECORD_FAST
/* Called by the trampoline before it saves a vector register (section
 * 29.2), so everything it runs is compiled without them (EDGEPROBE__GPR_ONLY).
 * 1: the hit is recorded and nothing else is due - a PROBE without a handler,
 * or a TRACE (recorded, never formatted), whose arguments are all general
 * registers, memory or constants, on a thread that has its ring. 0: the
 * trampoline's whole path. Cost: bench/RESULTS.md, "Recording". */
EDGEPROBE__FN_GPR __attribute__((used)) int edgeprobe__args_record_fast(const uint64_t *regs, const unsigned char *ret);
EDGEPROBE__FN_GPR __attribute__((used)) int edgeprobe__args_record_fast(const uint64_t *regs, const unsigned char *ret) {
    edgeprobe__argsite *as = edgeprobe__stub_argsite(ret);
    edgeprobe__point *pt = edgeprobe__mark_point((edgeprobe__mark *)edgeprobe__rel(&as->mark));
    const edgeprobe__argloc *loc = edgeprobe__argsite_locs(as);
    edgeprobe__saved saved = {regs, 0, 0};
    uint64_t args[EDGEPROBE_ARGS_MAX];
    struct edgeprobe__recorder *rec;
    unsigned i;
    if (!pt || !(rec = edgeprobe__recording_ready(pt))) return 0;
    if (pt->kind != EDGEPROBE_KIND_TRACE && __atomic_load_n(&pt->binding, __ATOMIC_RELAXED)) return 0;
    for (i = 0; i < as->nargs; i++)
        if (loc[i].kind == EDGEPROBE__LOC_XMM) return 0;
    if (pt->kind == EDGEPROBE_KIND_TRACE) edgeprobe__trace_point_hit(pt);
    edgeprobe__record_point(rec, pt, pt->kind == EDGEPROBE_KIND_TRACE ? EDGEPROBE_EV_TRACE : EDGEPROBE_EV_PROBE, args,
                            edgeprobe__args_read(as, &saved, args));
    return 1;
}
#endif
/* Called by the trampoline. `ret` is the stub's return address. */
EDGEPROBE__FN __attribute__((used)) void edgeprobe__args_hit(const uint64_t *regs, const unsigned char *ret,
                                                             const unsigned char *vec, unsigned stride);
EDGEPROBE__FN __attribute__((used)) void edgeprobe__args_hit(const uint64_t *regs, const unsigned char *ret,
                                                             const unsigned char *vec, unsigned stride) {
    edgeprobe__argsite *as = edgeprobe__stub_argsite(ret);
    edgeprobe__point *pt = edgeprobe__mark_point((edgeprobe__mark *)edgeprobe__rel(&as->mark));
    edgeprobe__root *r = __atomic_load_n(&edgeprobe__this_object.root, __ATOMIC_RELAXED);
    edgeprobe__saved saved = {regs, vec, stride};
    uint64_t args[EDGEPROBE_ARGS_MAX];
    struct edgeprobe__binding_full *b;
    struct edgeprobe__recorder *rec;
    edgeprobe__ticket t;
    if (!r || !pt) return;
    if (pt->kind == EDGEPROBE_KIND_TRACE) { /* no handler: the line itself */
        edgeprobe__trace_args_hit(pt, as, args, edgeprobe__args_read(as, &saved, args));
        return;
    }
    if ((rec = edgeprobe__recording(pt)) != 0) { /* section 30; a handler still runs */
        edgeprobe__record_point(rec, pt, EDGEPROBE_EV_PROBE, args, edgeprobe__args_read(as, &saved, args));
        if (!__atomic_load_n(&pt->binding, __ATOMIC_RELAXED)) return;
    }
    /* No hit count here: at ~5 ticks it would add a fifth to PROBE's path;
     * a handler counts what it needs. TRACE counts (formatting dominates). */
    t = edgeprobe__reader_enter(r);
    b = (struct edgeprobe__binding_full *)__atomic_load_n(&pt->binding, __ATOMIC_ACQUIRE);
    if (b) ((edgeprobe_args_fn)(void (*)(void))b->b.fn)(&b->info, b->b.user, args, edgeprobe__args_read(as, &saved, args));
    edgeprobe__reader_leave(t);
}
EDGEPROBE__FN int edgeprobe_attach_args(const char *pattern, edgeprobe_args_fn fn, void *user) {
    if (!fn) return EDGEPROBE_EINVAL;
    return edgeprobe__attach_matching(pattern, EDGEPROBE_KIND_PROBE, (edgeprobe_handler_fn)(void (*)(void))fn, user);
}

/* ---- 29.4 TRACE lines from an argument site            >>trace-format ----
 * The marker and what it refuses: section 11.7. */
#ifndef EDGEPROBE_FREESTANDING
/* vsnprintf with the va_list passed as what it is on x86-64: a pointer to
 * the structure below (the psABI's __va_list_tag). */
int edgeprobe__libc_vsnprintf_tag(char *, size_t, const char *, void *) __asm__("vsnprintf");
/* A va_list whose register save areas are used up (gp_offset 48, fp_offset
 * 304: the psABI's limits), so va_arg takes every argument, integer or
 * double, from the overflow area, 8 bytes each, in order: exactly the
 * args[] array the locations were read into. One vsnprintf formats the
 * whole line, '*' widths included. */
typedef struct edgeprobe__va_tag {
    unsigned gp_offset, fp_offset;
    const void *overflow_arg_area, *reg_save_area;
} edgeprobe__va_tag;
EDGEPROBE__FN size_t edgeprobe__trace_format(char *buf, size_t cap, const char *fmt, const uint64_t *args);
EDGEPROBE__FN size_t edgeprobe__trace_format(char *buf, size_t cap, const char *fmt, const uint64_t *args) {
    edgeprobe__va_tag ap = {48, 304, args, 0};
    int n = edgeprobe__libc_vsnprintf_tag(buf, cap, fmt, &ap);
    return n < 0 ? 0 : (size_t)n;
}
/* First switch-on (section 29.3): a TRACE format must take at most nargs values and
 * write nothing: no %n (it would write through a traced pointer) and no
 * positional conversions (their count is not checked here). The compiler
 * has checked each conversion's type against its argument. Returns NULL,
 * or why the site is refused. */
EDGEPROBE__FN const char *edgeprobe__trace_format_refused(const char *fmt, unsigned nargs);
EDGEPROBE__FN const char *edgeprobe__trace_format_refused(const char *fmt, unsigned nargs) {
    unsigned taken = 0;
    for (; *fmt; fmt++) {
        if (*fmt != '%') continue;
        if (*++fmt == '%') continue;
        for (; *fmt && !((*fmt >= 'a' && *fmt <= 'z' && *fmt != 'h' && *fmt != 'l' && *fmt != 'j' && *fmt != 'z' &&
                          *fmt != 't' && *fmt != 'q') || (*fmt >= 'A' && *fmt <= 'Z' && *fmt != 'L'));
             fmt++) {
            if (*fmt == '$') return "a positional conversion (%N$) in its format";
            taken += *fmt == '*';
        }
        if (!*fmt) return "a conversion cut short at the end of its format";
        if (*fmt == 'n') return "%n in its format";
        taken += *fmt != 'm';
    }
    return taken > nargs ? "more conversions in its format than arguments" : 0;
}
/* An enabled TRACE site: count the hit, format, hand the line on. */
EDGEPROBE__FN void edgeprobe__trace_args_hit(edgeprobe__point *pt, edgeprobe__argsite *as, const uint64_t *args,
                                             int nargs) {
    const char *fmt = (const char *)edgeprobe__rel(&as->format);
    void (*sink)(const char *) = (void (*)(const char *))(uintptr_t)edgeprobe__rel(&as->sink);
    char small[512], *line = small;
    size_t need;
    struct edgeprobe__recorder *rec = edgeprobe__recording(pt);
    if (rec) { /* the values; formatted offline (section 30) */
        edgeprobe__trace_point_hit(pt);
        edgeprobe__record_point(rec, pt, EDGEPROBE_EV_TRACE, args, nargs);
        return;
    }
    need = edgeprobe__trace_format(small, sizeof small, fmt, args);
    if (need >= sizeof small && (line = edgeprobe__scratch(need + 1)) != 0) /* no malloc here */
        edgeprobe__trace_format(line, need + 1, fmt, args);
    else
        line = small; /* no memory: the line stays cut at 511 bytes */
    if (edgeprobe__trace_point_hit(pt))
        edgeprobe__route_printf("%s", line);
    else
        sink(line);
    if (line != small) edgeprobe__libc_munmap(line, need + 1);
}
#else /* freestanding: every TRACE is the lazy form, no TRACE argsite exists */
EDGEPROBE__FN void edgeprobe__trace_args_hit(edgeprobe__point *pt, edgeprobe__argsite *as, const uint64_t *args,
                                             int nargs) {
    (void)pt, (void)as, (void)args, (void)nargs;
}
EDGEPROBE__FN const char *edgeprobe__trace_format_refused(const char *fmt, unsigned nargs) {
    (void)fmt, (void)nargs;
    return "EDGEPROBE_TRACE's argument form in a freestanding build";
}
#endif
#else /* aarch64: argument probes are not there */
EDGEPROBE__FN int edgeprobe__args_prepare_locked(edgeprobe__root *r, const edgeprobe__site *s) {
    (void)r, (void)s;
    return EDGEPROBE_ENOTSUP;
}
#endif /* section 7 */
/* ======================================================================
 * 30. RECORDING: per-thread rings, the recorder                  >>ring
 * What section 7.1 promises. One recorder per process, reached from the
 * root (r->rec, made when the root is created and never freed, so that a
 * producer that loaded it may always use it); rings are never unmapped
 * either: a thread may be writing one whenever, even in a signal handler.
 *
 *   ring (one mapping per thread and object copy; layout: section 11.8)
 *   +-------------------------------+ line 0: the producer's (owner writes)
 *   | wpos head lost oldest busy    |   wpos: words reserved; head: words
 *   +-------------------------------+   published (release); lost: dropped;
 *   | tail drained file_end         |   oldest: flight mode's first event
 *   +-------------------------------+ line 1: the consumer's (tail: release)
 *   | next tid flight mask name     | line 2: fixed at creation
 *   | magic                         |
 *   +-------------------------------+ 256
 *   | words[mask + 1]               |   events: tsc | id, kind<<32, n<<40 | args
 *   +-------------------------------+
 *
 * A signal handler that records while its thread is inside
 * edgeprobe__ring_put sees `busy` set: it reserves after the interrupted
 * event and leaves publishing to it; the outer call publishes up to wpos,
 * then looks again (a handler may have come in between). Positions only
 * grow (64 bits: no wrap in practice); words are indexed modulo the size.
 * ====================================================================== */
#define EDGEPROBE__RING_DEFAULT ((size_t)1 << 20)
#define EDGEPROBE__RING_MIN ((size_t)4096)
#define EDGEPROBE__RING_MAX ((size_t)1 << 30)
#define EDGEPROBE__REC_STAGE ((size_t)1 << 20) /* bytes per write(2)       */
#define EDGEPROBE__REC_TICK_MS 1               /* drain period             */
#define EDGEPROBE__EV_ARGS_MAX 16
#define EDGEPROBE__EV_FUNC_ARGS 14   /* an ENTRY's: 6 integer, 8 vector     */
#define EDGEPROBE__TRACE_VERSION 2u  /* 2: function events carry %xmm too  */
enum { EDGEPROBE__BLK_EVENTS = 1, EDGEPROBE__BLK_POINT, EDGEPROBE__BLK_THREAD, EDGEPROBE__BLK_END };


#ifndef EDGEPROBE_FREESTANDING
struct edgeprobe__recorder {
    int active;                  /* producers write while 1 (atomic)       */
    int running;                 /* a recorder thread exists               */
    int stop;                    /* asks it to finish (atomic)             */
    int from_env;                /* EDGEPROBE_RECORD: EDGEPROBE_ENABLE records */
    int fd, err;                 /* err: first failed write, -errno       */
    unsigned flags;              /* EDGEPROBE_RECORD_ARGS                  */
    unsigned max_depth;          /* 0, or the deepest recorded nesting     */
    uint64_t min_ticks;
    size_t ring_bytes;
    edgeprobe__ring *rings;      /* every ring ever made: push-only        */
    edgeprobe__root *root;
    int flight;                  /* rings overwrite; drained at stop only  */
    edgeprobe__lock_t io;        /* the staging buffer and the file: the
                                    thread, stop, and objects' constructors */
    unsigned nrings;             /* ring files made (their names)          */
    char shm_dir[256];           /* EDGEPROBE_RECORD_SHM: rings as files   */
    int points_written;          /* ids below it have their POINT block    */
    unsigned long thread;
    uint64_t tsc0, mono0, hz;    /* anchors at start; hz estimated there   */
    uint64_t lost_io;            /* events the file never got              */
    uint64_t written;            /* bytes in the file                      */
    char *stage;
    size_t staged;
    char path[4096];
    char funcs[1024];            /* EDGEPROBE_RECORD_FUNCS                 */
    uint64_t file_dev, file_ino; /* the file fd was opened on (rec_fd_ours) */
};
__attribute__((weak, visibility("hidden"), tls_model("initial-exec")))
__thread edgeprobe__ring *edgeprobe__my_ring;
int edgeprobe__libc_prctl(int, ...) __asm__("prctl");
int edgeprobe__libc_pthread_join(unsigned long, void **) __asm__("pthread_join");
int edgeprobe__libc_ftruncate(int, long) __asm__("ftruncate");
char *edgeprobe__libc_strerror(int) __asm__("strerror"); /* the file's -errno (record_stop) */
typedef struct edgeprobe__iovec { const void *base; size_t len; } edgeprobe__iovec;
long edgeprobe__libc_writev(int, const edgeprobe__iovec *, int) __asm__("writev");
#define EDGEPROBE__PR_GET_NAME 16
#define EDGEPROBE__O_REC (01 | 0100 | 01000 | 02000000) /* WRONLY CREAT TRUNC CLOEXEC */
#if defined(__x86_64__)
#define EDGEPROBE__NR_GETTID 186L
#define EDGEPROBE__NR_FCNTL 72L
#define EDGEPROBE__NR_FSTAT 5L
#else
#define EDGEPROBE__NR_GETTID 178L
#define EDGEPROBE__NR_FCNTL 25L
#define EDGEPROBE__NR_FSTAT 80L
#endif

EDGEPROBE__INLINE_GPR struct edgeprobe__recorder *edgeprobe__rec_live(void) {
    edgeprobe__root *r = __atomic_load_n(&edgeprobe__this_object.root, __ATOMIC_RELAXED);
    struct edgeprobe__recorder *rec = r ? __atomic_load_n(&r->rec, __ATOMIC_ACQUIRE) : 0;
    return rec && __atomic_load_n(&rec->active, __ATOMIC_RELAXED) ? rec : 0;
}

/* ---- the producer ---- */
/* Where a thread's ring lives: anonymous memory, or a MAP_SHARED file in
 * EDGEPROBE_RECORD_SHM (`edgeprobe record` reads what a crash left there).
 * The name is made without snprintf (this may run in a signal handler). */
EDGEPROBE__FN void *edgeprobe__ring_map(struct edgeprobe__recorder *rec, size_t bytes, int tid);
EDGEPROBE__FN void *edgeprobe__ring_map(struct edgeprobe__recorder *rec, size_t bytes, int tid) {
    char path[sizeof rec->shm_dir + 48];
    edgeprobe__text t = {path, sizeof path, 0};
    void *m;
    int fd;
    if (!rec->shm_dir[0])
        return edgeprobe__libc_mmap(0, bytes, 3 /* RW */, EDGEPROBE__MAP_ANON_PRIVATE, -1, 0);
    edgeprobe__puts(&t, rec->shm_dir);
    edgeprobe__puts(&t, "/ring-");
    edgeprobe__putdec(&t, tid);
    edgeprobe__puts(&t, "-");
    edgeprobe__putdec(&t, (int)__atomic_fetch_add(&rec->nrings, 1, __ATOMIC_RELAXED));
    fd = edgeprobe__libc_open(path, 02 | 0100 | 01000 | 02000000 /* RDWR CREAT TRUNC CLOEXEC */, 0600);
    if (fd < 0) return (void *)-1;
    m = edgeprobe__libc_ftruncate(fd, (long)bytes) ? (void *)-1
                                                     : edgeprobe__libc_mmap(0, bytes, 3, 1 /* MAP_SHARED */, fd, 0);
    edgeprobe__libc_close(fd);
    return m;
}
/* This thread's first event: a ring of its own (mmap: async-signal-safe),
 * pushed on the recorder's list. */
EDGEPROBE__FN edgeprobe__ring *edgeprobe__ring_new(struct edgeprobe__recorder *rec);
EDGEPROBE__FN edgeprobe__ring *edgeprobe__ring_new(struct edgeprobe__recorder *rec) {
    size_t bytes = rec->ring_bytes;
    int tid = (int)edgeprobe__libc_syscall(EDGEPROBE__NR_GETTID);
    edgeprobe__ring *g = (edgeprobe__ring *)edgeprobe__ring_map(rec, EDGEPROBE__RING_HEAD + bytes, tid);
    if (g == (edgeprobe__ring *)-1) return 0;
    g->mask = bytes / 8 - 1;
    g->tid = tid;
    g->flight = (unsigned)rec->flight;
    edgeprobe__libc_prctl(EDGEPROBE__PR_GET_NAME, g->name);
    g->magic = EDGEPROBE__RING_MAGIC;
    g->next = __atomic_load_n(&rec->rings, __ATOMIC_RELAXED);
    while (!__atomic_compare_exchange_n(&rec->rings, &g->next, g, 1, __ATOMIC_RELEASE, __ATOMIC_RELAXED)) {
    }
    edgeprobe__my_ring = g;
    return g;
}
/* Publish what this thread reserved, including events that signal
 * handlers wrote while it was busy (see the drawing). */
EDGEPROBE__INLINE_GPR void edgeprobe__ring_publish(edgeprobe__ring *g) {
    for (;;) {
        uint64_t end = g->wpos;
        __atomic_store_n(&g->head, end, __ATOMIC_RELEASE);
        g->busy = 0;
        __atomic_signal_fence(__ATOMIC_SEQ_CST);
        if (g->wpos == end) return;
        g->busy = 1;
        __atomic_signal_fence(__ATOMIC_SEQ_CST);
    }
}
EDGEPROBE__FN_GPR void edgeprobe__ring_put(struct edgeprobe__recorder *rec, uint64_t tsc, unsigned id, unsigned kind,
                                       const uint64_t *args, unsigned n);
EDGEPROBE__FN_GPR void edgeprobe__ring_put(struct edgeprobe__recorder *rec, uint64_t tsc, unsigned id, unsigned kind,
                                       const uint64_t *args, unsigned n) {
    edgeprobe__ring *g = edgeprobe__my_ring;
    uint64_t pos, *w, m;
    unsigned i;
    int nested;
    if (__builtin_expect(!g, 0) && !(g = edgeprobe__ring_new(rec))) return;
    nested = g->busy;
    g->busy = 1;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    pos = g->wpos;
    m = g->mask;
    if (g->flight) { /* overwrite: step the oldest kept event past the room needed */
        while (pos + 2 + n - g->oldest > m + 1) g->oldest += 2 + ((edgeprobe__ring_words(g)[(g->oldest + 1) & m] >> 40) & 0xff);
    }
    if (pos + 2 + n - __atomic_load_n(&g->tail, __ATOMIC_ACQUIRE) > m + 1 && !g->flight) {
        g->lost++; /* discard mode: the consumer is behind */
    } else {
        g->wpos = pos + 2 + n;
        __atomic_signal_fence(__ATOMIC_SEQ_CST);
        w = edgeprobe__ring_words(g);
        w[pos & m] = tsc;
        w[(pos + 1) & m] = id | (uint64_t)kind << 32 | (uint64_t)n << 40;
        for (i = 0; i < n; i++) w[(pos + 2 + i) & m] = args[i];
        __atomic_signal_fence(__ATOMIC_SEQ_CST);
    }
    if (!nested) edgeprobe__ring_publish(g);
}
EDGEPROBE__FN void edgeprobe_record_event(int id, unsigned kind, const uint64_t *args, int nargs) {
    struct edgeprobe__recorder *rec = edgeprobe__rec_live();
    if (!rec || id < 0 || nargs < 0 || nargs > EDGEPROBE__EV_ARGS_MAX || (nargs && !args)) return;
    edgeprobe__ring_put(rec, edgeprobe__ticks(), (unsigned)id, kind & 0xff, args, (unsigned)nargs);
}
/* The enabled paths' side (sections 24 and 29): the recorder, if this
 * point is recorded now. */
EDGEPROBE__FN_GPR struct edgeprobe__recorder *edgeprobe__recording(const edgeprobe__point *pt) {
    const struct edgeprobe__probe *p = __atomic_load_n(&pt->probe, __ATOMIC_RELAXED);
    return p && __atomic_load_n(&p->recorded, __ATOMIC_RELAXED) ? edgeprobe__rec_live() : 0;
}
/* The same, when this thread already has its ring: recording then calls
 * nothing outside the code compiled without vector registers (the recorded
 * argument probe's fast path, section 29.2). */
EDGEPROBE__FN_GPR struct edgeprobe__recorder *edgeprobe__recording_ready(const edgeprobe__point *pt) {
    return edgeprobe__my_ring ? edgeprobe__recording(pt) : 0;
}
EDGEPROBE__FN_GPR void edgeprobe__record_point(struct edgeprobe__recorder *rec, const edgeprobe__point *pt, unsigned kind,
                                           const uint64_t *args, int n) {
    edgeprobe__ring_put(rec, edgeprobe__ticks(), (unsigned)pt->id_plus_1 - 1u, kind, args, (unsigned)n);
}
/* A BRANCH (or lazy TRACE) hit, from edgeprobe__hit. */
EDGEPROBE__FN void edgeprobe__record_hit(const edgeprobe__point *pt) {
    struct edgeprobe__recorder *rec = edgeprobe__recording(pt);
    if (rec) edgeprobe__record_point(rec, pt, EDGEPROBE_EV_BRANCH, 0, 0);
}

/* ---- the handlers the recorder binds ---- */
EDGEPROBE__FN void edgeprobe__record_value(const edgeprobe_info *probe, void *user, uintptr_t value);
EDGEPROBE__FN void edgeprobe__record_value(const edgeprobe_info *probe, void *user, uintptr_t value) {
    uint64_t v = value;
    (void)user;
    edgeprobe_record_event(probe->id, EDGEPROBE_EV_HANDLER, &v, 1);
}
#if EDGEPROBE__HAS_PATCH
/* Function entry: with a minimum duration, only the TSC (kept in the call);
 * otherwise an ENTRY event, with the argument registers when asked: the six
 * integer ones, then the low 8 bytes of %xmm0-7 (double arguments). Asks
 * for the exit, unless the call is deeper than max_depth.
 * The depth is the thread's count of hooked exits (section 27.2): every
 * recorded call below the limit hooks its exit, so a call that finds
 * max_depth frames there is nested that deep in recorded calls. Such a call
 * hooks nothing and adds no frame, so its callees find the same count and
 * are skipped too, at the cost of an entry only. Frames a longjmp left on
 * this stack are dropped before the count is read (27.2,
 * edgeprobe__func_drop_dead). */
EDGEPROBE__INLINE int edgeprobe__record_too_deep(const struct edgeprobe__recorder *rec) {
    const edgeprobe__func_thread *t = edgeprobe__func_thread_tls;
    return rec->max_depth && t && t->depth >= rec->max_depth;
}
EDGEPROBE__FN int edgeprobe__record_entry(edgeprobe_func_call *call, void *user);
EDGEPROBE__FN int edgeprobe__record_entry(edgeprobe_func_call *call, void *user) {
    struct edgeprobe__recorder *rec = edgeprobe__rec_live();
    uint64_t a[EDGEPROBE__EV_FUNC_ARGS];
    unsigned n = 0, i;
    (void)user;
    if (!rec || edgeprobe__record_too_deep(rec)) return 0;
    call->data = edgeprobe__ticks();
    if (rec->min_ticks) return 1;
    if (rec->flags & EDGEPROBE_RECORD_ARGS) {
        for (i = 0; i < 6; i++) a[n++] = call->args[i];
        for (i = 0; i < 8; i++) a[n++] = EDGEPROBE_FUNC_FARG(call, i);
    }
    edgeprobe__ring_put(rec, call->data, (unsigned)call->probe->id, EDGEPROBE_EV_ENTRY, a, n);
    return 1;
}
EDGEPROBE__FN void edgeprobe__record_exit(const edgeprobe_func_call *call, void *user);
EDGEPROBE__FN void edgeprobe__record_exit(const edgeprobe_func_call *call, void *user) {
    struct edgeprobe__recorder *rec = edgeprobe__rec_live();
    uint64_t now = edgeprobe__ticks(), span[4];
    unsigned rets = 0;
    (void)user;
    if (!rec) return;
    if (rec->flags & EDGEPROBE_RECORD_ARGS) rets = 3; /* %rax, %rdx, %xmm0 */
    if (!rec->min_ticks) {
        edgeprobe__ring_put(rec, now, (unsigned)call->probe->id, EDGEPROBE_EV_EXIT, call->ret, rets);
        return;
    }
    if (now - call->data < rec->min_ticks) return;
    span[0] = now - call->data, span[1] = call->ret[0], span[2] = call->ret[1], span[3] = call->ret[2];
    edgeprobe__ring_put(rec, call->data, (unsigned)call->probe->id, EDGEPROBE_EV_CALL, span, 1 + rets);
}
#endif

/* ---- the consumer: staging, blocks, the file ---- */
/* THE PROGRAM'S DESCRIPTORS. A program may close every descriptor (as
 * daemons do) and open files of its own, one of which then takes the
 * trace file's number. The recorder writes only while its descriptor is
 * still the file it opened (the same device and inode: one fstat before
 * each write), else it stops as on a failed write (EBADF): its events are
 * counted lost, and not a byte goes into the program's file. */
EDGEPROBE__FN void edgeprobe__rec_fd_ours(struct edgeprobe__recorder *rec, int opening);
EDGEPROBE__FN void edgeprobe__rec_fd_ours(struct edgeprobe__recorder *rec, int opening) {
    uint64_t st[32]; /* struct stat (144 bytes on x86-64, 128 on aarch64): st_dev, st_ino first on both */
    int ok = edgeprobe__libc_syscall(EDGEPROBE__NR_FSTAT, (long)rec->fd, (long)st) == 0;
    if (ok && opening) rec->file_dev = st[0], rec->file_ino = st[1];
    if ((!ok || st[0] != rec->file_dev || st[1] != rec->file_ino) && !rec->err)
        rec->err = -9 /* EBADF: closed, or the number is another file's now */;
}
EDGEPROBE__FN void edgeprobe__rec_flush(struct edgeprobe__recorder *rec);
EDGEPROBE__FN void edgeprobe__rec_flush(struct edgeprobe__recorder *rec) {
    size_t done = 0;
    if (rec->staged && !rec->err) edgeprobe__rec_fd_ours(rec, 0);
    while (done < rec->staged && !rec->err) {
        long n = edgeprobe__libc_write(rec->fd, rec->stage + done, rec->staged - done);
        if (n > 0) done += (size_t)n, rec->written += (uint64_t)n;
        else if (n < 0 && *edgeprobe__libc_errno() == 4 /* EINTR */) continue;
        else rec->err = n < 0 ? -*edgeprobe__libc_errno() : -28 /* ENOSPC */;
    }
    rec->staged = 0;
}
/* Large runs go from the ring to the file with writev, not through the
 * staging buffer (one copy less); what is staged goes first. */
EDGEPROBE__FN void edgeprobe__rec_writev(struct edgeprobe__recorder *rec, edgeprobe__iovec *iov, int n);
EDGEPROBE__FN void edgeprobe__rec_writev(struct edgeprobe__recorder *rec, edgeprobe__iovec *iov, int n) {
    size_t staged = rec->staged;
    edgeprobe__rec_flush(rec);
    if (!staged && !rec->err) edgeprobe__rec_fd_ours(rec, 0); /* (a flush of staged bytes looked) */
    while (n && !rec->err) {
        long done = edgeprobe__libc_writev(rec->fd, iov, n);
        if (done < 0 && *edgeprobe__libc_errno() == 4 /* EINTR */) continue;
        if (done <= 0) {
            rec->err = done < 0 ? -*edgeprobe__libc_errno() : -28 /* ENOSPC */;
            return;
        }
        rec->written += (uint64_t)done;
        for (; n && (size_t)done >= iov->len; n--, iov++) done -= (long)iov->len;
        if (n) iov->base = (const char *)iov->base + done, iov->len -= (size_t)done;
    }
}
EDGEPROBE__FN void edgeprobe__rec_emit(struct edgeprobe__recorder *rec, const void *data, size_t len);
EDGEPROBE__FN void edgeprobe__rec_emit(struct edgeprobe__recorder *rec, const void *data, size_t len) {
    const char *p = (const char *)data;
    while (len) {
        size_t room = EDGEPROBE__REC_STAGE - rec->staged, n = len < room ? len : room;
        __builtin_memcpy(rec->stage + rec->staged, p, n);
        rec->staged += n, p += n, len -= n;
        if (rec->staged == EDGEPROBE__REC_STAGE) edgeprobe__rec_flush(rec);
    }
}
/* A block: type, tid, payload bytes (a multiple of 8), then the payload. */
EDGEPROBE__FN void edgeprobe__rec_block(struct edgeprobe__recorder *rec, unsigned type, int tid, uint64_t bytes);
EDGEPROBE__FN void edgeprobe__rec_block(struct edgeprobe__recorder *rec, unsigned type, int tid, uint64_t bytes) {
    uint32_t head[4] = {type, (uint32_t)tid, (uint32_t)bytes, (uint32_t)(bytes >> 32)};
    edgeprobe__rec_emit(rec, head, sizeof head);
}
/* Events in words [from, to) of a ring, for the count of what a failed
 * write lost. */
EDGEPROBE__FN uint64_t edgeprobe__ring_count(edgeprobe__ring *g, uint64_t from, uint64_t to);
EDGEPROBE__FN uint64_t edgeprobe__ring_count(edgeprobe__ring *g, uint64_t from, uint64_t to) {
    uint64_t n = 0;
    while (from < to) from += 2 + ((edgeprobe__ring_words(g)[(from + 1) & g->mask] >> 40) & 0xff), n++;
    return n;
}
/* Copy one ring's published events to the staging buffer; their room is
 * freed only once they are in the file (rec_release), so that a crash in
 * between leaves them in a ring file for `edgeprobe record`. A flight ring
 * is copied from its oldest whole event. */
EDGEPROBE__FN void edgeprobe__rec_drain(struct edgeprobe__recorder *rec, edgeprobe__ring *g);
EDGEPROBE__FN void edgeprobe__rec_drain(struct edgeprobe__recorder *rec, edgeprobe__ring *g) {
    uint64_t head = __atomic_load_n(&g->head, __ATOMIC_ACQUIRE), tail = g->tail, size = g->mask + 1, first;
    if (g->flight && __atomic_load_n(&g->oldest, __ATOMIC_RELAXED) > tail) tail = g->oldest;
    g->drained = head;
    g->file_end = 0; /* nothing of it is on its way to the file */
    if (head == tail) return;
    first = tail & g->mask;
    if (rec->err) {
        rec->lost_io += edgeprobe__ring_count(g, tail, head);
    } else {
        uint64_t n = head - tail, run = size - first < n ? size - first : n;
        uint32_t blk[4] = {EDGEPROBE__BLK_EVENTS, (uint32_t)g->tid, (uint32_t)(n * 8), (uint32_t)(n * 8 >> 32)};
        edgeprobe__iovec iov[3] = {{blk, sizeof blk}, {edgeprobe__ring_words(g) + first, run * 8},
                                   {edgeprobe__ring_words(g), (n - run) * 8}};
        uint64_t end = rec->written + rec->staged + sizeof blk + n * 8;
        if (n * 8 >= EDGEPROBE__REC_STAGE / 4) {
            edgeprobe__rec_writev(rec, iov, n == run ? 2 : 3);
        } else {
            int i;
            for (i = 0; i < 3; i++) edgeprobe__rec_emit(rec, iov[i].base, iov[i].len);
        }
        g->file_end = end;
    }
}
EDGEPROBE__FN void edgeprobe__rec_new_points(struct edgeprobe__recorder *rec);
/* The first failed write (a full disk): the rings of this round whose
 * events did not reach the file whole count them as lost, as every later
 * round does (rec_drain). */
EDGEPROBE__FN void edgeprobe__rec_lost_round(struct edgeprobe__recorder *rec, edgeprobe__ring *rings, int final);
EDGEPROBE__FN void edgeprobe__rec_lost_round(struct edgeprobe__recorder *rec, edgeprobe__ring *rings, int final) {
    edgeprobe__ring *g;
    for (g = rings; g && (final || !rec->flight); g = g->next) {
        uint64_t from = g->tail;
        if (g->flight && __atomic_load_n(&g->oldest, __ATOMIC_RELAXED) > from) from = g->oldest;
        if (g->file_end > rec->written) rec->lost_io += edgeprobe__ring_count(g, from, g->drained);
    }
}
/* New points, then every ring (flight rings only at stop), written out,
 * then their room freed. */
EDGEPROBE__FN void edgeprobe__rec_drain_all(struct edgeprobe__recorder *rec, int final);
EDGEPROBE__FN void edgeprobe__rec_drain_all(struct edgeprobe__recorder *rec, int final) {
    edgeprobe__ring *g, *rings = __atomic_load_n(&rec->rings, __ATOMIC_ACQUIRE);
    int failed = rec->err != 0;
    edgeprobe__rec_new_points(rec);
    for (g = rings; g && (final || !rec->flight); g = g->next) edgeprobe__rec_drain(rec, g);
    edgeprobe__rec_flush(rec);
    if (!failed && rec->err) edgeprobe__rec_lost_round(rec, rings, final);
    for (g = rings; g && (final || !rec->flight); g = g->next) __atomic_store_n(&g->tail, g->drained, __ATOMIC_RELEASE);
}
EDGEPROBE__FN void *edgeprobe__rec_main(void *arg);
EDGEPROBE__FN void *edgeprobe__rec_main(void *arg) {
    struct edgeprobe__recorder *rec = (struct edgeprobe__recorder *)arg;
    while (!__atomic_load_n(&rec->stop, __ATOMIC_ACQUIRE)) {
        edgeprobe__lock(&rec->io);
        edgeprobe__rec_drain_all(rec, 0);
        edgeprobe__unlock(&rec->io);
        edgeprobe__libc_poll(0, 0, EDGEPROBE__REC_TICK_MS);
    }
    return 0;
}
EDGEPROBE__FN uint64_t edgeprobe__mono_ns(void);
EDGEPROBE__FN uint64_t edgeprobe__mono_ns(void) {
    edgeprobe__timespec ts;
    edgeprobe__libc_clock_gettime(1 /* CLOCK_MONOTONIC */, &ts);
    return (uint64_t)ts.sec * 1000000000u + (uint64_t)ts.nsec;
}
/* A TSC reading and CLOCK_MONOTONIC at the same moment: the pair whose
 * TSC bracket is shortest of a few (a preemption between the two reads
 * would skew the frequency of a short recording). */
EDGEPROBE__FN void edgeprobe__rec_anchor(uint64_t *tsc, uint64_t *mono);
EDGEPROBE__FN void edgeprobe__rec_anchor(uint64_t *tsc, uint64_t *mono) {
    uint64_t best = ~(uint64_t)0;
    int i;
    for (i = 0; i < 8; i++) {
        uint64_t a = edgeprobe__ticks(), m = edgeprobe__mono_ns(), b = edgeprobe__ticks();
        if (b - a < best) best = b - a, *tsc = a + (b - a) / 2, *mono = m;
    }
}
/* TSC ticks per second since the start anchors; at least 2 ms apart (a
 * busy wait at start, for min_ns). */
EDGEPROBE__FN uint64_t edgeprobe__rec_hz(struct edgeprobe__recorder *rec, uint64_t *tsc, uint64_t *mono);
EDGEPROBE__FN uint64_t edgeprobe__rec_hz(struct edgeprobe__recorder *rec, uint64_t *tsc, uint64_t *mono) {
    do edgeprobe__rec_anchor(tsc, mono);
    while (*mono - rec->mono0 < 2000000u);
    return (uint64_t)((double)(*tsc - rec->tsc0) * 1e9 / (double)(*mono - rec->mono0));
}

/* ---- the tables, written at stop ---- */
EDGEPROBE__FN size_t edgeprobe__rec_strlen(const char *s);
EDGEPROBE__FN size_t edgeprobe__rec_strlen(const char *s) { return s ? edgeprobe__strnlen(s, 65535) : 0; }
/* A TRACE point's format, read from one of its argument sites (the lock
 * is held: its object is loaded). */
EDGEPROBE__FN const char *edgeprobe__rec_format_locked(edgeprobe__point *pt);
EDGEPROBE__FN const char *edgeprobe__rec_format_locked(edgeprobe__point *pt) {
#if defined(__x86_64__)
    struct edgeprobe__probe *p = pt->probe;
    int i;
    for (i = 0; p && pt->kind == EDGEPROBE_KIND_TRACE && i < p->nsites; i++) {
        edgeprobe__site *s = &p->sites[i];
        if (s->point == pt && (s->flags & EDGEPROBE__F_ARGS)) {
            edgeprobe__argsite *as = (edgeprobe__argsite *)edgeprobe__rel((const int32_t *)(s->target - 4));
            if (as->format) return (const char *)edgeprobe__rel(&as->format);
        }
    }
#else
    (void)pt;
#endif
    return 0;
}
/* POINT: id, kind, line, four lengths, then name, file, function, format
 * (no NULs), padded to 8 bytes. */
EDGEPROBE__FN void edgeprobe__rec_point_locked(struct edgeprobe__recorder *rec, edgeprobe__point *pt);
EDGEPROBE__FN void edgeprobe__rec_point_locked(struct edgeprobe__recorder *rec, edgeprobe__point *pt) {
    edgeprobe_info info;
    const char *s[4];
    uint32_t head[7];
    size_t total = sizeof head;
    int i;
    static const char zeros[8] = {0};
    edgeprobe__fill_info(pt, &info);
    s[0] = info.name, s[1] = info.file, s[2] = info.function, s[3] = edgeprobe__rec_format_locked(pt);
    head[0] = (uint32_t)info.id, head[1] = (uint32_t)info.kind, head[2] = (uint32_t)info.line;
    for (i = 0; i < 4; i++) total += (head[3 + i] = (uint32_t)edgeprobe__rec_strlen(s[i]));
    edgeprobe__rec_block(rec, EDGEPROBE__BLK_POINT, 0, (total + 7) & ~(size_t)7);
    edgeprobe__rec_emit(rec, head, sizeof head);
    for (i = 0; i < 4; i++) edgeprobe__rec_emit(rec, s[i], head[3 + i]);
    edgeprobe__rec_emit(rec, zeros, ((total + 7) & ~(size_t)7) - total);
}
/* POINT blocks for the ids registered since the last drain: written while
 * their objects are loaded (a library's points leave the registry when it
 * is unloaded, and the executable's before the last atexit handler). */
EDGEPROBE__FN void edgeprobe__rec_new_points(struct edgeprobe__recorder *rec);
EDGEPROBE__FN void edgeprobe__rec_new_points(struct edgeprobe__recorder *rec) {
    edgeprobe__root *r = rec->root;
    if (__atomic_load_n(&r->npoints, __ATOMIC_RELAXED) == rec->points_written) return;
    edgeprobe__lock(&r->lock);
    for (; rec->points_written < r->npoints; rec->points_written++)
        if (*edgeprobe__point_slot(r, rec->points_written))
            edgeprobe__rec_point_locked(rec, *edgeprobe__point_slot(r, rec->points_written));
    edgeprobe__unlock(&r->lock);
}
/* At stop: the threads (with their lost events), then END. */
EDGEPROBE__FN void edgeprobe__rec_tables(struct edgeprobe__recorder *rec);
EDGEPROBE__FN void edgeprobe__rec_tables(struct edgeprobe__recorder *rec) {
    edgeprobe__ring *g;
    uint64_t end[4], lost = 0;
    for (g = __atomic_load_n(&rec->rings, __ATOMIC_ACQUIRE); g; g = g->next) {
        uint64_t l = __atomic_load_n(&g->lost, __ATOMIC_RELAXED);
        lost += l;
        uint64_t bytes = EDGEPROBE__RING_HEAD + (g->mask + 1) * 8;
        edgeprobe__rec_block(rec, EDGEPROBE__BLK_THREAD, g->tid, 32);
        edgeprobe__rec_emit(rec, &l, 8);
        edgeprobe__rec_emit(rec, g->name, 16);
        edgeprobe__rec_emit(rec, &bytes, 8);
    }
    end[2] = edgeprobe__rec_hz(rec, &end[0], &end[1]);
    end[3] = lost + rec->lost_io;
    edgeprobe__rec_block(rec, EDGEPROBE__BLK_END, 0, sizeof end);
    edgeprobe__rec_emit(rec, end, sizeof end);
}
/* The file header: magic, version, header bytes, TSC Hz (estimate), the
 * TSC and CLOCK_MONOTONIC anchors, pid. */
EDGEPROBE__FN void edgeprobe__rec_header(struct edgeprobe__recorder *rec);
EDGEPROBE__FN void edgeprobe__rec_header(struct edgeprobe__recorder *rec) {
    uint64_t h[6];
    __builtin_memcpy(h, "EPTRACE\0", 8);
    h[1] = EDGEPROBE__TRACE_VERSION | (uint64_t)sizeof h << 32;
    h[2] = rec->hz, h[3] = rec->tsc0, h[4] = rec->mono0;
    h[5] = (uint64_t)(unsigned)edgeprobe__libc_getpid();
    edgeprobe__rec_emit(rec, h, sizeof h);
}

/* ---- the API ---- */
EDGEPROBE__FN void edgeprobe__rec_forked(void);
EDGEPROBE__FN void edgeprobe__rec_forked(void) { /* the child: its parent's recorder is not here */
    edgeprobe__root *r = __atomic_load_n(&edgeprobe__this_object.root, __ATOMIC_RELAXED);
    struct edgeprobe__recorder *rec = r ? r->rec : 0;
    if (!rec) return;
    rec->active = 0, rec->running = 0;
    if (rec->fd >= 0) edgeprobe__libc_close(rec->fd);
    rec->fd = -1;
}
/* DAEMONS: recording goes on in daemon()'s child (the wrapper is
 * tools/record_agent.c's). daemon() forks and its parent _exits inside it:
 * the program goes on in the child, which rec_forked stops. Around that
 * fork, instead:
 *   rec_fork_pause     the recorder thread joined, every ring drained to
 *                      the file; returns a duplicate of the file's
 *                      descriptor (the child's atfork closes the other),
 *                      with rec->io held through the fork (no child may
 *                      inherit it held by a thread it does not have), or
 *                      -1 when nothing records (then nothing is held);
 *   rec_fork_resume    in both processes after the fork: io let go; the
 *                      child writes on to the same file from a new
 *                      recorder thread (the parent, whose fork failed, from
 *                      its own again); a parent whose fork worked exits.
 * Events the parent's other threads record between the drain and the fork
 * are in the child's copies of their rings, written by it, once; after the
 * fork, only where the rings are shared files (EDGEPROBE_RECORD_SHM). The thread
 * that called daemon() keeps its rings and their tid in the child: the
 * calls it entered before daemon() return on the same track. */
EDGEPROBE__FN int edgeprobe__rec_fork_pause(void);
EDGEPROBE__FN int edgeprobe__rec_fork_pause(void) {
    edgeprobe__root *r = __atomic_load_n(&edgeprobe__this_object.root, __ATOMIC_ACQUIRE);
    struct edgeprobe__recorder *rec = r ? r->rec : 0;
    int fd = -1;
    if (!rec) return -1;
    edgeprobe__lock(&r->lock);
    if (rec->running) fd = (int)edgeprobe__libc_syscall(EDGEPROBE__NR_FCNTL, rec->fd, 1030 /* F_DUPFD_CLOEXEC */, 3);
    if (fd >= 0) {
        rec->running = 0; /* a record_stop meanwhile does nothing */
        __atomic_store_n(&rec->stop, 1, __ATOMIC_RELEASE);
    }
    edgeprobe__unlock(&r->lock);
    if (fd < 0) return -1;
    edgeprobe__libc_pthread_join(rec->thread, 0);
    edgeprobe__lock(&rec->io);
    edgeprobe__rec_drain_all(rec, 0);
    return fd;
}
EDGEPROBE__FN void edgeprobe__rec_fork_resume(int fd, int child);
EDGEPROBE__FN void edgeprobe__rec_fork_resume(int fd, int child) {
    edgeprobe__root *r = __atomic_load_n(&edgeprobe__this_object.root, __ATOMIC_ACQUIRE);
    struct edgeprobe__recorder *rec = r->rec;
    edgeprobe__unlock(&rec->io);
    edgeprobe__lock(&r->lock);
    if (child) rec->fd = fd; /* rec_forked closed the parent's */
    else edgeprobe__libc_close(fd);
    __atomic_store_n(&rec->stop, 0, __ATOMIC_RELEASE);
    if (edgeprobe__thread_start(&rec->thread, edgeprobe__rec_main, rec) == 0) {
        edgeprobe__libc_pthread_setname_np(rec->thread, "edgeprobe-rec");
        rec->running = 1;
        __atomic_store_n(&rec->active, 1, __ATOMIC_RELEASE);
    } else {
        EDGEPROBE_OS_LOG("EDGEPROBE_RECORD: no recorder thread after daemon(); the recording ends there");
        __atomic_store_n(&rec->active, 0, __ATOMIC_RELEASE);
    }
    edgeprobe__unlock(&r->lock);
}
EDGEPROBE__FN int edgeprobe__rec_options(struct edgeprobe__recorder *rec, const edgeprobe_record_options *opt);
EDGEPROBE__FN int edgeprobe__rec_options(struct edgeprobe__recorder *rec, const edgeprobe_record_options *opt) {
    size_t bytes = opt && opt->ring_bytes ? opt->ring_bytes : EDGEPROBE__RING_DEFAULT;
    if (bytes < EDGEPROBE__RING_MIN || bytes > EDGEPROBE__RING_MAX || (bytes & (bytes - 1))) return EDGEPROBE_EINVAL;
    if (opt && (opt->flags & ~(EDGEPROBE_RECORD_ARGS | EDGEPROBE_RECORD_FLIGHT))) return EDGEPROBE_EINVAL;
    if (rec->running) return EDGEPROBE_EBUSY;
    rec->ring_bytes = bytes;
    rec->flags = opt ? opt->flags : 0;
    rec->max_depth = opt ? opt->max_depth : 0;
    rec->flight = (rec->flags & EDGEPROBE_RECORD_FLIGHT) != 0;
    rec->min_ticks = 0;
    edgeprobe__rec_anchor(&rec->tsc0, &rec->mono0);
    {
        uint64_t t, m;
        rec->hz = edgeprobe__rec_hz(rec, &t, &m);
    }
    if (opt && opt->min_ns) rec->min_ticks = (uint64_t)((double)opt->min_ns * (double)rec->hz / 1e9);
    if (opt && opt->min_ns && !rec->min_ticks) rec->min_ticks = 1;
    return 0;
}
/* Open the file, start the thread; rings keep their old events out. */
EDGEPROBE__FN int edgeprobe__rec_begin_locked(struct edgeprobe__recorder *rec, const char *path);
EDGEPROBE__FN int edgeprobe__rec_begin_locked(struct edgeprobe__recorder *rec, const char *path) {
    edgeprobe__ring *g;
    size_t n = edgeprobe__strnlen(path, sizeof rec->path);
    if (n == 0 || n >= sizeof rec->path) return EDGEPROBE_EINVAL;
    if (!rec->stage && !(rec->stage = (char *)EDGEPROBE_OS_ALLOC(EDGEPROBE__REC_STAGE))) return EDGEPROBE_ENOMEM;
    if (path != rec->path) __builtin_memcpy(rec->path, path, n + 1);
    rec->fd = edgeprobe__libc_open(rec->path, EDGEPROBE__O_REC, 0644);
    if (rec->fd < 0) return -*edgeprobe__libc_errno();
    edgeprobe__rec_fd_ours(rec, 1);
    rec->err = 0, rec->lost_io = 0, rec->written = 0, rec->staged = 0, rec->stop = 0, rec->points_written = 0;
    for (g = rec->rings; g; g = g->next) { /* a new recording: old events stay out */
        g->tail = g->oldest = __atomic_load_n(&g->head, __ATOMIC_ACQUIRE), g->lost = 0;
        g->flight = (unsigned)rec->flight;
    }
    edgeprobe__rec_header(rec);
    edgeprobe__rec_flush(rec); /* a file that a crash cuts short still has its header */
    if (edgeprobe__thread_start(&rec->thread, edgeprobe__rec_main, rec)) {
        edgeprobe__libc_close(rec->fd);
        rec->fd = -1;
        return EDGEPROBE_ENOMEM;
    }
    edgeprobe__libc_pthread_setname_np(rec->thread, "edgeprobe-rec");
    rec->running = 1;
    __atomic_store_n(&rec->active, 1, __ATOMIC_RELEASE);
    return 0;
}
EDGEPROBE__FN struct edgeprobe__recorder *edgeprobe__rec_get_locked(edgeprobe__root *r);
EDGEPROBE__FN struct edgeprobe__recorder *edgeprobe__rec_get_locked(edgeprobe__root *r) {
    struct edgeprobe__recorder *rec = r->rec;
    if (rec) return rec;
    rec = (struct edgeprobe__recorder *)EDGEPROBE_OS_ALLOC(sizeof *rec);
    if (!rec) return 0;
    rec->fd = -1;
    rec->root = r;
    __atomic_store_n(&r->rec, rec, __ATOMIC_RELEASE);
    edgeprobe__libc_pthread_atfork(0, 0, edgeprobe__rec_forked);
    return rec;
}
EDGEPROBE__FN int edgeprobe_record_start(const char *path, const edgeprobe_record_options *opt) {
    struct edgeprobe__recorder *rec;
    int rc;
    EDGEPROBE__READY_OR_RETURN(r);
    if (!path) return EDGEPROBE_EINVAL;
    edgeprobe__lock(&r->lock);
    rec = edgeprobe__rec_get_locked(r);
    if (!rec) rc = EDGEPROBE_ENOMEM;
    else if (rec->running || rec->fd >= 0) rc = EDGEPROBE_EBUSY; /* (fd open, not running: daemon()'s pause) */
    else if ((rc = edgeprobe__rec_options(rec, opt)) == 0) rc = edgeprobe__rec_begin_locked(rec, path);
    edgeprobe__unlock(&r->lock);
    return rc;
}
EDGEPROBE__FN int edgeprobe_record_stop(void) {
    struct edgeprobe__recorder *rec;
    int rc;
    EDGEPROBE__READY_OR_RETURN(r);
    edgeprobe__lock(&r->lock);
    rec = r->rec;
    if (!rec || !rec->running) {
        edgeprobe__unlock(&r->lock);
        return 0;
    }
    rec->running = 0;
    __atomic_store_n(&rec->active, 0, __ATOMIC_RELEASE);
    __atomic_store_n(&rec->stop, 1, __ATOMIC_RELEASE);
    edgeprobe__unlock(&r->lock);
    edgeprobe__libc_pthread_join(rec->thread, 0);
    edgeprobe__lock(&rec->io);
    edgeprobe__rec_drain_all(rec, 1); /* what came in while the thread ended; flight rings */
    edgeprobe__rec_tables(rec);
    edgeprobe__rec_flush(rec);
    edgeprobe__unlock(&rec->io);
    rc = rec->err;
    edgeprobe__libc_close(rec->fd);
    rec->fd = -1;
    return rc;
}
/* One flight ring into a snapshot, while its thread may write it: the
 * words are copied first, then `oldest` is read again; its producer moves
 * it past words before it overwrites them (plain stores, in order on
 * x86-64), so what lies from there on was copied whole. */
EDGEPROBE__FN void edgeprobe__rec_snap_ring(struct edgeprobe__recorder *rec, edgeprobe__ring *g, uint64_t *copy);
EDGEPROBE__FN void edgeprobe__rec_snap_ring(struct edgeprobe__recorder *rec, edgeprobe__ring *g, uint64_t *copy) {
    uint64_t head = __atomic_load_n(&g->head, __ATOMIC_ACQUIRE), from = g->tail, k, start;
    if (__atomic_load_n(&g->oldest, __ATOMIC_ACQUIRE) > from) from = g->oldest;
    if (head <= from || head - from > g->mask + 1) return;
    for (k = from; k < head; k++) copy[k - from] = __atomic_load_n(&edgeprobe__ring_words(g)[k & g->mask], __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    start = __atomic_load_n(&g->oldest, __ATOMIC_ACQUIRE);
    if (start < from) start = from;
    if (start >= head) return;
    edgeprobe__rec_block(rec, EDGEPROBE__BLK_EVENTS, g->tid, (head - start) * 8);
    edgeprobe__rec_emit(rec, copy + (start - from), (size_t)(head - start) * 8);
}
/* The snapshot's file, written through the recorder's staging buffer in
 * place of the trace file (whose own state is kept aside). io held. */
EDGEPROBE__FN int edgeprobe__rec_snapshot_io(struct edgeprobe__recorder *rec, int fd, uint64_t *copy);
EDGEPROBE__FN int edgeprobe__rec_snapshot_io(struct edgeprobe__recorder *rec, int fd, uint64_t *copy) {
    int saved_fd = rec->fd, saved_err, saved_points, rc;
    uint64_t saved_written, saved_dev = rec->file_dev, saved_ino = rec->file_ino;
    edgeprobe__ring *g;
    edgeprobe__rec_flush(rec); /* the trace file's staged bytes go to it */
    saved_err = rec->err, saved_points = rec->points_written, saved_written = rec->written;
    rec->fd = fd, rec->err = 0, rec->points_written = 0;
    edgeprobe__rec_fd_ours(rec, 1);
    edgeprobe__rec_header(rec);
    edgeprobe__rec_new_points(rec);
    for (g = __atomic_load_n(&rec->rings, __ATOMIC_ACQUIRE); g; g = g->next) edgeprobe__rec_snap_ring(rec, g, copy);
    edgeprobe__rec_tables(rec);
    edgeprobe__rec_flush(rec);
    rc = rec->err;
    rec->fd = saved_fd, rec->err = saved_err, rec->points_written = saved_points, rec->written = saved_written;
    rec->file_dev = saved_dev, rec->file_ino = saved_ino;
    return rc;
}
EDGEPROBE__FN int edgeprobe_record_snapshot(const char *path) {
    struct edgeprobe__recorder *rec;
    uint64_t *copy;
    int fd, rc = EDGEPROBE_ENOENT;
    EDGEPROBE__READY_OR_RETURN(r);
    rec = __atomic_load_n(&r->rec, __ATOMIC_ACQUIRE);
    if (!path || !*path) return EDGEPROBE_EINVAL;
    if (!rec || !__atomic_load_n(&rec->active, __ATOMIC_ACQUIRE) || !rec->flight) return EDGEPROBE_ENOENT;
    if (!(copy = (uint64_t *)EDGEPROBE_OS_ALLOC(rec->ring_bytes))) return EDGEPROBE_ENOMEM;
    fd = edgeprobe__libc_open(path, EDGEPROBE__O_REC, 0644);
    if (fd < 0) rc = -*edgeprobe__libc_errno();
    edgeprobe__lock(&rec->io);
    if (fd >= 0 && __atomic_load_n(&rec->running, __ATOMIC_ACQUIRE) && rec->flight) rc = edgeprobe__rec_snapshot_io(rec, fd, copy);
    edgeprobe__unlock(&rec->io);
    if (fd >= 0) edgeprobe__libc_close(fd);
    EDGEPROBE_OS_FREE(copy);
    return rc;
}
EDGEPROBE__FN uint64_t edgeprobe_record_lost(void) {
    edgeprobe__root *r = __atomic_load_n(&edgeprobe__this_object.root, __ATOMIC_RELAXED);
    struct edgeprobe__recorder *rec = r ? __atomic_load_n(&r->rec, __ATOMIC_ACQUIRE) : 0;
    edgeprobe__ring *g;
    uint64_t n = 0;
    if (!rec) return 0;
    for (g = __atomic_load_n(&rec->rings, __ATOMIC_ACQUIRE); g; g = g->next) n += __atomic_load_n(&g->lost, __ATOMIC_RELAXED);
    return n + rec->lost_io;
}
/* Mark the probes matching pattern as recorded (the lock is held while
 * edgeprobe_foreach runs its callback). */
typedef struct edgeprobe__rec_mark { edgeprobe__root *r; const char *pattern; int marked; } edgeprobe__rec_mark;
EDGEPROBE__FN int edgeprobe__rec_mark_one(const edgeprobe_info *info, void *arg);
EDGEPROBE__FN int edgeprobe__rec_mark_one(const edgeprobe_info *info, void *arg) {
    edgeprobe__rec_mark *m = (edgeprobe__rec_mark *)arg;
    struct edgeprobe__probe *p;
    if (info->kind == EDGEPROBE_KIND_FUNCTION || !edgeprobe__glob_match(m->pattern, info->name)) return 0;
    p = edgeprobe__probe_lookup(m->r, info->name);
    if (p && !p->recorded) __atomic_store_n(&p->recorded, 1, __ATOMIC_RELAXED), m->marked++;
    return 0;
}
EDGEPROBE__FN int edgeprobe_record_enable(const char *pattern) {
    edgeprobe__rec_mark m;
    int rc;
    EDGEPROBE__READY_OR_RETURN(r);
    if (!pattern || !*pattern) return EDGEPROBE_EINVAL;
    if ((rc = edgeprobe__check_pattern(pattern)) < 0) return rc;
    m.r = r, m.pattern = pattern, m.marked = 0;
    edgeprobe_foreach(edgeprobe__rec_mark_one, &m);
    if (!m.marked) return edgeprobe_enable(pattern); /* ENOENT for an unknown exact name */
    (void)edgeprobe_attach(pattern, edgeprobe__record_value, 0); /* HANDLER points, if any */
    rc = edgeprobe_enable(pattern);
    return rc < 0 ? rc : m.marked;
}
EDGEPROBE__FN int edgeprobe_record_funcs(const char *pattern) {
#if EDGEPROBE__HAS_PATCH
    return edgeprobe_func_attach(pattern, edgeprobe__record_entry, edgeprobe__record_exit, 0);
#else
    (void)pattern;
    return EDGEPROBE_ENOTSUP;
#endif
}

/* ---- EDGEPROBE_RECORD: from the environment ---- */
/* At the root's creation: the recorder, configured (not yet running). */
EDGEPROBE__FN void edgeprobe__record_configure(edgeprobe__root *r) {
    const char *path = EDGEPROBE__GETENV("EDGEPROBE_RECORD"), *s;
    struct edgeprobe__recorder *rec;
    edgeprobe_record_options opt = {0, 0, 0, 0};
    int ok = 1;
    if (!path || !*path) return;
    s = EDGEPROBE__GETENV("EDGEPROBE_RECORD_PID"); /* programs it runs inherit the environment */
    if (s && *s && (edgeprobe__parse_u64(s, &ok) != (uint64_t)(unsigned)edgeprobe__libc_getpid() || !ok)) return;
    if ((s = EDGEPROBE__GETENV("EDGEPROBE_RECORD_BUFFER"))) opt.ring_bytes = (size_t)edgeprobe__parse_u64(s, &ok);
    if (ok && (s = EDGEPROBE__GETENV("EDGEPROBE_RECORD_MIN_NS"))) opt.min_ns = edgeprobe__parse_u64(s, &ok);
    if (ok && (s = EDGEPROBE__GETENV("EDGEPROBE_RECORD_DEPTH"))) opt.max_depth = edgeprobe__record_depth(s, &ok);
    if ((s = EDGEPROBE__GETENV("EDGEPROBE_RECORD_ARGS")) && edgeprobe__streq(s, "1")) opt.flags = EDGEPROBE_RECORD_ARGS;
    if ((s = EDGEPROBE__GETENV("EDGEPROBE_RECORD_FLIGHT")) && edgeprobe__streq(s, "1")) opt.flags |= EDGEPROBE_RECORD_FLIGHT;
    if (!(rec = edgeprobe__rec_get_locked(r))) return;
    if ((s = EDGEPROBE__GETENV("EDGEPROBE_RECORD_SHM")) && edgeprobe__strnlen(s, sizeof rec->shm_dir) < sizeof rec->shm_dir)
        __builtin_memcpy(rec->shm_dir, s, edgeprobe__strnlen(s, sizeof rec->shm_dir) + 1);
    if (!ok || edgeprobe__rec_options(rec, &opt) < 0 || edgeprobe__strnlen(path, sizeof rec->path) >= sizeof rec->path) {
        EDGEPROBE_OS_LOG("EDGEPROBE_RECORD: bad EDGEPROBE_RECORD_BUFFER (a power of two, 4096 to 1 GiB), "
                         "EDGEPROBE_RECORD_MIN_NS or EDGEPROBE_RECORD_DEPTH (1 to 65536), or too long a path; "
                         "not recording");
        return;
    }
    __builtin_memcpy(rec->path, path, edgeprobe__strnlen(path, sizeof rec->path) + 1);
    if ((s = EDGEPROBE__GETENV("EDGEPROBE_RECORD_FUNCS")) && edgeprobe__strnlen(s, sizeof rec->funcs) < sizeof rec->funcs)
        __builtin_memcpy(rec->funcs, s, edgeprobe__strnlen(s, sizeof rec->funcs) + 1);
    rec->from_env = 1;
    rec->active = 1; /* the rings take events before the thread runs */
}
EDGEPROBE__FN int edgeprobe__record_env_wants(const edgeprobe__root *r) {
    return r->rec && r->rec->from_env;
}
EDGEPROBE__FN void edgeprobe__record_atexit(void);
EDGEPROBE__FN void edgeprobe__record_atexit(void) {
    int rc = edgeprobe_record_stop();
    if (rc < 0) { /* a full disk, say: the program went on, its events did not */
        char msg[200];
        edgeprobe__snprintf(msg, sizeof msg, "EDGEPROBE_RECORD: the trace file is incomplete (%s): %llu events lost",
                            edgeprobe__libc_strerror(-rc), (unsigned long long)edgeprobe_record_lost());
        EDGEPROBE_OS_LOG(msg);
    }
}
/* Start the thread before main (after this object's sites are registered
 * by the priority-101 constructor); the first object to get here starts
 * it. Then the functions of EDGEPROBE_RECORD_FUNCS, one glob at a time. */
__attribute__((EDGEPROBE__NOPATCH weak, visibility("hidden"), no_instrument_function, constructor(102)))
void edgeprobe__record_autostart(void);
__attribute__((EDGEPROBE__NOPATCH weak, visibility("hidden"), no_instrument_function, constructor(102)))
void edgeprobe__record_autostart(void) {
    edgeprobe__root *r = __atomic_load_n(&edgeprobe__this_object.root, __ATOMIC_ACQUIRE);
    struct edgeprobe__recorder *rec = r ? r->rec : 0;
    const char *s;
    char glob[EDGEPROBE_NAME_MAX + 1];
    int rc, started;
    if (!rec || !rec->from_env) return;
    edgeprobe__lock(&r->lock);
    started = !rec->running && rec->fd < 0 && rec->path[0] ? edgeprobe__rec_begin_locked(rec, rec->path) : 1;
    if (started < 0) rec->active = 0, rec->from_env = 0;
    edgeprobe__unlock(&r->lock);
    if (started < 0) {
        char msg[160];
        edgeprobe__snprintf(msg, sizeof msg, "EDGEPROBE_RECORD: cannot record: %s", edgeprobe_strerror(started));
        EDGEPROBE_OS_LOG(msg);
        return;
    }
    if (started) { /* another object's copy did it: this object's points now, while it is loaded */
        edgeprobe__lock(&rec->io);
        if (rec->running) edgeprobe__rec_new_points(rec), edgeprobe__rec_flush(rec);
        edgeprobe__unlock(&rec->io);
        return;
    }
    edgeprobe__libc_atexit(edgeprobe__record_atexit);
#if EDGEPROBE__HAS_PATCH
    if (rec->funcs[0] && edgeprobe_func_scan() == EDGEPROBE_ENOFUNC) { /* say so, once, rather than record nothing */
        EDGEPROBE_OS_LOG("recording markers only: no function can be recorded, no loaded object was built with "
                         "-fpatchable-function-entry=5");
        return;
    }
#endif
    for (s = rec->funcs; (rc = edgeprobe__env_next(&s, glob)) != 0;)
        if (rc < 0 || (rc = edgeprobe_record_funcs(glob)) < 0) {
            char msg[160];
            edgeprobe__snprintf(msg, sizeof msg, "EDGEPROBE_RECORD_FUNCS \"%s\": %s", glob, edgeprobe_strerror(rc));
            EDGEPROBE_OS_LOG(msg);
        }
}
#else /* freestanding: no recorder (no threads, no files) */
EDGEPROBE__FN void edgeprobe_record_event(int id, unsigned kind, const uint64_t *args, int nargs) {
    (void)id, (void)kind, (void)args, (void)nargs;
}
EDGEPROBE__FN_GPR struct edgeprobe__recorder *edgeprobe__recording(const edgeprobe__point *pt) {
    return (void)pt, (struct edgeprobe__recorder *)0;
}
EDGEPROBE__FN_GPR struct edgeprobe__recorder *edgeprobe__recording_ready(const edgeprobe__point *pt) {
    return (void)pt, (struct edgeprobe__recorder *)0;
}
EDGEPROBE__FN_GPR void edgeprobe__record_point(struct edgeprobe__recorder *rec, const edgeprobe__point *pt, unsigned kind,
                                           const uint64_t *args, int n) {
    (void)rec, (void)pt, (void)kind, (void)args, (void)n;
}
EDGEPROBE__FN void edgeprobe__record_hit(const edgeprobe__point *pt) { (void)pt; }
EDGEPROBE__FN void edgeprobe__record_configure(edgeprobe__root *r) { (void)r; }
EDGEPROBE__FN int edgeprobe__record_env_wants(const edgeprobe__root *r) { return (void)r, 0; }
EDGEPROBE__FN int edgeprobe_record_start(const char *path, const edgeprobe_record_options *opt) {
    return (void)path, (void)opt, EDGEPROBE_ENOTSUP;
}
EDGEPROBE__FN int edgeprobe_record_enable(const char *pattern) { return (void)pattern, EDGEPROBE_ENOTSUP; }
EDGEPROBE__FN int edgeprobe_record_funcs(const char *pattern) { return (void)pattern, EDGEPROBE_ENOTSUP; }
EDGEPROBE__FN int edgeprobe_record_stop(void) { return EDGEPROBE_ENOTSUP; }
EDGEPROBE__FN uint64_t edgeprobe_record_lost(void) { return 0; }
EDGEPROBE__FN int edgeprobe_record_snapshot(const char *path) { return (void)path, EDGEPROBE_ENOTSUP; }
#endif /* section 30 */
#endif /* EDGEPROBE_IMPLEMENTATION */
#ifdef __cplusplus
}
#endif
#endif /* EDGEPROBE_H */
