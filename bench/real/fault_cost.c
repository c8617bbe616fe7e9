/* bench/real/fault_cost.c - the page faults that switching every function of
 * a program cannot avoid, priced on this machine: the floor under
 * `edgeprobe prof`'s start-up per function (bench/real/prof_startup.sh
 * prints it beside the measured figures).
 *
 *   fault_cost ELF [ROUNDS]
 *
 * Switching a function on writes its entry: the first write to a text page
 * copies it (a copy-on-write fault of a file page the loader mapped and
 * the scan read). That is the floor: one fault per text page. A gcc-form
 * function that the scan could not convert (a thread was running) also
 * needs its mirror stub, in an anonymous page its first write fills with
 * zeros (header 27.4): one more fault per text page. This program maps
 * ELF's executable segment as the loader does (private, read+execute),
 * reads every page, opens it with one mprotect, and times the first write
 * to each page; then an anonymous mapping of as many pages, written first
 * (a zero-fill fault) and, for comparison, read first then written (two
 * faults: what a mirror page cost before 2026-11-26). Each figure is the
 * median over ROUNDS (default 21) of the per-page mean, in TSC ticks, and
 * in microseconds at the TSC rate measured against CLOCK_MONOTONIC.
 * Prints one line: pages, cow, zero, read+zero (ticks), the TSC rate
 * (ticks per microsecond), the floor per text page (the copy) and what a
 * mirror page adds, in microseconds. */
#define _GNU_SOURCE
#include <elf.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

#define PAGE 4096ul

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}
static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, by_value);
    return v[n / 2];
}
/* The executable PT_LOAD segment of the file: its file offset and size. */
static int text_segment(int fd, off_t *off, size_t *len) {
    Elf64_Ehdr eh;
    int i;
    if (pread(fd, &eh, sizeof eh, 0) != (ssize_t)sizeof eh || eh.e_ident[EI_CLASS] != ELFCLASS64) return -1;
    for (i = 0; i < eh.e_phnum; i++) {
        Elf64_Phdr ph;
        if (pread(fd, &ph, sizeof ph, (off_t)(eh.e_phoff + (size_t)i * sizeof ph)) != (ssize_t)sizeof ph) return -1;
        if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X)) {
            *off = (off_t)(ph.p_offset & ~(PAGE - 1));
            *len = (ph.p_offset - (size_t)*off + ph.p_filesz + PAGE - 1) & ~(PAGE - 1);
            return 0;
        }
    }
    return -1;
}
/* Ticks per page of the first write to each page of a private copy of the
 * text, as the loader maps it and the scan reads it. */
static double cow_ticks(int fd, off_t off, size_t len) {
    size_t n = len / PAGE, i;
    volatile unsigned char *p = mmap(0, len, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, off);
    uint64_t t0;
    if (p == MAP_FAILED) return -1;
    for (i = 0; i < n; i++) (void)p[i * PAGE]; /* loaded and read (volatile: the read happens) */
    mprotect((void *)p, len, PROT_READ | PROT_WRITE | PROT_EXEC);
    t0 = __rdtsc();
    for (i = 0; i < n; i++) p[i * PAGE + 1] = (unsigned char)(p[i * PAGE + 1] + 1);
    t0 = __rdtsc() - t0;
    munmap((void *)p, len);
    return (double)t0 / (double)n;
}
/* Ticks per page of filling fresh anonymous pages: written first, or read
 * first (the shared zero page mapped) and then written. */
static double zero_ticks(size_t len, int read_first) {
    size_t n = len / PAGE, i;
    volatile unsigned char *p = mmap(0, len, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    uint64_t t0;
    if (p == MAP_FAILED) return -1;
    t0 = __rdtsc();
    for (i = 0; i < n; i++) {
        if (read_first) (void)p[i * PAGE + 0x95];
        p[i * PAGE + 0x95] = 0xe9;
    }
    t0 = __rdtsc() - t0;
    munmap((void *)p, len);
    return (double)t0 / (double)n;
}
static double ticks_per_us(void) {
    struct timespec a, b;
    uint64_t t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &a);
    t0 = __rdtsc();
    do clock_gettime(CLOCK_MONOTONIC, &b);
    while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < 50000000L);
    t1 = __rdtsc();
    return (double)(t1 - t0) / ((double)(b.tv_sec - a.tv_sec) * 1e6 + (double)(b.tv_nsec - a.tv_nsec) / 1e3);
}

int main(int argc, char **argv) {
    int fd = argc > 1 ? open(argv[1], O_RDONLY) : -1, rounds = argc > 2 ? atoi(argv[2]) : 21, r;
    off_t off;
    size_t len;
    double *cow, *zero, *read_zero, rate, c, z, rz;
    if (fd < 0 || text_segment(fd, &off, &len) || rounds < 1) {
        fprintf(stderr, "usage: fault_cost ELF [ROUNDS] (a 64-bit ELF file with an executable segment)\n");
        return 2;
    }
    cow = calloc((size_t)rounds, sizeof *cow);
    zero = calloc((size_t)rounds, sizeof *zero);
    read_zero = calloc((size_t)rounds, sizeof *read_zero);
    for (r = 0; r < rounds; r++) {
        cow[r] = cow_ticks(fd, off, len);
        zero[r] = zero_ticks(len, 0);
        read_zero[r] = zero_ticks(len, 1);
    }
    rate = ticks_per_us();
    c = median(cow, rounds), z = median(zero, rounds), rz = median(read_zero, rounds);
    printf("pages %zu cow %.0f zero %.0f read+zero %.0f ticks_per_us %.1f floor_us_per_page %.2f mirror_us_per_page %.2f\n",
           len / PAGE, c, z, rz, rate, c / rate, z / rate);
    return 0;
}
