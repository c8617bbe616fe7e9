/* control.c - benchmarks of issue 10 (operating a running process):
 *
 *   hits     TSC ticks per hit of one enabled probe hit by 2 threads at once,
 *            with and without hit counting (BRANCH, TRACE with an empty
 *            sink, HANDLER); both variants in the same run, interleaved.
 *   latency  end to end: from starting `edgeprobe enable PID PROBE` to the
 *            first hit of PROBE in this process (a thread spins on it); and
 *            the endpoint alone: from a request written to the socket by an
 *            in-process client to the first hit.
 *   trace    `edgeprobe trace PID PROBE -d SECONDS` against a thread that
 *            runs a loop holding one TRACE probe: lines per second delivered
 *            to the command's stdout (/dev/null), lines dropped, and the
 *            loop's rate while streaming against the probe off (and on,
 *            printing to stderr redirected to /dev/null).
 *
 * Usage: control EDGEPROBE_COMMAND [hits|latency|trace|all]. Prints
 * markdown tables; medians over repetitions. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdarg.h>
#include <pthread.h>
#include <sched.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define EDGEPROBE_IMPLEMENTATION /* this program's one copy of the implementation */
#include "edgeprobe.h"

extern char **environ;
/* The TRACE sink of the hit benchmark: nothing, or format the line into a
 * buffer (what any real sink does first). */
static int sink_formats;
int hits_sink(const char *fmt, ...);
int hits_sink(const char *fmt, ...) {
    char line[128];
    va_list ap;
    if (!sink_formats) return 0;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    __asm__ volatile("" : : "r"(line) : "memory");
    return 0;
}
uint64_t branch_loop_counted(uint64_t), branch_loop_uncounted(uint64_t);
uint64_t trace_loop_counted(uint64_t), trace_loop_uncounted(uint64_t);
uint64_t handler_loop_counted(uint64_t), handler_loop_uncounted(uint64_t);
uint64_t branch_loop_naive(uint64_t), branch_loop_private(uint64_t);

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}
static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ---- hits: 2 threads, one enabled probe ------------------------------------ */
#define HIT_N 2000000
#define HIT_REPS 15
typedef uint64_t (*loop_fn)(uint64_t);
typedef struct {
    loop_fn fn;
    pthread_barrier_t *go;
    double ticks_per_hit;
    unsigned stripe;
} hit_job;
static void *hit_thread(void *arg) {
    hit_job *j = (hit_job *)arg;
    uint64_t t0;
    j->stripe = edgeprobe__hit_stripe();
    pthread_barrier_wait(j->go);
    t0 = __builtin_ia32_rdtsc();
    j->fn(HIT_N);
    j->ticks_per_hit = (double)(__builtin_ia32_rdtsc() - t0) / HIT_N;
    return NULL;
}
/* Both threads run fn at once; ticks per hit, the slower thread's. */
static double two_threads(loop_fn fn, unsigned stripes[2]) {
    pthread_t t[2];
    pthread_barrier_t go;
    hit_job j[2];
    int i;
    pthread_barrier_init(&go, NULL, 2);
    for (i = 0; i < 2; i++) {
        j[i].fn = fn;
        j[i].go = &go;
        pthread_create(&t[i], NULL, hit_thread, &j[i]);
    }
    for (i = 0; i < 2; i++) pthread_join(t[i], NULL);
    pthread_barrier_destroy(&go);
    stripes[0] = j[0].stripe, stripes[1] = j[1].stripe;
    return j[0].ticks_per_hit > j[1].ticks_per_hit ? j[0].ticks_per_hit : j[1].ticks_per_hit;
}
static void on_handler(const edgeprobe_info *info, void *user, uintptr_t v) { (void)info, (void)user, (void)v; }
static void bench_hits(void) {
    static const struct {
        const char *what;
        loop_fn counted, uncounted;
        int formats;
    } kinds[] = {{"BRANCH (empty body)", branch_loop_counted, branch_loop_uncounted, 0},
                 {"BRANCH, floor: body increments a thread-private counter", branch_loop_private, branch_loop_uncounted, 0},
                 {"BRANCH, counted by one shared atomic counter instead", branch_loop_naive, branch_loop_uncounted, 0},
                 {"TRACE (empty sink)", trace_loop_counted, trace_loop_uncounted, 0},
                 {"TRACE (sink formats the line: vsnprintf)", trace_loop_counted, trace_loop_uncounted, 1},
                 {"HANDLER (empty handler)", handler_loop_counted, handler_loop_uncounted, 0}};
    unsigned k, stripes[2] = {0, 0};
    int r, collided = 0;
    edgeprobe_enable("bh_branch");
    edgeprobe_enable("bh_trace");
    edgeprobe_attach("bh_handler", on_handler, NULL);
    printf("\n### Hit counting: one enabled probe hit by 2 threads at once\n\n");
    printf("TSC ticks per hit (the slower thread), median of %d runs of %d hits per thread, "
           "counted and uncounted interleaved.\n\n", HIT_REPS, HIT_N);
    printf("| enabled probe | uncounted | counted | ratio |\n|---|---:|---:|---:|\n");
    for (k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        double on[HIT_REPS], off[HIT_REPS], mon, moff;
        sink_formats = kinds[k].formats;
        for (r = 0; r < HIT_REPS; r++) {
            off[r] = two_threads(kinds[k].uncounted, stripes);
            on[r] = two_threads(kinds[k].counted, stripes);
            collided += stripes[0] == stripes[1];
        }
        moff = median(off, HIT_REPS);
        mon = median(on, HIT_REPS);
        printf("| %s | %.2f | %.2f | %.3f |\n", kinds[k].what, moff, mon, mon / moff);
    }
    if (&edgeprobe__rseq_size && edgeprobe__rseq_size) printf("\n(hit counters striped by CPU, read through rseq)\n");
    else printf("\n(hit counters striped by thread-pointer hash; runs in which the two threads shared a stripe: %d of %d)\n",
                collided, HIT_REPS * (int)(sizeof kinds / sizeof kinds[0]));
    edgeprobe_disable("bh_*");
}

