/* USDT interoperability, driven by tests/drivers/markers.sh with readelf
 * and bpftrace:
 *   t_usdt sites         print how many sites edgeprobe registered
 *   t_usdt args N        run the PROBE site N times, 20 ms apart
 *   t_usdt hold          wait for an external breakpoint on the PROBE site;
 *                        check that edgeprobe refuses it (EDGEPROBE_EBYTES,
 *                        nothing written) while it is there, and that
 *                        toggling works again once it has gone */
#include <stdlib.h>
#include <time.h>
#define EDGEPROBE_IMPLEMENTATION /* this program's one copy of the implementation */
#include "edgeprobe.h"
#include "check.h"

__attribute__((noinline)) int usdt_site(int i, unsigned long u, const char *s) {
    EDGEPROBE_PROBE(us_args, i, -i, u, s, 99);
    EDGEPROBE_TRACE(us_trace, "trace %d\n", i);
    if (EDGEPROBE_BRANCH(us_branch)) i++;
    EDGEPROBE_HANDLER(us_handler, i);
    return i;
}
static int count_sites(const edgeprobe_info *info, void *arg) {
    *(int *)arg += info->sites;
    return 0;
}
static void sleep_ms(long ms) {
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}
static unsigned char *site_of(const char *name) {
    edgeprobe_info info;
    int id;
    for (id = 0; id < edgeprobe_point_count(); id++)
        if (edgeprobe_point_info(id, &info) == 0 && !strcmp(info.name, name)) return (unsigned char *)info.site;
    return NULL;
}
static int calls;
static void on_args(const edgeprobe_info *info, void *user, const uint64_t *args, int nargs) {
    (void)info, (void)user;
    if (nargs == 5 && args[4] == 99) calls++;
}
/* Wait (up to 60 s) until the site holds, or no longer holds, bytes other
 * than its NOP: a tracer's int3, or (Linux 6.18+ optimises uprobes on a
 * NOP5) a call to the kernel's uprobe trampoline. */
static int wait_foreign(const unsigned char *site, int want) {
    int ms;
    for (ms = 0; ms < 60000; ms += 5) {
        unsigned char now[5];
        memcpy(now, (const void *)site, 5);
        if ((memcmp(now, check_nop5, 5) != 0) == want) return 1;
        usdt_site(ms, 7, "held");
        sleep_ms(5);
    }
    return 0;
}
static int hold(void) {
    unsigned char *site = site_of("us_args"), before[8];
    int i;
    CHECK(site != NULL);
    if (!site) return check_done("t_usdt");
    printf("waiting for a breakpoint at %p\n", (void *)site);
    fflush(stdout);
    CHECK(wait_foreign(site, 1));
    memcpy(before, site, 8);
    printf("held: %02x %02x %02x %02x %02x\n", before[0], before[1], before[2], before[3], before[4]);
    CHECK_EQ(edgeprobe_enable("us_args"), EDGEPROBE_EBYTES);
    CHECK_EQ(edgeprobe_attach_args("us_args", on_args, NULL), EDGEPROBE_EBYTES);
    CHECK(memcmp(before, site, 8) == 0); /* nothing written */
    for (i = 0; i < 10; i++) usdt_site(i, 7, "held");
    CHECK_EQ(calls, 0);
    printf("refused while held; waiting for the tracer to leave\n");
    fflush(stdout);
    CHECK(wait_foreign(site, 0));
    CHECK_EQ(edgeprobe_attach_args("us_args", on_args, NULL), 1);
    for (i = 0; i < 10; i++) usdt_site(i, 7, "free");
    CHECK_EQ(calls, 10);
    CHECK_EQ(edgeprobe_detach("us_args"), 1);
    return check_done("t_usdt");
}
int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "sites";
    if (!strcmp(mode, "sites")) {
        int n = 0;
        edgeprobe_foreach(count_sites, &n);
        printf("%d\n", n);
        return 0;
    }
    if (!strcmp(mode, "args")) {
        int i, n = argc > 2 ? atoi(argv[2]) : 10;
        for (i = 1; i <= n; i++) {
            usdt_site(i, 0xfffffffffffffff0UL + (unsigned long)i, "text");
            sleep_ms(20);
        }
        return 0;
    }
    if (!strcmp(mode, "hold")) return hold();
    fprintf(stderr, "usage: t_usdt sites | args N | hold\n");
    return 2;
}
