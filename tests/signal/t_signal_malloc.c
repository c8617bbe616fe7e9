/* Signal handlers that run enabled TRACE (default sink, and a line longer
 * than the stack buffer), HANDLER and PROBE sites, a function probe with
 * entry and exit handlers, and a provider site never called before, while
 * the thread they interrupted is inside malloc: nothing on those paths may
 * call malloc, calloc, realloc or free (the interrupted malloc may hold its
 * lock). The program's own malloc counts the calls made from inside the
 * handler; each thread's first hit of every kind happens there, and the
 * provider site is discovered there. Built with -fpatchable-function-entry=5
 * and linked with tests/signal/provided.c (-finstrument-functions). */
#define _GNU_SOURCE
#define EDGEPROBE_PROVIDER
#define EDGEPROBE_IMPLEMENTATION
#include "edgeprobe.h"
#include "check.h"
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern void *__libc_malloc(size_t), *__libc_calloc(size_t, size_t), *__libc_realloc(void *, size_t);
extern void __libc_free(void *);
static __thread int in_handler, fire;
static int allocs_in_handler, handler_runs, handled, args_seen, func_entries, func_exits, provided;
int sig_provided(int x); /* tests/signal/provided.c */

static void note(void) {
    if (in_handler) __atomic_fetch_add(&allocs_in_handler, 1, __ATOMIC_RELAXED);
    if (fire) { /* "inside malloc": the signal arrives now */
        fire = 0;
        raise(SIGUSR1);
    }
}
void *malloc(size_t n) { note(); return __libc_malloc(n); }
void *calloc(size_t a, size_t b) { note(); return __libc_calloc(a, b); }
void *realloc(void *p, size_t n) { note(); return __libc_realloc(p, n); }
void free(void *p) { note(); __libc_free(p); }

static void on_handler(const edgeprobe_info *probe, void *user, uintptr_t value) {
    (void)probe, (void)user;
    __atomic_fetch_add(&handled, (int)value, __ATOMIC_RELAXED);
}
static void on_args(const edgeprobe_info *probe, void *user, const uint64_t *args, int nargs) {
    (void)probe, (void)user;
    if (nargs == 2 && args[0] == 7 && args[1] == 9) __atomic_fetch_add(&args_seen, 1, __ATOMIC_RELAXED);
}
static int on_func_entry(edgeprobe_func_call *call, void *user) {
    (void)call, (void)user;
    __atomic_fetch_add(&func_entries, 1, __ATOMIC_RELAXED);
    return 1; /* and its exit */
}
static void on_func_exit(const edgeprobe_func_call *call, void *user) {
    (void)call, (void)user;
    __atomic_fetch_add(&func_exits, 1, __ATOMIC_RELAXED);
}
__attribute__((noinline)) int sig_func(int x) { return x * 3; }
static int provided_hits;
static void on_provided_hit(const edgeprobe_info *probe, void *user, uintptr_t fn) {
    (void)probe, (void)user, (void)fn;
    provided_hits++;
}
static char long_text[700];
static void on_signal(int sig) {
    int seven = 7, nine = 9;
    (void)sig;
    in_handler = 1;
    EDGEPROBE_TRACE(sig_trace, "signal trace %d\n", seven);
    EDGEPROBE_TRACE(sig_long, "%s\n", long_text);
    EDGEPROBE_HANDLER(sig_handler, 1);
    EDGEPROBE_PROBE(sig_probe, seven, nine);
    if (sig_func(seven) == 21 && sig_provided(nine) == 10) __atomic_fetch_add(&provided, 1, __ATOMIC_RELAXED);
    in_handler = 0;
    __atomic_fetch_add(&handler_runs, 1, __ATOMIC_RELAXED);
}
static void *thread_main(void *arg) {
    (void)arg;
    fire = 1;
    free(malloc(32)); /* the signal arrives inside this malloc */
    return 0;
}

int main(void) {
    pthread_t th[8];
    int i;
    memset(long_text, 'x', sizeof long_text - 1);
    signal(SIGUSR1, on_signal);
    CHECK_EQ(edgeprobe_enable("sig_trace"), 1);
    CHECK_EQ(edgeprobe_enable("sig_long"), 1);
    CHECK_EQ(edgeprobe_attach("sig_handler", on_handler, 0), 1);
    CHECK_EQ(edgeprobe_attach_args("sig_probe", on_args, 0), 1);
    CHECK_EQ(edgeprobe_func_attach("sig_func", on_func_entry, on_func_exit, 0), 1);
    CHECK_EQ(edgeprobe_provider_attach("sig_provided", on_provided_hit, 0), EDGEPROBE_ENEVER); /* not called yet */
    for (i = 0; i < 8; i++) CHECK_EQ(pthread_create(&th[i], 0, thread_main, 0), 0);
    for (i = 0; i < 8; i++) CHECK_EQ(pthread_join(th[i], 0), 0);
    printf("%d handler runs, %d allocations inside them\n", handler_runs, allocs_in_handler);
    CHECK_EQ(handler_runs, 8);
    CHECK_EQ(handled, 8);
    CHECK_EQ(args_seen, 8);
    CHECK_EQ(func_entries, 8);
    CHECK_EQ(func_exits, 8);
    CHECK_EQ(provided, 8);
    /* the site was found in a handler: now it is listed, and it switches */
    CHECK(edgeprobe_provider_attach("sig_provided", on_provided_hit, 0) >= 0);
    CHECK_EQ(sig_provided(1), 2);
    CHECK_EQ(provided_hits, 2); /* entry and exit */
    CHECK_EQ(allocs_in_handler, 0);
    return check_done("t_signal_malloc");
}
