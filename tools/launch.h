/* tools/launch.h - running a PROGRAM with one of edgeprobe's libraries
 * preloaded (`edgeprobe record`; the same steps as `edgeprobe prof`). */
#ifndef EDGEPROBE_LAUNCH_H
#define EDGEPROBE_LAUNCH_H
#include <stddef.h>

/* The library `name`: $env_var, beside this executable, or in
 * ../lib/edgeprobe/ relative to it. 0, or -1 if not found. */
int launch_find_library(const char *name, const char *env_var, char *out, size_t n);
/* Fork, put `lib` first in LD_PRELOAD, call setup() in the child (it sets
 * the child's environment), exec argv[0]; wait with SIGINT and SIGQUIT
 * ignored (they reach the program), calling tick(arg) every 250 ms if it
 * is not NULL. Returns the program's exit status as a shell reports it
 * (128 + signal), 126/127 when it could not run, or -1 when we could not
 * fork or wait. `who` prefixes messages. */
int launch_preloaded(const char *who, const char *lib, char **argv, void (*setup)(void *), void (*tick)(void *),
                     void *arg);
#endif
