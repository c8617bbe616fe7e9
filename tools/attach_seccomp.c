/* tools/attach_seccomp.c - may `edgeprobe attach` inject into a process
 * under seccomp?
 *
 * A seccomp filter that forbids one system call the injected dlopen or the
 * agent's thread needs would make the attach fail half-way (an ERRNO
 * action) or kill the process (a KILL action): neither may happen. So the
 * command reads the seized thread's filters (PTRACE_SECCOMP_GET_FILTER:
 * needs CAP_SYS_ADMIN) and runs them here, with a small classic-BPF
 * interpreter, against each call in `needed` below (what strace shows the
 * dlopen, the constructor's pthread_create and the agent's thread doing,
 * with arguments like theirs: a filter may look at mmap's protection bits).
 * Filters stack; as in the kernel, the most severe action of all wins.
 * The agent's thread inherits the seized thread's filters, so these are
 * the ones that count. x86-64 only, as the injection. */
#define _GNU_SOURCE
#include "attach_seccomp.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>

#define MAX_FILTERS 64 /* the kernel allows 32768 instructions in all; more filters than this: refuse */
#define FD 3
#define ADDR 0x7f0000000000ull
#define LEN 4096
#define ARG(x) ((uint64_t)(int64_t)(x)) /* as the kernel reads a register: int -100 is 0xff..9c */

typedef struct {
    const char *name;
    int nr;
    uint64_t args[6];
} needed_call;

/* What the injection and the agent call (strace of a dlopen of the agent:
 * the seized thread, then the agent's thread), one line per kind of use. */
static const needed_call needed[] = {
    {"openat", SYS_openat, {ARG(AT_FDCWD), ADDR, O_RDONLY | O_CLOEXEC}},
    {"read", SYS_read, {FD, ADDR, 832}},
    {"pread64", SYS_pread64, {FD, ADDR, 64, 0}},
    {"newfstatat", SYS_newfstatat, {FD, ADDR, ADDR, AT_EMPTY_PATH}},
    {"fstat", SYS_fstat, {FD, ADDR}},
    {"mmap", SYS_mmap, {0, LEN, PROT_READ, MAP_PRIVATE | MAP_DENYWRITE, FD, 0}},
    {"mmap", SYS_mmap, {ADDR, LEN, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_FIXED | MAP_DENYWRITE, FD, LEN}},
    {"mmap", SYS_mmap, {ADDR, LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED | MAP_ANONYMOUS, ARG(-1), 0}},
    {"mmap", SYS_mmap, {0, LEN, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, ARG(-1), 0}},
    /* the agent's trampoline page, and code pages while a probe is switched */
    {"mmap", SYS_mmap,
     {ADDR, LEN, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS | 0x100000 /* FIXED_NOREPLACE */,
      ARG(-1), 0}},
    {"mprotect", SYS_mprotect, {ADDR, LEN, PROT_READ}},
    {"mprotect", SYS_mprotect, {ADDR, LEN, PROT_READ | PROT_WRITE}},
    {"mprotect", SYS_mprotect, {ADDR, LEN, PROT_READ | PROT_WRITE | PROT_EXEC}},
    {"mprotect", SYS_mprotect, {ADDR, LEN, PROT_READ | PROT_EXEC}},
    {"munmap", SYS_munmap, {ADDR, LEN}},
    {"madvise", SYS_madvise, {ADDR, LEN, MADV_DONTNEED}},
    {"brk", SYS_brk, {0}},
    {"close", SYS_close, {FD}},
    {"rt_sigprocmask", SYS_rt_sigprocmask, {SIG_SETMASK, ADDR, ADDR, 8}},
    {"rt_sigaction", SYS_rt_sigaction, {5 /* SIGTRAP */, ADDR, 0, 8}},
    {"clone3", SYS_clone3, {ADDR, 88}}, /* checked apart: see clone_allowed */
    {"rseq", SYS_rseq, {ADDR, 32, 0, 0x53053053}},
    {"set_robust_list", SYS_set_robust_list, {ADDR, 24}},
    {"getrandom", SYS_getrandom, {ADDR, 8, 1 /* GRND_NONBLOCK */}},
    {"membarrier", SYS_membarrier, {8 /* REGISTER_PRIVATE_EXPEDITED */}},
    {"membarrier", SYS_membarrier, {0 /* QUERY */}},
    {"membarrier", SYS_membarrier, {64 /* REGISTER_PRIVATE_EXPEDITED_SYNC_CORE */}},
    {"sysinfo", SYS_sysinfo, {ADDR}},
    {"readlink", SYS_readlink, {ADDR, ADDR, 4095}},
    {"getpid", SYS_getpid, {0}},
    {"geteuid", SYS_geteuid, {0}},
    {"mkdir", SYS_mkdir, {ADDR, 0700}},
    {"unlink", SYS_unlink, {ADDR}},
    {"socket", SYS_socket, {AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0}},
    {"bind", SYS_bind, {FD, ADDR, 110}},
    {"listen", SYS_listen, {FD, 64}},
    {"poll", SYS_poll, {ADDR, 1, 1000}},
    {"accept4", SYS_accept4, {FD, 0, 0, SOCK_NONBLOCK | SOCK_CLOEXEC}},
    {"getsockopt", SYS_getsockopt, {FD, SOL_SOCKET, SO_PEERCRED, ADDR, ADDR}},
    {"write", SYS_write, {FD, ADDR, 64}},
    {"exit", SYS_exit, {0}},
};
/* Calls whose caller goes on when they fail: an ERRNO action does no harm,
 * only one that kills or traps. Pages brought in ahead with one call (the
 * profiler's records, a text to switch): refused, they fault in one at a
 * time. */
