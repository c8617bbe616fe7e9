#define EDGEPROBE_IMPLEMENTATION /* one copy per executable or library */
#include "common.h"
static int hits;
int liba_run(void) {
    if (EDGEPROBE_BRANCH(shared_name)) hits++;
    if (EDGEPROBE_BRANCH(liba_only)) hits += 100;
    return hits;
}
int liba_enable(const char *pattern) { return edgeprobe_enable(pattern); }
void *liba_root(void) { return edgeprobe__this_object.root; }
int liba_points(void) { return edgeprobe_point_count(); }
