/* Switch the probes of every file and object by name, and check each one
 * took effect: one registry for the process, one implementation per object.
 * NOLIB: a static program, without the libraries. */
#if !defined(NOLIB) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE
#endif
#ifndef NOLIB
#include <dlfcn.h>
#endif
#include <stdio.h>
#include <stdint.h>
#define EDGEPROBE_IMPLEMENTATION /* the executable's one copy */
#include "impl.h"

static int failures, handled;
#define CHECK(c) ((c) ? (void)0 : (void)(failures++, fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #c)))

static void on_a(const edgeprobe_info *probe, void *user, uintptr_t value) {
    (void)probe, (void)user;
    handled = (int)value;
}

int main(int argc, char **argv) {
    CHECK(impl_a(1) == 1 && impl_b(1) == 1);
    CHECK(edgeprobe_enable("impl_a_branch") == 1);
    CHECK(edgeprobe_enable("impl_b_*") == 1);
    CHECK(impl_a(1) == 101 && impl_b(1) == 1001);
    CHECK(edgeprobe_attach("impl_a_handler", on_a, 0) == 1);
    CHECK(impl_a(2) == 102 && handled == 102);
#ifndef NOLIB
    {
        int (*plugin)(int);
        void *h;
        CHECK(impl_lib(1) == 1);
        CHECK(edgeprobe_enable("impl_lib_branch") == 1);
        CHECK(impl_lib(1) == 100001);
        CHECK(argc > 1 && (h = dlopen(argv[1], RTLD_NOW)) != 0);
        if (argc > 1 && (h = dlopen(argv[1], RTLD_NOW)) != 0) {
            plugin = (int (*)(int))(uintptr_t)dlsym(h, "impl_plugin");
            CHECK(plugin && plugin(1) == 1);
            CHECK(edgeprobe_enable("impl_plugin_branch") == 1);
            CHECK(plugin && plugin(1) == 10001);
            dlclose(h);
            dlclose(h);
        }
    }
#else
    (void)argc, (void)argv;
#endif
    CHECK(edgeprobe_disable("impl_*") >= 2);
    CHECK(impl_a(1) == 1 && impl_b(1) == 1);
    printf("impl: %d failed\n", failures);
    return failures != 0;
}
