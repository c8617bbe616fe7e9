#!/usr/bin/env python3
"""bench/compile/gen.py - writes one program of the compile benchmark.

    python3 bench/compile/gen.py KIND N DIR

writes DIR/f000.c .. f<N-1>.c (modules) and DIR/main.c, which calls every
module. Each module parses a batch of "key=value" records and sums them;
it has three probes: a TRACE in the parser, a TRACE at the end of the batch
and a BRANCH guarding a validation pass. KIND spells them:

  none   no probes, no probe header: the baseline. The validation pass is
         kept, guarded by an ordinary flag (app_debug, defined in main.c),
         so that "with minus without" is the probes' cost, not the cost of
         the code they guard.
  ep     edgeprobe: EDGEPROBE_TRACE x2, EDGEPROBE_BRANCH; main.c defines
         EDGEPROBE_IMPLEMENTATION and switches module 0's probes on with
         edgeprobe_enable. (A header that ignores the macro builds the same
         sources.)
  sdt    <sys/sdt.h>: DTRACE_PROBE2 x2, and the branch as the USDT idiom
         for costly probes, a semaphore test around the pass with a
         DTRACE_PROBE inside (every probe of the file has its semaphore,
         as _SDT_HAS_SEMAPHORES requires).
  lttng  LTTng-UST: DIR/app_tp.h declares all 3*N events of provider app
         (one provider header, as a component would have); the modules use
         lttng_ust_tracepoint, and the branch is lttng_ust_tracepoint_enabled
         around the pass with lttng_ust_do_tracepoint inside; main.c
         defines LTTNG_UST_TRACEPOINT_CREATE_PROBES and _DEFINE.

Same number of probes and arguments in every kind: two 2-argument probes
and one 0-argument branch per module.
"""
import os
import sys

KINDS = ("none", "ep", "sdt", "lttng")


def includes(kind):
    """The probe header lines of a module."""
    return {"none": [],
            "ep": ['#include "edgeprobe.h"'],
            "sdt": ["#define _SDT_HAS_SEMAPHORES 1", "#include <sys/sdt.h>"],
            "lttng": ['#include "app_tp.h"']}[kind]


def trace(kind, m, event, fmt, a, b):
    """A probe with two arguments a and b (C expressions)."""
    name = "%s_%s" % (m, event)
    if kind == "none":
        return None
    if kind == "ep":
        return 'EDGEPROBE_TRACE(%s, "%s %s\\n", %s, %s);' % (name, m, fmt, a, b)
    if kind == "sdt":
        return "DTRACE_PROBE2(app, %s, %s, %s);" % (name, a, b)
    return "lttng_ust_tracepoint(app, %s, %s, %s);" % (name, a, b)


def branch_open(kind, m):
    """The guard of the validation pass; returns (if-line, first body line)."""
    name = "%s_check" % m
    if kind == "none":
        return "if (__builtin_expect(app_debug, 0)) {", None
    if kind == "ep":
        return "if (EDGEPROBE_BRANCH(%s)) {" % name, None
    if kind == "sdt":
        return ("if (__builtin_expect(app_%s_semaphore, 0)) {" % name,
                "DTRACE_PROBE(app, %s);" % name)
    return ("if (lttng_ust_tracepoint_enabled(app, %s)) {" % name,
            "lttng_ust_do_tracepoint(app, %s);" % name)


def semaphores(kind, m):
    """USDT semaphores: what `dtrace -G` would emit for this file's probes."""
    if kind != "sdt":
        return []
    return ['__extension__ unsigned short app_%s_%s_semaphore '
            '__attribute__((unused, section(".probes"))) = 0;' % (m, ev)
            for ev in ("parse", "run", "check")]


def module(kind, i):
    """The source of module i: realistic small code around three probes."""
    m = "f%03d" % i
    body_first = branch_open(kind, m)
    lines = ["/* %s.c - module %d of a generated program (bench/compile/gen.py, kind %s) */" % (m, i, kind),
             "#include <stdint.h>", "#include <stdio.h>", "#include <stdlib.h>", "#include <string.h>"]
    lines += includes(kind)
    if kind == "none":
        lines.append("extern int app_debug;")
    lines += semaphores(kind, m)
    lines += ["",
              "struct %s_rec {" % m,
              "    char key[16];",
              "    int value;",
              "    uint32_t hash;",
              "};",
              "",
              "/* FNV-1a of the key, seeded per module: what a symbol table keeps. */",
              "static uint32_t %s_hash(const char *s, size_t n)" % m,
              "{",
              "    uint32_t h = 2166136261u ^ %du;" % i,
              "    for (size_t k = 0; k < n; k++)",
              "        h = (h ^ (unsigned char)s[k]) * 16777619u;",
              "    return h;",
              "}",
              "",
              "/* The invariants of a record: checked only when someone asks. */",
              "static int %s_valid(const struct %s_rec *r)" % (m, m),
              "{",
              "    size_t n = strlen(r->key);",
              "    return n > 0 && n < sizeof r->key && r->hash == %s_hash(r->key, n) && r->value >= 0;" % m,
              "}",
              "",
              "/* Parses \"key=value\" into out; -1 if the line is malformed. */",
              "int %s_parse(const char *line, struct %s_rec *out)" % (m, m),
              "{",
              "    const char *eq = strchr(line, '=');",
              "    if (!eq || eq == line || (size_t)(eq - line) >= sizeof out->key)",
              "        return -1;",
              "    size_t n = (size_t)(eq - line);",
              "    memcpy(out->key, line, n);",
              "    out->key[n] = '\\0';",
              "    out->value = (int)strtol(eq + 1, NULL, 10);",
              "    out->hash = %s_hash(out->key, n);" % m]
    probe = trace(kind, m, "parse", "parse %s=%d", "out->key", "out->value")
    if probe:
        lines.append("    " + probe)
    lines += ["    return 0;",
              "}",
              "",
              "/* Parses a batch of generated records and sums the values it accepted. */",
              "long %s_run(int seed)" % m,
              "{",
              "    struct %s_rec recs[8];" % m,
              "    char line[32];",
              "    long sum = 0;",
              "    int ok = 0;",
              "    for (int k = 0; k < 8; k++) {",
              '        snprintf(line, sizeof line, "k%d_%%d=%%d", k, seed * (k + 1) + %d);' % (i, i),
              "        if (%s_parse(line, &recs[ok]) == 0)" % m,
              "            sum += recs[ok++].value;",
              "    }",
              "    " + body_first[0]]
    if body_first[1]:
        lines.append("        " + body_first[1])
    lines += ["        for (int k = 0; k < ok; k++)",
              "            if (!%s_valid(&recs[k]))" % m,
              '                fprintf(stderr, "%s: record %%d is corrupt\\n", k);' % m,
              "    }"]
    probe = trace(kind, m, "run", "run %d records, sum %ld", "ok", "sum")
    if probe:
        lines.append("    " + probe)
    lines += ["    return sum;", "}", ""]
    return "\n".join(lines)


