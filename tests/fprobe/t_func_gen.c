/* A call that entered under one binding and returns after that binding was
 * detached, synced, freed and replaced by a new one (which malloc may place
 * at the freed one's address) must not run the new exit handler with the
 * old entry's data. Built with -fpatchable-function-entry=5. */
#define EDGEPROBE_IMPLEMENTATION
#include "edgeprobe.h"
#include "check.h"
#include <pthread.h>
#include <sched.h>

static volatile int inside, release_call, stale_exits, new_exits, old_exits;

__attribute__((noinline)) int gen_slow(int x) {
    inside = 1;
    while (!release_call) sched_yield();
    return x + 1;
}
__attribute__((noinline, no_instrument_function)) static void *caller(void *arg) {
    (void)arg;
    return (void *)(intptr_t)gen_slow(1);
}
static int entry_old(edgeprobe_func_call *call, void *user) { (void)user, call->data = 111; return 1; }
static void exit_old(const edgeprobe_func_call *call, void *user) { (void)call, (void)user, old_exits++; }
static int entry_new(edgeprobe_func_call *call, void *user) { (void)user, call->data = 222; return 1; }
static void exit_new(const edgeprobe_func_call *call, void *user) {
    (void)user;
    if (call->data == 111) stale_exits++; /* the old entry's data in the new exit */
    else new_exits++;
}

int main(void) {
    pthread_t th;
    if (edgeprobe_func_scan() < 0) return printf("skipped: not built with -fpatchable-function-entry=5\n"), 77;
    CHECK_EQ(edgeprobe_func_attach("gen_slow", entry_old, exit_old, 0), 1);
    CHECK_EQ(pthread_create(&th, 0, caller, 0), 0);
    while (!inside) sched_yield(); /* entered under the old binding */
    CHECK_EQ(edgeprobe_func_detach("gen_slow"), 1);
    CHECK_EQ(edgeprobe_handler_sync(), 0); /* the old binding is freed */
    CHECK_EQ(edgeprobe_func_attach("gen_slow", entry_new, exit_new, 0), 1);
    release_call = 1;
    CHECK_EQ(pthread_join(th, 0), 0);
    CHECK_EQ(stale_exits, 0);
    CHECK_EQ(old_exits, 0); /* freed: never run */
    release_call = 1;
    inside = 0;
    CHECK_EQ(gen_slow(5), 6); /* a call under the new binding gets its exit */
    CHECK_EQ(new_exits, 1);
    return check_done("t_func_gen");
}
