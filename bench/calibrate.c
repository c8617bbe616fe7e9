/* calibrate.c - measure Tmax on this machine (paper "Living on the Edge",
 * section 8.1, Figure 9), and show that the harness can detect failure.
 *
 * A patcher thread toggles a cache-line-straddling 5-byte `call rel32`
 * between the call and NOP5 (0f 1f 44 00 00) while executor threads run it
 * in a tight loop. For every protocol mode, wait W and split S (bytes of the
 * call before the 64-byte line boundary, 1..4) the test runs in a fork()ed
 * child, so a crash (SIGILL, SIGSEGV, SIGBUS, SIGTRAP, or a register check
 * that fails and executes ud2) is counted as a failure and the sweep goes on.
 *
 * Modes:
 *   tmax       the straddler protocol of edgeprobe_patch() with
 *              edgeprobe_set_tmax(W): int3 lock, wait W, back bytes, wait W,
 *              front bytes. Swept over W. This is Figure 9.
 *   serialize  edgeprobe_set_sync(EDGEPROBE_SYNC_SERIALIZE): membarrier
 *              SYNC_CORE in place of each wait (W is ignored).
 *   nolock     deliberately broken: plain stores of the back bytes, then
 *              (after W ticks, default 0) the front bytes. No int3.
 *   bytewise   deliberately broken: five single-byte stores, front to back.
 *
 * Making a wrong instruction crash. The call displacement is chosen so that
 * every mixed instruction that is not a harmless NOP traps:
 *   rel32 = 0x0f0b0f0b, bytes 0b 0f 0b 0f; call = e8 0b 0f 0b 0f
 *   S=1  e8|1f 44 00 00  call +0x441f   -> PROT_NONE guard: SIGSEGV
 *        0f|0b 0f 0b 0f  ud2            -> SIGILL
 *   S=2  e8 0b|44 00 00  call +0x440b   -> guard: SIGSEGV
 *        0f 1f|0f 0b 0f  nopl [rdi]; or ecx,[rdi]  (rdi poisoned) -> SIGSEGV
 *   S=3  e8 0b 0f|00 00  call +0x0f0b   -> guard: SIGSEGV
 *        0f 1f 44|0b 0f  a 5-byte NOP: harmless (cannot be detected)
 *   S=4  e8 0b 0f 0b|00  call +0xb0f0b  -> guard: SIGSEGV
 *        0f 1f 44 00|0f  a 5-byte NOP: harmless
 * The code page sits at the start of a 4 MiB PROT_NONE reservation and is
 * filled with ud2; the real target (inc a counter; ret) is a page mapped at
 * exactly site+5+rel32. The executor loop poisons rax, rcx, rdx, rsi, rdi,
 * r8-r11 with a non-canonical address before the site and checks them after
 * it (ud2 on a mismatch), so a mixed instruction that silently did something
 * else is also caught.
 *
 * Output: a table of failures per wait and split (with, for each crash, the
 * instruction that was executed, from the child's fault handler), the
 * broken-mode and serialize-mode results, and the recommended value as
 * EDGEPROBE_TMAX=<ticks> (also written to <outdir>/tmax.env):
 *     max(margin x (largest failing wait + step), floor)
 * with margin 3 and floor 3000 (the paper's value) by default. Run with
 * --help for the knobs.
 *
 * Build: gcc -O2 -Iinclude -pthread bench/calibrate.c -o build/calibrate
 */
#define _GNU_SOURCE
#define EDGEPROBE_IMPLEMENTATION /* this program's one copy of the implementation */
#include "edgeprobe.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

#define LINE 64
#define PAGE 4096
#define RESERVE (4u << 20)          /* PROT_NONE guard around the code page   */
#define REL32 0x0f0b0f0bu           /* see the table above                    */
#define POISON 0xdead00000000beefULL /* non-canonical: any access through it faults */
#define BOUNDARY_OFF 0x200          /* the line boundary the site straddles   */
#define ENTRY_OFF 0x100             /* body entry point in the code page      */

enum mode { M_TMAX, M_SERIALIZE, M_NOLOCK, M_BYTEWISE, M_COUNT };
static const char *mode_name[M_COUNT] = {"tmax", "serialize", "nolock", "bytewise"};

