// cxx_names.cc - a C++ program built with -fpatchable-function-entry=5 whose
// functions have long mangled names (tests/drivers/prof.sh, case
// prof-cxx-names): the report must show them demangled and whole.
#include <cstdio>
#include <vector>
namespace edgeprobe_test {
namespace deeply_nested_namespace {
template <typename T> struct AccumulatorWithAVeryLongName {
    __attribute__((noinline)) T add_all_the_values(const std::vector<T> &v, int rounds) {
        T s = T();
        for (int r = 0; r < rounds; r++)
            for (const T &x : v) s += x;
        return s;
    }
};
} // namespace deeply_nested_namespace
} // namespace edgeprobe_test
int main() {
    edgeprobe_test::deeply_nested_namespace::AccumulatorWithAVeryLongName<long> a;
    std::vector<long> v(1000, 3);
    long total = 0;
    for (int i = 0; i < 20000; i++) total += a.add_all_the_values(v, 1 + i % 3);
    std::printf("%ld\n", total);
    return 0;
}
