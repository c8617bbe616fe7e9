/* t_stale.c - frames a longjmp leaves on the shadow stack when no hooked
 * caller returns past them (a coroutine's yield whose resume is not hooked:
 * a sampling profiler hooks only some calls). `inner` has its exit hooked
 * and leaves by longjmp to `resume`, which nothing hooks; 100,000 times,
 * more than the shadow stack holds (EDGEPROBE_FUNC_DEPTH). Every later
 * call must still have its exit hooked (no exit lost), and the exits of
 * calls that do return must run. Also a tail call between two hooked
 * functions (both frames share a return slot and both are live), and
 * signal handlers on an alternate stack that lies just above the frames
 * they interrupt (an array in a caller's frame; a thread whose stack was
 * mapped right below its alternate stack): the frames below the handler's
 * calls are live, not left by longjmp (each used to abort at its return:
 * "return trampoline reached with no frame for it"). */
#define EDGEPROBE_IMPLEMENTATION /* this program's one copy of the implementation */
#include "edgeprobe.h"
#include "check.h"

#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>

#define ROUNDS 100000
static jmp_buf back;
static volatile long entries, exits; /* also counted in signal handlers */
static int on_entry(edgeprobe_func_call *call, void *user) {
    (void)call, (void)user;
    entries++;
    return 1; /* hook every exit */
}
static void on_exit_(const edgeprobe_func_call *call, void *user) {
    (void)call, (void)user;
    exits++;
}
__attribute__((noinline)) void jump_out(void) { longjmp(back, 1); }
__attribute__((noinline)) int inner(int x) {
    if (x >= 0) jump_out();
    return x;
}
__attribute__((noinline, patchable_function_entry(0, 0))) static void resume(int i) { /* not a probe */
    if (!setjmp(back)) inner(i);
}
__attribute__((noinline)) int leaf(int x) { return x * 3; }
__attribute__((noinline)) int tail_caller(int x) { return leaf(x + 1); } /* a sibling call at -O2 */

/* A handler on the alternate stack calls a hooked function while the
 * hooked `interrupted` waits for its return. */
#define ALT_SIZE (64 << 10)
#define SIGNALS 1000
static sigjmp_buf recover;
static volatile int jump_out_of_handler; /* handler_work leaves by siglongjmp (a fault's recovery) */
__attribute__((noinline)) int handler_work(int x) {
    if (jump_out_of_handler) siglongjmp(recover, 1);
    return x + 1;
}
static volatile int handled;
static void on_usr1(int sig) { handled += handler_work(sig) - sig; }
__attribute__((noinline)) int interrupted(int x) {
    raise(SIGUSR1);
    return x * 2;
}
/* SIGNALS calls of `interrupted`, each with a signal handled on the
 * alternate stack [alt, alt + ALT_SIZE); 0 if every call and exit was seen. */
static int signals_on(char *alt) {
    stack_t ss, off;
    struct sigaction sa;
    int i, bad = 0;
    memset(&ss, 0, sizeof ss);
    ss.ss_sp = alt, ss.ss_size = ALT_SIZE;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_usr1;
    sa.sa_flags = SA_ONSTACK;
    if (sigaltstack(&ss, 0) || sigaction(SIGUSR1, &sa, 0)) return -1;
    entries = exits = handled = 0;
    for (i = 0; i < SIGNALS; i++) bad |= interrupted(i) != 2 * i;
    memset(&off, 0, sizeof off);
    off.ss_flags = SS_DISABLE;
    sigaltstack(&off, 0);
    return bad || handled != SIGNALS || entries != 2L * SIGNALS || exits != 2L * SIGNALS;
}
/* ROUNDS_OUT signals whose handler leaves by siglongjmp from inside
 * handler_work: each leaves its frame on the alternate stack and
 * `interrupted`'s below it, dead; kept (two a round), they filled the
 * shadow stack. 0 if no exit was lost and a later call's exit still runs. */
