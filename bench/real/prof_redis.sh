#!/usr/bin/env bash
# bench/real/prof_redis.sh [ROUNDS] [REQUESTS] - `edgeprobe prof` on a
# server from Debian's sources, driven by its own benchmark client:
# redis-server 7 built with -fpatchable-function-entry=5 (as
# bench/real/record_vs_uftrace.sh builds it: its own Makefile, libc malloc),
# `redis-benchmark -n REQUESTS -c 10 -t set,get --csv` against it, plain or
# under `edgeprobe prof` (default sampling), alternating which goes first in
# each round. Per run: requests/s and p99 latency of SET and GET (the
# client's figures), and the server's CPU time (user + system of its
# process tree, the profiler's epoch thread and report included). The
# figures are medians of the per-round ratios prof / plain.
# PROF_REDIS_ALT="ARGS" adds a third configuration, `edgeprobe prof ARGS`
# (e.g. "--settle 200"), in the rotation, reported against plain and prof.
# PROF_REDIS_ALT_LIB=AGENT.so runs that configuration with another agent
# (EDGEPROBE_PROF_LIB; e.g. an older commit's, as bench/real/prof_ab.sh
# builds it); PROF_REDIS_ALT may then be empty ("" ARGS: the defaults).
# Output: bench/out/prof-redis/{runs.tsv,summary.md}.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
ROUNDS=${1:-7}
N=${2:-200000}
OUT=bench/out/prof-redis
RBIN=build/real/redis/fpe/src
PORT=${PROF_REDIS_PORT:-16399}
EP=$ROOT/build/edgeprobe
mkdir -p "$OUT"
make -s tools >/dev/null
source bench/real/common.sh
redis_built || exit 1
server_pid=
cleanup() { [[ -z $server_pid ]] || kill "$server_pid" 2>/dev/null || true; }
trap cleanup EXIT
# one CONFIG ROUND: appends "config round rps_set p99_set rps_get p99_get cpu_s" to runs.tsv
one() {
    local config=$1 round=$2 pre=()
    [[ $config == prof ]] && pre=("$EP" prof -q -o "$OUT/report-$round.txt" --)
    [[ $config == alt ]] && pre=(env "EDGEPROBE_PROF_LIB=${ALT_LIB:-$ROOT/build/libedgeprobe-prof.so}" "$EP" prof -q $ALT
        -o "$OUT/report-alt-$round.txt" --)
    /usr/bin/time -f '%U %S' -o "$OUT/server-time" "${pre[@]}" "$RBIN/redis-server" --port "$PORT" --save '' \
        --appendonly no --logfile "$OUT/redis.log" >/dev/null 2>&1 &
    server_pid=$!
    for _ in $(seq 300); do
        [[ $("$RBIN/redis-cli" -p "$PORT" ping 2>/dev/null) == PONG ]] && break
        sleep 0.1
    done
    "$RBIN/redis-benchmark" -p "$PORT" -n "$N" -c 10 -t set,get --csv >"$OUT/client.csv"
    "$RBIN/redis-cli" -p "$PORT" shutdown nosave >/dev/null 2>&1 || true
    wait "$server_pid"
    server_pid=
    python3 - "$config" "$round" "$OUT/client.csv" "$OUT/server-time" >>"$OUT/runs.tsv" <<'PY'
import csv, sys
config, rnd, client, stime = sys.argv[1:]
rows = {r[0]: r for r in csv.reader(open(client)) if r and r[0] in ("SET", "GET")}
hdr = next(csv.reader(open(client)))
rps, p99 = hdr.index("rps"), hdr.index("p99_latency_ms")
assert set(rows) == {"SET", "GET"}, "the client printed no SET and GET lines"
cpu = sum(map(float, open(stime).read().split()[-2:]))
print(config, rnd, rows["SET"][rps], rows["SET"][p99], rows["GET"][rps], rows["GET"][p99], f"{cpu:.3f}", sep="\t")
PY
}
{ echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, $(lscpu | sed -n 's/^Model name: *//p'), load $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "# redis-benchmark -n $N -c 10 -t set,get; $ROUNDS rounds"; } >"$OUT/summary.md"
echo -e "config\tround\trps_set\tp99_set_ms\trps_get\tp99_get_ms\tserver_cpu_s" >"$OUT/runs.tsv"
ALT=${PROF_REDIS_ALT:-} ALT_LIB=${PROF_REDIS_ALT_LIB:-}
configs=(plain prof)
[[ -z $ALT$ALT_LIB ]] || { configs+=(alt); echo "# alt: edgeprobe prof $ALT${ALT_LIB:+ (agent $ALT_LIB)}" >>"$OUT/summary.md"; }
for r in $(seq "$ROUNDS"); do
    n=${#configs[@]}
    for i in $(seq 0 $((n - 1))); do one "${configs[$(((i + r) % n))]}" "$r"; done # rotated
    echo "round $r: $(tail -"$n" "$OUT/runs.tsv" | tr '\t\n' ' ')"
done
grep -q '^edgeprobe-prof-summary:' "$OUT/report-1.txt" || { echo "prof_redis: no report from the profiled server" >&2; exit 1; }
python3 - "$OUT/runs.tsv" <<'PY' | tee -a "$OUT/summary.md"
import statistics, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])][1:]
by = {(r[0], r[1]): list(map(float, r[2:])) for r in rows}
rounds = sorted({r[1] for r in rows}, key=int)
names = ["requests/s SET", "p99 SET (ms)", "requests/s GET", "p99 GET (ms)", "server CPU (s)"]
alt = ("alt", rounds[0]) in by
med = lambda c, i: statistics.median(by[(c, r)][i] for r in rounds)
ratio = lambda c, d, i: statistics.median(by[(c, r)][i] / by[(d, r)][i] for r in rounds if by[(d, r)][i])
print("\n| | plain (median) | prof (median) | prof / plain (median of per-round ratios) |"
      + (" alt (median) | alt / plain | alt / prof |" if alt else "") + "\n|---|---:|---:|---:|" + ("---:|---:|---:|" if alt else ""))
for i, n in enumerate(names):
    row = f"| {n} | {med('plain', i):g} | {med('prof', i):g} | {ratio('prof', 'plain', i):.3f} |"
    if alt:
        row += f" {med('alt', i):g} | {ratio('alt', 'plain', i):.3f} | {ratio('alt', 'prof', i):.3f} |"
    print(row)
PY
