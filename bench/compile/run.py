#!/usr/bin/env python3
"""bench/compile/run.py - compile CPU time and text size of the markers.

Usage (from the repository root; `make bench-compile` runs it):

    python3 bench/compile/run.py [options] LABEL=HEADER_DIR ...

Each LABEL=HEADER_DIR is one edgeprobe variant: HEADER_DIR holds an
edgeprobe.h. Before and after the stb-style split of the header:

    make build/bench-compile/before/edgeprobe.h    # the header before the split
    python3 bench/compile/run.py before=build/bench-compile/before after=include

Every run also measures, in the same run: the programs without markers (the
baseline: no probe header), <sys/sdt.h> and LTTng-UST (skipped, with the
reason, when their headers are missing or the provider does not build).

For each variant, gcc and clang, and programs of 1, 10 and 100 modules
(bench/compile/gen.py: three probes per module, plus main.c), it compiles
every file one after another (-j1) and takes each compiler's CPU time
(user+sys of the compiler and its children, from wait4), so that other
load on the machine matters little; a program's figure is the median over
repetitions of the sum over its files. Then it links the program once,
runs it (the output must be right; an edgeprobe program must print the
traces of the probes main.c enabled) and takes the `size` text column of
the executable and of module f000's object.

Repetitions: --reps (5) for programs under 100 modules, --reps-large (3)
for larger ones, and a program stops repeating when one more repetition
would take its CPU total past --budget seconds (30): a 100-module program
with the pre-split header is compiled once. The table says how many
repetitions each figure has. With the pre-split header the whole run takes
about 8 CPU-minutes (4.3 of them the two 100-module programs, compiled
once); --sizes 1,10 makes it about 2.

Writes OUT/results.md (the tables, also printed) and OUT/results.json.
"""
import argparse
import hashlib
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen  # noqa: E402  (the generator beside this script)


# ---- the machine ----------------------------------------------------------

def first_line(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True).stdout.splitlines()[0].strip()
    except (OSError, IndexError):
        return "?"


def cpu_model():
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or "?"


def machine(args):
    return {"nproc": os.cpu_count(), "cpu": cpu_model(), "kernel": platform.release(),
            "gcc": first_line([args.gcc, "--version"]), "clang": first_line([args.clang, "--version"]),
            "load_start": os.getloadavg()[0], "t0": time.monotonic()}


# ---- variants -------------------------------------------------------------

class Variant:
    """One way of writing the probes: a source kind plus its flags."""

    def __init__(self, label, kind, header_dir=None, libs=()):
        self.label, self.kind, self.header_dir, self.libs = label, kind, header_dir, list(libs)
        self.skip = None      # why it is not measured, if it is not
        self.note = ""

    def cflags(self, src_dir):
        if self.kind == "ep":
            return ["-I", self.header_dir]
        if self.kind == "lttng":
            return ["-I", src_dir]        # app_tp.h is generated beside the sources
        return []


def header_note(path):
    """Identifies a header: lines, hash, and whether it is stb-style."""
    with open(path, "rb") as f:
        data = f.read()
    stb = b"EDGEPROBE_IMPLEMENTATION" in data
    return "%s: %d lines, sha256 %s, %s" % (path, data.count(b"\n"), hashlib.sha256(data).hexdigest()[:12],
                                            "reads EDGEPROBE_IMPLEMENTATION" if stb else
                                            "ignores EDGEPROBE_IMPLEMENTATION (whole implementation in every file)")


def variants(args):
    vs = [Variant("none", "none")]
    for spec in args.headers:
        label, _, hdir = spec.partition("=")
        if not label or not hdir or label in ("none", "sdt", "lttng"):
            # the fixed variants' labels name their object directories too
            raise SystemExit("bad variant %r: want LABEL=HEADER_DIR, LABEL not none, sdt or lttng" % spec)
        v = Variant(label, "ep", os.path.abspath(hdir))
        h = os.path.join(v.header_dir, "edgeprobe.h")
        if os.path.exists(h):
            v.note = header_note(os.path.relpath(h))
        else:
            v.skip = "no %s" % h
        vs.append(v)
    vs.append(Variant("sdt", "sdt"))
    vs.append(Variant("lttng", "lttng", libs=["-llttng-ust", "-ldl"]))
    return vs


def first_error(text):
    for line in text.splitlines():
        if "error" in line:
            return line.strip()
    return text.strip().splitlines()[-1] if text.strip() else "failed"


