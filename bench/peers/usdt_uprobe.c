/* usdt_uprobe.c - USDT probes switched on for real: the kernel's uprobes,
 * driven through tracefs (needs root and a tracefs mount; run-peers.sh skips
 * this program otherwise and the report cites the published figure).
 *
 *   usdt_uprobe TRACEFS EXE OFF_HOT OFF_SEM REF_SEM
 *
 * OFF_HOT / OFF_SEM: file offsets of the two probes' nops (from the stapsdt
 * notes, see sdt_offsets.py); REF_SEM: file offset of the semaphore of the
 * second probe (the kernel increments it while the uprobe is enabled).
 * Measures, in TSC ticks: the cost of a call through an enabled probe (a
 * trap into the kernel, which records an event in a private tracefs
 * instance), relative to the same call with the probe disabled, and the
 * latency of enabling and disabling the event (writing "1"/"0" to its
 * `enable` file: uprobe_register/unregister, which rewrites the page).
 */
#define _SDT_HAS_SEMAPHORES 1
#include "peers.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/sdt.h>
#include <sys/stat.h>
#include <unistd.h>

/* With _SDT_HAS_SEMAPHORES every probe of the TU names a semaphore; `hot`
 * never tests its own (it is the no-semaphore case). */
__extension__ unsigned short peers_usdt_hot_semaphore __attribute__((unused, section(".probes"))) = 0;
__extension__ unsigned short peers_usdt_hot_sem_semaphore __attribute__((unused, section(".probes"))) = 0;

__attribute__((noinline)) int usdt_hot(int x) {
    DTRACE_PROBE1(peers_usdt, hot, x);
    return x + 1;
}
__attribute__((noinline)) int usdt_hot_sem(int x) {
    if (__builtin_expect(peers_usdt_hot_sem_semaphore, 0)) DTRACE_PROBE1(peers_usdt, hot_sem, x);
    return x + 1;
}
__attribute__((noinline)) int plain(int x) {
    __asm__ volatile("");
    return x + 1;
}

static const char *tracefs;
static char instance[256];
static int defined_hot, defined_sem, made_instance;

static int write_file(const char *path, const char *text, int append) {
    int fd = open(path, O_WRONLY | (append ? O_APPEND : O_TRUNC)), rc = 0;
    if (fd < 0) return -errno;
    if (write(fd, text, strlen(text)) < 0) rc = -errno;
    close(fd);
    return rc;
}

static void cleanup(void) {
    char path[512];
    snprintf(path, sizeof path, "%s/events/peers_usdt/hot/enable", instance);
    write_file(path, "0", 0);
    snprintf(path, sizeof path, "%s/events/peers_usdt/hot_sem/enable", instance);
    write_file(path, "0", 0);
    snprintf(path, sizeof path, "%s/uprobe_events", tracefs);
    if (defined_hot) write_file(path, "-:peers_usdt/hot\n", 1);
    if (defined_sem) write_file(path, "-:peers_usdt/hot_sem\n", 1);
    if (made_instance) rmdir(instance);
}

#define BLOCK 64
static double measure_calls(const char *name, int (*fn)(int), size_t samples, double base, const char *phase) {
    double *v = peers_xcalloc(samples, sizeof(double));
    size_t i;
    int acc = 0, k;
    peers_stats s;
    char extra[200];
    for (i = 0; i < samples; i++) {
        uint64_t t0 = peers_tsc();
        for (k = 0; k < BLOCK; k++) acc = fn(acc);
        v[i] = (double)(peers_tsc() - t0) / BLOCK;
    }
    s = peers_summarize(v, samples);
    if (base <= 0) base = s.median;
    snprintf(extra, sizeof extra, "\"phase\":\"%s\",\"baseline\":\"plain\",\"ratio\":%.3f", phase,
             s.median / base);
    peers_emit("usdt", name, &s, extra);
    free(v);
    return s.median;
}