static const needed_call may_fail[] = {
    {"madvise", SYS_madvise, {ADDR, LEN, 23 /* MADV_POPULATE_WRITE */}},
};

int seccomp_mode(pid_t pid) {
    char path[64], line[256];
    int mode = -1;
    FILE *f;
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    if (!(f = fopen(path, "r"))) return -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "Seccomp: %d", &mode) == 1) break;
    fclose(f);
    return mode;
}

/* ---- a classic-BPF interpreter for seccomp filters ------------------------ */
/* A 32-bit word of the seccomp_data at byte offset off (the only load a
 * seccomp filter may make); -1 if off is not one. */
static int data_word(const struct seccomp_data *d, uint32_t off, uint32_t *w) {
    if (off % 4 || off + 4 > sizeof *d) return -1;
    memcpy(w, (const char *)d + off, 4);
    return 0;
}
static int alu(uint16_t op, uint32_t a, uint32_t v, uint32_t *out) {
    switch (op) {
    case BPF_ADD: *out = a + v; return 0;
    case BPF_SUB: *out = a - v; return 0;
    case BPF_MUL: *out = a * v; return 0;
    case BPF_DIV: *out = v ? a / v : 0; return v ? 0 : -1;
    case BPF_MOD: *out = v ? a % v : 0; return v ? 0 : -1;
    case BPF_AND: *out = a & v; return 0;
    case BPF_OR: *out = a | v; return 0;
    case BPF_XOR: *out = a ^ v; return 0;
    case BPF_LSH: *out = v < 32 ? a << v : 0; return 0;
    case BPF_RSH: *out = v < 32 ? a >> v : 0; return 0;
    case BPF_NEG: *out = -a; return 0;
    }
    return -1;
}
static int jump_taken(uint16_t op, uint32_t a, uint32_t v) {
    switch (op) {
    case BPF_JEQ: return a == v;
    case BPF_JGT: return a > v;
    case BPF_JGE: return a >= v;
    case BPF_JSET: return (a & v) != 0;
    }
    return -1;
}
/* The action filter f[n] returns for d; -1 for an instruction a seccomp
 * filter cannot hold (the kernel checked it when it was loaded: a sign that
 * this reading is wrong). A division by zero makes the kernel's filter
 * return 0, SECCOMP_RET_KILL_THREAD; so does this. */