/* ---- latency: enable to first hit -------------------------------------------- */
#define LAT_REPS 31
static volatile int lat_running = 1;
static uint64_t lat_first_hit; /* nanoseconds, 0 until the probe is hit */
static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
static void *lat_spinner(void *arg) {
    (void)arg;
    while (lat_running) {
        if (EDGEPROBE_BRANCH(lat_probe) && !lat_first_hit) __atomic_store_n(&lat_first_hit, now_ns(), __ATOMIC_RELEASE);
        __builtin_ia32_pause();
    }
    return NULL;
}
static double wait_first_hit(uint64_t t0) {
    while (!__atomic_load_n(&lat_first_hit, __ATOMIC_ACQUIRE) && now_ns() - t0 < 5000000000u) sched_yield();
    return lat_first_hit ? (double)(lat_first_hit - t0) / 1e3 : -1;
}
static void bench_latency(const char *tool) {
    double cmd[LAT_REPS], sock[LAT_REPS], spawn[LAT_REPS], mcmd, msock, mspawn;
    char pid[16];
    int r, fd;
    pthread_t spinner;
    struct sockaddr_un addr;
    pthread_create(&spinner, NULL, lat_spinner, NULL);
    snprintf(pid, sizeof pid, "%d", (int)getpid());
    for (r = 0; r < LAT_REPS; r++) { /* the command, as a user runs it */
        char *argv[] = {(char *)tool, (char *)"enable", pid, (char *)"lat_probe", NULL};
        posix_spawn_file_actions_t fa;
        pid_t child;
        uint64_t t0;
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
        lat_first_hit = 0;
        t0 = now_ns();
        posix_spawn(&child, tool, &fa, NULL, argv, environ);
        cmd[r] = wait_first_hit(t0);
        waitpid(child, NULL, 0);
        posix_spawn_file_actions_destroy(&fa);
        edgeprobe_disable("lat_probe");
        usleep(2000); /* the spinner may be past the site: let it settle */
        {             /* for scale: spawning a program that does nothing */
            char *targv[] = {(char *)"/bin/true", NULL};
            t0 = now_ns();
            posix_spawn(&child, "/bin/true", NULL, NULL, targv, environ);
            waitpid(child, NULL, 0);
            spawn[r] = (double)(now_ns() - t0) / 1e3;
        }
    }
    memset(&addr, 0, sizeof addr);
    addr.sun_family = AF_UNIX;
    snprintf(addr.sun_path, sizeof addr.sun_path, "%s", edgeprobe_control_path());
    for (r = 0; r < LAT_REPS; r++) { /* the endpoint alone: connected client, one request */
        char reply[64];
        uint64_t t0;
        fd = socket(AF_UNIX, SOCK_STREAM, 0);
        connect(fd, (struct sockaddr *)&addr, sizeof addr);
        lat_first_hit = 0;
        t0 = now_ns();
        if (write(fd, "enable lat_probe\n", 17) != 17) break;
        sock[r] = wait_first_hit(t0);
        if (read(fd, reply, sizeof reply) <= 0) break;
        close(fd);
        edgeprobe_disable("lat_probe");
        usleep(2000);
    }
    lat_running = 0;
    pthread_join(spinner, NULL);
    printf("\n### Enable to first hit\n\n");
    printf("Microseconds from the start of the request to the first hit of the probe by a thread\n"
           "spinning on it, median of %d.\n\n", LAT_REPS);
    printf("| path | median µs | min µs |\n|---|---:|---:|\n");
    mcmd = median(cmd, LAT_REPS); /* sorts: [0] is then the minimum */
    msock = median(sock, LAT_REPS);
    printf("| `edgeprobe enable PID lat_probe` (process start, connect, request) | %.0f | %.0f |\n", mcmd, cmd[0]);
    printf("| request on an open connection to the endpoint | %.0f | %.0f |\n", msock, sock[0]);
    mspawn = median(spawn, LAT_REPS);
    printf("| for scale: spawn `/bin/true` and wait for its exit | %.0f | %.0f |\n", mspawn, spawn[0]);
}

