/* The core compiled with -ffreestanding -nostdinc: no libc header at all.
 * The OS hooks below are this program's; the test links against libc only
 * to get mprotect, calloc and sched_yield. */
#define EDGEPROBE_FREESTANDING
int mprotect(void *, unsigned long, int);
void *calloc(unsigned long, unsigned long);
void free(void *);
int sched_yield(void);
int puts(const char *);
static int fs_protect(void *page, unsigned long len, int writable) {
    return mprotect(page, len, writable ? 7 : 5) ? -13 : 0;
}
#define EDGEPROBE_OS_PROTECT(page, len, w) fs_protect(page, len, w)
#define EDGEPROBE_OS_ALLOC(bytes) calloc(1, bytes)
#define EDGEPROBE_OS_FREE(p) free(p)
#define EDGEPROBE_OS_YIELD() ((void)sched_yield())
static int fs_lines;
#define EDGEPROBE_SINK(...) (fs_lines++)
#define EDGEPROBE_IMPLEMENTATION /* this program's one copy of the implementation */
#include "edgeprobe.h"

static int hits;
__attribute__((noinline)) static void f(void) {
    if (EDGEPROBE_BRANCH(fs_branch)) hits++;
    EDGEPROBE_TRACE(fs_trace, "x");
}
int main(void) {
    int fails = 0;
    unsigned char nop[5] = {0x0f, 0x1f, 0x44, 0, 0};
    f();
    fails += hits != 0;
    fails += edgeprobe_enable("fs_*") != 2;
    f();
    fails += hits != 1 || fs_lines != 1;
    fails += edgeprobe_disable("fs_branch") != 1;
    f();
    fails += hits != 1 || fs_lines != 2;
    fails += edgeprobe_set_sync(EDGEPROBE_SYNC_SERIALIZE) != EDGEPROBE_ENOTSUP;
    fails += edgeprobe_patch((void *)0, nop, 5) != EDGEPROBE_EINVAL;
    puts(fails ? "t_freestanding: FAILED" : "t_freestanding: ok");
    return fails != 0;
}
