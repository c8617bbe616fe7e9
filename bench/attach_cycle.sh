#!/usr/bin/env bash
# bench/attach_cycle.sh [ROUNDS] - what a whole attach cycle costs the
# target (tests/attach/gap_target.c: its main thread blocked in read(), a
# second thread in a TSC loop through a function with a patchable entry):
# for each phase, the longest gap the second thread saw, and how long the
# command took.
#   idle     0.5 s with nothing done (the baseline: the VM's own preemption)
#   attach   `edgeprobe attach` (+0.5 s); also the seized thread's stall
#   prof     `edgeprobe prof -p -d 0.5 --stay`: every function on, sampled, off
#   detach   `edgeprobe detach` (+0.5 s): unbind, wait for handlers
# Each round is a new process. Medians over ROUNDS (default 10).
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-10}
B=build/bench-attach-cycle
EP=build/edgeprobe
mkdir -p "$B"
make -s tools >/dev/null
gcc -O2 -fpatchable-function-entry=5 -pthread tests/attach/gap_target.c -o "$B/target"
ms() { date +%s%N; }
one() {
    local fifo=$B/fifo out=$B/out.txt pid t0 stall attach_ms prof_ms detach_ms
    rm -f "$fifo" && mkfifo "$fifo"
    "./$B/target" <"$fifo" >"$out" &
    pid=$!
    exec 7>"$fifo"
    sleep 0.3
    echo start >&7
    sleep 0.5 && echo idle >&7
    t0=$(ms)
    stall=$($EP attach $pid | sed -n 's/.*stopped \([0-9.]*\) ms.*/\1/p')
    attach_ms=$((($(ms) - t0) / 1000))
    for _ in $(seq 100); do $EP list $pid >/dev/null 2>&1 && break; sleep 0.05; done
    sleep 0.5 && echo attach >&7
    t0=$(ms)
    $EP prof -p $pid -d 0.5 --stay -o "$B/report.txt" 2>/dev/null
    prof_ms=$((($(ms) - t0) / 1000))
    echo prof >&7
    t0=$(ms)
    $EP detach $pid >/dev/null
    detach_ms=$((($(ms) - t0) / 1000))
    sleep 0.5 && echo detach >&7
    exec 7>&-
    wait $pid
    echo "round $stall $attach_ms $prof_ms $detach_ms $(awk '$1 != "start" {printf "%s %s ", $1, $2}' "$out")"
}
for ((i = 0; i < ROUNDS; i++)); do one; done | tee "$B/runs.txt"
python3 - "$B/runs.txt" <<'PY'
import statistics as st, sys
rows = [l.split() for l in open(sys.argv[1]) if l.startswith("round")]
med = lambda xs: st.median(xs)
stall = [float(r[1]) for r in rows]
print(f"{len(rows)} rounds")
print(f"seized thread's stall (attach): median {med(stall):.2f} ms, min {min(stall):.2f}, max {max(stall):.2f}")
for i, what in ((2, "attach command"), (3, "prof -p -d 0.5 command"), (4, "detach command")):
    v = [int(r[i]) / 1000 for r in rows]
    print(f"{what}: median {med(v):.1f} ms (min {min(v):.1f}, max {max(v):.1f})")
for k, phase in enumerate(("idle", "attach", "prof", "detach")):
    g = [int(r[6 + 2 * k]) for r in rows]
    print(f"other thread's longest gap, {phase:6s}: median {med(g):>10,} ticks (min {min(g):,}, max {max(g):,})")
PY
