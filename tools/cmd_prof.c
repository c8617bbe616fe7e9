/* edgeprobe prof - run a program under the sampling latency profiler.
 *
 *     edgeprobe prof [-o REPORT] [--svg FILE] [--flame FILE] [--folded FILE] [--graph]
 *                    [--sort total|self|calls] [-k K] [--epoch MS] [--settle N] [--exact-calls]
 *                    -- PROGRAM [ARGS...]
 *
 * Runs PROGRAM with libedgeprobe-prof.so preloaded (the paper's section 9
 * profiler, tools/prof_agent.c) and exits with PROGRAM's
 * status (128 + N if a signal N killed it). PROGRAM's stdin, stdout and
 * stderr are its own: the report goes to REPORT (default
 * edgeprobe-prof.txt), and this command says where on its stderr.
 *
 * PROGRAM needs function probes: built with -fpatchable-function-entry=5
 * (preferred: nothing to link, nothing runs while a probe is off), or with
 * -finstrument-functions and the hooks left to the preloaded library
 * (link with -Wl,--unresolved-symbols=ignore-in-object-files). Only the
 * profiled process itself is profiled, not the programs it runs.
 *
 *     edgeprobe prof -p PID [-d SECONDS] [-o REPORT] [--svg FILE] [-k K] [--epoch MS] [--stay] [--exact-calls]
 *                    [--flame FILE] [--folded FILE] [--graph] [--sort total|self|calls]
 *
 * profiles a running process for SECONDS (default 10; Ctrl-C ends it
 * early) through its control endpoint, attaching first when it has none
 * (tools/cmd_detach.c): `prof start`, wait, `prof stop REPORT` (the
 * process writes it), then `detach` unless --stay. The process runs on.
 *
 * Once a report is written (by the program, launched or running), this
 * command fills in its FILE:LINE column and draws the flame graph
 * (tools/prof_view.c). */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "control.h"
#include "prof_common.h"
#include "prof_view.h"
#include "launch.h"
#include "tool.h"

static const char prof_usage[] =
    "usage: edgeprobe prof [options] -- PROGRAM [ARGS...]\n"
    "\n"
    "Run PROGRAM under the sampling latency profiler: every function's entry\n"
    "probe is on until K calls were timed, then off until the next epoch.\n"
    "PROGRAM's exit status is returned; its output is left alone.\n"
    "\n"
    "  -o, --output REPORT  report file (default edgeprobe-prof.txt)\n"
    "  --svg FILE           also draw the hottest functions as SVG (share, latency)\n"
    "  --flame FILE         also draw a flame graph as SVG (derived stacks: README)\n"
    "  --folded FILE        also write its folded stacks (flamegraph.pl, speedscope)\n"
    "  --graph              callers and callees of each function after the table\n"
    "  --sort KEY           the table's order: total (default) | self | calls\n"
    "  -k K                 samples per function per epoch (default " PROF_STR(PROF_DEFAULT_K) ")\n"
    "  --epoch MS           re-activation period in ms (default " PROF_STR(PROF_DEFAULT_EPOCH_MS) ")\n"
    "  --settle N           after N samples of a function, K/5 a window (fewer\n"
    "                       handler calls; a burst after them in an epoch is\n"
    "                       weighed as they are: README; default 0, never)\n"
    "  --top N              report rows (default " PROF_STR(PROF_DEFAULT_TOP) "; 0: all)\n"
    "  --summary FILE       append a one-line machine-readable summary\n"
    "  --mode MODE          sample (default) | on: never switch off |\n"
    "                       off: attach and switch off (disabled cost)\n"
    "  --exact-calls        count every call (latencies still sampled): no\n"
    "                       estimated calls, for a cost per call (README)\n"
    "  --count-budget PCT   percent of each epoch counting calls beyond the K\n"
    "                       samples may cost (default " PROF_STR(PROF_DEFAULT_COUNT_BUDGET) "; 0: each function's\n"
    "                       minimum; more: better estimates, more cost)\n"
    "  --parts N            parts of an epoch, where counts restart (1 to " PROF_STR(PROF_MAX_EPOCH_PARTS) ",\n"
    "                       default " PROF_STR(PROF_DEFAULT_EPOCH_PARTS) "; from 8, staggered: less biased,\n"
    "                       more cost; README)\n"
    "  --epochs inline      a program of one thread keeps it: the epochs run on\n"
    "                       it, from a timer on its CPU time, at safe points\n"
    "                       (glibc's single-thread paths stay; README)\n"
    "  -q, --quiet          do not say where the report is\n"
    "\n"
    "usage: edgeprobe prof -p PID [-d SECONDS] [options] [--stay]\n"
    "\n"
    "Profile a running process for SECONDS (default 10; Ctrl-C ends it early),\n"
    "attaching the agent first if it has no control endpoint. The process runs\n"
    "on; everything is switched off again at the end (--stay: the functions\n"
    "stay bound, off, for the next profile). -o, --svg, --flame, --folded, --graph,\n"
    "--sort, -k, --epoch, --exact-calls, --count-budget, --parts as above.\n"
    "\n"
    "usage: edgeprobe prof --report-now PID [-o REPORT] [--svg FILE] [--flame FILE] ...\n"
    "\n"
    "The report so far of a process being profiled (one launched by prof with\n"
    "EDGEPROBE_CONTROL=1 in its environment, or during prof -p); it goes on.\n"
    "\n"
    "The table's last column is FILE:LINE when addr2line is installed and the\n"
    "program was built with -g.\n"
    "\n"
    "PROGRAM is built with -fpatchable-function-entry=5 (gcc or clang), or\n"
    "with -finstrument-functions (see the README). The profiler library is\n"
    "found beside this command, in ../lib/edgeprobe/, or in $EDGEPROBE_PROF_LIB.\n";

