/* edgeprobe attach PID [--lib PATH] - load the attach agent
 * (libedgeprobe-attach.so, tools/prof_agent.c -DPROF_ATTACHED) into a running process
 * that never opted in, so that `edgeprobe list|top|...` reach it.
 *
 * One thread - the process's main thread - is seized with ptrace and made
 * to call dlopen from the process's own C library; its registers (general
 * and the whole xsave area) are put back before it goes on, and a blocking
 * system call it was in restarts as after any ptrace stop. The other
 * threads never stop. x86-64 only.
 *
 * The injected call, on the seized thread's stack below its red zone:
 *
 *     rsp_saved - 128 - ...  path "…/libedgeprobe-attach.so\0" (16-aligned)
 *     new rsp  ->            0 (return address: dlopen returns to 0, the
 *                            thread faults, we get a SIGSEGV stop there)
 *
 *     rip = dlopen, rdi = path, rsi = RTLD_NOW, orig_rax = -1 (no syscall
 *     restart while our call runs); the saved registers, orig_rax and all,
 *     go back at the SIGSEGV stop, which we suppress.
 *
 * What can go wrong, and what happens (tests/drivers/attach.sh):
 *  - seized inside a blocking call: read, accept, futex and the sleeps
 *    restart (the sleeps keep their deadline: restart_syscall, with the
 *    thread's restart block, which the load leaves alone: a nanosleep or
 *    poll on the seized thread during the load would reset it). epoll_wait
 *    and a few others return EINTR after any ptrace stop; we turn that
 *    EINTR into a restart (restart_if_interrupted). attach-blocked-calls
 *  - two attaches at once: the seize is the lock. The second waits while an
 *    `edgeprobe` holds the process, then finds the agent loaded; another
 *    tracer (a debugger) is named and not waited for. attach-twice-at-once
 *  - the process exits or runs exec during the attach: exit and exec are
 *    seize events (PTRACE_O_TRACEEXIT, _TRACEEXEC), waits are bounded, the
 *    error says which; nothing stays traced. attach-exit-or-exec
 *  - seccomp: strict mode is refused; filters are read and run against
 *    every call the load makes (tools/attach_seccomp.c), refused naming the
 *    first one they forbid - a KILL action would kill the process; filters
 *    we may not read (not root) are refused too. attach-seccomp
 *  - not ours to trace (another user, Yama's ptrace_scope), a static
 *    program, a stopped process (the call would run one of its threads),
 *    a main thread that has exited: refused, saying what to do.
 *    attach-refused-cleanly
 *  - seized inside the C library or the dynamic loader: it may be half-way
 *    through malloc (which takes no lock in a single-threaded process: the
 *    injected dlopen's own malloc then corrupted the heap, 2 of 30 attaches
 *    to a malloc loop) or hold the loader's lock. The call is made only at
 *    a safe point (safe_point): the thread is outside both, or stopped in
 *    a system call that neither malloc nor the loader makes; otherwise it
 *    runs on for a moment and is stopped again, up to SAFE_TRIES times,
 *    then the attach is refused, nothing changed. attach-inside-malloc
 * Not handled: a main thread that holds such a lock while it runs its own
 * code (a signal handler that interrupted malloc, a callback from inside
 * libc) or waits in futex inside the loader (dlopen running a constructor
 * that waits): the injected call deadlocks, or nests in a dlopen half-way,
 * and the command waits for it, as abandoning dlopen half-way could leave
 * the loader's lock held. */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "attach_seccomp.h"
#include "control.h"
#include "launch.h"
#include "tool.h"

#define AGENT_NAME "libedgeprobe-attach.so"
#define XSTATE_BYTES 16384 /* the largest xsave area (AMX included) fits */

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* The target's /proc/PID/maps, open for reading, or NULL. */
static FILE *open_maps(pid_t pid) {
    char maps[64];
    snprintf(maps, sizeof maps, "/proc/%d/maps", (int)pid);
    return fopen(maps, "r");
}
/* Whether a mapped file's path (from its '/') is the C library. */
static int is_libc(const char *file) { return strstr(file, "/libc.so") || strstr(file, "/libc-"); }
/* The target's C library: its path and the address it is mapped at (the
 * start of its mapping at file offset 0). 0, or -1 when none is mapped. */
