/* tools/prof_agent.c - the sampling latency profiler (the paper's section 9
 * case study): the agent that `edgeprobe prof` (tools/cmd_prof.c) preloads
 * as libedgeprobe-prof.so, for programs built with
 * -fpatchable-function-entry=5 or -finstrument-functions. It can also be
 * linked into a -finstrument-functions program:
 *
 *     cc -O2 -finstrument-functions -rdynamic prog.c ... \
 *        -Iinclude tools/prof_agent.c -pthread
 *     ./prog                          # report on stderr at exit
 *     EDGEPROBE_PROF_SVG=prof.svg EDGEPROBE_PROF_OUT=prof.txt ./prog
 *
 * This file defines EDGEPROBE_IMPLEMENTATION (the header's code: a program
 * it is linked into must not define it elsewhere) and EDGEPROBE_PROVIDER
 * (so the program gets edgeprobe's __cyg_profile_func_enter/exit), a
 * constructor that starts the profiler and a destructor that prints the
 * report. It may itself be compiled with or
 * without -finstrument-functions: every function here is no_instrument.
 *
 * HOW IT SAMPLES. Every function has a *window* state. While a function's
 * window is open, its entry and exit probes are all active and bound to the
 * handler below: an entry pushes (function, window, rdtsc) on a per-thread
 * shadow stack, an exit pops the matching frame and records one sample
 * (duration in TSC ticks, less the profiler's own ticks on that thread:
 * see account()). Once the function's observation interval of the epoch
 * is over and it has K samples (EDGEPROBE_PROF_K, default 10), an entry
 * closes the window and switches every probe of the function off (entry
 * and exit together). A function probe's calls between its K samples and
 * that end are counted by the header's skip path, with no handler
 * (SKIPPED COUNTS). A background thread wakes every epoch
 * (EDGEPROBE_PROF_EPOCH_MS, default 10), re-opens every closed window
 * (probes on first, then the window), folds the calls counted in each
 * function's interval into its estimate and starts the next intervals
 * (COUNTING CALLS, below); it also wakes inside each epoch, to start
 * counts again (LATER COUNTS).
 *
 * WHY THE SHADOW STACK CANNOT BE CORRUPTED BY TOGGLING. Each window of a
 * function has its own odd number (seq); a frame remembers the seq it was
 * pushed in. Invariant: while window s of f is open, all of f's probe sites
 * are active and bound, so every entry and exit of f is seen; hence the
 * frames of f tagged s are exactly the live invocations of f that started
 * in window s. An exit seen in window s therefore matches the topmost frame
 * of f only if that frame is tagged s; otherwise (an entry missed while the
 * probes were off, a window closed meanwhile) the exit is ignored and the
 * old frame dropped: a lost sample, never a wrong one. A new probe site of
 * f (an inlined copy, discovered on its first call, before any handler can
 * see it) closes f's window from the discovery callback; the window
 * re-opens only once that site is bound too.
 *
 * EXITS IT CANNOT SEE. gcc and clang -O2 end a void function with `jmp
 * __cyg_profile_func_exit` (a sibling call) unless built with
 * -fno-optimize-sibling-calls. That hook runs after the function's frame is
 * gone, with the caller's return address: the provider finds no call of the
 * hook to switch (only the caller's call of the function, which it must
 * never touch), lists the site as not patchable and binds no handler to it.
 * Such a function cannot be timed: the profiler switches its other sites
 * off (they would cost a handler call each for nothing) and names it in the
 * report as not observable.
 *
 * Environment:
 *   EDGEPROBE_PROF_K=10          samples per function per window
 *   EDGEPROBE_PROF_SETTLE=0      after this many samples of a function, K / 5
 *                                a window (SETTLED FUNCTIONS; 0: never)
 *   EDGEPROBE_PROF_EPOCH_MS=10   re-activation period
 *   EDGEPROBE_PROF_EPOCHS=thread thread (default) | inline: a program of one
 *                                thread runs the epochs itself (INLINE EPOCHS)
 *   EDGEPROBE_PROF_INLINE_CLOCK  timer: inline parts timed by the CPU-time
 *                                timer, not the task-clock event (THE PARTS'
 *                                CLOCK)
 *   EDGEPROBE_PROF_DAEMON_FILE   set by `edgeprobe prof`: daemon()'s parent
 *                                writes its child's pid to FILE.PID, PID its
 *                                own (DAEMONS, tools/daemon_follow.h)
 *   EDGEPROBE_PROF_EPOCH_PARTS=4 parts of an epoch, each with its own counts
 *                                (1 to 16; LATER COUNTS; from 8, staggered:
 *                                STAGGERED COUNTS)
 *   EDGEPROBE_PROF_OUT=path      report file (default stderr)
 *   EDGEPROBE_PROF_SVG=path      also write an SVG chart of the hottest functions
 *   EDGEPROBE_PROF_TOP=25        table rows (0 = all)
 *   EDGEPROBE_PROF_SORT=total    the table's order: total | self | calls
 *   EDGEPROBE_PROF_GRAPH=1       callers and callees of the table's functions
 *   EDGEPROBE_PROF_FOLDED=path   folded stacks, derived from the call graph
 *   EDGEPROBE_PROF_MODE=sample   sample (default) | on: never switch off |
 *                                off: switch every probe off once discovered
 *                                (measures the disabled-probe cost) |
 *                                none: profiler not started (probes stay in the
 *                                provider's unbound path)
 *   EDGEPROBE_PROF_TOGGLE=call   call: toggle with edgeprobe_call_(de)activate
 *                                (default) | provider: edgeprobe_provider_
 *                                (de)activate (slower, see the README)
 *   EDGEPROBE_PROF_QUIET=1       no report (the summary line still goes to OUT)
 *   EDGEPROBE_PROF_SUMMARY=path  append a one-line machine-readable summary
 *   EDGEPROBE_PROF_DEBUG=1       per-function window state at exit (2: also
 *                                the first unmatched exits, live)
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
/* The agent is one translation unit, and the only one of its object (the
 * preloaded library, or a program it is linked into) that carries the
 * header's implementation and the provider's hooks. */
#define EDGEPROBE_IMPLEMENTATION
/* It switches every function on at start: gcc's entries become NOP5s at a
 * single-threaded scan (launched: before main), rather than map and fill a
 * mirror page per text page; attached, with threads running, an object's
 * mirror pages come in one mmap (RESULTS-real, "start-up without mirror
 * pages"). */
#define EDGEPROBE_FUNC_BULK 1
#ifdef PROF_ATTACHED /* libedgeprobe-attach.so: see ATTACHED at the end */
#define EDGEPROBE__ROOT_LATER /* no registration in the seized thread: the header, section 19 */
#else
#define EDGEPROBE_PROVIDER
#endif
#include "edgeprobe.h"
#include "prof_common.h"
#ifndef PROF_ATTACHED
#include "signal_defer.h" /* the program's handlers wait while ours run */
#include "daemon_follow.h" /* daemon(): the profile follows its child (DAEMONS) */
#endif

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <linux/futex.h>
#include <locale.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define NOI __attribute__((no_instrument_function))
#define P_FN static NOI

/* ---- configuration --------------------------------------------------------- */
static int prof_mode = PROF_MODE_SAMPLE;
static int prof_toggle_provider; /* 0: call patch API, 1: provider API */
static unsigned prof_k = PROF_DEFAULT_K;
static unsigned long prof_settle = PROF_DEFAULT_SETTLE; /* SETTLED FUNCTIONS; 0: never */
static int prof_exact_calls; /* EXACT CALLS: every call counted, none estimated */
static unsigned prof_epoch_ms = PROF_DEFAULT_EPOCH_MS;
static int prof_top = PROF_DEFAULT_TOP;
static int prof_sort = PROF_SORT_TOTAL;
static volatile int prof_running;

#define MAX_DEPTH 512        /* shadow stack frames per thread */
#define MAX_IDS (1u << 22)   /* edgeprobe ids (EDGEPROBE__CHUNK * CHUNKS) */
#define FN_HASH (1u << 20)   /* function table slots */
#define ARENA_BYTES (1ull << 30)
#define HB_BITS 6
#define HB (1u << HB_BITS)   /* histogram: sub-buckets per power of two
                                (a bucket is 1/64 of its power of two wide) */
#define HEXP 48              /* values up to 2^48 ticks */
#define NBUCKETS ((HEXP - HB_BITS + 1) * HB)

P_FN uint64_t rdtsc(void) { return __builtin_ia32_rdtsc(); }

/* ---- memory: one reserved region, bump-allocated, never freed.
 * No malloc on the probe paths: the program's own allocator may be
 * instrumented, and the discovery callback runs under the registry lock. */
