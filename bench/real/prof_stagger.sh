#!/usr/bin/env bash
# bench/real/prof_stagger.sh [RUNS] - what a skipped call costs in a program
# whose work hides it, and what that does to estimated calls
# (bench/real/dense_phases.c: 48 short functions in phases of 1-60 ms).
# 1. The skip path in place: dense_phases runs for a fixed time (its phases
#    are timed by the TSC), plain and with bench/real/skip_cost.c preloaded
#    (every call of every function skipped), RUNS rounds each; a skipped
#    call costs the difference of the TSC ticks per call.
# 2. Estimates: `edgeprobe prof` on dense_phases, RUNS runs at each
#    EDGEPROBE_PROF_EPOCH_PARTS of PROF_STAGGER_PARTS (default "4 16": the
#    default, every ended count restarted at each mid-tick; and staggered
#    restarts, the agent's STAGGERED COUNTS), interleaved; every function
#    of 1,000 calls or more, estimate / the program's own count.
# Output: bench/out/prof-stagger/summary.md.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
RUNS=${1:-5}
OUT=bench/out/prof-stagger
EP=build/edgeprobe
mkdir -p "$OUT"
make -s tools >/dev/null
gcc -O2 -fpatchable-function-entry=5 bench/real/dense_phases.c -o "$OUT/dense_phases"
gcc -O2 -fPIC -shared -DEDGEPROBE_FUNC_BULK=1 -Iinclude bench/real/skip_cost.c -o "$OUT/skip_cost.so" -pthread -ldl
read -r -a parts <<<"${PROF_STAGGER_PARTS:-4 16}"
calls_of() { awk '{s += $2} END {print s}' "$1"; }
tsc_ghz=$(awk '/^cpu MHz/ {print $4 / 1000; exit}' /proc/cpuinfo)
: >"$OUT/skip.tsv"
for r in $(seq "$RUNS"); do
    /usr/bin/time -f '%e' -o "$OUT/t" "$OUT/dense_phases" 60 7 >"$OUT/plain.txt"
    echo "plain $(calls_of "$OUT/plain.txt") $(cat "$OUT/t")" >>"$OUT/skip.tsv"
    LD_PRELOAD=$PWD/$OUT/skip_cost.so /usr/bin/time -f '%e' -o "$OUT/t" "$OUT/dense_phases" 60 7 >"$OUT/skip.txt" 2>/dev/null
    echo "skipped $(calls_of "$OUT/skip.txt") $(cat "$OUT/t")" >>"$OUT/skip.tsv"
done
for r in $(seq "$RUNS"); do
    for a in "${parts[@]}"; do
        EDGEPROBE_PROF_EPOCH_PARTS=$a $EP prof --top 0 -q -o "$OUT/$a-$r.txt" -- "$OUT/dense_phases" 60 $((1000 + r)) >"$OUT/$a-$r.truth"
    done
done
{
    echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, $(lscpu | sed -n 's/^Model name: *//p'), load $(cut -d' ' -f1-3 /proc/loadavg); $RUNS runs"
    echo
    python3 - "$OUT" "$RUNS" "$tsc_ghz" "${parts[@]}" <<'PY'
import statistics, sys
sys.path.insert(0, "bench/real")
from prof_table import table
out, runs, ghz, parts = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4:]
rows = [l.split() for l in open(f"{out}/skip.tsv")]
per_call = {k: statistics.median(float(t) * ghz * 1e9 / int(c) for kind, c, t in rows if kind == k) for k in ("plain", "skipped")}
print("| dense_phases, fixed time | TSC ticks per call (median) |\n|---|---:|")
print(f"| plain | {per_call['plain']:.1f} |\n| every call skipped | {per_call['skipped']:.1f} |")
print(f"| a skipped call | **{per_call['skipped'] - per_call['plain']:.1f}** |\n")
print("| parts | functions (all runs) | median estimate / calls | within 10% | within 25% | lowest | highest |")
print("|---|---:|---:|---:|---:|---:|---:|")
within = lambda v, t: sum(abs(x - 1) <= t for x in v) / len(v)
for a in parts:
    v = []
    for r in range(1, runs + 1):
        truth = {l.split()[0]: int(l.split()[1]) for l in open(f"{out}/{a}-{r}.truth")}
        est = table(f"{out}/{a}-{r}.txt")
        v += [est.get(n, (0, ""))[0] / c for n, c in truth.items() if c >= 1000]
    v.sort()
    print(f"| {a} | {len(v)} | {statistics.median(v):.3f} | {within(v, .1):.0%} | {within(v, .25):.0%} | {v[0]:.2f} | {v[-1]:.2f} |")
PY
} >"$OUT/summary.md"
cat "$OUT/summary.md"
