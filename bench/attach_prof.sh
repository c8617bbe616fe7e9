#!/usr/bin/env bash
# bench/attach_prof.sh [ROUNDS] [SECONDS] - `edgeprobe prof -p` on a running
# server, attached for the middle of its run, against the same run without:
# tests/attach/server.c (built with -fpatchable-function-entry=5, without
# the header) serving tests/attach/client.c over loopback (2 connections, one
# request in flight on each). Each run is a new server; after 1 s of load, a
# window of SECONDS (default 3): `prof -p PID -d SECONDS` (attach, profile,
# detach) or, in the plain run, a sleep of the same length. Measured over
# the window: the client's requests/s and the server's CPU time per request
# (from /proc/PID/task/*/schedstat). Rounds alternate which run goes first;
# the figure is the median of the per-round ratios prof / plain.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-7}
SECS=${2:-3}
B=build/bench-attach-prof
EP=build/edgeprobe
mkdir -p "$B"
make -s tools >/dev/null
gcc -O2 -fpatchable-function-entry=5 -pthread tests/attach/server.c -o "$B/server"
gcc -O2 tests/attach/client.c -o "$B/client"
mono_ms() { python3 -c 'import time; print(f"{time.monotonic() * 1000:.1f}")'; }
cpu_ns() { cat /proc/$1/task/*/schedstat | awk '{s += $1} END {print s}'; }
# one VARIANT: "VARIANT rate cpu_ns_per_request"
one() {
    local variant=$1 spid cpid t0 t1 c0 c1
    rm -f "$B/port" "$B/stop" "$B/log"
    "./$B/server" "$B/port" &
    spid=$!
    for _ in $(seq 50); do [[ -s $B/port ]] && break; sleep 0.1; done
    "./$B/client" "$(cat "$B/port")" 2 "$B/stop" "$B/log" >"$B/client.txt" &
    cpid=$!
    sleep 1
    t0=$(mono_ms) c0=$(cpu_ns $spid)
    if [[ $variant == prof ]]; then
        $EP prof -p $spid -d "$SECS" -o "$B/report.txt" 2>"$B/prof.txt" >/dev/null
    else
        sleep "$SECS"
    fi
    t1=$(mono_ms) c1=$(cpu_ns $spid)
    touch "$B/stop"
    wait $cpid
    kill $spid
    wait $spid 2>/dev/null || true
    grep -q 'errors 0$' "$B/client.txt" || { echo "client errors" >&2; exit 1; }
    python3 - "$B/log" "$t0" "$t1" "$c0" "$c1" "$variant" <<'PY'
import sys
log = [tuple(map(float, l.split())) for l in open(sys.argv[1])]
t0, t1, c0, c1 = map(float, sys.argv[2:6])
def at(t):  # requests at time t, interpolated
    prev = log[0]
    for cur in log:
        if cur[0] >= t:
            if cur[0] == prev[0]: return cur[1]
            return prev[1] + (cur[1] - prev[1]) * (t - prev[0]) / (cur[0] - prev[0])
        prev = cur
    return log[-1][1]
n = at(t1) - at(t0)
print(sys.argv[6], f"{n / (t1 - t0) * 1000:.0f}", f"{(c1 - c0) / n:.0f}")
PY
}
for ((r = 0; r < ROUNDS; r++)); do
    if ((r % 2)); then one prof; one plain; else one plain; one prof; fi
done | tee "$B/runs.txt"
python3 - "$B/runs.txt" <<'PY'
import statistics as st, sys
rows = [l.split() for l in open(sys.argv[1])]
plain = [r for r in rows if r[0] == "plain"]; prof = [r for r in rows if r[0] == "prof"]
rate = [float(p[1]) / float(q[1]) for p, q in zip(prof, plain)]
cpu = [float(p[2]) / float(q[2]) for p, q in zip(prof, plain)]
print(f"{len(rate)} rounds; requests/s plain median {st.median(float(q[1]) for q in plain):.0f}, "
      f"with prof -p {st.median(float(p[1]) for p in prof):.0f}")
print(f"requests/s, prof -p / plain: median {st.median(rate):.3f} (min {min(rate):.3f}, max {max(rate):.3f})")
print(f"server CPU ns per request: plain median {st.median(float(q[2]) for q in plain):.0f}, "
      f"with prof -p {st.median(float(p[2]) for p in prof):.0f}; ratio median {st.median(cpu):.3f}")
PY
