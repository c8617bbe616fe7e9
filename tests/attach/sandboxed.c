/* A process under seccomp, its main thread blocked in read() on FIFO:
 *     sandboxed eperm|kill|clone3|populate-eperm|populate-kill|strict FIFO
 * eperm: a filter that fails openat with EPERM (the injected dlopen opens
 * the agent: it would fail half-way); kill: one that kills the process on
 * openat (the injection would kill it); clone3: one that fails clone3 with
 * ENOSYS, as container runtimes' default profiles do (glibc then uses
 * clone: the agent loads); populate-eperm, populate-kill: ones that fail
 * madvise(MADV_POPULATE_WRITE) with EPERM (the agent goes on without: it
 * loads), or kill the process on it (refused); strict: SECCOMP_MODE_STRICT (read, write, exit,
 * sigreturn). It prints "read ok: LINE" when its read gets the line and
 * exits (strict: with exit(2), the only exit strict mode allows). */
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define NR_OFFSET offsetof(struct seccomp_data, nr)
#define ARCH_OFFSET offsetof(struct seccomp_data, arch)

#define ARG2_OFFSET offsetof(struct seccomp_data, args[2]) /* its low half, on x86-64 */
#define ARCH_CHECK                                                             \
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARCH_OFFSET),                           \
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),          \
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS)

static int install(struct sock_filter *insns, unsigned short n) {
    struct sock_fprog prog = {n, insns};
    return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}
/* Allow everything but the call nr, which gets action. */
static int forbid(int nr, unsigned action) {
    struct sock_filter insns[] = {
        ARCH_CHECK,
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, NR_OFFSET),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nr, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, action),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    return install(insns, sizeof insns / sizeof *insns);
}
/* Allow everything but the call nr with third argument arg2. */
static int forbid_arg2(int nr, unsigned arg2, unsigned action) {
    struct sock_filter insns[] = {
        ARCH_CHECK,
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, NR_OFFSET),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nr, 0, 3),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG2_OFFSET),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, arg2, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, action),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    return install(insns, sizeof insns / sizeof *insns);
}
static int sandbox(const char *mode) {
    if (!strcmp(mode, "eperm")) return forbid(SYS_openat, SECCOMP_RET_ERRNO | 1 /* EPERM */);
    if (!strcmp(mode, "kill")) return forbid(SYS_openat, SECCOMP_RET_KILL_PROCESS);
    if (!strcmp(mode, "clone3")) return forbid(SYS_clone3, SECCOMP_RET_ERRNO | 38 /* ENOSYS */);
    if (!strcmp(mode, "populate-eperm")) return forbid_arg2(SYS_madvise, 23 /* MADV_POPULATE_WRITE */, SECCOMP_RET_ERRNO | 1);
    if (!strcmp(mode, "populate-kill")) return forbid_arg2(SYS_madvise, 23, SECCOMP_RET_KILL_PROCESS);
    if (!strcmp(mode, "strict")) return prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT);
    return -1;
}
int main(int argc, char **argv) {
    char buf[80] = "read ok: ";
    size_t head = strlen(buf);
    ssize_t n;
    int fd;
    if (argc != 3 || (fd = open(argv[2], O_RDWR)) < 0) return 2; /* O_RDWR: no wait for a writer */
    printf("ready\n");
    fflush(stdout);
    if (sandbox(argv[1])) return perror("seccomp"), 2;
    n = read(fd, buf + head, sizeof buf - head - 1);
    if (n > 0 && write(1, buf, head + (size_t)n) < 0) n = -1;
    if (!strcmp(argv[1], "strict")) syscall(SYS_exit, n > 0 ? 0 : 1);
    return n > 0 ? 0 : 1;
}
