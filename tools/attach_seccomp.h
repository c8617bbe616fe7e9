/* tools/attach_seccomp.h - may `edgeprobe attach` inject into a process
 * under seccomp? (tools/attach_seccomp.c) */
#ifndef EDGEPROBE_ATTACH_SECCOMP_H
#define EDGEPROBE_ATTACH_SECCOMP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The process's seccomp mode (the "Seccomp:" line of /proc/PID/status):
 * 0 none, 1 strict, 2 filter; -1 if unknown. */
int seccomp_mode(pid_t pid);

/* Run the seccomp filters of the ptrace-stopped thread tid against every
 * system call the injected dlopen and the agent's thread make (with
 * arguments like theirs; ip: where they are made from). 0: all allowed.
 * Else 1, and why (the first call not allowed and what the filter does to
 * it, or why the filters could not be read) in why[n]. */
int seccomp_allows_agent(pid_t tid, uint64_t ip, char *why, size_t n);

#endif
