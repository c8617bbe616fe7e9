/* t_fork_sync.c - edgeprobe_handler_sync in a child made by fork while a
 * thread of the parent was inside a handler. That thread does not exist in
 * the child, but its reader record does, saying "inside a handler": sync
 * must not wait for it forever (before the fix it did; SIGALRM shows it). */
#define _GNU_SOURCE
#define EDGEPROBE_IMPLEMENTATION /* this program's one copy of the implementation */
#include "edgeprobe.h"
#include "check.h"

#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile int inside, release_handler;
static void slow_handler(const edgeprobe_info *info, void *user, uintptr_t value) {
    (void)info, (void)user, (void)value;
    inside = 1;
    while (!release_handler) usleep(1000);
}
static void quick_handler(const edgeprobe_info *info, void *user, uintptr_t value) {
    (void)info, (void)user, (void)value;
}
static void *runner(void *arg) {
    (void)arg;
    EDGEPROBE_HANDLER(fork_h, 1);
    return 0;
}

int main(void) {
    pthread_t th;
    pid_t pid;
    int status = 0;
    CHECK_EQ(edgeprobe_attach("fork_h", slow_handler, 0), 1);
    CHECK_EQ(pthread_create(&th, 0, runner, 0), 0);
    while (!inside) usleep(1000);
    pid = fork();
    if (pid == 0) {
        alarm(10); /* a sync that waits for the vanished thread dies here */
        if (edgeprobe_attach("fork_h", quick_handler, 0) != 1) _exit(2);
        _exit(edgeprobe_handler_sync() == 0 ? 0 : 3);
    }
    CHECK(pid > 0);
    CHECK_EQ(waitpid(pid, &status, 0), pid);
    CHECK(WIFEXITED(status));
    CHECK_EQ(WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status), 0);
    release_handler = 1;
    CHECK_EQ(pthread_join(th, 0), 0);
    /* in the parent the thread was real: sync waited for it and returns */
    CHECK_EQ(edgeprobe_attach("fork_h", quick_handler, 0), 1);
    CHECK_EQ(edgeprobe_handler_sync(), 0);
    return check_done("t_fork_sync");
}
