/* tests/t_exit_race.c - probes switched on while the process exits.
 *
 * At exit, each object's destructor unregisters its probes while other
 * threads still run their enabled sites (exit does not stop them). A thread
 * may have read its point from the marker's mark just before the destructor
 * cleared the mark, so the registry must not free the points then. Here a
 * worker hits an enabled TRACE and an enabled BRANCH in a loop while main
 * returns, and a destructor that runs after edgeprobe's (priority 101)
 * keeps the process alive a little longer. Linked with the 2,500 generated
 * probes of tests/gen_startup.py, so the object's points need a block of
 * their own mapping (one that freeing would unmap). The driver runs it many
 * times (tests/drivers/flaky.sh); one crash fails the case. */
#define EDGEPROBE_IMPLEMENTATION /* this program's one copy of the implementation */
#include "edgeprobe.h"
#include <pthread.h>
#include <string.h>
#include <unistd.h>

static char text[100000]; /* formatting it holds the point a while */
static volatile unsigned long rounds;
static void *worker(void *arg) {
    (void)arg;
    for (;;) {
        EDGEPROBE_TRACE(exit_trace, "%s %s %s %s", text, text, text, text);
        if (EDGEPROBE_BRANCH(exit_branch)) rounds++;
    }
    return NULL;
}
#pragma GCC diagnostic ignored "-Wprio-ctor-dtor"
__attribute__((destructor(100))) static void later_teardown(void) { usleep(2000); }

int main(void) {
    pthread_t t;
    memset(text, 'x', sizeof text - 1);
    if (edgeprobe_enable("exit_*") != 2) return 1;
    if (pthread_create(&t, NULL, worker, NULL)) return 1;
    while (rounds < 100) usleep(100);
    return 0; /* the worker is still running */
}