static int find_libc(pid_t pid, char *path, size_t n, uint64_t *base) {
    char line[PATH_MAX + 128];
    FILE *f;
    int found = -1;
    if (!(f = open_maps(pid))) return -1;
    while (found && fgets(line, sizeof line, f)) {
        unsigned long long lo, off;
        char *file = strchr(line, '/'), *nl;
        if (!file || sscanf(line, "%llx-%*x %*s %llx", &lo, &off) != 2 || off != 0) continue;
        if ((nl = strchr(file, '\n'))) *nl = 0;
        if (!is_libc(file)) continue;
        snprintf(path, n, "%s", file);
        *base = lo;
        found = 0;
    }
    fclose(f);
    return found;
}
/* The executable mappings of the target's C library and dynamic loader:
 * at most max [lo, hi) ranges; their count, or -1. */
typedef struct { uint64_t lo, hi; } code_range;
static int libc_code(pid_t pid, code_range *out, int max) {
    char line[PATH_MAX + 128];
    FILE *f;
    int n = 0;
    if (!(f = open_maps(pid))) return -1;
    while (n < max && fgets(line, sizeof line, f)) {
        unsigned long long lo, hi;
        char perms[8], *file = strchr(line, '/');
        if (!file || sscanf(line, "%llx-%llx %7s", &lo, &hi, perms) != 3 || perms[2] != 'x') continue;
        if (!is_libc(file) && !strstr(file, "/ld-linux") && !strstr(file, "/ld-2.")) continue;
        out[n].lo = lo, out[n].hi = hi, n++;
    }
    fclose(f);
    return n;
}
/* Is the agent already loaded in the target? */
static int agent_loaded(pid_t pid) {
    char line[PATH_MAX + 128];
    FILE *f;
    int found = 0;
    if (!(f = open_maps(pid))) return 0;
    while (!found && fgets(line, sizeof line, f)) found = strstr(line, "/" AGENT_NAME) != 0;
    fclose(f);
    return found;
}

/* The file offset of the dynamic symbol `name` in an ELF shared object
 * (its st_value: the library's first load segment starts at 0). */
static int dynsym_value(const char *file, const char *name, uint64_t *value) {
    FILE *f = fopen(file, "rb");
    Elf64_Ehdr eh;
    Elf64_Shdr *sh = NULL;
    int rc = -1, i;
    if (!f) return -1;
    if (fread(&eh, sizeof eh, 1, f) != 1 || memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_machine != EM_X86_64 ||
        eh.e_shentsize != sizeof(Elf64_Shdr) || !(sh = calloc(eh.e_shnum, sizeof *sh)) ||
        fseek(f, (long)eh.e_shoff, SEEK_SET) || fread(sh, sizeof *sh, eh.e_shnum, f) != eh.e_shnum)
        goto out;
    for (i = 0; i < eh.e_shnum && rc; i++) {
        Elf64_Shdr *str;
        Elf64_Sym sym;
        char buf[64];
        size_t k, nsym;
        if (sh[i].sh_type != SHT_DYNSYM || sh[i].sh_link >= eh.e_shnum) continue;
        str = &sh[sh[i].sh_link];
        nsym = sh[i].sh_size / sizeof sym;
        for (k = 0; k < nsym && rc; k++) {
            if (fseek(f, (long)(sh[i].sh_offset + k * sizeof sym), SEEK_SET) || fread(&sym, sizeof sym, 1, f) != 1)
                break;
            if (!sym.st_value || ELF64_ST_TYPE(sym.st_info) != STT_FUNC || sym.st_name >= str->sh_size) continue;
            if (fseek(f, (long)(str->sh_offset + sym.st_name), SEEK_SET) || !fgets(buf, sizeof buf, f)) break;
            buf[strnlen(buf, sizeof buf - 1)] = 0;
            if (!strcmp(buf, name)) *value = sym.st_value, rc = 0;
        }
    }
out:
    free(sh);
    fclose(f);
    return rc;
}

