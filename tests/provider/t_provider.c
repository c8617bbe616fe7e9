/* The -finstrument-functions provider on a real instrumented program:
 * discovery of every function with entry/exit kinds; straddling call sites
 * at every split toggled with the call patch; toggling under concurrent
 * execution; tail calls left alone; an unloaded library; bad input.
 * Built with -finstrument-functions -rdynamic; hooks.c defines the provider
 * (or, with -DHOOKS_HERE, this file does). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <unistd.h>
#include <stdlib.h>
#ifdef HOOKS_HERE /* else hooks.c holds the provider and the implementation */
#define EDGEPROBE_IMPLEMENTATION
#define EDGEPROBE_PROVIDER
#endif
#include "edgeprobe.h"
#include "check.h"
#include "funcs.h"

#define NOI __attribute__((no_instrument_function))
static volatile int sink;
__attribute__((noinline)) void tail_void(void) { sink++; } /* gcc -O2: jmp __cyg_profile_func_exit */

/* ---- discovery ---------------------------------------------------------- */
static int seen_entry[PROVIDER_FUNCS], seen_exit[PROVIDER_FUNCS], discovered;
NOI static int func_index(const char *name) {
    int i;
    if (!name || name[0] != 'f') return -1;
    for (i = 0; i < PROVIDER_FUNCS; i++) {
        char want[8];
        snprintf(want, sizeof want, "f%d", i);
        if (!strcmp(name, want)) return i;
    }
    return -1;
}
NOI static void on_discover(const edgeprobe_info *info, void *arg) {
    int i = func_index(info->name);
    (void)arg;
    discovered++;
    if (i < 0) return;
    if (info->kind == EDGEPROBE_KIND_ENTRY) seen_entry[i]++;
    if (info->kind == EDGEPROBE_KIND_EXIT) seen_exit[i]++;
}

/* ---- handlers ------------------------------------------------------------ */
static unsigned long long entries, exits;
NOI static void count_kinds(const edgeprobe_info *info, void *user, uintptr_t fn) {
    (void)user, (void)fn;
    __atomic_fetch_add(info->kind == EDGEPROBE_KIND_ENTRY ? &entries : &exits, 1, __ATOMIC_RELAXED);
}

/* Split of a 5-byte site by the line boundary: 0 (none) or 1..4. */
NOI static int split_of(const void *site) {
    int off = (int)((uintptr_t)site & 63);
    return off > 59 ? 64 - off : 0;
}

NOI static void test_straddlers(int *per_split) {
    int id, n = edgeprobe_point_count();
    for (id = 0; id < n; id++) {
        edgeprobe_info info;
        unsigned char *s;
        int split, i;
        if (edgeprobe_point_info(id, &info) < 0 || (i = func_index(info.name)) < 0) continue;
        s = info.site;
        split = split_of(s);
        if (edgeprobe_provider_off(id) < 0) continue; /* not patchable */
        if (split) per_split[split]++;
        switch (split) { /* the call-patch forms */
        case 0: CHECK(s[0] == 0x0f && s[1] == 0x1f); break;
        case 1: CHECK(s[0] == 0xe8); break;
        default: CHECK(s[0] == 0xeb && s[1] == 3); break;
        }
        entries = exits = 0;
        CHECK_EQ(funcs[i](2), 6 + i); /* still computes, without this probe */
        CHECK_EQ(info.kind == EDGEPROBE_KIND_ENTRY ? entries : exits, 0);
        CHECK_EQ(edgeprobe_provider_attach_id(id, count_kinds, NULL), 1);
        CHECK(s[0] == 0xe8);
        CHECK_EQ(funcs[i](2), 6 + i);
        CHECK_EQ(info.kind == EDGEPROBE_KIND_ENTRY ? entries : exits, 1);
    }
}

static volatile int stop;
NOI static void *executor(void *arg) {
    int k = 0;
    (void)arg;
    while (!stop) {
        sink += funcs[k % PROVIDER_FUNCS](k);
        k++;
    }
    return NULL;
}