/* The profiler library: $EDGEPROBE_PROF_LIB, beside this executable, or in
 * ../lib/edgeprobe relative to it (tools/launch.c). */
static int find_library(char *out, size_t n) {
    return launch_find_library("libedgeprobe-prof.so", "EDGEPROBE_PROF_LIB", out, n);
}

/* A non-negative integer option value, or -1. */
static long non_negative(const char *s) {
    long v;
    return prof_parse_long(s, &v) || v < 0 ? -1 : v;
}

/* A number from the report's summary line (the last one): -1 unknown. */
static long report_value(const char *path, const char *key) {
    char line[4096];
    long value = -1, v;
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    while (fgets(line, sizeof line, f))
        if (!prof_summary_value(line, key, &v)) value = v;
    fclose(f);
    return value;
}

/* After the run: where the report is, or why there is none; and the
 * functions it could not time, with what to do about them. */
/* status: PROGRAM's as a shell reports it (126, 127: it could not run). */
static void say_where(const char *report, const char *svg, const char *program, int status) {
    long sites = report_value(report, PROF_KEY_SITES), hidden = report_value(report, PROF_KEY_EXIT_HIDDEN);
    if (sites == 0)
        fprintf(stderr, "edgeprobe prof: %s has no function probes: build it with -fpatchable-function-entry=5 "
                        "(or -finstrument-functions); it ran unprofiled\n", program);
    else if (sites > 0)
        fprintf(stderr, "edgeprobe prof: report in %s%s%s\n", report, svg ? ", chart in " : "", svg ? svg : "");
    else if (status != 126 && status != 127)
        fprintf(stderr, "edgeprobe prof: no report from %s (it ended before the profiler wrote one)\n", program);
    if (hidden > 0)
        fprintf(stderr, "edgeprobe prof: %ld function%s not timed: %s exit hook is tail-called (rebuild with "
                        "-fno-optimize-sibling-calls; the report names them)\n", hidden, hidden == 1 ? "" : "s",
                hidden == 1 ? "its" : "their");
}

static int usage_error(const char *msg, const char *arg) {
    fprintf(stderr, "edgeprobe prof: %s%s%s\n%s", msg, arg ? " " : "", arg ? arg : "", prof_usage);
    return TOOL_EXIT_USAGE;
}

/* The views of a launched program's report (tools/prof_view.c): the agent
 * writes the graph and the folded stacks, the command draws the flame
 * graph; flame without folded: folded stacks in a file of our own. */
