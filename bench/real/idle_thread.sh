#!/usr/bin/env bash
# bench/real/idle_thread.sh [ROUNDS] [LUA_ROUNDS] - what a second thread
# that only sleeps costs lua (bench/real/idle_thread.c preloaded: glibc's
# malloc leaves its single-thread paths once a process has two threads,
# as under `edgeprobe prof`'s epoch thread). ROUNDS interleaved runs of
# each (default 15), pinned to CPU 1; prints the sorted CPU seconds, the
# median of per-round ratios, min/min and the ratio of medians.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
ROUNDS=${1:-15}
LUA_N=${2:-3}
OUT=bench/out/idle-thread
mkdir -p "$OUT"
[[ -x build/real/fpe/lua ]] || { bash bench/real/fetch.sh && bash bench/real/build.sh fpe; }
gcc -O2 -shared -fPIC -pthread bench/real/idle_thread.c -o "$OUT/idle_thread.so"
: >"$OUT/times.txt"
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(lscpu | sed -n 's/^Model name: *//p'), load $(cut -d' ' -f1-3 /proc/loadavg); $ROUNDS rounds of bench.lua $LUA_N"
for r in $(seq "$ROUNDS"); do
    /usr/bin/time -f "plain %U %S" -a -o "$OUT/times.txt" taskset -c 1 build/real/fpe/lua bench/real/bench.lua "$LUA_N" >/dev/null
    LD_PRELOAD=$PWD/$OUT/idle_thread.so /usr/bin/time -f "idle %U %S" -a -o "$OUT/times.txt" \
        taskset -c 1 build/real/fpe/lua bench/real/bench.lua "$LUA_N" >/dev/null
done
python3 - "$OUT/times.txt" <<'PY'
import statistics, sys
d = {}
for line in open(sys.argv[1]):
    v, u, s = line.split()
    d.setdefault(v, []).append(float(u) + float(s))
p, i = d["plain"], d["idle"]
print("plain", sorted(p)); print("idle ", sorted(i))
print(f"median of per-round ratios {statistics.median(b / a for a, b in zip(p, i)):.4f}, "
      f"min/min {min(i) / min(p):.4f}, ratio of medians {statistics.median(i) / statistics.median(p):.4f}")
PY
