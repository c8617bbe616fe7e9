/* late_lib.c - a library tests/prof/late_libs.c loads while it runs: one
 * function, named by -DNAME, built with -fpatchable-function-entry=5. */
__attribute__((noinline)) long NAME(long x) {
    __asm__ volatile("" ::: "memory");
    return x * 3 + 1;
}
