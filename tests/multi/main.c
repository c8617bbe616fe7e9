/* Several translation units, a library linked at build time and one loaded
 * with dlopen share one registry: a name enabled anywhere switches its sites
 * everywhere; dlclose removes a library's sites safely. */
#include <dlfcn.h>
#include <stdlib.h>
#define EDGEPROBE_IMPLEMENTATION /* one copy per executable or library */
#include "common.h"
#include "check.h"

static int hits;
static int main_run(void) {
    if (EDGEPROBE_BRANCH(shared_name)) hits++;
    if (EDGEPROBE_BRANCH(main_only)) hits += 100;
    return hits;
}

int main(int argc, char **argv) {
    const char *libb_path = argc > 1 ? argv[1] : "./libmulti_b.so";
    void *h;
    libb_run_fn libb_run;
    int before, points;

    CHECK(liba_root() == edgeprobe__this_object.root); /* one registry */
    CHECK(liba_root() != NULL);
    CHECK_EQ(liba_points(), edgeprobe_point_count());
    points = edgeprobe_point_count();
    CHECK_EQ(points, 6); /* shared_name x3 + three *_only */

    CHECK_EQ(main_run() + tu2_run() + liba_run(), 0);
    CHECK_EQ(edgeprobe_enable("shared_name"), 1);
    CHECK_EQ(main_run(), 1);
    CHECK_EQ(tu2_run(), 1);
    CHECK_EQ(liba_run(), 1);
    CHECK_EQ(liba_enable("main_only"), 1); /* from inside the library */
    CHECK_EQ(main_run(), 102);
    CHECK_EQ(edgeprobe_enable("*_only"), 2); /* tu2_only, liba_only */
    CHECK_EQ(tu2_run(), 102);
    CHECK_EQ(liba_run(), 102);

    /* dlopen: shared_name is on, so libb's site arrives switched on. */
    h = dlopen(libb_path, RTLD_NOW);
    CHECK(h != NULL);
    if (!h) {
        fprintf(stderr, "%s\n", dlerror());
        return check_done("t_multi");
    }
    libb_run = (libb_run_fn)dlsym(h, "libb_run");
    CHECK_EQ(edgeprobe_point_count(), points + 2);
    CHECK_EQ(libb_run(), 1);
    CHECK_EQ(edgeprobe_enable("libb_only"), 1);
    CHECK_EQ(libb_run(), 102);
    CHECK_EQ(liba_enable("libb_only"), 0);

    /* dlclose: its sites leave the registry; toggling never touches them. */
    CHECK_EQ(dlclose(h), 0);
    CHECK_EQ(edgeprobe_enable("libb_only"), EDGEPROBE_ENOENT);
    CHECK_EQ(edgeprobe_disable("shared_name"), 1);
    CHECK_EQ(edgeprobe_enable("shared_name"), 1);
    before = main_run();
    CHECK_EQ(before, 203);
    {
        edgeprobe_info info;
        CHECK_EQ(edgeprobe_point_info(points, &info), EDGEPROBE_EUNLOADED);
    }

    /* Reload: the names kept their state (both on). */
    h = dlopen(libb_path, RTLD_NOW);
    CHECK(h != NULL);
    if (h) {
        libb_run = (libb_run_fn)dlsym(h, "libb_run");
        CHECK_EQ(libb_run(), 101);
        CHECK_EQ(edgeprobe_disable("*"), 5);
        CHECK_EQ(libb_run(), 101);
        dlclose(h);
    }
    CHECK_EQ(main_run() + tu2_run() + liba_run(), 203 + 102 + 102);
    return check_done("t_multi");
}
