/* lib.c - a shared library built with -fpatchable-function-entry=5 that
 * does not include edgeprobe.h: its functions are probes all the same. */
__attribute__((noinline)) long lib_helper(long x) { return x * 2; }
long lib_twice(long x) { return lib_helper(x) + 1; }
