#include "env.h"
namespace edgeprobe_cxxlib {
Env::Env() = default;
Env::~Env() = default;
EnvWrapper::~EnvWrapper() {}
struct PosixEnv : Env {
    uint64_t NowMicros() override { return 42; }
};
Env *Env::Default() {
    static PosixEnv e;
    return &e;
}
} // namespace edgeprobe_cxxlib
