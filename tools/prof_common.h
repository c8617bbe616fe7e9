/* tools/prof_common.h - what `edgeprobe prof` (tools/cmd_prof.c) and the
 * agent it preloads (tools/prof_agent.c) must agree on: the environment
 * variables that carry the options across exec, their defaults, the modes,
 * the parsing of numbers, and the summary line the agent writes and the
 * command reads back.
 *
 * Static inline functions only: the agent is one translation unit (it is
 * also linked into programs as a single file, see the README) and may be
 * built with -finstrument-functions, so nothing here may be instrumented. */
#ifndef EDGEPROBE_PROF_COMMON_H
#define EDGEPROBE_PROF_COMMON_H

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define PROF_NOI __attribute__((no_instrument_function))

/* Set by the command, read by the agent. */
#define PROF_ENV_K "EDGEPROBE_PROF_K"
#define PROF_ENV_SETTLE "EDGEPROBE_PROF_SETTLE"
#define PROF_ENV_EPOCH_MS "EDGEPROBE_PROF_EPOCH_MS"
#define PROF_ENV_TOP "EDGEPROBE_PROF_TOP"
#define PROF_ENV_MODE "EDGEPROBE_PROF_MODE"
#define PROF_ENV_EXACT_CALLS "EDGEPROBE_PROF_EXACT_CALLS" /* 1: every call counted (--exact-calls) */
#define PROF_ENV_COUNT_BUDGET "EDGEPROBE_PROF_COUNT_BUDGET" /* percent (--count-budget) */
#define PROF_ENV_EPOCH_PARTS "EDGEPROBE_PROF_EPOCH_PARTS" /* mid-ticks + 1 (agent: LATER COUNTS) */
#define PROF_ENV_OUT "EDGEPROBE_PROF_OUT"
#define PROF_ENV_SVG "EDGEPROBE_PROF_SVG"
#define PROF_ENV_SUMMARY "EDGEPROBE_PROF_SUMMARY"
#define PROF_ENV_SORT "EDGEPROBE_PROF_SORT"     /* total (default) | self | calls */
#define PROF_ENV_GRAPH "EDGEPROBE_PROF_GRAPH"   /* 1: callers and callees after the table */
#define PROF_ENV_FOLDED "EDGEPROBE_PROF_FOLDED" /* folded stacks to this path */
/* The pid the command forked: a child the program starts (same LD_PRELOAD,
 * another pid) leaves the agent idle. */
#define PROF_ENV_PID "EDGEPROBE_PROF_PID"
#define PROF_ENV_EPOCHS "EDGEPROBE_PROF_EPOCHS" /* inline: on the program's thread (agent: INLINE EPOCHS) */
#define PROF_ENV_DAEMON_FILE "EDGEPROBE_PROF_DAEMON_FILE" /* daemon()'s child writes its pid there (agent: DAEMONS) */
#define PROF_ENV_INLINE_CLOCK "EDGEPROBE_PROF_INLINE_CLOCK" /* timer: the CPU-time timer, not the task-clock event (agent: THE PARTS' CLOCK) */

#define PROF_DEFAULT_K 10        /* samples per function per window */
#define PROF_DEFAULT_SETTLE 0    /* a function's samples after which its windows take K / 5; 0: never */
#define PROF_DEFAULT_EPOCH_MS 10 /* re-activation period */
#define PROF_DEFAULT_TOP 25      /* report rows; 0: all */
#define PROF_MAX_K 1000000       /* -k: more would overflow the windows' entry counts */
#define PROF_MAX_EPOCH_MS 3600000 /* --epoch: an hour (its microseconds fit a long for ppoll) */
#define PROF_DEFAULT_EPOCH_PARTS 4 /* an epoch's parts, each with its own counts (agent: LATER COUNTS, STAGGERED COUNTS) */
#define PROF_MAX_EPOCH_PARTS 16
/* The count budget: the percent of each epoch's span (its threads' CPU
 * time) that counting calls beyond the windows' K may cost. The default's
 * 3.5 is the intervals' counts 1, the full counts 2 and the skip path's
 * 0.5 (tools/prof_agent.c, COUNTING BUDGET); another budget scales all
 * three, and 0 leaves every function its minimum count. */
#define PROF_DEFAULT_COUNT_BUDGET 3.5
#define PROF_MAX_COUNT_BUDGET 50
#define PROF_STR_(x) #x
#define PROF_STR(x) PROF_STR_(x) /* a default in the command's usage text */

