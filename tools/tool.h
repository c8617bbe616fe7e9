/* tools/tool.h - what the subcommands of the edgeprobe command share. */
#ifndef EDGEPROBE_TOOL_H
#define EDGEPROBE_TOOL_H

#define TOOL_EXIT_USAGE 2 /* bad command line */

/* A subcommand gets argv with argv[0] = its own name. */
struct tool_command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *usage, *help;
};

int cmd_prof(int argc, char **argv);
/* operating a running process (tools/control.h); usage lines shared by the
 * command table and each command's --help */
#define USAGE_PS "ps"
#define USAGE_LIST "list PID|SOCKET|FILE [--json]"
#define USAGE_ENABLE "enable PID GLOB..."
#define USAGE_DISABLE "disable PID GLOB..."
#define USAGE_TOP "top PID [--once] [-i SECONDS]"
#define USAGE_TRACE "trace PID GLOB... [-d SECONDS]"
int cmd_ps(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_enable(int argc, char **argv);
int cmd_disable(int argc, char **argv);
int cmd_top(int argc, char **argv);
int cmd_trace(int argc, char **argv);
/* attaching to a process that never opted in (tools/cmd_attach.c) */
#define USAGE_ATTACH "attach PID [--lib PATH]"
#define USAGE_DETACH "detach PID"
int cmd_attach(int argc, char **argv);
int cmd_detach(int argc, char **argv); /* tools/cmd_detach.c */
/* recording (tools/cmd_record.c, cmd_snapshot.c, cmd_dump.c, cmd_report.c, cmd_export.c) */
#define USAGE_RECORD "record [-o FILE] [-e PROBE_GLOB]... [-f FUNC_GLOB]... [-t DURATION] [--depth N] [--args] [--buffer SIZE] [--flight] -- PROGRAM [ARGS...]\n" \
                     "      edgeprobe record -p PID [-d SECONDS] [-o FILE] [-e PROBE_GLOB]... [-f FUNC_GLOB]... [-t DURATION] [--depth N] [--args] [--buffer SIZE]\n" \
                     "      [--flight]"
#define USAGE_SNAPSHOT "snapshot PID [-o FILE]"
#define USAGE_DUMP "dump [--raw-names] FILE"
#define USAGE_REPORT "report [--sort total|self|calls] [--graph] [--svg FILE] [--raw-names] FILE"
#define USAGE_EXPORT "export --format perfetto|chrome|folded|pprof [-o OUT] [--raw-names] FILE"
int cmd_record(int argc, char **argv);
int cmd_snapshot(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_export(int argc, char **argv);

#endif
