#include "impl.h"
int impl_a(int n) {
    EDGEPROBE_TRACE_LAZY(impl_a_trace, "impl_a(%d)\n", n);
    if (EDGEPROBE_BRANCH(impl_a_branch)) n += 100;
    EDGEPROBE_HANDLER(impl_a_handler, n);
    return n;
}