static char *arena;
static size_t arena_used;
#define ARENA_ROUND(n) (((n) + 15) & ~(size_t)15)
P_FN void *arena_alloc(size_t n) {
    size_t off = __atomic_load_n(&arena_used, __ATOMIC_RELAXED);
    n = ARENA_ROUND(n);
    do /* moved only by what fits: arena_used is the report's memory figure */
        if (off + n > ARENA_BYTES) return 0;
    while (!__atomic_compare_exchange_n(&arena_used, &off, off + n, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
    return arena + off;
}
/* Page in the arena's next `bytes` with one call (Linux 5.14; an older
 * kernel refuses, and the pages fault in one at a time): start-up makes a
 * record and a site for every function, about 430 bytes, and a page cost
 * a sixth more here faulted in than populated (bench/real/populate_cost.c;
 * RESULTS-real, "ninth session"). */
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
P_FN void arena_populate(size_t bytes) {
    uintptr_t used = (uintptr_t)arena + __atomic_load_n(&arena_used, __ATOMIC_RELAXED);
    uintptr_t lo = (used + 4095) & ~(uintptr_t)4095, hi = (used + bytes) & ~(uintptr_t)4095;
    if (hi > lo && hi <= (uintptr_t)arena + ARENA_BYTES) madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE);
}
/* Reserved well below the loaded objects (a hint the kernel takes when
 * the range is free): not where the kernel would put it, just under them,
 * which in a process with many threads (attached) can be the very range
 * where gcc-form functions need their mirror pages (header 27.4: text less
 * 0x6f6f6f6b), this library's own calibration target among them. */
#define RESERVE_BELOW (8ull << 30)
P_FN void *reserve(size_t n) {
    uintptr_t here = (uintptr_t)&arena_alloc;
    void *hint = here > RESERVE_BELOW + n + (1ull << 32) ? (void *)((here - RESERVE_BELOW - n) & ~0xfffffull) : 0;
    void *p = mmap(hint, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    return p == MAP_FAILED ? 0 : p;
}

/* ---- functions and sites -------------------------------------------------- */
typedef struct prof_func prof_func;
typedef struct prof_site {
    int id;
    int kind;                /* EDGEPROBE_KIND_ENTRY / _EXIT */
    int state;               /* 0 discovered, 1 bound, 2 switched off for
                                good (mode off, or its function cannot be
                                sampled), -1 cannot be bound */
    int32_t rel32;           /* the call's displacement, for call_activate */
    unsigned char *addr;     /* the call instruction */
    prof_func *func;
    struct prof_site *next;      /* in func->sites */
    struct prof_site *next_new;  /* pending-bind list */
} prof_site;

struct prof_func {
    const char *name;        /* provider name: symbol, or "0x..." */
    char *resolved;          /* name found in the ELF symtab at report time */
    uintptr_t addr;          /* function address (first handler value) */
    unsigned seq;            /* window number; odd = open */
    int busy;                /* a thread is switching this function */
    int broken;              /* a site cannot be bound: never opened */
    int exit_hidden;         /* an exit site is not patchable (a tail-called
                                exit hook): its exits cannot be seen */
    unsigned nsites, nbound;
    prof_site *sites;
    prof_func *next_all;
    /* current window (written under busy) */
    unsigned win_samples, win_entries;
    /* calls: counted in the observation interval of each epoch (see
     * COUNTING CALLS at the top), folded into est_calls at the next tick */
    uint64_t obs_len;        /* the interval, in the caller's own ticks */
    uint64_t obs_count;      /* entries counted in the current interval */
    uint64_t obs_cap;        /* a count that ends it (0: all_cap or PROF_COUNT_CAP) */
    int obs_open;            /* the window was open when the epoch began */
    double obs_rate;         /* calls per own tick, from the last epoch */
    double rest_span, rest_rate; /* THE REST: own ticks of the last epoch
                                    extrapolated, and at what rate */
    double est_calls;        /* calls of the epochs folded so far */
    double var_count, var_settle, var_flat, var_share; /* ERROR BOUNDS: the
                                               estimate's variance, by source */
    double extrapolated;     /* calls extrapolated, all epochs (ERROR BOUNDS) */
    double obs_seen;         /* own ticks observed over all threads, when */
    unsigned obs_end_mark;   /* the interval ended early in epoch mark - 1
                                (end_interval) */
    unsigned opened_for;     /* the epoch its window was (re-)opened for:
                                until that tick, entries neither count nor
                                close it (window_after_entry) */
    int estimated;           /* an epoch's calls were scaled, not all counted */
    int from_load;           /* adopted while its profile ran (an object loaded
                                then): its calls before that were not seen */
    /* statistics */
    uint64_t samples, entries, windows, closes, ignored, min, max; /* min, max: of the samples */
    struct prof_lat *lat;    /* its samples' weights and histogram (WEIGHTS),
                                from the arena at its first timed call: most
                                functions are never sampled, and touching
                                25 KiB each at start-up costs page faults */
    unsigned lat_used[2];    /* by bank: the last epoch a call of it went for a slot */
    double wsum, wn;         /* sum of weight x duration, sum of weights */
    double lat_calls;        /* the calls of the epoch being folded (WEIGHTS) */
    double lat_carry;        /* calls of epochs without samples, not yet weighed */
    struct prof_edge *callers; /* where its samples were called from */
    /* report time (CALL GRAPH): ticks of the run each sampled tick of f
     * stands for; the estimated ticks of its outermost calls, of the calls
     * it made to probed functions, and its self time */
    double scale, outer_ticks, callee_ticks, self_ticks;
    uint64_t thread_mask;    /* the threads its samples came from (tstate bit) */
    /* SKIPPED COUNTS: its function probe's id + 1 (0: not one), the id + 1
     * of the count armed (0: none), a try-lock for both, whether that count
     * is the tick gap's (its calls are no epoch's: TICK GAP) and the epoch
     * whose entry armed it, and its calls counted so */
    int skip_site, skip_armed, skip_busy, skip_gap;
    unsigned skip_epoch;
    uint64_t skipped;
    /* NESTED CALLS: edgeprobe_func_nested at the last fold */
    long nested_seen;
    /* DORMANT FUNCTIONS: not in the epoch thread's awake set */
    int dormant;
    uint64_t entries_folded; /* entries at the last fold (epoch thread) */
    struct prof_func *next_woken;
    /* LATER COUNTS: whether the epoch has any (second_word), the calls
     * counted when the last began (its end: count_end), when it began
     * (TSC; the mid-tick's number); where the rate of the count under way
     * is read from (rate_from calls, rate_seen own ticks: its start or the
     * last mid-tick, whichever is later; 0 at the tick); the spans no count
     * observed that wait for a rate (gap_span, the last from gap_from), the
     * calls that settled ones stand for (gap_calls) and the rate for the
     * rest of the part (gap_rate, -1: none). The fold resets them. */
    uint64_t second_word;
    uint64_t second_from, rate_from;
    double rate_seen;
    uint64_t second_tsc;
    unsigned second_tick;
    double gap_span, gap_from, gap_calls, gap_rate;
    double gap_settled;      /* the spans gap_calls stands for (ERROR BOUNDS) */
    double gap_n, gap_var;   /* the calls gap_rate was read from, and the
                                noise of gap_calls */
    uint64_t start_from;     /* where the count under way began (calls and */
    double start_seen;       /* own ticks): RATES FROM A FEW CALLS */
};
/* A timed call's place in its function's bank of samples (WEIGHTS): the
 * epoch its entry was in, and its slot (-1: none; mode on needs none). */
typedef struct lat_ticket {
    unsigned epoch;
    int slot;
} lat_ticket;

/* ---- call graph ------------------------------------------------------------
 * Every sample is filed under its caller: the return address of the call
 * (function probes; resolved to the probed function around it at report
 * time, so the caller is exact whether or not its own window was open), or
 * the frame below on the shadow stack (-finstrument-functions: the nearest
 * caller whose window was open). At report time each edge's sampled ticks
 * are scaled as its callee's are (its estimated calls over its samples):
 * self time = inclusive time less the edges to its callees; the inclusive
 * time of the table counts outermost calls only, leaving out samples nested
 * in a call of the same function on the same thread: called from itself
 * (direct recursion, from the return address), or with a timed call of it
 * still under way (a shadow stack of the timed calls). The flame graph
 * splits every function's time over its callers in the proportions of the
 * edges, at every depth (as gprof does): the stacks are derived, not
 * sampled. */
typedef struct prof_edge {
    struct prof_edge *next;  /* in callee->callers */
    uintptr_t ra;            /* function probes: the call's return address */
    prof_func *caller;       /* the calling function, if known (NULL: not
                                probed, or a thread's first function) */
    double calls, ticks;     /* sampled calls from there, their ticks,
                                weighted (WEIGHTS) */
    double nested;           /* ticks of those under a timed call of the
                                same function on the same thread, weighted */
} prof_edge;

static prof_site **site_by_id;
static prof_func **fn_table;
static prof_func *fn_all;
static unsigned fn_count;
/* ---- dormant functions -------------------------------------------------
 * A program has thousands of functions (redis: 3,956) and calls a few
 * hundred of them in any epoch; the epoch thread's passes over all of them
 * (re-open, fold, weigh) took 6% of redis's CPU samples under prof. A
 * function whose window is open, that had no entry in the epoch just
 * folded and no rate to extrapolate, is left out of those passes (it would
 * add nothing to its estimate, and its window needs no re-opening) until
 * an entry wakes it: the entry, after counting itself, sees the flag and
 * pushes the function on `woken`, which the epoch thread takes at its next
 * pass. A site of it found later (the provider) shuts its window, which no
 * entry then passes, so the discovery wakes it too. The two sides follow
 * Dekker's pattern: the entry increments f->entries (the discovery moves
 * f->seq) then reads f->dormant, the epoch thread sets f->dormant then
 * reads f->entries and f->seq again (all SEQ_CST), so one sees the other;
 * whichever clears the flag (compare-and-swap) owns the function's return
 * to the awake set. A dormant function's banks of samples stop advancing,
 * and an entry that finds its bank two or more epochs stale claims it for
 * its epoch (lat_begin): the bank holds no slot, or the slots of an epoch
 * never weighed (an entry that woke its function after the fold had taken
 * the woken list), whose exits weigh from the ring (weight 1 when the ring
 * has none). Its interval does not grow while it sleeps (fold_function
 * would double it). */
static prof_func **awake;    /* the epoch thread's: functions it passes over */
static unsigned nawake;
static prof_func *woken;     /* new or woken functions (lock-free stack) */
static prof_site *pending;   /* discovered, not yet bound (lock-free stack) */
static unsigned long long sites_discovered, sites_entry, sites_exit;
static unsigned long long bg_epochs, bind_errors, sites_bound;

/* ---- per-thread state -------------------------------------------------- */
typedef struct frame {
    prof_func *f;
    unsigned seq;
    uintptr_t pos;           /* stack position of the entry */
    uintptr_t slot;          /* function probes: where its return address
                                is (DEAD FRAMES; 0: the provider's frame) */
    struct prof_func *tail_of; /* the timed call it is a tail call of (TAIL CALLS) */
    const struct prof_site *site; /* the entry site */
    uint64_t tsc;
    uint64_t own;            /* tsc less the thread's profiler ticks */
    int timed;               /* its exit records a sample */
    lat_ticket lat;          /* where its sample goes (WEIGHTS) */
} frame;
typedef struct tstate {
    int inside, depth;
    uint64_t bit;            /* 1 << (its number mod 64): f->thread_mask */
    struct tstate *next;
    /* The profiler's own ticks on this thread (handlers, measured, plus the
     * calibrated trampoline cost of every event): subtracted from the time
     * of sampled calls and from the wall time of observation intervals. */
    uint64_t ov;
    /* The same, as taken out of its CPU time: a handler is charged no more
     * than it can have run (add_ov); for its own clock (COUNTING CALLS). */
    uint64_t ovc;
    unsigned tick_seq;       /* the epoch of chk_* */
    uint64_t chk_tsc, chk_own, chk_ov, chk_ovc; /* the last look at its CPU
                                 time: own ticks since the epoch's tick then */
    uint64_t chk_cpu_ns;     /* its CPU clock at the last look (0: none) */
    uint64_t last_tsc;       /* the end of its last handler */
    uint64_t ov_folded, ovc_folded; /* ov, ovc at the tick (epoch thread) */
    long tid;                /* for its CPU-time clock */
    uint64_t cpu_folded_ns;  /* its CPU time at the tick (epoch thread) */
    int cpu_known;           /* cpu_folded_ns is set (cpu_origin) */
    int gone;                /* exited and folded: its clock is read no more,
                                and no reader takes it for a thread's (the
                                epoch thread sets it; GONE THREADS); cleared
                                by the thread that takes it over (REUSED
                                RECORDS) */
    unsigned owner;          /* the threads it served, this one included: a
                                reader on another thread that finds it
                                changed has read two owners' fields */
    struct tstate *next_free; /* in ts_free, while gone */
    double epoch_run;        /* its own ticks in the epoch that ended, from
                                its CPU clock (epoch thread; < 0: unknown) */
    double gap_run;          /* its own ticks from that epoch's end to the
                                tick (TICK GAP) */
    uint64_t read_tsc;       /* when restart_clocks read its clock */
    uint64_t fold_read_tsc;  /* when epoch_own_ticks read it */
    int ran_gap;             /* it ran between the two (restart_clocks) */
    unsigned long skipped_seen; /* its calls skipped, as last charged (SKIPPED COUNTS) */
    unsigned long long events, samples, toggles, toggle_calls, toggle_ticks;
    unsigned long long stale, unmatched, overflow, toggle_errors, toggle_busy;
    /* the report's count of threads: the earlier owners that had events
     * since the counters were reset, and events when this one took it */
    unsigned long long owners_before, events_base;
    frame stack[MAX_DEPTH];
} tstate;
/* The epoch's tick: set by the epoch thread once it has re-opened every
 * window (see COUNTING CALLS). */
static uint64_t tick_tsc;
static unsigned tick_seq;
static __thread tstate *my_ts;
static int inline_on; /* the epochs run on the program's thread (INLINE EPOCHS; launched only) */
static int inline_perf = -1; /* their task-clock event's descriptor, or -1 (THE PARTS' CLOCK) */
P_FN void inline_thread_seen(void);
static tstate *ts_all;
static tstate bg_ts; /* the background thread's counters */

P_FN void cpu_origin(tstate *t);
/* REUSED RECORDS. A record is 40 KiB (its shadow stack), from the arena:
 * one per thread that ever ran a handler filled the arena's 1 GiB after
 * about 26,000 threads (tests/prof/churn.c in mode on), and every thread
 * after them went unprofiled. So the epoch thread, once it has found a
 * thread gone (GONE THREADS), pushes its record on ts_free, and a thread's
 * first event takes one from there before it makes one: the records are
 * about the threads alive at once, plus those that exited in the last
 * epochs (two folds at least, more when the epoch thread waits for a CPU:
 * a gone thread's last events must be folded first; churn.c, 30 threads a
 * millisecond: 500-1,200 records for 30,000 threads).
 *   What a record counts for the report (events, samples, toggles, ov...)
 * goes on from where it was: the sums over ts_all stay whole. What is the
 * thread's (its id, clock origin, looks, shadow stack) is set anew, as for
 * a new record, while the record is still gone: every reader skips gone
 * records (the epoch thread's passes by the flag; the other threads'
 * readers by the flag too, and by tick_seq and epoch_run, which a gone
 * record keeps from matching), and the new owner clears the flag last
 * (release). A reader on another thread that passed the flag before the
 * record went (a handler preempted across two epochs) could still read
 * the old owner's cpu_folded_ns beside the new one's tid: the owner number,
 * moved before anything else, tells it (owner_read, owner_same).
 *   One thread pops at a time (a try-lock; a thread that finds it held
 *   makes a record), and only the epoch thread pushes: a record cannot be
 *   popped and pushed back while a pop looks at it, so the compare-and-swap
 *   cannot take a stale next (ABA). No lock is waited for and nothing is
 *   allocated: it runs in a handler. */
static tstate *ts_free;       /* gone records (the epoch thread pushes) */
static int ts_free_busy;      /* a thread is popping */
static unsigned ts_made, ts_reused; /* records made; taken from ts_free */
/* A gone record for ts_free: after every write of the epoch thread to it
 * (release: the new owner reads them). */
P_FN void ts_free_push(tstate *t) {
    t->next_free = __atomic_load_n(&ts_free, __ATOMIC_RELAXED);
    while (!__atomic_compare_exchange_n(&ts_free, &t->next_free, t, 1, __ATOMIC_RELEASE, __ATOMIC_RELAXED)) {}
}
/* A gone record, or NULL: none, or another thread is popping. */
P_FN tstate *ts_free_pop(void) {
    int zero = 0;
    tstate *t;
    if (!__atomic_load_n(&ts_free, __ATOMIC_RELAXED) ||
        !__atomic_compare_exchange_n(&ts_free_busy, &zero, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
        return 0;
    t = __atomic_load_n(&ts_free, __ATOMIC_ACQUIRE);
    while (t && !__atomic_compare_exchange_n(&ts_free, &t, t->next_free, 1, __ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE)) {}
    __atomic_store_n(&ts_free_busy, 0, __ATOMIC_RELEASE);
    return t;
}
/* What is the calling thread's in t, as in a new record: its id and clock
 * origin, no look yet in this epoch, an empty shadow stack. The looks
 * start here with nothing seen (a reader's TSC bound from a look of 0 was
 * the time since boot). ov, ovc and the counters go on (REUSED RECORDS). */
P_FN void tstate_own(tstate *t) {
    uint64_t ov = t->ov, ovc = t->ovc;
    t->tid = syscall(SYS_gettid);
    t->inside = t->depth = 0;
    t->tick_seq = __atomic_load_n(&tick_seq, __ATOMIC_ACQUIRE) - 1; /* no look in this epoch yet */
    t->ov_folded = t->chk_ov = ov;
    t->ovc_folded = t->chk_ovc = ovc;
    t->chk_own = t->chk_cpu_ns = 0;
    t->chk_tsc = rdtsc();
    t->last_tsc = t->read_tsc = t->fold_read_tsc = 0;
    t->cpu_folded_ns = 0;
    t->cpu_known = 0;
    cpu_origin(t);
    t->skipped_seen = edgeprobe_func_thread_skipped(); /* its calls from here on */
}
/* A gone record taken over by the calling thread, or NULL. Its epoch_run,
 * gap_run and ran_gap are as a gone thread's (-1, 0, 0: the epoch thread
 * left them so), which readers take for "not read". */
P_FN tstate *tstate_reuse(void) {
    tstate *t = ts_free_pop();
    if (!t) return 0;
    __atomic_store_n(&t->owner, t->owner + 1, __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_RELEASE); /* before any field of the new owner (owner_same) */
    t->owners_before += t->events != t->events_base;
    t->events_base = t->events;
    tstate_own(t);
    __atomic_fetch_add(&ts_reused, 1, __ATOMIC_RELAXED);
    __atomic_store_n(&t->gone, 0, __ATOMIC_RELEASE);
    return t;
}
/* A record for the calling thread: a gone one, else a new one; NULL when
 * the arena is full. */
P_FN tstate *tstate_new(void) {
    tstate *t = tstate_reuse();
    if (!t) {
        if (!(t = (tstate *)arena_alloc(sizeof *t))) return 0;
        t->owner = 1;
        t->bit = 1ull << (__atomic_fetch_add(&ts_made, 1, __ATOMIC_RELAXED) & 63);
        tstate_own(t);
        t->next = __atomic_load_n(&ts_all, __ATOMIC_RELAXED);
        while (!__atomic_compare_exchange_n(&ts_all, &t->next, t, 1, __ATOMIC_RELEASE, __ATOMIC_RELAXED)) {}
    }
    my_ts = t;
    return t;
}
/* For a reader on another thread (or the epoch thread, in a fold, while a
 * new owner may take a record it freed): whether t is a thread's, and its
 * owner now; after reading, whether that owner still has it (else the
 * fields read may be two owners'). */
P_FN int owner_read(const tstate *t, unsigned *owner) {
    *owner = __atomic_load_n(&t->owner, __ATOMIC_ACQUIRE);
    return !__atomic_load_n(&t->gone, __ATOMIC_ACQUIRE);
}
P_FN int owner_same(const tstate *t, unsigned owner) {
    __atomic_thread_fence(__ATOMIC_ACQUIRE); /* the fields were read before */
    return __atomic_load_n(&t->owner, __ATOMIC_RELAXED) == owner;
}
/* This thread's state (made on its first event), with the event counted;
 * NULL when the arena is full. */
static uint64_t cal_skip; /* what a call the skip path counts costs (calibrate) */
static uint64_t cal_skip_charge; /* what each is charged: cal_skip, but in experiments */
/* Charge the calls the trampolines skipped on this thread since its last
 * event to its profiler time (SKIPPED COUNTS): their ticks lie between
 * that event and this one, so a timed call's duration, which spans the
 * two, leaves them out whichever callee they were. */
P_FN void charge_skipped(tstate *t) {
    unsigned long now = edgeprobe_func_thread_skipped();
    if (now < t->skipped_seen) /* a new record for this thread: a new start */
        t->skipped_seen = now;
    else if (now != t->skipped_seen) {
        uint64_t d = (uint64_t)(now - t->skipped_seen) * cal_skip_charge;
        t->skipped_seen = now;
        t->ov += d;
        t->ovc += d;
    }
}
P_FN tstate *count_event(void) {
    tstate *t = my_ts;
    if (!t) {
        if (!(t = tstate_new())) return 0;
        if (__atomic_load_n(&inline_on, __ATOMIC_ACQUIRE)) inline_thread_seen(); /* a thread the epochs missed? */
    }
    t->events++;
    charge_skipped(t);
    return t;
}

/* ---- histogram ------------------------------------------------------------ */
P_FN unsigned bucket_of(uint64_t v) {
    unsigned e;
    if (v < HB) return (unsigned)v;
    e = 63u - (unsigned)__builtin_clzll(v);          /* >= HB_BITS */
    if (e >= HEXP) return NBUCKETS - 1;
    return (e - HB_BITS + 1) * HB + (unsigned)((v >> (e - HB_BITS)) & (HB - 1));
}
P_FN double bucket_mid(unsigned b) {
    unsigned e, sub;
    double lo, width;
    if (b < HB) return b;
    e = b / HB + HB_BITS - 1;
    sub = b % HB;
    width = (double)(1ull << (e - HB_BITS));
    lo = (double)(1ull << e) + sub * width;
    return lo + width / 2;
}

/* ---- weighting latencies -----------------------------------------------------
 * WHY SAMPLES ARE WEIGHTED. Every epoch gives a function up to K samples,
 * however many calls it had. Where the calls' rate and their duration vary
 * together (a server: thousands of short calls an epoch while busy, a few
 * long ones while idle), samples weighed alike describe the epochs, not the
 * calls: tests/prof/phases.c, 95% of its calls 3,000 ticks long, got its
 * 1 ms calls' 2,768,896 ticks for its p50 and a mean 19 times the truth. So a
 * sample stands for the calls it represents in its epoch, and mean, p50,
 * p99 (a histogram of weights), total, self and the call graph's edges are
 * weighted; min is the least sample. In mode on (every call timed) every
 * weight is 1. At report time a function's weights are scaled to add up
 * to its estimated calls (the weights of samples lost, or still under way
 * when the report is written, are spread over the others).
 *
 * WHOSE CALLS. The epoch's calls over its samples (calls_e / n_e, calls_e
 * as COUNTING CALLS counted or estimated them in fold_function) is not
 * enough: the timed calls are an epoch's first K, not a random K. In an
 * epoch where a sparse phase ends and a busy one begins, the first timed
 * calls are the sparse phase's last (long) ones, and each stood for 500
 * short calls: phases.c's mean came out 4.8 times the truth. So the first
 * timed calls of an epoch, as long as they came much slower (ticks per
 * call, from one's entry to the next one's, by the function's entry count
 * f->entries and the TSC, over LAT_RATE_NEAR times) than the epoch's calls
 * after the last timed one, stand for the calls from each to the next (one
 * each, when every call was timed); the others share the epoch's other
 * calls alike. Not a span each: the timed calls are a block of consecutive
 * calls, and where calls repeat a pattern (a recursion: deep levels come
 * last) the last ones are no likelier than the others to be like the
 * rest. The time that sharing gives the calls must fit in the threads'
 * time from the first sharing sample to the tick (lat_share): else a short
 * call preempted while it was timed in a busy epoch stands for hundreds of
 * calls as long as itself. What is left: a phase change after the K-th
 * timed call of an epoch
 * is not seen (the rest is taken to be like the timed calls: phases.c
 * loses 1-2% of its long calls so). The calls of an epoch with no sample
 * go to the next epoch that has one.
 *
 * WHICH EPOCH. A sample belongs to the epoch its call entered (tick_seq at
 * the entry): that epoch counted the entry and timed it, and a call longer
 * than an epoch (a poll that blocks) belongs to where it was timed, not to
 * the sparse epoch it ends in.
 *
 * HOW, WITHOUT A LOCK ON THE SAMPLING PATH. A timed entry of epoch e takes
 * a slot in its function's bank e & 1: the bank's word is e << 32 | slots
 * taken, and taking one is a compare-and-swap that fails once the bank
 * serves another epoch (the entry is then not timed); the entry writes its
 * count and time there. Its exit writes the duration (and the edge) into
 * the slot. At the tick, once tick_seq has moved on (new entries use the
 * other bank), the epoch thread swaps the word for (e + 2) << 32, works out
 * the slots' weights, publishes the weight of the calls still running in a
 * ring of the last LAT_RING epochs, then takes every slot, adding each
 * duration found there with its weight. The exit of a call still running
 * then (its slot taken empty) adds its sample itself, with the ring's
 * weight. No malloc (the block comes from the arena, once), no system
 * call, no lock: compare-and-swap loops only, safe in a signal handler.
 *
 * RACES WITH THE FOLD. A slot's word is tag << 48 | state (tag: the epoch's
 * low 16 bits; state: empty, writing, taken, or the duration + 1). The exit
 * moves empty -> writing -> duration by compare-and-swap; the fold swaps
 * whatever is there for taken. Exactly one of them wins each slot: either
 * the fold takes the duration (the exit's last swap succeeded first) or the
 * exit finds its slot taken and adds the sample itself; a sample is never
 * added twice, and an exit reads the ring only after the fold wrote it (the
 * ring before the slots; the failed swap reads the fold's write). What can
 * go wrong is weight accuracy, for one epoch: an entry that read tick_seq
 * just before the tick and takes its slot after the swap is not timed; an
 * entry counted in the next epoch's calls but timed in this one (between
 * fold_function's swap of the count and the tick) moves one call's weight
 * one epoch; calls still running at the tick share their weights (the
 * ring holds one per epoch); an entry preempted between taking its slot
 * and marking it leaves a slot the fold skips (its spans go to the others)
 * and its sample is lost (the next use of the slot overwrites it). A call
 * that outlives LAT_RING epochs (LAT_RING x 10 ms) finds its weight gone
 * and weighs 1; an exit that waits 65,536 epochs (11 minutes at 10 ms)
 * between its look at the tick and its swap could match a later call's
 * slot by tag: each sample is still added once, with the other's weight. */
#define LAT_RING 64
#define LAT_VAL_BITS 48
#define LAT_VAL_MASK ((1ull << LAT_VAL_BITS) - 1)
#define LAT_EMPTY 0ull
#define LAT_WRITING LAT_VAL_MASK
#define LAT_TAKEN (LAT_VAL_MASK - 1)
#define LAT_MAX_D (LAT_VAL_MASK - 3) /* longest duration kept (+1 stored) */
typedef struct lat_slot {
    uint64_t word;           /* tag << 48 | state */
    uintptr_t edge;          /* its prof_edge | 1 when nested */
    uint64_t pos;            /* f->entries at its entry: its place in the epoch */
    uint64_t tsc;            /* its entry's time */
} lat_slot;
#define LAT_MAX_CAP 1024u
/* Per sampled function: 24 + 12 x LAT_RING + 8 x NBUCKETS + 64 x cap bytes
 * (25,368 at K=10: cap 40; the unweighted histogram it replaces was 11,008). */
typedef struct prof_lat {
    uint64_t bank[2];        /* epoch << 32 | slots taken */
    uint64_t ring[LAT_RING]; /* epoch << 32 | float weight */
    float ring_longest[LAT_RING]; /* the longest call that weight fits (ring's epoch) */
    unsigned cap;            /* slots per bank */
    double hist[NBUCKETS];   /* weights by duration */
    lat_slot slot[];         /* bank b: slot[b * cap ...] */
} prof_lat;
/* Doubles added to from any thread, by their bits, from a guess of the
 * old value (a compare-and-swap that fails reads the true one). */
typedef uint64_t __attribute__((may_alias)) u64_alias;
P_FN void add_double_guess(double *p, double v, uint64_t old) {
    u64_alias *u = (u64_alias *)p;
    uint64_t next;
    do {
        double d;
        memcpy(&d, &old, sizeof d);
        d += v;
        memcpy(&next, &d, sizeof next);
    } while (!__atomic_compare_exchange_n(u, &old, next, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
}
P_FN void add_double(double *p, double v) { add_double_guess(p, v, __atomic_load_n((u64_alias *)p, __ATOMIC_RELAXED)); }
/* The same for a histogram bucket, guessing 0, so that the first access
 * is the compare-and-swap, a write. Most of a histogram's 22 KiB is never
 * touched; a load first made a page's first touch a read, which maps the
 * shared zero page, and the write after it a copy-on-write fault that
 * flushes the page from every CPU the process runs on: an interrupt of the
 * program's threads, and 0.43% of lua's CPU samples on the epoch thread
 * (20% of its time). A bucket already used costs one failed swap more. */
P_FN void add_double_bucket(double *p, double v) { add_double_guess(p, v, 0); }
P_FN uint64_t lat_pack(unsigned epoch, uint64_t v) { return (uint64_t)(epoch & 0xffffu) << LAT_VAL_BITS | v; }
P_FN unsigned lat_slots_for_k(void) {
    unsigned cap = prof_k > LAT_MAX_CAP / 4 ? LAT_MAX_CAP : 4 * prof_k; /* K, and calls of other threads timed meanwhile */
    return cap < 16 ? 16 : cap;
}
/* f's block, made at its first timed call (threads racing here agree on
 * one); NULL when the arena is full. */
P_FN prof_lat *lat_of(prof_func *f) {
    prof_lat *l = __atomic_load_n(&f->lat, __ATOMIC_ACQUIRE), *fresh;
    unsigned cap = lat_slots_for_k(), e = __atomic_load_n(&tick_seq, __ATOMIC_ACQUIRE), i;
    if (l) return l;
    if (!(fresh = (prof_lat *)arena_alloc(sizeof *fresh + 2 * cap * sizeof fresh->slot[0]))) return 0;
    fresh->cap = cap;
    fresh->bank[e & 1] = (uint64_t)e << 32;
    fresh->bank[(e + 1) & 1] = (uint64_t)(e + 1) << 32;
    for (i = 0; i < LAT_RING; i++) fresh->ring[i] = ~0ull; /* no epoch */
    if (__atomic_compare_exchange_n(&f->lat, &l, fresh, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) return fresh;
    return l;
}
/* A call of f about to be timed: its ticket. 0: it is not to be timed (no
 * slot left in its epoch, or no memory). */
P_FN int lat_begin(prof_func *f, lat_ticket *tk, uint64_t now) {
    prof_lat *l = lat_of(f);
    uint64_t *bank, w;
    lat_slot *s;
    tk->epoch = __atomic_load_n(&tick_seq, __ATOMIC_ACQUIRE);
    tk->slot = -1;
    if (!l) return 0;
    if (prof_mode != PROF_MODE_SAMPLE) return 1; /* weight 1, added at once */
    if (__atomic_load_n(&f->lat_used[tk->epoch & 1], __ATOMIC_RELAXED) != tk->epoch) /* before the slot: lat_fold */
        __atomic_store_n(&f->lat_used[tk->epoch & 1], tk->epoch, __ATOMIC_RELAXED);
    bank = &l->bank[tk->epoch & 1];
    w = __atomic_load_n(bank, __ATOMIC_RELAXED);
    do {
        if ((unsigned)(w >> 32) + 2 <= tk->epoch) /* left behind while dormant: its epoch's exits weigh from the ring */
            w = __atomic_compare_exchange_n(bank, &w, (uint64_t)tk->epoch << 32, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)
                    ? (uint64_t)tk->epoch << 32 : __atomic_load_n(bank, __ATOMIC_RELAXED);
        if ((unsigned)(w >> 32) != tk->epoch || (uint32_t)w >= l->cap) return 0;
    } while (!__atomic_compare_exchange_n(bank, &w, w + 1, 1, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED));
    tk->slot = (int)(uint32_t)w;
    s = &l->slot[(tk->epoch & 1) * l->cap + (unsigned)tk->slot];
    s->pos = __atomic_load_n(&f->entries, __ATOMIC_RELAXED); /* this entry's count, give or take other threads' */
    s->tsc = now;
    __atomic_store_n(&s->word, lat_pack(tk->epoch, LAT_EMPTY), __ATOMIC_RELEASE); /* pos and tsc with it */
    return 1;
}
/* Add one sample of d ticks with weight w (edge: its prof_edge | nested). */
P_FN void lat_add(prof_func *f, prof_lat *l, uint64_t d, uintptr_t edge, double w) {
    prof_edge *e = (prof_edge *)(edge & ~(uintptr_t)1);
    add_double(&f->wsum, w * (double)d);
    add_double(&f->wn, w);
    add_double_bucket(&l->hist[bucket_of(d)], w);
    if (!e) return;
    add_double(&e->ticks, w * (double)d);
    add_double(&e->calls, w);
    if (edge & 1) add_double(&e->nested, w * (double)d);
}
/* The weight of a call of d ticks of epoch e still running at its fold:
 * from the ring; 1 when too old, or when that weight's calls, each as long
 * as this one, would not fit in the time the epoch's threads had. The
 * fold could not weigh this call (it had not ended), and the rule it
 * applies to the others (lat_share) must hold for it too: lua's luaH_free,
 * whose frees of big tables return memory to the kernel (0.1-1 ms), once
 * had such a call stand for thousands and read a mean of 200,000 ticks
 * for a p50 of 92, and 100% of the run. */
P_FN double lat_weight(const prof_lat *l, unsigned e, uint64_t d) {
    uint64_t v = __atomic_load_n(&l->ring[e % LAT_RING], __ATOMIC_ACQUIRE);
    uint32_t bits = (uint32_t)v;
    float w;
    if ((unsigned)(v >> 32) != e || (double)d > (double)l->ring_longest[e % LAT_RING]) return 1;
    memcpy(&w, &bits, sizeof w);
    return w;
}
/* Put the sample in its slot for the fold: 0 when the fold took the slot. */
P_FN int lat_deposit(prof_lat *l, const lat_ticket *tk, uint64_t d, uintptr_t edge) {
    lat_slot *s = &l->slot[(tk->epoch & 1) * l->cap + (unsigned)tk->slot];
    uint64_t expect = lat_pack(tk->epoch, LAT_EMPTY);
    if (!__atomic_compare_exchange_n(&s->word, &expect, lat_pack(tk->epoch, LAT_WRITING), 0, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE))
        return 0;
    __atomic_store_n(&s->edge, edge, __ATOMIC_RELAXED);
    expect = lat_pack(tk->epoch, LAT_WRITING);
    return __atomic_compare_exchange_n(&s->word, &expect, lat_pack(tk->epoch, (d > LAT_MAX_D ? LAT_MAX_D : d) + 1), 0,
                                       __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}
/* The exit of a timed call of f: its sample, weighted now (mode on; its
 * epoch folded already) or at the tick. The fold of epoch e ends before
 * tick_seq reaches e + 2, so such an exit goes straight to the ring. */
P_FN void lat_sample(prof_func *f, const lat_ticket *tk, uint64_t d, uintptr_t edge) {
    prof_lat *l = __atomic_load_n(&f->lat, __ATOMIC_ACQUIRE);
    if (!l) return;
    if (prof_mode != PROF_MODE_SAMPLE) {
        lat_add(f, l, d, edge, 1);
        return;
    }
    if (tk->slot < 0) return; /* its entry took no slot: lost */
    if (__atomic_load_n(&tick_seq, __ATOMIC_ACQUIRE) - tk->epoch < 2 && lat_deposit(l, tk, d, edge)) return;
    lat_add(f, l, d, edge, lat_weight(l, tk->epoch, d));
}
/* Epoch e's slots that their entries marked (the others: lost, see RACES),
 * in the order of their entries; their count. */
P_FN unsigned lat_marked(const prof_lat *l, unsigned e, unsigned n, unsigned *idx) {
    const lat_slot *base = &l->slot[(e & 1) * l->cap];
    unsigned i, j, k = 0;
    for (i = 0; i < n; i++) {
        if (__atomic_load_n(&base[i].word, __ATOMIC_ACQUIRE) >> LAT_VAL_BITS != (e & 0xffffu)) continue;
        for (j = k++; j > 0 && base[idx[j - 1]].pos > base[i].pos; j--) idx[j] = idx[j - 1]; /* a few, nearly sorted */
        idx[j] = i;
    }
    return k;
}
/* Each timed call's weight (WHOSE CALLS): the first ones, while they came
 * much slower than the epoch's rest, the calls from each to the next; all
 * the others alike, the epoch's other calls (lat_share). Returns the calls
 * left for the next epoch's samples. */
#define LAT_RATE_NEAR 4.0 /* a gap per call this many times the rest's is another phase */
P_FN double lat_gap(const lat_slot *a, const lat_slot *b) { /* ticks per call from a's entry to b's */
    return b->pos > a->pos && b->tsc > a->tsc ? (double)(b->tsc - a->tsc) / (double)(b->pos - a->pos) : 0;
}
/* A finished outermost sample's duration (0: running, or nested in a call
 * of the same function: its time is in that call's already). */
P_FN double lat_outer_d(const lat_slot *s) {
    uint64_t v = __atomic_load_n(&s->word, __ATOMIC_ACQUIRE) & LAT_VAL_MASK;
    if (v == LAT_EMPTY || v >= LAT_TAKEN || (__atomic_load_n(&s->edge, __ATOMIC_RELAXED) & 1)) return 0;
    return (double)(v - 1);
}
/* The samples idx[s..k) share `group` calls alike. Unless the time that
 * gives their calls fits in what the threads had (nthreads x the span from
 * the first one's entry to the tick), the longest stands for itself alone
 * (weight 1), and so on; the last one left stands for as many calls as fit,
 * and the rest go to the next epoch's samples (the nearest in time: the
 * calls were after it). Else a short call preempted while it was timed in
 * a busy epoch stood for hundreds of calls as long as itself (prof-phases:
 * +25% to +132% in 3 runs of 11), and so did a sparse phase's last call
 * for a busy phase in the same epoch, when the tick came late. Returns the
 * calls passed on. */
P_FN double lat_share(const lat_slot *base, const unsigned *idx, unsigned s, unsigned k, double group, double cap,
                      double *wt) {
    unsigned i, n = k - s;
    double excess = 0;
    for (i = s; i < k; i++) wt[i] = 0; /* 0: shares; -1: alone */
    for (;;) {
        double sum = 0, most = 0;
        unsigned at = k;
        for (i = s; i < k; i++) {
            double d = wt[i] < 0 ? 0 : lat_outer_d(&base[idx[i]]);
            sum += d;
            if (d > most) most = d, at = i;
        }
        if (at == k || sum * group / n <= cap) break;
        if (n == 1 || group <= n) { /* what fits; the rest to the next epoch */
            double fit = cap * n / sum;
            if (fit < n) fit = n;
            if (fit > group) fit = group;
            excess = group - fit;
            group = fit;
            break;
        }
        wt[at] = -1;
        group -= 1;
        n--;
    }
    for (i = s; i < k; i++) wt[i] = wt[i] < 0 ? 1 : group / n;
    return excess > 0 ? excess : 0;
}
P_FN double lat_span_weights(const prof_lat *l, unsigned e, const unsigned *idx, unsigned k, double calls,
                             uint64_t end, double threads, double *wt, double *cap) {
    const lat_slot *base = &l->slot[(e & 1) * l->cap], *last = &base[idx[k - 1]];
    double rest = calls - (double)(last->pos - base[idx[0]].pos), gap, group;
    unsigned s = 0;
    if (rest < 1) rest = 1; /* the last one itself, at least */
    gap = end > last->tsc ? (double)(end - last->tsc) / rest : 0;
    while (gap > 0 && s + 1 < k && lat_gap(&base[idx[s]], &base[idx[s + 1]]) > LAT_RATE_NEAR * gap) {
        const lat_slot *a = &base[idx[s]], *b = &base[idx[s + 1]];
        wt[s++] = b->pos > a->pos ? (double)(b->pos - a->pos) : 1;
    }
    group = rest + (double)(last->pos - base[idx[s]].pos);
    *cap = threads * (double)(end > base[idx[s]].tsc ? end - base[idx[s]].tsc : 0);
    return lat_share(base, idx, s, k, group, *cap, wt);
}
/* The tick after epoch e (tick_seq is e + 1 now; end: its time): weigh e's
 * samples by its calls, f->lat_calls (WHOSE CALLS). Epoch thread only. */
P_FN void lat_fold(prof_func *f, unsigned e, uint64_t end, unsigned nthreads) {
    prof_lat *l = __atomic_load_n(&f->lat, __ATOMIC_ACQUIRE);
    unsigned idx[LAT_MAX_CAP], n, k, i, nrun = 0;
    double wt[LAT_MAX_CAP], run = 0, cap;
    lat_slot *base;
    uint64_t w;
    float wf;
    uint32_t bits;
    if (!l || prof_mode != PROF_MODE_SAMPLE) return;
    /* an epoch with calls and no sample (its window shut): its calls go to
     * the next samples, the nearest in time that will be */
    f->lat_carry += f->lat_calls;
    /* No call went for a slot (most awake functions, most epochs): its bank
     * stays as it is, which lat_begin renews (its cold line, exchanged for
     * every awake function, was a fifth of the epoch thread's time in lua).
     * An entry that read the tick before it moved and marks lat_used after
     * this read loses its sample, as one that takes its slot after the
     * exchange below does (RACES WITH THE FOLD). One word per bank: with
     * one, an entry of the next epoch, after the tick and before this
     * fold, hid this epoch's samples (16-22% of the folds with samples in
     * a program of 90 functions called in turn; an independent review). */
    if (__atomic_load_n(&f->lat_used[e & 1], __ATOMIC_RELAXED) != e) return;
    w = __atomic_exchange_n(&l->bank[e & 1], (uint64_t)(e + 2) << 32, __ATOMIC_ACQ_REL);
    n = (unsigned)(w >> 32) == e ? (uint32_t)w : 0;
    if (!(k = lat_marked(l, e, n < l->cap ? n : l->cap, idx))) return;
    f->lat_carry = lat_span_weights(l, e, idx, k, f->lat_carry, end, nthreads ? nthreads : 1, wt, &cap);
    base = &l->slot[(e & 1) * l->cap];
    for (i = 0; i < k; i++) /* still running: their exits share the ring's weight */
        if ((__atomic_load_n(&base[idx[i]].word, __ATOMIC_ACQUIRE) & LAT_VAL_MASK) - 1 >= LAT_TAKEN - 1)
            run += wt[i], nrun++;
    wf = (float)(nrun ? run / nrun : 1);
    memcpy(&bits, &wf, sizeof bits);
    l->ring_longest[e % LAT_RING] = (float)(cap / wf); /* before the ring's word: read after it */
    /* the ring first: an exit that finds its slot taken reads it */
    __atomic_store_n(&l->ring[e % LAT_RING], (uint64_t)e << 32 | bits, __ATOMIC_RELEASE);
    for (i = 0; i < k; i++) { /* the histogram's lines, missed one at a time below: all at once */
        uint64_t d = __atomic_load_n(&base[idx[i]].word, __ATOMIC_RELAXED) & LAT_VAL_MASK;
        if (d != LAT_EMPTY && d < LAT_TAKEN) __builtin_prefetch(&l->hist[bucket_of(d - 1)], 1);
    }
    for (i = 0; i < k; i++) {
        lat_slot *s = &base[idx[i]];
        uint64_t v = __atomic_exchange_n(&s->word, lat_pack(e, LAT_TAKEN), __ATOMIC_ACQ_REL), d = v & LAT_VAL_MASK;
        if (d == LAT_EMPTY || d >= LAT_TAKEN) continue; /* running: its exit adds it */
        lat_add(f, l, d - 1, __atomic_load_n(&s->edge, __ATOMIC_RELAXED), wt[i]);
    }
}
/* The weight in a histogram, added in four lanes (one chain of 2,752
 * dependent adds, twice for every sampled function, was 0.4-0.5% of a
 * 0.25 s zstd run under prof, at report time). */
P_FN double hist_total(const prof_lat *l) {
    double l0 = 0, l1 = 0, l2 = 0, l3 = 0;
    unsigned b;
    for (b = 0; b + 3 < NBUCKETS; b += 4) { /* NBUCKETS: a multiple of HB */
        l0 += l->hist[b];
        l1 += l->hist[b + 1];
        l2 += l->hist[b + 2];
        l3 += l->hist[b + 3];
    }
    return l0 + l1 + l2 + l3;
}
/* The weighted pct-th percentile of a function's durations (l: its
 * histogram, or NULL; total: hist_total): the lowest bucket that, with
 * those below it, holds more than pct% of the weight; looked for from the
 * nearer end (a p99 from the top). */
P_FN double hist_pct(const prof_lat *l, double total, double pct) {
    double want = pct / 100.0 * total, acc;
    unsigned b, found = NBUCKETS;
    if (!l || total <= 0) return 0;
    if (pct <= 50) {
        for (acc = 0, b = 0; b < NBUCKETS; b++) {
            if (l->hist[b] <= 0) continue;
            found = b;
            if ((acc += l->hist[b]) > want) break;
        }
    } else {
        for (acc = total, b = NBUCKETS; b-- > 0;) { /* acc: the weight at b and below */
            if (l->hist[b] <= 0) continue;
            if (acc <= want && found < NBUCKETS) break;
            found = b;
            acc -= l->hist[b];
        }
    }
    return found < NBUCKETS ? bucket_mid(found) : 0;
}

/* ---- toggling ------------------------------------------------------------ */
P_FN int site_off(prof_site *s) {
    if (s->kind == EDGEPROBE_KIND_FUNCTION) return edgeprobe_func_off(s->id);
    return prof_toggle_provider ? edgeprobe_provider_off(s->id) : edgeprobe_call_off(s->addr);
}
/* Off from a handler on a program thread (close_window), which must not
 * wait for the registry lock: its thread may hold the loader's, which the
 * lock's holder, switching functions, waits for (a program calling probed
 * functions from a dl_iterate_phdr callback hung under prof, 3 of 3: an
 * independent review). A function probe left on so (EDGEPROBE_EBUSY,
 * counted apart: "offs left to the tick") runs handlers whose window is
 * shut, until the next tick's re-opening. The provider's switch takes no
 * loader lock (close_window's own check covers its thread holding the
 * registry's). */
#define PROF_OFF_TRIES 4096 /* looks at the lock: the epoch thread yields it between two sites (prio_waiters) */
P_FN int site_off_nowait(prof_site *s) {
    return s->kind == EDGEPROBE_KIND_FUNCTION ? edgeprobe__func_off_nowait(s->id, PROF_OFF_TRIES) : site_off(s);
}
extern void prof_handler(const edgeprobe_info *info, void *user, uintptr_t value) NOI;
P_FN int site_on(prof_site *s) {
    if (s->kind == EDGEPROBE_KIND_FUNCTION) return edgeprobe_func_on(s->id);
    return prof_toggle_provider ? edgeprobe_provider_attach_id(s->id, prof_handler, s)
                                : edgeprobe_call_on(s->addr, s->rel32);
}
/* Program threads switching probes off get the registry lock first: the
 * epoch thread's burst of activations would otherwise hold that (unfair,
 * spinning) lock back to back while a program thread waits. */
static unsigned prio_waiters;

/* Switch every site of f; counts into t. */
P_FN void func_toggle(prof_func *f, int on, tstate *t) {
    prof_site *s;
    uint64_t t0 = rdtsc();
    if (!on) __atomic_add_fetch(&prio_waiters, 1, __ATOMIC_SEQ_CST);
    for (s = __atomic_load_n(&f->sites, __ATOMIC_ACQUIRE); s; s = s->next) {
        int rc;
        if (s->state != 1) continue;
        if (on)
            while (__atomic_load_n(&prio_waiters, __ATOMIC_ACQUIRE)) __builtin_ia32_pause();
        rc = on ? site_on(s) : site_off_nowait(s);
        t->toggle_calls++;
        if (rc > 0) t->toggles++;
        else if (rc == EDGEPROBE_EBUSY) t->toggle_busy++; /* left on (site_off_nowait) */
        else if (rc < 0) t->toggle_errors++;
    }
    if (!on) __atomic_sub_fetch(&prio_waiters, 1, __ATOMIC_RELEASE);
    t->toggle_ticks += rdtsc() - t0;
}

P_FN double threads_observed(uint64_t len, uint64_t at);
P_FN void end_interval(prof_func *f, uint64_t now, unsigned epoch);
P_FN void wake(prof_func *f);
P_FN int second_on(const prof_func *f, unsigned epoch); /* LATER COUNTS */
P_FN int counting(const prof_func *f, unsigned epoch);
/* Close f's window s (its observation interval is over and it has K
 * samples) and switch its probes off. The entry that closes it woke f
 * before (window_after_entry), but a thread preempted since may close it
 * epochs later, after the epoch thread put f to sleep (no entry for an
 * epoch, window open): shut and asleep, no entry would ever wake it and
 * open_windows would pass over it. So it is woken again here (DORMANT:
 * seq written, then dormant read, as prof_discover does). */
P_FN void close_window(prof_func *f, unsigned s, uint64_t now, tstate *t, unsigned epoch) {
    int zero = 0;
    unsigned expect = s;
    edgeprobe__root *r = __atomic_load_n(&edgeprobe__this_object.root, __ATOMIC_ACQUIRE);
    if (!(s & 1)) return; /* that window is shut already */
    /* A call made by a signal handler that interrupted this thread while it
     * held the registry's lock (inside fork, between the header's prepare
     * and parent handlers; in an object's constructor): switching waits
     * for that lock, which this thread cannot let go. The window stays
     * open, for a later entry to close (attached, `prof -p`, with no
     * signal held back: tests/prof/forks.c hung in 4 of 4 runs). */
    if (r && edgeprobe__lock_maybe_mine(&r->lock)) return;
    if (!__atomic_compare_exchange_n(&f->busy, &zero, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) return;
    if (second_on(f, epoch) && counting(f, epoch)) { /* a later count began: the window stays */
        __atomic_store_n(&f->busy, 0, __ATOMIC_RELEASE);
        return;
    }
    if (__atomic_compare_exchange_n(&f->seq, &expect, s + 1, 0, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) {
        wake(f);
        end_interval(f, now, epoch); /* threads still inside their interval stop counting f now */
        f->closes++;
        func_toggle(f, 0, t);
    }
    __atomic_store_n(&f->busy, 0, __ATOMIC_RELEASE);
}

/* Optional observer of every sample (tests): define it in the program. */
extern void edgeprobe_profiler_on_sample(const char *name, uintptr_t fn, uint64_t entry_tsc, uint64_t exit_tsc)
    __attribute__((weak));

/* f's edge from (ra, caller), made on first use. Two threads adding the
 * same edge at once may make two: the report merges edges by caller. */
P_FN prof_edge *edge_of(prof_func *f, uintptr_t ra, prof_func *caller) {
    prof_edge *e, *head = __atomic_load_n(&f->callers, __ATOMIC_ACQUIRE);
    for (e = head; e; e = e->next)
        if (e->ra == ra && e->caller == caller) return e;
    if (!(e = (prof_edge *)arena_alloc(sizeof *e))) return 0;
    e->ra = ra;
    e->caller = caller;
    e->next = head;
    while (!__atomic_compare_exchange_n(&f->callers, &e->next, e, 1, __ATOMIC_RELEASE, __ATOMIC_ACQUIRE)) {}
    return e;
}
/* Where a sample came from (see CALL GRAPH). */
typedef struct sample_origin {
    uintptr_t ra;
    prof_func *caller;
    int nested;
} sample_origin;
/* The edge a sample is filed under, with its nested flag in bit 0 (edges
 * come 16-byte aligned from the arena); 0 when the arena is full. Its
 * figures are added with the sample's weight (lat_add). */
P_FN uintptr_t edge_bits(prof_func *f, const sample_origin *from) {
    prof_edge *e = edge_of(f, from->ra, from->caller);
    return e ? (uintptr_t)e | (from->nested != 0) : 0;
}

/* One sample of f: a call that took d ticks of its own (the profiler's
 * ticks taken out), timed with ticket tk (WEIGHTS). The window closes at
 * an entry (window_after_entry). */
P_FN void record_sample(prof_func *f, tstate *t, uintptr_t fn, uint64_t entry_tsc, uint64_t now, uint64_t d,
                        const sample_origin *from, const lat_ticket *tk) {
    lat_sample(f, tk, d, edge_bits(f, from));
    __atomic_fetch_add(&f->samples, 1, __ATOMIC_RELAXED);
    if (!(__atomic_load_n(&f->thread_mask, __ATOMIC_RELAXED) & t->bit))
        __atomic_fetch_or(&f->thread_mask, t->bit, __ATOMIC_RELAXED);
    {
        uint64_t m = __atomic_load_n(&f->min, __ATOMIC_RELAXED), x = __atomic_load_n(&f->max, __ATOMIC_RELAXED);
        while ((m == 0 || d < m) &&
               !__atomic_compare_exchange_n(&f->min, &m, d ? d : 1, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {}
        while (d > x && !__atomic_compare_exchange_n(&f->max, &x, d, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {}
    }
    t->samples++;
    if (edgeprobe_profiler_on_sample) edgeprobe_profiler_on_sample(f->name, fn, entry_tsc, now);
    __atomic_add_fetch(&f->win_samples, 1, __ATOMIC_RELAXED);
}

/* ---- counting calls --------------------------------------------------------
 * The epoch thread publishes a tick (tick_tsc, tick_seq) after it has
 * re-opened every window. From the tick, each function is observed for
 * obs_len ticks of the calling thread's own time (the profiler's ticks on
 * that thread taken out): every entry inside is counted. At the next tick
 * the count is scaled by the epoch's own length over obs_len. The interval's
 * place is set by the clock, never by the function's calls, so the estimate
 * is unbiased whatever the calls' pattern (bursts included); its error
 * shrinks with the calls counted, and obs_len is chosen to count about
 * count_target calls per epoch (COUNTING BUDGET), or all of them when
 * counting costs little against the function's own time and the epoch's
 * (COUNTING ALL; then the count is exact).
 *
 * WHY EVERY LENGTH IS READ FROM A CLOCK, NEVER EXTRAPOLATED. Per thread t
 * and function f, the estimate is sum(c_t) * own / sum(seen_t): c_t the
 * entries t counted, seen_t the own ticks over which t was counting (its
 * interval, cut short when another thread closes f's window), own the
 * epoch's own ticks of all threads. It is unbiased only if seen_t is the
 * very span in which t's calls were counted: c_t is then a count over a
 * span placed by the clock, and its expectation is seen_t times t's call
 * rate. Between two looks at its CPU clock, a thread's own time was once
 * taken from the TSC; that is an upper bound (wall time runs while the
 * thread does not), exact only for a thread that neither blocked nor waited
 * for a CPU meanwhile. A thread blocked in read() at the close of a window
 * or at the tick (an I/O-bound thread almost always is) had its blocked
 * time counted as observed: seen_t grew, c_t did not, and the prof-server
 * case estimated 0.72-0.92 of the requests its client counted. An entry
 * was also judged past its interval by the same bound, which stopped the
 * counting early while seen_t still ran on (the first entries after a
 * short block). Now: an entry is inside while the bound says so (then it
 * is), past when the last look says so (it only grows), and otherwise
 * looks; a close looks at the clock of every thread that may still be
 * inside; the tick uses the lengths the epoch thread reads anyway. The
 * system calls added: one per such thread per close, one per entry after
 * a block or preemption near the interval's end, one per handler longer
 * than PROF_HANDLER_LONG (add_ov), one per new thread (cpu_origin); none
 * on the enabled fast path. What is left: an interval starts at the tick,
 * which finds an I/O-bound thread blocked, so its interval starts at the
 * start of a burst of its CPU time (the system call's tail first), not at
 * a random place in it; counting whole bursts, that moves the count by
 * less than one call per thread and epoch (the last burst is cut at a
 * place the clock sets). Likewise a thread the tick finds preempted
 * starts its interval with the CPU time the kernel takes to switch it
 * back in (a few microseconds, seen as 6,500-15,000 ticks before its first
 * event): a few percent of a short interval, counted as observed.
 *
 * THE CAP. An interval's expected count is PROF_COUNT_TARGET, but calls in
 * bursts break the expectation: an interval that counted nothing while its
 * function was idle doubles, and a burst that then meets it goes through
 * the handler call by call (lua's l_alloc: 4,679 entries a window; lua
 * under prof: 12.6 M handler calls in 1.5 s, +40% CPU; tests/prof/bursts.c:
 * 13,352 handler calls an epoch, 650 now). A count that reaches PROF_COUNT_CAP ends
 * the function's interval for the epoch on every thread (end_interval), as
 * a window that closes does: the span observed is what the threads had
 * lived of their intervals by then, so the estimate stays a count over a
 * span the clock measured (for calls that come at a steady rate, N / T_N
 * over-reads by N / (N - 1): 0.2% at 512).
 *
 * TICK GAP. The epoch thread re-opens the windows, folds the epoch and
 * publishes the tick; that takes tens of microseconds for hundreds of
 * functions. A window re-opened for the coming epoch (opened_for) neither
 * counts nor closes before the tick: a hot function used to take its K
 * samples there, still in the old epoch, and close its window before its
 * interval began (lua's l_alloc counted nothing in most epochs). The
 * threads' clocks are read a second time just before the tick
 * (restart_clocks), so that their own time in the next epoch starts where
 * their counting can; the own time between the two readings, the gap,
 * counts in the next epoch's length (its calls are not counted in any
 * epoch's interval, so the next epoch's rate stands for them). Functions
 * whose interval is the whole epoch (PROF_OBS_ALL: counted in full, or by
 * the skip path up to a count) count through the gap while that interval
 * lasts. Once it has ended, their re-opened window, too, neither counts
 * nor closes before the tick; after its K samples, the skip path counts
 * their calls in the gap into a count of no epoch (skip_gap, taken back
 * right after the tick), so that they do not reach the handler one by
 * one. Until 2026-11-26 (seventh session) such a window closed in the gap
 * once the old epoch's calls had taken its K samples: the next epoch was
 * never observed and had the last rate extrapolated over it: lua's
 * luaM_free_, in epochs of its garbage collector's sweep, had every other
 * epoch unobserved. A function called steadily for a few epochs, then not
 * at all (tests/prof/alternating.c), read 0.58-0.70 of its calls (0.97-0.99
 * with this rule and THE REST OF AN EPOCH), bzip2's mainGtU 0.78-0.99.
 *
 * WHERE THE ESTIMATE FAILS. Own time is CPU time less the profiler's
 * ticks, and of those only the handler is measured; the trampoline's part
 * is calibrated (cal_entry: 44-79 ticks from one run to the next here, a
 * best case from a tight loop). In an interval where events come every few
 * hundred ticks, as in the first microseconds after a tick in a program
 * like lua (a call every ~11 ticks, 240 M calls a second), an error of 30
 * ticks per event is 10-30% of the span observed: scaling the charge by
 * 0.5, 1 and 1.5 moved lua's median estimate/exact from 0.2 to 0.7 to
 * 0.07 and a synthetic chain of tiny calls from 0.13 to 0.4 to 10^5 (its
 * own clock stopped). Counts of functions called more often than every
 * thousand ticks or so are therefore rough (bench/RESULTS-real.md,
 * "Estimated calls"). Functions with a function probe now count through
 * the trampoline (SKIPPED COUNTS): their intervals run from the tick to a
 * count used up (skip_target) rather than a length, and their own events
 * are the K samples' alone; lua's median went from 0.42 to 0.76 so, and
 * to 0.95-0.99 with a second count after one that ended in the storm
 * after the tick (since 2026-11-27: LATER COUNTS). */
#define PROF_GAP_COUNT (1ull << 30) /* the gap's count: more calls than a gap has */
#ifndef PROF_COUNT_TARGET /* -D for experiments */
#define PROF_COUNT_TARGET 128
#endif
#define PROF_OBS_ALL (~0ull)      /* count every call */
/* A function counted in full stops at all_cap calls in an epoch: twice what
 * PROF_COUNT_ALL_SHARE lets it cost (a phase that calls it far more, or a
 * new function's first epoch: counted in full until it is known); set at
 * each tick. */
#define PROF_ALL_CAP_START 10000
static uint64_t all_cap = PROF_ALL_CAP_START;
#ifndef PROF_COUNT_CAP
#define PROF_COUNT_CAP (4 * PROF_COUNT_TARGET)
#endif

/* A thread's own ticks since the epoch's tick: the ticks it ran (its CPU
 * time, from its CPU-time clock) less the profiler's. The TSC alone would
 * count the time it waited for a CPU: on a busy machine a process's threads
 * run in slices, and the epoch thread's tick falls at the start of one (it
 * runs when its process does), so intervals timed by the TSC would count
 * where the threads run and be scaled by where they may not. The clock is
 * a system call: read at a thread's first event of the epoch, then when an
 * entry seems past an interval (inside_interval); between two looks, the
 * TSC's upper bound. Intervals start at the tick, not at a thread's first
 * event: what follows an event (the end of a long call) is no sample of
 * the program's time. */
/* An entry the TSC puts past its interval looks at the clock unless the
 * last look is this recent: a block or a preemption inside so short a span
 * is rare, and a thread past many functions' intervals at once (one
 * interval each) looks once for all of them. */
#define PROF_CPU_RECHECK 2000ull
P_FN uint64_t thread_cpu_ns(long tid);
static double ticks_per_ns;
/* INLINE EPOCHS: the CPU clock of the thread a part runs on, as it stood
 * when the part began (0: no part under way). The part's ticks are charged
 * to the thread when it ends (add_ov), so every reading of that thread's
 * clock inside the part is the one at its start: a count that the part
 * started, read at the clock's later value and then charged the whole
 * part, lost the part's time before its start twice from its span (lua's
 * functions of 100,000 to 1,000,000 calls read 1.15 times their calls at
 * the median). */
static uint64_t part_cpu_ns;
static long part_tid;
P_FN uint64_t part_clock(long tid) { return tid == part_tid ? __atomic_load_n(&part_cpu_ns, __ATOMIC_RELAXED) : 0; }
P_FN uint64_t own_since_check(const tstate *t, uint64_t now) {
    uint64_t wall = now > t->chk_tsc ? now - t->chk_tsc : 0, mine = t->ov - t->chk_ov;
    return t->chk_own + (wall > mine ? wall - mine : 0);
}
/* Look at the thread's CPU time now. */
/* TSC ticks of CPU time from then to cpu (ns), never negative: a clock
 * read behind another (a thread id reused) must not wrap. */
P_FN double cpu_ticks_since(uint64_t cpu, uint64_t then) {
    return cpu > then ? (double)(cpu - then) * ticks_per_ns : 0;
}
P_FN uint64_t own_look(tstate *t, uint64_t now, uint64_t cpu) {
    double ran = cpu ? cpu_ticks_since(cpu, __atomic_load_n(&t->cpu_folded_ns, __ATOMIC_RELAXED)) -
                           (double)(t->ovc - __atomic_load_n(&t->ovc_folded, __ATOMIC_RELAXED))
                     : (double)(now - __atomic_load_n(&tick_tsc, __ATOMIC_RELAXED)) -
                           (double)(t->ov - __atomic_load_n(&t->ov_folded, __ATOMIC_RELAXED));
    t->chk_tsc = now;
    t->chk_ov = t->ov;
    t->chk_ovc = t->ovc;
    t->chk_own = ran > 0 ? (uint64_t)ran : 0;
    t->chk_cpu_ns = cpu;
    return t->chk_own;
}
/* The calling thread's CPU clock (ns) as it stood at `at`, a moment of the
 * handler under way: the clock counts the handler up to the system call
 * and the call itself, which its ticks (charged when it ends) do not yet
 * take out; so the ticks from `at` to the middle of the call (where the
 * kernel reads the clock; half a call, ~700 ticks here, is its error) are
 * taken out. Reading the clock in a handler made a thread's own time jump
 * by thousands of ticks at its first event of an epoch: intervals shorter
 * than that counted nothing, and intervals a little longer ended early
 * while they claimed their whole length (lua's l_alloc: 0.06 of its
 * calls). 0 when the clock cannot be read. */
#define PROF_PREEMPTED 20000ull /* ticks: more, and a thread was preempted meanwhile */
P_FN uint64_t own_cpu_at(const tstate *t, uint64_t at) {
    uint64_t frozen = part_clock(t->tid), a, cpu, b;
    if (frozen) return frozen;
    a = rdtsc(), cpu = thread_cpu_ns(t->tid), b = rdtsc();
    /* Wall ticks are CPU ticks only if the thread was not preempted: a
     * span that long is left out (its CPU part is not known, and taking the
     * wall time out stopped the own clock for milliseconds on a loaded
     * machine, which made an interval's span 0 and its estimate explode) */
    double late = (a - at < PROF_PREEMPTED ? (double)(a - at) : 0) + (b - a < PROF_PREEMPTED ? (double)(b - a) / 2 : 0);
    double late_ns = late > 0 ? late / ticks_per_ns : 0;
    if (!cpu) return 0;
    return (double)cpu > late_ns + 1 ? cpu - (uint64_t)late_ns : 1;
}
P_FN uint64_t own_check(tstate *t, uint64_t now) {
    return own_look(t, now, ticks_per_ns > 0 ? own_cpu_at(t, now) : 0);
}
/* Add a handler's ticks (from t0 to t1, and the unmeasured ones of its
 * trampoline) to the thread's profiler time. The TSC counts the time the
 * thread was preempted inside the handler (a CPU-bound thread on a busy
 * machine, where a fifth of the interval's time is handlers, often is):
 * taken out of its CPU time, that made its own clock stand still or run
 * backwards (clamped at 0) for milliseconds, so the thread stayed inside
 * its counting intervals and counted calls its observed span left out
 * (an epoch's own time of 0 while the thread counted 1,512 calls). A
 * handler longer than PROF_HANDLER_LONG looks at the CPU clock and is
 * charged to the own clock (ovc) at most what it can have run: the CPU
 * time since the last look, less what the program can have run of it (the
 * TSC's bound) and the profiler's CPU ticks since. Sampled calls keep the
 * TSC's charge (ov), as before: their latencies are the program's wall
 * time less the profiler's. */
#define PROF_HANDLER_LONG 50000ull
P_FN void add_ov(tstate *t, uint64_t t0, uint64_t t1, uint64_t unmeasured) {
    uint64_t took = t1 - t0, cpu = 0;
    if (took > PROF_HANDLER_LONG && t->chk_cpu_ns && ticks_per_ns > 0 && (cpu = own_cpu_at(t, t1))) {
        double ran = cpu_ticks_since(cpu, t->chk_cpu_ns) - (double)(t->ovc - t->chk_ovc);
        double prog = (double)(t0 > t->chk_tsc ? t0 - t->chk_tsc : 0) - (double)(t->ov - t->chk_ov);
        double mine = ran - (prog > 0 ? prog : 0);
        if (mine < (double)took) took = mine > 0 ? (uint64_t)mine : 0;
    }
    t->ov += t1 - t0 + unmeasured;
    t->ovc += took + unmeasured;
    t->last_tsc = t1;
    if (cpu) own_look(t, t1, cpu); /* the next bound starts here */
}
P_FN uint64_t own_since_tick(tstate *t, uint64_t now) {
    unsigned seq = __atomic_load_n(&tick_seq, __ATOMIC_ACQUIRE);
    if (t->tick_seq != seq) { /* the first event of this thread in the epoch */
        t->tick_seq = seq;
        return own_check(t, now);
    }
    return own_since_check(t, now);
}
/* Whether an entry at now is inside an interval of len own ticks from the
 * tick: by the TSC's upper bound, by the last look (a lower bound), or by a
 * new look at the clock (see WHY EVERY LENGTH IS READ FROM A CLOCK). */
P_FN int inside_interval(tstate *t, uint64_t now, uint64_t len) {
    if (own_since_tick(t, now) < len) return 1;
    if (t->chk_own >= len || now - t->chk_tsc < PROF_CPU_RECHECK) return 0;
    return own_check(t, now) < len;
}
/* Another thread's own ticks since the tick, from its CPU clock (a system
 * call), or, when it has exited, the TSC's bound up to its last handler
 * (evt: it had an event in this epoch) or 0: as epoch_own_ticks takes its
 * epoch. Up to `at`, every thread that exited in the epoch counted as
 * observed from its last event to now, which the epoch's own time does not
 * hold: a count that ended after a dozen short-lived threads read a span
 * longer than the epoch and scaled by nothing (1,024 calls of 2,000,
 * labelled exact). Its ov is read racily: an event under way is a few
 * hundred ticks. */
P_FN uint64_t own_now_of(const tstate *t, uint64_t at, int evt) {
    uint64_t cpu = ticks_per_ns <= 0 ? 0 : t == my_ts ? own_cpu_at(t, at) : thread_cpu_ns(t->tid);
    double ran;
    if (!cpu) { /* no clock yet (the TSC's bound to at), or exited (to its last handler) */
        uint64_t last = ticks_per_ns > 0 ? __atomic_load_n(&t->last_tsc, __ATOMIC_RELAXED) : at;
        return evt ? own_since_check(t, last < at ? last : at) : 0;
    }
    ran = cpu_ticks_since(cpu, __atomic_load_n(&t->cpu_folded_ns, __ATOMIC_RELAXED)) -
          (double)(__atomic_load_n(&t->ovc, __ATOMIC_RELAXED) - __atomic_load_n(&t->ovc_folded, __ATOMIC_RELAXED));
    return ran > 0 ? (uint64_t)ran : 0;
}
/* The own ticks of the epoch's intervals of length len that the threads
 * had lived by at (summed over threads: a window that closes stops every
 * thread's counting, those still inside their interval too). A thread whose
 * last look is past len is past it; any other may be blocked, so its clock
 * is read (see WHY EVERY LENGTH IS READ FROM A CLOCK). So is a thread with
 * no event yet in the epoch that ran in the last one: it may be running
 * where it makes none (a long call), and leaving that span out counted
 * only the spans with events, where the calls are (truth_tiny, called in
 * runs: 1.0-1.25x the truth); a thread idle in the last epoch is taken to
 * be idle still. */
P_FN double threads_observed(uint64_t len, uint64_t at) {
    unsigned seq = __atomic_load_n(&tick_seq, __ATOMIC_ACQUIRE), owner;
    double sum = 0;
    const tstate *t;
    for (t = __atomic_load_n(&ts_all, __ATOMIC_ACQUIRE); t; t = t->next) {
        int evt;
        uint64_t own;
        if (!owner_read(t, &owner)) continue; /* gone: no thread's (REUSED RECORDS) */
        evt = __atomic_load_n(&t->tick_seq, __ATOMIC_RELAXED) == seq;
        if (evt && __atomic_load_n(&t->chk_own, __ATOMIC_RELAXED) >= len) own = len;
        else if (evt || t->epoch_run > 0) own = own_now_of(t, at, evt);
        else continue;
        if (owner_same(t, owner)) sum += (double)(own < len ? own : len);
    }
    return sum;
}
/* The same at the tick: the epoch's own ticks of each thread, as
 * epoch_own_ticks read them (no clock read twice). */
P_FN double threads_observed_at_tick(uint64_t len, uint64_t at, unsigned seq) {
    double sum = 0;
    unsigned owner;
    const tstate *t;
    for (t = __atomic_load_n(&ts_all, __ATOMIC_ACQUIRE); t; t = t->next) {
        double own;
        if (!owner_read(t, &owner)) continue; /* gone (REUSED RECORDS: taken over during the fold) */
        own = t->epoch_run;
        if (own < 0) { /* not read: the TSC's bound, for a thread with events */
            if (__atomic_load_n(&t->tick_seq, __ATOMIC_RELAXED) != seq) continue;
            own = (double)own_since_check(t, at);
        }
        if (owner_same(t, owner)) sum += own < (double)len ? own : (double)len;
    }
    return sum;
}
/* End f's counting for the epoch now, for every thread, once: its span
 * observed is what the threads had lived of their intervals by now. A
 * window that closes ends it (its probes go off), and so does a count
 * that reaches PROF_COUNT_CAP (window_after_entry). */
P_FN void end_interval(prof_func *f, uint64_t now, unsigned epoch) {
    unsigned mark = epoch + 1, old = __atomic_load_n(&f->obs_end_mark, __ATOMIC_RELAXED);
    double seen;
    if (old == mark) return;
    /* an earlier count's end, come late (its thread preempted) after a
     * later count began (LATER COUNTS): not the later one's */
    if (second_on(f, epoch) && now < __atomic_load_n(&f->second_tsc, __ATOMIC_RELAXED)) return;
    seen = threads_observed(f->obs_len, now);
    /* an entry of epoch `epoch` that gets here after the tick (preempted
     * meanwhile) must not end the next epoch's interval */
    if (__atomic_load_n(&tick_seq, __ATOMIC_ACQUIRE) != epoch) return;
    __atomic_store(&f->obs_seen, &seen, __ATOMIC_RELAXED); /* before the mark: the fold reads it after */
    __atomic_compare_exchange_n(&f->obs_end_mark, &old, mark, 0, __ATOMIC_RELEASE, __ATOMIC_RELAXED);
}
/* Whether f's interval of epoch `epoch` is still counting (end_interval). */
P_FN int counting(const prof_func *f, unsigned epoch) {
    return __atomic_load_n(&f->obs_end_mark, __ATOMIC_ACQUIRE) != epoch + 1;
}
/* SKIPPED COUNTS. A function with a function probe has its calls counted
 * by the header's skip path (the stubs' head), without a handler, once
 * its window has its K samples: the entry that finds them taken arms a count
 * of what its cap leaves (edgeprobe_func_skip), and the call that uses the
 * count up reaches the handler again, which takes the count and ends the
 * interval at the cap (end_interval reads the span the threads lived).
 * Its interval is therefore the whole epoch (PROF_OBS_ALL) ended by a
 * count: all_cap for a full count, skip_target (obs_cap) for an estimate.
 * The fold takes whatever is counted at every tick. A skipped call costs
 * cal_skip ticks (4-5 here, in a tight loop; about 4 inside lua) against
 * cal_count for one that reaches the handler (about 73): so a full
 * count's budget covers about fifteen times the calls.
 * Those ticks are charged to the calling thread's profiler time at its
 * next event (charge_skipped). Arming and taking are serialised by a
 * try-lock: an entry that finds it held leaves the work to the holder;
 * the epoch thread waits for it. */
P_FN int skip_lock(prof_func *f, int wait) {
    int zero = 0;
    while (!__atomic_compare_exchange_n(&f->skip_busy, &zero, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
        if (!wait) return 0;
        zero = 0;
        sched_yield(); /* an entry holds it for a few instructions, unless preempted */
    }
    return 1;
}
static uint64_t gap_skipped; /* calls the tick gaps' counts took (TICK GAP) */
/* Take f's skipped calls into its count, and disarm. A gap's count goes
 * into none, except at the fold of epoch `ended` (at_fold), which takes
 * the counts still armed:
 * - a gap count armed in an older epoch was armed by an entry of that
 *   epoch after the tick's take-back had passed its function, and its
 *   try-lock to take it back failed (another thread held it); it counted
 *   the epoch folded now, every call of which it kept from the handler
 *   (an independent review found it): into the count;
 * - a gap count armed in this epoch's own gap (after open_windows
 *   re-opened the window for the tick to come) counts calls after the
 *   interval ended, of no epoch: left armed for the take-back after the
 *   tick. Until 2026-11-27 (twelfth session) the fold took it into the
 *   epoch's count, after the span observed had been read: lua's
 *   luaM_free_, which the garbage collector's sweep calls in bursts, had
 *   up to 20,059 calls where its count ended at 978, and read 2.5-5.5
 *   times its calls. */
P_FN void skip_take_as(prof_func *f, int wait, int at_fold, unsigned ended) {
    long k;
    if (!__atomic_load_n(&f->skip_armed, __ATOMIC_RELAXED) || !skip_lock(f, wait)) return;
    if (at_fold && f->skip_armed && f->skip_gap && f->skip_epoch == ended) {
        __atomic_store_n(&f->skip_busy, 0, __ATOMIC_RELEASE);
        return;
    }
    if (f->skip_armed && (k = edgeprobe_func_skip(f->skip_armed - 1, 0)) > 0) {
        if (f->skip_gap && !at_fold) {
            __atomic_add_fetch(&gap_skipped, (uint64_t)k, __ATOMIC_RELAXED);
        } else {
            __atomic_add_fetch(&f->obs_count, (uint64_t)k, __ATOMIC_RELAXED);
            __atomic_add_fetch(&f->skipped, (uint64_t)k, __ATOMIC_RELAXED);
        }
    }
    f->skip_armed = 0;
    f->skip_gap = 0;
    __atomic_store_n(&f->skip_busy, 0, __ATOMIC_RELEASE);
}
P_FN void skip_take(prof_func *f, int wait) { skip_take_as(f, wait, 0, 0); }
/* Let the skip path count f's next n - 1 calls (gap: for none, TICK GAP). */
P_FN void skip_arm(prof_func *f, uint64_t n, unsigned epoch, int gap) {
    if (!f->skip_site || n < 2 || __atomic_load_n(&f->skip_armed, __ATOMIC_RELAXED) || !skip_lock(f, 0)) return;
    if (!f->skip_armed && edgeprobe_func_skip(f->skip_site - 1, (long)n) >= 0) {
        f->skip_armed = f->skip_site;
        f->skip_gap = gap;
        f->skip_epoch = epoch;
    }
    __atomic_store_n(&f->skip_busy, 0, __ATOMIC_SEQ_CST);
    /* armed after sampling stopped (its last fold and disarm_all have run),
     * or after the tick (the fold took the epoch's count before it): taken
     * back, so that no count outlives the profile or crosses an epoch */
    if (!__atomic_load_n(&prof_running, __ATOMIC_SEQ_CST) || __atomic_load_n(&tick_seq, __ATOMIC_SEQ_CST) != epoch)
        skip_take(f, 0);
}
/* LATER COUNTS. An epoch is cut into parts (EDGEPROBE_PROF_EPOCH_PARTS,
 * default 4) by the epoch thread's mid-ticks. At each, every function of
 * the skip path whose estimated count has ended counts again, as many
 * calls (later_start), its window re-opened if it had shut, with no
 * samples to take; and every count under way is read from there on
 * (count_from_here). The epoch's estimate is every call counted, plus,
 * for each span no count observed (from a count's end to the next
 * mid-tick, or to the epoch's end), the rate the count that ended there
 * had in its part (epoch_calls): a part's calls are read at that part's
 * rate, and a phase that starts or ends in the epoch moves only the part
 * it is in.
 *
 * WHERE A COUNT BEGINS. Until 2026-11-27 (twelfth session) a count that
 * ended in the first eighth of the epoch (the tick's storm of samples,
 * whose cost is only partly charged: lua's index2value read 600 calls in
 * 250,000 own ticks, where its mean rate gives 156,000) was followed by
 * one second count, begun where the first ended, at the call that ended
 * it: a place a call chose, not the clock, and its rate stood for the
 * rest of the epoch. Calls that come in bursts longer than a count (lua's
 * luaM_free_, which the garbage collector's sweep calls a few thousand
 * times in a row) put that call inside a burst: luaM_free_ read 850,000
 * calls an epoch in thirteen epochs in a row (a call every 27 ticks, all
 * epoch), 2.5-3 times its calls in all, freeobj and luaH_free likewise.
 * And a function whose calls began late in an epoch (table.concat's
 * addfield, 40,000 calls in one burst) had its count end in the burst,
 * measured against the idle span before it: 0.03 of its calls. Now every
 * count begins at a mid-tick or at the tick, and no rate stands for more
 * than its part: lua's functions within 10% of their calls went from
 * 41-47% to 55-66%, within 25% from 66-75% to 84-89%, at a cost: lua
 * +10.9% against +7.9% in CPU samples (each mid-tick wakes the epoch
 * thread and re-opens windows, and each count's calls cost the skip
 * path; RESULTS-real, "twelfth session"). A storm's span read at the next
 * count's rate instead of its own lost the rest of bursts.c's bursts
 * (0.07-0.14 of their calls); smaller counts (the cap shared by the
 * parts) read low: medians 0.82-0.84 against 0.93-0.99. */
static unsigned prof_epoch_parts = PROF_DEFAULT_EPOCH_PARTS; /* EDGEPROBE_PROF_EPOCH_PARTS */
/* STAGGERED COUNTS. A count's span is measured in own ticks, which take
 * out the profiler's ticks: the handlers' as measured, the skip path's at
 * its calibrated cost (cal_skip, from a tight loop). What a skipped call
 * costs in a program is not that: beside dependent chains of multiplies
 * (bench/real/dense_phases.c) out-of-order execution hides nearly all of
 * it (0.5 ticks, against 4 calibrated; bench/real/prof_stagger.sh); in
 * lua it costs what it does in the loop (bench/real/skip_cost.sh). The
 * error weighs only where counts run: when every ended count restarts at
 * the same mid-tick, a program that calls a function every ten ticks or
 * so spends much of those spans in the skip path and little of the part
 * after them, so a count's rate, taken for the rest, carries the error of
 * every count beside it: dense_phases reads 1.07-1.14 times its calls,
 * lua's median 0.94-1.00 (RESULTS-real, "fourteenth session").
 * So with 8 parts or more (EDGEPROBE_PROF_EPOCH_PARTS, `--parts`), the
 * restarts are staggered: the functions fall into stagger_groups() groups
 * (parts / PROF_COUNTS_PER_EPOCH, rounded down) by their probe's id, and
 * each mid-tick restarts the ended counts of one group, so a function
 * still counts about PROF_COUNTS_PER_EPOCH times an epoch, and its count
 * overlaps a group's rather than every function's; the counts under way
 * are read at one mid-tick in `groups` too, as often as with four parts.
 * At 16 parts dense_phases reads 1.03-1.04 (within 10%: 85-95% of its
 * functions, against 27-69%) and lua's median 0.99-1.00; but the epoch
 * thread wakes four times as often, 16-30 us a wake-up on this VM (lua
 * +2.5 points of CPU samples, redis's server CPU +6 to +9), and a count
 * whose span a mid-tick reads short (the outliers of LATER COUNTS) starts
 * at four times as many mid-ticks: lua's worst function read up to 52
 * times its calls. The default stays at 4 parts, unstaggered. */
#define PROF_COUNTS_PER_EPOCH 4
P_FN unsigned stagger_groups(void) {
    return prof_epoch_parts > PROF_COUNTS_PER_EPOCH ? prof_epoch_parts / PROF_COUNTS_PER_EPOCH : 1;
}
/* second_word: (epoch + 1) << 2 | SECOND_ON for the epoch in which the
 * epoch thread started a later count (other epochs' words mean nothing);
 * second_from and second_tsc are written before it. */
enum { SECOND_ON = 2,    /* later counts: second_* and gap_* set */
       SECOND_NONE = 3 }; /* the epoch folded: no later count */
P_FN uint64_t second_tag(unsigned epoch) { return (uint64_t)(epoch + 1) << 2; }
P_FN int second_on(const prof_func *f, unsigned epoch) {
    return __atomic_load_n(&f->second_word, __ATOMIC_ACQUIRE) == (second_tag(epoch) | SECOND_ON);
}
/* The calls that end f's count in this epoch: its cap, or, under a later
 * count, second_from + cap. */
P_FN uint64_t count_end(const prof_func *f, uint64_t cap, unsigned epoch) {
    return second_on(f, epoch) ? __atomic_load_n(&f->second_from, __ATOMIC_RELAXED) + cap : cap;
}
/* f's LATER COUNTS state as at a tick. */
P_FN void parts_reset(prof_func *f) {
    f->rate_from = f->start_from = 0;
    f->start_seen = 0;
    f->rate_seen = f->gap_span = f->gap_calls = f->gap_settled = f->gap_n = f->gap_var = 0;
    f->gap_rate = -1;
}
/* SETTLED FUNCTIONS. The samples of a function give its latencies'
 * distribution; past a few hundred, more of them sharpen it little, and
 * each costs two handler calls and the epoch thread's weighing (about
 * 1,000 ticks in all in redis, cold caches). A function with prof_settle
 * samples (--settle N) takes K / 5 (at least 1) a window from
 * then on: every epoch still has samples, weighted by its calls
 * (WEIGHTS). Its calls are counted as before (COUNTING CALLS). Not by
 * default: with K / 5 samples, a burst that comes after them in an epoch
 * is weighed as they are, and calls that do not fit go to the next
 * epoch's samples (WEIGHTS): prof-phases' mean read +47% in 4 runs of 6
 * (K / 2: +15% in 1 of 6; K: within 3% in every run). */
P_FN unsigned window_k_settled(void) { return prof_k / 5 ? prof_k / 5 : 1; }
P_FN unsigned window_k(const prof_func *f) {
    return prof_settle && __atomic_load_n(&f->samples, __ATOMIC_RELAXED) >= prof_settle ? window_k_settled() : prof_k;
}
/* Push f for the epoch thread to take into its awake set (DORMANT). */
P_FN void push_woken(prof_func *f) {
    f->next_woken = __atomic_load_n(&woken, __ATOMIC_RELAXED);
    while (!__atomic_compare_exchange_n(&woken, &f->next_woken, f, 1, __ATOMIC_RELEASE, __ATOMIC_RELAXED)) {}
}
/* f asleep: whoever clears the flag pushes it (DORMANT). */
P_FN void wake(prof_func *f) {
    int one = 1;
    if (__atomic_load_n(&f->dormant, __ATOMIC_SEQ_CST) &&
        __atomic_compare_exchange_n(&f->dormant, &one, 0, 0, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
        push_woken(f);
}
/* An entry of f in its open window seq: counted while inside the
 * observation interval; after it, the window closes once it has K samples
 * (or 8K entries: calls that never return, e.g. longjmp, must not keep it
 * open). Returns 1 if this call is to be timed: the window's first K calls
 * (every call in mode on). */
P_FN int window_after_entry(prof_func *f, tstate *t, unsigned seq, uint64_t now) {
    int sampling = prof_mode == PROF_MODE_SAMPLE;
    unsigned entries = __atomic_add_fetch(&f->win_entries, 1, __ATOMIC_RELAXED);
    /* past 8K entries the window times no more calls: samples can fail to
     * come (calls that never return, no slot left in the epoch's bank),
     * and a window that still wanted them sent every call to the handler
     * (lua's luaH_resize: 12,800 handler calls an epoch once its count was
     * left to the trampoline) */
    int want = !sampling || (__atomic_load_n(&f->win_samples, __ATOMIC_RELAXED) < window_k(f) && entries < 8 * prof_k);
    uint64_t len = __atomic_load_n(&f->obs_len, __ATOMIC_RELAXED);
    unsigned epoch = __atomic_load_n(&tick_seq, __ATOMIC_ACQUIRE);
    __atomic_fetch_add(&f->entries, 1, __ATOMIC_SEQ_CST);
    wake(f);
    if (sampling && __atomic_load_n(&f->opened_for, __ATOMIC_RELAXED) > epoch &&
        (len != PROF_OBS_ALL || !counting(f, epoch))) { /* re-opened for the tick to come (TICK GAP) */
        if (!want && len == PROF_OBS_ALL) skip_arm(f, PROF_GAP_COUNT, epoch, 1);
        return want;
    }
    if (!sampling || (counting(f, epoch) && inside_interval(t, now, len))) {
        uint64_t cap = __atomic_load_n(&f->obs_cap, __ATOMIC_RELAXED), c, end;
        if (!cap) cap = len == PROF_OBS_ALL ? __atomic_load_n(&all_cap, __ATOMIC_RELAXED) : PROF_COUNT_CAP;
        end = count_end(f, cap, epoch);
        skip_take(f, 0); /* the count used up, or not: its calls into obs_count */
        c = __atomic_add_fetch(&f->obs_count, 1, __ATOMIC_RELAXED);
        if (sampling && c >= end) {
            end_interval(f, now, epoch);
        } else if (sampling && !want && len == PROF_OBS_ALL) {
            skip_arm(f, end - c, epoch, 0);
        }
        return want;
    }
    if (want) return 1;
    close_window(f, seq, now, t, epoch);
    return 0;
}

/* Frames at our own position are dead if they came from this same site
 * (the physical frame that ran it is gone: a longjmp, e.g. a coroutine
 * yield, skipped their exit), or if their window has ended (can never
 * pair). Otherwise they pile up. */
P_FN void drop_dead_frames_at(tstate *t, const prof_site *site, uintptr_t pos) {
    int i, j, k;
    for (i = t->depth; i > 0 && t->stack[i - 1].pos == pos; i--) {}
    for (j = k = i; j < t->depth; j++)
        if (t->stack[j].site != site && t->stack[j].seq == __atomic_load_n(&t->stack[j].f->seq, __ATOMIC_RELAXED))
            t->stack[k++] = t->stack[j];
    t->depth = k;
}
/* A full shadow stack: dropping every frame is always safe (lost samples). */
P_FN void stack_overflow(tstate *t) {
    if (getenv("EDGEPROBE_PROF_DEBUG") && t->overflow == 0) {
        int q;
        for (q = 0; q < MAX_DEPTH; q += 1)
            fprintf(stderr, "ovf %3d %-24s pos=%lx seq=%u cur=%u\n", q, t->stack[q].f->name,
                    (unsigned long)t->stack[q].pos, t->stack[q].seq, t->stack[q].f->seq);
    }
    t->overflow++;
    t->depth = 0;
}
/* An entry in window seq of its function: push a frame. */
P_FN void handle_entry(tstate *t, prof_site *site, unsigned seq, uintptr_t pos, uint64_t now) {
    prof_func *f = site->func;
    frame *fr;
    lat_ticket tk;
    int timed = window_after_entry(f, t, seq, now) && lat_begin(f, &tk, now);
    drop_dead_frames_at(t, site, pos);
    /* a frame even for a call not timed: its exit must find it, not an
     * outer call's */
    if (t->depth == MAX_DEPTH) stack_overflow(t);
    fr = &t->stack[t->depth++];
    fr->f = f;
    fr->seq = seq;
    fr->pos = pos;
    fr->slot = 0; /* not a function probe's: drop_dead_timed stops here */
    fr->site = site;
    fr->tsc = now;
    fr->own = now - t->ov;
    fr->timed = timed;
    if (timed) fr->lat = tk;
}
/* Whether one of the n lowest frames of t's shadow stack is a call of f. */
P_FN int stack_holds(const tstate *t, const prof_func *f, int n) {
    int i;
    for (i = 0; i < n; i++)
        if (t->stack[i].f == f) return 1;
    return 0;
}
/* The thread's own ticks from own-clock reading `start` (tsc less ov) to
 * now. The profiler's ticks charged meanwhile can exceed the wall time
 * (the calibrated trampoline cost is a best case, a preempted handler
 * counts its wait): the difference is then 0, never a wrapped 2^64 - x,
 * which one sample of redis's ACLCheckAllPerm turned into a mean of 56 s
 * and a share of 400%. */
P_FN uint64_t own_since(const tstate *t, uint64_t now, uint64_t start) {
    uint64_t at = now - t->ov;
    return (int64_t)(at - start) > 0 ? at - start : 0;
}
/* An exit in window seq of f: pop f's frame and record a sample. */
P_FN void handle_exit(tstate *t, prof_func *f, unsigned seq, uintptr_t value, uint64_t now) {
    int i;
    /* The topmost frame of f. Usually at our position; higher up when gcc
     * split the function (f.part.0 runs the exit hook one frame deeper). */
    for (i = t->depth - 1; i >= 0 && t->stack[i].f != f; i--) {}
    if (i < 0) {
        t->unmatched++; /* its entry came before the window opened */
        return;
    }
    if (t->stack[i].seq != seq) {
        /* a frame of an earlier window: maybe ours, maybe an outer call
         * still running; drop just that frame, take no sample */
        memmove(&t->stack[i], &t->stack[i + 1], (size_t)(t->depth - i - 1) * sizeof t->stack[0]);
        t->depth--;
        t->stale++;
        return;
    }
    t->depth = i; /* this frame and the ones above it (nested, so dead) */
    if (t->stack[i].timed) {
        sample_origin from = {0, i > 0 ? t->stack[i - 1].f : 0, stack_holds(t, f, i)};
        record_sample(f, t, value, t->stack[i].tsc, now, own_since(t, now, t->stack[i].own), &from, &t->stack[i].lat);
    }
}
/* Ticks a provider event costs beyond its handler's own measure (the
 * provider's calibration, calibrate_provider). */
static uint64_t cal_provider;
static const char *cal_provider_why; /* why it is not calibrated (the report says) */
/* The handler of every entry and exit probe. user = the site's record.
 *
 * Frames carry the stack position `pos` of the event: the handler's frame
 * address, which sits a fixed distance below the instrumented function's
 * stack pointer (the enter and exit hooks are the same code, so the
 * distance is the same for both). Positions give three rules:
 *   - a frame deeper than a later event (pos < event pos) is dead: its call
 *     returned unseen (window shut) or was skipped by longjmp; drop it;
 *   - an exit matches the topmost frame of its function (a function and
 *     the functions inlined into it share one position; a function gcc
 *     split into f and f.part.0 runs its exit hook one frame deeper);
 *   - a sample needs the frame's seq to be the function's current window:
 *     an entry missed while the window was shut can never pair with a frame
 *     pushed before (see the top of the file).
 * A tail-called exit hook never gets here: its site is not patchable, and
 * the provider binds no handler to it (see the top of the file). */
NOI void prof_handler(const edgeprobe_info *info, void *user, uintptr_t value) {
    uint64_t now = rdtsc();
    uintptr_t pos = (uintptr_t)__builtin_frame_address(0);
    prof_site *site = (prof_site *)user;
    prof_func *f = site->func;
    tstate *t = count_event();
    unsigned seq;
    (void)info;
    if (!t || t->inside || !prof_running) return;
    t->inside = 1;
    if (!f->addr) f->addr = value;
    seq = __atomic_load_n(&f->seq, __ATOMIC_ACQUIRE);
    while (t->depth && t->stack[t->depth - 1].pos < pos) t->depth--; /* dead frames */
    if (!(seq & 1)) f->ignored++; /* window shut; racy on purpose: a diagnostic */
    else if (site->kind == EDGEPROBE_KIND_ENTRY) handle_entry(t, site, seq, pos, now);
    else handle_exit(t, f, seq, value, now);
    add_ov(t, now, rdtsc(), cal_provider);
    t->inside = 0;
}

/* ---- discovery: registry lock held; no edgeprobe calls, no malloc -------- */
static unsigned long long sites_unpatchable, sites_tail;
P_FN unsigned hash_str(const char *s) {
    unsigned h = 2166136261u;
    while (*s) h = (h ^ (unsigned char)*s++) * 16777619u;
    return h;
}
/* A new function record (function-entry mode: one per probe, no lookup). */
P_FN prof_func *func_new(const char *name) {
    prof_func *f = (prof_func *)arena_alloc(sizeof *f);
    if (!f) return 0;
    f->name = name;
    f->obs_len = PROF_OBS_ALL; /* the first epoch counts every call, up to the cap */
    parts_reset(f);
    f->next_all = fn_all;
    __atomic_store_n(&fn_all, f, __ATOMIC_RELEASE);
    fn_count++;
    push_woken(f);
    return f;
}
/* The record of a named function (provider mode: sites of one function,
 * inlined copies included, share it). */
P_FN prof_func *func_get(const char *name) {
    unsigned i = hash_str(name) & (FN_HASH - 1);
    prof_func *f;
    for (; fn_table[i]; i = (i + 1) & (FN_HASH - 1))
        if (strcmp(fn_table[i]->name, name) == 0) return fn_table[i];
    if (fn_count + 1 >= FN_HASH / 2 || !(f = func_new(name))) return 0;
    fn_table[i] = f;
    return f;
}
P_FN int cal_provider_found(const edgeprobe_info *info);
P_FN void prof_discover(const edgeprobe_info *info, void *arg) {
    prof_site *s;
    prof_func *f;
    unsigned seq;
    (void)arg;
    if (info->kind != EDGEPROBE_KIND_ENTRY && info->kind != EDGEPROBE_KIND_EXIT) return;
    if (info->id < 0 || (unsigned)info->id >= MAX_IDS || site_by_id[info->id] || cal_provider_found(info)) return;
    if (!info->name || !(f = func_get(info->name)) || !(s = (prof_site *)arena_alloc(sizeof *s))) return;
    s->id = info->id;
    s->kind = info->kind;
    s->addr = (unsigned char *)info->site;
    s->func = f;
    /* The header decides what can be switched: a 5-byte call that reaches
     * the hook. Any other site is never bound: an exit so is a tail-called
     * exit hook (see the top of the file). */
    if (info->patchable && s->addr) {
        memcpy(&s->rel32, s->addr + 1, 4);
    } else {
        s->state = -1;
        if (info->kind == EDGEPROBE_KIND_EXIT) {
            sites_tail++;
            f->exit_hidden = 1;
        } else {
            sites_unpatchable++;
        }
    }
    site_by_id[info->id] = s;
    sites_discovered++;
    if (info->kind == EDGEPROBE_KIND_ENTRY) sites_entry++;
    else sites_exit++;
    /* a site nobody observes yet: close the window (new even seq) */
    seq = __atomic_load_n(&f->seq, __ATOMIC_RELAXED);
    while (!__atomic_compare_exchange_n(&f->seq, &seq, (seq | 1u) + 1u, 1, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) {}
    /* asleep (DORMANT), it would stay shut: no entry of a shut window wakes
     * it, and open_windows passes over it (a lost wake-up: prof-late-exit).
     * Dekker's pattern with put_to_sleep, seq written, then dormant read. */
    wake(f);
    s->next = f->sites;
    __atomic_store_n(&f->sites, s, __ATOMIC_RELEASE);
    __atomic_add_fetch(&f->nsites, 1, __ATOMIC_RELEASE);
    if (s->state < 0) f->broken = 1;
    s->next_new = __atomic_load_n(&pending, __ATOMIC_RELAXED);
    while (!__atomic_compare_exchange_n(&pending, &s->next_new, s, 1, __ATOMIC_RELEASE, __ATOMIC_RELAXED)) {}
}

/* ---- function-entry mode (-fpatchable-function-entry=5) -------------------
 * Preferred when the program has function probes. Each function probe is a
 * site of kind FUNCTION with a record of its own (two static functions of
 * the same name are two rows of the report). While the window is open, the entry
 * handler asks for the exit (returns 1) and keeps the entry time in the
 * call's data; the exit handler records the sample. No frame matching: the
 * return trampoline gives each exit to the call that asked for it, so a
 * window closing or opening between entry and exit cannot pair the wrong
 * calls, and longjmp or exceptions only lose samples. */
static int fentry_mode;
/* A function of this file with a patchable entry, timed at start to learn
 * what an event costs outside the handlers (calibrate()); never reported. */
#define PROF_CALIBRATION_TARGET "edgeprobe_prof_calibration_target"
static int cal_id = -1;
static int fentry_seen; /* point ids examined so far */
static long fentry_functions; /* function probes loaded then (edgeprobe_func_scan) */
static unsigned long long fentry_unnamed; /* no symbol: a stripped object */
/* What one event costs outside the handlers' own measurement (the
 * trampolines, the shadow stack), in ticks, measured at start by
 * calibrate(): an entry, an exit, and the part of a timed call's own
 * entry and exit that falls between its two timestamps. */
static uint64_t cal_entry, cal_exit, cal_self;
/* What counting one call costs: its entry's events in all, handler
 * included, at best (calibrate; COUNTING ALL). */
static uint64_t cal_count;

/* Add this handler's ticks (from t0) and its trampoline's to the thread's
 * profiler time; returns the thread's own clock (tsc less profiler ticks). */
P_FN uint64_t account(tstate *t, uint64_t t0, uint64_t unmeasured) {
    uint64_t t1 = rdtsc();
    add_ov(t, t0, t1, unmeasured);
    return t1 - t->ov;
}
/* Function probes: the thread's shadow stack holds its timed calls under
 * way (f, start), for recursion through other functions (CALL GRAPH). The
 * header's return trampoline pairs entries and exits, so a call's frame is
 * found by its start; frames above it were left by longjmp or exceptions. */
P_FN frame *timed_push(tstate *t, prof_func *f, uintptr_t slot, prof_func *tail_of) {
    frame *fr;
    if (t->depth == MAX_DEPTH) stack_overflow(t); /* dead frames it could not judge, or deep recursion */
    fr = &t->stack[t->depth++];
    fr->f = f;
    fr->own = 0;
    fr->slot = slot;
    fr->tail_of = tail_of;
    return fr;
}
/* DEAD FRAMES. A timed call that a longjmp leaves (a Lua coroutine's
 * yield, at every switch) never reaches its exit handler: the header drops
 * its frame (27.2), but the frame here stayed, and since nothing below it
 * returned either, lua's stacks of timed calls filled (resume,
 * luaV_execute, lua_yieldk: 512 frames) and no call was timed from then
 * on: the windows kept wanting samples and sent up to 8K calls an epoch
 * each to the handlers (lua: 247,000 of 305,000 handler calls, with the
 * samples stopped). So each entry drops the frames it shows dead, by the
 * header's rule without its window: a frame whose return slot lies below
 * this call's was left, and so was one at this very slot, unless this call
 * is its tail call (the slot holds the return trampoline). The header must
 * not drop a live frame (its return would abort) and so judges only within
 * 256 KiB; here a live frame dropped only loses its sample, while a dead
 * frame kept marks every later sample of its function nested (a longjmp
 * out of 400 KiB of recursion, or a siglongjmp out of a handler on an
 * alternate stack mapped below the thread's, left `work` reading a total
 * of 0). Within the header's window a timed call's frame is also the
 * header's, which this entry has just judged: one the header kept is live
 * (the code a signal handler on an alternate stack just above it
 * interrupted, which used to lose its samples here). What it drops that
 * was live: frames more than the window below the stack a call runs on (a
 * handler's alternate stack mapped far above the thread's, a coroutine's
 * stack above its scheduler's). What it cannot judge is bounded by the
 * stack: a full one is dropped whole (timed_push). */
static uintptr_t ret_tramp; /* the header's return trampoline, once known */
P_FN int is_return_trampoline(uintptr_t a) {
    uintptr_t known = __atomic_load_n(&ret_tramp, __ATOMIC_RELAXED);
    if (!known) { /* set once in the registry, never changed: any thread may copy it */
        edgeprobe__root *r = __atomic_load_n(&edgeprobe__this_object.root, __ATOMIC_ACQUIRE);
        struct edgeprobe__func_state *fs = r ? __atomic_load_n(&r->fstate, __ATOMIC_ACQUIRE) : 0;
        known = fs ? fs->ret_tramp : 0;
        __atomic_store_n(&ret_tramp, known, __ATOMIC_RELAXED);
    }
    return a == known;
}
/* Whether the header's shadow stack kept a frame at `slot` among its
 * newest, those below `at` (the entry at `at` has just dropped the dead). */
P_FN int header_kept(uintptr_t slot, uintptr_t at) {
    const edgeprobe__func_thread *ft = edgeprobe__func_thread_tls;
    unsigned d = ft ? ft->depth : 0;
    for (; d > 0 && ft->frames[d - 1].slot < at; d--) {
        if (at - ft->frames[d - 1].slot >= EDGEPROBE__FUNC_SAME_STACK) return 0; /* the header's scan stopped here: not judged */
        if (ft->frames[d - 1].slot == slot) return 1;
    }
    return 0;
}
P_FN void drop_dead_timed(tstate *t, const edgeprobe_func_call *call) {
    int d = t->depth;
    uintptr_t at = call->slot;
    for (; d > 0; d--) {
        uintptr_t f = t->stack[d - 1].slot;
        if (!f || f > at || (f == at && is_return_trampoline(call->return_address)))
            break; /* the provider's frame; above this call, or its tail call: live */
        if (at - f < EDGEPROBE__FUNC_SAME_STACK && header_kept(f, at)) break; /* the interrupted code's */
    }
    t->depth = d;
}
/* TAIL CALLS. A call's caller is the function its return address lies in,
 * found at report time. A tail call's return address is its caller's
 * caller's (the caller jumped to it, leaving its own frame), so the time
 * of lua's luaD_callnoyield, f_call's only call, went to no edge of
 * f_call: f_call read 96% self for about 0. When the caller's call is
 * timed, its return address is the return trampoline and its frame is at
 * the tail call's very slot (DEAD FRAMES keeps it): that frame's function
 * is the caller. A tail call from a call not timed still goes to the
 * caller's caller. */
P_FN prof_func *tail_caller(const tstate *t, const edgeprobe_func_call *call) {
    const frame *top = t->depth ? &t->stack[t->depth - 1] : 0;
    return top && top->slot == call->slot && is_return_trampoline(call->return_address) ? top->f : 0;
}
/* Pop the frame of f's call that started at start, its ticket into tk and
 * its tail caller into tail; whether f has another timed call under way
 * below it. */
P_FN int timed_pop(tstate *t, const prof_func *f, uint64_t start, lat_ticket *tk, prof_func **tail) {
    int i;
    for (i = t->depth - 1; i >= 0 && !(t->stack[i].f == f && t->stack[i].own == start); i--) {}
    *tail = 0;
    if (i < 0) { /* gone (longjmp, exceptions): its sample is lost (WEIGHTS) */
        tk->slot = -1;
        tk->epoch = 0;
        return stack_holds(t, f, t->depth);
    }
    *tk = t->stack[i].lat;
    *tail = t->stack[i].tail_of;
    t->depth = i;
    return stack_holds(t, f, i);
}
NOI int fentry_on_entry(edgeprobe_func_call *call, void *user) {
    uint64_t now = rdtsc();
    prof_site *site = (prof_site *)user;
    prof_func *f = site->func;
    tstate *t = count_event();
    unsigned seq;
    int want = 0;
    frame *fr;
    if (!t) return 0;
    seq = __atomic_load_n(&f->seq, __ATOMIC_ACQUIRE);
    if (!prof_running) {
    } else if (!(seq & 1)) {
        f->ignored++; /* racy on purpose: a diagnostic */
    } else {
        if (!f->addr) f->addr = (uintptr_t)call->fn;
        want = window_after_entry(f, t, seq, now);
    }
    /* before account(): its cost is the profiler's. A call timed needs its
     * frame for its ticket (a full stack is dropped whole, DEAD FRAMES): one
     * with no slot left in its epoch is not timed. */
    drop_dead_timed(t, call);
    fr = want ? timed_push(t, f, call->slot, tail_caller(t, call)) : 0;
    if (fr && !lat_begin(f, &fr->lat, now)) {
        t->depth--;
        fr = 0;
    }
    want = fr != 0;
    /* the call's start on the thread's own clock: its callees' events
     * will not count in its time */
    call->data = account(t, now, cal_entry);
    if (fr) fr->own = call->data; /* the call's start: what its exit finds it by */
    return want;
}
NOI void fentry_on_exit(const edgeprobe_func_call *call, void *user) {
    uint64_t now = rdtsc();
    prof_site *site = (prof_site *)user;
    tstate *t = count_event();
    uint64_t own, d;
    sample_origin from;
    lat_ticket tk;
    if (!t) return;
    own = own_since(t, now, call->data);
    d = own > cal_self ? own - cal_self : 0;
    from.ra = call->return_address;
    from.nested = timed_pop(t, site->func, call->data, &tk, &from.caller); /* else resolved from ra at report time */
    record_sample(site->func, t, (uintptr_t)call->fn, now - own, now, d, &from, &tk);
    account(t, now, cal_exit);
}
/* Make sites for the function probes not seen yet and switch them on; the
 * functions' windows open (odd seq) with them. functions: how many
 * function probes are loaded now (edgeprobe_func_scan); the new ones'
 * records are paged in ahead (markers among the new points take none).
 * late: the epoch thread adopts an object loaded during the profile, whose
 * calls before now (up to an epoch) were not seen (`from-load`). Not from
 * a handler. */
P_FN uint64_t take_nested(prof_func *f, int whole);
P_FN int fentry_adopt(long functions, int late) {
    int id, n = edgeprobe_point_count(), adopted = 0;
    if (functions > fentry_functions)
        arena_populate((size_t)(functions - fentry_functions) * (ARENA_ROUND(sizeof(prof_func)) + ARENA_ROUND(sizeof(prof_site))));
    fentry_functions = functions;
    for (id = fentry_seen; id < n && (unsigned)id < MAX_IDS; id++) {
        edgeprobe_info info;
        prof_site *ps;
        prof_func *f;
        if (edgeprobe_point_info(id, &info) < 0 || info.kind != EDGEPROBE_KIND_FUNCTION) continue;
        if (!strcmp(info.name, PROF_CALIBRATION_TARGET)) {
            cal_id = info.patchable ? id : -1;
            continue;
        }
        sites_discovered++;
        sites_entry++;
        if (!info.patchable) {
            sites_unpatchable++;
            continue;
        }
        if (info.name[0] == '0' && info.name[1] == 'x') fentry_unnamed++;
        if (!(f = func_new(info.name)) || !(ps = (prof_site *)arena_alloc(sizeof *ps))) continue;
        f->from_load = late;
        ps->id = id;
        ps->kind = EDGEPROBE_KIND_FUNCTION;
        ps->addr = (unsigned char *)info.site;
        ps->func = f;
        ps->state = 1;
        site_by_id[id] = ps;
        if (edgeprobe_func_attach_id(id, fentry_on_entry, fentry_on_exit, ps) < 0) {
            bind_errors++;
            continue;
        }
        if (prof_mode == PROF_MODE_OFF) edgeprobe_func_off(id);
        f->skip_site = id + 1;
        take_nested(f, 0); /* another tool's handlers may have had it on: from now (NESTED CALLS) */
        sites_bound++;
        ps->next = f->sites;
        __atomic_store_n(&f->sites, ps, __ATOMIC_RELEASE);
        __atomic_add_fetch(&f->nsites, 1, __ATOMIC_RELEASE);
        __atomic_add_fetch(&f->nbound, 1, __ATOMIC_RELEASE);
        if (!(f->seq & 1) && prof_mode != PROF_MODE_OFF) { /* a first site: the window opens now */
            f->obs_open = 1;
            f->windows++;
            __atomic_store_n(&f->seq, f->seq + 1, __ATOMIC_RELEASE);
        }
        adopted++;
    }
    fentry_seen = n;
    return adopted;
}

/* ---- calibration -----------------------------------------------------------
 * What a function-probe event costs beyond what its handler measures of
 * itself: the site's call, the stub, the trampolines' register saves, the
 * shadow stack, the handler's own entry and return. Calls of an empty
 * function with a patchable entry, off, then on with the profiler's own
 * handlers (a hidden function record, window open, calls counted): the
 * difference less what the handlers added to the thread's profiler ticks
 * is the unmeasured cost. Calls not timed give an entry's share; timed
 * ones, an entry and an exit; their shortest sample, what lies between
 * the two timestamps. Best of several rounds (the machine may be busy). */
__attribute__((noinline, patchable_function_entry(5, 0))) NOI void edgeprobe_prof_calibration_target(void) {
    __asm__ volatile("");
}
#define CAL_CALLS 500
#define CAL_ROUNDS 5
static prof_func cal_func;
static prof_site cal_site;
/* What a calibration times: its target, and how it is switched (the
 * function probe of edgeprobe_prof_calibration_target, or the provider's
 * sites of edgeprobe_prof_provider_calibration_target). */
typedef struct cal_probe {
    void (*target)(void);
    int (*on)(void);
    void (*off)(void);
} cal_probe;
/* Ticks for CAL_CALLS calls of the calibration target, as it is switched. */
P_FN uint64_t cal_time_calls(const cal_probe *p) {
    void (*volatile target)(void) = p->target;
    uint64_t t0 = rdtsc();
    int i;
    for (i = 0; i < CAL_CALLS; i++) target();
    return rdtsc() - t0;
}
/* Each figure is the least of its rounds (the machine may be busy), taken
 * apart: the least time with the probe on (less what the handlers
 * measured) less the least time off. The least of each round's difference
 * took the round whose time off an interrupt had stretched: single runs
 * read the exit's unmeasured cost 0 to 53 ticks. */
P_FN uint64_t cal_per_call(uint64_t on, uint64_t off, unsigned round_half) {
    return on != ~0ull && off != ~0ull && on > off ? (on - off + round_half) / CAL_CALLS : 0;
}
/* Unmeasured ticks per call; the whole cost of a call's events into
 * *whole. Timed calls: every call gets its window's sample and a slot. */
P_FN uint64_t cal_unmeasured(tstate *t, const cal_probe *p, int timed, uint64_t *whole) {
    void (*volatile target)(void) = p->target;
    uint64_t least_off = ~0ull, least_on = ~0ull, least_unmeasured = ~0ull;
    int r, i;
    for (r = 0; r < CAL_ROUNDS; r++) {
        uint64_t t0, off = cal_time_calls(p), total, measured;
        if (p->on() < 0) return 0;
        measured = t->ov;
        t0 = rdtsc();
        for (i = 0; i < CAL_CALLS; i++) {
            cal_func.win_samples = timed ? 0 : prof_k; /* timed, or counted only */
            cal_func.win_entries = 0; /* past 8K entries a window times no call */
            if (timed && cal_func.lat) { /* and a bank holds cap slots an epoch: a free one for each */
                unsigned e = __atomic_load_n(&tick_seq, __ATOMIC_ACQUIRE);
                cal_func.lat->bank[e & 1] = (uint64_t)e << 32;
            }
            target();
        }
        total = rdtsc() - t0;
        measured = t->ov - measured;
        p->off();
        if (off < least_off) least_off = off;
        if (total < least_on) least_on = total;
        if (total > measured && total - measured < least_unmeasured) least_unmeasured = total - measured;
    }
    *whole = cal_per_call(least_on, least_off, 0);
    return cal_per_call(least_unmeasured, least_off, 0);
}
/* What a call counted by the skip path costs (SKIPPED COUNTS): the
 * calls of the empty function, armed, less the same calls off, rounded to
 * the nearest tick. */
P_FN uint64_t cal_skipped(const cal_probe *p) {
    uint64_t least_off = ~0ull, least_on = ~0ull;
    int r;
    for (r = 0; r < CAL_ROUNDS; r++) {
        uint64_t off = cal_time_calls(p), total;
        if (edgeprobe_func_on(cal_id) < 0 || edgeprobe_func_skip(cal_id, CAL_CALLS + 1) < 0) return 0;
        total = cal_time_calls(p);
        edgeprobe_func_skip(cal_id, 0);
        edgeprobe_func_off(cal_id);
        if (off < least_off) least_off = off;
        if (total < least_on) least_on = total;
    }
    return cal_per_call(least_on, least_off, CAL_CALLS / 2);
}
P_FN int cal_func_on(void) { return edgeprobe_func_on(cal_id); }
P_FN void cal_func_off(void) { edgeprobe_func_off(cal_id); }
static const cal_probe cal_function_probe = {edgeprobe_prof_calibration_target, cal_func_on, cal_func_off};
P_FN void calibrate(void) {
    tstate *t = count_event();
    uint64_t whole;
    cal_func.name = PROF_CALIBRATION_TARGET;
    cal_func.seq = 1; /* window open */
    cal_func.obs_len = PROF_OBS_ALL;
    cal_site.func = &cal_func;
    cal_site.kind = EDGEPROBE_KIND_FUNCTION;
    if (!t || cal_id < 0 || edgeprobe_func_attach_id(cal_id, fentry_on_entry, fentry_on_exit, &cal_site) < 0) {
        fprintf(stderr, "edgeprobe profiler: no calibration (the profiler's own function probe is missing); "
                        "latencies include the probes' trampolines\n");
        return;
    }
    cal_entry = cal_unmeasured(t, &cal_function_probe, 0, &cal_count);
#ifdef PROF_CHARGE_SCALE /* -D for experiments: bench/real/prof_charge.sh */
    cal_entry = (uint64_t)((double)cal_entry * PROF_CHARGE_SCALE);
#endif
    /* the timed calls' entries were charged cal_entry (account): what is
     * left unmeasured of them is the exit's */
    cal_exit = cal_unmeasured(t, &cal_function_probe, 1, &whole);
    cal_self = cal_func.min;
    cal_skip = cal_skip_charge = cal_skipped(&cal_function_probe);
#ifdef PROF_SKIP_BUDGET_SCALE /* -D for experiments: the budgets only, not the charge */
    cal_skip = (uint64_t)((double)cal_skip * PROF_SKIP_BUDGET_SCALE + 0.5);
#endif
#ifdef PROF_SKIP_CHARGE_SCALE /* -D for experiments: bench/real/prof_charge.sh (the charge only, not the budgets) */
    cal_skip_charge = (uint64_t)((double)cal_skip_charge * PROF_SKIP_CHARGE_SCALE + 0.5);
#endif
    t->skipped_seen = edgeprobe_func_thread_skipped(); /* the calibration's calls are not the program's */
    edgeprobe_func_detach(PROF_CALIBRATION_TARGET);
}
#ifndef PROF_ATTACHED /* (attached, the hooks are the program's) */
/* The provider's calibration: what one of its events costs beyond what
 * prof_handler measures of itself (the hook's call and return, the
 * site's lookup, the dispatch), charged to each event as cal_entry is to
 * a function probe's. Until 2026-11-27 (sixteenth session) it was not
 * charged: in a -finstrument-functions build of tests/prof/truth.c,
 * truth_outer (24 calls of probed callees in each) read p50 +9.6% and
 * truth_tiny +146 ticks of 196. The target calls the hooks as code built
 * with the flag does (this file is built without it); its sites are
 * found at its first call (the discovery callback keeps them apart) and
 * never reported. */
#define PROF_PROVIDER_CALIBRATION_TARGET "edgeprobe_prof_provider_calibration_target"
__attribute__((noinline, visibility("default"))) NOI void edgeprobe_prof_provider_calibration_target(void) {
    void *self = (void *)edgeprobe_prof_provider_calibration_target;
    __cyg_profile_func_enter(self, __builtin_return_address(0));
    __asm__ volatile("");
    __cyg_profile_func_exit(self, __builtin_return_address(0));
    __asm__ volatile(""); /* not a sibling call: the exit's site is a call to switch */
}
static prof_site cal_psite[2]; /* the target's entry and exit sites (func set: found) */
/* This file's hooks (the header's, EDGEPROBE_PROVIDER), by a name no
 * other object binds: a program that exports hooks of its own (built
 * with -rdynamic) has its calls go to those, and so would the target's;
 * then the provider sees nothing, and the calibration does not run (it
 * ran the program's hooks before the program's constructors, which an
 * independent review's program, whose hooks write to a FILE its
 * constructor opens, did not survive). */
extern __typeof__(__cyg_profile_func_enter) prof_own_enter __attribute__((alias("__cyg_profile_func_enter"), visibility("hidden")));
extern __typeof__(__cyg_profile_func_exit) prof_own_exit __attribute__((alias("__cyg_profile_func_exit"), visibility("hidden")));
P_FN int provider_hooks_ours(void) {
    return dlsym(RTLD_DEFAULT, "__cyg_profile_func_enter") == (void *)prof_own_enter &&
           dlsym(RTLD_DEFAULT, "__cyg_profile_func_exit") == (void *)prof_own_exit;
}
/* The calibration target's sites, by name, or by the "0x..." name the
 * provider gives a function dladdr cannot name (the profiler linked into
 * a program built without -rdynamic: its sites were "missing" and the
 * hooks' cost was never calibrated). */
P_FN int cal_provider_target(const char *name) {
    char anon[24];
    snprintf(anon, sizeof anon, "0x%012llx",
             (unsigned long long)(uintptr_t)edgeprobe_prof_provider_calibration_target & 0xffffffffffffull);
    return name && (!strcmp(name, PROF_PROVIDER_CALIBRATION_TARGET) || !strcmp(name, anon));
}
P_FN int cal_provider_found(const edgeprobe_info *info) {
    prof_site *s = &cal_psite[info->kind == EDGEPROBE_KIND_EXIT];
    if (!cal_provider_target(info->name)) return 0;
    s->id = info->id;
    s->kind = info->kind;
    s->addr = (unsigned char *)info->site;
    if (info->patchable && s->addr) memcpy(&s->rel32, s->addr + 1, 4);
    else s->state = -1;
    __atomic_store_n(&s->func, &cal_func, __ATOMIC_RELEASE);
    return 1;
}
P_FN int cal_provider_on(void) { return site_on(&cal_psite[0]) < 0 || site_on(&cal_psite[1]) < 0 ? -1 : 0; }
P_FN void cal_provider_off(void) {
    site_off(&cal_psite[0]);
    site_off(&cal_psite[1]);
}
static const cal_probe cal_provider_probe = {edgeprobe_prof_provider_calibration_target, cal_provider_on,
                                             cal_provider_off};
P_FN void calibrate_provider(void) {
    tstate *t = count_event();
    uint64_t per_call, whole;
    int i, k;
    if (!provider_hooks_ours()) {
        cal_provider_why = "the program's own hooks take the calls";
        return;
    }
    /* a first call whose try of the registry's lock failed is found later */
    for (i = 0; i < 100 && !(__atomic_load_n(&cal_psite[0].func, __ATOMIC_ACQUIRE) &&
                             __atomic_load_n(&cal_psite[1].func, __ATOMIC_ACQUIRE)); i++)
        edgeprobe_prof_provider_calibration_target();
    cal_func.name = PROF_PROVIDER_CALIBRATION_TARGET;
    cal_func.seq = 1; /* window open */
    cal_func.obs_len = PROF_OBS_ALL;
    for (k = 0; k < 2; k++)
        if (!t || !cal_psite[k].func || cal_psite[k].state < 0 ||
            edgeprobe_provider_attach_id(cal_psite[k].id, prof_handler, &cal_psite[k]) < 0) {
            cal_provider_why = "the profiler's own provider sites were not found";
            fprintf(stderr, "edgeprobe profiler: no calibration (%s); latencies include the hooks' calls\n",
                    cal_provider_why);
            return;
        }
    per_call = cal_unmeasured(t, &cal_provider_probe, 0, &whole); /* an entry and an exit */
    cal_provider_off();
    cal_provider = (per_call + 1) / 2;
}
#else
P_FN int cal_provider_found(const edgeprobe_info *info) {
    (void)info;
    return 0;
}
#endif

/* ---- the background thread ------------------------------------------------ */
static pthread_t bg_thread;
static int bg_started;
/* The epoch thread sleeps on this word (a futex): BG_WAKE_STOP wakes it to
 * stop, a signal number to write the report and end the process by that
 * signal (a signal handler may make the futex call). It was a pipe, until
 * an independent review closed it under the profiler: a program that
 * closes every descriptor (as daemons do) left the epoch thread spinning
 * on a closed one, and its exit writing the stop byte for ever, or into
 * the program's file that took the number. */
static int bg_wake;
#define BG_WAKE_STOP 1000
/* The first word posted wins (a stop signal before the exit's stop). */
P_FN void bg_post(int what) {
    int none = 0;
    if (__atomic_compare_exchange_n(&bg_wake, &none, what, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
        syscall(SYS_futex, &bg_wake, FUTEX_WAKE_PRIVATE, 1, 0, 0, 0);
}

/* Switch a site off for good (mode off, or its function can never be
 * sampled): provider sites start on, and even an unbound one costs a call
 * of the hook and a lookup every time it runs. */
P_FN void park(prof_site *s) {
    int rc = edgeprobe_call_off(s->addr);
    if (rc > 0) bg_ts.toggles++;
    s->state = rc >= 0 ? 2 : -1;
}
/* f has a site that cannot be bound, so it can never be sampled: its bound
 * sites go off for good. No handler switches them meanwhile: f's window
 * was shut when that site was discovered and never reopens (nbound stays
 * below nsites). */
P_FN void retire(prof_func *f) {
    prof_site *s;
    for (s = __atomic_load_n(&f->sites, __ATOMIC_ACQUIRE); s; s = s->next)
        if (s->state == 1) park(s);
}
/* Bind the sites discovered since the last epoch (the discovery callback
 * may not call edgeprobe), or switch them off. */
P_FN void bind_pending(void) {
    prof_site *s = __atomic_exchange_n(&pending, (prof_site *)0, __ATOMIC_ACQUIRE), *next;
    for (; s; s = next) {
        next = s->next_new;
        if (s->state < 0) { /* not patchable: f->broken was set with it */
            retire(s->func);
        } else if (prof_mode == PROF_MODE_OFF || s->func->broken) {
            park(s);
        } else if (edgeprobe_provider_attach_id(s->id, prof_handler, s) < 0) {
            s->state = -1;
            s->func->broken = 1;
            bind_errors++;
            retire(s->func);
        } else {
            s->state = 1;
            sites_bound++;
            __atomic_add_fetch(&s->func->nbound, 1, __ATOMIC_RELEASE);
        }
    }
}
/* Take the new and woken functions into the awake set (DORMANT). */
P_FN void take_woken(void) {
    prof_func *f = __atomic_exchange_n(&woken, (prof_func *)0, __ATOMIC_ACQUIRE);
    for (; f; f = f->next_woken) awake[nawake++] = f;
}
/* Functions an entry woke since the fold took the woken list: that entry,
 * timed, took a slot of the epoch that ended, and its exit, if it comes
 * before the next tick, leaves its sample there; unless the epoch is
 * weighed for them too (lat_fold), the sample is lost (a function called
 * once, woken there: sampled, mean and total 0). Their calls of that epoch
 * are folded with the next (none here: lat_calls). */
P_FN void take_woken_at_tick(void) {
    unsigned from = nawake, i;
    take_woken();
    for (i = from; i < nawake; i++) awake[i]->lat_calls = 0;
}
/* After the fold of epoch e: the awake functions that had no entry in it,
 * with their window open and no rate, leave the set (DORMANT). Those from
 * awake[folded] on were taken at the tick, not folded: they stay, and their
 * entries stay unfolded, for fold_function to see them (an entry that woke
 * one outside its interval, uncounted, is what makes its calls estimated;
 * consumed here, the row read exact without that call). In mode off
 * no handler runs, so every function sleeps: the epoch thread's passes over
 * all of them were 1.75% of redis-server's CPU samples under `--mode off`,
 * the cost that mode is meant to show without. */
P_FN void put_to_sleep(unsigned folded) {
    unsigned i, n = 0;
    for (i = 0; i < nawake; i++) {
        prof_func *f = awake[i];
        if (i >= folded) { /* woken (never idle: an entry, or a shut window) */
            awake[n++] = f;
            continue;
        }
        uint64_t entries = __atomic_load_n(&f->entries, __ATOMIC_SEQ_CST);
        unsigned seq = __atomic_load_n(&f->seq, __ATOMIC_SEQ_CST);
        int one = 1, idle = prof_mode == PROF_MODE_OFF ||
                            (prof_mode == PROF_MODE_SAMPLE && entries == f->entries_folded && f->obs_rate == 0 &&
                             f->obs_open && !__atomic_load_n(&f->busy, __ATOMIC_ACQUIRE) &&
                             !__atomic_load_n(&f->skip_armed, __ATOMIC_ACQUIRE) && /* its calls would wake nobody */
                             (seq & 1));
        f->entries_folded = entries;
        if (idle) {
            __atomic_store_n(&f->dormant, 1, __ATOMIC_SEQ_CST);
            if (__atomic_load_n(&f->entries, __ATOMIC_SEQ_CST) == entries && __atomic_load_n(&f->seq, __ATOMIC_SEQ_CST) == seq)
                continue;
            /* an entry came meanwhile, or a new site shut its window (prof_discover): keep it, unless that
             * entry or discovery woke it (then it is on `woken`) */
            if (!__atomic_compare_exchange_n(&f->dormant, &one, 0, 0, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) continue;
        }
        awake[n++] = f;
    }
    nawake = n;
}
/* Whether f's window can open: none of its sites broken, all bound. */
P_FN int window_can_open(const prof_func *f) {
    return !f->broken && __atomic_load_n(&f->nbound, __ATOMIC_ACQUIRE) == __atomic_load_n(&f->nsites, __ATOMIC_ACQUIRE);
}
/* Open f's window, if shut, for epoch `epoch`, its first `taken` samples
 * counted as taken (the epoch thread's; f->busy held). */
P_FN void open_window_held(prof_func *f, unsigned epoch, unsigned taken) {
    unsigned e = __atomic_load_n(&f->seq, __ATOMIC_ACQUIRE);
    if ((e & 1) || !window_can_open(f)) return;
    func_toggle(f, 1, &bg_ts); /* probes first, then the window */
    f->opened_for = epoch;
    f->win_samples = taken;
    f->win_entries = 0;
    if (__atomic_compare_exchange_n(&f->seq, &e, e + 1, 0, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) f->windows++;
}
P_FN void open_window(prof_func *f, unsigned epoch) {
    int zero = 0;
    if (!__atomic_compare_exchange_n(&f->busy, &zero, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) return;
    open_window_held(f, epoch, 0);
    __atomic_store_n(&f->busy, 0, __ATOMIC_RELEASE);
}
/* Open every closed window whose sites are all bound. */
P_FN void open_windows(void) {
    unsigned next = tick_seq + 1, i; /* the epoch thread's own: it moves the tick */
    take_woken();
    for (i = 0; i < nawake; i++) {
        prof_func *f = awake[i];
        unsigned e = __atomic_load_n(&f->seq, __ATOMIC_ACQUIRE);
        if (e & 1) { /* open since an earlier epoch: a new window all the same */
            __atomic_store_n(&f->opened_for, next, __ATOMIC_RELAXED);
            __atomic_store_n(&f->win_samples, 0, __ATOMIC_RELAXED);
            __atomic_store_n(&f->win_entries, 0, __ATOMIC_RELAXED);
            continue;
        }
        open_window(f, next);
    }
}
/* A span no count saw (a gap) waits no more: rate, read from n calls,
 * stands for it; its calls' noise is theirs over n + 1 (ERROR BOUNDS). */
P_FN void settle_gap(prof_func *f, double rate, double span, double n) {
    double x = rate * span;
    f->gap_calls += x;
    f->gap_settled += span;
    f->gap_var += x * x / (n + 1);
}
/* The rate of f's count under way, read from rate_from / rate_seen, at c
 * calls, seen; -1 over no span.
 * RATES FROM A FEW CALLS. A count re-read at a mid-tick (count_from_here)
 * whose cap comes a call or two later reads its part's rate from those
 * calls alone, over a span that ends at a call: for calls that come
 * evenly, n calls over a span from a random point to the n-th call read
 * n ln(n / (n - 1)) times the rate on average (1.39 for 2, 1.22 for 3).
 * tests/prof/yields.c under --count-budget 0 read its functions of one
 * call every 8 rounds at 1.07-1.36x, outside their error bounds, in every
 * run. Under RATE_MIN_CALLS calls since the mid-tick, the rate is read
 * over the whole count instead (1.00-1.04 since, the higher under load).
 * From 4 calls up the part's own rate stands, though it still reads high
 * (1.15 from 4, 1.07 from 8): under 16, lua read 39% of its estimates
 * within 10% against 49% (one batch), the whole count's span taking in
 * the phase before. */
#ifndef RATE_MIN_CALLS /* -D for experiments (0: every part's own rate) */
#define RATE_MIN_CALLS 4
#endif
/* Where f's rate at c calls is read from (calls, and own ticks in *seen):
 * the last mid-tick, or the count's start. */
P_FN uint64_t rate_base(const prof_func *f, uint64_t c, double *seen) {
    int few = c >= f->rate_from && c - f->rate_from < RATE_MIN_CALLS && f->start_from < f->rate_from;
    *seen = few ? f->start_seen : f->rate_seen;
    return few ? f->start_from : f->rate_from;
}
P_FN double count_rate(const prof_func *f, uint64_t c, double seen) {
    double from_seen;
    uint64_t from = rate_base(f, c, &from_seen);
    return seen > from_seen && c >= from ? (double)(c - from) / (seen - from_seen) : -1;
}
/* The calls that rate was read from. */
P_FN double rate_calls(const prof_func *f, uint64_t c) {
    double unused;
    uint64_t from = rate_base(f, c, &unused);
    return c >= from ? (double)(c - from) : 0;
}
/* A later count of f begins (mid-tick tick): the count that ended is
 * weighed first (its rate stands for the rest of its part; a count of no
 * span leaves that span to wait for the next rate), then the word, then the
 * interval counts again (obs_end_mark: no end), then the window re-opens
 * with no samples to take (they were the tick's: WEIGHTS) and the skip
 * path counts. Under f->busy, which close_window takes: an entry that
 * found the count ended and closes the window either does so before (and
 * the window re-opens) or finds the count under way and leaves it open;
 * an end come late (its entry before second_tsc) ends nothing
 * (end_interval). Where the count starts is set once every such window
 * is open (count_from_here). */
#define PROF_BUSY_TRIES 1000
static unsigned long long later_counts; /* started (the epoch thread's) */
P_FN int later_start(prof_func *f, unsigned epoch, unsigned tick) {
    int zero = 0, tries = 0;
    double seen = f->obs_seen, rate;
    uint64_t c;
    if (!window_can_open(f)) return 0; /* no count to start */
    while (!__atomic_compare_exchange_n(&f->busy, &zero, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
        zero = 0;
        /* a thread toggles f: a few microseconds, unless preempted; one
         * that never lets go (a program's signal handler left it by
         * longjmp) must not hold the epoch thread: f waits for the next */
        if (++tries > PROF_BUSY_TRIES) return 0;
        sched_yield();
    }
    c = __atomic_load_n(&f->obs_count, __ATOMIC_RELAXED);
    rate = count_rate(f, c, seen);
    if (rate >= 0) {
        settle_gap(f, rate, f->gap_span, rate_calls(f, c));
        f->gap_span = 0;
    }
    f->gap_rate = rate;
    f->gap_n = rate_calls(f, c);
    f->gap_from = seen;
    f->second_tick = tick;
    /* until count_from_here sets where it starts, the count runs from the
     * last one's end (a count that ends meanwhile is read over that span,
     * and its gap with it) */
    f->rate_seen = f->start_seen = seen; /* both from the last count's end, until count_from_here */
    f->rate_from = f->start_from = __atomic_load_n(&f->obs_count, __ATOMIC_RELAXED);
    __atomic_store_n(&f->second_from, f->rate_from, __ATOMIC_RELAXED);
    __atomic_store_n(&f->second_tsc, rdtsc(), __ATOMIC_SEQ_CST); /* before the word: end_interval's guard */
    __atomic_store_n(&f->second_word, second_tag(epoch) | SECOND_ON, __ATOMIC_SEQ_CST);
    /* no end, and one no end_interval under way can have read: its
     * compare-and-swap from the value before fails */
    __atomic_store_n(&f->obs_end_mark, ~tick != epoch + 1 ? ~tick : ~tick - 1, __ATOMIC_SEQ_CST);
    open_window_held(f, epoch, window_k(f));
    __atomic_store_n(&f->busy, 0, __ATOMIC_RELEASE);
    /* more calls than the mid-tick lasts: no count ends before it starts */
    skip_arm(f, PROF_GAP_COUNT, epoch, 0);
    later_counts++;
    return 1;
}
/* f's count is read from here (seen: the own ticks the threads had lived
 * by now), for a later count that begins (restart) or one under way
 * (the part's rate is the part's own: a count that began at the tick in
 * an idle part and ends in a busy one, lua's addfield in one
 * table.concat, is not read against the idle span; bursts.c's burst_leaf
 * read 0.14-0.20 of its calls so, against 0.39-0.58 with the second
 * count). The skip path's count is taken and armed again (a call in
 * between goes to the handler, which counts it). A later count's calls
 * since its window opened belong before it: re-opening a window takes a
 * few hundred nanoseconds, and counted from the mid-tick's start, the
 * later of a hundred windows opened that many microseconds late while
 * their span ran (lua's index2value: 0.42 of its calls); its span since
 * the last count's end waits for a rate, or takes gap_rate. */
P_FN void count_from_here(prof_func *f, unsigned epoch, double seen, int restart) {
    int armed = restart || __atomic_load_n(&f->skip_armed, __ATOMIC_RELAXED);
    uint64_t c, end;
    if (armed) skip_take(f, 1);
    if (!counting(f, epoch)) return; /* it ended already (its count was not armed) */
    c = __atomic_load_n(&f->obs_count, __ATOMIC_RELAXED);
    if (restart && seen > f->gap_from) {
        if (f->gap_rate >= 0) settle_gap(f, f->gap_rate, seen - f->gap_from, f->gap_n);
        else f->gap_span += seen - f->gap_from;
    }
    if (restart) { /* the later count starts here (RATES FROM A FEW CALLS) */
        __atomic_store_n(&f->second_from, c, __ATOMIC_RELEASE);
        f->start_from = c;
        f->start_seen = seen;
    }
    f->rate_from = c;
    f->rate_seen = seen;
    end = count_end(f, __atomic_load_n(&f->obs_cap, __ATOMIC_RELAXED), epoch);
    if (armed && end > c + 1) skip_arm(f, end - c, epoch, 0);
}
/* Whether f is a function of the skip path whose count is an estimate
 * (LATER COUNTS). */
P_FN int counted_by_parts(const prof_func *f) {
    return f->skip_site && __atomic_load_n(&f->obs_cap, __ATOMIC_RELAXED) && f->obs_len == PROF_OBS_ALL;
}
/* A mid-tick (LATER COUNTS): every estimated count of the skip path that
 * has ended counts again (of one group: STAGGERED COUNTS), and every one
 * under way is read from here; the threads' clocks are read once, after
 * every restarted window has opened. Functions woken since the tick join
 * the awake set here, not at the fold, for their counts to restart too. */
P_FN void mid_tick(void) {
    static unsigned ticks;
    unsigned epoch = tick_seq, i, tick = ++ticks, groups = stagger_groups();
    double seen;
    if (prof_mode != PROF_MODE_SAMPLE || prof_exact_calls || !__atomic_load_n(&prof_running, __ATOMIC_ACQUIRE)) return;
    take_woken();
    for (i = 0; i < nawake; i++)
        if (counted_by_parts(awake[i]) && !counting(awake[i], epoch) && ((unsigned)awake[i]->skip_site + tick) % groups == 0)
            later_start(awake[i], epoch, tick);
    seen = threads_observed(PROF_OBS_ALL, rdtsc());
    for (i = 0; i < nawake; i++) {
        prof_func *f = awake[i];
        int restart = f->second_tick == tick && second_on(f, epoch);
        /* counts under way are read at one mid-tick in `groups`, as often
         * as with four parts (reading them at all fifteen of 16 parts read
         * no better: dense_phases 1.03-1.06, lua within 10% 66-75%) */
        if (counted_by_parts(f) && counting(f, epoch) && (restart || tick % groups == 0))
            count_from_here(f, epoch, seen, restart);
    }
}
/* The calls counted in f's observation interval of the epoch that ends,
 * scaled to the epoch (own: its length in own ticks, summed over the threads
 * that ran handlers; seen: the part observed, likewise); then the next
 * interval's length (one thread's). */
#ifndef PROF_OBS_MIN
#define PROF_OBS_MIN 2000ull   /* ticks: shorter intervals count too little */
#endif
/* An interval that counted nothing doubles, up to a quarter of an epoch:
 * unbounded, a function idle through a program's phase (lua's benchmark
 * runs one kind of work after another) came back to an interval longer
 * than the epoch, and every call of its first busy epoch went through the
 * handler (lua under prof: 13 M handler calls a second, +40-50% CPU). */
#define PROF_OBS_MAX_DIV 4
/* COUNTING ALL. Every call of a function is counted (exact) when its every
 * call seen lasted PROF_COUNT_ALL_RATIO times what counting a call costs
 * (cal_count: the entry's events in all, calibrated), and counting all its
 * calls of the epoch fits in what is left of the epoch's budget: 1 /
 * PROF_COUNT_ALL_SHARE of its span (its threads' CPU time, or its wall
 * time if more: a program that sleeps between two phases has a small CPU
 * time in the epoch where the busy phase starts, and measured against it,
 * a function counted in full in both phases went to estimates at every
 * change), shared by every function of the epoch, in the fold's order. A
 * budget per function let redis count its whole request path, 15
 * functions, in full: 30 handler calls a request, +21% server CPU. Until
 * 2026-11-26 the cost was the trampolines' part alone (cal_entry +
 * cal_exit, a third of the whole) and the calls' number was not asked: lua's
 * str_format, 200,000 calls of 2,000 ticks, went through the handler every
 * time, and functions counted so made 60-70% of lua's handler calls under
 * prof. A count past all_cap in an epoch (a phase that calls the function
 * far more) ends its interval as PROF_COUNT_CAP does. */
#ifndef PROF_COUNT_ALL_RATIO
#define PROF_COUNT_ALL_RATIO 16
#endif
#ifndef PROF_COUNT_ALL_SHARE /* -D for experiments (bench/real/prof_ab.sh PROF_AB_DEFS) */
#define PROF_COUNT_ALL_SHARE 50
#endif
static double all_budget; /* ticks the next epoch's full counts may cost */
/* EXACT CALLS (`edgeprobe prof --exact-calls`). Every function is counted
 * in full in every epoch, whatever it costs: its entry probe stays on all
 * epoch, the window's K calls go to the handler and every other call to
 * the skip path (a few ticks each on x86-64; through the handler
 * elsewhere, and for the -finstrument-functions provider). No count ends,
 * so no call is estimated. The price is a counted call per call: on lua,
 * whose probed calls come every ~9 ticks, that is far above what the
 * sampled counts cost (README, "Exact calls"). */
#define PROF_EXACT_CAP (1ull << 62) /* all_cap then: more calls than an epoch has (a long fits it) */
P_FN void set_exact_calls(int on) {
    prof_exact_calls = on;
    __atomic_store_n(&all_cap, on ? PROF_EXACT_CAP : PROF_ALL_CAP_START, __ATOMIC_RELAXED);
}
/* What counting a call costs, in ticks: calibrated (function probes), else
 * the profiler's ticks over its events so far, all threads (the epoch
 * thread's, each epoch). */
static double event_ticks;
P_FN void measure_event_ticks(void) {
    double ov = 0, events = 0;
    const tstate *t;
    if (cal_count) {
        event_ticks = (double)cal_count;
        return;
    }
    for (t = __atomic_load_n(&ts_all, __ATOMIC_ACQUIRE); t; t = t->next) {
        ov += (double)__atomic_load_n(&t->ov, __ATOMIC_RELAXED);
        events += (double)__atomic_load_n(&t->events, __ATOMIC_RELAXED);
    }
    event_ticks = events > 0 ? ov / events : 0;
}
/* COUNTING BUDGET. The intervals of all functions together count about
 * 1 / PROF_COUNT_SHARE of an epoch's span in calls: each function's
 * target is that over the functions that counted calls in the last epoch,
 * between PROF_COUNT_TARGET_MIN and PROF_COUNT_TARGET. At 128 each, the
 * 200 functions redis runs in an epoch counted 25,000 calls (about 8% of
 * the server's CPU); a program of a few functions still counts 128. */
#ifndef PROF_COUNT_SHARE
#define PROF_COUNT_SHARE 100
#endif
#define PROF_COUNT_TARGET_MIN 16
static double count_target = PROF_COUNT_TARGET;
static double skip_target; /* the same for counts the skip path takes */
/* Those share 1 / PROF_SKIP_SHARE of the span, at cal_skip a call: 0.5%,
 * which a skipped call's cost in a real program (bench/real/skip_cost.sh:
 * 4.2 ticks in lua against 4-5 calibrated; 7.7 before the stubs' head)
 * leaves about as it is. */
#ifndef PROF_SKIP_SHARE /* -D for experiments */
#define PROF_SKIP_SHARE 200
#endif
static unsigned counted_functions; /* in the fold under way */
/* The budgets above are the default count budget's parts (prof_common.h:
 * `--count-budget`): another budget scales them all. */
static double prof_count_budget = PROF_DEFAULT_COUNT_BUDGET;
P_FN double budget_part(double span, double share) {
    return span / share * (prof_count_budget / PROF_DEFAULT_COUNT_BUDGET);
}
P_FN void set_count_target(double span) {
    double t = counted_functions && event_ticks > 0
                   ? budget_part(span, PROF_COUNT_SHARE) / event_ticks / counted_functions
                   : PROF_COUNT_TARGET;
    count_target = t > PROF_COUNT_TARGET ? PROF_COUNT_TARGET : t < PROF_COUNT_TARGET_MIN ? PROF_COUNT_TARGET_MIN : t;
    t = counted_functions && cal_skip ? budget_part(span, PROF_SKIP_SHARE) / (double)cal_skip / counted_functions : 1024;
    skip_target = t > 2048 ? 2048 : t < 64 ? 64 : t;
    counted_functions = 0;
}
/* THE REST OF AN EPOCH. Where a count ended before its epoch did, the
 * rest of the epoch was not observed: its calls are the count's rate times
 * its length. A function whose calls stop in that rest (a phase ends:
 * bzip2's sorting between two blocks, tests/prof/alternating.c) had the
 * busy rate for all of it, and one whose count ended late, because its
 * calls had just begun, the idle rate. So the rest is settled at the next
 * observed epoch: its calls at the mean of the rate before it and the
 * next epoch's (a change of phase at a time uniform in the rest reads
 * right on average; steady calls do not move). The correction goes to
 * the count, not to the epoch's weights (lat_calls), and never takes the
 * rest below half its first estimate. */
#ifndef PROF_REST_SETTLE /* -D for experiments: 0, the rest at its own rate */
#define PROF_REST_SETTLE 1
#endif
/* ERROR BOUNDS. An estimated count is printed with a bound: two standard
 * errors (err% in the report), from the variance of the calls each epoch
 * extrapolated (x, over the spans its counts did not see: the rest after
 * the last count, and the gaps between counts), summed over the epochs as
 * if their errors were independent (four terms), and one term that does
 * not average out:
 * - var_count: the counts' own noise. A rate read from n calls is off by
 *   about one part in sqrt(n), and so is what it extrapolates: x^2 / (n + 1)
 *   for each span, n the calls of the rate that stands for it (a part's own,
 *   LATER COUNTS: a count re-read at a mid-tick and ended by its cap soon
 *   after reads its rate from a few calls, and such rates run high: the
 *   count ends at a call); plus what one call more in the spans counted
 *   would have added (a count of no calls extrapolates none, yet bounds
 *   the rate only by a call or so). An epoch not observed at all (its
 *   window shut) extrapolates the last rate with nothing counted: x^2, all
 *   of it in doubt.
 * - var_settle: what THE REST's settling moved (half the change of rate
 *   between the rest's epoch and the next, over the rest): a phase that
 *   changes in the rest is off by up to that.
 * - var_flat: how far the parts' own rates (LATER COUNTS: each span not
 *   counted takes the rate of a count next to it) put x from the epoch's
 *   flat rate (all its counted calls over all the spans counted). Where
 *   calls come in bursts, a count that ends at its cap inside one reads a
 *   rate that is neither; the two disagree most where the estimate is least
 *   sure.
 * - var_share: a share of x itself (ERR_EXTRAPOLATED_SHARE, a quarter), for
 *   calls whose rate no count showed: a phase that begins and ends between
 *   two counts moves none of the terms above.
 * - systematic: a share of all x (ERR_SYSTEMATIC_SHARE, 8%), added whole,
 *   for the profiler's cost that the spans counted hold: its events cost
 *   more in a program than in the tight loop that calibrates them (cold
 *   caches, code just rewritten), the spans run long by that and the rates
 *   read low (lua's functions of a million calls or more: 0.85-0.95 of
 *   their exact counts, the median of a run, in every batch).
 * And a call at least. The terms were weighed against exact counts
 * (README, "Error bounds"): the counts' noise alone held for 10% of lua's
 * estimates; all of them for 85-96%, batch by batch. */
#ifndef ERR_SYSTEMATIC_SHARE /* -D for experiments */
#define ERR_SYSTEMATIC_SHARE 0.08
#endif
#ifndef ERR_EXTRAPOLATED_SHARE /* -D for experiments */
#define ERR_EXTRAPOLATED_SHARE 0.25
#endif
P_FN void note_extrapolated(prof_func *f, double x, double flat, double noise) {
    f->var_count += noise;
    f->var_flat += (x - flat) * (x - flat);
    f->var_share += x * x * ERR_EXTRAPOLATED_SHARE * ERR_EXTRAPOLATED_SHARE;
    f->extrapolated += x;
}
/* A square root by Newton's steps, report time only: the agent links no
 * libm (it is loaded into programs that may not). */
P_FN double square_root(double v) {
    uint64_t bits;
    double r;
    int i;
    if (!(v > 0)) return 0;
    memcpy(&bits, &v, sizeof bits);
    bits = (bits >> 1) + (1023ull << 51); /* the exponent halved: within 2x */
    memcpy(&r, &bits, sizeof r);
    r = (r + v / r) / 2; /* above the root from here on */
    for (i = 0; i < 64; i++) {
        double next = (r + v / r) / 2;
        if (next >= r) break; /* it falls until it settles */
        r = next;
    }
    return r;
}
/* The two-standard-error bound of f's calls, in calls (0: exact); a call
 * at least (zstd's ZSTD_count read 6,755 of 6,754 calls, bounded by 0.7). */
P_FN double calls_bound(const prof_func *f) {
    double sys = ERR_SYSTEMATIC_SHARE * f->extrapolated;
    double v = f->var_count + f->var_settle + f->var_flat + f->var_share + sys * sys + 0.25;
    return f->estimated ? 2 * square_root(v) : 0;
}
/* The calls of the epoch that ended, counted or extrapolated, with the
 * last epoch's rest settled; f->obs_rate set for the next. */
P_FN double epoch_calls(prof_func *f, uint64_t c, double seen, double own) {
    double calls, rate, unseen, x, counted, n, rest_x, one_more;
    if (!f->obs_open || seen <= 0) { /* not observed: the last rate, for all of it */
        f->rest_span = 0;
        x = f->obs_rate * own;
        note_extrapolated(f, x, x, x * x);
        parts_reset(f); /* later counts it had (a window re-opened at a mid-tick) end with the epoch */
        return (double)c + x;
    }
    /* LATER COUNTS: the last count's rate, for the spans that wait and the
     * rest; a count of no span takes the one before's (the rate of an
     * interval counted by length is read from the tick: c * own / seen) */
    rate = count_rate(f, c, seen);
    n = rate_calls(f, c);
    if (rate < 0) {
        rate = f->gap_rate >= 0 ? f->gap_rate : (double)c / seen;
        n = f->gap_rate >= 0 ? f->gap_n : (double)c;
    }
    unseen = own - seen + f->gap_span;
    rest_x = rate * unseen;
    x = f->gap_calls + rest_x;
    calls = (double)c + x;
    counted = seen - f->gap_span - f->gap_settled; /* seen holds the gaps, settled or waiting */
    if (counted <= 0) counted = seen;
    one_more = (unseen + f->gap_settled) / counted; /* a call more counted, extrapolated */
    note_extrapolated(f, x, (double)c / counted * (unseen + f->gap_settled),
                      f->gap_var + rest_x * rest_x / (n + 1) + one_more * one_more / ((double)c + 1));
    parts_reset(f); /* the next epoch's */
    if (PROF_REST_SETTLE && f->rest_span > 0) {
        double moved = (rate - f->rest_rate) / 2 * f->rest_span;
        f->est_calls += moved;
        f->var_settle += moved * moved;
    }
    f->obs_rate = f->rest_rate = rate;
    f->rest_span = unseen;
    return calls;
}
/* NESTED CALLS. A call that finds its thread inside a handler (a signal
 * handler that interrupted one) runs no handler: the header counts it
 * (edgeprobe_func_nested), and an interval that counts every call of its
 * epoch (whole) takes those of the epoch; an interval that is a sample
 * leaves them to its scaling. Without them, --exact-calls lost the calls
 * a signal handler made while the profiler's handler ran, and called the
 * count exact (an independent review: 57,087 of 65,163). */
P_FN uint64_t take_nested(prof_func *f, int whole) {
    long n = f->skip_site ? edgeprobe_func_nested(f->skip_site - 1) : 0, d = n - f->nested_seen;
    if (n < 0 || d <= 0) return 0;
    f->nested_seen = n;
    return whole ? (uint64_t)d : 0;
}
/* At the end: the nested calls of functions asleep (DORMANT), which wake
 * nobody (no handler runs for them). Their windows are open and their
 * intervals never ended: taken as fold_function takes them. */
P_FN void take_nested_asleep(void) {
    prof_func *f;
    for (f = fn_all; f; f = f->next_all)
        if (__atomic_load_n(&f->dormant, __ATOMIC_ACQUIRE))
            f->est_calls += (double)take_nested(f, f->obs_len == PROF_OBS_ALL);
}
P_FN void fold_function(prof_func *f, double own, unsigned nthreads, uint64_t now, unsigned ended) {
    uint64_t c, len = f->obs_len, next, cap = 0;
    int by_trampoline = f->skip_site && cal_skip; /* SKIPPED COUNTS */
    double cost = by_trampoline ? (double)cal_skip : event_ticks; /* a call counted */
    skip_take_as(f, 1, 1, ended);
    c = __atomic_exchange_n(&f->obs_count, 0, __ATOMIC_RELAXED);
    int ended_early = __atomic_load_n(&f->obs_end_mark, __ATOMIC_ACQUIRE) == ended + 1;
    c += take_nested(f, len == PROF_OBS_ALL && !ended_early);
    double seen = ended_early ? f->obs_seen : len == PROF_OBS_ALL ? own : threads_observed_at_tick(len, now, ended);
    if (seen > own) seen = own;
    /* not every call seen: an estimate, even of none (an interval that
     * ended before a burst came counted 0, and was called exact); so is
     * one with a later count, whose last count ran to the epoch's end but
     * not the one before (LATER COUNTS: tests/prof/churn.c's late_work
     * read 1,055-1,748 of 2,000 calls, "exact", in 4 runs of 30) */
    if ((c || f->entries != f->entries_folded) && (!f->obs_open || seen < own || second_on(f, ended)))
        f->estimated = 1;
    double calls = epoch_calls(f, c, seen, own);
    /* the epoch's decision closed: an entry of it still under way (the
     * tick gap) ends its interval, and starts no count to carry over */
    __atomic_store_n(&f->second_word, second_tag(ended) | SECOND_NONE, __ATOMIC_RELEASE);
    f->est_calls += calls;
    f->lat_calls = calls; /* the epoch's calls, for its weights */
    seen = nthreads ? seen / nthreads : seen; /* one thread's interval */
    f->obs_open = __atomic_load_n(&f->seq, __ATOMIC_ACQUIRE) & 1;
    if (prof_mode != PROF_MODE_SAMPLE) return;
    counted_functions += c != 0;
    if (prof_exact_calls) {
        next = PROF_OBS_ALL; /* EXACT CALLS: all_cap is no cap */
    } else if (f->samples && (double)f->min >= PROF_COUNT_ALL_RATIO * cost && calls * cost <= all_budget) {
        all_budget -= calls * cost;
        next = PROF_OBS_ALL; /* cheap against the call and the epoch: exact */
    } else if (by_trampoline) { /* from the tick to the count's end */
        next = PROF_OBS_ALL;
        cap = (uint64_t)skip_target;
    } else if (c == 0) { /* longer, to see the function again: at most a quarter epoch */
        uint64_t cap = (uint64_t)((double)prof_epoch_ms * 1e6 * ticks_per_ns / PROF_OBS_MAX_DIV);
        next = len != PROF_OBS_ALL && (len * 2 < cap || !cap) ? len * 2 : (len > cap && len != PROF_OBS_ALL ? len : cap);
    } else {
        double scale = count_target / (double)c;
        next = (uint64_t)(seen * (scale > 2 ? 2 : scale));
    }
    __atomic_store_n(&f->obs_cap, cap, __ATOMIC_RELAXED);
    __atomic_store_n(&f->obs_len, next < PROF_OBS_MIN ? PROF_OBS_MIN : next, __ATOMIC_RELAXED);
}
/* A thread's CPU time in ns (Linux: the clock id of a thread's CPU-time
 * clock, as pthread_getcpuclockid makes it), or 0 when it has exited. */
P_FN uint64_t thread_cpu_ns(long tid) {
    struct timespec ts;
    clockid_t id = (clockid_t)((~(unsigned long)tid << 3) | 6);
    uint64_t frozen = part_clock(tid);
    if (frozen) return frozen;
    if (clock_gettime(id, &ts)) return 0;
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
/* A new thread's CPU time at the tick, from its clock now: all of it if
 * it can have been born since (a thread first seen in this epoch was, most
 * often), else all but the wall time since the tick. Without it the
 * epoch's own length fell back to the wall time of every thread (blocked
 * time included) in each epoch a thread was new: a thread per connection
 * made that every epoch. Its own time and its interval start from the same
 * origin, so the estimate stays consistent whichever it is. */
P_FN void cpu_origin(tstate *t) {
    uint64_t cpu = ticks_per_ns > 0 ? thread_cpu_ns(t->tid) : 0;
    double since = (double)(rdtsc() - __atomic_load_n(&tick_tsc, __ATOMIC_RELAXED)) / ticks_per_ns;
    if (!cpu) return;
    t->cpu_folded_ns = (double)cpu > since ? cpu - (uint64_t)since : 0;
    t->cpu_known = 1;
}
/* ticks_per_ns: measured over the first epoch, refined after */
static uint64_t tsc_start;
static struct timespec mono_start;
P_FN void measure_tsc_rate(uint64_t now) {
    struct timespec m;
    double ns;
    clock_gettime(CLOCK_MONOTONIC, &m);
    ns = (double)(m.tv_sec - mono_start.tv_sec) * 1e9 + (double)(m.tv_nsec - mono_start.tv_nsec);
    if (ns > 1e6 && now > tsc_start) ticks_per_ns = (double)(now - tsc_start) / ns;
}
/* The epoch's own length: the CPU time of the threads that ran handlers or
 * ran at all (each thread's, less its profiler ticks; their sum), or the
 * wall time less their profiler ticks when a CPU clock cannot be read.
 * Each thread's part is kept (epoch_run) for fold_function.
 *
 * GONE THREADS. A thread whose clock could be read and no longer can has
 * exited; once an epoch has folded its last events it is gone, and the
 * epoch's passes read its clock no more. Before, every thread that ever
 * ran a handler cost two failing system calls an epoch: a thread per job
 * (tests/prof/churn.c, 30,000 of them) had the epoch thread at 5.1% of
 * the run's CPU. Its record stays in ts_all (the report's totals) and goes
 * on ts_free, for the next new thread (REUSED RECORDS). */
P_FN double epoch_own_ticks(uint64_t wall, unsigned *n) {
    double ovsum = 0, runsum = 0;
    unsigned nthreads = 0, nrun = 0;
    tstate *t;
    for (t = __atomic_load_n(&ts_all, __ATOMIC_ACQUIRE); t; t = t->next) {
        uint64_t read_at, ov, cpu, ovc;
        double dov, run = 0;
        int read = 1;
        if (__atomic_load_n(&t->gone, __ATOMIC_ACQUIRE)) continue; /* its epoch_run stays -1 */
        t->epoch_run = -1;
        read_at = rdtsc(), ov = __atomic_load_n(&t->ov, __ATOMIC_RELAXED), cpu = thread_cpu_ns(t->tid);
        ovc = __atomic_load_n(&t->ovc, __ATOMIC_RELAXED);
        dov = (double)(ov - t->ov_folded);
        if (ticks_per_ns > 0 && cpu && t->cpu_known)
            run = cpu_ticks_since(cpu, t->cpu_folded_ns) - (double)(ovc - t->ovc_folded);
        else if (ticks_per_ns > 0 && !cpu && dov > 0) /* exited: to its last handler */
            run = t->tick_seq == tick_seq ? (double)own_since_check(t, t->last_tsc)
                  : t->last_tsc > tick_tsc ? (double)(t->last_tsc - tick_tsc) - dov : 0;
        else
            read = 0;
        if (cpu) {
            t->cpu_folded_ns = cpu;
            t->cpu_known = 1;
        }
        t->fold_read_tsc = read_at;
        t->ov_folded = ov;
        t->ovc_folded = ovc;
        if (!cpu && t->cpu_known && ticks_per_ns > 0 && dov <= 0) { /* GONE THREADS */
            t->ran_gap = 0, t->gap_run = 0; /* restart_clocks sets them no more */
            __atomic_store_n(&t->gone, 1, __ATOMIC_RELEASE); /* no reader passes it now (REUSED RECORDS) */
            ts_free_push(t);
            continue;
        }
        /* in the epoch: it had events, or it ran (without any: a long call,
         * code not probed; its span is observed too, see threads_observed) */
        if (dov <= 0 && run <= 0) continue;
        ovsum += dov;
        nthreads++;
        if (!read) continue; /* the wall time for all */
        t->epoch_run = run > 0 ? run : 0;
        runsum += t->epoch_run + t->gap_run; /* its calls: the next epoch's rate (TICK GAP) */
        nrun++;
    }
    *n = nthreads;
    if (nrun && nrun == nthreads) return runsum;
    return (double)wall * nthreads - ovsum;
}
/* The threads' clocks read again for the tick (TICK GAP): each thread's own
 * time since the epoch's end was read (the gap) is kept for the next
 * epoch's length, and its own time in the next epoch starts now. Returns
 * the tick's time. */
P_FN uint64_t restart_clocks(void) {
    tstate *t;
    uint64_t tick;
    for (t = __atomic_load_n(&ts_all, __ATOMIC_ACQUIRE); t; t = t->next) {
        /* gone: its ran_gap and gap_run were cleared when it went */
        if (__atomic_load_n(&t->gone, __ATOMIC_ACQUIRE)) continue;
        uint64_t a = rdtsc(), cpu = ticks_per_ns > 0 && t->cpu_known ? thread_cpu_ns(t->tid) : 0, b = rdtsc();
        uint64_t ov = __atomic_load_n(&t->ov, __ATOMIC_RELAXED), ovc = __atomic_load_n(&t->ovc, __ATOMIC_RELAXED);
        double ran = cpu ? cpu_ticks_since(cpu, t->cpu_folded_ns) : 0, gap = ran - (double)(ovc - t->ovc_folded);
        t->gap_run = gap > 0 ? gap : 0;
        t->read_tsc = a + (b - a) / 2;
        /* ran through the gap: its CPU time kept up with the TSC */
        t->ran_gap = cpu && t->read_tsc > t->fold_read_tsc && ran >= 0.9 * (double)(t->read_tsc - t->fold_read_tsc);
        if (cpu) t->cpu_folded_ns = cpu;
        t->ov_folded = ov;
        t->ovc_folded = ovc;
    }
    /* Each clock was read before the tick, one system call after another:
     * a thread that ran through the gap is taken to run on from its reading
     * to the tick (its intervals start at the tick, where its counting can);
     * a thread that did not (blocked, preempted, exited) keeps its reading. */
    tick = rdtsc();
    for (t = __atomic_load_n(&ts_all, __ATOMIC_ACQUIRE); t; t = t->next)
        if (t->ran_gap && tick > t->read_tsc && tick - t->read_tsc < PROF_PREEMPTED) { /* else the epoch thread was preempted: not known */
            t->cpu_folded_ns += (uint64_t)((double)(tick - t->read_tsc) / ticks_per_ns);
            t->gap_run += (double)(tick - t->read_tsc);
        }
    return tick;
}
/* End the epoch at now: fold every function's count, then publish the next
 * epoch's tick (after open_windows: every interval starts with its
 * function's probes on). */
P_FN void fold_epoch(uint64_t now) {
    uint64_t wall = now > tick_tsc ? now - tick_tsc : 0;
    double own;
    unsigned nthreads, ended, i, folded;
    measure_tsc_rate(now);
    measure_event_ticks();
    own = epoch_own_ticks(wall, &nthreads);
    if (own < 1) own = 1;
    all_budget = budget_part(own > (double)wall ? own : (double)wall, PROF_COUNT_ALL_SHARE);
    set_count_target(own > (double)wall ? own : (double)wall); /* from the last fold's functions */
    if (event_ticks > 0 && !prof_exact_calls) { /* the cheapest count sets it: the cap is for phases, the budget for cost */
        double cheapest = fentry_mode && cal_skip ? (double)cal_skip : event_ticks;
        __atomic_store_n(&all_cap, (uint64_t)(2 * all_budget / cheapest) + PROF_COUNT_CAP, __ATOMIC_RELAXED);
    }
    take_woken();
    for (i = 0; i < nawake; i++) fold_function(awake[i], own, nthreads, now, tick_seq);
    folded = nawake;
    /* The tick, right after the threads' clocks are read again: their own
     * time in the next epoch starts where their counting can (TICK GAP). */
    now = restart_clocks();
    __atomic_store_n(&tick_tsc, now, __ATOMIC_RELAXED);
    ended = __atomic_add_fetch(&tick_seq, 1, __ATOMIC_SEQ_CST) - 1;
    take_woken_at_tick();
    for (i = 0; i < nawake; i++) /* the gap's counts: their calls are no epoch's */
        if (__atomic_load_n(&awake[i]->skip_gap, __ATOMIC_RELAXED)) skip_take(awake[i], 1);
    /* after the tick: new entries take slots in the other bank */
    for (i = 0; i < nawake; i++) lat_fold(awake[i], ended, now, nthreads);
    put_to_sleep(folded);
}

void edgeprobe_profiler_stop(void) NOI;
/* SIGTERM or SIGINT reached a program `edgeprobe prof` launched: the report
 * is written here, then the signal's default action ends the process as it
 * would have without the profiler (the command reports 128 + N). */
P_FN void report_and_die(int sig) {
    sigset_t set;
    edgeprobe_profiler_stop();
    signal(sig, SIG_DFL);
    sigemptyset(&set);
    sigaddset(&set, sig);
    pthread_sigmask(SIG_UNBLOCK, &set, 0);
    raise(sig);
    _exit(128 + sig);
}
/* Wait us microseconds, or for a word posted: 1 to go on, 0 to stop. (The
 * thread blocks every signal: a signal the program gets must not cut a
 * part short.) */
P_FN int bg_wait(long us) {
    struct timespec ts;
    int b;
    ts.tv_sec = us / 1000000;
    ts.tv_nsec = us % 1000000 * 1000;
    if (!__atomic_load_n(&bg_wake, __ATOMIC_SEQ_CST)) syscall(SYS_futex, &bg_wake, FUTEX_WAIT_PRIVATE, 0, &ts, 0, 0);
    if (!(b = __atomic_load_n(&bg_wake, __ATOMIC_SEQ_CST))) return 1;
    if (b == BG_WAKE_STOP) return 0;
    report_and_die(b);
    return 0;
}
static long bg_tid; /* the epoch thread's, for its CPU clock */
static unsigned bg_part; /* the parts of the epoch under way done so far */
/* One part of an epoch (LATER COUNTS): a mid-tick, or, the last, the tick.
 * On the epoch thread, or on the program's (INLINE EPOCHS). */
P_FN void epoch_part(void) {
    long functions;
    if (++bg_part < prof_epoch_parts) {
        mid_tick();
        return;
    }
    bg_part = 0;
    /* dlopen: new points (a marker's too; the scan's count of functions
     * is no point id, and held against fentry_seen a program's markers
     * hid libraries it loaded later) */
    if (fentry_mode && (functions = edgeprobe_func_scan()) > 0 && edgeprobe_point_count() > fentry_seen)
        fentry_adopt(functions, 1);
    bind_pending();
    if (prof_mode != PROF_MODE_OFF) open_windows();
    fold_epoch(rdtsc());
    bg_epochs++;
}
/* The wait before the next part: the epoch's length shared out, the last
 * part taking what division leaves. */
P_FN long epoch_part_us(void) {
    long part = (long)prof_epoch_ms * 1000 / prof_epoch_parts;
    return bg_part + 1 < prof_epoch_parts ? part : (long)prof_epoch_ms * 1000 - part * ((long)prof_epoch_parts - 1);
}
/* Held by the epoch thread through each part: daemon() forks between two
 * (DAEMONS), never with the profiler's tables half folded. */
static pthread_mutex_t bg_part_lock = PTHREAD_MUTEX_INITIALIZER;
P_FN void *bg_main(void *arg) {
    (void)arg;
    bg_tid = syscall(SYS_gettid);
    while (bg_wait(epoch_part_us())) {
        pthread_mutex_lock(&bg_part_lock);
        epoch_part();
        pthread_mutex_unlock(&bg_part_lock);
    }
    return 0;
}
#ifndef PROF_ATTACHED
P_FN void inline_stop(int sig, const ucontext_t *uc);
#endif
NOI void on_stop_signal(int sig, siginfo_t *info, void *context) {
    int saved = errno;
    (void)info, (void)context;
#ifndef PROF_ATTACHED
    if (__atomic_load_n(&inline_on, __ATOMIC_ACQUIRE)) inline_stop(sig, (const ucontext_t *)context);
    else
#endif
    bg_post(sig);
    errno = saved;
}
/* A child forked without exec is not profiled (the command profiles the
 * process it launched): it never reports, so it cannot overwrite the
 * parent's report, and it has no epoch thread to stop; it lets go of the
 * stop signals the parent caught for it, and of the parent's perf event.
 * daemon()'s child is the exception (DAEMONS). */
static __thread int daemon_forking; /* this thread's daemon() forks: its child takes the profile on (DAEMONS) */
NOI void on_fork_child(void) {
    static const int sigs[] = {SIGTERM, SIGINT};
    unsigned i;
    if (daemon_forking) return;
    prof_running = 0;
    prof_mode = PROF_MODE_NONE;
    bg_started = 0;
    inline_on = 0; /* (a process's timers are not inherited) */
    if (inline_perf >= 0) close(inline_perf); /* the parent's event: the copy is this child's own */
    inline_perf = -1;
    for (i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction old;
        if (sigaction(sigs[i], 0, &old) == 0 && (void *)old.sa_sigaction == (void *)on_stop_signal)
            signal(sigs[i], SIG_DFL);
    }
    bg_wake = 0;
}
#ifndef PROF_ATTACHED
/* In a program the command launched, SIGTERM and SIGINT write the report
 * first; only where the program left them at their default action (one it
 * installs later replaces ours, and its own exit path writes the report). */
P_FN void catch_stop_signals(void) {
    static const int sigs[] = {SIGTERM, SIGINT};
    unsigned i;
    for (i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction old, sa;
        if (sigaction(sigs[i], 0, &old) || old.sa_handler != SIG_DFL || (old.sa_flags & SA_SIGINFO)) continue;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = on_stop_signal;
        sa.sa_flags = SA_RESTART | SA_SIGINFO; /* where it came: INLINE EPOCHS */
        sigemptyset(&sa.sa_mask);
        sigaction(sigs[i], &sa, 0);
    }
}
#endif

#ifndef PROF_ATTACHED
/* ---- INLINE EPOCHS: the epochs on the program's own thread ---------------
 * glibc keeps fast paths for a process of one thread (malloc and free
 * without the arena's lock; private mutexes without atomic instructions),
 * chosen by __libc_single_threaded, which the first pthread_create clears
 * for good: an epoch thread that only sleeps cost lua 1.4-2.8% (RESULTS-real,
 * eleventh session), and the flag cannot be set back (fifteenth). Its
 * wake-ups cost too (16-30 us each, mostly waking an idle vCPU). So a
 * launched program that has one thread when the profile starts gets no
 * epoch thread. A clock of its thread's CPU time (THE PARTS' CLOCK: the
 * kernel's task-clock event, or a timer) sends INLINE_SIGNAL at every part
 * of an epoch, and the handler runs the part there (epoch_part). That
 * clock advances only while the thread runs: a thread blocked in read,
 * poll or nanosleep is never interrupted for it, and none of its calls
 * returns EINTR because of it (bench/real/tick_eintr.c: 0 of 600 with the
 * timer; a wall-clock timer, 200 of 300). The part runs at a safe point only
 * (inline_safe):
 *   - the interrupted instruction is in the text of a loaded object other
 *     than libc, the loader, the vDSO and this library (_dl_find_object,
 *     which takes no lock): not in malloc or the loader, which the part
 *     calls into (dl_iterate_phdr), not in a trampoline, stub or handler;
 *   - the thread is in no handler of the profiler's and no guarded stretch,
 *     and the registry's lock is not (maybe) its own;
 *   - it is not inside a program's signal handler (PROGRAM HANDLERS UNDER
 *     WAY, signal_defer.h) nor on the alternate signal stack: a handler may
 *     have interrupted malloc.
 * Elsewhere the part is tried again INLINE_RETRY_US of CPU time later (on
 * lua, 85% of ticks land at such points: bench/real/tick_where.c). The
 * part's time is charged to the thread as a handler's is (add_ov): out of
 * the latencies of the calls it interrupted, and out of the thread's own
 * time in counting intervals.
 *
 * A part runs on the profiler's own stack (OWN STACK).
 *
 * The epochs go to an epoch thread, for good, at the program's first
 * pthread_create (this library's, which the dynamic linker finds first),
 * before the new thread starts: one thread's clock no longer measures the
 * process, and the thread may wait in pthread_join. A thread made otherwise
 * (thrd_create, a SIGEV_THREAD timer's) hands them over at its first event,
 * or the next part finds glibc's flag cleared; so does the program's own
 * action for INLINE_SIGNAL. Its masks and waits leave INLINE_SIGNAL out
 * (MASKS AND WAITS). A stop signal (SIGTERM, SIGINT) writes the report in
 * its handler, at a safe point or where the thread was blocked in a system
 * call (inline_in_blocking_call: it holds nothing the report takes); else a
 * wall-clock timer tries again every INLINE_RETRY_US, for
 * INLINE_STOP_SECONDS. Chosen by EDGEPROBE_PROF_EPOCHS=inline (`--epochs
 * inline`); not the default: its estimates are rougher (RESULTS-real,
 * seventeenth and eighteenth sessions). */
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 35)) /* (the agent: x86-64) */
#include <gnu/libc-version.h>
#include <linux/perf_event.h>
#include <sys/auxv.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/single_threaded.h>
/* A standard signal, not a real-time one: the kernel never refuses it for
 * want of queue space (RLIMIT_SIGPENDING, shared by the user's processes),
 * where a real-time signal from the task-clock event is then replaced by
 * SIGIO, whose default kills the program (an independent review: status
 * 157, no report, with the quota full). Standard signals coalesce: the
 * handler takes any of them for a part due, and a stop under way retries
 * at each. SIGSTKFLT is one no program on Linux is sent by the kernel. */
#define INLINE_SIGNAL SIGSTKFLT
#define INLINE_RETRY_US 100
#define INLINE_STOP_SECONDS 5   /* a stop signal's report tried for that long */
#define INLINE_STOP_TIMER 1      /* the stop timer's sival_int */
P_FN void bg_prepare(void);
P_FN int bg_start(void);
static timer_t inline_timer, inline_stop_timer;
static int inline_used;                  /* the profile's epochs began on the program's thread */
static int inline_event_used;            /* timed by the task-clock event (THE PARTS' CLOCK) */
static volatile sig_atomic_t inline_stop_sig;
static unsigned long long inline_parts, inline_retries, inline_ticks, inline_backstops;
static long inline_tid; /* the program's thread */
static int (*inline_find)(void *, struct dl_find_object *);
/* The objects no part may interrupt (their map starts): libc, the loader,
 * the vDSO, this library, and those of an allocator the program brought
 * (malloc, calloc, realloc, free), which a part calls into. */
enum { INLINE_LIBC, INLINE_LOADER, INLINE_VDSO, INLINE_SELF, INLINE_ALLOC, INLINE_NOT_SAFE = INLINE_ALLOC + 4 };
static void *inline_not_safe[INLINE_NOT_SAFE];
static const char *const inline_alloc_names[] = {"malloc", "calloc", "realloc", "free"};
P_FN uintptr_t uc_pc(const ucontext_t *uc) { return (uintptr_t)uc->uc_mcontext.gregs[REG_RIP]; }
/* The map start of the object around a, or 0. */
P_FN void *inline_object(const void *a) {
    struct dl_find_object o;
    return a && inline_find((void *)a, &o) == 0 ? o.dlfo_map_start : 0;
}
P_FN int inline_in_program_text(uintptr_t pc) {
    void *start = inline_object((void *)pc);
    unsigned i;
    if (!start) return 0; /* no object's: a trampoline, a stub, generated code */
    for (i = 0; i < INLINE_NOT_SAFE; i++)
        if (start == inline_not_safe[i]) return 0;
    return 1;
}
/* Whether the thread was waiting in a system call that blocks (read,
 * poll, a futex, a FIFO's open, a lock on a file...) when the signal came:
 * restarted (SA_RESTART), the instruction is the `syscall` again and rax
 * its number; else rax is -EINTR, just after it. Neither malloc's system
 * calls nor the loader's are cut short so. */
static const int inline_blocking_calls[] = {
    SYS_read,    SYS_write,   SYS_readv,     SYS_writev,   SYS_pread64,      SYS_pwrite64,      SYS_preadv,
    SYS_pwritev, SYS_open,    SYS_openat,    SYS_ioctl,    SYS_flock,        SYS_fcntl,         SYS_wait4,
    SYS_waitid,  SYS_accept,  SYS_accept4,   SYS_connect,  SYS_recvfrom,     SYS_sendto,        SYS_recvmsg,
    SYS_sendmsg, SYS_futex,   SYS_semop,     SYS_semtimedop, SYS_msgrcv,     SYS_msgsnd,        SYS_pause,
    SYS_rt_sigsuspend, SYS_rt_sigtimedwait, SYS_nanosleep, SYS_clock_nanosleep, SYS_poll, SYS_ppoll, SYS_select,
    SYS_pselect6, SYS_epoll_wait, SYS_epoll_pwait, SYS_restart_syscall, SYS_mq_timedreceive, SYS_mq_timedsend};
P_FN int inline_in_blocking_call(const ucontext_t *uc) {
    const unsigned char *pc = (const unsigned char *)uc_pc(uc);
    long ax = (long)uc->uc_mcontext.gregs[REG_RAX];
    unsigned i;
    void *object = inline_object(pc);
    if (!object) return 0;
    if (ax == -EINTR) return inline_object(pc - 2) == object && pc[-2] == 0x0f && pc[-1] == 0x05;
    if (pc[0] != 0x0f || pc[1] != 0x05) return 0;
    for (i = 0; i < sizeof inline_blocking_calls / sizeof inline_blocking_calls[0]; i++)
        if (ax == inline_blocking_calls[i]) return 1;
    return 0;
}
/* Whether the thread, interrupted at uc, may run an epoch's part or the
 * report here (blocked_ok: also in a blocking system call). */
P_FN int inline_safe(const ucontext_t *uc, int blocked_ok) {
    uintptr_t pc = uc_pc(uc);
    edgeprobe__root *r = __atomic_load_n(&edgeprobe__this_object.root, __ATOMIC_ACQUIRE);
    edgeprobe__reader *rd = edgeprobe__reader_tls();
    uintptr_t alt_lo, alt_hi;
    if (!inline_in_program_text(pc) && !(blocked_ok && inline_in_blocking_call(uc))) return 0;
    if ((rd && (rd->depth || rd->guarded)) || (my_ts && my_ts->inside)) return 0;
    if (r && edgeprobe__lock_maybe_mine(&r->lock)) return 0;
    if (defer_altstack(&alt_lo, &alt_hi)) return 0; /* on a handler's stack */
    return !defer_in_program_handler(defer_uc_sp(uc), alt_lo, alt_hi);
}
/* One shot of timer in us (CPU time of the thread, or wall time). */
P_FN void inline_arm(timer_t timer, long us) {
    struct itimerspec its;
    memset(&its, 0, sizeof its);
    its.it_value.tv_sec = us / 1000000;
    its.it_value.tv_nsec = us % 1000000 * 1000;
    timer_settime(timer, 0, &its, 0);
}
/* THE PARTS' CLOCK. A timer on the thread's CPU-time clock fires at the
 * kernel's tick (250 Hz here): a part of 2.5 ms lasted 4-5 ms, and lua's
 * estimates were rougher for it (within 10%: 37-40% of its functions,
 * against 54-63% with the epoch thread). The kernel's task-clock event
 * (perf_event_open, a software event) counts the same time with a
 * high-resolution timer that runs only while the thread does; one overflow
 * (PERF_EVENT_IOC_REFRESH 1: none queued while a part runs) sends
 * INLINE_SIGNAL to the thread (F_SETSIG, F_OWNER_TID). It is taken in user
 * mode only (exclude_kernel, which perf_event_paranoid 2 asks of a user):
 * an overflow that finds the thread in the kernel is skipped, so the
 * signal never interrupts a system call. The CPU-time timer stays armed
 * behind it, re-armed at each epoch's tick for INLINE_BACKSTOP epochs:
 * should the event stop (the program closed its descriptor; a thread that
 * lives in the kernel skips its overflows), the timer fires and the parts
 * go to it for good. A part costs the event one ioctl (two when its period
 * changes: a try 100 us later), the timer one timer_settime; the event's
 * parts are twice as many (lua: 213 against 99). Where perf_event_open is
 * refused (paranoid 3, a seccomp filter), or with
 * EDGEPROBE_PROF_INLINE_CLOCK=timer, the timer alone. */
#define INLINE_BACKSTOP 4
static long inline_period_us; /* the event's period now */
P_FN int inline_perf_make(void) {
    struct perf_event_attr a;
    struct f_owner_ex owner;
    const char *how = getenv(PROF_ENV_INLINE_CLOCK);
    int fd;
    if (how && !strcmp(how, "timer")) return -1;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = PERF_TYPE_SOFTWARE;
    a.config = PERF_COUNT_SW_TASK_CLOCK;
    inline_period_us = epoch_part_us();
    a.sample_period = (uint64_t)inline_period_us * 1000;
    a.wakeup_events = 1;
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    a.disabled = 1;
    fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0) return -1;
    owner.type = F_OWNER_TID;
    owner.pid = (pid_t)syscall(SYS_gettid);
    if (fcntl(fd, F_SETSIG, INLINE_SIGNAL) || fcntl(fd, F_SETOWN_EX, &owner) ||
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_ASYNC | O_NONBLOCK)) {
        close(fd);
        return -1;
    }
    inline_perf = fd;
    inline_event_used = 1;
    return 0;
}
/* The next part (or try) in us of the thread's time. */
P_FN void inline_clock_arm(long us) {
    if (inline_perf < 0) {
        inline_arm(inline_timer, us);
        return;
    }
    if (us != inline_period_us) {
        uint64_t ns = (uint64_t)us * 1000;
        ioctl(inline_perf, PERF_EVENT_IOC_PERIOD, &ns);
        inline_period_us = us;
    }
    ioctl(inline_perf, PERF_EVENT_IOC_REFRESH, 1);
}
/* The timer behind the event, at an epoch's tick. */
P_FN void inline_backstop_arm(void) {
    if (inline_perf >= 0) inline_arm(inline_timer, (long)INLINE_BACKSTOP * prof_epoch_ms * 1000);
}
/* Whether the event's descriptor is still ours: the signal and the thread
 * it was given (its number may be the program's now). */
P_FN int inline_perf_ours(void) {
    struct f_owner_ex owner;
    return inline_perf >= 0 && fcntl(inline_perf, F_GETSIG) == INLINE_SIGNAL &&
           fcntl(inline_perf, F_GETOWN_EX, &owner) == 0 && owner.type == F_OWNER_TID && owner.pid == inline_tid;
}
/* The event is closed if it is ours, else only forgotten. */
P_FN void inline_perf_end(void) {
    if (inline_perf_ours()) {
        ioctl(inline_perf, PERF_EVENT_IOC_DISABLE, 0);
        close(inline_perf);
    }
    inline_perf = -1;
}
/* The timer fired behind the event: the parts go to the timer, unless the
 * event is still ours (the thread spent the epochs inside libc, put off,
 * or in the kernel, where overflows are skipped: the event works on). */
P_FN void inline_backstop(void) {
    if (inline_perf < 0 || inline_perf_ours()) return;
    inline_perf_end();
    inline_backstops++;
}
P_FN void inline_clock_delete(void) {
    inline_perf_end();
    timer_delete(inline_timer);
}
/* OWN STACK: a part takes up to about 25 KiB of stack (lat_fold's 12 KiB,
 * an adopted object's scan 8.5 KiB: gcc -fstack-usage), and the report
 * more; the thread's own stack, interrupted anywhere, may have less left
 * (a deep recursion under a small ulimit -s: prof-inline-deep-stack). So
 * they run on the profiler's: INLINE_STACK bytes above a guard page. */
#define INLINE_STACK (256 * 1024)
static char *inline_stack; /* its lowest byte: the guard page's */
P_FN int inline_stack_make(void) {
    inline_stack = (char *)mmap(0, INLINE_STACK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                                -1, 0);
    if (inline_stack == MAP_FAILED) return inline_stack = 0, -1;
    mprotect(inline_stack, 4096, PROT_NONE);
    return 0;
}
/* fn() with the stack pointer at the top of the profiler's stack; every
 * register the ABI lets fn change is declared changed. */
__attribute__((noinline)) NOI static void inline_on_own_stack(void (*fn)(void)) {
    void *top = inline_stack + INLINE_STACK; /* 16-byte aligned (a page's end) */
    __asm__ volatile("mov %%rsp, %%r12\n\t"
                     "mov %[top], %%rsp\n\t"
                     "call *%[fn]\n\t"
                     "mov %%r12, %%rsp"
                     : [top] "+r"(top), [fn] "+r"(fn)
                     :
                     : "r12", "rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11", "xmm0", "xmm1", "xmm2",
                       "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13",
                       "xmm14", "xmm15", "st", "st(1)", "st(2)", "st(3)", "st(4)", "st(5)", "st(6)", "st(7)", "memory",
                       "cc");
}
static int inline_part_busy;  /* a part runs on it */
/* The epochs go to an epoch thread, for good. */
P_FN void epochs_to_thread(void) {
    if (!__atomic_exchange_n(&inline_on, 0, __ATOMIC_SEQ_CST)) return;
    inline_clock_delete(); /* a tick already sent finds inline_on 0 */
    if (syscall(SYS_gettid) == inline_tid) { /* a tick waiting, blocked: gone before the program sets the signal */
        sigset_t one;
        struct timespec now = {0, 0};
        sigemptyset(&one);
        sigaddset(&one, INLINE_SIGNAL);
        while (syscall(SYS_rt_sigtimedwait, &one, 0, &now, _NSIG / 8) > 0) {}
    } else {
        while (__atomic_load_n(&inline_part_busy, __ATOMIC_SEQ_CST)) sched_yield(); /* never two epoch runners */
    }
    if (bg_start()) fprintf(stderr, "edgeprobe profiler: no background thread; probes will not re-open\n");
}
/* The first event of a thread: one the program's pthread_create did not
 * make (thrd_create, a SIGEV_THREAD timer's, aio's) while its main thread
 * may wait for it, with no CPU time to tick by. */
P_FN void inline_thread_seen(void) {
    if (syscall(SYS_gettid) != inline_tid) epochs_to_thread();
}
/* The program sets an action for the profiler's signal (one for every
 * signal, say): the epochs go to a thread first. */
NOI static void inline_program_sets(int sig) {
    if (sig == INLINE_SIGNAL && __atomic_load_n(&inline_on, __ATOMIC_ACQUIRE)) epochs_to_thread();
}
/* A part due: run here, or tried again shortly. */
P_FN void inline_tick(const ucontext_t *uc) {
    uint64_t t0, t1;
    if (!inline_safe(uc, 0)) {
        inline_retries++;
        inline_clock_arm(INLINE_RETRY_US);
        return;
    }
    if (!__libc_single_threaded) { /* a thread libc made (a SIGEV_THREAD timer, aio) */
        inline_on_own_stack(epochs_to_thread);
        return;
    }
    __atomic_store_n(&inline_part_busy, 1, __ATOMIC_SEQ_CST);
    if (!__atomic_load_n(&inline_on, __ATOMIC_SEQ_CST)) { /* a thread took the epochs meanwhile */
        __atomic_store_n(&inline_part_busy, 0, __ATOMIC_SEQ_CST);
        return;
    }
    part_tid = inline_tid;
    __atomic_store_n(&part_cpu_ns, thread_cpu_ns(inline_tid), __ATOMIC_RELAXED);
    t0 = rdtsc();
    inline_on_own_stack(epoch_part);
    t1 = rdtsc();
    __atomic_store_n(&part_cpu_ns, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&inline_part_busy, 0, __ATOMIC_SEQ_CST);
    inline_parts++;
    inline_ticks += t1 - t0;
    if (my_ts) add_ov(my_ts, t0, t1, 0);
    if (bg_part == 0) inline_backstop_arm(); /* an epoch's tick */
    inline_clock_arm(epoch_part_us());
}
/* The stop signal's report, here if this is a safe point (report_and_die
 * does not return), else from the stop timer's signal. */
NOI static void inline_report_and_die(void) { report_and_die(inline_stop_sig); }
P_FN void inline_stop(int sig, const ucontext_t *uc) {
    static struct timespec first;
    struct timespec now;
    inline_stop_sig = sig;
    if (inline_safe(uc, 1)) inline_on_own_stack(inline_report_and_die);
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (!first.tv_sec && !first.tv_nsec) first = now;
    if (now.tv_sec - first.tv_sec > INLINE_STOP_SECONDS ||
        (now.tv_sec - first.tv_sec == INLINE_STOP_SECONDS && now.tv_nsec >= first.tv_nsec)) {
        static const char msg[] = "edgeprobe profiler: no report: the program's thread came to no safe point in 5 s\n";
        if (write(2, msg, sizeof msg - 1) < 0) {}
        signal(sig, SIG_DFL);
        raise(sig);
        _exit(128 + sig);
    }
    inline_arm(inline_stop_timer, INLINE_RETRY_US);
}
NOI void on_inline_signal(int sig, siginfo_t *info, void *context) {
    int saved = errno;
    (void)sig;
    if (inline_stop_sig) { /* a stop under way: tried again at any of them (they coalesce) */
        if (prof_running) inline_stop(inline_stop_sig, (const ucontext_t *)context);
    } else if (__atomic_load_n(&inline_on, __ATOMIC_ACQUIRE) && prof_running) {
        if (info->si_code == SI_TIMER && info->si_value.sival_int != INLINE_STOP_TIMER)
            inline_backstop(); /* the event was late (THE PARTS' CLOCK) */
        inline_tick((const ucontext_t *)context);
    }
    errno = saved;
}
/* The objects no part may interrupt. 0 when the program's own text is one
 * of those objects: this library linked in, or an allocator built into the
 * executable (no point of it would be safe). */
P_FN int inline_objects(void) {
    void *program = inline_object((void *)getauxval(AT_ENTRY));
    unsigned i;
    inline_not_safe[INLINE_LIBC] = inline_object((void *)gnu_get_libc_version);
    inline_not_safe[INLINE_LOADER] = inline_object((void *)inline_find);
    inline_not_safe[INLINE_VDSO] = inline_object((void *)getauxval(AT_SYSINFO_EHDR));
    inline_not_safe[INLINE_SELF] = inline_object((void *)on_inline_signal);
    for (i = 0; i < 4; i++)
        if (!(inline_not_safe[INLINE_ALLOC + i] = inline_object(dlsym(RTLD_DEFAULT, inline_alloc_names[i])))) return 0;
    for (i = 0; i < INLINE_NOT_SAFE; i++)
        if (i != INLINE_VDSO && (!inline_not_safe[i] || inline_not_safe[i] == program)) return 0;
    return 1;
}
P_FN int inline_timer_make(timer_t *timer, clockid_t clock, int value) {
    struct sigevent ev;
    memset(&ev, 0, sizeof ev);
    ev.sigev_notify = SIGEV_THREAD_ID;
    ev.sigev_signo = INLINE_SIGNAL;
    ev.sigev_value.sival_int = value;
    ev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
    return timer_create(clock, &ev, timer);
}
/* The epochs on this thread, if the process has no other and nothing else
 * stands in the way; else -1 (an epoch thread). */
P_FN int inline_refused(const char *why) {
    fprintf(stderr, "edgeprobe profiler: --epochs inline: %s; the epochs run on a thread\n", why);
    return -1;
}
P_FN int inline_start(void) {
    const char *how = getenv(PROF_ENV_EPOCHS);
    struct sigaction sa, old;
    if (!how || strcmp(how, "inline")) return -1;
    if (!__libc_single_threaded) return inline_refused("the program has threads already");
    if (!defer_resolve() ||
        !(inline_find = (int (*)(void *, struct dl_find_object *))dlsym(RTLD_DEFAULT, "_dl_find_object")))
        return inline_refused("no _dl_find_object");
    if (!inline_objects())
        return inline_refused("the program's own text holds its allocator (malloc) or the profiler");
    if (defer_real_sigaction(INLINE_SIGNAL, 0, &old) || old.sa_handler != SIG_DFL)
        return inline_refused("the program handles the profiler's signal (SIGSTKFLT)");
    if (!inline_stack && inline_stack_make()) return inline_refused("no memory for its stack");
    inline_tid = syscall(SYS_gettid);
    if (inline_timer_make(&inline_timer, CLOCK_THREAD_CPUTIME_ID, 0)) return inline_refused("no timer");
    if (inline_timer_make(&inline_stop_timer, CLOCK_MONOTONIC, INLINE_STOP_TIMER)) {
        timer_delete(inline_timer);
        return inline_refused("no timer");
    }
    bg_prepare();
    inline_perf_make();
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_inline_signal;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigfillset(&sa.sa_mask); /* the program's handlers wait for a part */
    defer_real_sigaction(INLINE_SIGNAL, &sa, 0);
    inline_used = 1;
    defer_program_sets = inline_program_sets;
    __atomic_store_n(&defer_track_frames, 1, __ATOMIC_RELAXED);
    __atomic_store_n(&inline_on, 1, __ATOMIC_RELEASE);
    inline_backstop_arm();
    inline_clock_arm(epoch_part_us());
    return 0;
}
/* daemon()'s child, if the epochs were inline: its thread's own timers
 * and event (a process's timers are not inherited; the descriptor is the
 * parent's event). 0, or -1: the epochs go to a thread. */
P_FN int inline_child(void) {
    if (!__atomic_load_n(&inline_on, __ATOMIC_ACQUIRE)) return -1;
    inline_perf_end(); /* (the program may have closed it and reused the number before daemon()) */
    inline_tid = syscall(SYS_gettid);
    if (inline_timer_make(&inline_timer, CLOCK_THREAD_CPUTIME_ID, 0)) return inline_on = 0, -1;
    if (inline_timer_make(&inline_stop_timer, CLOCK_MONOTONIC, INLINE_STOP_TIMER)) {
        timer_delete(inline_timer);
        return inline_on = 0, -1;
    }
    if (inline_event_used) inline_perf_make();
    inline_backstop_arm();
    inline_clock_arm(epoch_part_us());
    return 0;
}
/* The profile ends (on the program's thread: stop_sampling). */
P_FN void inline_end(void) {
    if (__atomic_exchange_n(&inline_on, 0, __ATOMIC_ACQ_REL)) inline_clock_delete();
}
/* MASKS AND WAITS. While the epochs are inline, the program's masks and
 * waits leave the profiler's signal out: blocked, the epochs would wait
 * for good (a program that blocks every signal, to take them with
 * sigwaitinfo or a signalfd); taken by sigwaitinfo, the program would get
 * a signal it never asked for (both found by an independent review). */
static int (*inline_real_sigprocmask)(int, const sigset_t *, sigset_t *);
static int (*inline_real_pthread_sigmask)(int, const sigset_t *, sigset_t *);
static int (*inline_real_sigwait)(const sigset_t *, int *);
static int (*inline_real_sigwaitinfo)(const sigset_t *, siginfo_t *);
static int (*inline_real_sigtimedwait)(const sigset_t *, siginfo_t *, const struct timespec *);
static int (*inline_real_signalfd)(int, const sigset_t *, int);
__attribute__((constructor(101))) NOI static void inline_resolve(void) { /* not in a handler */
    inline_real_sigprocmask = (int (*)(int, const sigset_t *, sigset_t *))dlsym(RTLD_NEXT, "sigprocmask");
    inline_real_pthread_sigmask = (int (*)(int, const sigset_t *, sigset_t *))dlsym(RTLD_NEXT, "pthread_sigmask");
    inline_real_sigwait = (int (*)(const sigset_t *, int *))dlsym(RTLD_NEXT, "sigwait");
    inline_real_sigwaitinfo = (int (*)(const sigset_t *, siginfo_t *))dlsym(RTLD_NEXT, "sigwaitinfo");
    inline_real_sigtimedwait =
        (int (*)(const sigset_t *, siginfo_t *, const struct timespec *))dlsym(RTLD_NEXT, "sigtimedwait");
    inline_real_signalfd = (int (*)(int, const sigset_t *, int))dlsym(RTLD_NEXT, "signalfd");
}
/* set, or a copy of it without the profiler's signal */
P_FN const sigset_t *inline_strip(const sigset_t *set, sigset_t *copy) {
    if (!set || !__atomic_load_n(&inline_on, __ATOMIC_ACQUIRE) || sigismember(set, INLINE_SIGNAL) != 1) return set;
    *copy = *set;
    sigdelset(copy, INLINE_SIGNAL);
    return copy;
}
#define INLINE_REAL_OR(fn, fail)                                                                                       \
    if (!inline_real_##fn) inline_resolve();                                                                         \
    if (!inline_real_##fn) return (fail)
__attribute__((visibility("default"))) NOI int sigprocmask(int how, const sigset_t *set, sigset_t *old) {
    sigset_t copy;
    INLINE_REAL_OR(sigprocmask, (errno = ENOSYS, -1));
    return inline_real_sigprocmask(how, how == SIG_UNBLOCK ? set : inline_strip(set, &copy), old);
}
__attribute__((visibility("default"))) NOI int pthread_sigmask(int how, const sigset_t *set, sigset_t *old) {
    sigset_t copy;
    INLINE_REAL_OR(pthread_sigmask, ENOSYS);
    return inline_real_pthread_sigmask(how, how == SIG_UNBLOCK ? set : inline_strip(set, &copy), old);
}
__attribute__((visibility("default"))) NOI int sigwait(const sigset_t *set, int *sig) {
    sigset_t copy;
    INLINE_REAL_OR(sigwait, ENOSYS);
    return inline_real_sigwait(inline_strip(set, &copy), sig);
}
__attribute__((visibility("default"))) NOI int sigwaitinfo(const sigset_t *set, siginfo_t *info) {
    sigset_t copy;
    INLINE_REAL_OR(sigwaitinfo, (errno = ENOSYS, -1));
    return inline_real_sigwaitinfo(inline_strip(set, &copy), info);
}
__attribute__((visibility("default"))) NOI int sigtimedwait(const sigset_t *set, siginfo_t *info,
                                                            const struct timespec *timeout) {
    sigset_t copy;
    INLINE_REAL_OR(sigtimedwait, (errno = ENOSYS, -1));
    return inline_real_sigtimedwait(inline_strip(set, &copy), info, timeout);
}
__attribute__((visibility("default"))) NOI int signalfd(int fd, const sigset_t *mask, int flags) {
    sigset_t copy;
    INLINE_REAL_OR(signalfd, (errno = ENOSYS, -1));
    return inline_real_signalfd(fd, inline_strip(mask, &copy), flags);
}
/* The dynamic linker finds this before libc's. */
__attribute__((visibility("default"))) NOI int pthread_create(pthread_t *thread, const pthread_attr_t *attr,
                                                              void *(*fn)(void *), void *arg) {
    static int (*real)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
    if (!real && !(real = (int (*)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *))dlsym(
                       RTLD_NEXT, "pthread_create")))
        return EAGAIN;
    if (__atomic_load_n(&inline_on, __ATOMIC_ACQUIRE)) epochs_to_thread();
    return real(thread, attr, fn, arg);
}
#else /* no _dl_find_object (glibc before 2.35) */
P_FN int inline_start(void) {
    const char *how = getenv(PROF_ENV_EPOCHS);
    if (how && !strcmp(how, "inline"))
        fprintf(stderr, "edgeprobe profiler: --epochs inline: not built here (glibc 2.35 or later needed); "
                        "the epochs run on a thread\n");
    return -1;
}
P_FN void inline_end(void) {}
P_FN void inline_stop(int sig, const ucontext_t *uc) {
    (void)uc;
    report_and_die(sig);
}
P_FN void inline_thread_seen(void) {}
P_FN int inline_child(void) { return -1; }
#endif
#else /* ATTACHED: an epoch thread always */
P_FN void inline_end(void) {}
P_FN void inline_thread_seen(void) {}
#endif
#ifndef INLINE_SIGNAL /* no inline epochs: the report's counts of them */
#define inline_used 0
#define inline_event_used 0
#define inline_backstops 0ull
#define inline_parts 0ull
#define inline_retries 0ull
#define inline_ticks 0ull
#endif

#ifndef PROF_ATTACHED
/* ---- DAEMONS: the profile follows daemon()'s child ------------------------
 * A forked child is not profiled (on_fork_child), and glibc's daemon
 * forks by its own alias: a daemon's profile was lost, and `prof` said the
 * program ended before writing a report. daemon is defined in
 * daemon_follow.h, with the fork made between two parts of the epoch
 * thread (bg_part_lock; inline parts run at safe points only, never in
 * there). The parent _exits without a report; the child takes the profile
 * on: its thread's record gets the new thread's id and CPU clock, and the
 * epochs restart on a new epoch thread, or inline. The parent's other
 * threads are gone: their clocks no longer read, and the next epoch folds
 * them (GONE THREADS). */
/* What the parent's other threads held at the fork, they hold for ever
 * in the child, where they do not exist: the child lets go of it (it has
 * one thread, in daemon(), inside none of it). A worker switching a
 * function off at the fork left prio_waiters raised, and the child's
 * epoch thread waited for it at its first switch on (test
 * prof-daemon-threads: 3 runs of 5 hung); a window's or a count's
 * try-lock left held stopped the fold, or park_functions at exit. A
 * switch cut short leaves a window shut with its probe on: the entries
 * that reach the handler find it shut, and the next tick re-opens it. */
P_FN void daemon_child_unlock(void) {
    prof_func *f;
    __atomic_store_n(&prio_waiters, 0, __ATOMIC_RELAXED);
    for (f = __atomic_load_n(&fn_all, __ATOMIC_ACQUIRE); f; f = f->next_all) {
        __atomic_store_n(&f->busy, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&f->skip_busy, 0, __ATOMIC_RELAXED);
    }
}
P_FN void daemon_child(void) {
    tstate *t = my_ts;
    daemon_child_unlock();
    if (t) {
        t->tid = syscall(SYS_gettid);
        t->chk_cpu_ns = 0;
        cpu_origin(t); /* the child's clock starts again */
    }
    bg_started = 0, bg_tid = 0, bg_wake = 0;
    if (inline_child() && bg_start()) /* (the fork handler is the parent's, registered) */
        fprintf(stderr, "edgeprobe profiler: no background thread in daemon()'s child; probes will not re-open\n");
}
P_FN int daemon_prepare(void) {
    int following = prof_running && bg_started + __atomic_load_n(&inline_on, __ATOMIC_ACQUIRE) > 0;
    if (following) {
        pthread_mutex_lock(&bg_part_lock);
        daemon_forking = 1;
    }
    return following;
}
P_FN void daemon_forked(int following, pid_t pid) {
    if (!following) return;
    daemon_forking = 0;
    pthread_mutex_unlock(&bg_part_lock);
    if (pid == 0) daemon_child();
}
NOI int daemon(int nochdir, int noclose) {
    return daemon_followed(nochdir, noclose, daemon_prepare, daemon_forked, PROF_ENV_DAEMON_FILE);
}
#endif

/* ---- start ------------------------------------------------------------- */
static struct rusage ru_start;


/* The profiler's tables: reserved once (address space; pages come as used). */
P_FN int reserve_tables(void) {
    if (!arena) arena = (char *)reserve(ARENA_BYTES);
    if (!site_by_id) site_by_id = (prof_site **)reserve(MAX_IDS * sizeof *site_by_id);
    if (!fn_table) fn_table = (prof_func **)reserve(FN_HASH * sizeof *fn_table);
    if (!awake) awake = (prof_func **)reserve(FN_HASH * sizeof *awake);
    return arena && site_by_id && fn_table && awake ? 0 : -1;
}
P_FN void clocks_start(void) {
    clock_gettime(CLOCK_MONOTONIC, &mono_start);
    getrusage(RUSAGE_SELF, &ru_start);
    tsc_start = rdtsc();
}
/* The fork handler, registered once; the epochs on the program's thread
 * need it too. */
P_FN void bg_prepare(void) {
    static int once;
    if (!once++) pthread_atfork(0, 0, on_fork_child);
}
/* The epoch thread. */
P_FN int bg_start(void) {
    unsigned long t;
    bg_prepare();
    __atomic_store_n(&bg_wake, 0, __ATOMIC_SEQ_CST); /* a profile after a stopped one (attached) */
    if (edgeprobe__thread_start(&t, bg_main, 0)) return -1; /* the program's signals are not ours to take */
    bg_thread = (pthread_t)t;
    bg_started = 1;
    return 0;
}
/* The first epoch's tick, after the calibration. A thread's look at its
 * clock counts from the tick of its epoch (own_look): the calibration's
 * looked before any tick, from a tick_tsc of 0, and took the TSC since
 * boot for its own time. In the first epoch that look stood (tick_seq had
 * not moved), and a full count that reached all_cap there read a span of
 * days, was cut to the epoch and kept its label `exact`: a function of
 * about 450 ticks in a loop read 0.92-0.97 of its calls. So every thread
 * looks again at its first event, and its profiler ticks so far are no
 * epoch's. An
 * attached profile (attached_begin) also calls it before its probes go on:
 * a handler still under way at the second call may keep its look, which
 * then counts from a tick moments old, not from the last profile's. */
P_FN void first_tick(void) {
    tstate *t;
    tick_tsc = rdtsc();
    for (t = __atomic_load_n(&ts_all, __ATOMIC_ACQUIRE); t; t = t->next) {
        t->tick_seq = tick_seq - 1;
        t->ov_folded = t->ov;
        t->ovc_folded = t->ovc;
    }
}
/* The program's function probes switched on with the profiler's handlers
 * (fentry mode), or the provider's discovery callback when there are none;
 * the first time, the calibration. */
P_FN void adopt_functions(void) {
    long functions = edgeprobe_func_scan();
    if (functions > 0) fentry_adopt(functions, 0);
    if (sites_discovered) { /* the program's functions, not just ours */
        if (!fentry_mode) calibrate();
        fentry_mode = 1;
    } else {
        edgeprobe_set_discovery(prof_discover, 0);
#ifndef PROF_ATTACHED /* attached, the program's own hooks (if any) are not ours */
        if (!cal_psite[0].func) calibrate_provider();
#endif
    }
}

P_FN int prof_request(char **args, int nargs, char *reply, unsigned cap);
#ifndef PROF_ATTACHED /* launched by `edgeprobe prof`, configured by its environment */
/* A number from the environment; def when unset or not a number. */
P_FN long env_long(const char *name, long def) {
    long v;
    return prof_parse_long(getenv(name), &v) ? def : v;
}
__attribute__((constructor(101))) NOI void edgeprobe_profiler_start(void) {
    const char *tg = getenv("EDGEPROBE_PROF_TOGGLE");
    int m = prof_mode_parse(getenv(PROF_ENV_MODE));
    long k = env_long(PROF_ENV_K, PROF_DEFAULT_K), ep = env_long(PROF_ENV_EPOCH_MS, PROF_DEFAULT_EPOCH_MS);
    long settle = env_long(PROF_ENV_SETTLE, PROF_DEFAULT_SETTLE);
    const char *parts_env = getenv(PROF_ENV_EPOCH_PARTS);
    long parts;
    long pid = env_long(PROF_ENV_PID, -1);
    const char *exact, *budget;
    if (m == PROF_MODE_NONE || (pid != -1 && pid != (long)getpid())) {
        prof_mode = PROF_MODE_NONE; /* off, or a child process of the profiled program */
        return;
    }
    prof_mode = m < 0 ? PROF_MODE_SAMPLE : m;
    prof_toggle_provider = tg && strcmp(tg, "provider") == 0;
    prof_k = k > 0 && k <= PROF_MAX_K ? (unsigned)k : PROF_DEFAULT_K;
    prof_settle = settle >= 0 ? (unsigned long)settle : PROF_DEFAULT_SETTLE;
    prof_epoch_ms = ep > 0 && ep <= PROF_MAX_EPOCH_MS ? (unsigned)ep : PROF_DEFAULT_EPOCH_MS;
    if (parts_env && (prof_parse_long(parts_env, &parts) || parts < 1 || parts > PROF_MAX_EPOCH_PARTS))
        fprintf(stderr, "edgeprobe profiler: %s is 1 to %d, not %s; the default %d\n", PROF_ENV_EPOCH_PARTS,
                PROF_MAX_EPOCH_PARTS, parts_env, PROF_DEFAULT_EPOCH_PARTS);
    else if (parts_env)
        prof_epoch_parts = (unsigned)parts;
    exact = getenv(PROF_ENV_EXACT_CALLS);
    if (exact && strcmp(exact, "0") && strcmp(exact, "1"))
        fprintf(stderr, "edgeprobe profiler: %s is 0 or 1, not %s; calls are sampled\n", PROF_ENV_EXACT_CALLS, exact);
    else if (exact && !strcmp(exact, "1") && prof_mode != PROF_MODE_SAMPLE)
        fprintf(stderr, "edgeprobe profiler: %s is for mode sample, not %s; ignored\n", PROF_ENV_EXACT_CALLS,
                prof_mode_name(prof_mode));
    set_exact_calls(exact && !strcmp(exact, "1") && prof_mode == PROF_MODE_SAMPLE);
    if ((budget = getenv(PROF_ENV_COUNT_BUDGET)) && prof_parse_budget(budget, &prof_count_budget))
        fprintf(stderr, "edgeprobe profiler: %s is a percent from 0 to %d, not %s; the default %g\n",
                PROF_ENV_COUNT_BUDGET, PROF_MAX_COUNT_BUDGET, budget, prof_count_budget);
    prof_top = (int)env_long(PROF_ENV_TOP, PROF_DEFAULT_TOP);
    if (reserve_tables()) {
        fprintf(stderr, "edgeprobe profiler: cannot reserve memory; not started\n");
        prof_mode = PROF_MODE_NONE;
        return;
    }
    clocks_start();
    prof_running = 1;
    edgeprobe__ctl_ext = prof_request; /* `edgeprobe prof --report-now PID`, with EDGEPROBE_CONTROL=1 */
    adopt_functions();
    first_tick(); /* the first epoch starts with the windows open */
    if (inline_start() == 0 || bg_start() == 0) {
        if (pid == (long)getpid()) catch_stop_signals();
    } else {
        fprintf(stderr, "edgeprobe profiler: no background thread; probes will not re-open\n");
    }
}
#endif

/* ---- names from the ELF symbol table (report time only) ------------------ */
typedef struct symq { uintptr_t addr; const char *found; const char *path; uintptr_t base; } symq;
P_FN int find_object(struct dl_phdr_info *info, size_t size, void *arg) {
    symq *q = (symq *)arg;
    int i;
    (void)size;
    for (i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD && q->addr >= lo && q->addr < lo + ph->p_memsz) {
            q->path = info->dlpi_name && *info->dlpi_name ? info->dlpi_name : "/proc/self/exe";
            q->base = info->dlpi_addr;
            return 1;
        }
    }
    return 0;
}
typedef struct elfmap { const char *path; unsigned char *map; size_t len; const ElfW(Sym) *syms; size_t nsyms; const char *str; } elfmap;
P_FN void elf_open(elfmap *em, const char *path) {
    int fd = open(path, O_RDONLY);
    struct stat st;
    const ElfW(Ehdr) *eh;
    const ElfW(Shdr) *sh;
    int i;
    memset(em, 0, sizeof *em);
    em->path = path;
    if (fd < 0) return;
    if (fstat(fd, &st) == 0 && st.st_size > (off_t)sizeof(ElfW(Ehdr))) {
        void *m = mmap(0, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (m != MAP_FAILED) {
            em->map = (unsigned char *)m;
            em->len = (size_t)st.st_size;
        }
    }
    close(fd);
    if (!em->map) return;
    eh = (const ElfW(Ehdr) *)em->map;
    if (memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_shoff + (size_t)eh->e_shnum * sizeof *sh > em->len) return;
    sh = (const ElfW(Shdr) *)(em->map + eh->e_shoff);
    for (i = 0; i < eh->e_shnum; i++) {
        if (sh[i].sh_type != SHT_SYMTAB || sh[i].sh_link >= eh->e_shnum) continue;
        if (sh[i].sh_offset + sh[i].sh_size > em->len) continue;
        em->syms = (const ElfW(Sym) *)(em->map + sh[i].sh_offset);
        em->nsyms = sh[i].sh_size / sizeof(ElfW(Sym));
        em->str = (const char *)(em->map + sh[sh[i].sh_link].sh_offset);
    }
}
P_FN void resolve_names(void) {
    elfmap maps[8];
    int nmaps = 0, i;
    prof_func *f;
    for (f = fn_all; f; f = f->next_all) {
        symq q;
        elfmap *em = 0;
        size_t j;
        if (strncmp(f->name, "0x", 2) != 0) continue;
        q.addr = f->addr ? f->addr : (uintptr_t)strtoull(f->name, 0, 16);
        q.path = 0;
        if (!q.addr || !dl_iterate_phdr(find_object, &q)) continue;
        for (i = 0; i < nmaps; i++)
            if (strcmp(maps[i].path, q.path) == 0) em = &maps[i];
        if (!em) {
            if (nmaps == 8) continue;
            em = &maps[nmaps++];
            elf_open(em, q.path);
        }
        for (j = 0; j < em->nsyms; j++) {
            const ElfW(Sym) *sy = &em->syms[j];
            if (ELF64_ST_TYPE(sy->st_info) == STT_FUNC && sy->st_value && sy->st_value + q.base == q.addr) {
                f->resolved = (char *)em->str + sy->st_name;
                break;
            }
        }
    }
    /* the maps stay mapped: resolved names point into them */
}
P_FN const char *fname(const prof_func *f) { return f->resolved ? f->resolved : f->name; }

/* C++ names, demangled by the C++ runtime's own __cxa_demangle when the
 * program has one loaded (a C program has no mangled names). Report time
 * only: it allocates. */
typedef char *(*cxa_demangle_fn)(const char *, char *, size_t *, int *);
P_FN void demangle_names(void) {
    cxa_demangle_fn demangle = (cxa_demangle_fn)dlsym(RTLD_DEFAULT, "__cxa_demangle");
    prof_func *f;
    if (!demangle) return;
    for (f = fn_all; f; f = f->next_all) {
        const char *n = fname(f);
        char *d;
        int status = -1;
        if (strncmp(n, "_Z", 2)) continue;
        if ((d = demangle(n, 0, 0, &status)) && status == 0) f->resolved = d; /* kept until exit */
        else free(d);
    }
}

/* ---- report ------------------------------------------------------------ */
/* log10 without libm (the profiled program may not link -lm). */
P_FN double lg10(double x) {
    double r = 0, y, y2, s = 0, term;
    int k;
    if (x <= 0) return 0;
    while (x >= 10) x /= 10, r += 1;
    while (x < 1) x *= 10, r -= 1;
    y = (x - 1) / (x + 1); /* ln x = 2 atanh(y) */
    y2 = y * y;
    term = y;
    for (k = 1; k < 80; k += 2) {
        s += term / k;
        term *= y2;
    }
    return r + 2 * s / 2.302585092994046;
}
P_FN double floor_log10(double x) {
    double l = lg10(x), f = (double)(long long)l;
    return f > l ? f - 1 : f;
}
P_FN double pow10i(double d) {
    double v = 1;
    int i;
    for (i = 0; i < (int)(d < 0 ? -d : d); i++) v *= 10;
    return d < 0 ? 1 / v : v;
}
typedef struct row {
    prof_func *f;
    double mean, p50, p99, est_calls, est_total, est_self;
} row;
P_FN double row_key(const row *r) {
    return prof_sort == PROF_SORT_SELF ? r->est_self : prof_sort == PROF_SORT_CALLS ? r->est_calls : r->est_total;
}
P_FN int row_cmp(const void *a, const void *b) {
    double x = row_key((const row *)a), y = row_key((const row *)b);
    return x < y ? 1 : x > y ? -1 : 0;
}
P_FN void xml_text(FILE *o, const char *s) {
    for (; *s; s++) {
        if (*s == '<') fputs("&lt;", o);
        else if (*s == '>') fputs("&gt;", o);
        else if (*s == '&') fputs("&amp;", o);
        else fputc(*s, o);
    }
}
P_FN const char *fmt_ns(double ns, char *buf, size_t n) {
    if (ns < 1e3) snprintf(buf, n, "%.0f ns", ns);
    else if (ns < 1e6) snprintf(buf, n, "%.1f us", ns / 1e3);
    else if (ns < 1e9) snprintf(buf, n, "%.1f ms", ns / 1e6);
    else snprintf(buf, n, "%.2f s", ns / 1e9);
    return buf;
}
/* Two panels: estimated share of run time (bars), latency p50..p99 (log axis). */
P_FN void write_svg(const char *path, row *rows, int n, double ns_per_tick, double run_ns, const char *title) {
    FILE *o = fopen(path, "w");
    int i, top = n < 20 ? n : 20, W = 1000, rowh = 24, y0 = 70, H;
    double maxshare = 0, lo = 1e300, hi = 0, l0, l1;
    const int nx = 250, bx = 260, bw = 300, lx = 600, lw = 370;
    if (!o) {
        fprintf(stderr, "edgeprobe profiler: cannot write %s\n", path);
        return;
    }
    H = y0 + top * rowh + 60;
    for (i = 0; i < top; i++) {
        double share = rows[i].est_total * ns_per_tick / run_ns;
        if (share > maxshare) maxshare = share;
        if (rows[i].p50 > 0 && rows[i].p50 * ns_per_tick < lo) lo = rows[i].p50 * ns_per_tick;
        if (rows[i].p99 * ns_per_tick > hi) hi = rows[i].p99 * ns_per_tick;
    }
    if (maxshare <= 0) maxshare = 1;
    if (lo > hi) lo = 1, hi = 10;
    l0 = floor_log10(lo);
    l1 = floor_log10(hi) + 1;
    fprintf(o, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
               "font-family=\"sans-serif\" font-size=\"12\">\n", W, H);
    fprintf(o, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
    fprintf(o, "<text x=\"10\" y=\"22\" font-size=\"15\" font-weight=\"bold\">");
    xml_text(o, title);
    fprintf(o, "</text>\n");
    fprintf(o, "<text x=\"%d\" y=\"55\" font-weight=\"bold\">estimated share of run time</text>\n", bx);
    fprintf(o, "<text x=\"%d\" y=\"55\" font-weight=\"bold\">call latency: p50 (dot) to p99 (bar end), mean |</text>\n", lx);
    for (i = 0; i < top; i++) {
        int y = y0 + i * rowh;
        double share = rows[i].est_total * ns_per_tick / run_ns;
        double w = share / maxshare * bw;
        char b1[32];
        double p50 = rows[i].p50 * ns_per_tick, p99 = rows[i].p99 * ns_per_tick, mean = rows[i].mean * ns_per_tick;
#define LX(v) (lx + lw * ((lg10((v) > 0 ? (v) : lo) - l0) / (l1 - l0)))
        fprintf(o, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">", nx, y + 15);
        xml_text(o, fname(rows[i].f));
        fprintf(o, "</text>\n");
        fprintf(o, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"16\" fill=\"#4a7fb5\"/>\n", bx, y + 3, w);
        fprintf(o, "<text x=\"%.1f\" y=\"%d\" fill=\"#333\">%.1f%%</text>\n", bx + w + 4, y + 15, share * 100);
        fprintf(o, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#c0504d\" stroke-width=\"4\"/>\n",
                LX(p50), y + 11, LX(p99), y + 11);
        fprintf(o, "<circle cx=\"%.1f\" cy=\"%d\" r=\"4\" fill=\"#7a1f1d\"/>\n", LX(p50), y + 11);
        fprintf(o, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"black\" stroke-width=\"1.5\"/>\n",
                LX(mean), y + 3, LX(mean), y + 19);
        fprintf(o, "<title>%s</title>\n", fmt_ns(p50, b1, sizeof b1));
    }
    {
        int y = y0 + top * rowh + 5;
        double d;
        fprintf(o, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#888\"/>\n", lx, y, lx + lw, y);
        for (d = l0; d <= l1 + 1e-9; d += 1) {
            char b[32];
            double x = lx + lw * (d - l0) / (l1 - l0);
            fprintf(o, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#888\"/>\n", x, y0, x, y + 4);
            fprintf(o, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n", x, y + 18,
                    fmt_ns(pow10i(d), b, sizeof b));
        }
        fprintf(o, "<text x=\"10\" y=\"%d\" fill=\"#555\">share = estimated calls x mean latency / run time "
                   "(inclusive time: nested calls count in each caller)</text>\n", y + 40);
    }
    fprintf(o, "</svg>\n");
    fclose(o);
}

/* ---- stop and report --------------------------------------------------- */
P_FN double ts_diff_ns(const struct timespec *a, const struct timespec *b) {
    return (double)(b->tv_sec - a->tv_sec) * 1e9 + (double)(b->tv_nsec - a->tv_nsec);
}
P_FN double ru_cpu_ns(const struct rusage *r) {
    return ((double)r->ru_utime.tv_sec + (double)r->ru_stime.tv_sec) * 1e9 +
           ((double)r->ru_utime.tv_usec + (double)r->ru_stime.tv_usec) * 1e3;
}

/* ---- call graph at report time (see CALL GRAPH) ---------------------------- */
/* Where f starts: its first entry seen, or its probe site. */
P_FN uintptr_t func_start(const prof_func *f) {
    const prof_site *s = __atomic_load_n(&f->sites, __ATOMIC_ACQUIRE);
    return f->addr ? f->addr : s ? (uintptr_t)s->addr : 0;
}
typedef struct fn_at { uintptr_t start; prof_func *f; } fn_at;
P_FN int fn_at_cmp(const void *a, const void *b) {
    uintptr_t x = ((const fn_at *)a)->start, y = ((const fn_at *)b)->start;
    return x < y ? -1 : x > y;
}
/* Two addresses in one loaded object. */
P_FN int same_object(uintptr_t a, uintptr_t b) {
    Dl_info x, y;
    return dladdr((void *)a, &x) && dladdr((void *)b, &y) && x.dli_fbase == y.dli_fbase;
}
/* The probed function a return address is in: the last one starting below
 * it in the same object (a function of that object built without the flag
 * would be taken for the one before it: the README says so). */
P_FN prof_func *func_around(const fn_at *by, size_t n, uintptr_t ra) {
    size_t lo = 0, hi = n;
    while (lo < hi) { /* the first start past ra - 1 (inside the call) */
        size_t mid = (lo + hi) / 2;
        if (by[mid].start <= ra - 1) lo = mid + 1;
        else hi = mid;
    }
    return lo && same_object(by[lo - 1].start, ra) ? by[lo - 1].f : 0;
}
/* The caller of each edge that carries a return address. An edge is keyed
 * by (ra, caller): one resolved here is found no more by a later sample,
 * which makes a new one; the graph merges them by caller. */
P_FN int callers_unresolved(void) {
    const prof_func *f;
    const prof_edge *e;
    for (f = fn_all; f; f = f->next_all)
        for (e = __atomic_load_n(&f->callers, __ATOMIC_ACQUIRE); e; e = e->next)
            if (e->ra && !e->caller) return 1;
    return 0;
}
P_FN void resolve_callers(void) {
    size_t n = 0;
    fn_at *by;
    prof_func *f;
    prof_edge *e;
    if (!callers_unresolved() || !(by = (fn_at *)calloc(fn_count + 1, sizeof *by))) return;
    for (f = fn_all; f && n < fn_count; f = f->next_all)
        if ((by[n].start = func_start(f))) by[n++].f = f;
    if (edgeprobe__sort_by_key(by, n, sizeof *by, offsetof(fn_at, start), 0)) qsort(by, n, sizeof *by, fn_at_cmp);
    for (f = fn_all; f; f = f->next_all)
        for (e = __atomic_load_n(&f->callers, __ATOMIC_ACQUIRE); e; e = e->next)
            if (e->ra && !e->caller) e->caller = func_around(by, n, e->ra);
    free(by);
}
/* An edge's estimated ticks: its sampled ticks, scaled as its callee's. */
P_FN double edge_scaled(const prof_edge *e, const prof_func *callee) { return e->ticks * callee->scale; }
/* f's scale and outermost time: its sampled ticks (weighted, WEIGHTS)
 * less those nested in a call of itself, scaled so that its samples' weights
 * add up to its estimated calls; at most the wall time times the threads its
 * samples came from. A function whose samples
 * all wait for the epoch under way to be folded (a report during the run)
 * has no weight yet: scale 0. */
P_FN void compute_outer(prof_func *f, double wall, unsigned threads) {
    const prof_edge *e;
    unsigned ran = f->thread_mask ? (unsigned)__builtin_popcountll(f->thread_mask) : 1;
    double nested = 0, most;
    if (ran == 64 && threads > 64) ran = threads; /* bits repeat past 64 threads */
    most = wall * ran;
    f->scale = f->wn > 0 ? f->est_calls / f->wn : 0;
    for (e = __atomic_load_n(&f->callers, __ATOMIC_ACQUIRE); e; e = e->next)
        nested += e->caller == f ? e->ticks : e->nested;
    f->outer_ticks = (f->wsum - nested) * f->scale;
    if (f->outer_ticks > most) { /* a preempted sample in a mean, or recursion unseen: */
        f->scale *= most / f->outer_ticks; /* its edges shrink with it */
        f->outer_ticks = most;
    }
    if (f->outer_ticks < 0) f->outer_ticks = 0;
}
/* Self time: all of f's time (every level) less its edges to callees; at
 * most its outermost time. */
P_FN void compute_self(prof_func *f) {
    f->self_ticks = f->wsum * f->scale - f->callee_ticks;
    if (f->self_ticks > f->outer_ticks) f->self_ticks = f->outer_ticks;
    if (f->self_ticks < 0) f->self_ticks = 0;
}
/* Each sampled function's scale, outermost and self time (ticks); wall:
 * the run's length, threads: the threads that hit probes. */
P_FN void compute_graph(double wall, unsigned threads) {
    prof_func *f;
    const prof_edge *e;
    resolve_callers();
    for (f = fn_all; f; f = f->next_all) {
        f->callee_ticks = 0;
        if (f->samples) compute_outer(f, wall, threads);
    }
    for (f = fn_all; f; f = f->next_all)
        for (e = f->samples ? f->callers : 0; e; e = e->next)
            if (e->caller) e->caller->callee_ticks += edge_scaled(e, f);
    for (f = fn_all; f; f = f->next_all)
        if (f->samples) compute_self(f);
}

/* The graph's edges merged by (caller, callee): estimated ticks and calls. */
typedef struct graph_edge {
    prof_func *from, *to; /* from NULL: not a probed function */
    double ticks, calls;
} graph_edge;
typedef struct graph {
    graph_edge *out, *in; /* by caller, by callee; each by ticks within */
    size_t n;
} graph;
static int graph_by_to; /* the order graph_cmp sorts in */
P_FN int graph_cmp(const void *a, const void *b) {
    const graph_edge *x = (const graph_edge *)a, *y = (const graph_edge *)b;
    uintptr_t kx = (uintptr_t)(graph_by_to ? x->to : x->from), ky = (uintptr_t)(graph_by_to ? y->to : y->from);
    if (kx != ky) return kx < ky ? -1 : 1;
    return x->ticks < y->ticks ? 1 : x->ticks > y->ticks ? -1 : 0;
}
/* Merge equal (from, to) pairs of a sorted array; the new count. */
P_FN size_t graph_merge(graph_edge *g, size_t n) {
    size_t i, j, k = 0;
    for (i = 0; i < n; i++) {
        for (j = 0; j < k && !(g[j].from == g[i].from && g[j].to == g[i].to); j++) {}
        if (j < k) g[j].ticks += g[i].ticks, g[j].calls += g[i].calls;
        else g[k++] = g[i];
    }
    return k;
}
P_FN void graph_free(graph *g) {
    free(g->out);
    free(g->in);
    memset(g, 0, sizeof *g);
}
/* Build the graph (after compute_graph): 0, or -1 (no memory). */
P_FN int graph_build(graph *g) {
    size_t n = 0, i = 0, start;
    prof_func *f;
    prof_edge *e;
    memset(g, 0, sizeof *g);
    for (f = fn_all; f; f = f->next_all)
        for (e = f->samples ? f->callers : 0; e; e = e->next) n++;
    g->out = (graph_edge *)calloc(n + 1, sizeof *g->out);
    g->in = (graph_edge *)calloc(n + 1, sizeof *g->in);
    if (!g->out || !g->in) return graph_free(g), -1;
    for (f = fn_all; f; f = f->next_all) {
        start = i; /* one callee's edges: merge them by caller */
        for (e = f->samples ? f->callers : 0; e && i < n; e = e->next, i++) {
            g->out[i].from = e->caller;
            g->out[i].to = f;
            g->out[i].ticks = edge_scaled(e, f);
            g->out[i].calls = e->calls * f->scale;
        }
        i = start + graph_merge(g->out + start, i - start);
    }
    g->n = i;
    memcpy(g->in, g->out, i * sizeof *g->in);
    graph_by_to = 0;
    qsort(g->out, g->n, sizeof *g->out, graph_cmp);
    graph_by_to = 1;
    qsort(g->in, g->n, sizeof *g->in, graph_cmp);
    return 0;
}
/* The first edge of a sorted array whose key (from or to) is f; n if none. */
P_FN size_t graph_first(const graph_edge *a, size_t n, const prof_func *f, int by_to) {
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if ((uintptr_t)(by_to ? a[mid].to : a[mid].from) < (uintptr_t)f) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}
/* A caller that is no probed function; with -finstrument-functions, no
 * caller whose window was open (the call site is not known there). */
P_FN const char *graph_outside(void) { return fentry_mode ? "[outside]" : "[unseen]"; }
P_FN const char *fname(const prof_func *f);
/* One side of f's entry in the call graph: its callers (by_to) or callees. */
P_FN void write_graph_side(FILE *o, const graph_edge *a, size_t n, const prof_func *f, int by_to, double tick) {
    size_t i;
    for (i = graph_first(a, n, f, by_to); i < n && (by_to ? a[i].to : a[i].from) == f; i++) {
        const prof_func *other = by_to ? a[i].from : a[i].to;
        fprintf(o, "    %s %-40s %12.3f ms %12.0f calls\n", by_to ? "<-" : "->", other ? fname(other) : graph_outside(),
                a[i].ticks * tick / 1e6, a[i].calls);
    }
}

/* ---- folded stacks, derived from the graph (see CALL GRAPH) ---------------- */
#define FOLD_DEPTH 64
#define FOLD_MIN_SHARE 0.001 /* a path below this share of the run is not split further */
typedef struct folder {
    FILE *o;
    const graph *g;
    const prof_func *path[FOLD_DEPTH];
    double min_ticks, ns_per_tick;
} folder;
P_FN int on_path(const folder *fo, int depth, const prof_func *f) {
    int i;
    for (i = 0; i < depth; i++)
        if (fo->path[i] == f) return 1;
    return 0;
}
P_FN void fold_write(const folder *fo, int depth, double ticks) {
    int i;
    unsigned long long ns = (unsigned long long)(ticks * fo->ns_per_tick + 0.5);
    if (!ns) return;
    for (i = 0; i <= depth; i++) fprintf(fo->o, "%s%s", i ? ";" : "", fname(fo->path[i]));
    fprintf(fo->o, " %llu\n", ns);
}
/* f at path[depth], with ticks of the run: its callees' shares of them
 * below it, the rest as its own. A callee already on the path (recursion)
 * stays in f. */
P_FN void fold_node(folder *fo, int depth, const prof_func *f, double ticks) {
    double all = f->wsum * f->scale, own = ticks;
    size_t i;
    fo->path[depth] = f;
    if (depth + 1 < FOLD_DEPTH && ticks >= fo->min_ticks && all > 0)
        for (i = graph_first(fo->g->out, fo->g->n, f, 0); i < fo->g->n && fo->g->out[i].from == f; i++) {
            const graph_edge *e = &fo->g->out[i];
            double part = e->ticks * ticks / all;
            if (on_path(fo, depth + 1, e->to) || part < fo->min_ticks) continue;
            if (part > own) part = own; /* estimates of callees may pass their caller's */
            own -= part;
            fold_node(fo, depth + 1, e->to, part);
        }
    fold_write(fo, depth, own);
}
/* A stack starts where the graph knows no more: at a caller that is no
 * probed function (a thread's start, a library's callback; NULL), or one
 * without a finished sampled call (main, a thread's loop: under way while
 * a report is written during the run), which is then the stack's root
 * frame. */
P_FN int starts_stacks(const prof_func *caller) { return !caller || !caller->samples; }
/* The ticks of f's outermost calls from `caller` (such a caller). */
P_FN double root_ticks(const prof_func *f, const prof_func *caller) {
    const prof_edge *e;
    double t = 0;
    for (e = __atomic_load_n(&f->callers, __ATOMIC_ACQUIRE); e; e = e->next)
        if (e->caller == caller)
            t += (e->ticks - e->nested) * f->scale;
    return t;
}
/* f's stacks from each caller that starts stacks; or, when sum is not
 * NULL, only add up their ticks. */
P_FN void fold_roots(folder *fo, const prof_func *f, double *sum) {
    const prof_edge *e, *seen;
    for (e = __atomic_load_n(&f->callers, __ATOMIC_ACQUIRE); e; e = e->next) {
        double t;
        for (seen = f->callers; seen != e && seen->caller != e->caller; seen = seen->next) {}
        if (seen != e || !starts_stacks(e->caller) || (t = root_ticks(f, e->caller)) <= 0) continue;
        if (sum) {
            *sum += t;
        } else if (e->caller) {
            fo->path[0] = e->caller;
            fold_node(fo, 1, f, t);
        } else {
            fold_node(fo, 0, f, t);
        }
    }
}
/* Every stack, as folded stacks ("a;b;c ns"). */
P_FN void write_folded(const char *path, const graph *g, double ns_per_tick) {
    folder fo;
    const prof_func *f;
    double total = 0;
    if (!(fo.o = fopen(path, "w"))) {
        fprintf(stderr, "edgeprobe profiler: cannot write %s\n", path);
        return;
    }
    fo.g = g;
    fo.ns_per_tick = ns_per_tick;
    for (f = fn_all; f; f = f->next_all)
        if (f->samples) fold_roots(&fo, f, &total);
    fo.min_ticks = total * FOLD_MIN_SHARE;
    for (f = fn_all; f; f = f->next_all)
        if (f->samples) fold_roots(&fo, f, 0);
    fclose(fo.o);
}

/* The figures of the whole run, for the report's header and summary. */
typedef struct run_totals {
    uint64_t tsc_end;
    double run_ns, cpu_ns, ns_per_tick, secs, toggle_ns, app_toggle_ns;
    unsigned long long threads, events, samples, toggles, toggle_calls, toggle_errors, toggle_busy, stale, unmatched, overflow;
    unsigned long long nfuncs, broken, exit_hidden, skipped;
    double bg_cpu_ns; /* the epoch thread's CPU time */
    unsigned long signals_dropped; /* the header's DEFERRED SIGNALS: held back, not queued again */
} run_totals;

/* No sample is recorded from here on; the epoch thread ends; the clocks stop. */
P_FN void read_clocks(run_totals *rt) {
    struct timespec mono_end;
    struct rusage ru_end;
    rt->tsc_end = rdtsc();
    clock_gettime(CLOCK_MONOTONIC, &mono_end);
    getrusage(RUSAGE_SELF, &ru_end);
    rt->run_ns = ts_diff_ns(&mono_start, &mono_end);
    rt->cpu_ns = ru_cpu_ns(&ru_end) - ru_cpu_ns(&ru_start);
    rt->ns_per_tick = rt->tsc_end > tsc_start ? rt->run_ns / (double)(rt->tsc_end - tsc_start) : 1;
    rt->secs = rt->run_ns / 1e9;
    rt->signals_dropped = __atomic_load_n(&edgeprobe__signals_dropped, __ATOMIC_RELAXED);
}
/* No count left armed once sampling stops: an entry past its check of
 * prof_running may have armed one after the last fold, and a tool that
 * binds the probe later would see calls skipped. */
P_FN void disarm_all(void) {
    prof_func *f;
    for (f = fn_all; f; f = f->next_all) skip_take(f, 1);
}
P_FN void stop_sampling(run_totals *rt) {
    prof_running = 0;
    inline_end();
    read_clocks(rt);
    if (bg_tid) rt->bg_cpu_ns = (double)thread_cpu_ns(bg_tid); /* before it ends */
    rt->bg_cpu_ns += (double)inline_ticks * rt->ns_per_tick;
    if (bg_started && !pthread_equal(pthread_self(), bg_thread)) {
        bg_post(BG_WAKE_STOP); /* (a stop signal's word first: the epoch thread ends the process) */
        pthread_join(bg_thread, 0);
        bg_started = 0;
    }
    edgeprobe_set_discovery(0, 0);
    fold_epoch(rt->tsc_end); /* the last epoch's calls */
    take_nested_asleep();
    disarm_all();
}

/* Every thread's counters (the epoch thread's toggles too) and the functions. */
P_FN void sum_counters(run_totals *rt) {
    unsigned long long app_toggle_ticks = 0;
    const tstate *t;
    const prof_func *f;
    for (t = ts_all; t; t = t->next) {
        /* since the profile started (ATTACHED: a thread may predate it);
         * a record's earlier owners too (REUSED RECORDS) */
        rt->threads += t->owners_before + (t->events != t->events_base);
        rt->events += t->events;
        rt->samples += t->samples;
        rt->toggles += t->toggles;
        rt->toggle_calls += t->toggle_calls;
        rt->toggle_errors += t->toggle_errors;
        rt->toggle_busy += t->toggle_busy;
        rt->stale += t->stale;
        rt->unmatched += t->unmatched;
        rt->overflow += t->overflow;
        app_toggle_ticks += t->toggle_ticks;
    }
    rt->app_toggle_ns = (double)app_toggle_ticks * rt->ns_per_tick;
    rt->toggle_ns = (double)(app_toggle_ticks + bg_ts.toggle_ticks) * rt->ns_per_tick;
    rt->toggles += bg_ts.toggles;
    rt->toggle_calls += bg_ts.toggle_calls;
    rt->toggle_errors += bg_ts.toggle_errors;
    for (f = fn_all; f; f = f->next_all) {
        rt->nfuncs++;
        rt->skipped += f->skipped;
        rt->broken += f->broken != 0;
        rt->exit_hidden += f->exit_hidden != 0;
    }
}

/* Whether f has a row: it was timed, or its calls were seen (a function
 * whose every call leaves by longjmp is never timed; --exact-calls still
 * counts it, and the row gives its calls without latencies). */
P_FN int has_row(const prof_func *f) { return f->samples || f->est_calls >= 0.5; }
/* The `counted` column: how far f's calls can be trusted. */
P_FN const char *count_label(const prof_func *f) {
    return f->estimated ? "estimated" : f->from_load ? "from-load" : "exact";
}
/* One row per function that has one, hottest first, in *n; NULL if out of
 * memory. Calls are the counts of the observation intervals, scaled (see
 * COUNTING CALLS). */
P_FN row *make_rows(const run_totals *rt, int *n) {
    /* inclusive time of outermost calls (CALL GRAPH); recursion hidden
     * from the graph, or samples weighed for more calls than they stand
     * for, could still pass it: no function's share passes wall time times
     * the threads its samples came from */
    double wall = rt->run_ns / rt->ns_per_tick;
    prof_func *f;
    row *rows;
    *n = 0;
    compute_graph(wall, rt->threads);
    for (f = fn_all; f; f = f->next_all) *n += has_row(f);
    if (!(rows = (row *)calloc((size_t)*n + 1, sizeof *rows))) return 0;
    *n = 0;
    for (f = fn_all; f; f = f->next_all) {
        row *r;
        double total;
        if (!has_row(f)) continue;
        r = &rows[(*n)++];
        r->f = f;
        r->mean = f->wn > 0 ? f->wsum / f->wn : 0; /* weighted (WEIGHTS) */
        total = f->lat ? hist_total(f->lat) : 0;
        r->p50 = hist_pct(f->lat, total, 50);
        r->p99 = hist_pct(f->lat, total, 99);
        r->est_calls = f->est_calls;
        r->est_total = f->outer_ticks;
        r->est_self = f->self_ticks;
    }
    qsort(rows, (size_t)*n, sizeof *rows, row_cmp);
    return rows;
}

/* The functions whose exit hook is tail-called, by name (the first
 * EDGEPROBE_PROF_TOP; 0: all): they cannot be in the table, and a reader
 * looking for them should learn why. */
P_FN void write_unobservable(FILE *o, const run_totals *rt) {
    const prof_func *f;
    unsigned long long shown = 0;
    if (!rt->exit_hidden) return;
    fprintf(o, "exit not observable, never sampled (a tail-called exit hook: gcc and clang -O2 end void "
               "functions with one unless built with -fno-optimize-sibling-calls): %llu functions:", rt->exit_hidden);
    for (f = fn_all; f; f = f->next_all)
        if (f->exit_hidden && (prof_top <= 0 || shown++ < (unsigned long long)prof_top)) fprintf(o, " %s", fname(f));
    if (prof_top > 0 && rt->exit_hidden > (unsigned long long)prof_top) fprintf(o, " ...");
    fputc('\n', o);
}
/* Where the probes came from: function entries, or the provider's sites. */
P_FN void write_probe_line(FILE *o, const run_totals *rt) {
    if (fentry_mode) {
        fprintf(o, "function probes (-fpatchable-function-entry): %llu found, %llu switched, %llu not patchable, "
                   "%llu not bindable; %llu functions by name; exits lost (shadow stack full): %lu\n",
                sites_discovered, sites_bound, sites_unpatchable, bind_errors, rt->nfuncs, edgeprobe_func_lost_exits());
        if (fentry_unnamed)
            fprintf(o, "note: %llu functions have no symbol and are named by address (a stripped object: "
                       "profile the unstripped build for names)\n", fentry_unnamed);
        return;
    }
    fprintf(o, "probe sites: %llu discovered (%llu entry, %llu exit), %llu bound, %llu not bindable, "
               "%llu entries not patchable, %llu exits tail-called; %llu functions, %llu of them never sampled\n",
            sites_discovered, sites_entry, sites_exit, sites_bound, bind_errors, sites_unpatchable, sites_tail,
            rt->nfuncs, rt->broken);
    fprintf(o, "calls are counted from each site's binding on: the provider finds a site at its first call, and its "
               "calls until the epoch thread binds it (up to an epoch's) are not seen\n");
    write_unobservable(o, rt);
}

P_FN void write_header(FILE *o, const run_totals *rt) {
    char settled[64] = "";
    if (prof_settle) snprintf(settled, sizeof settled, " (%u after %lu samples)", window_k_settled(), prof_settle);
    char budget[64] = "";
    if (prof_mode == PROF_MODE_SAMPLE && !prof_exact_calls)
        snprintf(budget, sizeof budget, ", count budget %g%%, %u part(s)", prof_count_budget, prof_epoch_parts);
    fprintf(o, "\n=== edgeprobe profiler: mode %s%s, K=%u%s, epoch %u ms%s, toggling via %s ===\n",
            prof_mode_name(prof_mode), prof_exact_calls ? " (exact calls)" : "", prof_k, settled, prof_epoch_ms, budget,
            prof_toggle_provider ? "provider API" : "call patch API");
    fprintf(o, "run %.3f s wall, %.3f s CPU, TSC %.3f GHz, %llu thread(s) hit probes\n", rt->secs, rt->cpu_ns / 1e9,
            1.0 / rt->ns_per_tick, rt->threads);
    write_probe_line(o, rt);
    fprintf(o, "toggles: %llu (%.0f/s) in %llu calls, %llu errors, %llu offs left to the tick (lock busy); time "
               "toggling %.2f ms = %.3f%% of CPU time (%.2f ms on program threads, %.2f ms on the epoch thread)\n",
            rt->toggles, rt->toggles / rt->secs, rt->toggle_calls, rt->toggle_errors, rt->toggle_busy, rt->toggle_ns / 1e6,
            100 * rt->toggle_ns / rt->cpu_ns, rt->app_toggle_ns / 1e6, (rt->toggle_ns - rt->app_toggle_ns) / 1e6);
    fprintf(o, "handler invocations: %llu (%.0f/s); samples: %llu (%.0f/s); exits ignored: %llu unmatched, "
               "%llu stale; stack overflows: %llu; epochs: %llu ",
            rt->events, rt->events / rt->secs, rt->samples, rt->samples / rt->secs, rt->unmatched, rt->stale,
            rt->overflow, bg_epochs);
    if (inline_used)
        fprintf(o, "(on the program's thread, timed by %s: %llu parts, %llu put off to a safe point%s; ",
                !inline_event_used ? "its CPU-time timer"
                : inline_backstops ? "the task-clock event, then its CPU-time timer"
                                   : "the task-clock event",
                inline_parts, inline_retries, bg_tid ? ", then the epoch thread" : "");
    else
        fprintf(o, "(");
    fprintf(o, "%s: %.2f ms CPU = %.3f%%)\n", inline_used && !bg_tid ? "their time" : "the epoch thread",
            rt->bg_cpu_ns / 1e6, 100 * rt->bg_cpu_ns / rt->cpu_ns);
    if (inline_used && inline_retries > 4 * inline_parts + 50) /* (INLINE EPOCHS) */
        fprintf(o, "note: the program's thread was seldom at a safe point for the epochs (inside libc or the "
                   "profiler): %llu parts, %llu put off; the epochs were long and the estimates rough; "
                   "--epochs thread suits this program\n", inline_parts, inline_retries);
    if (fentry_mode)
        fprintf(o, "profiler's own cost per event, taken out of latencies and counting intervals: handlers as "
                   "measured, plus trampolines %llu ticks (entry) and %llu (exit), %llu inside a timed call; "
                   "counting a call: %llu ticks, %llu when the skip path counts it (%llu calls so, and %llu in "
                   "the tick gaps, not counted)\n",
                (unsigned long long)cal_entry, (unsigned long long)cal_exit, (unsigned long long)cal_self,
                (unsigned long long)cal_count, (unsigned long long)cal_skip, rt->skipped,
                (unsigned long long)__atomic_load_n(&gap_skipped, __ATOMIC_RELAXED));
    else if (cal_provider)
        fprintf(o, "profiler's own cost per event, taken out of latencies and counting intervals: handlers as "
                   "measured, plus the hooks' calls and the provider's dispatch, %llu ticks\n",
                (unsigned long long)cal_provider);
    else if (cal_provider_why)
        fprintf(o, "profiler's own cost per event, taken out of latencies and counting intervals: handlers as "
                   "measured; the hooks' calls and the provider's dispatch not calibrated (%s): latencies "
                   "include them\n", cal_provider_why);
    fprintf(o, "profiler memory: %.1f KiB (sites, functions, histograms, thread stacks: %u records, %u taken over "
               "from threads gone)\n",
            (double)arena_used / 1024, __atomic_load_n(&ts_made, __ATOMIC_RELAXED),
            __atomic_load_n(&ts_reused, __ATOMIC_RELAXED));
    if (rt->signals_dropped)
        fprintf(o, "signals lost: %lu real-time signals of the program, held back while a handler of ours ran, that "
                   "the kernel would not queue again (RLIMIT_SIGPENDING used up; README, \"Reliability\")\n",
                rt->signals_dropped);
    fputc('\n', o);
}

/* The file a function is in, and its address there (PROF_WHERE_SEP): the
 * command turns it into FILE:LINE. "-" when unknown. */
P_FN void where_of(const prof_func *f, char *out, size_t n) {
    static char exe[512];
    symq q;
    char *c;
    q.addr = func_start(f);
    q.path = 0;
    snprintf(out, n, "-");
    if (!q.addr || !dl_iterate_phdr(find_object, &q)) return;
    if (!strcmp(q.path, "/proc/self/exe")) { /* the command would read its own */
        ssize_t len = exe[0] ? (ssize_t)strlen(exe) : readlink("/proc/self/exe", exe, sizeof exe - 1);
        if (len <= 0) return;
        exe[len] = 0;
        q.path = exe;
    }
    snprintf(out, n, "%s" PROF_WHERE_SEP "%lx", q.path, (unsigned long)(q.addr - q.base));
    for (c = out; *c; c++)
        if (*c == ' ') *c = '?'; /* the columns are whitespace-separated */
}
/* The table's columns as text: its heading, and the rows of functions
 * never timed. */
#define TABLE_TEXT "%-32s %9s %12s %10s %10s %10s %10s %10s %10s %10s %10s %12s %12s %7s %7s %6s %-9s %s\n"
/* The err% column (ERROR BOUNDS): 0 for a count that is exact, - for one
 * from a load (every call since, none before: no estimate to bound). */
/* An estimate's bound in percent of its calls (infinite under half a call). */
P_FN double bound_percent(const prof_func *f, double calls) {
    return calls >= 0.5 ? 100 * calls_bound(f) / calls : 1e300;
}
P_FN void bound_text(const prof_func *f, double calls, char *out, size_t n) {
    double pct = bound_percent(f, calls);
    if (!f->estimated) snprintf(out, n, "%s", f->from_load ? "-" : "0");
    else if (calls < 0.5) snprintf(out, n, "inf");
    else snprintf(out, n, pct >= 10 ? "%.0f" : pct >= 1 ? "%.1f" : "%.2f", pct); /* two digits where it is small */
}
P_FN int double_cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}
/* One line above the table: how many rows are counted exactly, how many
 * estimated, and how far those can be trusted (ERROR BOUNDS), so that a
 * reader sees it without reading the err% column down. */
P_FN void write_calls_line(FILE *o, const row *rows, int n) {
    double *err = (double *)calloc((size_t)n + 1, sizeof *err);
    int i, exact = 0, estimated = 0, under10 = 0;
    if (!err) return;
    for (i = 0; i < n; i++) {
        if (!rows[i].f->estimated) {
            exact += !rows[i].f->from_load;
            continue;
        }
        err[estimated] = bound_percent(rows[i].f, rows[i].est_calls);
        under10 += err[estimated++] < 10;
    }
    if (estimated) {
        qsort(err, (size_t)estimated, sizeof *err, double_cmp);
        fprintf(o, "calls: %d functions counted exactly, %d estimated (err%%: median %.0f%%, %d under 10%%); "
                   "--exact-calls counts every call (README, \"Error bounds\")\n",
                exact, estimated, err[(estimated - 1) / 2], under10);
    }
    free(err);
}
/* The first EDGEPROBE_PROF_TOP rows (0: all). */
P_FN void write_table(FILE *o, const row *rows, int n, const run_totals *rt) {
    int i, limit = prof_top > 0 && prof_top < n ? prof_top : n;
    double tick = rt->ns_per_tick;
    char where[600], calls[32], err[32];
    fprintf(o, TABLE_TEXT, "function", "sampled", "calls", "min(tk)", "mean(tk)", "p50(tk)", "p99(tk)", "max(tk)",
            "mean(ns)", "p50(ns)", "p99(ns)", "total(ms)", "self(ms)", "share%", "self%", "err%", "counted", "where");
    for (i = 0; i < limit; i++) {
        const row *r = &rows[i];
        where_of(r->f, where, sizeof where);
        bound_text(r->f, r->est_calls, err, sizeof err);
        if (!r->f->samples) { /* calls seen, none timed: no latency, no time */
            snprintf(calls, sizeof calls, "%.0f", r->est_calls);
            fprintf(o, TABLE_TEXT, fname(r->f), "0", calls, "-", "-", "-", "-", "-", "-", "-", "-", "-", "-", "-", "-",
                    err, count_label(r->f), where);
            continue;
        }
        /* full names (C++ names are long): the columns stay whitespace-separated */
        fprintf(o,
                "%-32s %9llu %12.0f %10llu %10.0f %10.0f %10.0f %10llu %10.0f %10.0f %10.0f %12.3f %12.3f %7.2f %7.2f %6s "
                "%-9s %s\n",
                fname(r->f), (unsigned long long)r->f->samples, r->est_calls, (unsigned long long)r->f->min, r->mean,
                r->p50, r->p99, (unsigned long long)r->f->max, r->mean * tick, r->p50 * tick, r->p99 * tick,
                r->est_total * tick / 1e6,
                r->est_self * tick / 1e6, 100 * r->est_total * tick / rt->run_ns,
                100 * r->est_self * tick / rt->run_ns, err, count_label(r->f), where);
    }
    if (limit < n) fprintf(o, "... %d more functions (EDGEPROBE_PROF_TOP=0 shows all)\n", n - limit);
    fprintf(o, "total = time in the function's outermost calls (calls x mean, less the calls nested in a call of "
               "the same function: recursion counts once); self = time in the function less its calls of probed "
               "functions (README, \"Self time, call graph, flame graph, file:line\"); share%% = total / wall "
               "time, at most 100%% for each thread it was sampled on; - = no call of it was timed (its calls "
               "all left by longjmp, or came while others were). err%% = the calls' error bound, two standard errors "
               "of the estimate in %% of its calls (README, \"Error bounds\"; 0: exact). counted: exact = every call counted; from-load = every call "
               "counted since its object, loaded while the profile ran, was adopted (up to an epoch after the load); "
               "estimated = calls counted in an interval of each epoch, scaled "
               "(unbiased when the program's threads run steadily; busy machines and threads that are "
               "descheduled make it less precise). where = OBJECT+0xADDRESS, or FILE:LINE (edgeprobe prof, "
               "with addr2line)\n");
}

/* EDGEPROBE_PROF_GRAPH: the table's functions with their callers and
 * callees, estimated (see CALL GRAPH). */
P_FN void write_call_graph(FILE *o, const row *rows, int n, const graph *g, const run_totals *rt) {
    int i, limit = prof_top > 0 && prof_top < n ? prof_top : n;
    double tick = rt->ns_per_tick;
    fprintf(o, "\ncall graph: each function, its callers (<-) and callees (->), with the estimated time and "
               "calls of each edge; %s\n",
            fentry_mode ? "[outside] = not a probed function (a thread's start, a library)"
                        : "callers are the nearest ones being sampled; [unseen] = none was (-finstrument-functions)");
    for (i = 0; i < limit; i++) {
        const row *r = &rows[i];
        fprintf(o, "%s  total %.3f ms  self %.3f ms  calls %.0f\n", fname(r->f), r->est_total * tick / 1e6,
                r->est_self * tick / 1e6, r->est_calls);
        write_graph_side(o, g->in, g->n, r->f, 1, tick);
        write_graph_side(o, g->out, g->n, r->f, 0, tick);
    }
}

/* The one-line summary (prof_common.h): last line of the report, and
 * appended to $EDGEPROBE_PROF_SUMMARY. */
P_FN void write_summary(FILE *o, const run_totals *rt) {
    fprintf(o, PROF_SUMMARY_TAG " mode=%s k=%u settle=%lu epoch_ms=%u count_budget=%g wall_s=%.4f cpu_s=%.4f "
               "toggles=%llu toggles_per_s=%.0f handler_calls=%llu handler_calls_per_s=%.0f samples=%llu samples_per_s=%.0f "
               "toggle_ms=%.3f toggle_pct_cpu=%.4f epoch_parts=%u later_counts=%llu " PROF_KEY_SITES "=%llu tail_sites=%llu functions=%llu "
               PROF_KEY_EXIT_HIDDEN "=%llu unmatched=%llu stale=%llu arena_bytes=%llu thread_records=%u "
               "thread_records_reused=%u signals_dropped=%lu\n",
            prof_mode_name(prof_mode), prof_k, prof_settle, prof_epoch_ms, prof_count_budget, rt->secs, rt->cpu_ns / 1e9,
            rt->toggles, rt->toggles / rt->secs, rt->events, rt->events / rt->secs, rt->samples, rt->samples / rt->secs,
            rt->toggle_ns / 1e6, 100 * rt->toggle_ns / rt->cpu_ns, prof_epoch_parts, later_counts, sites_discovered, sites_tail, rt->nfuncs,
            rt->exit_hidden, rt->unmatched, rt->stale, (unsigned long long)arena_used,
            __atomic_load_n(&ts_made, __ATOMIC_RELAXED), __atomic_load_n(&ts_reused, __ATOMIC_RELAXED), rt->signals_dropped);
}
P_FN void append_summary(const char *path, const run_totals *rt) {
    FILE *so = path && *path ? fopen(path, "a") : 0;
    if (!so) return;
    write_summary(so, rt);
    fclose(so);
}

/* EDGEPROBE_PROF_DEBUG: every function's window state and sites. */
P_FN void write_debug(FILE *o) {
    const prof_func *f;
    for (f = fn_all; f; f = f->next_all) {
        const prof_site *ps;
        fprintf(o, "debug %-28.28s seq=%u busy=%d broken=%d sites=%u bound=%u windows=%llu closes=%llu "
                   "entries=%llu samples=%llu ignored=%llu len=%llu cap=%llu skipped=%llu |",
                fname(f), f->seq, f->busy, f->broken, f->nsites, f->nbound, (unsigned long long)f->windows,
                (unsigned long long)f->closes, (unsigned long long)f->entries, (unsigned long long)f->samples,
                (unsigned long long)f->ignored, (unsigned long long)f->obs_len, (unsigned long long)f->obs_cap, (unsigned long long)f->skipped);
        for (ps = f->sites; ps; ps = ps->next)
            fprintf(o, " %s#%d:%d@%p", ps->kind == EDGEPROBE_KIND_ENTRY ? "in" : "out", ps->id, ps->state,
                    (void *)ps->addr);
        fprintf(o, "\n");
    }
}

/* The chart: the sampled rows alone (a row without samples has calls, no
 * latency to draw), in the table's order, gathered at the front over the
 * others (the report's last use of the rows). */
P_FN void write_chart(const char *path, row *rows, int n, const run_totals *rt) {
    char title[256];
    int i, sampled = 0;
    for (i = 0; i < n; i++)
        if (rows[i].f->samples) rows[sampled++] = rows[i];
    snprintf(title, sizeof title, "edgeprobe profiler: %d functions sampled, %llu samples, K=%u, epoch %u ms, %.2f s",
             sampled, rt->samples, prof_k, prof_epoch_ms, rt->secs);
    if (sampled) write_svg(path, rows, sampled, rt->ns_per_tick, rt->run_ns, title);
}

/* What a report holds beyond the table: from the environment (a launched
 * program's report), or from the words of a request (report_words). */
typedef struct report_opts {
    const char *svg, *folded; /* the chart, the folded stacks: paths, or NULL */
    int graph, sort, quiet;
} report_opts;
P_FN void report_opts_env(report_opts *r) {
    const char *graph = getenv(PROF_ENV_GRAPH), *quiet = getenv("EDGEPROBE_PROF_QUIET");
    r->svg = getenv(PROF_ENV_SVG);
    r->folded = getenv(PROF_ENV_FOLDED);
    r->graph = graph && *graph == '1';
    r->sort = prof_sort_parse(getenv(PROF_ENV_SORT));
    r->quiet = quiet && *quiet == '1';
}
/* The words after a request's report path: [SVG] [graph] [sort=KEY]
 * [folded=PATH] (paths absolute: the process opens them). 0, or -1. */
P_FN int report_words(char **w, int n, report_opts *r) {
    int i;
    memset(r, 0, sizeof *r);
    r->sort = -1;
    for (i = 0; i < n; i++) {
        if (!strcmp(w[i], "graph")) r->graph = 1;
        else if (!strncmp(w[i], "sort=", 5) && prof_sort_parse(w[i] + 5) >= 0) r->sort = prof_sort_parse(w[i] + 5);
        else if (!strncmp(w[i], "folded=/", 8)) r->folded = w[i] + 7;
        else if (w[i][0] == '/' && !r->svg) r->svg = w[i];
        else return -1;
    }
    return 0;
}

/* The call graph and the folded stacks, when asked for. */
P_FN void write_views(FILE *o, const row *rows, int n, const run_totals *rt, const report_opts *opts) {
    int want_graph = !opts->quiet && opts->graph, want_folded = opts->folded && *opts->folded;
    graph g;
    if (!want_graph && !want_folded) return;
    if (graph_build(&g)) {
        fprintf(stderr, "edgeprobe profiler: no memory for the call graph\n");
        return;
    }
    if (want_graph) write_call_graph(o, rows, n, &g, rt);
    if (want_folded) write_folded(opts->folded, &g, rt->ns_per_tick);
    graph_free(&g);
}

/* The report file, or stderr. */
P_FN FILE *open_report(const char *path) {
    FILE *o;
    if (!path || !*path) return stderr;
    if ((o = fopen(path, "w"))) return o;
    fprintf(stderr, "edgeprobe profiler: cannot write %s; using stderr\n", path);
    return stderr;
}

/* The report of a stopped profile: table (unless quiet), the views asked
 * for, and summary to o; the chart to opts->svg when given. */
P_FN void write_report_here(FILE *o, const report_opts *opts, run_totals *rt) {
    row *rows;
    int n;
    sum_counters(rt);
    prof_sort = opts->sort >= 0 ? opts->sort : PROF_SORT_TOTAL; /* report_lock held: make_rows sorts by it */
    if (!(rows = make_rows(rt, &n))) return;
    resolve_names();
    demangle_names();
    if (!opts->quiet) {
        write_header(o, rt);
        write_calls_line(o, rows, n);
        write_table(o, rows, n, rt);
    }
    write_views(o, rows, n, rt, opts);
    append_summary(getenv(PROF_ENV_SUMMARY), rt);
    write_summary(o, rt);
    if (getenv("EDGEPROBE_PROF_DEBUG")) write_debug(o);
    if (opts->svg && *opts->svg && n) write_chart(opts->svg, rows, n, rt);
    free(rows);
}
/* The report, its chart and its views with the C locale's numbers on this
 * thread, whatever locale the program set: under LC_ALL=de_DE.UTF-8 a
 * program that called setlocale wrote "wall_s=0,3017" into the summary
 * that the command and scripts read (prof-locale). */
P_FN void write_report(FILE *o, const report_opts *opts, run_totals *rt) {
    locale_t c = newlocale(LC_ALL_MASK, "C", (locale_t)0), old = c ? uselocale(c) : (locale_t)0;
    write_report_here(o, opts, rt);
    if (c) {
        uselocale(old);
        freelocale(c);
    }
}

/* One report at a time: `prof report` from the control endpoint may meet
 * the one written at exit. */
static pthread_mutex_t report_lock = PTHREAD_MUTEX_INITIALIZER;

/* The report file a client named, or NULL with the error reply in reply. */
P_FN FILE *open_client_report(const char *path, char *reply, unsigned cap, int *n) {
    FILE *o = path[0] == '/' ? fopen(path, "w") : 0;
    if (!o)
        *n = snprintf(reply, cap, "error EDGEPROBE_EINVAL cannot write the report to %s: %s\n", path,
                      path[0] != '/' ? "not an absolute path" : strerror(errno));
    return o;
}
#define REPORT_WORDS_ERROR "error EDGEPROBE_EINVAL after the report's path: [SVG] [graph] [sort=total|self|calls] " \
                           "[folded=PATH], paths absolute\n"
/* "prof report PATH [SVG] [graph] [sort=KEY] [folded=PATH]": the report so
 * far (calls of the epoch under way not yet counted); the profile goes on. */
P_FN int report_now(const char *path, char **words, int nwords, char *reply, unsigned cap) {
    run_totals rt;
    report_opts opts;
    FILE *o;
    int n;
    if (!prof_running) return snprintf(reply, cap, "error EDGEPROBE_ENOENT no profile is running\n");
    if (report_words(words, nwords, &opts)) return snprintf(reply, cap, REPORT_WORDS_ERROR);
    if (!(o = open_client_report(path, reply, cap, &n))) return n;
    memset(&rt, 0, sizeof rt);
    pthread_mutex_lock(&report_lock);
    read_clocks(&rt);
    write_report(o, &opts, &rt);
    pthread_mutex_unlock(&report_lock);
    fclose(o);
    return snprintf(reply, cap, "ok\n");
}
#ifdef PROF_ATTACHED
P_FN int attached_request(char **args, int nargs, char *reply, unsigned cap);
#endif
/* The profiler's requests on the control endpoint (header section 28,
 * edgeprobe__ctl_ext): "prof report", and, attached, "prof start|stop". */
P_FN int prof_request(char **args, int nargs, char *reply, unsigned cap) {
    if (nargs < 2 || strcmp(args[0], "prof")) return -1;
    if (!strcmp(args[1], "report") && nargs >= 3) return report_now(args[2], args + 3, nargs - 3, reply, cap);
#ifdef PROF_ATTACHED
    return attached_request(args, nargs, reply, cap);
#else
    return -1;
#endif
}

/* At exit, or on the epoch thread for a stop signal. ATTACHED: never at
 * exit (a profile ends by `prof stop` or `detach`), and no stop signals. */
#ifdef PROF_ATTACHED
#define PROF_AT_EXIT
#else
#define PROF_AT_EXIT destructor(101),
#endif
__attribute__((PROF_AT_EXIT noinline)) NOI void edgeprobe_profiler_stop(void) {
    run_totals rt;
    report_opts opts;
    FILE *o;

    /* once */
    if (prof_mode == PROF_MODE_NONE || !__atomic_exchange_n(&prof_running, 0, __ATOMIC_ACQ_REL)) return;
    memset(&rt, 0, sizeof rt);
    pthread_mutex_lock(&report_lock);
    stop_sampling(&rt);
    o = open_report(getenv(PROF_ENV_OUT));
    report_opts_env(&opts);
    write_report(o, &opts, &rt);
    if (o != stderr) fclose(o);
    pthread_mutex_unlock(&report_lock);
}

#ifdef PROF_ATTACHED
/* ---- ATTACHED: libedgeprobe-attach.so, what `edgeprobe attach` loads -------
 * The same profiler, built with -DPROF_ATTACHED, in a process that never
 * opted in (tools/cmd_attach.c injects a dlopen of it). Its constructor runs
 * in the thread the command seized, which stays stopped as briefly as
 * possible: it only starts a thread (the header's own constructor is left
 * out, EDGEPROBE__ROOT_LATER: making the root registers with membarrier,
 * about 25 ms in a multi-threaded process). That thread lists the function
 * entries of every loaded object built with -fpatchable-function-entry=5
 * (function probes, off) and serves the control endpoint, so that
 * `edgeprobe list|enable|top|trace PID` reach the process, and adds the
 * profiler's requests to it (edgeprobe__ctl_ext, header section 28):
 *
 *     prof start K EPOCH_MS [exact] [budget=PERCENT] [parts=N]
 *                             ok <functions>   every function on, windows open
 *                                              (exact: EXACT CALLS; budget:
 *                                              the count budget, prof_common.h;
 *                                              parts: LATER COUNTS)
 *     prof stop PATH [SVG] [graph] [sort=KEY] [folded=PATH]
 *                             ok               the report written to PATH
 *                                              (absolute), everything off
 *
 * A profile is a span of the process's life: its figures count from `prof
 * start` (the counters of functions and threads are reset, the windows'
 * numbers go on, so a frame of an earlier profile never pairs). Between
 * profiles every function is off and bound to the profiler's handlers,
 * which do nothing while no profile runs. `detach` (the endpoint's own
 * request) ends a profile without a report and unbinds them. Nothing is
 * written at exit. The library pins itself: it is never unloaded, so
 * return trampolines of calls in flight stay valid after any detach. */
/* A function's figures, for a new profile. */
P_FN void reset_function(prof_func *f) {
    f->samples = f->entries = f->windows = f->closes = f->ignored = f->min = f->max = 0;
    f->wsum = f->wn = f->lat_calls = f->lat_carry = 0;
    f->win_samples = f->win_entries = 0;
    f->obs_count = 0;
    f->obs_len = PROF_OBS_ALL;
    f->obs_cap = 0; /* the first epoch's cap (all_cap), not the last profile's count: an exact profile
                       after a sampled one had its first epoch estimated */
    f->obs_open = 1;
    f->obs_rate = f->est_calls = f->obs_seen = 0;
    f->var_count = f->var_settle = f->var_flat = f->var_share = f->extrapolated = 0;
    f->rest_span = f->rest_rate = 0; /* the last profile's rest is none of this one's (THE REST) */
    parts_reset(f);
    f->estimated = 0;
    f->from_load = 0;
    take_nested(f, 0); /* the last profile's */
    f->callers = 0; /* the old edges stay in the arena, unreachable */
    f->thread_mask = 0;
    f->skipped = 0;
    if (f->lat) memset(f->lat->hist, 0, sizeof f->lat->hist); /* its banks go on: their epochs never repeat */
}
P_FN void reset_thread(tstate *t) {
    t->events = t->samples = t->toggles = t->toggle_calls = t->toggle_ticks = 0;
    t->stale = t->unmatched = t->overflow = t->toggle_errors = t->toggle_busy = 0;
    t->owners_before = t->events_base = 0;
}
P_FN void reset_counters(void) {
    tstate *t;
    for (t = __atomic_load_n(&ts_all, __ATOMIC_ACQUIRE); t; t = t->next) reset_thread(t);
    reset_thread(&bg_ts);
    bg_epochs = 0;
    gap_skipped = later_counts = 0;
}
/* Every function awake (a profile resumed: the epoch thread is not running). */
P_FN void wake_all(void) {
    prof_func *f;
    /* flags first: a program thread can push a function it woke only
     * while its flag is set; then the pushes so far go, and every function
     * is in the set once */
    for (f = __atomic_load_n(&fn_all, __ATOMIC_ACQUIRE); f; f = f->next_all)
        __atomic_store_n(&f->dormant, 0, __ATOMIC_SEQ_CST);
    __atomic_store_n(&woken, (prof_func *)0, __ATOMIC_SEQ_CST);
    nawake = 0;
    for (f = __atomic_load_n(&fn_all, __ATOMIC_ACQUIRE); f; f = f->next_all) awake[nawake++] = f;
}
/* Every function of an earlier profile: figures reset, bound (`detach` may
 * have unbound it) and on, window open. */
P_FN void resume_functions(void) {
    prof_func *f;
    wake_all(); /* before any window opens */
    for (f = __atomic_load_n(&fn_all, __ATOMIC_ACQUIRE); f; f = f->next_all) {
        prof_site *s;
        reset_function(f);
        for (s = f->sites; s; s = s->next)
            if (s->state == 1 && edgeprobe_func_attach_id(s->id, fentry_on_entry, fentry_on_exit, s) < 0) bind_errors++;
        if (!(f->seq & 1)) {
            f->windows++;
            __atomic_store_n(&f->seq, f->seq + 1, __ATOMIC_RELEASE);
        }
    }
}
/* Every window shut and every function off. No profile runs (program
 * threads no longer close windows) and the epoch thread has ended. */
P_FN void park_functions(void) {
    prof_func *f;
    for (f = __atomic_load_n(&fn_all, __ATOMIC_ACQUIRE); f; f = f->next_all) {
        prof_site *s;
        unsigned seq = __atomic_load_n(&f->seq, __ATOMIC_ACQUIRE);
        while (__atomic_load_n(&f->busy, __ATOMIC_ACQUIRE)) sched_yield(); /* a close in flight */
        if (seq & 1) __atomic_store_n(&f->seq, seq + 1, __ATOMIC_RELEASE);
        for (s = f->sites; s; s = s->next)
            if (s->state == 1) site_off(s);
    }
}
P_FN int attached_begin(long k, long epoch_ms, int exact_calls, double count_budget, unsigned parts) {
    if (reserve_tables()) return EDGEPROBE_ENOMEM;
    prof_mode = PROF_MODE_SAMPLE;
    prof_k = (unsigned)k;
    prof_epoch_ms = (unsigned)epoch_ms;
    prof_epoch_parts = parts;
    prof_count_budget = count_budget;
    set_exact_calls(exact_calls);
    reset_counters();
    clocks_start();
    first_tick(); /* before the handlers run: their looks count from it, not from the last profile's tick */
    __atomic_store_n(&prof_running, 1, __ATOMIC_RELEASE);
    resume_functions();
    adopt_functions(); /* the first profile's functions, and those of objects loaded since */
    if (my_ts) reset_thread(my_ts); /* the calibration's calls, on this (the control) thread */
    first_tick();
    if (bg_start()) fprintf(stderr, "edgeprobe profiler: no background thread; probes will not re-open\n");
    return (int)fn_count;
}
/* End the profile: sampling stops, every function goes off, handlers in
 * flight are waited for; then the report (o NULL: none). */
P_FN void attached_end(FILE *o, const report_opts *opts) {
    run_totals rt;
    memset(&rt, 0, sizeof rt);
    pthread_mutex_lock(&report_lock);
    __atomic_store_n(&prof_running, 0, __ATOMIC_RELEASE);
    stop_sampling(&rt);
    park_functions();
    edgeprobe_handler_sync();
    disarm_all(); /* a handler in flight may have armed a count after stop_sampling's */
    if (o) write_report(o, opts, &rt);
    pthread_mutex_unlock(&report_lock);
}
/* The words after "prof start K EPOCH_MS": [exact] [budget=PERCENT]
 * [parts=N], in that order. 0, or -1 for any other word. */
P_FN int start_words(char **w, int n, int *exact, double *budget, long *parts) {
    int b;
    *exact = n > 0 && !strcmp(w[0], "exact");
    w += *exact, n -= *exact;
    *budget = PROF_DEFAULT_COUNT_BUDGET;
    *parts = PROF_DEFAULT_EPOCH_PARTS;
    b = n > 0 && !strncmp(w[0], "budget=", 7);
    if (b && prof_parse_budget(w[0] + 7, budget)) return -1;
    w += b, n -= b;
    if (n > 0 && (strncmp(w[0], "parts=", 6) || prof_parse_long(w[0] + 6, parts) || *parts < 1 ||
                  *parts > PROF_MAX_EPOCH_PARTS))
        return -1;
    return n > 1 ? -1 : 0;
}
/* "prof start K EPOCH_MS [exact] [budget=PERCENT] [parts=N]" and "prof stop PATH [SVG]
 * [graph] [sort=KEY] [folded=PATH]" (see above); args[0] is "prof". */
P_FN int attached_request(char **args, int nargs, char *reply, unsigned cap) {
    long k, epoch, parts;
    double budget;
    report_opts opts;
    FILE *o;
    int n, exact;
    if (!strcmp(args[1], "start") && nargs >= 4) {
        if (prof_parse_long(args[2], &k) || k < 1 || k > PROF_MAX_K || prof_parse_long(args[3], &epoch) || epoch < 1 ||
            epoch > PROF_MAX_EPOCH_MS || start_words(args + 4, nargs - 4, &exact, &budget, &parts))
            return snprintf(reply, cap,
                            "error EDGEPROBE_EINVAL prof start wants K (1-%d), EPOCH_MS (1-%d), then [exact] "
                            "[budget=PERCENT (0-%d)] [parts=N (1-%d)]\n",
                            PROF_MAX_K, PROF_MAX_EPOCH_MS, PROF_MAX_COUNT_BUDGET, PROF_MAX_EPOCH_PARTS);
        if (prof_running) return snprintf(reply, cap, "error EDGEPROBE_EBUSY a profile is running\n");
        return snprintf(reply, cap, "ok %d\n", attached_begin(k, epoch, exact, budget, (unsigned)parts));
    }
    if (!strcmp(args[1], "stop") && nargs >= 3) {
        if (!prof_running) return snprintf(reply, cap, "error EDGEPROBE_ENOENT no profile is running\n");
        if (report_words(args + 3, nargs - 3, &opts)) return snprintf(reply, cap, REPORT_WORDS_ERROR);
        if (!(o = open_client_report(args[2], reply, cap, &n))) return n;
        attached_end(o, &opts);
        fclose(o);
        return snprintf(reply, cap, "ok\n");
    }
    return -1;
}
/* `detach`: the profile ends unreported; every function is unbound. */
P_FN int attached_detach(void) {
    if (__atomic_load_n(&prof_running, __ATOMIC_ACQUIRE)) attached_end(0, 0);
    return edgeprobe__func_owned("*", EDGEPROBE__FUNC_OP_DETACH, fentry_on_entry);
}
P_FN void *attached_main(void *arg) {
    int rc;
    (void)arg;
    rc = edgeprobe_func_scan(); /* EDGEPROBE_ENOFUNC: no object built with the flag; markers still served */
    if (rc < 0 && rc != EDGEPROBE_ENOFUNC) fprintf(stderr, "edgeprobe attach agent: %s\n", edgeprobe_strerror(rc));
    edgeprobe__ctl_ext = prof_request;
    edgeprobe__ctl_ext_detach = attached_detach;
    if ((rc = edgeprobe_control_start()) < 0)
        fprintf(stderr, "edgeprobe attach agent: no control endpoint: %s\n", edgeprobe_strerror(rc));
    return 0;
}
__attribute__((constructor)) NOI void attached_start(void) {
    unsigned long t; /* the program's signals are not ours to take */
    if (edgeprobe__thread_start(&t, attached_main, 0) == 0) pthread_detach((pthread_t)t);
}
#endif

