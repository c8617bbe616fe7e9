/* Refusals leave code alone: a site changed behind edgeprobe's back, an
 * mprotect that fails, and the strict W^X policy restoring read+execute. */
#define _GNU_SOURCE
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <errno.h>
#define EDGEPROBE_IMPLEMENTATION /* this program's one copy of the implementation */
#include "edgeprobe.h"
#include "check.h"

/* This definition interposes libc's mprotect for the whole program, so the
 * test can make it fail on demand. */
static int mprotect_fail, mprotect_calls;
int mprotect(void *addr, size_t len, int prot) {
    mprotect_calls++;
    if (mprotect_fail) {
        errno = EACCES;
        return -1;
    }
    return (int)syscall(SYS_mprotect, addr, len, prot);
}

static int hits;
__attribute__((noinline)) static void a1(void) { if (EDGEPROBE_BRANCH(tamper_two)) hits++; }
__attribute__((noinline)) static void a2(void) { if (EDGEPROBE_BRANCH(tamper_two)) hits++; }
__attribute__((noinline)) static void b1(void) { if (EDGEPROBE_BRANCH(tamper_strict)) hits++; }

static unsigned char *site_of(const char *name, int nth) {
    const edgeprobe__record *rec;
    for (rec = __start_edgeprobe_sites; rec < __stop_edgeprobe_sites; rec++) {
        if (strcmp((const char *)edgeprobe__rel(&rec->name), name) == 0 && nth-- == 0) return (unsigned char *)edgeprobe__rel(&rec->site);
    }
    return NULL;
}
/* Permissions of the page holding p, from /proc/self/maps ("r-xp"...). */
static void perms_of(const void *p, char out[5]) {
    FILE *f = fopen("/proc/self/maps", "r");
    char line[512];
    strcpy(out, "????");
    while (f && fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        char perms[5];
        if (sscanf(line, "%lx-%lx %4s", &lo, &hi, perms) == 3 && (uintptr_t)p >= lo && (uintptr_t)p < hi) {
            memcpy(out, perms, 5);
            break;
        }
    }
    if (f) fclose(f);
}
static void poke(unsigned char *site, const unsigned char *bytes, size_t n) {
    uintptr_t pg = (uintptr_t)site & ~(uintptr_t)4095;
    syscall(SYS_mprotect, (void *)pg, 8192, PROT_READ | PROT_WRITE | PROT_EXEC);
    memcpy(site, bytes, n);
    __builtin___clear_cache((char *)site, (char *)site + n); /* aarch64: fetch must see it */
}

static void test_tampered_site(void) {
    unsigned char *s0 = site_of("tamper_two", 0), *s1 = site_of("tamper_two", 1);
    unsigned char saved[sizeof check_foreign], other[sizeof check_foreign];
    const size_t n = sizeof check_foreign; /* a site's size (x86: NOP5) */
    CHECK(s0 && s1);
    if (!s0 || !s1) return;
    /* Break the second site: enabling must fail, and the first site, already
     * switched by then, must be put back. */
    memcpy(saved, s1, n);
    memcpy(other, s0, n);
    poke(s1, check_foreign, n);
    CHECK_EQ(edgeprobe_enable("tamper_two"), EDGEPROBE_EBYTES);
    CHECK(memcmp(s1, check_foreign, n) == 0);
    CHECK(memcmp(s0, other, n) == 0);
    CHECK_EQ(edgeprobe_disable("tamper_two"), 0);
    a1();
    CHECK_EQ(hits, 0);
    poke(s1, saved, n);
    CHECK_EQ(edgeprobe_enable("tamper_two"), 1);
    a1();
    a2();
    CHECK_EQ(hits, 2);
    CHECK_EQ(edgeprobe_disable("tamper_two"), 1);
}

static void test_mprotect_failure_and_strict(void) {
    unsigned char *s = site_of("tamper_strict", 0), before[sizeof check_foreign];
    char perms[5];
    CHECK(s != NULL);
    if (!s) return;
    CHECK_EQ(edgeprobe_set_wx_strict(1), 0);
    memcpy(before, s, sizeof before);
    mprotect_fail = 1;
    CHECK_EQ(edgeprobe_enable("tamper_strict"), EDGEPROBE_EPROT);
    mprotect_fail = 0;
    CHECK(memcmp(s, before, sizeof before) == 0);
    b1();
    CHECK_EQ(hits, 2);
    mprotect_calls = 0;
    CHECK_EQ(edgeprobe_enable("tamper_strict"), 1);
    CHECK_EQ(mprotect_calls, 2); /* open, then close again */
    perms_of(s, perms);
    CHECK(strcmp(perms, "r-xp") == 0);
    b1();
    CHECK_EQ(hits, 3);
    CHECK_EQ(edgeprobe_disable("tamper_strict"), 1);
    perms_of(s, perms);
    CHECK(strcmp(perms, "r-xp") == 0);
    /* Keep-writable: one mprotect the first time, none after. */
    CHECK_EQ(edgeprobe_set_wx_strict(0), 0);
    mprotect_calls = 0;
    CHECK_EQ(edgeprobe_enable("tamper_strict"), 1);
    CHECK_EQ(edgeprobe_disable("tamper_strict"), 1);
    CHECK_EQ(edgeprobe_enable("tamper_strict"), 1);
    CHECK(mprotect_calls <= 1);
    perms_of(s, perms);
    CHECK(strcmp(perms, "rwxp") == 0);
    CHECK_EQ(edgeprobe_disable("tamper_strict"), 1);
}

int main(void) {
    test_tampered_site();
    test_mprotect_failure_and_strict();
    return check_done("t_tamper");
}