/* How waiting for the seized thread ended. */
typedef enum {
    WAIT_STOPPED,   /* a ptrace stop: *status says which */
    WAIT_GONE,      /* it exited, was killed, or an exec by another thread replaced it */
    WAIT_EXITING,   /* PTRACE_EVENT_EXIT: it is exiting (the process, or its main thread) */
    WAIT_EXECED,    /* PTRACE_EVENT_EXEC: it ran exec; the program we looked at is gone */
    WAIT_TIMED_OUT, /* no stop before the deadline */
} wait_end;

/* While the thread is seized, SIGALRM interrupts waitpid every 50 ms (no
 * SA_RESTART): a wait can end at a deadline (a thread in an uninterruptible
 * sleep never stops), and a wait that missed its wake-up looks again. That
 * happens (Linux 6.18, attach-exit-or-exec hung 1 round in 30 without it):
 * when another thread's exec releases the seized one, a waitpid already
 * asleep can sleep on; waitpid called again answers ECHILD. */
static void on_tick(int sig) { (void)sig; }
static void ticking(int on) {
    struct itimerval every = {{0, 50000}, {0, 50000}}, off = {{0, 0}, {0, 0}};
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on ? on_tick : SIG_DFL;
    sigaction(SIGALRM, &sa, 0);
    setitimer(ITIMER_REAL, on ? &every : &off, 0);
}

/* Wait for the seized thread's next stop, until deadline_ms (now_ms()
 * time; 0: no deadline, for a dlopen that may not be abandoned half-way).
 * Ticking (see above) must be on. */
static wait_end wait_stop(pid_t tid, int *status, double deadline_ms) {
    for (;;) {
        if (waitpid(tid, status, __WALL) < 0) {
            if (errno != EINTR) return WAIT_GONE; /* ECHILD: an exec elsewhere released it */
            if (deadline_ms && now_ms() > deadline_ms) return WAIT_TIMED_OUT;
            continue;
        }
        if (WIFEXITED(*status) || WIFSIGNALED(*status)) return WAIT_GONE;
        if ((*status >> 16) == PTRACE_EVENT_EXIT) return WAIT_EXITING;
        if ((*status >> 16) == PTRACE_EVENT_EXEC) return WAIT_EXECED;
        if (WIFSTOPPED(*status)) return WAIT_STOPPED;
    }
}
/* A stop for a signal the thread is about to get (not the interrupt's or
 * a group stop, PTRACE_EVENT_STOP): ours to hand back at the end. */
static int signal_delivery_stop(int status) {
    int sig = WSTOPSIG(status);
    return (status >> 16) == 0 && sig != SIGTRAP;
}

typedef struct {
    struct user_regs_struct regs;
    unsigned char xstate[XSTATE_BYTES];
    struct iovec xv;
} saved_state;

static int state_get(pid_t tid, saved_state *s) {
    s->xv.iov_base = s->xstate;
    s->xv.iov_len = sizeof s->xstate;
    return ptrace(PTRACE_GETREGS, tid, 0, &s->regs) || ptrace(PTRACE_GETREGSET, tid, (void *)NT_X86_XSTATE, &s->xv);
}
static int state_put(pid_t tid, saved_state *s) {
    return ptrace(PTRACE_SETREGS, tid, 0, &s->regs) || ptrace(PTRACE_SETREGSET, tid, (void *)NT_X86_XSTATE, &s->xv);
}

/* Calls that fail with EINTR, not a restart, when a ptrace stop interrupts
 * them (signal(7), "Interruption of system calls and library functions by
 * stop signals"). Seized in one, the thread would return an EINTR the
 * program never had a signal for; -ERESTARTNOHAND in its saved rax makes
 * the kernel restart it as it restarts poll's, or turn it into EINTR if a
 * signal handler does run then. A timeout restarts whole, as poll's would
 * without its restart block. */
