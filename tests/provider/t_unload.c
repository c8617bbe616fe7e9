/* Provider probes of an instrumented library that is unloaded and loaded
 * again (a plugin reloaded): found while hunting a rare crash of
 * t_provider. Two faults, both SIGSEGV in the host program before the fix:
 *   - the library comes back at the same address as a rule, as a fresh,
 *     read-only mapping, while edgeprobe's page table still said "open"
 *     from the first load: toggling its probe wrote to a read-only page;
 *   - provider points kept dladdr's name and file, which point into the
 *     unloaded library: any glob (or a listing) after dlclose read them.
 * This program is not instrumented itself; it defines the hooks and loads
 * libprov.so (tests/provider/lib.c, built with -finstrument-functions). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#define EDGEPROBE_PROVIDER
#define EDGEPROBE_IMPLEMENTATION /* this program's one copy of the implementation */
#include "edgeprobe.h"
#include "check.h"

#define ROUNDS 3
static int calls;
static void count_calls(const edgeprobe_info *info, void *user, uintptr_t fn) {
    (void)info, (void)user, (void)fn;
    calls++;
}

/* The id of lib_square's entry probe, or -1. */
static int lib_entry_id(void) {
    int id, n = edgeprobe_point_count(), found = -1;
    for (id = 0; id < n; id++) {
        edgeprobe_info info;
        if (edgeprobe_point_info(id, &info) == 0 && info.kind == EDGEPROBE_KIND_ENTRY &&
            !strcmp(info.name, "lib_square"))
            found = id;
    }
    return found;
}

int main(int argc, char **argv) {
    const char *lib = argc > 1 ? argv[1] : "./libprov.so";
    void *at[ROUNDS] = {0};
    int round, id = -1, same = 0;
    edgeprobe_info info;

    for (round = 0; round < ROUNDS; round++) {
        void *h = dlopen(lib, RTLD_NOW);
        int (*sq)(int);
        CHECK(h != NULL);
        if (!h) return check_done("t_unload");
        sq = (int (*)(int))dlsym(h, "lib_square");
        at[round] = (void *)sq;
        if (round > 0 && at[round] == at[round - 1]) same++;
        CHECK_EQ(sq(3), 10); /* discovered in the first round */
        id = lib_entry_id();
        CHECK(id >= 0);
        /* toggled while the page may be a fresh mapping of a reload */
        CHECK_EQ(edgeprobe_provider_off(id), 1);
        CHECK_EQ(sq(3), 10);
        calls = 0;
        CHECK_EQ(edgeprobe_provider_attach_id(id, count_calls, NULL), 1);
        CHECK_EQ(sq(4), 17);
        CHECK_EQ(calls, 1);
        dlclose(h);
        /* unloaded: globs and listings still work, by id it says so */
        CHECK(edgeprobe_provider_disable("lib_*") >= 0);
        CHECK(edgeprobe_provider_attach("*", count_calls, NULL) >= 0);
        CHECK_EQ(edgeprobe_point_info(id, &info), 0);
        CHECK(!strcmp(info.name, "lib_square"));
        CHECK(info.file && strstr(info.file, "libprov"));
        CHECK_EQ(edgeprobe_provider_attach_id(id, count_calls, NULL), EDGEPROBE_EUNLOADED);
    }
    printf("library at %p %p %p: reloaded at the same address %d of %d times\n", at[0], at[1], at[2], same,
           ROUNDS - 1);
    if (check_failures) return check_done("t_unload");
    if (!same) { /* the stale-page case was not exercised */
        printf("skipped: the loader never put the library back at the same address\n");
        return 77;
    }
    return check_done("t_unload");
}
