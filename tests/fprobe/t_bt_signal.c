/* t_bt_signal.c - a program that unwinds in a signal handler while its own
 * code unwinds too (a SIGPROF sampler calling backtrace(), a program that
 * logs backtraces), with function probes in use: scanned, one function
 * attached, its calls counted by the stubs' head (header 27.4).
 *
 * libgcc before gcc 13 finds unwind tables without a lock until anything
 * is registered with __register_frame; from then on every lookup takes
 * its lock, and a handler that unwinds on a thread inside an unwind waits
 * for ever. So the header registers the stubs' table only under
 * EDGEPROBE_FUNC_UNWIND_TABLE; by default this must finish (linked with
 * libgcc_s, so that the weak __register_frame would bind if used). The
 * driver runs it with a timeout; SIGALRM after 20 s also says "hung". */
#define _GNU_SOURCE
#define EDGEPROBE_IMPLEMENTATION
#include "edgeprobe.h"
#include "check.h"
#include <execinfo.h>
#include <signal.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static volatile long samples;
static void on_prof(int sig) {
    void *b[32];
    (void)sig;
    if (backtrace(b, 32) > 0) samples++;
}
static void on_alarm(int sig) {
    static const char msg[] = "hung: a backtrace in the SIGPROF handler never returned\n";
    (void)sig;
    if (write(2, msg, sizeof msg - 1) < 0) _exit(4);
    _exit(3);
}
static int counted(edgeprobe_func_call *call, void *user) { return (void)call, (void)user, 0; }

__attribute__((noinline)) int bt_probed(int x) { /* built with the flag */
    __asm__ volatile("" : "+r"(x));
    return x + 1;
}
__attribute__((noinline)) static int unwind_here(void) {
    void *b[32];
    return backtrace(b, 32);
}
static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}
int main(void) {
    struct sigaction sa;
    struct itimerval it = {{0, 97}, {0, 97}};
    int id = -1, n, i;
    long loops = 0, sum = 0;
    double end;
    CHECK(edgeprobe_func_scan() > 0);
    n = edgeprobe_point_count();
    for (i = 0; i < n; i++) {
        edgeprobe_info info;
        if (edgeprobe_point_info(i, &info) == 0 && !strcmp(info.name, "bt_probed")) id = i;
    }
    CHECK(id >= 0);
    CHECK_EQ(edgeprobe_func_attach_id(id, counted, 0, 0), 1);
    CHECK(edgeprobe_func_skip(id, 1l << 50) >= 0); /* every call through the head */
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_prof;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGPROF, &sa, 0);
    signal(SIGALRM, on_alarm);
    alarm(20);
    setitimer(ITIMER_PROF, &it, 0);
    for (end = now() + 3; loops < 5000000 && now() < end; loops++) sum += unwind_here() + bt_probed((int)loops);
    memset(&it, 0, sizeof it);
    setitimer(ITIMER_PROF, &it, 0);
    alarm(0);
    printf("%ld loops, %ld backtraces in the handler, %ld calls counted\n", loops, samples, edgeprobe_func_skip(id, 0));
    CHECK(loops > 1000);
    CHECK(samples > 0);
    CHECK(sum > 0);
    return check_done("t_bt_signal");
}