def main_c(kind, n):
    """main.c: the one file with the implementation; calls every module."""
    lines = ["/* main.c - calls the %d modules (bench/compile/gen.py, kind %s) */" % (n, kind),
             "#include <stdio.h>"]
    if kind == "ep":
        lines += ["#define EDGEPROBE_IMPLEMENTATION", '#include "edgeprobe.h"']
    if kind == "lttng":
        lines += ["#define LTTNG_UST_TRACEPOINT_CREATE_PROBES", "#define LTTNG_UST_TRACEPOINT_DEFINE",
                  '#include "app_tp.h"']
    if kind == "none":
        lines.append("int app_debug;")
    lines.append("")
    lines += ["long f%03d_run(int seed);" % i for i in range(n)]
    lines += ["", "int main(int argc, char **argv)", "{", "    long sum = 0;", "    (void)argv;"]
    if kind == "ep":
        # Switch one module's probes on, so that the program is a real
        # user of the library (run.py checks the traced lines).
        lines += ['    if (edgeprobe_enable("f000_*") <= 0) {',
                  '        fputs("edgeprobe_enable failed\\n", stderr);',
                  "        return 1;", "    }"]
    lines += ["    sum += f%03d_run(argc);" % i for i in range(n)]
    lines += ['    printf("%ld\\n", sum);', "    return 0;", "}", ""]
    return "\n".join(lines)


def lttng_provider(n):
    """app_tp.h: one provider with every module's three events."""
    lines = ["/* app_tp.h - the LTTng-UST provider of a generated program (bench/compile/gen.py) */",
             "#undef LTTNG_UST_TRACEPOINT_PROVIDER",
             "#define LTTNG_UST_TRACEPOINT_PROVIDER app",
             "#undef LTTNG_UST_TRACEPOINT_INCLUDE",
             '#define LTTNG_UST_TRACEPOINT_INCLUDE "app_tp.h"  /* found through -I DIR */',
             "#if !defined(APP_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)",
             "#define APP_TP_H",
             "#include <lttng/tracepoint.h>"]
    for i in range(n):
        m = "f%03d" % i
        lines += ["LTTNG_UST_TRACEPOINT_EVENT(app, %s_parse," % m,
                  "    LTTNG_UST_TP_ARGS(const char *, key, int, value),",
                  "    LTTNG_UST_TP_FIELDS(lttng_ust_field_string(key, key)",
                  "                        lttng_ust_field_integer(int, value, value)))",
                  "LTTNG_UST_TRACEPOINT_EVENT(app, %s_run," % m,
                  "    LTTNG_UST_TP_ARGS(int, ok, long, sum),",
                  "    LTTNG_UST_TP_FIELDS(lttng_ust_field_integer(int, ok, ok)",
                  "                        lttng_ust_field_integer(long, sum, sum)))",
                  "LTTNG_UST_TRACEPOINT_EVENT(app, %s_check, LTTNG_UST_TP_ARGS(), LTTNG_UST_TP_FIELDS())" % m]
    lines += ["#endif", "#include <lttng/tracepoint-event.h>", ""]
    return "\n".join(lines)


def write(path, text):
    """Writes only when the text changed, so that make-style reuse works."""
    try:
        with open(path) as f:
            if f.read() == text:
                return
    except OSError:
        pass
    with open(path, "w") as f:
        f.write(text)


def generate(kind, n, out):
    """Writes the program; returns the list of its .c files, main.c last."""
    os.makedirs(out, exist_ok=True)
    files = []
    for i in range(n):
        files.append(os.path.join(out, "f%03d.c" % i))
        write(files[-1], module(kind, i))
    if kind == "lttng":
        write(os.path.join(out, "app_tp.h"), lttng_provider(n))
    files.append(os.path.join(out, "main.c"))
    write(files[-1], main_c(kind, n))
    return files


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in KINDS or not sys.argv[2].isdigit():
        raise SystemExit(__doc__)
    generate(sys.argv[1], int(sys.argv[2]), sys.argv[3])


if __name__ == "__main__":
    main()