struct prof_views {
    const char *flame, *folded, *sort;
    int graph;
    char folded_tmp[PATH_MAX];
};
/* An option with a value that names a view: 1 taken, 0 not a view option,
 * or a usage error (TOOL_EXIT_USAGE, negated). */
static int view_option(struct prof_views *w, const char *a, const char *v) {
    if (!strcmp(a, "--flame")) w->flame = v;
    else if (!strcmp(a, "--folded")) w->folded = v;
    else if (!strcmp(a, "--sort")) {
        if (prof_sort_parse(v) < 0) return -usage_error("--sort takes total, self or calls, not", v);
        w->sort = v;
    } else return 0;
    return 1;
}
/* In the child, before exec. */
static void views_env(struct prof_views *w) {
    const char *folded = w->folded ? w->folded : w->flame ? w->folded_tmp : 0;
    if (w->graph) setenv(PROF_ENV_GRAPH, "1", 1);
    if (w->sort) setenv(PROF_ENV_SORT, w->sort, 1);
    if (folded) setenv(PROF_ENV_FOLDED, folded, 1);
}
/* Report paths are opened by the process: absolute, from our directory. */
static int absolute(const char *path, char *out, size_t n) {
    char cwd[PATH_MAX];
    if (path[0] == '/') return snprintf(out, n, "%s", path) >= (int)n ? -1 : 0;
    if (!getcwd(cwd, sizeof cwd)) return -1;
    return snprintf(out, n, "%s/%s", cwd, path) >= (int)n ? -1 : 0;
}
/* The launched program's report paths, made absolute (static copies): the
 * agent opens them, maybe after a daemon's chdir("/"). -1 if too long. */
static int launch_paths_absolute(const char **report, const char **svg, const char **summary,
                                 struct prof_views *w) {
    static char r[PATH_MAX], g[PATH_MAX], m[PATH_MAX], f[PATH_MAX], fl[PATH_MAX];
    if (absolute(*report, r, sizeof r) || (*svg && absolute(*svg, g, sizeof g)) ||
        (*summary && absolute(*summary, m, sizeof m)) || (w->folded && absolute(w->folded, f, sizeof f)) ||
        (w->flame && absolute(w->flame, fl, sizeof fl)))
        return -1;
    *report = r;
    if (*svg) *svg = g;
    if (*summary) *summary = m;
    if (w->folded) w->folded = f;
    if (w->flame) w->flame = fl;
    return snprintf(w->folded_tmp, sizeof w->folded_tmp, "%s.folded", w->flame ? w->flame : r) >=
           (int)sizeof w->folded_tmp ? -1 : 0;
}
/* After the run: FILE:LINE in the report, the flame graph. */
static void views_after(struct prof_views *w, const char *report, const char *program, int quiet) {
    char title[PATH_MAX + 64];
    if (report_value(report, PROF_KEY_SITES) <= 0) return;
    prof_resolve_where(report);
    if (!w->flame) return;
    snprintf(title, sizeof title, "edgeprobe prof: %s (stacks derived from the call graph)", program);
    if (!prof_flame_svg(w->folded ? w->folded : w->folded_tmp, w->flame, title) && !quiet)
        fprintf(stderr, "edgeprobe prof: flame graph in %s\n", w->flame);
    if (!w->folded) unlink(w->folded_tmp);
}

/* prof -p: what the command line asked for a running process. */
struct prof_pid {
    int pid, stay, exact_calls;
    double seconds;
    long k, epoch;
    const char *count_budget; /* as given, checked; 0: the default */
    long parts;               /* checked; 0: the default */
    const char *report, *svg;
    struct prof_views *views;
};
/* The request's words for the views: " graph sort=KEY folded=PATH"; -1 if
 * the path is too long or holds a space (words are split at spaces). */
static int view_words(const struct prof_views *w, char *out, size_t n) {
    const char *folded = w->folded ? w->folded : w->flame ? w->folded_tmp : 0;
    char path[PATH_MAX] = "";
    if (folded && (absolute(folded, path, sizeof path) || strchr(path, ' '))) return -1;
    return snprintf(out, n, "%s%s%s%s%s", w->graph ? " graph" : "", w->sort ? " sort=" : "", w->sort ? w->sort : "",
                    *path ? " folded=" : "", path) >= (int)n ? -1 : 0;
}
/* "prof VERB REPORT [SVG] [graph] [sort=KEY] [folded=PATH]", the paths
 * made absolute; -1 after saying why. */