static int64_t run_filter(const struct sock_filter *f, unsigned n, const struct seccomp_data *d) {
    uint32_t a = 0, x = 0, mem[BPF_MEMWORDS] = {0};
    unsigned pc;
    for (pc = 0; pc < n; pc++) {
        const struct sock_filter *i = &f[pc];
        uint32_t v = BPF_SRC(i->code) == BPF_X ? x : i->k;
        int t;
        switch (BPF_CLASS(i->code)) {
        case BPF_LD:
        case BPF_LDX: {
            uint32_t *r = BPF_CLASS(i->code) == BPF_LD ? &a : &x;
            if (BPF_MODE(i->code) == BPF_ABS && BPF_CLASS(i->code) == BPF_LD && BPF_SIZE(i->code) == BPF_W) {
                if (data_word(d, i->k, r)) return -1;
            } else if (BPF_MODE(i->code) == BPF_IMM) *r = i->k;
            else if (BPF_MODE(i->code) == BPF_MEM && i->k < BPF_MEMWORDS) *r = mem[i->k];
            else if (BPF_MODE(i->code) == BPF_LEN) *r = sizeof *d;
            else return -1;
            break;
        }
        case BPF_ST:
        case BPF_STX:
            if (i->k >= BPF_MEMWORDS) return -1;
            mem[i->k] = BPF_CLASS(i->code) == BPF_ST ? a : x;
            break;
        case BPF_ALU:
            if (alu(BPF_OP(i->code), a, v, &a)) return BPF_OP(i->code) == BPF_DIV || BPF_OP(i->code) == BPF_MOD ? 0 : -1;
            break;
        case BPF_JMP:
            if (BPF_OP(i->code) == BPF_JA) pc += i->k;
            else if ((t = jump_taken(BPF_OP(i->code), a, v)) < 0) return -1;
            else pc += t ? i->jt : i->jf;
            break;
        case BPF_RET: return BPF_RVAL(i->code) == BPF_A ? a : i->k;
        case BPF_MISC:
            if (BPF_MISCOP(i->code) == BPF_TAX) x = a;
            else a = x;
            break;
        default: return -1;
        }
    }
    return -1; /* ran off the end */
}

/* ---- the thread's filters --------------------------------------------------- */
typedef struct {
    struct sock_filter *insns[MAX_FILTERS];
    unsigned len[MAX_FILTERS], count;
} filter_stack;

static void filters_free(filter_stack *s) {
    while (s->count) free(s->insns[--s->count]);
}
/* Every filter of tid (stopped): 0, or -1 with errno (EACCES: no
 * CAP_SYS_ADMIN; EINVAL: a kernel without CONFIG_CHECKPOINT_RESTORE). */
static int filters_read(pid_t tid, filter_stack *s) {
    long n;
    s->count = 0;
    for (;;) {
        if ((n = ptrace(PTRACE_SECCOMP_GET_FILTER, tid, (void *)(long)s->count, 0)) < 0)
            return errno == ENOENT && s->count ? 0 : -1;
        if (s->count == MAX_FILTERS) return errno = E2BIG, -1;
        if (!(s->insns[s->count] = calloc((size_t)n, sizeof(struct sock_filter)))) return -1;
        s->len[s->count] = (unsigned)n;
        if (ptrace(PTRACE_SECCOMP_GET_FILTER, tid, (void *)(long)s->count, s->insns[s->count]) != n) {
            free(s->insns[s->count]);
            return -1;
        }
        s->count++;
    }
}
/* What all filters together do to d: the most severe action (the kernel
 * compares the actions as signed numbers, KILL_PROCESS lowest), or -1. */
