/* An instrumented library: its hook calls go through its PLT. */
__attribute__((noinline)) int lib_square(int x) { return x * x + 1; }
