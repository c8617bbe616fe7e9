/* t_stale.c - frames a longjmp leaves on the shadow stack when no hooked
 * caller returns past them (a coroutine's yield whose resume is not hooked:
 * a sampling profiler hooks only some calls). `inner` has its exit hooked
 * and leaves by longjmp to `resume`, which nothing hooks; 100,000 times,
 * more than the shadow stack holds (EDGEPROBE_FUNC_DEPTH). Every later
 * call must still have its exit hooked (no exit lost), and the exits of
 * calls that do return must run. Also a tail call between two hooked
 * functions (both frames share a return slot and both are live). */
#define EDGEPROBE_IMPLEMENTATION /* this program's one copy of the implementation */
#include "edgeprobe.h"
#include "check.h"

#include <setjmp.h>

#define ROUNDS 100000
static jmp_buf back;
static long entries, exits;
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
    return check_done("t_stale");
}