#define ERESTARTNOHAND 514 /* kernel-internal: include/linux/errno.h */
static int eintr_on_ptrace_stop(long nr) {
    switch (nr) {
    case SYS_epoll_wait:
    case SYS_epoll_pwait:
#ifdef SYS_epoll_pwait2
    case SYS_epoll_pwait2:
#endif
    case SYS_rt_sigtimedwait:
    case SYS_semop:
    case SYS_semtimedop: return 1;
    }
    return 0;
}
static void restart_if_interrupted(struct user_regs_struct *r) {
    if ((long)r->orig_rax >= 0 && (long)r->rax == -EINTR && eintr_on_ptrace_stop((long)r->orig_rax))
        r->rax = (uint64_t)-ERESTARTNOHAND;
}

/* How the injected call ended. */
typedef enum {
    CALL_RETURNED, /* dlopen returned (*handle: its value, 0 if it failed) */
    CALL_NOT_MADE, /* the call could not be set up, or faulted in dlopen: registers go back */
    CALL_EXITING,  /* the process (or the thread) is exiting, or an exec tears it down */
    CALL_GONE,     /* the thread is gone, or going: ptrace requests fail (ESRCH) */
} call_end;

/* Write the path and the return address 0 below the red zone; the
 * registers that call dlopen(path, RTLD_NOW) and return to 0 into *r. */
static int place_call(pid_t tid, uint64_t dlopen_at, const char *path, const saved_state *saved,
                      struct user_regs_struct *r) {
    size_t len = strlen(path) + 1;
    uint64_t str = (saved->regs.rsp - 128 - len) & ~(uint64_t)15, zero = 0;
    char mem[64];
    int fd, ok;
    snprintf(mem, sizeof mem, "/proc/%d/mem", (int)tid);
    if ((fd = open(mem, O_RDWR)) < 0) return -1;
    *r = saved->regs;
    r->rsp = ((str - 64) & ~(uint64_t)15) - 8; /* as after a call: rsp + 8 is 16-aligned */
    ok = pwrite(fd, path, len, (off_t)str) == (ssize_t)len && pwrite(fd, &zero, 8, (off_t)r->rsp) == 8;
    close(fd);
    r->rip = dlopen_at;
    r->rdi = str;
    r->rsi = 2; /* RTLD_NOW */
    r->rax = 0;
    r->orig_rax = (uint64_t)-1; /* no syscall restart while our call runs */
    return ok ? 0 : -1;
}
/* Call dlopen(path, RTLD_NOW) on the stopped thread tid. *deferred: a
 * signal that arrived meanwhile, to deliver at the end. */
static call_end call_dlopen(pid_t tid, uint64_t dlopen_at, const char *path, const saved_state *saved, int *deferred,
                            long *handle) {
    struct user_regs_struct r;
    int status;
    if (place_call(tid, dlopen_at, path, saved, &r) || ptrace(PTRACE_SETREGS, tid, 0, &r) ||
        ptrace(PTRACE_CONT, tid, 0, 0))
        return errno == ESRCH ? CALL_GONE : CALL_NOT_MADE; /* ESRCH: killed while stopped (an exit or exec) */
    for (;;) {
        int sig;
        switch (wait_stop(tid, &status, 0)) {
        case WAIT_STOPPED: break;
        case WAIT_EXITING:
        case WAIT_EXECED: return CALL_EXITING;
        default: return CALL_GONE;
        }
        sig = WSTOPSIG(status);
        if (sig == SIGSEGV && !ptrace(PTRACE_GETREGS, tid, 0, &r) && r.rip == 0) return *handle = (long)r.rax, CALL_RETURNED;
        if (sig == SIGSEGV || sig == SIGBUS || sig == SIGILL) { /* a fault inside dlopen */
            if (!ptrace(PTRACE_GETREGS, tid, 0, &r))
                fprintf(stderr, "edgeprobe attach: signal %d at 0x%llx in the injected call (seized at 0x%llx, system call %lld)\n",
                        sig, (unsigned long long)r.rip, (unsigned long long)saved->regs.rip, (long long)saved->regs.orig_rax);
            return CALL_NOT_MADE;
        }
        if (signal_delivery_stop(status) && sig != SIGSTOP) *deferred = sig; /* delivered at the end */
        if (ptrace(PTRACE_CONT, tid, 0, 0)) return CALL_GONE;
    }
}