#define ROUNDS_OUT 40000
static int jumps_out(char *alt) {
    stack_t ss, off;
    struct sigaction sa;
    long before;
    volatile int i; /* kept across siglongjmp */
    memset(&ss, 0, sizeof ss);
    ss.ss_sp = alt, ss.ss_size = ALT_SIZE;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_usr1;
    sa.sa_flags = SA_ONSTACK | SA_NODEFER;
    if (sigaltstack(&ss, 0) || sigaction(SIGUSR1, &sa, 0)) return -1;
    jump_out_of_handler = 1;
    for (i = 0; i < ROUNDS_OUT; i++)
        if (!sigsetjmp(recover, 1)) interrupted(i);
    jump_out_of_handler = 0;
    memset(&off, 0, sizeof off);
    off.ss_flags = SS_DISABLE;
    sigaltstack(&off, 0);
    before = exits;
    return interrupted(1) != 2 || exits != before + 2 || edgeprobe_func_lost_exits() != 0;
}
__attribute__((noinline)) static int altstack_in_frame(void) {
    char alt[ALT_SIZE]; /* above `interrupted`'s frame */
    int rc = signals_on(alt);
    if (!rc) rc = jumps_out(alt);
    __asm__ volatile("" ::"r"(alt) : "memory");
    return rc;
}
static void *thread_below_altstack(void *p) { return (void *)(long)signals_on((char *)p); }
/* A thread whose stack ends where its alternate stack begins. */
static int altstack_above_thread(void) {
    size_t stack_size = 1 << 20;
    char *m = (char *)mmap(0, stack_size + ALT_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    pthread_attr_t attr;
    pthread_t th;
    void *rc = (void *)1;
    if (m == MAP_FAILED) return -1;
    pthread_attr_init(&attr);
    pthread_attr_setstack(&attr, m, stack_size);
    if (pthread_create(&th, &attr, thread_below_altstack, m + stack_size) == 0) pthread_join(th, &rc);
    pthread_attr_destroy(&attr);
    munmap(m, stack_size + ALT_SIZE);
    return (int)(long)rc;
}

int main(void) {
    int i, probes;
    CHECK((probes = edgeprobe_func_scan()) > 0);
    CHECK_EQ(edgeprobe_func_attach("inner", on_entry, on_exit_, 0), 1);
    CHECK_EQ(edgeprobe_func_attach("jump_out", on_entry, on_exit_, 0), 1);
    for (i = 0; i < ROUNDS; i++) resume(i);
    CHECK_EQ(entries, 2L * ROUNDS);
    CHECK_EQ(exits, 0L); /* every one left by longjmp */
    CHECK_EQ(edgeprobe_func_lost_exits(), 0UL);
    CHECK_EQ(inner(-1), -1); /* returns: its exit runs */
    CHECK_EQ(exits, 1L);
    CHECK_EQ(edgeprobe_func_attach("leaf", on_entry, on_exit_, 0), 1);
    CHECK_EQ(edgeprobe_func_attach("tail_caller", on_entry, on_exit_, 0), 1);
    entries = exits = 0;
    for (i = 0; i < 1000; i++) CHECK_EQ(tail_caller(i), 3 * (i + 1));
    CHECK_EQ(entries, 2000L);
    CHECK_EQ(exits, 2000L);
    CHECK_EQ(edgeprobe_func_lost_exits(), 0UL);
    CHECK_EQ(edgeprobe_func_attach("interrupted", on_entry, on_exit_, 0), 1);
    CHECK_EQ(edgeprobe_func_attach("handler_work", on_entry, on_exit_, 0), 1);
    CHECK_EQ(altstack_in_frame(), 0);
    CHECK_EQ(altstack_above_thread(), 0);
    CHECK_EQ(edgeprobe_func_lost_exits(), 0UL);
    return check_done("t_stale");
}
