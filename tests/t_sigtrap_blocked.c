/* Threads that block every signal (the "one thread handles signals"
 * design) run a straddling site while another thread patches it: the patch
 * is refused with EDGEPROBE_EUNSAFE (the int3 would kill the process), and
 * nothing dies. Marker sites never write an int3: switched under the same
 * threads, they work. Once the threads unblock SIGTRAP, the patch goes on. */
#define _GNU_SOURCE
#define EDGEPROBE_IMPLEMENTATION
#include "edgeprobe.h"
#include "check.h"
#include "code_region.h"
#include <pthread.h>
#include <sched.h>
#include <signal.h>

static unsigned char *site;
static volatile int stop, unblock, blocked_now, bumps, branch_hits;
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
    }
    return 0;
}

int main(void) {
    static const unsigned char nop5[5] = {0x0f, 0x1f, 0x44, 0x00, 0x00};
    unsigned char call[5];
    pthread_t th;
    int i, refused = 0, done = 0, rc;
    site = code_site(code_region + 4096, 2, nop5);
    code_call(call, site, bump);
    CHECK_EQ(pthread_create(&th, 0, worker, 0), 0);
    while (!blocked_now) sched_yield();
    for (i = 0; i < 200; i++) /* straddler: refused, the process lives */
        refused += edgeprobe_patch(site, call, 5) == EDGEPROBE_EUNSAFE;
    CHECK_EQ(refused, 200);
    CHECK(!memcmp(site, nop5, 5));
    for (i = 0; i < 2000; i++) /* markers: never an int3 */
        CHECK(i & 1 ? edgeprobe_disable("blocked_branch") == 1 : edgeprobe_enable("blocked_branch") == 1);
    unblock = 1;
    while (blocked_now) sched_yield();
    for (i = 0; i < 200; i++) done += (rc = edgeprobe_patch(site, i & 1 ? nop5 : call, 5)) == 0;
    CHECK_EQ(done, 200);
    CHECK(bumps > 0); /* the thread ran the call between patches */
    stop = 1;
    CHECK_EQ(pthread_join(th, 0), 0);
    printf("refused %d straddling patches while SIGTRAP was blocked, then made %d; %d calls, %d branch hits\n",
           refused, done, bumps, branch_hits);
    return check_done("t_sigtrap_blocked");
}