static int report_request(const char *verb, const struct prof_pid *o, char *request, size_t n, char *report) {
    char svg[PATH_MAX] = "", words[PATH_MAX + 64];
    if (absolute(o->report, report, PATH_MAX) || (o->svg && absolute(o->svg, svg, sizeof svg)) ||
        view_words(o->views, words, sizeof words) || strchr(report, ' ') || strchr(svg, ' ') ||
        strlen(report) + strlen(svg) + strlen(words) > 480) {
        /* one request line carries them all (the endpoint's limit: 511 bytes) */
        fprintf(stderr, "edgeprobe prof: report paths must not hold spaces, and fit 480 bytes together\n");
        return -1;
    }
    snprintf(request, n, "prof %s %s%s%s%s", verb, report, *svg ? " " : "", svg, words);
    return 0;
}
static void say_report(const char *report, const struct prof_pid *o) {
    char who[32];
    snprintf(who, sizeof who, "process %d", o->pid);
    views_after(o->views, report, who, 0);
    fprintf(stderr, "edgeprobe prof: report in %s%s%s\n", report, o->svg ? ", chart in " : "", o->svg ? o->svg : "");
}
static int prof_running_process(const struct prof_pid *o) {
    char start[128], parts[24] = "", stop[4 * PATH_MAX], report[PATH_MAX];
    const char *reply;
    int rc = 1;
    ctl_conn *c;
    if (report_request("stop", o, stop, sizeof stop, report)) return TOOL_EXIT_USAGE;
    if (!(c = ctl_attach_connect(o->pid))) return 1;
    if (o->parts) snprintf(parts, sizeof parts, " parts=%ld", o->parts);
    snprintf(start, sizeof start, "prof start %ld %ld%s%s%s%s", o->k, o->epoch, o->exact_calls ? " exact" : "",
             o->count_budget ? " budget=" : "", o->count_budget ? o->count_budget : "", parts);
    if (ctl_send(c, start) || !(reply = ctl_expect_ok_within(c, "prof", 4 * CTL_TIMEOUT_MS))) goto out;
    fprintf(stderr, "edgeprobe prof: profiling process %d (%s functions) for %.1f s%s\n", o->pid, reply, o->seconds,
            isatty(2) ? "; Ctrl-C ends it early" : "");
    ctl_wait(o->seconds);
    if (ctl_send(c, stop) || !ctl_expect_ok_within(c, "prof", 12 * CTL_TIMEOUT_MS)) goto out;
    say_report(report, o);
    rc = 0;
out:
    if (!o->stay && (ctl_send(c, "detach") || !ctl_expect_ok_within(c, "detach", 4 * CTL_TIMEOUT_MS))) rc = 1;
    ctl_disconnect(c);
    return rc;
}
/* --report-now PID: the report so far of a profiled process (launched by
 * `prof` with EDGEPROBE_CONTROL=1, or profiled by `prof -p --stay`... while
 * a profile runs); it goes on. */
static int prof_report_now(const struct prof_pid *o) {
    char request[4 * PATH_MAX], report[PATH_MAX], pid[16];
    int rc = 1;
    ctl_conn *c;
    if (report_request("report", o, request, sizeof request, report)) return TOOL_EXIT_USAGE;
    snprintf(pid, sizeof pid, "%d", o->pid);
    if (!(c = ctl_connect(pid))) return 1;
    if (!ctl_send(c, request) && ctl_expect_ok_within(c, "prof", 12 * CTL_TIMEOUT_MS)) {
        say_report(report, o);
        rc = 0;
    }
    ctl_disconnect(c);
    return rc;
}

