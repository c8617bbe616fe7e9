/* A thread that meets the int3 of a straddling patch, and whose SIGTRAP is
 * handled only after that patch and 5,000 later ones have finished (a
 * thread descheduled at the wrong moment), resumes at the site and runs the
 * new instruction: edgeprobe's handler never kills the process for one of
 * its own traps, however late it arrives. The delay is made by a SIGTRAP
 * handler installed over edgeprobe's, which waits before calling it. */
#define EDGEPROBE_IMPLEMENTATION
#include "edgeprobe.h"
#include "check.h"
#include "code_region.h"
#include <pthread.h>
#include <sched.h>
#include <signal.h>

static struct sigaction edgeprobe_trap;
static volatile int in_handler, release_handler, bumps;
static unsigned char *site_a, *site_b;

static void bump(void) { bumps++; }
static void late_trap(int sig, siginfo_t *si, void *uc) {
    in_handler = 1;
    while (!release_handler) sched_yield();
    edgeprobe_trap.sa_sigaction(sig, si, uc); /* now, long after the patch */
}
static void *run_site_a(void *arg) {
    (void)arg;
    ((void (*)(void))site_a)();
    return 0;
}

int main(void) {
    unsigned char call_a[5], call_b[5];
    static const unsigned char nop5[5] = {0x0f, 0x1f, 0x44, 0x00, 0x00};
    struct sigaction late;
    pthread_t th;
    int i, rc;
    site_a = code_site(code_region + 4096, 2, nop5); /* both straddle a line */
    site_b = code_site(code_region + 8192, 3, nop5);
    code_call(call_a, site_a, bump);
    code_call(call_b, site_b, bump);
    CHECK_EQ(edgeprobe_patch(site_b, call_b, 5), 0); /* installs edgeprobe's handler */
    CHECK_EQ(sigaction(SIGTRAP, 0, &edgeprobe_trap), 0);
    CHECK((edgeprobe_trap.sa_flags & SA_SIGINFO) != 0);
    late = edgeprobe_trap;
    late.sa_sigaction = late_trap;
    CHECK_EQ(sigaction(SIGTRAP, &late, 0), 0);

    CHECK_EQ(edgeprobe_patch_start(site_a, call_a, 5), 0); /* int3 at site_a */
    CHECK_EQ(site_a[0], 0xcc);
    CHECK_EQ(pthread_create(&th, 0, run_site_a, 0), 0);
    while (!in_handler) sched_yield();
    while ((rc = edgeprobe_patch_finish(site_a)) == 0) sched_yield();
    CHECK_EQ(rc, 1);
    /* many later straddler patches (Tmax 0: nobody runs site_b meanwhile) */
    CHECK_EQ(edgeprobe_set_sync(EDGEPROBE_SYNC_TMAX), 0);
    CHECK_EQ(edgeprobe_set_tmax(0), 0);
    for (i = 0; i < 5000; i++) CHECK_EQ(edgeprobe_patch(site_b, i & 1 ? call_b : nop5, 5), 0);
    release_handler = 1;
    CHECK_EQ(pthread_join(th, 0), 0);
    CHECK_EQ(bumps, 1); /* the thread ran the new instruction, once */
    return check_done("t_trap_late");
}
