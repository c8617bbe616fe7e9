/* Prints what edgeprobe took from the environment: whether EDGEPROBE_ENABLE
 * switched the probe on, Tmax, the straddler mode, and whether
 * EDGEPROBE_CONTROL started an endpoint. tests/drivers/reliability.sh runs
 * it with hostile values, once as a plain program and once with a file
 * capability (AT_SECURE), where every one of them must be ignored. */
#define EDGEPROBE_IMPLEMENTATION
#include "edgeprobe.h"
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

static int probe_on(void) { return EDGEPROBE_BRANCH(secure_probe) ? 1 : 0; }

int main(void) {
    const char *path = edgeprobe_control_path();
    long q = syscall(__NR_membarrier, 0 /* QUERY */, 0, 0);
    printf("enabled=%d tmax=%llu sync=%s control=%s\n", probe_on(), (unsigned long long)edgeprobe_tmax(),
           edgeprobe_sync_mode() == EDGEPROBE_SYNC_SERIALIZE ? "serialize" : "tmax", path ? "on" : "off");
    fprintf(stderr, "membarrier-sync-core=%s\n", q > 0 && (q & (1 << 5)) ? "yes" : "no");
    return 0;
}