/* A launched PROGRAM's profile, for its environment (child_env). */
struct prof_launch {
    const char *report, *svg, *summary, *mode, *epochs;
    const struct prof_pid *running;
    struct prof_views *views;
    long k, epoch, settle, top;
};
static void setenv_long(const char *name, long v) {
    char buf[32];
    snprintf(buf, sizeof buf, "%ld", v);
    setenv(name, buf, 1);
}
/* In the child, before exec (launch_preloaded's setup). */
static void child_env(void *arg) {
    const struct prof_launch *o = arg;
    setenv_long(PROF_ENV_PID, (long)getpid()); /* exec keeps the pid: children stay unprofiled */
    setenv(PROF_ENV_OUT, o->report, 1);
    if (o->svg) setenv(PROF_ENV_SVG, o->svg, 1);
    if (o->summary) setenv(PROF_ENV_SUMMARY, o->summary, 1);
    if (o->mode) setenv(PROF_ENV_MODE, o->mode, 1);
    if (o->epochs) setenv(PROF_ENV_EPOCHS, o->epochs, 1);
    if (o->running->exact_calls) setenv(PROF_ENV_EXACT_CALLS, "1", 1);
    if (o->running->count_budget) setenv(PROF_ENV_COUNT_BUDGET, o->running->count_budget, 1);
    if (o->running->parts) setenv_long(PROF_ENV_EPOCH_PARTS, o->running->parts);
    setenv_long(PROF_ENV_K, o->k);
    setenv_long(PROF_ENV_EPOCH_MS, o->epoch);
    setenv_long(PROF_ENV_SETTLE, o->settle);
    setenv_long(PROF_ENV_TOP, o->top);
    views_env(o->views);
}

