/* edgeprobe - the command-line tool: operate edgeprobe probes from a shell.
 *
 *     edgeprobe prof [options] -- PROGRAM [ARGS...]   latency profile (tools/cmd_prof.c)
 *     edgeprobe ps | list | enable | disable | top | trace   operate a running
 *         process through its control endpoint (tools/cmd_{ps,list,enable,top,trace}.c,
 *         tools/control_client.c; include/edgeprobe.h section 9)
 *     edgeprobe attach PID, detach PID, prof -p PID   load the agent (the
 *         profiler, attached) into a running process, switch it all off
 *         again (tools/cmd_attach.c, cmd_detach.c, prof_agent.c ATTACHED)
 *     edgeprobe record | snapshot | dump | report | export   record to a trace
 *         file and read it (tools/cmd_{record,snapshot,dump,report,export}.c,
 *         tools/trace_file.c, tools/ring_files.c,
 *         tools/export.c; include/edgeprobe.h sections 7.1 and 30)
 *
 * Each subcommand lives in tools/cmd_<name>.c and is listed in the table
 * below. C and libc only. Exit status: the subcommand's (prof: PROGRAM's),
 * 2 for a usage error, 1 when the operation failed (with a message on stderr). */
#include <stdio.h>
#include <string.h>

#include "tool.h"

static const struct tool_command commands[] = {
    {"prof", cmd_prof, "prof [-o REPORT] [--svg FILE] [-k K] [--epoch MS] [--settle N] -- PROGRAM [ARGS...]\n"
                       "      edgeprobe prof -p PID [-d SECONDS] [-o REPORT] [--svg FILE] [--stay]",
     "run PROGRAM under the sampling latency profiler, or profile a running process for SECONDS"},
    {"ps", cmd_ps, USAGE_PS, "processes serving a control endpoint (removes stale sockets)"},
    {"list", cmd_list, USAGE_LIST, "probes of a running process, or of an ELF file (offline)"},
    {"enable", cmd_enable, USAGE_ENABLE, "switch on matching probes of a running process"},
    {"disable", cmd_disable, USAGE_DISABLE, "switch off matching probes of a running process"},
    {"top", cmd_top, USAGE_TOP, "live hits per second per probe (q or Ctrl-C quits)"},
    {"trace", cmd_trace, USAGE_TRACE,
     "stream the lines of matching TRACE probes, then put their states back"},
    {"attach", cmd_attach, USAGE_ATTACH,
     "load the agent into a running process (ptrace, one thread stopped briefly): list, top... reach it"},
    {"detach", cmd_detach, USAGE_DETACH,
     "switch off what the agent and the endpoint switched on; the agent stays, dormant"},
    {"record", cmd_record, USAGE_RECORD, "run PROGRAM recording probes and functions to a trace file"},
    {"snapshot", cmd_snapshot, USAGE_SNAPSHOT,
     "save the rings of a flight recorder (record --flight) to a trace file; the program records on"},
    {"dump", cmd_dump, USAGE_DUMP, "a trace file, one event per line"},
    {"report", cmd_report, USAGE_REPORT, "calls, total and self time per function; hits per probe"},
    {"export", cmd_export, USAGE_EXPORT, "a trace file for Chrome/Perfetto, flame graphs or pprof"},
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

static void usage(FILE *out) {
    size_t i;
    fprintf(out, "usage: edgeprobe COMMAND [ARGS...]\n\ncommands:\n");
    for (i = 0; i < NCOMMANDS; i++) fprintf(out, "  %-10s %s\n      edgeprobe %s\n", commands[i].name, commands[i].help, commands[i].usage);
    fprintf(out, "\n'edgeprobe COMMAND --help' describes one command.\n");
}

int main(int argc, char **argv) {
    size_t i;
    if (argc < 2) {
        usage(stderr);
        return TOOL_EXIT_USAGE;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return 0;
    }
    for (i = 0; i < NCOMMANDS; i++)
        if (!strcmp(argv[1], commands[i].name)) return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "edgeprobe: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return TOOL_EXIT_USAGE;
}
