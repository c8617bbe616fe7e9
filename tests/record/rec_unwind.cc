// tests/record/rec_unwind.cc - calls that never return normally, recorded
// (tests/drivers/record.sh): rec_top calls rec_mid, which calls rec_deep,
// which leaves by longjmp back to rec_top (built as C: -x c) or by a C++
// exception caught in rec_top (built as C++). C++ names are mangled in the
// file (the functions are in a namespace) and demangled by the readers.
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#ifdef __cplusplus
#include <stdexcept>
namespace unwind {
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE __attribute__((noinline))
#endif
static jmp_buf env;
NOINLINE void rec_deep(int i) {
#ifdef __cplusplus
    if (i >= 0) throw std::runtime_error("out");
#else
    if (i >= 0) longjmp(env, 1);
#endif
}
NOINLINE int rec_mid(int i) {
    rec_deep(i);
    return i + 1;
}
NOINLINE int rec_top(int i) {
#ifdef __cplusplus
    try {
        return rec_mid(i);
    } catch (const std::exception &) {
        return -1;
    }
#else
    if (setjmp(env)) return -1;
    return rec_mid(i);
#endif
}
NOINLINE int rec_leaf(int i) { return i * 2; }
#ifdef __cplusplus
}  // namespace unwind
using namespace unwind;
#endif
int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 100, i, sum = 0;
    for (i = 0; i < n; i++) sum += rec_top(i) + rec_leaf(i);
    printf("rec_unwind: %d calls, sum %d\n", n, sum);
    return 0;
}
