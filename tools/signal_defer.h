/* tools/signal_defer.h - the program's signal handlers, held back while one
 * of edgeprobe's handlers runs on the thread (the header's DEFERRED
 * SIGNALS). Included once by each library that `edgeprobe` preloads (the
 * profiler's and the recorder's agents), after the header's
 * implementation. It defines sigaction, signal, bsd_signal, sysv_signal,
 * __sysv_signal and sigset, which the dynamic linker finds before libc's:
 * every handler the program installs through them is installed as
 * defer_wrapper, which runs it, or holds the signal back until the
 * thread's outermost handler call (or guarded stretch) ends. What the
 * program asks back (sigaction's old action, signal's return) is its own
 * handler, as it set it. It also defines fork, __fork and forkpty, each
 * one guarded stretch (below).
 *
 * Not covered: handlers installed by the raw system call, or by sigvec
 * (gone from glibc's API); the synchronous signals
 * (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGSYS: a fault cannot wait,
 * and SIGTRAP is the header's own); and a profile attached to a running
 * process, whose handlers were installed before the agent came. */
#ifndef EDGEPROBE_SIGNAL_DEFER_H
#define EDGEPROBE_SIGNAL_DEFER_H
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <pty.h>
#include <ucontext.h>
#include <unistd.h>

#define DEFER_NO_INSTR __attribute__((no_instrument_function))
#define DEFER_SIGNALS 65 /* 1 to 64 */

/* The program's handler of one signal. Two per signal, alternating: a
 * wrapper delivered while the program changes its handler reads the old
 * one or the new one whole, never half of each. */
typedef struct defer_handler {
    void (*fn)(void);
    int flags;   /* the program's sa_flags */
    int unblock; /* one-shot and SA_NODEFER: unblocked once the action is reset */
} defer_handler;
static defer_handler defer_slots[DEFER_SIGNALS][2];
static defer_handler *defer_current[DEFER_SIGNALS]; /* 0: the program's is no handler (default, ignore) */
typedef int (*defer_sigaction_fn)(int, const struct sigaction *, struct sigaction *);
typedef void (*defer_fn)(int);
typedef defer_fn (*defer_signal_fn)(int, defer_fn);
static defer_sigaction_fn defer_real_sigaction;
/* libc's signal, bsd_signal, sysv_signal: each sets the flags it sets
 * (signal leaves SA_RESTART out for a signal given to siginterrupt) */
typedef pid_t (*defer_fork_fn)(void);
static defer_fork_fn defer_real_fork[2]; /* fork, __fork */
static int (*defer_real_forkpty)(int *, char *, const struct termios *, const struct winsize *);
static const char *const defer_signal_names[] = {"signal", "bsd_signal", "__sysv_signal", "sigset"};
#define DEFER_SIGNAL_FAMILY 4
static defer_signal_fn defer_real_signal[DEFER_SIGNAL_FAMILY];

/* Found before main (the constructor), not in a handler that sets one. */
DEFER_NO_INSTR static int defer_resolve(void) {
    unsigned i;
    if (defer_real_sigaction) return 1;
    for (i = 0; i < DEFER_SIGNAL_FAMILY; i++) defer_real_signal[i] = (defer_signal_fn)dlsym(RTLD_NEXT, defer_signal_names[i]);
    defer_real_fork[0] = (defer_fork_fn)dlsym(RTLD_NEXT, "fork");
    defer_real_fork[1] = (defer_fork_fn)dlsym(RTLD_NEXT, "__fork");
    defer_real_forkpty = (int (*)(int *, char *, const struct termios *, const struct winsize *))dlsym(RTLD_NEXT, "forkpty");
    defer_real_sigaction = (defer_sigaction_fn)dlsym(RTLD_NEXT, "sigaction");
    return defer_real_sigaction != 0;
}
__attribute__((constructor(101))) DEFER_NO_INSTR static void defer_start(void) { defer_resolve(); }

/* Called with each signal the program sets an action for, before it is
 * set (the profiler's INLINE EPOCHS give theirs up); may be left 0. */
static void (*defer_program_sets)(int sig);

/* Signals whose handlers are left as the program sets them. */
DEFER_NO_INSTR static int defer_never(int sig) {
    return sig < 1 || sig >= DEFER_SIGNALS || sig == SIGKILL || sig == SIGSTOP || sig == SIGSEGV || sig == SIGBUS ||
           sig == SIGILL || sig == SIGFPE || sig == SIGTRAP || sig == SIGSYS;
}

