#!/usr/bin/env bash
# bench/real/prof_accuracy.sh [RUNS] - estimated calls against exact ones on
# the real programs: each workload (the Debian bzip2, lua and zstd built
# with -fpatchable-function-entry=5) under `edgeprobe prof` (sampling) and
# under `edgeprobe prof --mode on` (every call counted and timed: the exact
# count), RUNS times each. The programs are deterministic, so the exact
# counts are the same in every run (checked). For every function the
# sampling report marks `estimated` and that has at least MIN_CALLS exact
# calls: the ratio estimate / exact. Output: bench/out/prof-accuracy/
# summary.md (per program: functions compared, median ratio, share within
# 10%, the worst; then every function with MIN_CALLS exact calls, counted
# exact or estimated, within 10%: what a full count that the budget grants
# instead of an estimate shows), and how the reports' error bounds (err%:
# two standard errors) hold: the share of the compared estimates whose exact
# count lies within their bound, and the median bound. PROF_ACC_LIB=PATH profiles with another
# build of the profiler library (an A/B: bench/real/common.sh base_agent);
# PROF_ACC_ARGS="--exact-calls ...": `prof` options for the sampling runs.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
RUNS=${1:-3}
MIN_CALLS=${PROF_ACC_MIN_CALLS:-1000}
OUT=bench/out/prof-accuracy
EP=build/edgeprobe
source bench/real/common.sh
real_inputs "$OUT"
make -s tools >/dev/null
{ echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, $(lscpu | sed -n 's/^Model name: *//p'), load $(cut -d' ' -f1-3 /proc/loadavg); $RUNS runs; functions with >= $MIN_CALLS exact calls, estimated in the sampling report"
  [[ -n ${PROF_ACC_LIB:-} ]] && echo "profiler library: $PROF_ACC_LIB"
  [[ -n ${PROF_ACC_ARGS:-} ]] && echo "sampling runs with: $PROF_ACC_ARGS"
  echo; echo "| program | functions compared (all runs) | median estimate / exact | within 10% | within 25% | lowest | highest | all functions (exact too) | within 10% | exact within the bound (err%) | median err% |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"; } >"$OUT/summary.md"
for p in bzip2 lua zstd; do
    read -r -a cmd <<<"$(real_workload $p "$OUT" 2 2)"
    for r in $(seq "$RUNS"); do
        $EP prof --top 0 -q -o "$OUT/$p-on-$r.txt" --mode on -- "${cmd[@]}" >/dev/null
        # shellcheck disable=SC2086
        env ${PROF_ACC_LIB:+EDGEPROBE_PROF_LIB=$PROF_ACC_LIB} $EP prof --top 0 -q -o "$OUT/$p-sample-$r.txt" ${PROF_ACC_ARGS:-} -- "${cmd[@]}" >/dev/null
    done
    python3 - "$OUT" "$p" "$RUNS" "$MIN_CALLS" <<'PY' >>"$OUT/summary.md"
import statistics, sys
out, prog, runs, min_calls = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
sys.path.insert(0, "bench/real")
from prof_table import table, bounds
ratios, every, held, errs = [], [], [], []
exact_first = None
for r in range(1, runs + 1):
    exact = {k: v[0] for k, v in table(f"{out}/{prog}-on-{r}.txt").items()}
    if exact_first is None: exact_first = exact
    samp = table(f"{out}/{prog}-sample-{r}.txt")
    err = bounds(f"{out}/{prog}-sample-{r}.txt")
    for name, (calls, counted) in samp.items():
        if counted == "estimated" and exact.get(name, 0) >= min_calls:
            ratios.append((calls / exact[name], name))
            if err.get(name) is not None:
                errs.append(err[name])
                held.append(abs(calls - exact[name]) <= err[name] / 100 * calls)
    for name, calls in exact.items():  # a function missing from the sampling report reads 0
        if calls >= min_calls:
            every.append(samp.get(name, (0, ""))[0] / calls)
within = lambda v, t: sum(abs(x - 1) <= t for x in v) / len(v)
all_cols = f"{len(every)} | {within(every, 0.10):.0%}" if every else "0 | "
if not ratios:
    print(f"| {prog} | 0 | | | | | | {all_cols} | | |")
else:
    v = sorted(x for x, _ in ratios)
    lo, hi = min(ratios), max(ratios)
    bound_cols = f"{sum(held) / len(held):.0%} | {statistics.median(errs):.1f}" if held else " | "
    print(f"| {prog} | {len(v)} | {statistics.median(v):.3f} | {within(v, 0.10):.0%} | {within(v, 0.25):.0%} | {lo[0]:.2f} ({lo[1]}) | {hi[0]:.2f} ({hi[1]}) | {all_cols} | {bound_cols} |")
PY
done
cat "$OUT/summary.md"
