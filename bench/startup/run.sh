#!/usr/bin/env bash
# bench/startup/run.sh - start-up cost of 100,000 probes (issue 9, item 5).
# The peers' start-up workload (bench/peers/gen_startup.py: 20 TUs x 50
# functions x 100 TRACE probes) in four binaries, timed by hyperfine in one
# run, interleaved by program:
#   startup_none    the same sources with -DEDGEPROBE_DISABLE_ALL (no probes)
#   startup_floor   the probes, registration replaced by empty functions
#                   (floor.c): the binary's own cost of carrying them
#   startup_ep      the probes, registered
#   ... with EDGEPROBE_ENABLE=st* (all 100,000 switched on at start-up)
# plus registration and unregistration time measured inside the program
# (phases.c, median of STARTUP_PHASE_RUNS) and page faults (perf stat).
# Results: bench/out/startup/ (startup.json, phases.txt, faults.txt).
set -eu
cd "$(dirname "$0")/../.."
OUT=bench/out/startup
PB=bench/out/peers/bin
OBJ=bench/out/peers/obj/st_ep
N=100000
mkdir -p "$OUT"
command -v hyperfine >/dev/null || { echo "bench-startup: needs hyperfine (apt-get install hyperfine)"; exit 1; }
make --no-print-directory -f bench/peers.mk -j"${PEERS_JOBS:-2}" "$PB/startup_ep" "$PB/startup_none" >/dev/null
gcc -O2 -c bench/startup/floor.c -o "$OUT/floor.o"
gcc -O2 -c bench/startup/phases.c -o "$OUT/phases.o"
gcc -pthread "$OUT/floor.o" "$OBJ"/*.o -o "$OUT/startup_floor"   # linked first: its
gcc -pthread "$OUT/phases.o" "$OBJ"/*.o -o "$OUT/startup_phases" # definitions win
echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) CPUs; load: $(cut -d' ' -f1-3 /proc/loadavg); $(date -u)" |
    tee "$OUT/machine.txt"

hyperfine -N --warmup 5 --runs "${STARTUP_RUNS:-60}" --export-json "$OUT/startup.json" \
    "$PB/startup_none" "$OUT/startup_floor" "$PB/startup_ep" \
    "env EDGEPROBE_UNUSED=1 $PB/startup_ep" "env EDGEPROBE_ENABLE=st* $PB/startup_ep" >/dev/null

: >"$OUT/phases.txt"
for _ in $(seq "${STARTUP_PHASE_RUNS:-31}"); do "$OUT/startup_phases" 2>>"$OUT/phases.txt"; done

: >"$OUT/faults.txt"
if perf stat -e page-faults true >/dev/null 2>&1; then
    for b in "$PB/startup_none" "$OUT/startup_floor" "$PB/startup_ep"; do
        printf '%s ' "$(basename "$b")" >>"$OUT/faults.txt"
        perf stat -x, -e page-faults "$b" 2>&1 >/dev/null | cut -d, -f1 >>"$OUT/faults.txt"
    done
fi

python3 - "$OUT" "$N" <<'PY'
import json, statistics, sys
out, n = sys.argv[1], int(sys.argv[2])
med = {}
for r in json.load(open(out + "/startup.json"))["results"]:
    med[r["command"]] = r["median"] * 1e3
    print("%-60s median %7.2f ms  (user %.1f, sys %.1f)" % (r["command"], med[r["command"]], r["user"] * 1e3, r["system"] * 1e3))
none, floor, ep, envb, enab = (list(med.values()) + [0] * 5)[:5]
per = lambda a, b: (a - b) / n * 1e6
print("\nper probe: with probes vs none %.0f ns; floor (no registration) vs none %.0f ns; registration %.0f ns"
      % (per(ep, none), per(floor, none), per(ep, floor)))
print("EDGEPROBE_ENABLE=st* (all on at start-up) vs the same env call: %.0f ns per probe" % per(enab, envb))
cpu = {r["command"]: (r["user"] + r["system"]) * 1e3 for r in json.load(open(out + "/startup.json"))["results"]}
c_none, c_floor, c_ep = (list(cpu.values()) + [0] * 3)[:3]
print("CPU time (user + sys, means): with probes vs none %.0f ns per probe; floor vs none %.0f ns; registration %.0f ns"
      % (per(c_ep, c_none), per(c_floor, c_none), per(c_ep, c_floor)))
rows = [l.split() for l in open(out + "/phases.txt") if l.startswith("register_ns")]
if rows:
    col = lambda k: statistics.median(int(r[k]) for r in rows) / n
    print("inside the program (median of %d): registration %.0f ns per probe wall, %.0f CPU; "
          "unregistration at exit %.0f wall, %.0f CPU" % (len(rows), col(1), col(5), col(3), col(7)))
for l in open(out + "/faults.txt"):
    print("page faults:", l.strip())
PY
