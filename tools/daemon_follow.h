/* tools/daemon_follow.h - daemon() for the preloaded agents (the
 * profiler's, the recorder's), so that what they do follows the program
 * into daemon()'s child. glibc's daemon forks by its own alias, which no
 * wrapper sees, and its parent _exits inside it: the program goes on in a
 * child that, forked behind the agent's back, would profile or record
 * nothing. So daemon is defined here as glibc's does it (fork, the parent
 * _exits, setsid, chdir "/", the standard streams on /dev/null), with the
 * agent's steps around the fork:
 *
 *   following = prepare()        the agent's state made safe to fork
 *   pid = fork()                 the wrapper's (signal_defer.h)
 *   forked(following, pid)       in both processes; the child takes over
 *   parent: tell the command the child's pid (env_file), _exit(0)
 *
 * The command (tools/launch.c) is the daemon's subreaper: it waits for the
 * pid the parent wrote, and passes SIGINT and SIGTERM on. Included by one
 * file of each agent. */
#ifndef EDGEPROBE_DAEMON_FOLLOW_H
#define EDGEPROBE_DAEMON_FOLLOW_H
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

/* The child's pid, into FILE.PID (FILE: what the environment variable
 * names; PID: this parent's), written beside it and renamed into place:
 * the command, which has just reaped PID, reads it whole. One file per
 * parent: a daemon that calls daemon() again writes its own, in whatever
 * order the generations get there (one file for all let a slow first
 * parent write over its child's news, and the command stop waiting while
 * the last daemon ran: an independent review). */
static void daemon_tell(const char *env_file, pid_t child) {
    const char *path = getenv(env_file);
    char final[4096], tmp[4096 + 8], line[32]; /* the command's FILE leaves room (launch.c, DAEMON_FILE_MAX) */
    int n = snprintf(line, sizeof line, "%ld\n", (long)child), fd;
    if (!path || !*path || (size_t)snprintf(final, sizeof final, "%s.%ld", path, (long)getpid()) >= sizeof final) return;
    snprintf(tmp, sizeof tmp, "%s.tmp", final);
    unlink(tmp);
    if ((fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600)) < 0) return;
    if (write(fd, line, (size_t)n) != n) {}
    close(fd);
    if (rename(tmp, final)) unlink(tmp);
}
/* The standard streams on /dev/null, if it is the device. */
static int daemon_streams(void) {
    int fd = open("/dev/null", O_RDWR), ok;
    struct stat st;
    if (fd < 0) return -1;
    ok = fstat(fd, &st) == 0 && S_ISCHR(st.st_mode);
    if (ok) {
        dup2(fd, 0), dup2(fd, 1), dup2(fd, 2);
        if (fd > 2) close(fd);
        return 0;
    }
    close(fd);
    errno = ENODEV;
    return -1;
}
static int daemon_followed(int nochdir, int noclose, int (*prepare)(void), void (*forked)(int following, pid_t pid),
                           const char *env_file) {
    int following = prepare();
    pid_t pid = fork();
    forked(following, pid);
    if (pid < 0) return -1;
    if (pid > 0) {
        if (following) daemon_tell(env_file, pid);
        _exit(0);
    }
    if (setsid() < 0) return -1;
    if (!nochdir && chdir("/")) return -1;
    return noclose ? 0 : daemon_streams();
}
#endif
