#define EDGEPROBE_IMPLEMENTATION /* one copy per executable or library */
#include "common.h"
static int hits;
int libb_run(void);
int libb_run(void) {
    if (EDGEPROBE_BRANCH(shared_name)) hits++;
    if (EDGEPROBE_BRANCH(libb_only)) hits += 100;
    return hits;
}
