#!/usr/bin/env bash
# bench/real/prof_charge.sh [RUNS] - how much `edgeprobe prof`'s estimated
# calls depend on the per-event cost it charges to its own clock: the agent
# built with the trampoline's calibrated cost scaled by 0, 0.5, 1 (as
# shipped), 1.5 and 2 (-DPROF_CHARGE_SCALE), each run RUNS times on
# bench/real/prof_chain.c (calls every few tens of ticks, counts known) and
# on lua's benchmark (exact counts from `--mode on`, functions with at
# least 1,000 calls marked estimated). Output: bench/out/prof-charge/
# summary.md: per scale, estimate / truth of chain_top, chain_mid,
# chain_leaf and chain_spin (median of the runs) and lua's median ratio.
# The agent in build/ is rebuilt as shipped at the end.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
RUNS=${1:-3}
OUT=bench/out/prof-charge
EP=build/edgeprobe
mkdir -p "$OUT"
make -s tools >/dev/null
[[ -x build/real/fpe/lua ]] || { bash bench/real/fetch.sh && bash bench/real/build.sh fpe; }
gcc -O2 -fpatchable-function-entry=5 bench/real/prof_chain.c -o "$OUT/chain"
"$OUT/chain" 20000000 >"$OUT/chain-truth.txt"
$EP prof --top 0 -q --mode on -o "$OUT/lua-on.txt" -- build/real/fpe/lua bench/real/bench.lua 2 >/dev/null
agent() { # SCALE: build the agent with that charge (empty: as shipped)
    cc -O2 -Wall -Wextra -Werror -Iinclude -fPIC -shared ${1:+-DPROF_CHARGE_SCALE=$1} tools/prof_agent.c \
        -o build/libedgeprobe-prof.so -pthread -ldl
}
trap 'agent ""' EXIT
{ echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, $(lscpu | sed -n 's/^Model name: *//p'), load $(cut -d' ' -f1-3 /proc/loadavg); $RUNS runs per scale"
  echo
  echo "| charge scale | chain_top | chain_mid | chain_leaf | chain_spin | lua: median estimate / exact (functions) |"
  echo "|---:|---:|---:|---:|---:|---:|"; } >"$OUT/summary.md"
for scale in 0 0.5 1 1.5 2; do
    agent "$scale"
    for r in $(seq "$RUNS"); do
        $EP prof --top 0 -q -o "$OUT/chain-$scale-$r.txt" -- "$OUT/chain" 20000000 >/dev/null
        $EP prof --top 0 -q -o "$OUT/lua-$scale-$r.txt" -- build/real/fpe/lua bench/real/bench.lua 2 >/dev/null
    done
    python3 - "$OUT" "$scale" "$RUNS" <<'PY' >>"$OUT/summary.md"
import statistics, sys
out, scale, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
sys.path.insert(0, "bench/real")
from prof_table import table
truth = dict((l.split()[0], float(l.split()[1])) for l in open(f"{out}/chain-truth.txt"))
cells = []
for name in ("chain_top", "chain_mid", "chain_leaf", "chain_spin"):
    v = [table(f"{out}/chain-{scale}-{r}.txt").get(name, (0, ""))[0] / truth[name] for r in range(1, runs + 1)]
    cells.append(f"{statistics.median(v):.2f} ({min(v):.2f}-{max(v):.2f})")
exact = {k: v[0] for k, v in table(f"{out}/lua-on.txt").items()}
lua = []
for r in range(1, runs + 1):
    lua += [c / exact[n] for n, (c, how) in table(f"{out}/lua-{scale}-{r}.txt").items()
            if how == "estimated" and exact.get(n, 0) >= 1000]
print(f"| {scale} | " + " | ".join(cells) + f" | {statistics.median(lua):.2f} ({len(lua)}) |")
PY
done
cat "$OUT/summary.md"