/* The state letter of pid's main thread (/proc/PID/stat: R, S, T...), or 0. */
static char thread_state(pid_t pid) {
    char path[64], buf[512], *paren;
    FILE *f;
    size_t n;
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    if (!(f = fopen(path, "r"))) return 0;
    n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    return (paren = strrchr(buf, ')')) && paren[1] == ' ' ? paren[2] : 0;
}
/* Is pid a live process (not a zombie)? After its seized thread vanished:
 * alive means another thread ran exec and took the pid over. */
static int process_alive(pid_t pid) {
    char state = thread_state(pid);
    return state && state != 'Z' && state != 'X';
}
/* The thread is exiting (PTRACE_EVENT_EXIT): let it go, and tell an exit
 * from an exec by another thread (which tears this one down too). */
static const char *let_exit(pid_t pid) {
    int status;
    ptrace(PTRACE_CONT, pid, 0, 0);
    wait_stop(pid, &status, now_ms() + 2000); /* a main thread that exits alone stays a zombie: bounded */
    ptrace(PTRACE_DETACH, pid, 0, 0);
    return process_alive(pid) ? "ran exec" : "exited";
}
/* The thread is gone, or going: a ptrace request failed with ESRCH (a
 * stopped thread killed by an exit or an exec elsewhere runs on to its
 * end). Wait a bounded time for its last report, and say what happened. */
static const char *why_gone(pid_t pid) {
    int status;
    wait_end end = wait_stop(pid, &status, now_ms() + 2000);
    if (end == WAIT_EXITING) return let_exit(pid);
    if (end == WAIT_STOPPED || end == WAIT_EXECED) ptrace(PTRACE_DETACH, pid, 0, 0);
    return end == WAIT_EXECED || process_alive(pid) ? "ran exec" : "exited";
}
static int report_vanished(pid_t pid, const char *what) {
    fprintf(stderr, "edgeprobe attach: process %d %s during the attach; the agent was not loaded into it\n", (int)pid,
            what);
    return 1;
}

/* A line of /proc/PID/status as a number ("TracerPid"), or -1. */
static long status_field(pid_t pid, const char *name) {
    char path[64], line[256];
    size_t len = strlen(name);
    long v = -1;
    FILE *f;
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    if (!(f = fopen(path, "r"))) return -1;
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, name, len) && line[len] == ':') {
            v = strtol(line + len + 1, 0, 10);
            break;
        }
    fclose(f);
    return v;
}
static void comm_of(pid_t pid, char *out, size_t n) {
    char path[64];
    FILE *f;
    snprintf(path, sizeof path, "/proc/%d/comm", (int)pid);
    snprintf(out, n, "?");
    if ((f = fopen(path, "r"))) {
        if (fgets(out, (int)n, f)) out[strcspn(out, "\n")] = 0;
        fclose(f);
    }
}

/* A main thread we must not run, or cannot seize: 1 (reported), else 0. */
static int refuse_state(pid_t pid) {
    char state = thread_state(pid);
    if (state == 'T') /* the injected call would run a thread of a stopped process */
        fprintf(stderr,
                "edgeprobe attach: process %d is stopped (SIGSTOP, Ctrl-Z): continue it first (kill -CONT %d); "
                "nothing changed\n",
                (int)pid, (int)pid);
    else if (state == 'Z') /* a zombie has no memory to load into, and cannot be seized */
        fprintf(stderr,
                "edgeprobe attach: the main thread of process %d has exited (the process is a zombie, or its main "
                "thread called pthread_exit and the others run on): attach seizes the main thread; nothing "
                "changed\n",
                (int)pid);
    return state == 'T' || state == 'Z';
}

