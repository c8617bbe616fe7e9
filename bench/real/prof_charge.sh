#!/usr/bin/env bash
# bench/real/prof_charge.sh [RUNS] - how much `edgeprobe prof`'s estimated
# calls depend on the per-event cost it charges to its own clock: the agent
# built with one calibrated cost scaled (PROF_CHARGE_WHAT=entry: the
# trampoline's, -DPROF_CHARGE_SCALE; skip: a call the trampoline counts,
# -DPROF_SKIP_CHARGE_SCALE), by each of PROF_CHARGE_SCALES (default 0 0.5
# 1 1.5 2; 1 is as shipped), run RUNS times on bench/real/prof_chain.c
# (calls every few tens of ticks, counts known) and on lua's benchmark
# (exact counts from `--mode on`, functions with at least 1,000 calls
# marked estimated). The agents are built beside the output and chosen
# with EDGEPROBE_PROF_LIB; rounds are interleaved (every scale once per
# round). Output: bench/out/prof-charge/summary-WHAT.md: per scale,
# estimate / truth of chain_top, chain_mid, chain_leaf and chain_spin
# (median of the runs, range) and lua's median ratio and share within 10%.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
RUNS=${1:-3}
WHAT=${PROF_CHARGE_WHAT:-entry}
SCALES=${PROF_CHARGE_SCALES:-0 0.5 1 1.5 2}
OUT=bench/out/prof-charge
EP=build/edgeprobe
mkdir -p "$OUT"
make -s tools >/dev/null
[[ -x build/real/fpe/lua ]] || { bash bench/real/fetch.sh && bash bench/real/build.sh fpe; }
gcc -O2 -fpatchable-function-entry=5 bench/real/prof_chain.c -o "$OUT/chain"
"$OUT/chain" 20000000 >"$OUT/chain-truth.txt"
$EP prof --top 0 -q --mode on -o "$OUT/lua-on.txt" -- build/real/fpe/lua bench/real/bench.lua 2 >/dev/null
case $WHAT in
entry) macro=PROF_CHARGE_SCALE ;;
skip) macro=PROF_SKIP_CHARGE_SCALE ;;
*) echo "PROF_CHARGE_WHAT: entry or skip" >&2; exit 2 ;;
esac
for scale in $SCALES; do # one agent per scale
    cc -O2 -Wall -Wextra -Werror -Iinclude -fPIC -shared -D$macro="$scale" tools/prof_agent.c \
        -o "$OUT/agent-$WHAT-$scale.so" -pthread -ldl
done
for r in $(seq "$RUNS"); do
    for scale in $SCALES; do
        export EDGEPROBE_PROF_LIB=$ROOT/$OUT/agent-$WHAT-$scale.so
        $EP prof --top 0 -q -o "$OUT/chain-$WHAT-$scale-$r.txt" -- "$OUT/chain" 20000000 >/dev/null
        $EP prof --top 0 -q -o "$OUT/lua-$WHAT-$scale-$r.txt" -- build/real/fpe/lua bench/real/bench.lua 2 >/dev/null
    done
done
unset EDGEPROBE_PROF_LIB
{ echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, $(lscpu | sed -n 's/^Model name: *//p'), load $(cut -d' ' -f1-3 /proc/loadavg); $RUNS interleaved runs per scale; the $WHAT charge scaled"
  echo
  echo "| $WHAT charge scale | chain_top | chain_mid | chain_leaf | chain_spin | lua: median estimate / exact (functions) | lua: within 10% |"
  echo "|---:|---:|---:|---:|---:|---:|---:|"; } >"$OUT/summary-$WHAT.md"
for scale in $SCALES; do
    python3 - "$OUT" "$scale" "$RUNS" "$WHAT" <<'PY' >>"$OUT/summary-$WHAT.md"
import statistics, sys
out, scale, runs, what = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
sys.path.insert(0, "bench/real")
from prof_table import table
truth = dict((l.split()[0], float(l.split()[1])) for l in open(f"{out}/chain-truth.txt"))
cells = []
for name in ("chain_top", "chain_mid", "chain_leaf", "chain_spin"):
    v = [table(f"{out}/chain-{what}-{scale}-{r}.txt").get(name, (0, ""))[0] / truth[name] for r in range(1, runs + 1)]
    cells.append(f"{statistics.median(v):.2f} ({min(v):.2f}-{max(v):.2f})")
exact = {k: v[0] for k, v in table(f"{out}/lua-on.txt").items()}
lua = []
for r in range(1, runs + 1):
    lua += [c / exact[n] for n, (c, how) in table(f"{out}/lua-{what}-{scale}-{r}.txt").items()
            if how == "estimated" and exact.get(n, 0) >= 1000]
within = sum(abs(x - 1) <= 0.1 for x in lua) / max(len(lua), 1)
print(f"| {scale} | " + " | ".join(cells) + f" | {statistics.median(lua):.2f} ({len(lua)}) | {within:.0%} |")
PY
done
cat "$OUT/summary-$WHAT.md"
