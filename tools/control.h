/* tools/control.h - what the subcommands that talk to a process's control
 * endpoint (include/edgeprobe.h section 9) or read an ELF file share:
 * finding and opening the socket, the line protocol, probe rows. */
#ifndef EDGEPROBE_TOOL_CONTROL_H
#define EDGEPROBE_TOOL_CONTROL_H

#include <signal.h>
#include <stddef.h>
#include <stdio.h>

#define CTL_TIMEOUT_MS 5000 /* a reply slower than this is an error */

/* A connection: the socket and a buffer of received bytes. */
typedef struct ctl_conn {
    int fd, pid;
    char path[108];
    size_t len, pos;
    char buf[1 << 16];
} ctl_conn;

/* Open TARGET: a pid (its socket is looked up) or a socket's path. Prints
 * the reason and returns -1 on failure. */
int ctl_open(const char *target, ctl_conn *c);
void ctl_close(ctl_conn *c);
/* ctl_open into a new allocation (a ctl_conn holds a 64 KiB buffer: not
 * for the stack); NULL after printing why. ctl_disconnect closes and
 * frees it (NULL is fine). */
ctl_conn *ctl_connect(const char *target);
void ctl_disconnect(ctl_conn *c);
/* Send one request line (the '\n' is added). 0, or -1 with a message. */
int ctl_send(ctl_conn *c, const char *request);
/* Next line, without its '\n', in *line (valid until the next call): 1; 0 at
 * end of stream; -1 on error or after timeout_ms (-1: wait forever). */
int ctl_line(ctl_conn *c, char **line, int timeout_ms);
/* A reply that must be "ok ...": returns the text after "ok " or NULL after
 * printing the error the process sent (or the connection's failure). */
const char *ctl_expect_ok(ctl_conn *c, const char *command);
/* The same, for a request that works before it replies (a report). */
const char *ctl_expect_ok_within(ctl_conn *c, const char *command, int timeout_ms);
/* Does process pid serve an endpoint this user can reach? Prints nothing. */
int ctl_reachable(int pid);
/* A connection to process pid; when it serves no endpoint, `edgeprobe
 * attach` loads the agent first and the endpoint is waited for
 * (tools/cmd_detach.c). NULL after printing why. */
ctl_conn *ctl_attach_connect(int pid);

/* Candidate socket directories (see ctl_dirs in control_client.c). */
int ctl_dirs(char dirs[][256], int max);
int ctl_is_pid(const char *s);

/* One probe (a point), live or read from a file. */
typedef struct ctl_probe {
    int id, line, sites, on;
    unsigned long long hits; /* live only */
    char kind[16], name[128], file[520], function[260];
} ctl_probe;
/* Every point of the process ("list"); *out is malloc'd. 0 or -1. */
int ctl_list(ctl_conn *c, ctl_probe **out, int *n);
/* Where a probe is, for tables: "FILE:LINE"; a function probe has its
 * object's file and no line: "FILE"; "-" when there is no file. */
const char *ctl_where(const ctl_probe *p, char *buf, size_t n);
/* Every point in an ELF executable or shared library, offline. 0 or -1
 * with a message. hits is 0 and on is the default state. */
int elf_list(const char *file, ctl_probe **out, int *n);

/* Ctrl-C and SIGTERM set ctl_stop_requested (no SA_RESTART: a wait in
 * poll returns at once); the commands then end cleanly. */
extern volatile sig_atomic_t ctl_stop_requested;
void ctl_catch_stop_signals(void);
double ctl_now(void); /* CLOCK_MONOTONIC, seconds */
/* Catch Ctrl-C and SIGTERM, then wait SECONDS or until one comes. */
void ctl_wait(double seconds);

/* Shared by the subcommands: "COMMAND --help" and JSON strings. */
int ctl_help(int argc, char **argv, const char *usage);
void json_string(FILE *out, const char *s);

#endif
