/* Built with -finstrument-functions: its call of the provider's hook is
 * first made inside t_signal_malloc's signal handler, so that site is
 * discovered there, while the interrupted thread is inside malloc. */
__attribute__((noinline)) int sig_provided(int x) { return x + 1; }