static void measure_toggle(const char *name, const char *enable_path, size_t n) {
    double *on = peers_xcalloc(n, sizeof(double)), *off = peers_xcalloc(n, sizeof(double));
    int fd = open(enable_path, O_WRONLY);
    size_t i;
    char nm[64];
    peers_stats s;
    if (fd < 0) {
        fprintf(stderr, "usdt: open %s: %s\n", enable_path, strerror(errno));
        return;
    }
    for (i = 0; i < n; i++) {
        uint64_t t0 = peers_tsc(), t1, t2;
        if (pwrite(fd, "1", 1, 0) != 1) fprintf(stderr, "usdt: enable failed: %s\n", strerror(errno));
        t1 = peers_tsc();
        if (pwrite(fd, "0", 1, 0) != 1) fprintf(stderr, "usdt: disable failed: %s\n", strerror(errno));
        t2 = peers_tsc();
        on[i] = (double)(t1 - t0);
        off[i] = (double)(t2 - t1);
    }
    close(fd);
    snprintf(nm, sizeof nm, "%s-on", name);
    peers_dump(getenv("PEERS_RAW_DIR"), "toggle", nm, on, n);
    snprintf(nm, sizeof nm, "%s-off", name);
    peers_dump(getenv("PEERS_RAW_DIR"), "toggle", nm, off, n);
    s = peers_summarize(on, n);
    peers_emit("toggle", name, &s, "\"op\":\"enable\"");
    s = peers_summarize(off, n);
    peers_emit("toggle", name, &s, "\"op\":\"disable\"");
    free(on);
    free(off);
}

int main(int argc, char **argv) {
    char path[512], def[1024], en_hot[512], en_sem[512];
    size_t samples = (size_t)peers_env_long("PEERS_USDT_SAMPLES", 10000);
    /* one disable costs tens of milliseconds here: 10,000 would take minutes */
    size_t toggles = (size_t)peers_env_long("PEERS_USDT_TOGGLES", 100);
    double base;
    int rc;
    if (argc != 6) {
        fprintf(stderr, "usage: %s TRACEFS EXE OFF_HOT OFF_SEM REF_SEM\n", argv[0]);
        return 2;
    }
    tracefs = argv[1];
    peers_pin((int)peers_env_long("PEERS_CPU", -1));
    snprintf(instance, sizeof instance, "%s/instances/edgeprobe_peers_%d", tracefs, (int)getpid());
    atexit(cleanup);
    if (mkdir(instance, 0700)) {
        fprintf(stderr, "usdt: mkdir %s: %s\n", instance, strerror(errno));
        return 1;
    }
    made_instance = 1;
    snprintf(path, sizeof path, "%s/uprobe_events", tracefs);
    snprintf(def, sizeof def, "p:peers_usdt/hot %s:%s\n", argv[2], argv[3]);
    if ((rc = write_file(path, def, 1))) {
        fprintf(stderr, "usdt: defining uprobe failed: %s\n", strerror(-rc));
        return 1;
    }
    defined_hot = 1;
    snprintf(def, sizeof def, "p:peers_usdt/hot_sem %s:%s(%s)\n", argv[2], argv[4], argv[5]);
    if ((rc = write_file(path, def, 1))) {
        fprintf(stderr, "usdt: defining uprobe with semaphore failed: %s\n", strerror(-rc));
        return 1;
    }
    defined_sem = 1;
    snprintf(en_hot, sizeof en_hot, "%s/events/peers_usdt/hot/enable", instance);
    snprintf(en_sem, sizeof en_sem, "%s/events/peers_usdt/hot_sem/enable", instance);

    base = measure_calls("plain", plain, samples, 0, "off");
    measure_calls("usdt_hot", usdt_hot, samples, base, "off");
    measure_calls("usdt_hot_sem", usdt_hot_sem, samples, base, "off");
    if (write_file(en_hot, "1", 0) || write_file(en_sem, "1", 0)) {
        fprintf(stderr, "usdt: enable failed\n");
        return 1;
    }
    if (!peers_usdt_hot_sem_semaphore) fprintf(stderr, "usdt: semaphore not incremented by the kernel\n");
    /* each enabled hit traps: fewer samples keep this short */
    measure_calls("usdt_hot", usdt_hot, samples / 10 + 1, base, "on");
    measure_calls("usdt_hot_sem", usdt_hot_sem, samples / 10 + 1, base, "on");
    write_file(en_hot, "0", 0);
    write_file(en_sem, "0", 0);
    measure_toggle("usdt_uprobe", en_hot, toggles);
    measure_toggle("usdt_uprobe_sem", en_sem, toggles);
    return 0;
}
