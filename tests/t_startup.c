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
 * every point. And that start-up wrote nothing into the program's pages
 * for the probes: the markers' marks (.bss) are untouched (mincore) until a
 * probe is switched on, and only the switched-on probe's mark is linked.
 *
 * Build: gcc ... t_startup.c gen_*.c -DSTARTUP_SITES=N -ldl (glibc only:
 * it calls __libc_malloc and friends). */
#define _GNU_SOURCE
#include "check.h"
#define EDGEPROBE_IMPLEMENTATION /* this program's one copy of the implementation */
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
/* The pages holding this program's marks: how many, and how many of them
 * this process has touched (an untouched .bss page is not resident). */
static int mark_pages(int *resident) {
    const edgeprobe__record *rec;
    uintptr_t lo = UINTPTR_MAX, hi = 0, page = (uintptr_t)sysconf(_SC_PAGESIZE);
    static unsigned char vec[4096];
    int n, i;
    for (rec = __start_edgeprobe_sites; rec < __stop_edgeprobe_sites; rec++) {
        uintptr_t m = (uintptr_t)edgeprobe__rel(&rec->mark);
        lo = m < lo ? m : lo;
        hi = m > hi ? m : hi;
    }
    lo &= ~(page - 1);
    hi = (hi | (page - 1)) + 1;
    n = (int)((hi - lo) / page);
    if (n > (int)sizeof vec || mincore((void *)lo, hi - lo, vec) != 0) return -1;
    for (*resident = 0, i = 0; i < n; i++) *resident += vec[i] & 1;
    return n;
}
/* How many marks are linked to their points. */
static int marks_linked(void) {
    const edgeprobe__record *rec;
    int n = 0;
    for (rec = __start_edgeprobe_sites; rec < __stop_edgeprobe_sites; rec++)
        n += ((edgeprobe__mark *)edgeprobe__rel(&rec->mark))->point != NULL;
    return n;
}

static int count_points(const edgeprobe_info *info, void *arg) {
    (void)info;
    ++*(int *)arg;
    return 0;
}

int main(void) {
    unsigned long allocs = n_alloc, maps = n_map;
    int listed = 0, mid = STARTUP_SITES / 2, resident = -1, pages = mark_pages(&resident), after;
    char name[32];
    /* the counts first, before the checks allocate anything */
    printf("sites=%d allocs=%lu maps=%lu\n", STARTUP_SITES, allocs, maps);
    printf("mark pages: %d, touched before main: %d\n", pages, resident);
    CHECK(pages > 0);
    if (STARTUP_SITES >= 5000) { /* 8-byte marks: 10 pages; the ends may share data */
        CHECK(pages >= 8);
        CHECK(resident <= 2);
    }
    CHECK_EQ(marks_linked(), 0);

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
    CHECK_EQ(marks_linked(), 1);
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
    CHECK(mark_pages(&after) == pages);
    CHECK_EQ(after, pages); /* switched on: every mark linked, every page touched */
    CHECK_EQ(edgeprobe_disable("s_*"), STARTUP_SITES);
    CHECK(startup_run(0) == 0);
    return check_done("startup");
}
