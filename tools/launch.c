/* tools/launch.c - see tools/launch.h. */
#include "launch.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
int launch_preloaded(const char *who, const char *lib, char **argv, void (*setup)(void *), void (*tick)(void *),
                     void *arg) {
    int status;
    pid_t pid, done;
    fflush(0);
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
        setup(arg);
        execvp(argv[0], argv);
        fprintf(stderr, "%s: cannot run %s: %s\n", who, argv[0], strerror(errno));
        _exit(errno == ENOENT ? 127 : 126);
    }
    signal(SIGINT, SIG_IGN);
    signal(SIGQUIT, SIG_IGN);
    while ((done = waitpid(pid, &status, tick ? WNOHANG : 0)) <= 0) {
        if (done < 0 && errno != EINTR) {
            fprintf(stderr, "%s: waitpid: %s\n", who, strerror(errno));
            return -1;
        }
        if (done == 0) {
            struct timespec quarter = {0, 250000000};
            tick(arg);
            nanosleep(&quarter, NULL);
        }
    }
    return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}
