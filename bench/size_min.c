/* The smallest useful freestanding program: one probe, switched on by name.
 * bench/size.sh links it with -nostdlib -static --gc-sections, once with
 * edgeprobe and once with -DSIZE_BASELINE (no header, a plain flag), so the
 * difference is what such a program pays for edgeprobe. */
#include "nolibc.h"
#ifdef SIZE_BASELINE
static volatile int size_flag;
#define EDGEPROBE_BRANCH(name) size_flag
#else
#define EDGEPROBE_IMPLEMENTATION /* the program's one copy of the implementation */
#include "edgeprobe.h"
#endif

static int hits;
__attribute__((noinline)) static void work(void) {
    if (EDGEPROBE_BRANCH(size_probe)) hits++;
}
void nolibc_main(void) {
    work();
#ifndef SIZE_BASELINE
    edgeprobe_enable("size_probe");
#else
    hits++; /* what the enabled probe would have done */
#endif
    work();
    for (;;) sys3(NR_EXIT_GROUP, hits != 1, 0, 0);
}
