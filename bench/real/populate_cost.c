/* bench/real/populate_cost.c [ROUNDS] - what anonymous memory costs to
 * bring in, in TSC ticks a 4 KiB page, three ways: touched a page at a time
 * (a fault each), populated by one madvise(MADV_POPULATE_WRITE) ahead (what
 * the profiler's agent does for its records), and as one transparent huge
 * page (MADV_HUGEPAGE, where the kernel gives one). For 86 pages (zstd's
 * records: 812 functions of about 430 bytes) and 428 (4,000 functions).
 * Each measurement is the first mapping of a new process (fork), as the
 * agent's is: a huge page freed and mapped again in one process comes
 * back with its 2 MiB still in the cache, and clearing it costs a fifth
 * of clearing it cold. Each figure: the median of ROUNDS (default 21). */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
#define HUGE (2ul << 20)

enum { TOUCHED, POPULATED, HUGE_PAGE, WAYS };
static const char *const way_name[WAYS] = {"touched", "populated", "huge page"};

static uint64_t rdtsc(void) { return __builtin_ia32_rdtsc(); }
static int by_value(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}
/* Ticks to bring in `pages` pages of a fresh mapping, one way; 0 if the
 * way is refused here. */
static uint64_t bring_in(int way, size_t pages) {
    char *map = mmap(0, 2 * HUGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    char *p = (char *)(((uintptr_t)map + HUGE - 1) & ~(HUGE - 1)); /* huge-page aligned */
    uint64_t t;
    size_t i;
    if (map == MAP_FAILED) return 0;
    if (way == HUGE_PAGE && madvise(p, HUGE, MADV_HUGEPAGE)) return munmap(map, 2 * HUGE), 0;
    t = rdtsc();
    if (way == POPULATED && madvise(p, pages * 4096, MADV_POPULATE_WRITE)) return munmap(map, 2 * HUGE), 0;
    for (i = 0; i < pages; i++) p[i * 4096] = 1;
    t = rdtsc() - t;
    munmap(map, 2 * HUGE);
    return t;
}
/* bring_in in a child process: its first mapping. */
static uint64_t bring_in_fresh(int way, size_t pages) {
    uint64_t t = 0;
    int fd[2], st;
    pid_t pid;
    if (pipe(fd)) return 0;
    if ((pid = fork()) == 0) {
        t = bring_in(way, pages);
        _exit(write(fd[1], &t, sizeof t) == (ssize_t)sizeof t ? 0 : 1);
    }
    close(fd[1]);
    if (pid < 0 || read(fd[0], &t, sizeof t) != (ssize_t)sizeof t) t = 0;
    close(fd[0]);
    if (pid > 0) waitpid(pid, &st, 0);
    return t;
}
int main(int argc, char **argv) {
    enum { SIZES = 2 };
    static const size_t sizes[SIZES] = {86, 428};
    int rounds = argc > 1 ? atoi(argv[1]) : 21, way, r, s;
    uint64_t *v;
    if (rounds < 1 || !(v = calloc((size_t)rounds * SIZES * WAYS, sizeof *v))) return 2;
    for (r = 0; r < rounds; r++) /* the ways interleaved, in an order rotated each round */
        for (s = 0; s < SIZES; s++)
            for (way = 0; way < WAYS; way++) {
                int w = (way + r) % WAYS;
                v[(s * WAYS + w) * rounds + r] = bring_in_fresh(w, sizes[s]);
            }
    printf("| pages | way | ticks, median of %d | per page |\n|---:|---|---:|---:|\n", rounds);
    for (s = 0; s < SIZES; s++)
        for (way = 0; way < WAYS; way++) {
            uint64_t *m = v + (s * WAYS + way) * rounds;
            qsort(m, (size_t)rounds, sizeof *m, by_value);
            if (!m[rounds / 2]) printf("| %zu | %s | refused here | |\n", sizes[s], way_name[way]);
            else
                printf("| %zu | %s | %llu | %llu |\n", sizes[s], way_name[way], (unsigned long long)m[rounds / 2],
                       (unsigned long long)(m[rounds / 2] / sizes[s]));
        }
    free(v);
    return 0;
}
