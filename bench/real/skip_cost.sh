#!/usr/bin/env bash
# bench/real/skip_cost.sh [ROUNDS] - the cost of a skipped call in the real
# programs (bench/real/skip_cost.c preloaded: every call of every function
# skipped) against a plain run of the same binary, ROUNDS interleaved
# rounds (default 7). Per program: median CPU seconds of each, calls
# skipped, and (CPU difference) / calls in TSC ticks. SKIP_COST_HANDLER=1:
# every call runs an empty entry handler instead (the cost of a call that
# reaches a handler, in the same programs). SKIP_COST_BULK=1: the library
# is built with EDGEPROBE_FUNC_BULK=1, as the profiler's agent is (gcc PIE
# entries rewritten as one NOP5 at the scan: no mirror jump).
# SKIP_COST_BASE=COMMIT: a second library from that commit's header, run in
# the same rounds, gets a row of its own (before and after a change).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
ROUNDS=${1:-7}
OUT=bench/out/skip-cost
source bench/real/common.sh
real_inputs "$OUT"
flags=(-O2 -Wall -fPIC -shared)
[[ ${SKIP_COST_BULK:-0} == 1 ]] && flags+=(-DEDGEPROBE_FUNC_BULK=1)
gcc "${flags[@]}" -Iinclude bench/real/skip_cost.c -o "$OUT/skip_cost.so" -pthread -ldl
libs=(now) base=${SKIP_COST_BASE:-}
if [[ -n $base ]]; then
    mkdir -p "$OUT/base"
    git show "$base:include/edgeprobe.h" >"$OUT/base/edgeprobe.h"
    gcc "${flags[@]}" -I"$OUT/base" bench/real/skip_cost.c -o "$OUT/skip_cost_base.so" -pthread -ldl
    libs+=(base)
fi
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, $(lscpu | sed -n 's/^Model name: *//p'), load $(cut -d' ' -f1-3 /proc/loadavg); $ROUNDS rounds; bulk ${SKIP_COST_BULK:-0}${base:+; base $base}"
echo
echo "| program | header | plain CPU s (median) | every call skipped, CPU s | calls skipped | ns per skipped call | ticks per skipped call |"
echo "|---|---|---:|---:|---:|---:|---:|"
tsc_ghz=$(awk '/^cpu MHz/ {print $4 / 1000; exit}' /proc/cpuinfo)
for p in bzip2 lua zstd; do
    read -r -a cmd <<<"$(real_workload $p "$OUT")"
    plain=() now=() base_=() calls=0
    for r in $(seq "$ROUNDS"); do
        /usr/bin/time -f '%U %S' -o "$OUT/t" "${cmd[@]}" >/dev/null
        plain+=("$(awk '{print $1 + $2}' "$OUT/t")")
        for l in "${libs[@]}"; do
            so=$OUT/skip_cost.so
            [[ $l == base ]] && so=$OUT/skip_cost_base.so
            LD_PRELOAD=$PWD/$so /usr/bin/time -f '%U %S' -o "$OUT/t" "${cmd[@]}" >/dev/null 2>"$OUT/err"
            if [[ $l == base ]]; then base_+=("$(awk '{print $1 + $2}' "$OUT/t")"); else now+=("$(awk '{print $1 + $2}' "$OUT/t")"); fi
            calls=$(sed -n "s/^skipped //p" "$OUT/err" | sort -n | tail -1) # /usr/bin/time is preloaded too: 0
        done
    done
    python3 - "$p" "$calls" "$tsc_ghz" "${plain[*]}" "${now[*]}" "${base_[*]}" "$base" <<'PY'
import statistics, sys
p, calls, ghz = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
plain = [float(x) for x in sys.argv[4].split()]
mp = statistics.median(plain)
for name, arg in (("this tree", sys.argv[5]), (sys.argv[7], sys.argv[6])):
    if not arg:
        continue
    ms = statistics.median(float(x) for x in arg.split())
    ns = (ms - mp) * 1e9 / calls if calls else 0
    print(f"| {p} | {name} | {mp:.3f} | {ms:.3f} | {calls:,} | {ns:.1f} | {ns * ghz:.1f} |")
PY
done
