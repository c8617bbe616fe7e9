/* Code written against the names before 0.2 (section >>renamed): it must
 * still build, with a warning per old name, and do the same thing. */
#define EDGEPROBE_IMPLEMENTATION
#include "edgeprobe.h"
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

static int on_exit_seen;
static void on_exit_fn(const edgeprobe_call *call, void *user) { (void)call, (void)user, on_exit_seen++; }

int main(void) {
    int failures = 0;
    /* a call site in a page of our own: call_activate / call_deactivate */
    unsigned char *page = mmap(0, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    unsigned char nop5[5] = {0x0f, 0x1f, 0x44, 0x00, 0x00};
    edgeprobe_exit_fn fn = on_exit_fn;
    if (page == MAP_FAILED) return 1;
    memcpy(page + 8, nop5, 5);
    page[13] = 0xc3; /* ret */
    failures += edgeprobe_call_activate(page + 8, 0) != 1;   /* call the next instruction */
    failures += page[8] != 0xe8;
    failures += edgeprobe_call_deactivate(page + 8) != 1;
    failures += memcmp(page + 8, nop5, 5) != 0;
    failures += edgeprobe_get_sync() != edgeprobe_sync_mode();
    failures += edgeprobe_get_tmax() != edgeprobe_tmax();
    failures += edgeprobe_provider_activate_glob("x*", 0, 0) != EDGEPROBE_EINVAL; /* NULL handler */
    failures += edgeprobe_provider_deactivate(12345) >= 0;                      /* no such id */
    (void)fn;
    { /* taken as addresses, as code written for the old names may */
        int (*activate)(void *, int32_t) = edgeprobe_call_activate;
        uint64_t (*get_tmax)(void) = &edgeprobe_get_tmax;
        failures += activate != edgeprobe_call_on || get_tmax() != edgeprobe_tmax();
    }
    printf("renamed: %d failed\n", failures);
    return failures != 0;
}