/* Not ours to trace: say why, and what would do. */
#define YAMA_SCOPE "/proc/sys/kernel/yama/ptrace_scope"
static int refuse_trace(pid_t pid, int err) {
    long tracer = status_field(pid, "TracerPid");
    FILE *yama;
    int scope = -1;
    char comm[32];
    if (err == ESRCH) return report_vanished(pid, "exited");
    if (tracer > 0) {
        comm_of((pid_t)tracer, comm, sizeof comm);
        fprintf(stderr,
                "edgeprobe attach: process %d is already traced by process %ld (%s): a debugger or tracer holds it; "
                "detach that first; nothing changed\n",
                (int)pid, tracer, comm);
        return 1;
    }
    if ((yama = fopen(YAMA_SCOPE, "r"))) {
        if (fscanf(yama, "%d", &scope) != 1) scope = -1;
        fclose(yama);
    }
    if (scope > 0)
        fprintf(stderr,
                "edgeprobe attach: cannot trace process %d: %s: Yama's ptrace_scope is %d (" YAMA_SCOPE
                ": 1 lets a process trace only its descendants, 2 only root, 3 no one): run as root, or as the "
                "process's user with ptrace_scope 0 (sysctl kernel.yama.ptrace_scope=0); nothing changed\n",
                (int)pid, strerror(err), scope);
    else
        fprintf(stderr,
                "edgeprobe attach: cannot trace process %d: %s (another user's process%s): run as the process's "
                "user, or as root; nothing changed\n",
                (int)pid, strerror(err), scope == 0 ? "; Yama's ptrace_scope is 0" : "");
    return 1;
}

/* PTRACE_SEIZE (exec and exit reported as events), waiting up to
 * wait_ms while another `edgeprobe attach` holds the process: of two
 * attaches at once, the second goes on when the first is done, finds the
 * agent and says so. Another tracer (a debugger) is not waited for. A
 * refusal with no tracer listed is tried again a few times: the tracer
 * may have let go between the two (an attach at once read as another
 * user's process, once in a test run of five rounds). */
#define SEIZE_UNTRACED_TRIES 3
static int seize_when_free(pid_t pid, double wait_ms) {
    double deadline = now_ms() + wait_ms;
    int untraced = 0;
    for (;;) {
        long tracer;
        char comm[32];
        if (!ptrace(PTRACE_SEIZE, pid, 0, (void *)(long)(PTRACE_O_TRACEEXEC | PTRACE_O_TRACEEXIT))) return 0;
        if (errno != EPERM) return -1;
        if ((tracer = status_field(pid, "TracerPid")) <= 0) {
            if (++untraced >= SEIZE_UNTRACED_TRIES) return errno = EPERM, -1;
            usleep(1000);
            continue;
        }
        comm_of((pid_t)tracer, comm, sizeof comm);
        if (strcmp(comm, "edgeprobe") || now_ms() > deadline) return errno = EPERM, -1;
        usleep(2000);
    }
}

#define STOP_WAIT_MS 5000
/* Stop the seized thread (PTRACE_INTERRUPT) within wait_ms; 0, or 1 when
 * refused (reported). A signal it was about to get goes in *deferred. */
static int stop_thread(pid_t pid, double wait_ms, int *deferred) {
    wait_end end;
    int status;
    if (ptrace(PTRACE_INTERRUPT, pid, 0, 0)) return report_vanished(pid, why_gone(pid));
    end = wait_stop(pid, &status, now_ms() + wait_ms);
    switch (end) {
    case WAIT_STOPPED: break;
    case WAIT_EXITING: return report_vanished(pid, let_exit(pid));
    case WAIT_EXECED: ptrace(PTRACE_DETACH, pid, 0, 0); return report_vanished(pid, "ran exec");
    case WAIT_GONE: return report_vanished(pid, why_gone(pid));
    case WAIT_TIMED_OUT:
        fprintf(stderr,
                "edgeprobe attach: process %d did not stop within %.0f ms (its main thread is in an "
                "uninterruptible sleep?); nothing changed\n",
                (int)pid, wait_ms);
        return 1; /* still seized: released when this command exits */
    }
    if (signal_delivery_stop(status) && WSTOPSIG(status) != SIGSTOP) *deferred = WSTOPSIG(status);
    return 0;
}

/* May the stopped thread be made to call dlopen now? Not while it runs
 * code of the C library or the loader (malloc half-way, the loader's lock),
 * unless it is stopped in a system call (orig_rax >= 0: blocked in one, or
 * just back from one) that malloc and the loader do not make: read, accept,
 * epoll_wait, a futex wait and the sleeps are where a blocked main thread
 * is; mmap, munmap, mremap, brk, madvise and mprotect are malloc's and the
 * loader's own. */
