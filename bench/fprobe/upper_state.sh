#!/usr/bin/env bash
# bench/fprobe/upper_state.sh [REV] [ROUNDS] - bench/fprobe/upper_state.c and
# bench/fprobe/cost.c built against this tree's header and against REV's
# (default 053ec23: before the trampolines kept the upper state clean),
# run alternately, pinned to CPU 1 (make bench-upper-state).
set -euo pipefail
cd "$(dirname "$0")/../.."
REV=${1:-053ec23}
ROUNDS=${2:-3}
OUT=bench/out/upper-state
mkdir -p "$OUT/old/include"
git show "$REV:include/edgeprobe.h" >"$OUT/old/include/edgeprobe.h"
for v in old new; do
    inc=$([[ $v == old ]] && echo "$OUT/old/include" || echo include)
    for p in upper_state cost; do
        gcc -O2 -fpatchable-function-entry=5 -I"$inc" -pthread "bench/fprobe/$p.c" -o "$OUT/$p-$v"
    done
done
echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) CPUs; load: $(cut -d' ' -f1-3 /proc/loadavg); $(date -u)"
for ((r = 1; r <= ROUNDS; r++)); do
    for v in old new; do
        echo "== round $r, header $([[ $v == old ]] && echo "$REV" || echo "of this tree")"
        taskset -c 1 "./$OUT/upper_state-$v"
        taskset -c 1 "./$OUT/cost-$v" | grep -E '^\| (off|entry|exit)'
    done
done
