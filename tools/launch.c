/* tools/launch.c - see tools/launch.h. */
#include "launch.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int launch_find_library(const char *name, const char *env_var, char *out, size_t n) {
    static const char *const dirs[] = {"", "../lib/edgeprobe/"};
    const char *env = getenv(env_var);
    char self[PATH_MAX - 64], *slash;
    ssize_t k;
    size_t i;
    if (env && *env) {
        snprintf(out, n, "%s", env);
        return access(out, R_OK) == 0 ? 0 : -1;
    }
    k = readlink("/proc/self/exe", self, sizeof self - 1);
    if (k <= 0) return -1;
    self[k] = 0;
    if (!(slash = strrchr(self, '/'))) return -1;
    slash[1] = 0;
    for (i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
        if ((size_t)snprintf(out, n, "%s%s%s", self, dirs[i], name) < n && access(out, R_OK) == 0) return 0;
    return -1;
}

/* ---- DAEMONS (launch.h) ---- */
/* The longest FILE: the agent's daemon_tell (tools/daemon_follow.h) builds
 * FILE.PID and FILE.PID.tmp in buffers of 4096. */
#define DAEMON_FILE_MAX (4096 - 32)
/* FILE in a directory made under parent: 0, or -1 (errno; FILE empty) when
 * parent is not absolute (the program's daemon() writes it from wherever
 * the program went: "/", for most), the name would be too long, or
 * mkdtemp fails. */
static int daemon_dir_in(const char *parent, char *file, size_t n) {
    char dir[PATH_MAX];
    size_t limit = n < DAEMON_FILE_MAX ? n : DAEMON_FILE_MAX;
    file[0] = 0;
    if (parent[0] != '/') {
        errno = EINVAL;
        return -1;
    }
    if ((size_t)snprintf(dir, sizeof dir, "%s/edgeprobe-XXXXXX", parent) >= sizeof dir ||
        strlen(dir) + sizeof "/daemon" > limit) {
        errno = ENAMETOOLONG;
        return -1;
    }
    if (!mkdtemp(dir)) return -1;
    snprintf(file, n, "%s/daemon", dir);
    return 0;
}
/* FILE lies in a directory of this command's own (mkdtemp: mode 0700, a
 * name nobody knows ahead), never in /tmp itself: there, a file another
 * user planted under the name the command's pid made known ahead
 * (/tmp/edgeprobe-PID.daemon.PID, until 2026-11-28) handed the command a
 * pid to wait for and to pass SIGTERM on to. */
int launch_follow_daemons(const char *who, char *file, size_t n) {
    const char *tmp = getenv("TMPDIR");
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    if (tmp && *tmp && daemon_dir_in(tmp, file, n) == 0) return 0;
    if (daemon_dir_in("/tmp", file, n) == 0) return 0; /* $TMPDIR relative, too long or not there */
    fprintf(stderr, "%s: cannot make a directory in %s%s/tmp (%s): a PROGRAM that calls daemon() will not be followed\n",
            who, tmp && *tmp ? tmp : "", tmp && *tmp ? " or " : "", strerror(errno));
    return -1;
}
/* FILE's directory, and what is left in it (the files of parents this
 * command never reaped, a temporary file a parent died writing). */
void launch_daemon_files_remove(const char *file) {
    char dir[PATH_MAX], path[PATH_MAX + 256], *slash;
    DIR *d;
    struct dirent *e;
    if (!file[0] || (size_t)snprintf(dir, sizeof dir, "%s", file) >= sizeof dir || !(slash = strrchr(dir, '/'))) return;
    *slash = 0;
    if ((d = opendir(dir))) {
        while ((e = readdir(d)))
            if (strncmp(e->d_name, "daemon.", 7) == 0) {
                snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
                unlink(path);
            }
        closedir(d);
    }
    rmdir(dir);
}
/* Orphans reaped while waiting for another process: a daemon may end
 * before its parent is reaped, and its status is then found here. */
#define REAPED_KEPT 64
static struct { pid_t pid; int status; } reaped[REAPED_KEPT];
static unsigned nreaped;
static void reaped_keep(pid_t pid, int status) {
    reaped[nreaped % REAPED_KEPT].pid = pid, reaped[nreaped % REAPED_KEPT].status = status;
    nreaped++;
}
static int reaped_find(pid_t pid, int *status) {
    unsigned i;
    for (i = 0; i < REAPED_KEPT && i < nreaped; i++)
        if (reaped[i].pid == pid) {
            *status = reaped[i].status;
            return 1;
        }
    return 0;
}
/* Wait for pid, reaping the orphans that end meanwhile; SIGTERM (and, with
 * also_int, SIGINT: a daemon is out of the terminal's reach) sent to this
 * command is passed on to pid; tick(arg) every 250 ms. 0, or -1 when pid
 * is not ours (gone, or no child of ours). The signals are blocked while
 * waiting and taken by sigtimedwait: none is lost between two looks. */
