#include "env.h"
namespace edgeprobe_cxxlib {
// Its NowMicros is the first function of this file (see env.h).
struct CountingEnv : EnvWrapper {
    explicit CountingEnv(Env *e) : EnvWrapper(e) {}
    uint64_t calls = 0;
    uint64_t NowMicros() override {
        calls++;
        return EnvWrapper::NowMicros();
    }
};
uint64_t use_it() {
    CountingEnv c(Env::Default());
    return helper(c.NowMicros());
}
} // namespace edgeprobe_cxxlib
