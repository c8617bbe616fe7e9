#include <cstdio>
#include "env.h"
namespace edgeprobe_cxxlib {
uint64_t use_it();
}
int main() {
    using namespace edgeprobe_cxxlib;
    EnvWrapper w(Env::Default());
    unsigned long sum = 0;
    for (int i = 0; i < 100000; i++) sum += helper(w.NowMicros()) + use_it();
    std::printf("%lu\n", sum);
    return 0;
}
