/* EDGEPROBE_DEBUG: a function named *_locked called without the registry
 * lock stops the program with a message naming it; with the lock held it
 * runs. The rule is what the name promises, and this is its check. */
#define EDGEPROBE_DEBUG
#define EDGEPROBE_IMPLEMENTATION
#include "edgeprobe.h"
#include <string.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void) {
    edgeprobe__root *r;
    int status, failures = 0;
    pid_t child;
    edgeprobe_point_count(); /* makes the root */
    r = edgeprobe__this_object.root;
    if (!r) return printf("no root\n"), 1;
    edgeprobe__lock(&r->lock);
    edgeprobe__pages_forget_locked(r); /* held: runs */
    edgeprobe__unlock(&r->lock);
    fflush(stdout);
    child = fork();
    if (child == 0) {
        edgeprobe__pages_forget_locked(r); /* not held: must stop */
        _exit(0);
    }
    waitpid(child, &status, 0);
    failures += !WIFSIGNALED(status);
    printf("unlocked call: %s %d\n", WIFSIGNALED(status) ? "stopped by signal" : "returned", WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    printf("t_debug_lock: %d failed\n", failures);
    return failures != 0;
}
