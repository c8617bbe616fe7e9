#!/usr/bin/env bash
# bench/real/prof_hot.sh [RUNS] [AGENT...] - estimated calls of
# bench/real/prof_hot.c's 64 hot functions under `edgeprobe prof`, against
# the counts the program knows: per agent (a libedgeprobe-prof.so, chosen
# with EDGEPROBE_PROF_LIB; default: the one in build/), RUNS interleaved
# runs (default 3) of 300,000 rounds (about 0.5 s), the median and range of
# estimate / truth over the functions marked estimated, per run.
# Output: bench/out/prof-hot/summary.md.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
RUNS=${1:-3}
shift || true
AGENTS=("$@")
[[ ${#AGENTS[@]} -gt 0 ]] || AGENTS=("$ROOT/build/libedgeprobe-prof.so")
OUT=bench/out/prof-hot
mkdir -p "$OUT"
make -s tools >/dev/null
gcc -O2 -fpatchable-function-entry=5 bench/real/prof_hot.c -o "$OUT/prof_hot"
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, $(lscpu | sed -n 's/^Model name: *//p'), load $(cut -d' ' -f1-3 /proc/loadavg); $RUNS runs" >"$OUT/summary.md"
for r in $(seq "$RUNS"); do
    for a in "${AGENTS[@]}"; do
        EDGEPROBE_PROF_LIB=$a build/edgeprobe prof -q --top 0 -o "$OUT/report-$(basename "$a" .so)-$r.txt" -- \
            "$OUT/prof_hot" 300000 "$OUT/truth.txt" >/dev/null
    done
done
for a in "${AGENTS[@]}"; do
    python3 - "$OUT" "$(basename "$a" .so)" "$RUNS" <<'PY' >>"$OUT/summary.md"
import statistics, sys
sys.path.insert(0, "bench/real")
from prof_table import table
out, agent, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
truth = {l.split()[0]: float(l.split()[1]) for l in open(f"{out}/truth.txt")}
cells = []
for r in range(1, runs + 1):
    rep = table(f"{out}/report-{agent}-{r}.txt")
    v = [rep[n][0] / truth[n] for n in truth if n in rep and rep[n][1] == "estimated"]
    cells.append(f"{statistics.median(v):.2f} ({min(v):.2f}-{max(v):.2f}, {len(v)})" if v else "none estimated")
print(f"- {agent}: " + "; ".join(cells))
PY
done
cat "$OUT/summary.md"