/* ---- trace: throughput and slowdown ------------------------------------------ */
#define TRACE_SECONDS 1.0
#define TRACE_REPS 3
static volatile int tr_running = 1;
static unsigned long tr_iterations;
static void *tr_worker(void *arg) {
    unsigned long i;
    int v = 1, k;
    (void)arg;
    for (i = 0; tr_running; i++) {
        for (k = 0; k < 100; k++) v = v * 31 + k; /* the program's work */
        EDGEPROBE_TRACE(tr_line, "iteration %lu value %d\n", i, v);
        __atomic_store_n(&tr_iterations, i, __ATOMIC_RELAXED);
    }
    return NULL;
}
/* Loop iterations per second over a window. */
static double loop_rate(double seconds) {
    unsigned long a = __atomic_load_n(&tr_iterations, __ATOMIC_RELAXED), b;
    double t0 = now_s(), t1;
    usleep((useconds_t)(seconds * 1e6));
    b = __atomic_load_n(&tr_iterations, __ATOMIC_RELAXED);
    t1 = now_s();
    return (b - a) / (t1 - t0);
}
/* Run `edgeprobe trace` for TRACE_SECONDS; its summary line gives lines and
 * drops. Returns the loop's rate meanwhile. */
static double traced_rate(const char *tool, double *lines, double *dropped) {
    char cmd[512], summary[256] = "";
    FILE *p;
    double rate;
    unsigned long long n = 0, d = 0;
    snprintf(cmd, sizeof cmd, "%s trace %d tr_line -d %.1f 2>&1 >/dev/null | tail -1", tool, (int)getpid(), TRACE_SECONDS);
    p = popen(cmd, "r");
    usleep(200000); /* past the command's start-up */
    rate = loop_rate(TRACE_SECONDS - 0.4);
    if (fgets(summary, sizeof summary, p)) sscanf(summary, "edgeprobe trace: %llu lines, %llu dropped", &n, &d);
    pclose(p);
    *lines = n / TRACE_SECONDS;
    *dropped = d / TRACE_SECONDS;
    return rate;
}
static void bench_trace(const char *tool) {
    double off[TRACE_REPS], traced[TRACE_REPS], printed[TRACE_REPS], lines[TRACE_REPS], drops[TRACE_REPS];
    pthread_t worker;
    int r, saved = dup(2), devnull = open("/dev/null", O_WRONLY);
    pthread_create(&worker, NULL, tr_worker, NULL);
    for (r = 0; r < TRACE_REPS; r++) {
        off[r] = loop_rate(TRACE_SECONDS - 0.4);
        traced[r] = traced_rate(tool, &lines[r], &drops[r]);
        dup2(devnull, 2); /* the probe on, printing to stderr = /dev/null */
        edgeprobe_enable("tr_line");
        printed[r] = loop_rate(TRACE_SECONDS - 0.4);
        edgeprobe_disable("tr_line");
        usleep(10000); /* a thread already past the site still prints */
        dup2(saved, 2);
    }
    tr_running = 0;
    pthread_join(worker, NULL);
    printf("\n### `edgeprobe trace` throughput and the program's slowdown\n\n");
    printf("One program thread runs a loop (100 multiply-adds + one TRACE probe with two arguments);\n"
           "`edgeprobe trace PID tr_line -d %.0f > /dev/null` streams it. Medians of %d rounds.\n\n",
           TRACE_SECONDS, TRACE_REPS);
    printf("| | value |\n|---|---:|\n");
    printf("| loop rate, probe off (iterations/s) | %.0f |\n", median(off, TRACE_REPS));
    printf("| loop rate while traced (iterations/s) | %.0f |\n", median(traced, TRACE_REPS));
    printf("| loop rate, probe on printing to stderr=/dev/null (iterations/s) | %.0f |\n", median(printed, TRACE_REPS));
    printf("| lines delivered to the command (lines/s) | %.0f |\n", median(lines, TRACE_REPS));
    printf("| lines dropped (lines/s) | %.0f |\n", median(drops, TRACE_REPS));
    printf("| slowdown while traced (off rate / traced rate) | %.2fx |\n", median(off, TRACE_REPS) / median(traced, TRACE_REPS));
    printf("| slowdown printing to stderr (off rate / on rate) | %.2fx |\n", median(off, TRACE_REPS) / median(printed, TRACE_REPS));
}

int main(int argc, char **argv) {
    const char *what = argc > 2 ? argv[2] : "all";
    if (argc < 2) {
        fprintf(stderr, "usage: control EDGEPROBE_COMMAND [hits|latency|trace|all]\n");
        return 2;
    }
    if (edgeprobe_control_start() < 0) {
        fprintf(stderr, "control: no control endpoint\n");
        return 1;
    }
    if (!strcmp(what, "hits") || !strcmp(what, "all")) bench_hits();
    if (!strcmp(what, "latency") || !strcmp(what, "all")) bench_latency(argv[1]);
    if (!strcmp(what, "trace") || !strcmp(what, "all")) bench_trace(argv[1]);
    return 0;
}
