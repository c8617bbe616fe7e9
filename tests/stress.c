/* stress MODE SPLIT TOGGLES SECONDS - executor threads run one site while
 * this thread toggles it between `call bump` and NOP5.
 *
 *   MODE  word-sync | word-async | call   (a straddler at SPLIT), word
 *         patches in the default protocol (serialising mode where the
 *         kernel has membarrier SYNC_CORE); word-sync-tmax and
 *         word-async-tmax use Tmax waits (EDGEPROBE_TMAX, or the default)
 *         inline    (non-straddling: every offset 0..59 of a line in turn,
 *                    TOGGLES at each)
 *         broken    (no int3, no wait: back bytes, then front bytes, with
 *                    plain stores - the protocol edgeprobe must not be)
 *
 * Prints toggles, executions, and the balance (calls seen vs nops seen, as
 * the paper reports). A crash (SIGSEGV, SIGILL) is the failure the driver
 * looks for; the exit status is 1 when an API call failed. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#define EDGEPROBE_IMPLEMENTATION /* this program's one copy of the implementation */
#include "edgeprobe.h"
#include "code_region.h"

static const unsigned char NOP5[5] = {0x0f, 0x1f, 0x44, 0x00, 0x00};
static volatile int stop;
static unsigned long long calls, runs;
static unsigned char *volatile site;
static int started; /* executors that have run the site this round */

__attribute__((noinline)) void stress_bump(void) { __atomic_fetch_add(&calls, 1, __ATOMIC_RELAXED); }

static void pin(int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu % (int)sysconf(_SC_NPROCESSORS_ONLN), &set);
    sched_setaffinity(0, sizeof set, &set);
}
static void *executor(void *arg) {
    unsigned long long n = 0;
    pin((int)(intptr_t)arg);
    ((void (*)(void))site)();
    __atomic_fetch_add(&started, 1, __ATOMIC_RELEASE);
    while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
        ((void (*)(void))site)();
        n++;
    }
    __atomic_fetch_add(&runs, n, __ATOMIC_RELAXED);
    return NULL;
}
static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}
/* The broken protocol: plain stores, back first, no lock, no wait. */
static void broken_write(unsigned char *s, const unsigned char *insn, int split) {
    volatile unsigned char *v = s;
    int i;
    for (i = split; i < 5; i++) v[i] = insn[i];
    for (i = 0; i < split; i++) v[i] = insn[i];
}
/* One toggle to `insn` in the given mode. Returns 0 or a negative code. */
static int toggle(const char *mode, unsigned char *s, const unsigned char *insn, int32_t rel, int on, int split) {
    int rc;
    if (!strcmp(mode, "call")) return (rc = on ? edgeprobe_call_on(s, rel) : edgeprobe_call_off(s)) < 0 ? rc : 0;
    if (!strcmp(mode, "broken")) {
        broken_write(s, insn, split);
        return 0;
    }
    if (!strcmp(mode, "word-async")) {
        if ((rc = edgeprobe_patch_start(s, insn, 5)) < 0) return rc;
        while (rc == 0) rc = edgeprobe_patch_finish(s);
        return rc < 0 ? rc : 0;
    }
    return edgeprobe_patch(s, insn, 5);
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "word-sync";
    int split = argc > 2 ? atoi(argv[2]) : 1;
    long toggles = argc > 3 ? atol(argv[3]) : 200000;
    double seconds = argc > 4 ? atof(argv[4]) : 60, t0;
    int inline_mode = !strcmp(mode, "inline"), offsets = inline_mode ? 60 : 1;
    int nexec = (int)sysconf(_SC_NPROCESSORS_ONLN) - 1, off, i, errors = 0;
    long done = 0;
    pthread_t th[8];
    if (nexec < 1) nexec = 1;
    if (nexec > 8) nexec = 8;
    if (strstr(mode, "-tmax")) { /* the Tmax protocol, asked for */
        if (edgeprobe_set_sync(EDGEPROBE_SYNC_TMAX) < 0) return 1;
        mode = !strcmp(mode, "word-async-tmax") ? "word-async" : "word-sync";
    }
    printf("stress: straddler protocol %s, Tmax %llu ticks\n",
           edgeprobe_sync_mode() == EDGEPROBE_SYNC_SERIALIZE ? "serialize" : "tmax",
           (unsigned long long)edgeprobe_tmax());
    if (!strcmp(mode, "broken")) { /* a writable region, opened without edgeprobe */
        code_write(code_region, "", 0);
    }
    pin(0);
    t0 = now();
    for (off = 0; off < offsets; off++) {
        unsigned char call[5], *s;
        int32_t rel;
        long k;
        s = inline_mode ? code_region + 4096 + 64 * off + off : code_region + 4096 + 64 * off + 64 - split;
        code_call(call, s, stress_bump);
        memcpy(&rel, call + 1, 4);
        code_site(inline_mode ? code_region + 4096 + 64 * off : s + split - 64, inline_mode ? 0 : split, call);
        if (inline_mode) code_write(s, call, 5), code_write(s + 5, "\xc3", 1);
        site = s;
        stop = 0;
        started = 0;
        for (i = 0; i < nexec; i++) pthread_create(&th[i], NULL, executor, (void *)(intptr_t)(i + 1));
        while (__atomic_load_n(&started, __ATOMIC_ACQUIRE) < nexec) sched_yield();
        for (k = 0; k < toggles && now() - t0 < seconds; k++, done++) {
            int on = (int)(k & 1);
            if (toggle(mode, s, on ? call : NOP5, rel, on, split) < 0) errors++;
        }
        stop = 1;
        for (i = 0; i < nexec; i++) pthread_join(th[i], NULL);
        if (toggle(mode, s, call, rel, 1, split) < 0) errors++;
    }
    printf("stress %s split %d: %ld toggles in %.2f s, %llu executions, %llu calls, balance %.2f, %d errors\n",
           mode, split, done, now() - t0, runs, calls, runs > calls ? (double)calls / (double)(runs - calls) : 0.0,
           errors);
    if (done < toggles * offsets) printf("stress: time limit reached before %ld toggles\n", toggles * offsets);
    if (calls == 0 || calls == runs) printf("stress: executors saw only one state\n");
    return errors || done < toggles * offsets || calls == 0 || calls == runs ? 1 : 0;
}