def check_available(v, args):
    """Sets v.skip when the variant cannot be built here, with the reason."""
    if v.skip or v.kind not in ("sdt", "lttng"):
        return
    d = os.path.join(args.out, "probe-" + v.kind)
    files = gen.generate(v.kind, 1, d)
    for cc in (args.gcc, args.clang):
        r = subprocess.run([cc] + args.cflags + v.cflags(d) + files + ["-pthread"] + v.libs +
                           ["-o", os.path.join(d, "a.out")], capture_output=True, text=True)
        if r.returncode != 0:
            pkg = "systemtap-sdt-dev" if v.kind == "sdt" else "liblttng-ust-dev"
            v.skip = "%s does not build it (%s; package %s): %s" % (cc, "<sys/sdt.h>" if v.kind == "sdt"
                                                                    else "the provider", pkg, first_error(r.stderr))
            return


# ---- measuring ------------------------------------------------------------

def timed(cmd):
    """Runs cmd; returns the CPU seconds (user+sys, children included)."""
    p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = p.stderr.read()
    _, status, ru = os.wait4(p.pid, 0)
    p.stderr.close()
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        raise SystemExit("failed: %s\n%s" % (" ".join(cmd), err.decode(errors="replace")))
    return ru.ru_utime + ru.ru_stime


class Cell:
    """One program (variant, compiler, modules) and its measurements."""

    def __init__(self, v, cc, n, args):
        self.v, self.cc, self.n = v, cc, n
        self.src = os.path.join(args.out, "src", v.kind, "n%d" % n)
        self.obj = os.path.join(args.out, "obj", v.label, os.path.basename(cc), "n%d" % n)
        self.files = gen.generate(v.kind, n, self.src)
        self.reps = []  # per repetition: the CPU seconds of each file, main.c last
        self.max_reps = args.reps if n < 100 else args.reps_large
        self.budget = args.budget
        self.flags = args.cflags + v.cflags(self.src)

    def wants_more(self):
        """Another repetition, unless it would take the total past the budget."""
        if not self.reps:
            return True
        spent = sum(sum(r) for r in self.reps)
        return len(self.reps) < self.max_reps and spent + sum(self.reps[-1]) <= self.budget

    def compile_all(self):
        os.makedirs(self.obj, exist_ok=True)
        self.reps.append([timed([self.cc] + self.flags + ["-c", f, "-o", self.object(f)]) for f in self.files])
        return sum(self.reps[-1])

    def object(self, src):
        return os.path.join(self.obj, os.path.basename(src)[:-2] + ".o")

    def link_and_check(self):
        """Links, runs the program, and takes the sizes."""
        self.exe = os.path.join(self.obj, "prog")
        subprocess.run([self.cc, "-O2"] + [self.object(f) for f in self.files] + ["-pthread"] + self.v.libs +
                       ["-o", self.exe], check=True)
        env = dict(os.environ, LTTNG_UST_REGISTER_TIMEOUT="0")    # no waiting for a session daemon
        r = subprocess.run([self.exe], capture_output=True, text=True, env=env, timeout=60)
        want = 36 * self.n + 4 * self.n * (self.n - 1)     # what the modules sum to (argc = 1)
        if r.returncode != 0 or r.stdout.strip() != str(want):
            raise SystemExit("%s: wrong run (status %d): %s %s" % (self.exe, r.returncode, r.stdout, r.stderr))
        if self.v.kind == "ep" and "f000 parse k0_0=1" not in r.stderr:
            raise SystemExit("%s: edgeprobe_enable(\"f000_*\") switched on no TRACE:\n%s" % (self.exe, r.stderr))
        self.exe_text = text_size(self.exe)
        self.obj_text = text_size(self.object(self.files[0]))

    # The figures: medians over repetitions (modules: over modules and reps).
    def total(self):
        return statistics.median(sum(r) for r in self.reps)

    def module(self):
        return statistics.median(t for r in self.reps for t in r[:-1])

    def main(self):
        return statistics.median(r[-1] for r in self.reps)


def text_size(path):
    """The text column of `size` (Berkeley): code plus read-only data."""
    out = subprocess.run(["size", path], capture_output=True, text=True, check=True).stdout
    return int(out.splitlines()[1].split()[0])


def measure(cells):
    """Repetition-major, so that all variants share the machine's drift."""
    rep = 0
    while True:
        todo = [c for c in cells if c.wants_more()]
        if not todo:
            return
        rep += 1
        for c in todo:
            t = c.compile_all()
            print("rep %d  %-10s %-6s %3d modules: %7.2f s CPU" % (rep, c.v.label, os.path.basename(c.cc), c.n, t),
                  file=sys.stderr, flush=True)
            if len(c.reps) == 1:
                c.link_and_check()


