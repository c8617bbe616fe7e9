/* t_rules.c - when may gcc's five one-byte NOPs be rewritten? (README,
 * "Function probes": the rule). Run as: t_rules EXPECT, where EXPECT is
 *   mirror   PIE: the NOPs stay; on = e8 in byte 0 (call 0x6f6f6f6b below);
 *            one mirror page is mapped, or, built with EDGEPROBE_FUNC_BULK=1,
 *            the mirror of the program's whole text at once
 *   mirror-blocked  PIE, EDGEPROBE_FUNC_BULK=1, with a page of that mirror
 *            taken before the first switch: the other pages are mapped one
 *            by one, and the function whose stub cannot be mapped is refused
 *   nop5     clang's NOP5 form, or gcc non-PIE converted by the constructor
 *   single   gcc non-PIE, no constructor rewrite, first scan single-threaded:
 *            rewritten at the scan; also gcc PIE built with
 *            EDGEPROBE_FUNC_BULK=1 (no mirror page mapped)
 *   mirror-threads  the same PIE build, a thread running at the first
 *            scan: the NOPs stay, as in mirror
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
#include <sys/mman.h>
#include <unistd.h>

static const unsigned char nops[5] = {0x90, 0x90, 0x90, 0x90, 0x90};
__attribute__((noinline, aligned(4096))) int target(int x) {
    __asm__ volatile("" ::: "memory");
    return x + 1;
}
/* Another function, a page or more away, so that its mirror stub lies in
 * another page than target's. */
__attribute__((noinline, aligned(4096))) int far(int x) {
    __asm__ volatile("" ::: "memory");
    return x + 2;
}
#define MIRROR_OF(fn) ((const void *)((uintptr_t)(void *)(fn) - 0x6f6f6f6b))
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
static const char *wx_want(void) {
    const char *wx = getenv("EDGEPROBE_WX");
    return wx && !strcmp(wx, "strict") ? "r-xp" : "rwxp";
}
static void check_pages(const unsigned char *site, int mirror) {
    const char *want = wx_want();
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

/* far's mirror page, taken before the first switch: the object's mirror
 * span cannot be mapped whole. */
static void block_far_mirror(void) {
    uintptr_t page = (uintptr_t)MIRROR_OF(far) & ~(uintptr_t)4095;
    CHECK(page != ((uintptr_t)MIRROR_OF(target) & ~(uintptr_t)4095)); /* the alignment keeps them apart */
    CHECK(page != (((uintptr_t)MIRROR_OF(target) + 4) & ~(uintptr_t)4095));
    CHECK(mmap((void *)page, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0) ==
          (void *)page);
}
/* What switching far finds where its mirror stub goes. */
static void check_far(int blocked) {
    unsigned char far_before[5];
    memcpy(far_before, (void *)far, 5);
    if (blocked) { /* refused, and nothing written */
        CHECK_EQ(edgeprobe_func_attach("far", on_entry, 0, 0), EDGEPROBE_ERANGE);
        CHECK(memcmp((void *)far, far_before, 5) == 0);
        CHECK(strcmp(perms_at(MIRROR_OF(far)), "---p") == 0);
        CHECK_EQ(far(1), 3);
        return;
    }
    CHECK_EQ(edgeprobe_func_attach("far", on_entry, 0, 0), 1);
    CHECK_EQ(far(1), 3);
    CHECK_EQ(hits, 2);
    CHECK_EQ(edgeprobe_func_detach("far"), 1);
    CHECK(memcmp((void *)far, far_before, 5) == 0);
}

int main(int argc, char **argv) {
    const char *expect = argc > 1 ? argv[1] : "";
    unsigned char *site = (unsigned char *)(void *)target, before[5];
    edgeprobe_info info;
    pthread_t th;
    int blocked = !strcmp(expect, "mirror-blocked"), id; /* (a thread keeps EDGEPROBE_FUNC_BULK from converting) */
    int threads = !strcmp(expect, "threads") || !strcmp(expect, "mirror-threads") || blocked;
    memcpy(before, site, 5);
    if (blocked) block_far_mirror();
    if (blocked || threads) expect = !strcmp(expect, "threads") ? expect : "mirror";
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
        /* far's mirror: mapped with target's in one span under
         * EDGEPROBE_FUNC_BULK, else not yet (or the page taken); far is
         * switched only after target's hit below */
        CHECK(strcmp(perms_at(MIRROR_OF(far)), blocked ? "---p" : EDGEPROBE_FUNC_BULK ? wx_want() : "") == 0);
    } else if (!strcmp(expect, "nop5") || !strcmp(expect, "single")) {
        if (!strcmp(expect, "single")) CHECK(memcmp(before, nops, 5) == 0); /* until the scan */
        else CHECK(memcmp(before, check_nop5, 4) == 0); /* clang, or the constructor did it */
        CHECK(memcmp(site, check_nop5, 4) == 0);
        /* gcc's NOPs rewritten by one 4-byte store: the fifth stays, as the
         * NOP5's displacement (the header: edgeprobe__func_nops_to_nop5_locked) */
#ifndef __clang__ /* clang's own NOP5 ends in 08 */
        CHECK_EQ(site[4], 0x90);
#endif
        CHECK_EQ(edgeprobe_func_attach("target", on_entry, 0, 0), 1);
        CHECK_EQ(site[0], 0xe8);
        check_pages(site, 0);
        CHECK(strcmp(perms_at(MIRROR_OF(target)), "") == 0); /* none needed */
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
        fprintf(stderr, "usage: t_rules mirror|mirror-blocked|mirror-threads|nop5|single|threads\n");
        return 2;
    }
    CHECK_EQ(target(1), 2);
    CHECK_EQ(hits, 1);
    CHECK_EQ(edgeprobe_func_detach("target"), 1);
    CHECK_EQ(target(1), 2);
    CHECK_EQ(hits, 1);
    CHECK(memcmp(site, !strcmp(expect, "mirror") ? nops : check_nop5, 4) == 0);
    if (!strcmp(expect, "mirror")) check_far(blocked);
    if (threads) {
        stop = 1;
        pthread_join(th, 0);
    }
    return check_done(argv[1]);
}