/* A one-shot handler (SA_RESETHAND) about to run: what the kernel does at
 * its delivery, the action set back to the default, its flags and mask
 * kept (sigaction reports SA_RESETHAND after it ran). One thread wins: a
 * second thread that took the signal at the same time sends it again, and
 * the kernel applies the default to it, as it would have (once the
 * winner's reset is in; until then the wrapper takes it and sends it
 * again). Returns 1 if this thread is to run the handler. */
DEFER_NO_INSTR static int defer_reset(int sig, defer_handler *h, siginfo_t *info) {
    struct sigaction dfl;
    int saved = errno;
    if (!__atomic_compare_exchange_n(&defer_current[sig], &h, (defer_handler *)0, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        edgeprobe__signal_requeue(sig, info);
        errno = saved;
        return 0;
    }
    if (defer_real_sigaction(sig, 0, &dfl) == 0) {
        dfl.sa_handler = SIG_DFL;
        dfl.sa_flags = h->flags;
        defer_real_sigaction(sig, &dfl, 0);
    }
    errno = saved;
    return 1;
}

/* PROGRAM HANDLERS UNDER WAY: the frames of the wrappers running the
 * program's handlers on this thread, outermost first. A handler may have
 * interrupted anything (malloc, the loader), so code that runs inside one
 * is no safe point for work that calls into libc (the profiler's INLINE
 * EPOCHS, which set defer_track_frames). A wrapper's return takes its own
 * entry and any pushed after it
 * (by nested handlers left by longjmp). A handler left by longjmp for good
 * is seen at the next signal: code a signal interrupts runs below the
 * frames of the handlers it is inside, on the same stack; a frame on the
 * alternate signal stack is left when that code is not on it (nested
 * handlers on the normal stack, inside one on the alternate stack, do not
 * run: the kernel stays on the alternate stack). */
#define DEFER_FRAMES 16
static __thread uintptr_t defer_frames[DEFER_FRAMES];
static __thread unsigned defer_nframes; /* beyond DEFER_FRAMES: counted, not kept */
static int defer_track_frames;          /* set by their one user (the profiler's INLINE EPOCHS) */
/* The stack pointer of the code a signal interrupted. */
DEFER_NO_INSTR static uintptr_t defer_uc_sp(const ucontext_t *uc) {
#if defined(__x86_64__)
    return (uintptr_t)uc->uc_mcontext.gregs[15]; /* REG_RSP, named only under _GNU_SOURCE */
#elif defined(__aarch64__)
    return (uintptr_t)uc->uc_mcontext.sp;
#else
    (void)uc;
    return 0; /* no frame seen as left */
#endif
}
/* The alternate signal stack's bounds ([0, 0) if none); 1 if this thread
 * runs on it now. */
__attribute__((unused)) DEFER_NO_INSTR static int defer_altstack(uintptr_t *lo, uintptr_t *hi) {
    stack_t ss;
    *lo = *hi = 0;
    if (sigaltstack(0, &ss) || (ss.ss_flags & SS_DISABLE)) return 0;
    *lo = (uintptr_t)ss.ss_sp, *hi = *lo + ss.ss_size;
    return (ss.ss_flags & SS_ONSTACK) != 0;
}
/* Push this wrapper's frame; returns its slot for defer_frame_pop. */
DEFER_NO_INSTR static unsigned defer_frame_push(uintptr_t frame, uintptr_t interrupted_sp) {
    uintptr_t lo, hi;
    unsigned slot;
    if (defer_nframes) defer_altstack(&lo, &hi);
    while (defer_nframes && defer_nframes <= DEFER_FRAMES) {
        uintptr_t top = defer_frames[defer_nframes - 1];
        int top_alt = top >= lo && top < hi, sp_alt = interrupted_sp >= lo && interrupted_sp < hi;
        if (!((top_alt && !sp_alt) || (top_alt == sp_alt && top < interrupted_sp))) break;
        defer_nframes--; /* left by longjmp */
    }
    slot = defer_nframes;
    if (slot < DEFER_FRAMES) defer_frames[slot] = frame;
    defer_nframes++;
    return slot;
}
DEFER_NO_INSTR static void defer_frame_pop(unsigned slot) {
    if (slot < defer_nframes) defer_nframes = slot;
}
/* Whether code running with stack pointer sp on this thread (interrupted
 * by a signal) may be inside a program's handler. Frames on the alternate
 * signal stack [alt, alt_end) are left out when sp is not on it (the
 * caller checks that). */
__attribute__((unused)) DEFER_NO_INSTR static int defer_in_program_handler(uintptr_t sp, uintptr_t alt, uintptr_t alt_end) {
    unsigned i;
    if (defer_nframes > DEFER_FRAMES) return 1;
    for (i = 0; i < defer_nframes; i++)
        if (sp < defer_frames[i] && !(defer_frames[i] >= alt && defer_frames[i] < alt_end)) return 1;
    return 0;
}

DEFER_NO_INSTR static void defer_wrapper(int sig, siginfo_t *info, void *context) {
    ucontext_t *uc = (ucontext_t *)context;
    defer_handler *h;
    unsigned slot = 0;
    int track;
    if (edgeprobe__signal_defer(sig, info, (unsigned long *)(void *)&uc->uc_sigmask)) return;
    h = __atomic_load_n(&defer_current[sig], __ATOMIC_ACQUIRE);
    if (!h) { /* set to default or ignore meanwhile: sent again, the kernel applies it */
        int saved = errno;
        edgeprobe__signal_requeue(sig, info);
        errno = saved;
        return;
    }
    if ((h->flags & SA_RESETHAND) && !defer_reset(sig, h, info)) return;
    if (h->unblock) edgeprobe__sigmask_change(EDGEPROBE__SIG_UNBLOCK, 1ul << (sig - 1)); /* SA_NODEFER, from here */
    track = __atomic_load_n(&defer_track_frames, __ATOMIC_RELAXED);
    if (track) slot = defer_frame_push((uintptr_t)__builtin_frame_address(0), defer_uc_sp(uc));
    if (h->flags & SA_SIGINFO)
        ((void (*)(int, siginfo_t *, void *))h->fn)(sig, info, context);
    else
        ((void (*)(int))h->fn)(sig);
    if (track) defer_frame_pop(slot);
}

DEFER_NO_INSTR int sigaction(int sig, const struct sigaction *act, struct sigaction *old) {
    defer_handler *was, *h;
    struct sigaction mine;
    int rc;
    if (!defer_resolve()) {
        errno = ENOSYS;
        return -1;
    }
    if (defer_never(sig)) return defer_real_sigaction(sig, act, old);
    if (act && defer_program_sets) defer_program_sets(sig);
    was = __atomic_load_n(&defer_current[sig], __ATOMIC_ACQUIRE);
    if (act && act->sa_handler != SIG_DFL && act->sa_handler != SIG_IGN) {
        h = &defer_slots[sig][was == &defer_slots[sig][0]];
        h->fn = (void (*)(void))act->sa_handler;
        h->flags = act->sa_flags;
        h->unblock = (act->sa_flags & SA_RESETHAND) && (act->sa_flags & SA_NODEFER) && !sigismember(&act->sa_mask, sig);
        mine = *act;
        mine.sa_sigaction = defer_wrapper;
        /* the wrapper resets a one-shot action, with its signal blocked
         * until then: under SA_NODEFER, a flood of it nested a delivery in
         * every wrapper's first instruction, before any reset, until the
         * stack ran out */
        mine.sa_flags = (act->sa_flags | SA_SIGINFO) & ~SA_RESETHAND;
        if (act->sa_flags & SA_RESETHAND) mine.sa_flags &= ~SA_NODEFER;
        __atomic_store_n(&defer_current[sig], h, __ATOMIC_RELEASE);
        if ((rc = defer_real_sigaction(sig, &mine, old)) != 0) __atomic_store_n(&defer_current[sig], was, __ATOMIC_RELEASE);
    } else if ((rc = defer_real_sigaction(sig, act, old)) == 0 && act) {
        __atomic_store_n(&defer_current[sig], (defer_handler *)0, __ATOMIC_RELEASE);
    }
    if (rc == 0 && old && was && old->sa_sigaction == defer_wrapper) { /* the program's own, as it set it */
        old->sa_handler = (void (*)(int))was->fn;
        /* the kernel's flags (siginterrupt changes them), but for ours */
        old->sa_flags = (old->sa_flags & ~(SA_SIGINFO | SA_RESETHAND | SA_NODEFER)) |
                        (was->flags & (SA_SIGINFO | SA_RESETHAND | SA_NODEFER));
    }
    return rc;
}

/* signal() and its kin: libc's own installs the handler with the flags it
 * chooses, then the handler is wrapped with the kernel's flags and mask. */
DEFER_NO_INSTR static defer_fn defer_signal_via(int which, int sig, defer_fn fn) {
    defer_handler *was;
    struct sigaction now;
    defer_fn old;
    if (!defer_resolve() || !defer_real_signal[which]) {
        errno = ENOSYS;
        return SIG_ERR;
    }
    if (defer_never(sig)) return defer_real_signal[which](sig, fn);
    if (defer_program_sets) defer_program_sets(sig);
    was = __atomic_load_n(&defer_current[sig], __ATOMIC_ACQUIRE);
    if ((old = defer_real_signal[which](sig, fn)) == SIG_ERR) return old;
    if (defer_real_sigaction(sig, 0, &now) == 0) {
        if (now.sa_handler == SIG_DFL || now.sa_handler == SIG_IGN)
            __atomic_store_n(&defer_current[sig], (defer_handler *)0, __ATOMIC_RELEASE);
        else if (now.sa_sigaction != defer_wrapper) /* (sigset's SIG_HOLD changes no action) */
            sigaction(sig, &now, 0);
    }
    return (void *)old == (void *)defer_wrapper ? (was ? (defer_fn)was->fn : SIG_DFL) : old;
}
DEFER_NO_INSTR defer_fn signal(int sig, defer_fn fn) { return defer_signal_via(0, sig, fn); }
DEFER_NO_INSTR defer_fn bsd_signal(int sig, defer_fn fn) { return defer_signal_via(1, sig, fn); }
/* signal under strict ISO C compiles to __sysv_signal */
DEFER_NO_INSTR defer_fn __sysv_signal(int sig, defer_fn fn) { return defer_signal_via(2, sig, fn); }
DEFER_NO_INSTR defer_fn sysv_signal(int sig, defer_fn fn) { return defer_signal_via(2, sig, fn); }
/* System V's: also unblocks the signal, or only blocks it (SIG_HOLD) */
DEFER_NO_INSTR defer_fn sigset(int sig, defer_fn fn) { return defer_signal_via(3, sig, fn); }

/* fork: the whole of it is a guarded stretch (the header's DEFERRED
 * SIGNALS), and a program's signal that comes meanwhile runs when fork
 * returns. The kernel restarts a fork that a signal interrupts, so its
 * handler ran inside fork: where the header's prepare handler holds the
 * registry lock (a handler that called probed functions deadlocked on
 * it: the profiler's handler switches them), and glibc its own locks,
 * which it takes when the process has threads - the epoch thread's
 * presence makes it so (the list of fork handlers, malloc's arenas): a
 * handler that left by siglongjmp left them held, and the program hung
 * (tests/prof/forks.c; the stretch from the header's prepare handler to
 * its parent handler still left glibc's lock of its handler list held, 1
 * run in 6). So are __fork and forkpty, which fork by glibc's own alias
 * (an independent review: forkpty hung 3 of 3 so). Not wrapped: vfork
 * (its child runs on the parent's stack: a wrapper's return would
 * overwrite the parent's frame), and daemon here (it forks once, and its
 * parent exits inside it; the profiler defines its own, which forks
 * through fork above: its DAEMONS). */
DEFER_NO_INSTR static edgeprobe__reader *defer_guard_in(void) {
    edgeprobe__root *r = __atomic_load_n(&edgeprobe__this_object.root, __ATOMIC_ACQUIRE);
    return r ? edgeprobe__guard_in(r) : 0;
}
DEFER_NO_INSTR static pid_t defer_fork_via(int which) {
    edgeprobe__reader *guard;
    pid_t pid;
    if (!defer_resolve() || !defer_real_fork[which]) {
        errno = ENOSYS;
        return -1;
    }
    guard = defer_guard_in();
    pid = defer_real_fork[which]();
    edgeprobe__guard_out(guard); /* (in the child too: its own copy of the record) */
    return pid;
}
DEFER_NO_INSTR pid_t fork(void) { return defer_fork_via(0); }
DEFER_NO_INSTR pid_t __fork(void);
DEFER_NO_INSTR pid_t __fork(void) { return defer_fork_via(1); }
DEFER_NO_INSTR int forkpty(int *master, char *name, const struct termios *termp, const struct winsize *winp) {
    edgeprobe__reader *guard;
    int pid;
    if (!defer_resolve() || !defer_real_forkpty) {
        errno = ENOSYS;
        return -1;
    }
    guard = defer_guard_in();
    pid = defer_real_forkpty(master, name, termp, winp);
    edgeprobe__guard_out(guard);
    return pid;
}
#endif
