/* applib.c - the linked library of app.c (and, with -DPLUGIN, the plugin). */
#ifdef PLUGIN
__attribute__((noinline)) long plugin_step(long x) { return x * 3; }
#else
__attribute__((noinline)) long applib_inner(long x) { return x ^ (x >> 3); }
long applib_mix(long x) { return applib_inner(x) + 1; }
#endif
