/* edgeprobe attach PID [--lib PATH] - load the attach agent
 * (libedgeprobe-attach.so, tools/attach_agent.c) into a running process
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
 *     go back at the SIGSEGV stop, which we suppress. */
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
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

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

/* The target's C library: its path and the address it is mapped at (the
 * start of its mapping at file offset 0). 0, or -1 when none is mapped. */
static int find_libc(pid_t pid, char *path, size_t n, uint64_t *base) {
    char maps[64], line[PATH_MAX + 128];
    FILE *f;
    int found = -1;
    snprintf(maps, sizeof maps, "/proc/%d/maps", (int)pid);
    if (!(f = fopen(maps, "r"))) return -1;
    while (found && fgets(line, sizeof line, f)) {
        unsigned long long lo, off;
        char *file = strchr(line, '/'), *nl;
        if (!file || sscanf(line, "%llx-%*x %*s %llx", &lo, &off) != 2 || off != 0) continue;
        if ((nl = strchr(file, '\n'))) *nl = 0;
        if (!strstr(file, "/libc.so") && !strstr(file, "/libc-")) continue;
        snprintf(path, n, "%s", file);
        *base = lo;
        found = 0;
    }
    fclose(f);
    return found;
}
/* Is the agent already loaded in the target? */
static int agent_loaded(pid_t pid) {
    char maps[64], line[PATH_MAX + 128];
    FILE *f;
    int found = 0;
    snprintf(maps, sizeof maps, "/proc/%d/maps", (int)pid);
    if (!(f = fopen(maps, "r"))) return 0;
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

/* Wait for the seized thread's next stop; its signal, or -1 if it exited. */
static int wait_stop(pid_t tid, int *status) {
    for (;;) {
        if (waitpid(tid, status, __WALL) < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        if (WIFEXITED(*status) || WIFSIGNALED(*status)) return -1;
        if (WIFSTOPPED(*status)) return WSTOPSIG(*status);
    }
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

/* Call dlopen(path, RTLD_NOW) on the stopped thread tid; the handle, 0 if
 * dlopen failed, or -1 if the call could not be made. *deferred: a signal
 * that arrived meanwhile, to deliver at the end. */
static long call_dlopen(pid_t tid, uint64_t dlopen_at, const char *path, const saved_state *saved, int *deferred) {
    struct user_regs_struct r = saved->regs;
    size_t len = strlen(path) + 1;
    uint64_t str = (saved->regs.rsp - 128 - len) & ~(uint64_t)15, zero = 0;
    char mem[64];
    int fd, sig, status;
    snprintf(mem, sizeof mem, "/proc/%d/mem", (int)tid);
    if ((fd = open(mem, O_RDWR)) < 0) return -1;
    r.rsp = ((str - 64) & ~(uint64_t)15) - 8; /* as after a call: rsp + 8 is 16-aligned */
    if (pwrite(fd, path, len, (off_t)str) != (ssize_t)len || pwrite(fd, &zero, 8, (off_t)r.rsp) != 8) {
        close(fd);
        return -1;
    }
    close(fd);
    r.rip = dlopen_at;
    r.rdi = str;
    r.rsi = 2; /* RTLD_NOW */
    r.rax = 0;
    r.orig_rax = (uint64_t)-1;
    if (ptrace(PTRACE_SETREGS, tid, 0, &r) || ptrace(PTRACE_CONT, tid, 0, 0)) return -1;
    for (;;) {
        if ((sig = wait_stop(tid, &status)) < 0) return -1;
        if (sig == SIGSEGV && !ptrace(PTRACE_GETREGS, tid, 0, &r) && r.rip == 0) return (long)r.rax;
        if (sig == SIGSEGV || sig == SIGBUS || sig == SIGILL) return -1; /* a fault inside dlopen: leave it */
        if ((status >> 16) == 0 && sig != SIGSTOP && sig != SIGTRAP) *deferred = sig; /* delivered at the end */
        if (ptrace(PTRACE_CONT, tid, 0, 0)) return -1;
    }
}

/* Not ours to trace: say why, and what would do. */
static int refuse_trace(pid_t pid, int err) {
    fprintf(stderr,
            "edgeprobe attach: cannot trace process %d: %s (another user's process, or "
            "/proc/sys/kernel/yama/ptrace_scope forbids it: run as the process's user with ptrace_scope 0, "
            "or as root); nothing changed\n",
            (int)pid, strerror(err));
    return 1;
}
static void usage(FILE *out) { fprintf(out, "usage: edgeprobe " USAGE_ATTACH "\n"); }

int cmd_attach(int argc, char **argv) {
    char lib[PATH_MAX], libc[PATH_MAX];
    uint64_t base = 0, dlopen_off = 0;
    saved_state *saved;
    pid_t pid;
    long handle;
    int deferred = 0, status, i;
    double t0, stall;
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
    snprintf(libc, sizeof libc, "/proc/%d/maps", (int)pid);
    if (kill(pid, 0) && errno == ESRCH) {
        fprintf(stderr, "edgeprobe attach: no process %d\n", (int)pid);
        return 1;
    }
    { /* readable only by who may trace it (ptrace's own check) */
        FILE *maps = fopen(libc, "r");
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
    if (ptrace(PTRACE_SEIZE, pid, 0, 0)) return refuse_trace(pid, errno);
    if (!(saved = malloc(sizeof *saved))) return 1;
    t0 = now_ms();
    if (ptrace(PTRACE_INTERRUPT, pid, 0, 0) || wait_stop(pid, &status) < 0 || state_get(pid, saved)) {
        fprintf(stderr, "edgeprobe attach: process %d could not be stopped (it exited?); nothing changed\n", (int)pid);
        ptrace(PTRACE_DETACH, pid, 0, 0);
        free(saved);
        return 1;
    }
    handle = call_dlopen(pid, base + dlopen_off, lib, saved, &deferred);
    if (state_put(pid, saved))
        fprintf(stderr, "edgeprobe attach: could not put back the registers of process %d\n", (int)pid);
    ptrace(PTRACE_DETACH, pid, 0, (void *)(intptr_t)deferred);
    stall = now_ms() - t0;
    free(saved);
    if (handle <= 0) {
        fprintf(stderr, "edgeprobe attach: dlopen(%s) failed in process %d%s\n", lib, (int)pid,
                handle < 0 ? " (the call could not be made)" : "");
        return 1;
    }
    printf("edgeprobe attach: agent loaded into process %d (its main thread stopped %.2f ms)\n", (int)pid, stall);
    return 0;
}
