/* tools/record_agent.c - libedgeprobe-record.so, what `edgeprobe record`
 * preloads: the header's implementation, and the program's signal handlers
 * held back while ours run (signal_defer.h). Its constructor
 * (section 30, EDGEPROBE_RECORD) starts the recorder before main, and
 * switches on the functions of EDGEPROBE_RECORD_FUNCS in any object built
 * with -fpatchable-function-entry=5; markers of a program built with the
 * header record through the same process-wide registry. */
#define EDGEPROBE_IMPLEMENTATION
#include "edgeprobe.h"
#include "signal_defer.h" /* the program's handlers wait while ours run */
#include "daemon_follow.h"

/* DAEMONS: the recording follows daemon()'s child (the header's
 * rec_fork_pause and rec_fork_resume); `edgeprobe record` waits for it. */
static int record_daemon_fd = -1;
static int record_daemon_prepare(void) {
    record_daemon_fd = edgeprobe__rec_fork_pause();
    return record_daemon_fd >= 0;
}
static void record_daemon_forked(int following, pid_t pid) {
    if (following && pid <= 0) edgeprobe__rec_fork_resume(record_daemon_fd, pid == 0);
    /* a parent whose fork worked exits with the io lock held: nothing of it writes on */
}
__attribute__((visibility("default"))) int daemon(int nochdir, int noclose) {
    return daemon_followed(nochdir, noclose, record_daemon_prepare, record_daemon_forked,
                           "EDGEPROBE_RECORD_DAEMON_FILE");
}
