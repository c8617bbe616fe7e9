/* t_mirror_pages.c - mirror pages (header 27.4) where their stubs cross
 * page boundaries, with mirror_pages.S's entries. Run as:
 *   t_mirror_pages policy   built by default: pages mapped one at a time.
 *       A page mapped under strict W^X (read+execute) sits next to pages
 *       mapped after the policy went back to writable; a stub written
 *       across them must leave each page recorded as it really is, or the
 *       next write trusts a stale "open" and faults (found by review; the
 *       program died with SIGSEGV).
 *   t_mirror_pages bulk     built with EDGEPROBE_FUNC_BULK=1: the scan
 *       rewrites the entries as NOP5s but the one that straddles a cache
 *       line, which switches through a mirror stub; switching it maps the
 *       object's whole mirror at once. */
#define _GNU_SOURCE
#define EDGEPROBE_IMPLEMENTATION
#include "edgeprobe.h"
#include "check.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

int mp_one(void), mp_two(void), mp_three(void), mp_line(void);
#define MIRROR_PAGE(fn) (((uintptr_t)(void *)(fn) - 0x6f6f6f6b) & ~(uintptr_t)4095)
static const unsigned char nops[5] = {0x90, 0x90, 0x90, 0x90, 0x90};
static int hits;
static int on_entry(edgeprobe_func_call *call, void *user) {
    (void)call, (void)user;
    hits++;
    return 0;
}
/* The permissions of the mapping that holds addr ("" when none does). */
static void perms_at(uintptr_t addr, char perms[8]) {
    char line[512];
    FILE *f = fopen("/proc/self/maps", "r");
    perms[0] = 0;
    while (f && fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) == 3 && addr >= lo && addr < hi) break;
        perms[0] = 0;
    }
    if (f) fclose(f);
}
static void policy_case(void) {
    char p[8];
    CHECK(edgeprobe_func_scan() >= 4);
    CHECK_EQ(edgeprobe_set_wx_strict(1), 0);
    CHECK_EQ(edgeprobe_func_attach("mp_one", on_entry, 0, 0), 1); /* P, read+execute */
    perms_at(MIRROR_PAGE(mp_one), p);
    CHECK(strcmp(p, "r-xp") == 0);
    CHECK_EQ(edgeprobe_set_wx_strict(0), 0);
    CHECK_EQ(edgeprobe_func_attach("mp_two", on_entry, 0, 0), 1); /* P | Q: Q mapped writable */
    CHECK_EQ(edgeprobe_func_attach("mp_three", on_entry, 0, 0), 1); /* Q | R: where it died */
    CHECK_EQ(mp_one() + mp_two() + mp_three(), 6);
    CHECK_EQ(hits, 3);
}
static void bulk_case(void) {
    char p[8];
    CHECK(edgeprobe_func_scan() >= 4);
    CHECK(memcmp((void *)mp_one, check_nop5, 4) == 0); /* converted */
    CHECK(memcmp((void *)mp_three, check_nop5, 4) == 0);
    CHECK(memcmp((void *)mp_line, nops, 5) == 0); /* straddles a line: kept */
    perms_at(MIRROR_PAGE(mp_line), p);
    CHECK(strcmp(p, "") == 0);
    CHECK_EQ(edgeprobe_func_attach("mp_line", on_entry, 0, 0), 1);
    CHECK_EQ(((unsigned char *)(void *)mp_line)[0], 0xe8);
    CHECK(memcmp((unsigned char *)(void *)mp_line + 1, nops, 4) == 0);
    perms_at(MIRROR_PAGE(mp_one), p); /* the whole object's mirror, mapped with mp_line's */
    CHECK(strcmp(p, "rwxp") == 0);
    CHECK_EQ(mp_line(), 4);
    CHECK_EQ(hits, 1);
    CHECK_EQ(edgeprobe_func_detach("mp_line"), 1);
    CHECK(memcmp((void *)mp_line, nops, 5) == 0);
}
int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "";
    if (!strcmp(mode, "policy") && !EDGEPROBE_FUNC_BULK) policy_case();
    else if (!strcmp(mode, "bulk") && EDGEPROBE_FUNC_BULK) bulk_case();
    else {
        fprintf(stderr, "usage: t_mirror_pages policy (default build) | bulk (EDGEPROBE_FUNC_BULK=1)\n");
        return 2;
    }
    return check_done(mode);
}
