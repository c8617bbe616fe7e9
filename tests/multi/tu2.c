#include "common.h"
static int hits;
int tu2_run(void) {
    if (EDGEPROBE_BRANCH(shared_name)) hits++;
    if (EDGEPROBE_BRANCH(tu2_only)) hits += 100;
    return hits;
}