int cmd_prof(int argc, char **argv) {
    const char *report = "edgeprobe-prof.txt", *svg = 0, *summary = 0, *mode = 0, *epochs = 0, *not_sampled;
    long k = PROF_DEFAULT_K, epoch = PROF_DEFAULT_EPOCH_MS, top = PROF_DEFAULT_TOP, settle = PROF_DEFAULT_SETTLE;
    struct prof_pid running = {.seconds = 10};
    struct prof_views views = {0, 0, 0, 0, ""};
    int i, quiet = 0, status, report_now = 0, taken;
    double budget;
    char lib[PATH_MAX];
    struct prof_launch launched;
    struct stat st;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : 0;
        if (!strcmp(a, "--")) {
            i++;
            break;
        }
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(prof_usage, stdout);
            return 0;
        } else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
            quiet = 1;
            continue;
        } else if (!strcmp(a, "--stay")) {
            running.stay = 1;
            continue;
        } else if (!strcmp(a, "--graph")) {
            views.graph = 1;
            continue;
        } else if (!strcmp(a, "--exact-calls")) {
            running.exact_calls = 1;
            continue;
        } else if (a[0] != '-') {
            break; /* PROGRAM without "--" */
        }
        if (!v) return usage_error("missing value for", a);
        if ((taken = view_option(&views, a, v)) < 0) return -taken;
        if (taken) ;
        else if (!strcmp(a, "-o") || !strcmp(a, "--output")) report = v;
        else if (!strcmp(a, "--svg")) svg = v;
        else if (!strcmp(a, "--summary")) summary = v;
        else if (!strcmp(a, "-p") || !strcmp(a, "--pid") || !strcmp(a, "--report-now")) {
            if (!ctl_is_pid(v)) return usage_error("a process id is needed, not", v);
            running.pid = atoi(v);
            report_now = !strcmp(a, "--report-now");
        } else if (!strcmp(a, "-d") || !strcmp(a, "--duration")) {
            char *end;
            running.seconds = strtod(v, &end);
            if (*end || !(running.seconds > 0) || running.seconds > 86400)
                return usage_error("-d needs a number of seconds, not", v);
        }
        else if (!strcmp(a, "--epochs")) {
            if (strcmp(v, "thread") && strcmp(v, "inline")) return usage_error("--epochs is thread or inline, not", v);
            epochs = v;
        } else if (!strcmp(a, "--mode")) {
            int m = prof_mode_parse(v);
            if (m < 0 || m == PROF_MODE_NONE) return usage_error("unknown mode", v);
            mode = v;
        } else if (!strcmp(a, "-k")) {
            if ((k = non_negative(v)) < 1 || k > PROF_MAX_K)
                return usage_error("-k needs a number from 1 to " PROF_STR(PROF_MAX_K) ", not", v);
        } else if (!strcmp(a, "--count-budget")) {
            if (prof_parse_budget(v, &budget))
                return usage_error("--count-budget needs a percent from 0 to " PROF_STR(PROF_MAX_COUNT_BUDGET) ", not", v);
            running.count_budget = v;
        } else if (!strcmp(a, "--parts")) {
            /* passed on as parsed: a request's words split at blanks (" 8") */
            if (prof_parse_long(v, &running.parts) || running.parts < 1 || running.parts > PROF_MAX_EPOCH_PARTS)
                return usage_error("--parts needs a number from 1 to " PROF_STR(PROF_MAX_EPOCH_PARTS) ", not", v);
        } else if (!strcmp(a, "--settle")) {
            if ((settle = non_negative(v)) < 0) return usage_error("--settle needs a number of samples, not", v);
        } else if (!strcmp(a, "--epoch")) {
            if ((epoch = non_negative(v)) < 1 || epoch > PROF_MAX_EPOCH_MS)
                return usage_error("--epoch needs a number of ms from 1 to " PROF_STR(PROF_MAX_EPOCH_MS) ", not", v);
        } else if (!strcmp(a, "--top")) {
            if ((top = non_negative(v)) < 0) return usage_error("--top needs a number, not", v);
        } else {
            return usage_error("unknown option", a);
        }
        i++;
    }
    if (running.exact_calls && ((mode && strcmp(mode, "sample")) || report_now))
        return usage_error("--exact-calls counts the calls of a sampling profile, not with", report_now ? "--report-now" : mode);
    /* what makes the sampling profile's own options meaningless */
    not_sampled = running.exact_calls ? "--exact-calls" : report_now ? "--report-now"
                  : mode && strcmp(mode, "sample") ? mode : 0;
    if (running.count_budget && not_sampled)
        return usage_error("--count-budget is a sampling profile's, not with", not_sampled);
    if (running.parts && not_sampled) return usage_error("--parts is a sampling profile's, not with", not_sampled);
    snprintf(views.folded_tmp, sizeof views.folded_tmp, "%s.folded", views.flame ? views.flame : report);
    if (running.pid) {
        if (i < argc) return usage_error("-p profiles a running process: no PROGRAM, not", argv[i]);
        if (mode || summary || epochs || settle != PROF_DEFAULT_SETTLE)
            return usage_error("not with -p:", mode ? "--mode" : summary ? "--summary" : epochs ? "--epochs" : "--settle");
        running.k = k, running.epoch = epoch, running.report = report, running.svg = svg, running.views = &views;
        (void)quiet, (void)top;
        return report_now ? prof_report_now(&running) : prof_running_process(&running);
    }
    if (i >= argc) return usage_error("no PROGRAM given", 0);
    /* the agent writes them: absolute, for a daemon that changes directory */
    if (launch_paths_absolute(&report, &svg, &summary, &views)) {
        fprintf(stderr, "edgeprobe prof: the report's paths are too long\n");
        return 1;
    }
    if (find_library(lib, sizeof lib) < 0) {
        fprintf(stderr, "edgeprobe prof: cannot find libedgeprobe-prof.so (run `make tools`, or set EDGEPROBE_PROF_LIB)\n");
        return 1;
    }
    /* a report left by an earlier run must not pass for this one's (a
     * daemon's is waited for only while there is none) */
    if (lstat(report, &st) == 0 && S_ISREG(st.st_mode)) unlink(report);
    launched.report = report, launched.svg = svg, launched.summary = summary, launched.mode = mode;
    launched.epochs = epochs, launched.running = &running, launched.views = &views;
    launched.k = k, launched.epoch = epoch, launched.settle = settle, launched.top = top;
    /* the terminal's Ctrl-C reaches PROGRAM; we wait for its report, and
     * for the daemon it may become (DAEMONS) */
    if ((status = launch_preloaded("edgeprobe prof", lib, argv + i, child_env, 0, &launched, PROF_ENV_DAEMON_FILE,
                                   quiet)) < 0)
        return 1;
    views_after(&views, report, argv[i], quiet);
    if (!quiet) say_where(report, svg, argv[i], status);
    return status;
}