NOI int main(int argc, char **argv) {
    const char *lib = argc > 1 ? argv[1] : "./libprov.so";
    int i, per_split[5] = {0}, rounds, lib_id = -1, id, started = 0;
    pthread_t th[2];
    void *h;

    /* before any probe exists */
    CHECK_EQ(edgeprobe_provider_attach("*", count_kinds, NULL), EDGEPROBE_ENEVER);
    CHECK_EQ(edgeprobe_provider_disable("*"), EDGEPROBE_ENEVER);
    CHECK_EQ(edgeprobe_provider_attach_id(0, count_kinds, NULL), EDGEPROBE_EINVAL);

    CHECK_EQ(edgeprobe_set_discovery(on_discover, NULL), 0);
    for (i = 0; i < PROVIDER_FUNCS; i++) CHECK_EQ(funcs[i](1), 3 + i);
    for (i = 0; i < PROVIDER_FUNCS; i++) {
        CHECK_EQ(seen_entry[i], 1);
        CHECK_EQ(seen_exit[i], 1);
    }
    CHECK_EQ(discovered, 2 * PROVIDER_FUNCS);

    /* straddling sites at every split, each toggled and checked */
    test_straddlers(per_split);
    for (i = 1; i <= 4; i++) {
        printf("split %d: %d patchable sites\n", i, per_split[i]);
        CHECK(per_split[i] > 0);
    }

    /* a tail-called exit hook leaves the caller's return address: never patched */
    tail_void();
    CHECK(edgeprobe_provider_disable("*") > 0);
    tail_void();
    CHECK_EQ(sink, 2);

    /* toggle everything while two threads run it */
    CHECK(edgeprobe_provider_attach("f*", count_kinds, NULL) > 0);
    /* a thread that could not be made (EAGAIN on a loaded machine) is a
     * failed check, never a join of an unset handle */
    for (i = 0; i < 2; i++) {
        int rc = pthread_create(&th[started], NULL, executor, NULL);
        CHECK_EQ(rc, 0);
        if (rc == 0) started++;
    }
    for (rounds = 0; rounds < 300; rounds++) {
        CHECK(edgeprobe_provider_disable("f*") >= 0);
        CHECK(edgeprobe_provider_attach("f[0-9]*", count_kinds, NULL) >= 0);
    }
    /* still attached: wait (up to 5 s) until the executors ran an entry and
     * an exit, which on a loaded machine they may not have done yet */
    for (rounds = 0; rounds < 5000 && !(__atomic_load_n(&entries, __ATOMIC_RELAXED) &&
                                         __atomic_load_n(&exits, __ATOMIC_RELAXED)); rounds++)
        usleep(1000);
    stop = 1;
    for (i = 0; i < started; i++) pthread_join(th[i], NULL);
    CHECK(entries > 0 && exits > 0);

    /* an instrumented library: PLT calls; then unloaded */
    h = dlopen(lib, RTLD_NOW);
    CHECK(h != NULL);
    if (h) {
        int (*sq)(int) = (int (*)(int))dlsym(h, "lib_square");
        int n = edgeprobe_point_count();
        CHECK_EQ(sq(3), 10);
        for (id = n; id < edgeprobe_point_count(); id++) {
            edgeprobe_info info;
            if (edgeprobe_point_info(id, &info) == 0 && !strcmp(info.name, "lib_square")) lib_id = id;
        }
        CHECK(lib_id >= 0);
        CHECK_EQ(edgeprobe_provider_off(lib_id), 1); /* its PLT call reaches the hook */
        CHECK_EQ(sq(3), 10);
        CHECK_EQ(edgeprobe_provider_attach_id(lib_id, count_kinds, NULL), 1);
        dlclose(h);
        CHECK_EQ(edgeprobe_provider_attach_id(lib_id, count_kinds, NULL), EDGEPROBE_EUNLOADED);
    }

    /* bad input */
    CHECK_EQ(edgeprobe_provider_attach_id(1 << 30, count_kinds, NULL), EDGEPROBE_EINVAL);
    CHECK_EQ(edgeprobe_provider_attach_id(-1, count_kinds, NULL), EDGEPROBE_EINVAL);
    CHECK_EQ(edgeprobe_provider_attach_id(0, NULL, NULL), EDGEPROBE_EINVAL);
    CHECK_EQ(edgeprobe_provider_attach("f*", NULL, NULL), EDGEPROBE_EINVAL);
    CHECK_EQ(edgeprobe_provider_attach("f[", count_kinds, NULL), EDGEPROBE_EPATTERN);
    return check_done("t_provider");
}
