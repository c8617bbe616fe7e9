/* Function probes of a library that is unloaded and loaded again at the
 * same address (the rule for dlclose then dlopen): the fresh mapping is
 * read-only, so edgeprobe must not trust that it opened those pages before
 * (before the fix: a write to a read-only page, SIGSEGV in the host). The
 * library is tests/fprobe/lib.c, built with -fpatchable-function-entry=5. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#define EDGEPROBE_IMPLEMENTATION /* this program's one copy of the implementation */
#include "edgeprobe.h"
#include "check.h"

#define ROUNDS 3
static int entries;
static int on_entry(edgeprobe_func_call *call, void *user) {
    (void)call, (void)user;
    entries++;
    return 0;
}

int main(int argc, char **argv) {
    const char *lib = argc > 1 ? argv[1] : "./libfp.so";
    void *at[ROUNDS] = {0};
    int round, same = 0;
    for (round = 0; round < ROUNDS; round++) {
        void *h = dlopen(lib, RTLD_NOW);
        long (*twice)(long);
        CHECK(h != NULL);
        if (!h) return check_done("t_reload");
        twice = (long (*)(long))dlsym(h, "lib_twice");
        at[round] = (void *)twice;
        if (round > 0 && at[round] == at[round - 1]) same++;
        entries = 0;
        CHECK_EQ(edgeprobe_func_attach("lib_twice", on_entry, NULL, NULL), 1);
        CHECK_EQ(twice(2), 5);
        CHECK_EQ(entries, 1);
        CHECK_EQ(edgeprobe_func_detach("lib_twice"), 1);
        CHECK_EQ(twice(2), 5);
        CHECK_EQ(entries, 1);
        dlclose(h);
    }
    printf("library at %p %p %p: reloaded at the same address %d of %d times\n", at[0], at[1], at[2], same,
           ROUNDS - 1);
    if (check_failures) return check_done("t_reload");
    if (!same) {
        printf("skipped: the loader never put the library back at the same address\n");
        return 77;
    }
    return check_done("t_reload");
}
