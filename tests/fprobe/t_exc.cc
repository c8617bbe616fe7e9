// t_exc.cc - C++ exceptions thrown through functions whose exit is probed.
// The return trampoline's unwind information names a personality routine
// that puts the real return address back before the unwinder reads it; the
// exit handler of an unwound call does not run. Built with
// -fpatchable-function-entry=5 by tests/drivers/fprobe.sh.
#define EDGEPROBE_IMPLEMENTATION /* this program's one copy of the implementation */
#include "edgeprobe.h"
#include "check.h"

#include <stdexcept>
#include <string>

#define NOINLINE __attribute__((noinline))
static long entries, exits;
static int on_entry(edgeprobe_func_call *, void *) { return ++entries, 1; }
static void on_exit_(const edgeprobe_func_call *, void *) { ++exits; }

NOINLINE int thrower(int x) {
    if (x > 0) throw std::runtime_error("boom " + std::to_string(x));
    return x;
}
NOINLINE int middle(int x) { // unwound: no exit
    std::string keep = "cleanup runs";
    int r = thrower(x);
    return r + (int)keep.size();
}
NOINLINE int deeper(int x) { return middle(x) * 2; }
NOINLINE int catcher(int x) { // catches inside a probed frame: its exit fires
    try {
        return deeper(x);
    } catch (const std::exception &) {
        return -1;
    }
}

int main() {
    CHECK(edgeprobe_func_scan() > 0);
    CHECK_EQ(edgeprobe_func_attach("_Z*thrower*", on_entry, on_exit_, 0), 1);
    CHECK_EQ(edgeprobe_func_attach("_Z*middle*", on_entry, on_exit_, 0), 1);
    CHECK_EQ(edgeprobe_func_attach("_Z*deeper*", on_entry, on_exit_, 0), 1);
    CHECK_EQ(edgeprobe_func_attach("_Z*catcher*", on_entry, on_exit_, 0), 1);
    for (int i = 0; i < 1000; i++) {
        CHECK_EQ(catcher(1 + i % 3), -1); // 4 entries, 1 exit (catcher)
        CHECK_EQ(catcher(0), 24);         // 4 entries, 4 exits
    }
    CHECK_EQ(entries, 8000);
    CHECK_EQ(exits, 5000);
    bool caught = false;
    try {
        deeper(5); // no probed catcher: the exception leaves every probed frame
    } catch (const std::runtime_error &e) {
        caught = std::string(e.what()) == "boom 5";
    }
    CHECK(caught);
    CHECK_EQ(catcher(0), 24);
    return check_done("t_exc");
}