/* sample: K samples, then off until the next epoch; on: never switched
 * off; off: attached, then switched off (the cost of idle probes); none:
 * the agent does not start. */
enum prof_mode { PROF_MODE_SAMPLE, PROF_MODE_ON, PROF_MODE_OFF, PROF_MODE_NONE, PROF_NMODES };

static inline PROF_NOI const char *prof_mode_name(int mode) {
    static const char *const names[PROF_NMODES] = {"sample", "on", "off", "none"};
    return mode >= 0 && mode < PROF_NMODES ? names[mode] : "?";
}
/* The mode a name stands for, or -1. */
static inline PROF_NOI int prof_mode_parse(const char *s) {
    int m;
    for (m = 0; s && m < PROF_NMODES; m++)
        if (!strcmp(s, prof_mode_name(m))) return m;
    return -1;
}

/* A whole decimal number: 0 and *out, or -1 (empty, trailing bytes, out of
 * range). errno is left as it was: the agent parses in a constructor. */
static inline PROF_NOI int prof_parse_long(const char *s, long *out) {
    int saved = errno, bad;
    char *end;
    long v;
    if (!s || !*s) return -1;
    errno = 0;
    v = strtol(s, &end, 10);
    bad = *end || errno;
    errno = saved;
    if (bad) return -1;
    *out = v;
    return 0;
}

/* A count budget: a percent from 0 to PROF_MAX_COUNT_BUDGET, digits with
 * at most one '.' ("3.5"), at most 16 bytes: 0 and *out, or -1. Parsed by
 * hand, not by strtod, which skips leading blanks (" 3" passed the command
 * and split the attached request "budget= 3"), takes hex, exponents and
 * signs, and reads "3.5" by the locale of the process (attached: the
 * program's; LC_NUMERIC=de_DE rejected it). */
static inline PROF_NOI int prof_parse_budget(const char *s, double *out) {
    double v = 0, unit = 1;
    int digits = 0, dot = 0, n = 0;
    if (!s) return -1;
    for (; s[n]; n++) {
        if (n >= 16) return -1;
        if (s[n] == '.' && !dot) {
            dot = 1;
        } else if (s[n] >= '0' && s[n] <= '9') {
            digits++;
            if (dot) v += (unit /= 10) * (s[n] - '0');
            else v = v * 10 + (s[n] - '0');
        } else {
            return -1;
        }
    }
    if (!digits || v > PROF_MAX_COUNT_BUDGET) return -1;
    *out = v;
    return 0;
}

/* The table's order: by inclusive time (outermost calls), self time, or
 * calls; the same words as `edgeprobe report --sort`. */
enum prof_sort { PROF_SORT_TOTAL, PROF_SORT_SELF, PROF_SORT_CALLS, PROF_NSORTS };
/* The order a word names, or -1. */
static inline PROF_NOI int prof_sort_parse(const char *s) {
    static const char *const names[PROF_NSORTS] = {"total", "self", "calls"};
    int k;
    for (k = 0; s && k < PROF_NSORTS; k++)
        if (!strcmp(s, names[k])) return k;
    return -1;
}

/* The table's last column, "where": the function's object and its address
 * there (OBJECT+0xADDR, the address addr2line takes), which the command
 * replaces with FILE:LINE when addr2line knows it. */
#define PROF_WHERE_SEP "+0x"

/* The summary line: the tag, then " key=value" pairs. The agent writes it
 * at the end of every report (and to $EDGEPROBE_PROF_SUMMARY). */
#define PROF_SUMMARY_TAG "edgeprobe-prof-summary:"
/* Keys the command reads: function probes found (0: the program was built
 * with neither flag); functions whose exit hook is tail-called (they cannot
 * be timed: -fno-optimize-sibling-calls avoids them). */
#define PROF_KEY_SITES "sites"
#define PROF_KEY_EXIT_HIDDEN "exit_hidden_functions"

/* The integer value of key in a summary line: 0, or -1 when the line is not
 * a summary or lacks the key. */
static inline PROF_NOI int prof_summary_value(const char *line, const char *key, long *out) {
    size_t n = strlen(key);
    const char *p;
    if (strncmp(line, PROF_SUMMARY_TAG, sizeof PROF_SUMMARY_TAG - 1)) return -1;
    for (p = line; (p = strchr(p, ' ')) != 0; p++)
        if (!strncmp(p + 1, key, n) && p[1 + n] == '=') {
            char *end;
            *out = strtol(p + 2 + n, &end, 10);
            return end == p + 2 + n ? -1 : 0;
        }
    return -1;
}

#endif
