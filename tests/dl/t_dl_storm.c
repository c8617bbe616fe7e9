/* t_dl_storm - dlopen and dlclose of a library with probes of every kind
 * (tests/dl/lib.c), in a loop, against threads that switch its provider
 * probes, attach and detach its function probes (each attach scans the
 * loaded objects), switch its markers, and list every point by name. Each
 * used to take the dynamic loader's lock, or read or write an object's
 * memory, in a way a dlclose could race:
 *   - dladdr under the registry lock, while the library's constructor or
 *     destructor (run under the loader's lock) waits for the registry lock:
 *     a deadlock (the watchdog below reports it);
 *   - a provider site written after its library was unmapped, and a scan
 *     reading an unloaded object's entry table: SIGSEGV.
 * Then the library is loaded once more and each kind of probe must work.
 *     t_dl_storm LIB.so [SECONDS] */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#define EDGEPROBE_PROVIDER
#define EDGEPROBE_IMPLEMENTATION
#include "edgeprobe.h"
#include "check.h"
#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static const char *lib;
static volatile int stop;
static volatile long loads, provider_toggles, func_toggles, marker_toggles, listings, wrong;
static volatile long provider_hits, func_entries;
static volatile size_t listed_chars;

static void on_provider(const edgeprobe_info *info, void *user, uintptr_t fn) {
    (void)info, (void)user, (void)fn;
    __atomic_fetch_add(&provider_hits, 1, __ATOMIC_RELAXED);
}
static int on_entry(edgeprobe_func_call *call, void *user) {
    (void)call, (void)user;
    __atomic_fetch_add(&func_entries, 1, __ATOMIC_RELAXED);
    return 0;
}

/* dlstorm_entry(1) = sum over i<4 of (2(1+i) [+2000 with the branch on] + 1) */
static int plausible(long v) { return v == 24 || v == 24 + 4 * 2000 || (v > 24 && v < 24 + 4 * 2000 && (v - 24) % 2000 == 0); }

static void *loader(void *arg) {
    (void)arg;
    while (!stop) {
        void *h = dlopen(lib, RTLD_NOW);
        long (*entry)(long);
        int i;
        if (!h) {
            fprintf(stderr, "dlopen: %s\n", dlerror());
            wrong++;
            break;
        }
        entry = (long (*)(long))(uintptr_t)dlsym(h, "dlstorm_entry");
        for (i = 0; entry && i < 8; i++)
            if (!plausible(entry(1))) wrong++;
        dlclose(h);
        loads++;
    }
    return 0;
}
/* The switching threads yield after each round: back to back, they keep the
 * registry lock (a spinlock, not fair) from the loader, which waits for it
 * in the library's constructor while it holds the loader's own lock. */
static void *provider_toggler(void *arg) {
    (void)arg;
    while (!stop) {
        edgeprobe_provider_attach("dlstorm_*", on_provider, 0);
        edgeprobe_provider_disable("dlstorm_*");
        provider_toggles++;
        sched_yield();
    }
    return 0;
}
static void *func_toggler(void *arg) {
    (void)arg;
    while (!stop) {
        edgeprobe_func_attach("dlstorm_*", on_entry, 0, 0);
        edgeprobe_func_detach("dlstorm_*");
        func_toggles++;
        sched_yield();
    }
    return 0;
}
static void *marker_toggler(void *arg) {
    (void)arg;
    while (!stop) {
        int a = edgeprobe_enable("dlstorm_branch"), b = edgeprobe_disable("dlstorm_branch");
        if ((a < 0 && a != EDGEPROBE_ENOENT) || (b < 0 && b != EDGEPROBE_ENOENT)) { /* ENOENT: unloaded now */
            fprintf(stderr, "marker toggle: %s / %s\n", edgeprobe_strerror(a), edgeprobe_strerror(b));
            wrong++;
        }
        marker_toggles++;
        sched_yield();
    }
    return 0;
}
static void *lister(void *arg) {
    size_t chars = 0; /* read every name: an unloaded library's would fault */
    (void)arg;
    while (!stop) {
        int id, n = edgeprobe_point_count();
        for (id = 0; id < n; id++) {
            edgeprobe_info info;
            if (edgeprobe_point_info(id, &info) == 0 && info.name) chars += strlen(info.name);
        }
        listings++;
    }
    listed_chars = chars;
    return 0;
}

static void watchdog(int sig) {
    static const char msg[] = "t_dl_storm: hang - a thread did not finish within the watchdog's time\n";
    (void)sig;
    write(2, msg, sizeof msg - 1);
    _exit(3);
}

/* After the storm: one more load, and every kind of probe works on it. */
static void probes_still_work(void) {
    void *h = dlopen(lib, RTLD_NOW);
    long (*entry)(long);
    int rc;
    CHECK(h != NULL);
    if (!h) return;
    entry = (long (*)(long))(uintptr_t)dlsym(h, "dlstorm_entry");
    CHECK(entry != NULL);
    if (!entry) return;
    entry(1); /* the provider sites are found on their first call */
    provider_hits = func_entries = 0;
    rc = edgeprobe_provider_attach("dlstorm_leaf", on_provider, 0);
    CHECK(rc >= 0); /* a site loaded afresh calls the hook already: maybe 0 changed */
    CHECK(edgeprobe_func_attach("dlstorm_mid", on_entry, 0, 0) == 1);
    /* a probe keeps its state across unload and load: the storm may have
     * left it on (enabled, then unloaded before its disable) */
    CHECK(edgeprobe_enable("dlstorm_branch") >= 0);
    CHECK_EQ(entry(1), 24 + 4 * 2000);
    CHECK_EQ(provider_hits, 8);
    CHECK_EQ(func_entries, 4);
    CHECK(edgeprobe_provider_disable("dlstorm_*") >= 1);
    CHECK_EQ(edgeprobe_func_detach("dlstorm_*"), 1);
    CHECK_EQ(edgeprobe_disable("dlstorm_branch"), 1);
    CHECK_EQ(entry(1), 24);
    dlclose(h);
}

int main(int argc, char **argv) {
    void *(*fns[])(void *) = {loader, provider_toggler, func_toggler, marker_toggler, lister};
    pthread_t th[sizeof fns / sizeof fns[0]];
    double seconds = argc > 2 ? atof(argv[2]) : 3;
    unsigned i;
    if (argc < 2) {
        fprintf(stderr, "usage: t_dl_storm LIB.so [SECONDS]\n");
        return 2;
    }
    lib = argv[1];
    signal(SIGALRM, watchdog);
    alarm((unsigned)seconds + 30);
    for (i = 0; i < sizeof fns / sizeof fns[0]; i++) pthread_create(&th[i], 0, fns[i], 0);
    usleep((useconds_t)(seconds * 1e6));
    stop = 1;
    for (i = 0; i < sizeof fns / sizeof fns[0]; i++) pthread_join(th[i], 0);
    printf("loads %ld, provider toggles %ld, function toggles %ld, marker toggles %ld, listings %ld\n", loads,
           provider_toggles, func_toggles, marker_toggles, listings);
    CHECK_EQ(wrong, 0);
    CHECK(loads >= 10);
    CHECK(provider_toggles >= 10 && func_toggles >= 10 && marker_toggles >= 10 && listings >= 10);
    probes_still_work();
    alarm(0);
    return check_done("t_dl_storm");
}
