/* tools/attach_agent.c - libedgeprobe-attach.so, the library `edgeprobe
 * attach` loads into a running process (tools/cmd_attach.c).
 *
 * Its constructor runs in the thread the command seized, which stays
 * stopped as briefly as possible: it only starts a thread (the header's
 * own constructor is left out: its root would be made here, and making it
 * registers with membarrier, about 25 ms in a multi-threaded process). That thread lists the function entries of every loaded
 * object built with -fpatchable-function-entry=5 (they become function
 * probes, off), then serves the control endpoint, so that `edgeprobe ps`,
 * `list PID`, `top PID`... reach the process. The library pins itself
 * (it is never unloaded). */
#define _GNU_SOURCE
#define EDGEPROBE_IMPLEMENTATION
#define EDGEPROBE__ROOT_LATER /* no registration in the seized thread: the header, section 19 */
#include "edgeprobe.h"
#include <pthread.h>
#include <signal.h>
#include <stdio.h>

static void *attach_main(void *arg) {
    int rc;
    (void)arg;
    rc = edgeprobe_func_scan(); /* EDGEPROBE_ENOFUNC: no object built with the flag; markers still served */
    if (rc < 0 && rc != EDGEPROBE_ENOFUNC) fprintf(stderr, "edgeprobe attach agent: %s\n", edgeprobe_strerror(rc));
    if ((rc = edgeprobe_control_start()) < 0)
        fprintf(stderr, "edgeprobe attach agent: no control endpoint: %s\n", edgeprobe_strerror(rc));
    return 0;
}

__attribute__((constructor)) static void attach_agent_start(void) {
    pthread_t t;
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old); /* the program's signals are not ours to take */
    if (pthread_create(&t, 0, attach_main, 0) == 0) pthread_detach(t);
    pthread_sigmask(SIG_SETMASK, &old, 0);
}
