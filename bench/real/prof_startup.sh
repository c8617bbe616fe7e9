#!/usr/bin/env bash
# bench/real/prof_startup.sh [ROUNDS] - what `edgeprobe prof` adds to a
# process's start-up, per function, with the tools of several revisions in
# one run (PROF_STARTUP_REVS, default: before the per-object text opening,
# before the per-object mirror span, and the working tree).
#
# Programs that do nothing but start: the Debian bzip2, lua and zstd built
# with -fpatchable-function-entry=5 (bench/real/build.sh fpe: `bzip2 --help`,
# `lua -e x=1`, `zstd -V`), and two generated programs of 100 and 4,000 tiny
# functions (bench/fprobe/gen_many.py), whose difference gives the cost per
# function without the fixed part (the agent, its calibration, the report).
# Each configuration runs `edgeprobe prof --mode off -q -o /dev/null --
# PROGRAM` (every function attached and switched, then off) or the program
# alone, interleaved round by round; the figure is the median of the child
# processes' CPU time (user + system), the command's own included.
# Then the floor under it: what the page faults of switching every function
# cost on this machine (bench/real/fault_cost.c: a copied text page and a
# filled mirror page per text page), and what the agent's records' pages
# cost touched, populated ahead or as a huge page (bench/real/populate_cost.c).
# Output: bench/out/prof-startup/summary.md.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
ROUNDS=${1:-15}
OUT=bench/out/prof-startup
REVS=${PROF_STARTUP_REVS:-"394e17b~1 5b702c1"}
mkdir -p "$OUT"
make -s tools >/dev/null
[[ -x build/real/fpe/lua ]] || { bash bench/real/fetch.sh && bash bench/real/build.sh fpe; }
for n in 100 4000; do
    [[ -x $OUT/many$n ]] && continue
    python3 bench/fprobe/gen_many.py $n >"$OUT/many$n.c"
    printf 'long many_call_all(long);\nint main(int c, char **v) { (void)v; return (int)(many_call_all(c) & 1); }\n' >"$OUT/main.c"
    gcc -O2 -fpatchable-function-entry=5 "$OUT/main.c" "$OUT/many$n.c" -o "$OUT/many$n"
done
gcc -O2 bench/real/fault_cost.c -o "$OUT/fault_cost"
gcc -O2 bench/real/populate_cost.c -o "$OUT/populate_cost"
tools="now=$ROOT/build/edgeprobe"
for rev in $REVS; do # each revision's tools, built once in a worktree of its own
    sha=$(git rev-parse --short "$rev")
    wt=$OUT/src-$sha
    [[ -d $wt ]] || git worktree add -q --detach "$wt" "$sha"
    [[ -x $wt/build/edgeprobe ]] || make -s -C "$wt" tools >/dev/null
    tools="$sha=$ROOT/$wt/build/edgeprobe $tools"
done
{ echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, $(lscpu | sed -n 's/^Model name: *//p'), load $(cut -d' ' -f1-3 /proc/loadavg), $ROUNDS rounds"
  echo "tools: $tools"; } | tee "$OUT/summary.md"
python3 - "$ROUNDS" "$OUT" $tools <<'PY' | tee -a "$OUT/summary.md"
import resource, statistics, subprocess, sys
rounds, out, tools = int(sys.argv[1]), sys.argv[2], dict(t.split("=", 1) for t in sys.argv[3:])
progs = {"many100": ([f"{out}/many100"], 100), "many4000": ([f"{out}/many4000"], 4000),
         "bzip2": (["build/real/fpe/bzip2", "--help"], None), "lua": (["build/real/fpe/lua", "-e", "x=1"], None),
         "zstd": (["build/real/fpe/zstd", "-V"], None)}
faults = {}
def cpu_ms(cmd, key):
    a = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    b = resource.getrusage(resource.RUSAGE_CHILDREN)
    faults.setdefault(key, []).append(b.ru_minflt - a.ru_minflt)
    return (b.ru_utime - a.ru_utime + b.ru_stime - a.ru_stime) * 1e3
def functions(path):
    ls = subprocess.run([tools["now"], "list", path], capture_output=True, text=True).stdout
    return sum(1 for l in ls.splitlines() if " function " in f" {l} ")
res = {}
for r in range(rounds):
    for p, (cmd, _) in progs.items():
        res.setdefault((p, "bare"), []).append(cpu_ms(cmd, (p, "bare")))
        for t, ep in tools.items():
            res.setdefault((p, t), []).append(cpu_ms([ep, "prof", "--mode", "off", "-q", "-o", "/dev/null", "--"] + cmd, (p, t)))
med = {k: statistics.median(v) for k, v in res.items()}
added = {(p, t): med[(p, t)] - med[(p, "bare")] for p in progs for t in tools}
slope = {t: (added[("many4000", t)] - added[("many100", t)]) / 3900 * 1e3 for t in tools}  # us per function
fixed = {t: added[("many100", t)] - slope[t] * 100 / 1e3 for t in tools}  # ms per process
print("\nadded CPU, ms, and per function beyond the fixed part (us):\n")
print("| program (functions) | plain, ms CPU | " + " | ".join(f"`prof` {t}" for t in tools) + " |")
print("|---|---:|" + "---:|" * len(tools))
for p, (cmd, n) in progs.items():
    n = n or functions(cmd[0])
    print(f"| {p} ({n}) | {med[(p, 'bare')]:.2f} | " +
          " | ".join(f"{added[(p, t)]:.2f} ({(added[(p, t)] - fixed[t]) / n * 1e3:.2f} us/fn)" for t in tools) + " |")
print("| fixed part (many100 less 100 x the per-function slope), ms | | " + " | ".join(f"{fixed[t]:.2f}" for t in tools) + " |")
print("| per function (many4000 - many100) / 3,900, us | | " + " | ".join(f"**{slope[t]:.2f}**" for t in tools) + " |")
print("\nminor page faults of the whole command (median; the program alone in the first column):\n")
print("| program | alone | " + " | ".join(f"`prof` {t}" for t in tools) + " |")
print("|---|---:|" + "---:|" * len(tools))
for p in progs:
    print(f"| {p} | {statistics.median(faults[(p, 'bare')]):.0f} | " + " | ".join(f"{statistics.median(faults[(p, t)]):.0f}" for t in tools) + " |")
print("\nThe floor: the page faults of switching every function (bench/real/fault_cost.c, medians of 21 rounds):")
print("a text page copied (the floor), and, where the scan cannot convert gcc's entries, a mirror page filled")
print("(written first; read first, then written: the mirror page before 2026-11-26).\n")
print("| program | text pages | copy-on-write, ticks | floor, us per function | mirror page: zero fill, ticks | read, then zero fill | mirror pages, us per function |")
print("|---|---:|---:|---:|---:|---:|---:|")
for p, (cmd, n) in progs.items():
    n = n or functions(cmd[0])
    f = dict(zip(*[iter(subprocess.run([f"{out}/fault_cost", cmd[0]], capture_output=True, text=True).stdout.split())] * 2))
    per_fn = lambda key: int(f["pages"]) * float(f[key]) / n
    print(f"| {p} | {f['pages']} | {f['cow']} | {per_fn('floor_us_per_page'):.2f} | {f['zero']} | {f['read+zero']} | {per_fn('mirror_us_per_page'):.2f} |")
PY
{ echo; echo "The profiler's records (about 430 bytes a function): anonymous pages brought in three ways (bench/real/populate_cost.c)."
  echo; "$OUT/populate_cost" 21; } | tee -a "$OUT/summary.md"
