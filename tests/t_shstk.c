/* With a CET user shadow stack on, exit handlers are refused (the return
 * trampoline replaces a return address, which the shadow stack would
 * catch at the next ret) and entry handlers still work. Needs a CPU and
 * kernel with user shadow stacks (user_shstk in /proc/cpuinfo); the stack
 * is turned on here with arch_prctl, and main never returns after that.
 * Built with -fpatchable-function-entry=5. */
#define _GNU_SOURCE
#define EDGEPROBE_IMPLEMENTATION
#include "edgeprobe.h"
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int entries;
__attribute__((noinline)) int shstk_target(int x) { return x * 3; }
static int on_entry(edgeprobe_func_call *call, void *user) { (void)call, (void)user, entries++; return 0; }
static void on_exit_(const edgeprobe_func_call *call, void *user) { (void)call, (void)user; }

static int cpu_has_user_shstk(void) {
    char line[4096];
    FILE *f = fopen("/proc/cpuinfo", "r");
    int found = 0;
    while (f && !found && fgets(line, sizeof line, f)) found = !strncmp(line, "flags", 5) && strstr(line, " user_shstk");
    if (f) fclose(f);
    return found;
}
int main(void) {
    long rc;
    int failures = 0;
    if (!cpu_has_user_shstk()) {
        printf("skipped: this CPU or kernel has no user shadow stacks (no user_shstk in /proc/cpuinfo)\n");
        return 77;
    }
    if (edgeprobe_func_scan() < 0) return printf("skipped: not built with -fpatchable-function-entry=5\n"), 77;
    /* arch_prctl(ARCH_SHSTK_ENABLE, ARCH_SHSTK_SHSTK), inline: no function may
     * return through a frame made before this point */
    __asm__ volatile("syscall" : "=a"(rc) : "a"(158L), "D"(0x5001L), "S"(1L) : "rcx", "r11", "memory");
    if (rc) {
        printf("skipped: arch_prctl(ARCH_SHSTK_ENABLE) failed (%ld)\n", rc);
        _exit(77);
    }
    failures += edgeprobe_func_attach("shstk_target", on_entry, on_exit_, 0) != EDGEPROBE_ENOTSUP;
    failures += edgeprobe_func_attach("shstk_target", on_entry, 0, 0) != 1;
    failures += shstk_target(2) != 6 || entries != 1;
    printf("t_shstk: %d failed\n", failures);
    fflush(stdout);
    _exit(failures != 0);
}