/* ---- options ----------------------------------------------------------- */
static struct {
    long wmin, wmax, wstep;
    double secs;            /* per case                                   */
    long toggles;           /* per case, 0 = bounded by time only         */
    int reps;               /* repetitions of every (W, S) case           */
    int executors;          /* 0 = all cores but one (at least 1)         */
    double margin;
    long floor_ticks;
    int splits[4], nsplits;
    int modes[M_COUNT];
    int broken_reps;
    long broken_wait;
    const char *outdir;
    int verbose;
} opt = {0, 3 * EDGEPROBE_TMAX_DEFAULT, EDGEPROBE_TMAX_DEFAULT / 10, 0.75, 0, 2, 0, 3.0, 3000, {1, 2, 3, 4}, 4, {1, 1, 1, 1}, 3, 0, "bench/out/patch", 0};

/* ---- results shared between a case's child and the parent --------------- */
typedef struct {
    volatile uint64_t toggles;      /* completed toggles (patcher)             */
    volatile uint64_t execs;        /* site executions (executors, in blocks)  */
    volatile uint64_t calls;        /* calls that reached the target          */
    volatile uint64_t ticks;        /* patcher time                            */
    volatile int patch_err;         /* first edgeprobe error, 0 if none        */
    volatile int ready;
    /* the first crash, recorded by the child's fault handler */
    volatile int crash_sig;
    volatile uint64_t crash_rip, crash_addr, crash_top; /* top: [rsp] */
    volatile uint64_t site, fail_label;
    volatile unsigned char crash_bytes[5];              /* site bytes then  */
} shared_t;
static shared_t *sh;

static inline uint64_t rdtsc(void) {
    uint32_t lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return ((uint64_t)hi << 32) | lo;
}
static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}
static double tsc_hz;
static void measure_tsc(void) {
    double t0 = now_s();
    uint64_t c0 = rdtsc();
    while (now_s() - t0 < 0.05) {}
    tsc_hz = (double)(rdtsc() - c0) / (now_s() - t0);
}

static void pin(int cpu) {
    cpu_set_t set;
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    CPU_ZERO(&set);
    CPU_SET(cpu % (n > 0 ? n : 1), &set);
    sched_setaffinity(0, sizeof set, &set); /* best effort */
}

/* ---- code generation ---------------------------------------------------- */
typedef struct {
    unsigned char *page;   /* code page (RWX), first page of the reservation */
    unsigned char *site;   /* the straddling call                            */
    unsigned char *target; /* inc [counter]; ret                             */
    volatile uint64_t *counter;
    void (*body)(uint64_t n);
    unsigned char call[5], nop[5];
} code_t;

static unsigned char *put(unsigned char *p, const void *b, size_t n) {
    memcpy(p, b, n);
    return p + n;
}
static unsigned char *put_rel32(unsigned char *p, const unsigned char *target) {
    int32_t rel = (int32_t)(target - (p + 4));
    return put(p, &rel, 4);
}

/* Build the executor body for split S:
 *   entry:  push r12; push r13; mov r12, rdi; movabs r13, POISON; jmp loop
 *   loop:   mov {rax,rcx,rdx,rsi,rdi,r8,r9,r10,r11}, r13
 *   site:   <call or NOP5, straddling the boundary with S bytes in front>
 *           cmp {each}, r13; jne fail
 *           dec r12; jnz loop; pop r13; pop r12; ret
 *   fail:   ud2 */