# ---- the report -----------------------------------------------------------

def report(cells, vs, info, args):
    base = {(c.cc, c.n): c for c in cells if c.v.kind == "none"}
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = ["Machine: %d CPUs (nproc), %s, Linux %s; load average %.2f at the start, %.2f at the end "
           "(CPU time, not wall time, is measured)." % (info["nproc"], info["cpu"], info["kernel"],
                                                       info["load_start"], os.getloadavg()[0]),
           "This run: %.1f CPU-minutes (compilers, linker, programs), %.1f minutes wall." % (
               (ru.ru_utime + ru.ru_stime) / 60, (time.monotonic() - info["t0"]) / 60),
           "Compilers: %s; %s. Flags: %s." % (info["gcc"], info["clang"], " ".join(args.cflags)), ""]
    for v in vs:
        if v.note:
            out.append("- `%s`: %s" % (v.label, v.note))
        if v.skip:
            out.append("- `%s`: **not measured**: %s" % (v.label, v.skip))
    out += ["",
            "Compile CPU, seconds (user+sys, every file compiled alone, -j1; median over `reps`). "
            "`module`: one module file (median over modules and reps); `main`: main.c; "
            "`per module` = (program - program without markers) / modules.", "",
            "| variant | cc | modules | reps | program s | x none | module ms | module - none ms | main ms | per module ms |",
            "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|"]
    for c in cells:
        b = base[(c.cc, c.n)]
        out.append("| %s | %s | %d | %d | %.2f | %.2f | %.0f | %+.0f | %.0f | %+.0f |" % (
            c.v.label, os.path.basename(c.cc), c.n, len(c.reps), c.total(), c.total() / b.total(),
            1e3 * c.module(), 1e3 * (c.module() - b.module()), 1e3 * c.main(),
            1e3 * (c.total() - b.total()) / c.n))
    out += ["",
            "Text, bytes (`size` text column: code and read-only data; LTTng's library is a shared object, "
            "not counted). `per module` = (executable - executable without markers) / modules.", "",
            "| variant | cc | modules | executable | x none | per module | f000.o | f000.o - none |",
            "|---|---|--:|--:|--:|--:|--:|--:|"]
    for c in cells:
        b = base[(c.cc, c.n)]
        out.append("| %s | %s | %d | %d | %.2f | %+.0f | %d | %+d |" % (
            c.v.label, os.path.basename(c.cc), c.n, c.exe_text, c.exe_text / b.exe_text,
            (c.exe_text - b.exe_text) / c.n, c.obj_text, c.obj_text - b.obj_text))
    return "\n".join(out) + "\n"


def save(cells, info, text, args):
    with open(os.path.join(args.out, "results.md"), "w") as f:
        f.write(text)
    raw = {"machine": info, "cells": [{"variant": c.v.label, "cc": c.cc, "modules": c.n, "cpu_per_file": c.reps,
                                       "files": [os.path.basename(f) for f in c.files],
                                       "exe_text": c.exe_text, "f000_o_text": c.obj_text} for c in cells]}
    with open(os.path.join(args.out, "results.json"), "w") as f:
        json.dump(raw, f, indent=1)


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    p.add_argument("headers", nargs="*", metavar="LABEL=HEADER_DIR",
                   help="edgeprobe variants (default: edgeprobe=include)")
    p.add_argument("--out", default="build/bench-compile")
    p.add_argument("--gcc", default="gcc")
    p.add_argument("--clang", default="clang")
    p.add_argument("--sizes", default="1,10,100", help="modules per program, comma-separated")
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--reps-large", type=int, default=3, help="repetitions of programs of 100 modules or more")
    p.add_argument("--budget", type=float, default=30.0, help="CPU seconds after which a program stops repeating")
    p.add_argument("--cflags", default="-O2")
    args = p.parse_args()
    args.headers = args.headers or ["edgeprobe=include"]
    args.sizes = [int(s) for s in args.sizes.split(",")]
    args.cflags = args.cflags.split()
    args.out = os.path.abspath(args.out)
    return args


def main():
    args = parse_args()
    for cc in (args.gcc, args.clang):
        if not shutil.which(cc):
            raise SystemExit("no compiler %s" % cc)
    info = machine(args)
    vs = variants(args)
    for v in vs:
        check_available(v, args)
    cells = [Cell(v, cc, n, args) for v in vs if not v.skip for cc in (args.gcc, args.clang) for n in args.sizes]
    measure(cells)
    text = report(cells, vs, info, args)
    save(cells, info, text, args)
    print(text)


if __name__ == "__main__":
    main()
