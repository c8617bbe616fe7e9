#include "impl.h"
int impl_b(int n) {
    if (EDGEPROBE_BRANCH(impl_b_branch)) n += 1000;
    return n;
}
