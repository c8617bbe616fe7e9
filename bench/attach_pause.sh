#!/usr/bin/env bash
# bench/attach_pause.sh - what `edgeprobe attach` stops: the seized (main)
# thread's stall as the command measures it (interrupt to detach, dlopen of
# the agent included), and the longest gap a second thread of the target
# saw in its TSC loop, with attach and, as the baseline, without, in
# alternating runs of tests/attach/target.c.   bench/attach_pause.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-10}
B=build/bench-attach
mkdir -p "$B"
make -s tools >/dev/null
gcc -O2 -fpatchable-function-entry=5 -pthread tests/attach/target.c -o "$B/target"
one() { # one run: "stall_ms gap_ticks" (stall "-" without attach)
    local fifo=$B/fifo pid stall=-
    rm -f "$fifo" && mkfifo "$fifo"
    "./$B/target" "$fifo" >"$B/out.txt" &
    pid=$!
    exec 7>"$fifo"
    sleep 0.3
    if [[ $1 == attach ]]; then
        stall=$(build/edgeprobe attach "$pid" | sed -n 's/.*stopped \([0-9.]*\) ms.*/\1/p')
    fi
    sleep 0.3
    echo x >&7
    exec 7>&-
    wait $pid
    echo "$stall $(sed -n 's/.*longest gap \([0-9]*\) ticks/\1/p' "$B/out.txt")"
}
for ((i = 0; i < RUNS; i++)); do
    echo "attach $(one attach)"
    echo "plain $(one plain)"
done | tee "$B/runs.txt"
python3 - "$B/runs.txt" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
stall = [float(r[1]) for r in rows if r[0] == "attach"]
gap_a = [int(r[2]) for r in rows if r[0] == "attach"]
gap_p = [int(r[2]) for r in rows if r[0] == "plain"]
print(f"seized thread stall: median {statistics.median(stall):.2f} ms (min {min(stall):.2f}, max {max(stall):.2f}), {len(stall)} runs")
print(f"other thread's longest TSC gap: median {statistics.median(gap_a)} ticks with attach, {statistics.median(gap_p)} without")
PY
