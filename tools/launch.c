/* tools/launch.c - see tools/launch.h. */
#include "launch.h"

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
void launch_follow_daemons(const char *who_tag, char *file, size_t n) {
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    snprintf(file, n, "/tmp/edgeprobe-%s-%ld.daemon", who_tag, (long)getpid());
    unlink(file);
}
int launch_wait(const char *who, pid_t pid, int *status, void (*tick)(void *), void *arg) {
    for (;;) { /* orphans of PROGRAM's that end meanwhile are ours to reap (the subreaper's) */
        pid_t done = waitpid(-1, status, tick ? WNOHANG : 0);
        if (done == pid) return 0;
        if (done < 0 && errno == EINTR) continue;
        if (done < 0) {
            fprintf(stderr, "%s: waitpid: %s\n", who, strerror(errno));
            return -1;
        }
        if (done == 0) {
            struct timespec quarter = {0, 250000000};
            tick(arg);
            nanosleep(&quarter, NULL);
        }
    }
}
static pid_t daemon_pid(const char *file) {
    FILE *f = fopen(file, "r");
    long pid = 0;
    if (f) {
        if (fscanf(f, "%ld", &pid) != 1) pid = 0;
        fclose(f);
    }
    return (pid_t)pid;
}
int launch_wait_daemon(const char *who, const char *file, const char *program, int status, int quiet,
                       void (*tick)(void *), void *arg) {
    sigset_t sigs;
    pid_t d, last = 0;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) { /* daemon()'s parent exits 0 inside it */
        unlink(file);
        return status;
    }
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGINT);
    sigaddset(&sigs, SIGTERM);
    sigaddset(&sigs, SIGCHLD);
    sigprocmask(SIG_BLOCK, &sigs, 0); /* taken by sigtimedwait below: none lost between two looks */
    while ((d = daemon_pid(file)) > 0 && d != last) {
        struct timespec quarter = {0, 250000000};
        int st, sig;
        pid_t done = 0;
        if (!quiet) fprintf(stderr, "%s: %s went on as a daemon (pid %ld); waiting for it (SIGINT or "
                                    "SIGTERM here is passed on)\n", who, program, (long)d);
        while (done != d) {
            while ((done = waitpid(-1, &st, WNOHANG)) > 0 && done != d) {} /* other orphans */
            if (done == d) break;
            if (done < 0 && errno == ECHILD) break; /* not ours: gone */
            if ((sig = sigtimedwait(&sigs, 0, &quarter)) == SIGINT || sig == SIGTERM) kill(d, sig);
            if (tick) tick(arg);
        }
        if (done == d) status = st;
        last = d;
    }
    unlink(file);
    return status;
}

int launch_preloaded(const char *who, const char *lib, char **argv, void (*setup)(void *), void (*tick)(void *),
                     void *arg, const char *daemon_env, int quiet) {
    int status;
    pid_t pid;
    char daemon_file[64];
    fflush(0);
    if (daemon_env) launch_follow_daemons(strncmp(who, "edgeprobe ", 10) ? who : who + 10, daemon_file, sizeof daemon_file);
    pid = fork();
    if (pid < 0) {
        fprintf(stderr, "%s: fork: %s\n", who, strerror(errno));
        return -1;
    }
    if (pid == 0) {
        const char *old = getenv("LD_PRELOAD");
        char preload[2 * PATH_MAX + 2];
        snprintf(preload, sizeof preload, "%s%s%s", lib, old && *old ? ":" : "", old && *old ? old : "");
        setenv("LD_PRELOAD", preload, 1);
        if (daemon_env) setenv(daemon_env, daemon_file, 1);
        setup(arg);
        execvp(argv[0], argv);
        fprintf(stderr, "%s: cannot run %s: %s\n", who, argv[0], strerror(errno));
        _exit(errno == ENOENT ? 127 : 126);
    }
    signal(SIGINT, SIG_IGN);
    signal(SIGQUIT, SIG_IGN);
    if (launch_wait(who, pid, &status, tick, arg)) return -1;
    if (daemon_env) status = launch_wait_daemon(who, daemon_file, argv[0], status, quiet, tick, arg);
    return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}
