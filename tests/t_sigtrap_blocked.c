/* Threads that block every signal (the "one thread handles signals"
 * design) run a straddling site while another thread patches it: the patch
 * is refused with EDGEPROBE_EUNSAFE (the int3 would kill the process), and
 * nothing dies. Marker sites and gcc's function entries (five NOPs, built
 * with -fpatchable-function-entry=5) never write an int3: switched under
 * the same threads, they work. Once the threads unblock SIGTRAP, the patch
 * goes on, also while the control endpoint's thread runs. */
#define _GNU_SOURCE
#define EDGEPROBE_IMPLEMENTATION
#include "edgeprobe.h"
#include "check.h"
#include "code_region.h"
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

static unsigned char *site;
static volatile int stop, unblock, blocked_now, bumps, branch_hits, entries;
__attribute__((noinline)) int blocked_fn(int x) { return x + 1; } /* a function probe */
static int on_entry(edgeprobe_func_call *call, void *user) {
    (void)call, (void)user;
    __atomic_fetch_add(&entries, 1, __ATOMIC_RELAXED);
    return 0;
}
static void bump(void) { __atomic_fetch_add(&bumps, 1, __ATOMIC_RELAXED); }
static void marker(void) {
    if (EDGEPROBE_BRANCH(blocked_branch)) __atomic_fetch_add(&branch_hits, 1, __ATOMIC_RELAXED);
}
static void *worker(void *arg) {
    sigset_t all;
    (void)arg;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, 0);
    __atomic_fetch_add(&blocked_now, 1, __ATOMIC_RELEASE);
    while (!stop) {
        if (unblock && blocked_now) {
            sigset_t trap;
            sigemptyset(&trap);
            sigaddset(&trap, SIGTRAP);
            pthread_sigmask(SIG_UNBLOCK, &trap, 0);
            __atomic_fetch_sub(&blocked_now, 1, __ATOMIC_RELEASE);
            unblock = 0;
        }
        ((void (*)(void))site)();
        marker();
        if (blocked_fn(1) != 2) abort();
    }
    return 0;
}

/* Let the worker run the switched sites a little (up to 20 ms, or until an
 * enabled one counted a hit), so that every state is executed. */
static void met_by_worker(volatile int *counter, int enabled) {
    int before = *counter, spins;
    for (spins = 0; spins < 200 && (!enabled || *counter == before); spins++) {
        if (!enabled && spins >= 2) break;
        usleep(100);
    }
}
int main(void) {
    static const unsigned char nop5[5] = {0x0f, 0x1f, 0x44, 0x00, 0x00};
    unsigned char call[5];
    pthread_t th;
    int i, refused = 0, done = 0, rc;
    site = code_site(code_region + 4096, 2, nop5);
    code_call(call, site, bump);
    /* edgeprobe's own threads (here the control endpoint's) leave SIGTRAP
     * open: while the one that blocked every signal ran, every straddling
     * patch below was refused */
    CHECK(edgeprobe_control_start() >= 0);
    CHECK_EQ(pthread_create(&th, 0, worker, 0), 0);
    while (!blocked_now) sched_yield();
    for (i = 0; i < 200; i++) /* straddler: refused, the process lives */
        refused += edgeprobe_patch(site, call, 5) == EDGEPROBE_EUNSAFE;
    CHECK_EQ(refused, 200);
    CHECK(!memcmp(site, nop5, 5));
    for (i = 0; i < 100; i++) { /* markers: never an int3; each state met by the worker */
        CHECK(i & 1 ? edgeprobe_disable("blocked_branch") == 1 : edgeprobe_enable("blocked_branch") == 1);
        met_by_worker(&branch_hits, !(i & 1));
    }
    for (i = 0; i < 100; i++) { /* gcc's function entries: never an int3 either */
        rc = i & 1 ? edgeprobe_func_detach("blocked_fn") : edgeprobe_func_attach("blocked_fn", on_entry, 0, 0);
        if (rc != 1 && i < 2) fprintf(stderr, "function probe switch %d: %s\n", i, edgeprobe_strerror(rc));
        CHECK_EQ(rc, 1);
        met_by_worker(&entries, !(i & 1));
    }
    CHECK(branch_hits > 0 && entries > 0);
    unblock = 1;
    while (blocked_now) sched_yield();
    for (i = 0; i < 200; i++) done += (rc = edgeprobe_patch(site, i & 1 ? nop5 : call, 5)) == 0;
    CHECK_EQ(done, 200);
    /* the call patched in once more: the thread runs it (up to 2 s on a loaded machine) */
    CHECK_EQ(edgeprobe_patch(site, call, 5), 0);
    for (i = 0; i < 2000 && !bumps; i++) usleep(1000);
    CHECK(bumps > 0);
    stop = 1;
    CHECK_EQ(pthread_join(th, 0), 0);
    printf("refused %d straddling patches while SIGTRAP was blocked, then made %d; %d calls, %d branch hits, "
           "%d function entries\n", refused, done, bumps, branch_hits, entries);
    return check_done("t_sigtrap_blocked");
}
