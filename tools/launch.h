/* tools/launch.h - running a PROGRAM with one of edgeprobe's libraries
 * preloaded (`edgeprobe prof`, `edgeprobe record`). */
#ifndef EDGEPROBE_LAUNCH_H
#define EDGEPROBE_LAUNCH_H
#include <stddef.h>
#include <sys/types.h>

/* The library `name`: $env_var, beside this executable, or in
 * ../lib/edgeprobe/ relative to it. 0, or -1 if not found. */
int launch_find_library(const char *name, const char *env_var, char *out, size_t n);
/* Fork, put `lib` first in LD_PRELOAD, call setup() in the child (it sets
 * the child's environment), exec argv[0]; wait with SIGINT and SIGQUIT
 * ignored (they reach the program) and SIGTERM passed on to it, calling
 * tick(arg) every 250 ms if it is not NULL. With daemon_env, a daemon
 * PROGRAM is followed (below): the child gets daemon_env naming the file
 * its agent's daemon() writes. Returns the program's exit status as a
 * shell reports it (128 + signal), 126/127 when it could not run, or -1
 * when we could not fork or wait. `who` prefixes messages. */
int launch_preloaded(const char *who, const char *lib, char **argv, void (*setup)(void *), void (*tick)(void *),
                     void *arg, const char *daemon_env, int quiet);

/* DAEMONS. A program that calls daemon() goes on in a child, and its
 * parent exits 0 inside the call; the preloaded agent's daemon()
 * (tools/daemon_follow.h) writes the child's pid to a file this command
 * names, suffixed with the parent's pid (FILE.PID).
 *   launch_follow_daemons  makes this command the subreaper of what it
 *                          launches (an orphaned daemon becomes its
 *                          child) and names FILE, in a directory of its
 *                          own it makes under $TMPDIR if that is an
 *                          absolute path it can use, else under /tmp (-1,
 *                          FILE empty and a message, when it cannot: no
 *                          daemon is then followed);
 *   launch_wait            waits for pid (a raw wait status), reaping the
 *                          orphans that end meanwhile, and passes SIGTERM
 *                          on (SIGINT comes from the terminal to the
 *                          program as well);
 *   launch_wait_daemon     after it: waits for the daemon handed on, if
 *                          one was (and the next, if it calls daemon()
 *                          again), passing SIGINT and SIGTERM on; its
 *                          status becomes the run's; then removes
 *                          FILE's directory (launch_daemon_files_remove).
 * Other orphans are reaped, never waited for. */
int launch_follow_daemons(const char *who, char *file, size_t n);
void launch_daemon_files_remove(const char *file);
int launch_wait(const char *who, pid_t pid, int *status, void (*tick)(void *), void *arg);
int launch_wait_daemon(const char *who, const char *file, pid_t program_pid, const char *program, int status,
                       int quiet, void (*tick)(void *), void *arg);
#endif
