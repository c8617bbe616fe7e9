/* libedgeprobe-hooks.so - empty __cyg_profile_func_enter/exit for programs
 * built with -finstrument-functions. Linked against it, such a program runs
 * normally on its own; under `edgeprobe prof` the preloaded profiler's hooks
 * come first in symbol lookup and take over. */
__attribute__((no_instrument_function)) void __cyg_profile_func_enter(void *fn, void *site) {
    (void)fn, (void)site;
}
__attribute__((no_instrument_function)) void __cyg_profile_func_exit(void *fn, void *site) {
    (void)fn, (void)site;
}