static int64_t filters_run(const filter_stack *s, const struct seccomp_data *d) {
    int64_t worst = SECCOMP_RET_ALLOW, r;
    unsigned i;
    for (i = 0; i < s->count; i++) {
        if ((r = run_filter(s->insns[i], s->len[i], d)) < 0) return -1;
        if ((int32_t)(r & SECCOMP_RET_ACTION_FULL) < (int32_t)(worst & SECCOMP_RET_ACTION_FULL)) worst = r;
    }
    return worst;
}
static int64_t action_for(const filter_stack *s, const needed_call *c, uint64_t ip) {
    struct seccomp_data d;
    memset(&d, 0, sizeof d);
    d.nr = c->nr;
    d.arch = AUDIT_ARCH_X86_64;
    d.instruction_pointer = ip;
    memcpy(d.args, c->args, sizeof d.args);
    return filters_run(s, &d);
}
static int allowed(int64_t action) {
    uint32_t a = (uint32_t)action & SECCOMP_RET_ACTION_FULL;
    return action >= 0 && (a == SECCOMP_RET_ALLOW || a == SECCOMP_RET_LOG);
}
/* What the action does to the call, for the message. */
static void describe(int64_t action, char *out, size_t n) {
    uint32_t a = (uint32_t)action & SECCOMP_RET_ACTION_FULL, data = (uint32_t)action & SECCOMP_RET_DATA;
    if (action < 0) snprintf(out, n, "cannot be evaluated here");
    else if (a == SECCOMP_RET_KILL_PROCESS) snprintf(out, n, "kills the process");
    else if (a == SECCOMP_RET_KILL_THREAD) snprintf(out, n, "kills the thread");
    else if (a == SECCOMP_RET_TRAP) snprintf(out, n, "raises SIGSYS");
    else if (a == SECCOMP_RET_ERRNO) snprintf(out, n, "fails with %s", strerror((int)data));
    else if (a == SECCOMP_RET_USER_NOTIF) snprintf(out, n, "is decided by a seccomp supervisor");
    else if (a == SECCOMP_RET_TRACE) snprintf(out, n, "is handed to a tracer");
    else snprintf(out, n, "gets action 0x%08x", (unsigned)action);
}
/* An ERRNO action: the call fails, and the process goes on. */
static int fails(int64_t action) { return action >= 0 && ((uint32_t)action & SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_ERRNO; }
/* clone3 may fail with ENOSYS where clone is allowed: glibc then uses
 * clone (container runtimes' default profiles do this). */
static int clone_allowed(const filter_stack *s, int64_t clone3_action, uint64_t ip) {
    static const needed_call clone_call = {
        "clone", SYS_clone, {0x3d0f00 /* CLONE_VM|FS|FILES|SIGHAND|THREAD|SYSVSEM|SETTLS|PARENT_SETTID|CHILD_CLEARTID */}};
    if (allowed(clone3_action)) return 1;
    return fails(clone3_action) && ((uint32_t)clone3_action & SECCOMP_RET_DATA) == ENOSYS &&
           allowed(action_for(s, &clone_call, ip));
}

int seccomp_allows_agent(pid_t tid, uint64_t ip, char *why, size_t n) {
    filter_stack s;
    char what[96];
    size_t i;
    int rc = 0;
    if (filters_read(tid, &s)) {
        int err = errno;
        filters_free(&s);
        snprintf(why, n,
                 "its seccomp filters cannot be read (PTRACE_SECCOMP_GET_FILTER: %s; it needs CAP_SYS_ADMIN: "
                 "run edgeprobe attach as root), so whether they allow what the agent needs is unknown, and a "
                 "filter that kills on a forbidden call would kill the process",
                 strerror(err));
        return 1;
    }
    for (i = 0; i < sizeof needed / sizeof *needed + sizeof may_fail / sizeof *may_fail && !rc; i++) {
        int tolerant = i >= sizeof needed / sizeof *needed;
        const needed_call *c = tolerant ? &may_fail[i - sizeof needed / sizeof *needed] : &needed[i];
        int64_t act = action_for(&s, c, ip);
        if (c->nr == SYS_clone3 ? clone_allowed(&s, act, ip) : allowed(act) || (tolerant && fails(act))) continue;
        describe(act, what, sizeof what);
        snprintf(why, n, "its seccomp filter forbids %s, which loading the agent needs (the filter %s)", c->name, what);
        rc = 1;
    }
    filters_free(&s);
    return rc;
}
