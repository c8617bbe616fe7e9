/* t_rules.c - when may gcc's five one-byte NOPs be rewritten? (README,
 * "Function probes": the rule). Run as: t_rules EXPECT, where EXPECT is
 *   mirror   PIE: the NOPs stay; on = e8 in byte 0 (call 0x6f6f6f6b below)
 *   nop5     clang's NOP5 form, or gcc non-PIE converted by the constructor
 *   single   gcc non-PIE, no constructor rewrite, first scan single-threaded:
 *            rewritten at the scan
 *   threads  gcc non-PIE, no constructor rewrite, a thread running at the
 *            first scan: listed as not patchable, refused, bytes untouched */
#define _GNU_SOURCE
#define EDGEPROBE_IMPLEMENTATION /* this program's one copy of the implementation */
#include "edgeprobe.h"
#include "check.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const unsigned char nops[5] = {0x90, 0x90, 0x90, 0x90, 0x90};
__attribute__((noinline)) int target(int x) {
    __asm__ volatile("" ::: "memory");
    return x + 1;
}
static int hits;
static int on_entry(edgeprobe_func_call *call, void *user) {
    (void)call, (void)user;
    hits++;
    return 0;
}
static volatile int stop;
static void *idle(void *arg) {
    (void)arg;
    while (!stop) usleep(1000);
    return 0;
}
/* The permissions of the mapping that holds addr ("r-xp", ...), from
 * /proc/self/maps; "" when none does. */
static const char *perms_at(const void *addr) {
    static char perms[8];
    char line[512];
    FILE *f = fopen("/proc/self/maps", "r");
    perms[0] = 0;
    while (f && fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) == 3 && (uintptr_t)addr >= lo && (uintptr_t)addr < hi) break;
        perms[0] = 0;
    }
    if (f) fclose(f);
    return perms;
}
/* After a switch: strict W^X leaves the text, and a mirror page, read and
 * execute; the default policy leaves them writable (both opened once: the
 * text as a whole, the mirror page when mapped; README "Writable code"). */
int main(int argc, char **argv);
static void check_pages(const unsigned char *site, int mirror) {
    const char *wx = getenv("EDGEPROBE_WX"), *want = wx && !strcmp(wx, "strict") ? "r-xp" : "rwxp";
    CHECK(strcmp(perms_at(site), want) == 0);
    CHECK(strcmp(perms_at((const void *)main), want) == 0); /* the whole text, not only target's page */
    if (mirror) CHECK(strcmp(perms_at((const void *)((uintptr_t)site - 0x6f6f6f6b)), want) == 0);
}
static int id_of(const char *name, edgeprobe_info *out) {
    int id;
    for (id = 0; id < edgeprobe_point_count(); id++)
        if (edgeprobe_point_info(id, out) == 0 && out->kind == EDGEPROBE_KIND_FUNCTION && !strcmp(out->name, name))
            return id;
    return -1;
}

int main(int argc, char **argv) {
    const char *expect = argc > 1 ? argv[1] : "";
    unsigned char *site = (unsigned char *)(void *)target, before[5];
    edgeprobe_info info;
    pthread_t th;
    int threads = !strcmp(expect, "threads"), id;
    memcpy(before, site, 5);
    if (threads) CHECK_EQ(pthread_create(&th, 0, idle, 0), 0);
    CHECK(edgeprobe_func_scan() > 0);
    id = id_of("target", &info);
    CHECK(id >= 0);
    CHECK(info.site == (void *)site);
    if (!strcmp(expect, "mirror")) {
        CHECK(memcmp(site, nops, 5) == 0);
        CHECK_EQ(edgeprobe_func_attach("target", on_entry, 0, 0), 1);
        CHECK_EQ(site[0], 0xe8);
        CHECK(memcmp(site + 1, nops, 4) == 0);
        check_pages(site, 1);
    } else if (!strcmp(expect, "nop5") || !strcmp(expect, "single")) {
        if (!strcmp(expect, "single")) CHECK(memcmp(before, nops, 5) == 0); /* until the scan */
        else CHECK(memcmp(before, check_nop5, 4) == 0); /* clang, or the constructor did it */
        CHECK(memcmp(site, check_nop5, 4) == 0);
        CHECK_EQ(edgeprobe_func_attach("target", on_entry, 0, 0), 1);
        CHECK_EQ(site[0], 0xe8);
        check_pages(site, 0);
    } else if (threads) {
        CHECK_EQ(info.patchable, 0);
        CHECK(memcmp(site, nops, 5) == 0);
        CHECK_EQ(edgeprobe_func_attach("target", on_entry, 0, 0), EDGEPROBE_EUNSAFE);
        CHECK_EQ(edgeprobe_func_attach_id(id, on_entry, 0, 0), EDGEPROBE_EUNSAFE);
        CHECK_EQ(edgeprobe_func_attach("targe*", on_entry, 0, 0), 0);
        CHECK(memcmp(site, nops, 5) == 0);
        stop = 1;
        pthread_join(th, 0);
        CHECK_EQ(target(1), 2);
        CHECK_EQ(hits, 0);
        return check_done("t_rules threads");
    } else {
        fprintf(stderr, "usage: t_rules mirror|nop5|single|threads\n");
        return 2;
    }
    CHECK_EQ(target(1), 2);
    CHECK_EQ(hits, 1);
    CHECK_EQ(edgeprobe_func_detach("target"), 1);
    CHECK_EQ(target(1), 2);
    CHECK_EQ(hits, 1);
    CHECK(memcmp(site, !strcmp(expect, "mirror") ? nops : check_nop5, 4) == 0);
    return check_done(expect);
}