static int build(code_t *c, int S) {
    static const int regs[9] = {0, 1, 2, 6, 7, 8, 9, 10, 11}; /* rax rcx rdx rsi rdi r8-r11 */
    int attempt;
    for (attempt = 0; attempt < 16; attempt++) {
        unsigned char *res = mmap(NULL, RESERVE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        unsigned char *p, *loop, *fail, *jfix[10], *tpage;
        uintptr_t t;
        int i, nj = 0;
        if (res == MAP_FAILED) return -1;
        if (mprotect(res, PAGE, PROT_READ | PROT_WRITE | PROT_EXEC)) return -1;
        c->page = res;
        c->site = res + BOUNDARY_OFF - S;
        t = (uintptr_t)(c->site + 5) + REL32;
        tpage = mmap((void *)(t & ~(uintptr_t)(PAGE - 1)), PAGE, PROT_READ | PROT_WRITE | PROT_EXEC,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
        if (tpage == MAP_FAILED || tpage != (void *)(t & ~(uintptr_t)(PAGE - 1))) {
            if (tpage != MAP_FAILED) munmap(tpage, PAGE);
            /* keep `res` mapped so the next attempt lands elsewhere */
            continue;
        }
        /* target: inc qword [rip+disp]; ret. Counter away from the code. */
        memset(tpage, 0xc3, PAGE);
        c->target = (unsigned char *)t;
        c->counter = (volatile uint64_t *)(tpage + ((t & (PAGE - 1)) < PAGE / 2 ? PAGE - 64 : 64));
        *c->counter = 0;
        p = c->target;
        p = put(p, "\x48\xff\x05", 3);
        p = put_rel32(p, (const unsigned char *)c->counter);
        *p = 0xc3;
        /* code page: ud2 everywhere */
        for (i = 0; i < PAGE; i += 2) res[i] = 0x0f, res[i + 1] = 0x0b;
        loop = c->site - 9 * 3;
        fail = res + PAGE - 64;
        /* entry */
        p = res + ENTRY_OFF;
        c->body = (void (*)(uint64_t))(void *)p;
        p = put(p, "\x41\x54\x41\x55\x49\x89\xfc\x49\xbd", 9);
        {
            uint64_t v = POISON;
            p = put(p, &v, 8);
        }
        *p++ = 0xe9;
        p = put_rel32(p, loop);
        /* loop: poison */
        p = loop;
        for (i = 0; i < 9; i++) {
            unsigned char ins[3] = {(unsigned char)(0x4c | (regs[i] >= 8)), 0x89,
                                    (unsigned char)(0xe8 | (regs[i] & 7))};
            p = put(p, ins, 3);
        }
        /* site: starts as the call */
        c->call[0] = 0xe8;
        {
            uint32_t rel = REL32;
            memcpy(c->call + 1, &rel, 4);
        }
        memcpy(c->nop, "\x0f\x1f\x44\x00\x00", 5);
        p = put(p, c->call, 5);
        /* checks */
        for (i = 0; i < 9; i++) {
            unsigned char ins[3] = {(unsigned char)(0x4c | (regs[i] >= 8)), 0x39,
                                    (unsigned char)(0xe8 | (regs[i] & 7))};
            p = put(p, ins, 3);
            p = put(p, "\x0f\x85", 2);
            jfix[nj++] = p;
            p = put_rel32(p, fail);
        }
        p = put(p, "\x49\xff\xcc\x0f\x85", 5); /* dec r12; jnz loop */
        p = put_rel32(p, loop);
        p = put(p, "\x41\x5d\x41\x5c\xc3", 5);  /* pop r13; pop r12; ret */
        (void)jfix;
        (void)nj;
        if (p >= fail) return -1;
        return 0;
    }
    return -1;
}

/* ---- one case, in a child process -------------------------------------- */
static code_t code;
static volatile int stop_flag;

static void *executor(void *arg) {
    int cpu = (int)(intptr_t)arg;
    pin(cpu);
    __atomic_fetch_add(&sh->ready, 1, __ATOMIC_SEQ_CST);
    while (!stop_flag) {
        code.body(1024);
        __atomic_fetch_add(&sh->execs, 1024, __ATOMIC_RELAXED);
    }
    return NULL;
}

/* Record where a crash happened, then die of the same signal. */
static void on_fault(int sig, siginfo_t *si, void *ucv) {
    ucontext_t *uc = (ucontext_t *)ucv;
    if (__atomic_exchange_n(&sh->crash_sig, sig, __ATOMIC_SEQ_CST) == 0) {
        uint64_t rsp = (uint64_t)uc->uc_mcontext.gregs[REG_RSP];
        int i;
        sh->crash_rip = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
        sh->crash_addr = (uint64_t)(uintptr_t)si->si_addr;
        sh->crash_top = rsp ? *(volatile uint64_t *)(uintptr_t)rsp : 0;
        for (i = 0; i < 5; i++) sh->crash_bytes[i] = code.site[i];
    }
    /* die of this signal now: re-executing would meet whatever the patcher
     * has written since */
    signal(sig, SIG_DFL);
    raise(sig);
}
static void install_fault_recorder(void) {
    static const int sigs[3] = {SIGSEGV, SIGILL, SIGBUS};
    struct sigaction sa;
    int i;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_RESETHAND;
    for (i = 0; i < 3; i++) sigaction(sigs[i], &sa, NULL);
}

/* What a crash says about the instruction that was executed. */
static void describe_crash(char *out, size_t n) {
    uint64_t site = sh->site, rip = sh->crash_rip;
    if (!sh->crash_sig) {
        snprintf(out, n, "no fault recorded");
    } else if (sh->crash_top == site + 5 && rip != site + 5 + REL32) {
        snprintf(out, n, "mixed call: rel32 0x%llx (a front/back mix), pushed site+5",
                 (unsigned long long)(rip - (site + 5)));
    } else if (rip == site) {
        snprintf(out, n, "ud2 at the site: nop front + call back (0f|0b..)");
    } else if (rip == site + 3) {
        snprintf(out, n, "'or ecx,[rdi]' inside the site: nop front + call back (0f 1f|0f 0b..)");
    } else if (rip == sh->fail_label) {
        snprintf(out, n, "register check failed after the site");
    } else {
        snprintf(out, n, "rip site%+lld addr 0x%llx top 0x%llx", (long long)(rip - site),
                 (unsigned long long)sh->crash_addr, (unsigned long long)sh->crash_top);
    }
}

static void plain_write(volatile unsigned char *dst, const unsigned char *src, size_t n) {
    size_t i;
    for (i = 0; i < n; i++) dst[i] = src[i];
}

static int run_child(enum mode m, long wait, int S, int nexec) {
    pthread_t th[64];
    int i, on = 1, rc;
    uint64_t deadline, t0;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    if (build(&code, S)) return 90;
    sh->site = (uint64_t)(uintptr_t)code.site;
    sh->fail_label = (uint64_t)(uintptr_t)(code.page + PAGE - 64);
    install_fault_recorder();
    pin(0);
    /* the Tmax protocol is an opt-in (serialising mode is the default) */
    if (m == M_TMAX && (edgeprobe_set_sync(EDGEPROBE_SYNC_TMAX) < 0 || edgeprobe_set_tmax((uint64_t)wait) < 0)) return 91;
    if (m == M_SERIALIZE && (rc = edgeprobe_set_sync(EDGEPROBE_SYNC_SERIALIZE)) < 0) {
        sh->patch_err = rc;
        return 92;
    }
    for (i = 0; i < nexec; i++)
        if (pthread_create(&th[i], NULL, executor, (void *)(intptr_t)(ncpu > 1 ? 1 + i % (ncpu - 1) : 0)))
            return 93;
    while (sh->ready < nexec || sh->execs == 0) sched_yield();
    t0 = rdtsc();
    deadline = t0 + (uint64_t)(opt.secs * tsc_hz);
    for (;;) {
        const unsigned char *want = on ? code.nop : code.call; /* starts as the call */
        int front = S;
        uint64_t t = rdtsc();
        if (t >= deadline || (opt.toggles && sh->toggles >= (uint64_t)opt.toggles)) break;
        switch (m) {
        case M_TMAX:
        case M_SERIALIZE:
            rc = edgeprobe_patch(code.site, want, 5);
            if (rc < 0) {
                sh->patch_err = rc;
                stop_flag = 1;
                return 94;
            }
            break;
        case M_NOLOCK: /* back, wait, front: no int3 */
            plain_write(code.site + front, want + front, 5 - front);
            while (rdtsc() - t < (uint64_t)wait) __asm__ volatile("pause");
            plain_write(code.site, want, front);
            break;
        case M_BYTEWISE:
            plain_write(code.site, want, 5);
            break;
        default: break;
        }
        on = !on;
        sh->toggles++;
    }
    sh->ticks = rdtsc() - t0;
    stop_flag = 1;
    for (i = 0; i < nexec; i++) pthread_join(th[i], NULL);
    sh->calls = *code.counter;
    return 0;
}

typedef struct {
    int sig;           /* 0 = survived                       */
    int exit_code;     /* child's exit code when sig == 0     */
    uint64_t toggles, execs, calls, ticks;
    int patch_err;
    char why[160];
} result_t;

static result_t run_case(enum mode m, long wait, int S, int nexec) {
    result_t r;
    pid_t pid;
    int status = 0;
    memset((void *)sh, 0, sizeof *sh);
    memset(&r, 0, sizeof r);
    fflush(NULL);
    pid = fork();
    if (pid < 0) {
        perror("fork");
        exit(2);
    }
    if (pid == 0) {
        alarm((unsigned)(opt.secs + 20)); /* a hang ends as SIGALRM: a failure too */
        _exit(run_child(m, wait, S, nexec));
    }
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    if (WIFSIGNALED(status)) r.sig = WTERMSIG(status);
    else r.exit_code = WEXITSTATUS(status);
    r.toggles = sh->toggles;
    r.execs = sh->execs;
    r.calls = sh->calls;
    r.ticks = sh->ticks;
    r.patch_err = sh->patch_err;
    if (r.sig) describe_crash(r.why, sizeof r.why);
    return r;
}

/* Crashes of the sweep, listed after the table. */
static char crash_notes[8192];
static void crash_notes_add(long w, int S, uint64_t toggles, const char *sig, const char *why) {
    size_t l = strlen(crash_notes);
    if (l + 200 < sizeof crash_notes)
        snprintf(crash_notes + l, sizeof crash_notes - l, "  wait %ld, S=%d: %s after %llu toggles: %s\n", w, S, sig,
                 (unsigned long long)toggles, why);
}

static const char *signame(int s) {
    switch (s) {
    case SIGILL: return "SIGILL";
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGTRAP: return "SIGTRAP";
    case SIGALRM: return "SIGALRM(hang)";
    case SIGFPE: return "SIGFPE";
    case SIGABRT: return "SIGABRT";
    default: return "signal";
    }
}

/* ---- options parsing ---------------------------------------------------- */
static void usage(void) {
    printf("usage: calibrate [options]\n"
           "  --wmin T --wmax T --wstep T   wait sweep in TSC ticks (default 0 to three times the\n"
           "                                default Tmax, in steps of a tenth of it)\n"
           "  --secs S          time per case (default 0.75)\n"
           "  --toggles N       also stop a case after N toggles (default 0 = time only)\n"
           "  --reps N          runs of every (wait, split) case (default 2)\n"
           "  --executors N     executor threads (default: cores - 1, at least 1)\n"
           "  --splits 1,2,3,4  splits to test\n"
           "  --modes tmax,serialize,nolock,bytewise\n"
           "  --broken-reps N   runs of each broken-mode case (default 3)\n"
           "  --broken-wait T   wait between back and front in nolock mode (default 0)\n"
           "  --margin X        safety factor for the recommendation (default 3)\n"
           "  --floor T         lowest recommendation (default 3000: the paper's choice)\n"
           "  --outdir DIR      where calibrate.csv and tmax.env go (default bench/out/patch)\n"
           "  -v                print every case\n");
}
static void parse_list(const char *s, int *out, int *n, int max) {
    *n = 0;
    while (*s && *n < max) {
        out[(*n)++] = atoi(s);
        while (*s && *s != ',') s++;
        if (*s == ',') s++;
    }
}
static void parse_args(int argc, char **argv) {
    int i;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : "";
#define ARG(name) (!strcmp(a, name) && (i++, 1))
        if (ARG("--wmin")) opt.wmin = atol(v);
        else if (ARG("--wmax")) opt.wmax = atol(v);
        else if (ARG("--wstep")) opt.wstep = atol(v);
        else if (ARG("--secs")) opt.secs = atof(v);
        else if (ARG("--toggles")) opt.toggles = atol(v);
        else if (ARG("--reps")) opt.reps = atoi(v);
        else if (ARG("--executors")) opt.executors = atoi(v);
        else if (ARG("--margin")) opt.margin = atof(v);
        else if (ARG("--floor")) opt.floor_ticks = atol(v);
        else if (ARG("--broken-reps")) opt.broken_reps = atoi(v);
        else if (ARG("--broken-wait")) opt.broken_wait = atol(v);
        else if (ARG("--outdir")) opt.outdir = v;
        else if (ARG("--splits")) parse_list(v, opt.splits, &opt.nsplits, 4);
        else if (ARG("--modes")) {
            int k;
            for (k = 0; k < M_COUNT; k++) opt.modes[k] = strstr(v, mode_name[k]) != NULL;
        } else if (!strcmp(a, "-v")) opt.verbose = 1;
        else {
            usage();
            exit(strcmp(a, "--help") && strcmp(a, "-h") ? 2 : 0);
        }
#undef ARG
    }
    if (opt.wstep <= 0) opt.wstep = EDGEPROBE_TMAX_DEFAULT / 10;
    if (opt.reps < 1) opt.reps = 1;
    if (opt.secs <= 0) opt.secs = 1.0;
}

static void print_machine(FILE *f) {
    FILE *p = popen("lscpu 2>/dev/null | grep -E '^(Model name|CPU\\(s\\)|Hypervisor vendor)'", "r");
    char line[256];
    if (p) {
        while (fgets(line, sizeof line, p)) fprintf(f, "# %s", line);
        pclose(p);
    }
    {
        FILE *k = popen("uname -sr", "r");
        if (k) {
            if (fgets(line, sizeof line, k)) fprintf(f, "# kernel: %s", line);
            pclose(k);
        }
    }
    fprintf(f, "# TSC: %.0f MHz (measured)\n", tsc_hz / 1e6);
}

int main(int argc, char **argv) {
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN), w;
    int nexec, si, rep, k, nwaits;
    char path[512];
    FILE *csv;
    double t_start = now_s();
    long worst_fail = -1; /* largest wait with a failure, tmax mode */
    long last_wait = -1;   /* largest wait the sweep ran */
    int default_failed = 0; /* a failure at a wait at or above the default */
    int total_fail = 0, total_cases = 0;
    setvbuf(stdout, NULL, _IOLBF, 0);
    parse_args(argc, argv);
    nexec = opt.executors > 0 ? opt.executors : (ncpu > 1 ? (int)ncpu - 1 : 1);
    if (nexec > 64) nexec = 64;
    sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (sh == MAP_FAILED) return perror("mmap"), 2;
    measure_tsc();
    mkdir("bench/out", 0777);
    mkdir(opt.outdir, 0777);
    snprintf(path, sizeof path, "%s/calibrate.csv", opt.outdir);
    csv = fopen(path, "w");
    if (!csv) fprintf(stderr, "calibrate: cannot write %s (continuing)\n", path);
    else fprintf(csv, "mode,wait,split,rep,result,signal,toggles,execs,calls,ticks_per_toggle,why\n");

    printf("# edgeprobe calibrate: Tmax stress test (paper section 8.1, Figure 9)\n");
    print_machine(stdout);
    printf("# %d executor thread(s), 1 patcher; %.2f s%s per case; %d rep(s); waits %ld..%ld step %ld\n", nexec,
           opt.secs, opt.toggles ? " (or the toggle limit)" : "", opt.reps, opt.wmin, opt.wmax, opt.wstep);

    nwaits = (int)((opt.wmax - opt.wmin) / opt.wstep) + 1;
    {
        /* failures[w][s] */
        int (*fails)[4] = calloc((size_t)nwaits, sizeof *fails);
        uint64_t (*togs)[4] = calloc((size_t)nwaits, sizeof *togs);
        /* ---- 1. broken protocols first: can this harness fail at all? ---- */
        for (k = M_NOLOCK; k <= M_BYTEWISE; k++) {
            int fail = 0, n = 0;
            uint64_t tog_to_fail = 0, tog_all = 0;
            if (!opt.modes[k]) continue;
            printf("\n## broken mode '%s'%s\n", mode_name[k],
                   k == M_NOLOCK ? " (back bytes, wait, front bytes; no int3)" : " (five single-byte stores)");
            for (si = 0; si < opt.nsplits; si++) {
                int S = opt.splits[si], f = 0;
                for (rep = 0; rep < opt.broken_reps; rep++) {
                    result_t r = run_case((enum mode)k, opt.broken_wait, S, nexec);
                    n++;
                    tog_all += r.toggles;
                    if (r.sig || r.exit_code) {
                        fail++, f++;
                        tog_to_fail += r.toggles;
                    }
                    if (csv)
                        fprintf(csv, "%s,%ld,%d,%d,%s,%s,%llu,%llu,%llu,%.0f,\"%s\"\n", mode_name[k], opt.broken_wait, S,
                                rep, r.sig || r.exit_code ? "fail" : "ok", r.sig ? signame(r.sig) : "",
                                (unsigned long long)r.toggles, (unsigned long long)r.execs,
                                (unsigned long long)r.calls, r.toggles ? (double)r.ticks / r.toggles : 0.0, r.why);
                    if (opt.verbose || r.sig)
                        printf("  S=%d rep %d: %s after %llu toggles, %llu executions%s%s\n", S, rep,
                               r.sig ? signame(r.sig) : r.exit_code ? "exit error" : "survived",
                               (unsigned long long)r.toggles, (unsigned long long)r.execs, r.sig ? "; " : "",
                               r.why);
                }
                printf("  S=%d: %d/%d runs failed\n", S, f, opt.broken_reps);
            }
            printf("  => '%s' failure rate: %d/%d runs (%.0f%%); mean toggles before a crash: %.0f (%llu toggles in all)\n",
                   mode_name[k], fail, n, n ? 100.0 * fail / n : 0.0, fail ? (double)tog_to_fail / fail : 0.0,
                   (unsigned long long)tog_all);
        }

        /* ---- 2. serialising mode ---- */
        if (opt.modes[M_SERIALIZE]) {
            int fail = 0, n = 0;
            printf("\n## mode 'serialize' (membarrier SYNC_CORE in place of each wait)\n");
            for (si = 0; si < opt.nsplits; si++) {
                int S = opt.splits[si];
                for (rep = 0; rep < opt.reps; rep++) {
                    result_t r = run_case(M_SERIALIZE, 0, S, nexec);
                    n++;
                    if (r.exit_code == 92) {
                        printf("  membarrier SYNC_CORE unavailable (%s): mode skipped\n",
                               edgeprobe_strerror(r.patch_err));
                        goto serialize_done;
                    }
                    if (r.sig || r.exit_code) fail++;
                    if (csv)
                        fprintf(csv, "serialize,0,%d,%d,%s,%s,%llu,%llu,%llu,%.0f,\"%s\"\n", S, rep,
                                r.sig || r.exit_code ? "fail" : "ok", r.sig ? signame(r.sig) : "",
                                (unsigned long long)r.toggles, (unsigned long long)r.execs,
                                (unsigned long long)r.calls, r.toggles ? (double)r.ticks / r.toggles : 0.0, r.why);
                    printf("  S=%d rep %d: %s, %llu toggles (%.0f ticks each), %llu executions, %.1f%% called\n", S,
                           rep, r.sig ? signame(r.sig) : r.exit_code ? "exit error" : "ok",
                           (unsigned long long)r.toggles, r.toggles ? (double)r.ticks / r.toggles : 0.0,
                           (unsigned long long)r.execs, r.execs ? 100.0 * r.calls / r.execs : 0.0);
                }
            }
            printf("  => serialize: %d/%d runs failed\n", fail, n);
        serialize_done:;
        }

        /* ---- 3. the sweep (Figure 9) ---- */
        if (opt.modes[M_TMAX]) {
            int wi;
            printf("\n## mode 'tmax': failures per wait (TSC ticks) and split S; each cell: failed runs/%d\n",
                   opt.reps);
            printf("%6s", "wait");
            for (si = 0; si < opt.nsplits; si++) printf("   S=%d", opt.splits[si]);
            printf("   toggles/s  executions/s  called%%\n");
            for (wi = 0, w = opt.wmin; wi < nwaits; wi++, w += opt.wstep) {
                uint64_t tg = 0, ex = 0, ca = 0, tk = 0;
                char sigs[128] = "";
                printf("%6ld", w);
                last_wait = w;
                for (si = 0; si < opt.nsplits; si++) {
                    int S = opt.splits[si];
                    for (rep = 0; rep < opt.reps; rep++) {
                        result_t r = run_case(M_TMAX, w, S, nexec);
                        int failed = r.sig || r.exit_code;
                        total_cases++;
                        tg += r.toggles, ex += r.execs, ca += r.calls;
                        tk += r.ticks ? r.ticks : (uint64_t)(opt.secs * tsc_hz);
                        togs[wi][si] += r.toggles;
                        if (failed) {
                            if (r.sig) crash_notes_add(w, S, r.toggles, signame(r.sig), r.why);
                            fails[wi][si]++;
                            total_fail++;
                            if (w > worst_fail) worst_fail = w;
                            if (w >= EDGEPROBE_TMAX_DEFAULT) default_failed = 1;
                            if (strlen(sigs) < 100)
                                snprintf(sigs + strlen(sigs), sizeof sigs - strlen(sigs), " S%d:%s@%llu", S,
                                         r.sig ? signame(r.sig) : "exit", (unsigned long long)r.toggles);
                        }
                        if (csv)
                            fprintf(csv, "tmax,%ld,%d,%d,%s,%s,%llu,%llu,%llu,%.0f,\"%s\"\n", w, S, rep,
                                    failed ? "fail" : "ok", r.sig ? signame(r.sig) : "",
                                    (unsigned long long)r.toggles, (unsigned long long)r.execs,
                                    (unsigned long long)r.calls, r.toggles ? (double)r.ticks / r.toggles : 0.0, r.why);
                    }
                    printf("   %d/%d", fails[wi][si], opt.reps);
                }
                printf("  %10.0f  %12.0f  %6.1f%s\n", tk ? tg * tsc_hz / tk : 0.0, tk ? ex * tsc_hz / tk : 0.0,
                       ex ? 100.0 * ca / ex : 0.0, sigs);
                if (csv) fflush(csv);
            }
            if (crash_notes[0]) printf("crashes:\n%s", crash_notes);
            {
                long base = worst_fail < 0 ? opt.wmin : worst_fail + opt.wstep;
                long rec = (long)(base * opt.margin + 0.5);
                char envp[512];
                FILE *ef;
                if (rec < opt.floor_ticks) rec = opt.floor_ticks;
                printf("\n## recommendation\n");
                printf("tmax mode: %d/%d runs failed; largest failing wait: ", total_fail, total_cases);
                if (worst_fail >= 0) printf("%ld ticks\n", worst_fail);
                else printf("none\n");
                printf("no failure at the waits tested from %ld to %ld ticks (the paper's criterion: largest\n"
                       "failing wait + step); waits above %ld ticks were not tested.\n"
                       "x%.1f safety margin = %ld; floor %ld (the paper's final choice, after its own margin).\n",
                       base, last_wait, last_wait, opt.margin, (long)(base * opt.margin + 0.5), opt.floor_ticks);
                if (rec > last_wait)
                    printf("the recommended %ld ticks lies above the sweep: it was NOT tested here\n", rec);
                printf("the default Tmax (%d ticks) was %s\n", EDGEPROBE_TMAX_DEFAULT,
                       EDGEPROBE_TMAX_DEFAULT > last_wait ? "NOT tested (above the sweep)"
                       : default_failed ? "tested, and FAILED" : "tested, with no failure");
                printf("a wait rests on this measurement of this machine; serialising mode (the default,\n"
                       "EDGEPROBE_SYNC=serialize) rests on the architecture's rule instead.\n");
                if (worst_fail < 0)
                    printf("note: no failure in this sweep. Failures here are rare events (the longer runs in\n"
                           "bench/RESULTS-patch.md saw them at waits up to 1800 ticks), so a clean short sweep\n"
                           "proves little; the floor applies. Longer: PB_CAL_SECS=5 PB_CAL_REPS=5 make calibrate\n");
                printf("EDGEPROBE_TMAX=%ld\n", rec);
                snprintf(envp, sizeof envp, "%s/tmax.env", opt.outdir);
                if ((ef = fopen(envp, "w"))) {
                    fprintf(ef, "EDGEPROBE_TMAX=%ld\n", rec);
                    fclose(ef);
                }
            }
        }
        free(fails);
        free(togs);
    }
    if (csv) fclose(csv);
    printf("# total time %.0f s; per-case rows in %s\n", now_s() - t_start, path);
    return 0;
}
