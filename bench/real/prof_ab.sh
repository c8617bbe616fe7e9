#!/usr/bin/env bash
# bench/real/prof_ab.sh BASE [ROUNDS] - `edgeprobe prof` with this tree's
# agent against the agent of commit BASE (its tools/prof_agent.c,
# tools/prof_common.h and include/edgeprobe.h), on lua, zstd and bzip2
# (PROF_AB_PROGRAMS), ROUNDS rounds (default 7) of three runs each: plain,
# BASE's agent, this tree's, in an order rotated every round. Per program:
# median CPU seconds (user + system) of each, and the medians of the
# per-round ratios against plain, and of the tree's against BASE's.
# PROF_AB_DEFS="-DNAME=VALUE ...": BASE's agent is built with these (an
# experiment: BASE = HEAD and a macro of tools/prof_agent.c changed).
# PROF_AB_TREE_ARGS="--exact-calls ...": `prof` options for this tree's runs
# alone (BASE = HEAD: an option against the default).
# Output: bench/out/prof-ab/summary.md.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
BASE=${1:?usage: prof_ab.sh BASE [ROUNDS]}
ROUNDS=${2:-7}
PROGRAMS=${PROF_AB_PROGRAMS:-lua zstd bzip2}
OUT=bench/out/prof-ab
EP=build/edgeprobe
source bench/real/common.sh
real_inputs "$OUT"
make -s tools >/dev/null
# shellcheck disable=SC2086
base_agent "$BASE" "$OUT" ${PROF_AB_DEFS:-}
run_one() { # CONFIG PROGRAM -> CPU seconds
    local pre=()
    case $1 in
    base) pre=(env "EDGEPROBE_PROF_LIB=$ROOT/$OUT/agent-base.so" "$EP" prof -q -o /dev/null --) ;;
    # shellcheck disable=SC2206
    tree) pre=(env "EDGEPROBE_PROF_LIB=$ROOT/build/libedgeprobe-prof.so" "$EP" prof -q -o /dev/null ${PROF_AB_TREE_ARGS:-} --) ;;
    esac
    # shellcheck disable=SC2046
    /usr/bin/time -f '%U %S' -o "$OUT/t" "${pre[@]}" $(real_workload "$2" "$OUT" "${PROF_AB_LUA_N:-5}") >/dev/null 2>"$OUT/err"
    awk '{print $1 + $2}' "$OUT/t"
}
configs=(plain base tree)
: >"$OUT/raw.txt"
for r in $(seq "$ROUNDS"); do
    for p in $PROGRAMS; do
        for k in 0 1 2; do
            c=${configs[$(((k + r) % 3))]}
            echo "$p $r $c $(run_one "$c" "$p")" >>"$OUT/raw.txt"
        done
    done
done
{ echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, $(lscpu | sed -n 's/^Model name: *//p'), load $(cut -d' ' -f1-3 /proc/loadavg); $ROUNDS rotated rounds; base $BASE ($(git rev-parse --short "$BASE"))${PROF_AB_DEFS:+ built with $PROF_AB_DEFS}${PROF_AB_TREE_ARGS:+; the tree runs with $PROF_AB_TREE_ARGS}"
  echo
  echo "| program | plain CPU s | base agent | this tree's agent | base vs plain | tree vs plain | tree vs base |"
  echo "|---|---:|---:|---:|---:|---:|---:|"
  python3 - "$OUT/raw.txt" $PROGRAMS <<'PY'
import collections, statistics, sys
runs = collections.defaultdict(dict)
for line in open(sys.argv[1]):
    p, r, c, s = line.split()
    runs[(p, r)][c] = float(s)
for p in sys.argv[2:]:
    rounds = [v for (q, _), v in runs.items() if q == p and len(v) == 3]
    med = {c: statistics.median(v[c] for v in rounds) for c in ("plain", "base", "tree")}
    ratio = lambda a, b: statistics.median(v[a] / v[b] for v in rounds) - 1
    print(f"| {p} | {med['plain']:.3f} | {med['base']:.3f} | {med['tree']:.3f} | {ratio('base', 'plain'):+.1%} "
          f"| {ratio('tree', 'plain'):+.1%} | {ratio('tree', 'base'):+.1%} |")
PY
} >"$OUT/summary.md"
cat "$OUT/summary.md"
