// EDGEPROBE_PROBE in C++: a method, a template, a lambda; values checked.
#define EDGEPROBE_IMPLEMENTATION /* this program's one copy of the implementation */
#include "edgeprobe.h"
#include <cstdio>
#include <cstring>

/* volatile: a PROBE site tells the compiler it changes no memory (as a
 * USDT probe does), so code around an inlined site may keep these in
 * registers across it. Handlers observe; they do not talk back. */
static volatile long last[4];
static volatile int hits;
static int fails;
#define EXPECT(cond) ((cond) ? 0 : (std::printf("line %d: failed: %s\n", __LINE__, #cond), 1))
static void rec(const edgeprobe_info *, void *, const uint64_t *a, int n) {
    for (int i = 0; i < n && i < 4; i++) last[i] = (long)a[i];
    hits++;
}
struct Counter {
    int total = 0;
    int add(int n, unsigned char c) {
        EDGEPROBE_PROBE(cxx_add, n, c, this);
        return total += n + c;
    }
};
template <typename T> T scaled(T v) {
    EDGEPROBE_PROBE(cxx_tpl, v, sizeof(T));
    return v * 2;
}
int main() {
    Counter c;
    auto lam = [](short s) { EDGEPROBE_PROBE(cxx_lambda, s); return s + 1; };
    fails += EXPECT(!(edgeprobe_attach_args("cxx_*", rec, nullptr) != 3));
    c.add(-5, 250);
    fails += EXPECT(!(hits != 1 || last[0] != -5 || last[1] != 250 || last[2] != (long)&c));
    scaled<long>(-9);
    fails += EXPECT(!(hits != 2 || last[0] != -9 || last[1] != 8));
    scaled<unsigned>(4000000000u);
    fails += EXPECT(!(hits != 3 || last[0] != 4000000000L || last[1] != 4));
    lam(-300);
    fails += EXPECT(!(hits != 4 || last[0] != -300));
    fails += EXPECT(!(edgeprobe_detach("cxx_*") != 3));
    lam(1);
    fails += EXPECT(!(hits != 4));
    std::printf("t_probe_cxx: %d failures\n", fails);
    return fails != 0;
}