static int wait_passing_on(pid_t pid, int *status, int also_int, void (*tick)(void *), void *arg) {
    sigset_t sigs, old;
    int rc = -1;
    if (reaped_find(pid, status)) return 0;
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGTERM);
    sigaddset(&sigs, SIGCHLD);
    if (also_int) sigaddset(&sigs, SIGINT);
    sigprocmask(SIG_BLOCK, &sigs, &old);
    for (;;) {
        struct timespec quarter = {0, 250000000};
        int st, sig;
        pid_t done;
        while ((done = waitpid(-1, &st, WNOHANG)) > 0 && done != pid) reaped_keep(done, st);
        if (done == pid) {
            *status = st, rc = 0;
            break;
        }
        if (done < 0 && errno == ECHILD) break;
        if ((sig = sigtimedwait(&sigs, 0, &quarter)) == SIGTERM || sig == SIGINT) kill(pid, sig);
        if (tick) tick(arg);
    }
    sigprocmask(SIG_SETMASK, &old, 0);
    return rc;
}
int launch_wait(const char *who, pid_t pid, int *status, void (*tick)(void *), void *arg) {
    if (wait_passing_on(pid, status, 0, tick, arg) == 0) return 0;
    fprintf(stderr, "%s: waitpid: %s\n", who, strerror(ECHILD));
    return -1;
}
/* The pid the agent's daemon() in process parent handed on (FILE.PARENT,
 * removed once read), or 0. */
static pid_t daemon_handed_on(const char *file, pid_t parent) {
    char path[PATH_MAX + 32];
    FILE *f;
    long pid = 0;
    if (!file[0]) return 0;
    snprintf(path, sizeof path, "%s.%ld", file, (long)parent);
    if ((f = fopen(path, "r"))) {
        if (fscanf(f, "%ld", &pid) != 1) pid = 0;
        fclose(f);
        unlink(path);
    }
    return (pid_t)pid;
}
int launch_wait_daemon(const char *who, const char *file, pid_t program_pid, const char *program, int status,
                       int quiet, void (*tick)(void *), void *arg) {
    pid_t d, parent = program_pid;
    /* daemon()'s parent exits 0 inside it; but another thread's exit may
     * race it, and a daemon handed on goes on: waited for whatever the
     * status (its trace or report is not finished before) */
    while ((d = daemon_handed_on(file, parent)) > 0) {
        int st;
        if (!quiet) fprintf(stderr, "%s: %s went on as a daemon (pid %ld); waiting for it (SIGINT or "
                                    "SIGTERM here is passed on)\n", who, program, (long)d);
        if (wait_passing_on(d, &st, 1, tick, arg) == 0) status = st;
        parent = d;
    }
    launch_daemon_files_remove(file);
    return status;
}

int launch_preloaded(const char *who, const char *lib, char **argv, void (*setup)(void *), void (*tick)(void *),
                     void *arg, const char *daemon_env, int quiet) {
    int status;
    pid_t pid;
    char daemon_file[PATH_MAX];
    fflush(0);
    daemon_file[0] = 0;
    if (daemon_env) launch_follow_daemons(who, daemon_file, sizeof daemon_file);
    pid = fork();
    if (pid < 0) {
        fprintf(stderr, "%s: fork: %s\n", who, strerror(errno));
        launch_daemon_files_remove(daemon_file);
        return -1;
    }
    if (pid == 0) {
        const char *old = getenv("LD_PRELOAD");
        char preload[2 * PATH_MAX + 2];
        snprintf(preload, sizeof preload, "%s%s%s", lib, old && *old ? ":" : "", old && *old ? old : "");
        setenv("LD_PRELOAD", preload, 1);
        if (daemon_file[0]) setenv(daemon_env, daemon_file, 1);
        setup(arg);
        execvp(argv[0], argv);
        fprintf(stderr, "%s: cannot run %s: %s\n", who, argv[0], strerror(errno));
        _exit(errno == ENOENT ? 127 : 126);
    }
    signal(SIGINT, SIG_IGN);
    signal(SIGQUIT, SIG_IGN);
    if (launch_wait(who, pid, &status, tick, arg)) {
        launch_daemon_files_remove(daemon_file);
        return -1;
    }
    if (daemon_env) status = launch_wait_daemon(who, daemon_file, pid, argv[0], status, quiet, tick, arg);
    return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}
