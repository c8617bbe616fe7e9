/* A stand-in for the agent whose constructor takes 2 s: loaded with
 * `edgeprobe attach --lib`, it holds the seized thread inside the injected
 * dlopen long enough for tests/attach/vanisher.c to exit or exec there, and
 * for tests/attach/blocker.c's sleep to pass its deadline, however loaded
 * the machine. It waits in a futex with a timeout, not in nanosleep: a
 * nanosleep on the seized thread would reset the thread's restart block,
 * and the sleep it was seized in could no longer restart (EINTR). The real
 * agent makes no such call on the seized thread (tools/prof_agent.c,
 * attached_start: only pthread_create). */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int never_woken;

__attribute__((constructor)) static void take_long(void) {
    struct timespec t = {2, 0};
    while (syscall(SYS_futex, &never_woken, FUTEX_WAIT_PRIVATE, 0, &t, 0, 0) && errno == EINTR) {
    }
}
