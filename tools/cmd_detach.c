/* edgeprobe detach PID - switch off everything the agent and the control
 * endpoint switched on in a running process; and what `prof -p` uses to
 * reach a process, attaching first when it has no endpoint.
 *
 * The process does the work (the endpoint's `detach` request, header
 * section 28): a trace session ends, a profile ends unreported, every
 * function bound by the endpoint or the profiler is switched off and
 * unbound, and handlers in flight are waited for. Calls in flight return
 * through return trampolines that stay mapped (the agent is never
 * unloaded). The endpoint stays up, dormant: attaching again, or any
 * command, reaches it at once. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "control.h"
#include "tool.h"

#define AGENT_WAIT_MS 10000 /* the agent lists the functions, then serves */

ctl_conn *ctl_attach_connect(int pid) {
    char pidtext[16], *attach_argv[3] = {(char *)"attach", pidtext, 0};
    struct timespec pause = {0, 20 * 1000 * 1000};
    int waited;
    if (!ctl_reachable(pid)) {
        snprintf(pidtext, sizeof pidtext, "%d", pid);
        if (cmd_attach(2, attach_argv)) return NULL;
        for (waited = 0; !ctl_reachable(pid) && waited < AGENT_WAIT_MS; waited += 20) nanosleep(&pause, 0);
    }
    snprintf(pidtext, sizeof pidtext, "%d", pid);
    return ctl_connect(pidtext);
}

int cmd_detach(int argc, char **argv) {
    const char *reply;
    ctl_conn *c;
    if (ctl_help(argc, argv, USAGE_DETACH)) return 0;
    if (argc != 2 || !ctl_is_pid(argv[1])) {
        fprintf(stderr, "usage: edgeprobe %s\n", USAGE_DETACH);
        return TOOL_EXIT_USAGE;
    }
    if (!(c = ctl_connect(argv[1]))) return 1;
    if (ctl_send(c, "detach") || !(reply = ctl_expect_ok_within(c, "detach", 4 * CTL_TIMEOUT_MS))) {
        ctl_disconnect(c);
        return 1;
    }
    printf("edgeprobe detach: process %s: %d function probe%s switched off and unbound; the agent stays, dormant\n", argv[1],
           atoi(reply), atoi(reply) == 1 ? "" : "s");
    ctl_disconnect(c);
    return 0;
}