static int safe_point(const struct user_regs_struct *r, const code_range *libc, int n) {
    int i;
    switch ((long)r->orig_rax) {
    case SYS_mmap:
    case SYS_munmap:
    case SYS_mremap:
    case SYS_brk:
    case SYS_madvise:
    case SYS_mprotect: return 0;
    }
    if ((long)r->orig_rax >= 0) return 1;
    for (i = 0; i < n; i++)
        if (r->rip >= libc[i].lo && r->rip < libc[i].hi) return 0;
    return 1;
}
#define SAFE_TRIES 200 /* stops a thread seized at an unsafe point gets */
#define SAFE_RUN_US 300 /* how long it runs on between two */
/* Stop the thread at a safe point (it is stopped now): run it on and stop
 * it again while it is not at one. 0 at one; 1 refused or gone (reported;
 * the thread is released, a signal it was about to get delivered). */
static int stop_at_safe_point(pid_t pid, int *deferred) {
    code_range libc[16];
    struct user_regs_struct r;
    int n = libc_code(pid, libc, 16), tries;
    for (tries = 0; tries < SAFE_TRIES; tries++) {
        if (ptrace(PTRACE_GETREGS, pid, 0, &r)) return report_vanished(pid, why_gone(pid));
        if (safe_point(&r, libc, n)) return 0;
        if (ptrace(PTRACE_CONT, pid, 0, (void *)(intptr_t)*deferred)) return report_vanished(pid, why_gone(pid));
        *deferred = 0; /* delivered now: the thread runs on as it would have */
        usleep(SAFE_RUN_US);
        if (stop_thread(pid, STOP_WAIT_MS, deferred)) return 1;
    }
    ptrace(PTRACE_DETACH, pid, 0, (void *)(intptr_t)*deferred);
    fprintf(stderr,
            "edgeprobe attach: process %d: its main thread was inside the C library or the dynamic loader "
            "(last at 0x%llx) at each of %d stops, where loading the agent could break its heap; nothing "
            "changed, try again\n",
            (int)pid, (unsigned long long)r.rip, SAFE_TRIES);
    return 1;
}

/* Loading the agent is refused under strict seccomp, and under filters
 * that forbid (or that we cannot read to know whether they forbid) a call
 * it makes: a filter's KILL would kill the process. 0: go on. */
static int seccomp_refuses(pid_t pid, uint64_t ip) {
    char why[512];
    int mode = seccomp_mode(pid);
    if (mode == 1) snprintf(why, sizeof why, "it runs in seccomp strict mode (only read, write, exit, sigreturn)");
    else if (mode != 2 || !seccomp_allows_agent(pid, ip, why, sizeof why)) return 0;
    fprintf(stderr, "edgeprobe attach: process %d: %s; the agent cannot be loaded; nothing changed\n", (int)pid, why);
    return 1;
}

/* The seized, stopped thread: load the agent and put everything back. */
static int inject(pid_t pid, uint64_t dlopen_at, const char *lib, int deferred) {
    saved_state *saved = malloc(sizeof *saved);
    long handle = 0;
    double t0 = now_ms(), stall;
    call_end end;
    if (!saved || state_get(pid, saved)) {
        free(saved);
        return report_vanished(pid, why_gone(pid));
    }
    end = call_dlopen(pid, dlopen_at, lib, saved, &deferred, &handle);
    if (end == CALL_EXITING || end == CALL_GONE) {
        free(saved);
        return report_vanished(pid, end == CALL_EXITING ? let_exit(pid) : why_gone(pid));
    }
    restart_if_interrupted(&saved->regs);
    if (state_put(pid, saved)) {
        if (errno == ESRCH) { /* killed while stopped: an exit or exec raced the call's set-up */
            free(saved);
            return report_vanished(pid, why_gone(pid));
        }
        fprintf(stderr, "edgeprobe attach: could not put back the registers of process %d\n", (int)pid);
    }
    ptrace(PTRACE_DETACH, pid, 0, (void *)(intptr_t)deferred);
    stall = now_ms() - t0;
    free(saved);
    if (end != CALL_RETURNED || handle == 0) {
        fprintf(stderr, "edgeprobe attach: dlopen(%s) failed in process %d%s\n", lib, (int)pid,
                end != CALL_RETURNED ? " (the call could not be made)" : "");
        return 1;
    }
    printf("edgeprobe attach: agent loaded into process %d (its main thread stopped %.2f ms)\n", (int)pid, stall);
    return 0;
}

