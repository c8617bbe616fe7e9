/* Bug: edgeprobe_handler_sync() holds the registry lock while it waits for
 * handlers to drain; a handler that toggles a probe (allowed: "it takes a
 * lock, not held by the caller") waits for that lock inside the drain, so
 * both threads wait forever.
 *   gcc -O2 -finstrument-functions -rdynamic -pthread -Iinclude repro_sync.c provider.o && ./a.out */
#include "edgeprobe.h"
#include <pthread.h>
#include <stdio.h>
#include <signal.h>
#include <unistd.h>
__attribute__((noinline)) int work(int x) { return x * 3 + 1; }
static volatile int other_id = -1;
__attribute__((no_instrument_function)) static void handler(const edgeprobe_info *i, void *u, uintptr_t v) {
    (void)i, (void)u, (void)v;
    edgeprobe_provider_deactivate(0);       /* toggling from a handler: allowed */
}
__attribute__((no_instrument_function)) static void *caller(void *a) {
    volatile int s = 0;
    (void)a;
    for (;;) s += work(s);
    return 0;
}
__attribute__((no_instrument_function)) static void on_alarm(int sig) {
    (void)sig;
    static const char m[] = "DEADLOCK: handler_sync did not return within 5 s\n";
    write(2, m, sizeof m - 1);
    _exit(1);
}
__attribute__((no_instrument_function)) int main(void) {
    pthread_t th;
    int id, n, k;
    work(1);                                 /* discover work's probes */
    n = edgeprobe_point_count();
    for (id = 0; id < n; id++) edgeprobe_provider_activate(id, handler, 0);
    pthread_create(&th, 0, caller, 0);
    signal(SIGALRM, on_alarm);
    alarm(5);
    for (k = 0; k < 100000; k++) {
        edgeprobe_provider_activate(1, handler, 0);   /* the exit probe stays on */
        edgeprobe_handler_sync();
    }
    printf("no deadlock in %d syncs\n", k);
    return 0;
}
