#!/usr/bin/env bash
# bench/real/prof_alternating.sh BASE [RUNS] - estimated calls of a function
# that runs in phases (tests/prof/alternating.c, as in the case
# prof-alternating), with this tree's profiler and BASE's, RUNS runs each
# (default 5), interleaved: estimate / truth of alt_hot per run, for calls
# of about 70 ticks in 12 phases of 60 M ticks (estimated by the skip
# path's counts) and of about 450 ticks in one phase of 700 M (counted in
# full after the first epoch). Output: bench/out/prof-alternating/summary.md.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
BASE=${1:?usage: prof_alternating.sh BASE [RUNS]}
RUNS=${2:-5}
OUT=bench/out/prof-alternating
source bench/real/common.sh
make -s tools >/dev/null
base_agent "$BASE" "$OUT"
gcc -O2 -fpatchable-function-entry=5 tests/prof/alternating.c -o "$OUT/alternating"
ratio() { # LIB ARGS... -> estimate / truth of alt_hot
    local lib=$1
    shift
    EDGEPROBE_PROF_LIB=$lib build/edgeprobe prof -q --top 0 -o "$OUT/report.txt" -- "$OUT/alternating" "$@" >"$OUT/truth.txt"
    awk 'FNR == NR { if ($1 == "alt_hot") t = $2; next }
         $1 == "function" { for (i = 1; i <= NF; i++) if ($i == "calls") c = i; next }
         c && $1 == "alt_hot" { printf "%.3f", $c / t }' "$OUT/truth.txt" "$OUT/report.txt"
}
{
    echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); base $BASE ($(git rev-parse --short "$BASE")); estimate / truth of alt_hot per run"
    echo
    echo "| calls | base agent | this tree's agent |"
    echo "|---|---|---|"
    for args in "12 60000000 100" "1 700000000 600"; do
        base="" tree=""
        for _ in $(seq "$RUNS"); do
            # shellcheck disable=SC2086
            base+=" $(ratio "$ROOT/$OUT/agent-base.so" $args)"
            # shellcheck disable=SC2086
            tree+=" $(ratio "$ROOT/build/libedgeprobe-prof.so" $args)"
        done
        echo "| alternating $args |$base |$tree |"
    done
} >"$OUT/summary.md"
cat "$OUT/summary.md"