#define SEIZE_WAIT_MS 10000 /* another attach of the same process: it takes milliseconds */

/* Seized: stop it, and load the agent unless another attach has done so
 * meanwhile (none can be half-way now: we hold the process) or seccomp
 * forbids it. */
static int attach_seized(pid_t pid, uint64_t dlopen_at, const char *lib) {
    int deferred = 0, loaded;
    if (stop_thread(pid, STOP_WAIT_MS, &deferred) || stop_at_safe_point(pid, &deferred)) return 1;
    if ((loaded = agent_loaded(pid)) || seccomp_refuses(pid, dlopen_at)) {
        ptrace(PTRACE_DETACH, pid, 0, (void *)(intptr_t)deferred);
        if (loaded) printf("edgeprobe attach: process %d already has the agent; nothing changed\n", (int)pid);
        return !loaded;
    }
    return inject(pid, dlopen_at, lib, deferred);
}

static void usage(FILE *out) { fprintf(out, "usage: edgeprobe " USAGE_ATTACH "\n"); }


int cmd_attach(int argc, char **argv) {
    char lib[PATH_MAX], libc[PATH_MAX];
    uint64_t base = 0, dlopen_off = 0;
    pid_t pid;
    int rc, i;
    const char *lib_arg = NULL;
    if (ctl_help(argc, argv, USAGE_ATTACH)) return 0;
    for (i = 2; i < argc; i++)
        if (!strcmp(argv[i], "--lib") && i + 1 < argc) lib_arg = argv[++i];
        else return usage(stderr), TOOL_EXIT_USAGE;
    if (argc < 2 || (pid = (pid_t)atoi(argv[1])) <= 0) return usage(stderr), TOOL_EXIT_USAGE;
#if !defined(__x86_64__)
    fprintf(stderr, "edgeprobe attach: x86-64 only; nothing changed\n");
    return 1;
#endif
    if (lib_arg) snprintf(lib, sizeof lib, "%s", lib_arg);
    else if (launch_find_library(AGENT_NAME, "EDGEPROBE_ATTACH_LIB", lib, sizeof lib)) {
        fprintf(stderr, "edgeprobe attach: %s not found beside the command (or $EDGEPROBE_ATTACH_LIB)\n", AGENT_NAME);
        return 1;
    }
    if (!realpath(lib, libc)) {
        fprintf(stderr, "edgeprobe attach: %s: %s\n", lib, strerror(errno));
        return 1;
    }
    snprintf(lib, sizeof lib, "%s", libc);
    if (kill(pid, 0) && errno == ESRCH) {
        fprintf(stderr, "edgeprobe attach: no process %d\n", (int)pid);
        return 1;
    }
    if (refuse_state(pid)) return 1;
    { /* readable only by who may trace it (ptrace's own check) */
        FILE *maps = open_maps(pid);
        if (!maps) return refuse_trace(pid, errno);
        fclose(maps);
    }
    if (agent_loaded(pid)) {
        printf("edgeprobe attach: process %d already has the agent; nothing changed\n", (int)pid);
        return 0;
    }
    if (find_libc(pid, libc, sizeof libc, &base) || dynsym_value(libc, "dlopen", &dlopen_off)) {
        fprintf(stderr,
                "edgeprobe attach: process %d has no C library with dlopen mapped (a static program?): "
                "the agent cannot be loaded; nothing changed\n",
                (int)pid);
        return 1;
    }
    if (seccomp_mode(pid) == 1) return seccomp_refuses(pid, 0); /* strict: no need to stop it to know */
    if (seize_when_free(pid, SEIZE_WAIT_MS)) return refuse_trace(pid, errno);
    ticking(1);
    rc = attach_seized(pid, base + dlopen_off, lib);
    ticking(0);
    return rc;
}
