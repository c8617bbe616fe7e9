/* edgeprobe enable|disable PID GLOB... - switch probes of a running process.
 * Reports how many probes changed; stops at the first error (earlier globs
 * stay applied) and exits 1 with the process's message. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "control.h"
#include "tool.h"

static int set_probes(int argc, char **argv, const char *verb, const char *usage) {
    char request[600];
    const char *reply;
    int i, changed = 0, rc = 0;
    ctl_conn *c;
    if (ctl_help(argc, argv, usage)) return 0;
    if (argc < 3) {
        fprintf(stderr, "usage: edgeprobe %s\n", usage);
        return TOOL_EXIT_USAGE;
    }
    if (!(c = ctl_connect(argv[1]))) return 1;
    for (i = 2; i < argc && !rc; i++) {
        if (strlen(argv[i]) > 400 || strchr(argv[i], ' ')) {
            fprintf(stderr, "edgeprobe %s: '%s' is not a probe name or glob\n", verb, argv[i]);
            rc = 1;
            break;
        }
        snprintf(request, sizeof request, "%s %s", verb, argv[i]);
        if (ctl_send(c, request) || !(reply = ctl_expect_ok(c, verb))) rc = 1;
        else changed += atoi(reply);
    }
    ctl_disconnect(c);
    if (!rc) printf("%sd %d probe%s\n", verb, changed, changed == 1 ? "" : "s");
    else if (changed) fprintf(stderr, "edgeprobe %s: %d probe%s changed before the error\n", verb, changed, changed == 1 ? "" : "s");
    return rc;
}

int cmd_enable(int argc, char **argv) { return set_probes(argc, argv, "enable", USAGE_ENABLE); }
int cmd_disable(int argc, char **argv) { return set_probes(argc, argv, "disable", USAGE_DISABLE); }
