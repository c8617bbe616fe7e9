// A C++ static library of leveldb's shape (tests/drivers/prof.sh, case
// prof-cxx-static-lib): g++ 12 -fpatchable-function-entry ties every entry
// record of a file to the section of the file's FIRST function, in one
// section outside every COMDAT group. user.cc's first function is an
// inline function only it emits (kept); it also emits helper(), an inline
// function main.cc emits too. The linker keeps main.o's helper and drops
// user.o's, and user.o's record section, kept with its first function,
// still points at the dropped copy: "defined in discarded section" (bfd,
// gold, lld). clang++ puts each record in its function's group.
#include <cstdint>
namespace edgeprobe_cxxlib {
class Env {
  public:
    Env();
    virtual ~Env();
    virtual uint64_t NowMicros() = 0;
    static Env *Default();
};
class EnvWrapper : public Env {
  public:
    explicit EnvWrapper(Env *t) : target_(t) {}
    ~EnvWrapper() override;
    uint64_t NowMicros() override { return target_->NowMicros(); }

  private:
    Env *target_;
};
__attribute__((noinline)) inline uint64_t helper(uint64_t x) { return x * 3 + 1; }
} // namespace edgeprobe_cxxlib
