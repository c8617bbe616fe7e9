// The header in C++: markers in methods, templates and lambdas; the API
// from C++ code. Built with g++ (C++11, C++17) and clang++ (C++17).
#define EDGEPROBE_IMPLEMENTATION /* this program's one copy of the implementation */
#include "edgeprobe.h"
#include <cstdio>
#include <cstring>

static int hits;
struct Widget {
    int poke(int n) {
        if (EDGEPROBE_BRANCH(cxx_method)) hits += n;
        EDGEPROBE_TRACE(cxx_trace, "poke %d\n", n);
        return n;
    }
};
template <typename T> T twice(T v) {
    if (EDGEPROBE_BRANCH(cxx_template)) hits++;
    return v + v;
}
int main() {
    Widget w;
    int fails = 0;
    auto lambda = [](int n) { if (EDGEPROBE_BRANCH_ON(cxx_lambda)) hits += n; };
    w.poke(1);
    twice(1);
    twice(1.0);
    lambda(100);
    fails += hits != 100;
    fails += edgeprobe_enable("cxx_*") != 3;                 // method, template, trace
    fails += edgeprobe_disable("cxx_trace") != 1;
    w.poke(1);
    twice(1);
    twice(1.0);                                               // two instantiations, one name
    fails += hits != 103;
    fails += edgeprobe_disable("cxx_lambda") != 1;
    lambda(100);
    fails += hits != 103;
    std::printf("t_cxx: %d failed\n", fails);
    return fails != 0;
}
