/* edgeprobe trace PID GLOB... [-d SECONDS] - switch on the matching TRACE
 * probes that are off and stream their lines to stdout until Ctrl-C or the
 * duration ends. The process then switches them off again; it does the
 * same when this command dies (even by SIGKILL): it sees the connection
 * drop. Lines the process could not deliver were dropped, not waited for;
 * their count is reported at the end. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "control.h"
#include "tool.h"

#define POLL_MS 100


/* Build "trace G1 G2 ..." from the globs; -1 if one cannot be sent. */
static int build_request(char *req, size_t cap, char **globs, int n) {
    size_t len = (size_t)snprintf(req, cap, "trace");
    int i;
    for (i = 0; i < n; i++) {
        if (!*globs[i] || strchr(globs[i], ' ') || len + strlen(globs[i]) + 2 > cap) {
            fprintf(stderr, "edgeprobe trace: '%s' is not a probe name or glob (or too many globs)\n", globs[i]);
            return -1;
        }
        len += (size_t)snprintf(req + len, cap - len, " %s", globs[i]);
    }
    return 0;
}

/* Stream until "end". Returns 0, or 1 if the process went away. */
static int stream(ctl_conn *c, double deadline, unsigned long long *lines, unsigned long long *dropped) {
    int stopping = 0;
    char *line;
    for (;;) {
        int rc;
        if (!stopping && (ctl_stop_requested || (deadline > 0 && ctl_now() >= deadline))) {
            if (ctl_send(c, "stop")) return 1;
            stopping = 1;
        }
        rc = ctl_line(c, &line, POLL_MS);
        if (rc == 0) {
            fprintf(stderr, "edgeprobe trace: the process closed the connection (did it exit?)\n");
            return 1;
        }
        if (rc < 0) {
            if (errno == ETIMEDOUT || errno == EINTR) continue;
            fprintf(stderr, "edgeprobe trace: %s\n", strerror(errno));
            return 1;
        }
        if (line[0] == '>' && line[1] == ' ') {
            fputs(line + 2, stdout);
            putchar('\n');
            (*lines)++;
        } else if (!strncmp(line, "dropped ", 8))
            *dropped = strtoull(line + 8, NULL, 10);
        else if (!strcmp(line, "end"))
            return 0;
        else if (!strncmp(line, "error ", 6))
            fprintf(stderr, "edgeprobe trace: %s\n", line + 6);
    }
}

int cmd_trace(int argc, char **argv) {
    char *globs[16], req[600];
    const char *target = NULL, *reply;
    double duration = 0;
    int nglobs = 0, i, on = 0, already = 0, rc;
    unsigned long long lines = 0, dropped = 0;
    ctl_conn *c;
    if (ctl_help(argc, argv, USAGE_TRACE)) return 0;
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-d") && i + 1 < argc) {
            char *end;
            duration = strtod(argv[++i], &end);
            if (*end || duration <= 0) duration = -1;
        } else if (!target) target = argv[i];
        else if (nglobs < 16) globs[nglobs++] = argv[i];
        else duration = -1;
    }
    if (!target || !nglobs || duration < 0) {
        fprintf(stderr, "usage: edgeprobe " USAGE_TRACE "\n");
        return TOOL_EXIT_USAGE;
    }
    if (build_request(req, sizeof req, globs, nglobs)) return TOOL_EXIT_USAGE;
    if (!(c = ctl_connect(target))) return 1;
    ctl_catch_stop_signals();
    if (ctl_send(c, req) || !(reply = ctl_expect_ok(c, "trace")) || sscanf(reply, "%d %d", &on, &already) != 2) {
        ctl_disconnect(c);
        return 1;
    }
    if (on == 0) {
        fprintf(stderr, "edgeprobe trace: no TRACE probe or function probe that is off matches%s\n",
                already ? " (some that match are on: disable them first to trace them here)" : "");
        ctl_disconnect(c);
        return 1;
    }
    fprintf(stderr, "edgeprobe trace: tracing %d probe%s", on, on == 1 ? "" : "s");
    if (already) fprintf(stderr, " (%d already on, left alone)", already);
    fprintf(stderr, "; %s\n", duration > 0 ? "until the duration ends or Ctrl-C" : "Ctrl-C stops");
    rc = stream(c, duration > 0 ? ctl_now() + duration : 0, &lines, &dropped);
    fflush(stdout);
    fprintf(stderr, "edgeprobe trace: %llu lines, %llu dropped\n", lines, dropped);
    ctl_disconnect(c);
    return rc;
}
