/* tests/t_startup.c - registration allocates nothing per site (issue 9).
 *
 * Linked with generated translation units (tests/drivers/startup.sh) that
 * hold STARTUP_SITES distinct BRANCH probes, plus the names shared_a and
 * shared_b in two TUs each. This file interposes malloc, calloc, realloc and
 * mmap to count the calls made before main, that is, by the libc start-up
 * and edgeprobe's constructor. It prints the counts; the driver builds the
 * program at two sizes and checks the counts are the same: allocations may
 * depend on the number of objects, never on the number of sites. It also
 * checks that what was registered works: every point is listed, an exact
 * name and a shared name switch their sites, the discovery callback sees
 * every point.
 *
 * Build: gcc ... t_startup.c gen_*.c -DSTARTUP_SITES=N -ldl (glibc only:
 * it calls __libc_malloc and friends). */
#define _GNU_SOURCE
#include "check.h"
#include "edgeprobe.h"
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef STARTUP_SITES
#error "build with -DSTARTUP_SITES=<number of generated distinct probes>"
#endif

/* ---- the interposer: count, then forward to glibc's own allocator -------- */
void *__libc_malloc(size_t);
void *__libc_calloc(size_t, size_t);
void *__libc_realloc(void *, size_t);
void __libc_free(void *);

static unsigned long n_alloc, n_map;
void *malloc(size_t n) {
    __atomic_add_fetch(&n_alloc, 1, __ATOMIC_RELAXED);
    return __libc_malloc(n);
}
void *calloc(size_t k, size_t n) {
    __atomic_add_fetch(&n_alloc, 1, __ATOMIC_RELAXED);
    return __libc_calloc(k, n);
}
void *realloc(void *p, size_t n) {
    __atomic_add_fetch(&n_alloc, 1, __ATOMIC_RELAXED);
    return __libc_realloc(p, n);
}
void free(void *p) { __libc_free(p); }
/* libc's own mmap calls use an internal alias; edgeprobe's come here. */
void *mmap(void *a, size_t len, int prot, int flags, int fd, off_t off) {
    __atomic_add_fetch(&n_map, 1, __ATOMIC_RELAXED);
    return (void *)syscall(SYS_mmap, a, len, prot, flags, fd, off);
}

/* generated: f_<i>() runs the BRANCH probe s_<i>; shared_a/b live in two TUs */
int startup_run(int i);
int startup_shared_a(int tu);

static int discovered;
static void on_discover(const edgeprobe_info *info, void *arg) {
    (void)info, (void)arg;
    discovered++;
}
static int count_points(const edgeprobe_info *info, void *arg) {
    (void)info;
    ++*(int *)arg;
    return 0;
}

int main(void) {
    unsigned long allocs = n_alloc, maps = n_map;
    int listed = 0, mid = STARTUP_SITES / 2;
    char name[32];
    /* the counts first, before the checks allocate anything */
    printf("sites=%d allocs=%lu maps=%lu\n", STARTUP_SITES, allocs, maps);

    /* every point listed: the distinct ones and the two shared names */
    CHECK_EQ(edgeprobe_point_count(), STARTUP_SITES + 4);
    CHECK(edgeprobe_foreach(count_points, &listed) == 0);
    CHECK_EQ(listed, STARTUP_SITES + 4);
    CHECK(edgeprobe_set_discovery(on_discover, 0) == 0);
    CHECK_EQ(discovered, STARTUP_SITES + 4);

    /* an exact name in the middle of the table */
    snprintf(name, sizeof name, "s_%d", mid);
    CHECK(startup_run(mid) == 0);
    CHECK(edgeprobe_enable(name) == 1);
    CHECK(startup_run(mid) == 1);
    CHECK(startup_run(mid + 1) == 0);
    CHECK(edgeprobe_disable(name) == 1);
    CHECK(startup_run(mid) == 0);

    /* a name shared by two TUs: one probe, both sites */
    CHECK(startup_shared_a(0) == 0 && startup_shared_a(1) == 0);
    CHECK(edgeprobe_enable("shared_a") == 1);
    CHECK(startup_shared_a(0) == 1 && startup_shared_a(1) == 1);
    CHECK(edgeprobe_disable("shared_*") == 1);
    CHECK(startup_shared_a(0) == 0 && startup_shared_a(1) == 0);

    /* a glob over the whole table */
    CHECK_EQ(edgeprobe_enable("s_*"), STARTUP_SITES);
    CHECK(startup_run(0) == 1 && startup_run(STARTUP_SITES - 1) == 1);
    CHECK_EQ(edgeprobe_disable("s_*"), STARTUP_SITES);
    CHECK(startup_run(0) == 0);
    return check_done("startup");
}
