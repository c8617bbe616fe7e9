/* tests/dl/lib.c - the library t_dl_storm loads and unloads in a loop.
 * Built with -finstrument-functions (provider sites: calls to the main
 * program's hooks) and -fpatchable-function-entry=5 (function probes), and
 * it places markers, so it carries its own copy of the implementation: its
 * constructor and destructor take the registry lock while the loader holds
 * its own lock. Every way a dlclose can race edgeprobe meets here. */
#define EDGEPROBE_IMPLEMENTATION /* this library's one copy */
#include "edgeprobe.h"

__attribute__((noinline)) long dlstorm_leaf(long x) {
    if (EDGEPROBE_BRANCH(dlstorm_branch)) x += 1000;
    return x * 2;
}
__attribute__((noinline)) long dlstorm_mid(long x) { return dlstorm_leaf(x) + 1; }
long dlstorm_entry(long x) {
    long s = 0, i;
    for (i = 0; i < 4; i++) s += dlstorm_mid(x + i);
    return s;
}
