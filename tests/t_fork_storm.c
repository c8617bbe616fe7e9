/* fork while another thread switches probes (and so holds the registry lock
 * now and then): every child must be able to use edgeprobe - switch a probe,
 * dlopen a library with probes and switch those, dlclose it, and exit
 * (the destructors take the lock) - within its alarm. A child that inherits
 * a held lock hangs and is killed by SIGALRM: a failure. Then a handler
 * forks while another thread is in edgeprobe_handler_sync, waiting for that
 * very handler: neither the parent nor the child may hang.
 *     t_fork_storm PLUGIN.so [SECONDS] */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#define EDGEPROBE_IMPLEMENTATION
#include "edgeprobe.h"
#include "check.h"
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile int stop;
static int branch(void) { return EDGEPROBE_BRANCH(storm_branch) ? 1 : 0; }
static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}
static void *toggler(void *arg) {
    (void)arg;
    while (!stop) {
        edgeprobe_enable("storm_*");
        edgeprobe_disable("storm_*");
    }
    return 0;
}
/* The child's whole life; its exit status says what failed. */
static int child(const char *plugin) {
    int (*fn)(int);
    void *h;
    alarm(10);
    if (edgeprobe_enable("storm_branch") < 0 || !branch()) return 2;
    if (!(h = dlopen(plugin, RTLD_NOW))) return 3;
    fn = (int (*)(int))(uintptr_t)dlsym(h, "impl_plugin");
    if (!fn || edgeprobe_enable("impl_plugin_branch") != 1 || fn(1) != 10001) return 4;
    dlclose(h);
    return 0; /* exit: destructors run */
}

/* Phase 2: fork from inside a handler while syncs run. */
static volatile int sync_stop, handler_forks, handler_fork_failures, in_child;
static void forking_handler(const edgeprobe_info *probe, void *user, uintptr_t value) {
    int status;
    pid_t pid;
    (void)probe, (void)user, (void)value;
    if ((pid = fork()) == 0) { /* the child leaves the handler, then syncs (below) */
        in_child = 1;
        return;
    }
    handler_forks++;
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
        handler_fork_failures++;
}
/* In the child, out of the handler: a sync (its lock was held by the
 * parent's syncing thread, which the child does not have) and a switch. */
static void child_after_handler(void) {
    alarm(10);
    _exit(edgeprobe_handler_sync() == 0 && edgeprobe_enable("storm_branch") >= 0 ? 0 : 5);
}
static void *syncer(void *arg) {
    (void)arg;
    while (!sync_stop) edgeprobe_handler_sync();
    return 0;
}

int main(int argc, char **argv) {
    double seconds = argc > 2 ? atof(argv[2]) : 3, t0 = now();
    pthread_t th[2];
    int forks = 0, i, bad = 0;
    if (argc < 2) return 2;
    for (i = 0; i < 2; i++) CHECK_EQ(pthread_create(&th[i], 0, toggler, 0), 0);
    /* the togglers keep the lock busy: on a loaded machine a fork may wait
     * long for it, so go on (up to a minute) until 10 forks were made */
    while ((now() - t0 < seconds || forks < 10) && now() - t0 < 60 && forks < 2000) {
        int status;
        pid_t pid = fork();
        if (pid == 0) exit(child(argv[1]));
        CHECK(pid > 0);
        if (pid < 0) break;
        forks++;
        CHECK_EQ(waitpid(pid, &status, 0), pid);
        if (!WIFEXITED(status) || WEXITSTATUS(status)) {
            if (bad++ < 5)
                printf("child %d: %s %d\n", forks, WIFSIGNALED(status) ? "killed by signal" : "exit status",
                       WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
        }
    }
    stop = 1;
    for (i = 0; i < 2; i++) pthread_join(th[i], 0);
    printf("%d forks in %.1f s, %d children failed\n", forks, now() - t0, bad);
    CHECK_EQ(bad, 0);
    CHECK(forks >= 10);

    CHECK_EQ(edgeprobe_attach("storm_handler", forking_handler, 0), 1);
    CHECK_EQ(pthread_create(&th[0], 0, syncer, 0), 0);
    for (i = 0; i < 20; i++) {
        EDGEPROBE_HANDLER(storm_handler, i);
        if (in_child) child_after_handler();
    }
    sync_stop = 1;
    CHECK_EQ(pthread_join(th[0], 0), 0);
    printf("%d forks from a handler during syncs, %d failed\n", handler_forks, handler_fork_failures);
    CHECK_EQ(handler_forks, 20);
    CHECK_EQ(handler_fork_failures, 0);
    return check_done("t_fork_storm");
}
