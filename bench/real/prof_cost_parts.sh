#!/usr/bin/env bash
# bench/real/prof_cost_parts.sh [RUNS] [PROGRAM] - where `edgeprobe prof`'s
# cost on a program goes, from CPU samples rather than CPU times (this VM's
# speed drifts by more than the parts to be told apart; shares within one
# run do not). PROGRAM (default lua: bench.lua 5; or bzip2, zstd, redis:
# redis-server under `redis-benchmark -n 200000 -c 10 -t set,get`, as
# bench/real/prof_redis.sh runs it) is run RUNS times (default 5) in each
# configuration, in a rotated order, under `perf record -e cpu-clock`:
#   plain   the -fpatchable-function-entry=5 binary alone
#   thread  plain, with a preloaded thread that only sleeps
#           (bench/real/idle_thread.c): what any second thread costs
#   off     `prof --mode off`: the agent, its epoch thread, every probe off
#   lean    `prof --count-budget 0`: the windows' K samples, and each
#           function's minimum count beyond them
#   light   `prof -k 1 --count-budget 0`: one sample a function an epoch
#   least   `prof -k 1 --count-budget 0 --epoch 100`: the least sampling the
#           agent does (its call estimates are far off: README)
#   default `prof`
#   inline  `prof --epochs inline`: the default's profile, its epochs run on
#           the program's thread (the agent's INLINE EPOCHS), timed by the
#           kernel's task-clock event (THE PARTS' CLOCK)
#   inline20 `prof --epochs inline --epoch 20`
#   inline-timer  the same as inline, timed by the CPU-time timer (a tick
#           a part: epochs of 16-20 ms)
#   inline16 `prof --epochs inline --parts 16`: 16 parts an epoch, the
#           mid-ticks on the program's thread
#   parts16 `prof --parts 16`: the same on the epoch thread
#   epoch20 `prof --epoch 20`: the default's, at the epochs' length inline
#           ones reach on a kernel ticking at 250 Hz (4 parts of a tick)
#   exact   `prof --exact-calls`
#   lib-NAME `prof` with the profiler library $PROF_PARTS_LIB_DIR/NAME.so
#           (an A/B of two builds: bench/real/common.sh base_agent)
# (PROF_PARTS_CONFIGS="plain lean ...": some of them; plain is needed.)
# Samples of the profiled process's threads that carry its name (the epoch
# thread does; threads that rename themselves, such as redis's bio_*, are
# left out) are sorted into: the
# program's own code; glibc's malloc family; the rest of libc; the kernel;
# the agent (libedgeprobe-prof.so); the stubs and trampolines (anonymous
# code, perf's [JIT]); other. Per configuration, medians over the runs of
# each part in samples per 100 samples of the program's own code, and the
# cost they add up to: (100 + all parts) / (100 + plain's parts) - 1, the
# CPU the configuration takes beyond plain's if the program's own code runs
# as fast. What it cannot see: that code slowed (caches, branch
# predictors); the CPU times, also printed, include that, with the VM's
# drift.
# Output: bench/out/prof-cost-parts/summary.md.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
RUNS=${1:-5}
PROG=${2:-lua}
OUT=bench/out/prof-cost-parts
EP=build/edgeprobe
source bench/real/common.sh
mkdir -p "$OUT"
make -s tools >/dev/null
command -v perf >/dev/null || { echo "prof_cost_parts.sh: needs perf (apt-get install linux-perf)" >&2; exit 1; }
gcc -O2 -shared -fPIC -pthread bench/real/idle_thread.c -o "$OUT/idle_thread.so"
RBIN=build/real/redis/fpe/src
PORT=${PROF_REDIS_PORT:-16399}
if [[ $PROG == redis ]]; then
    redis_built || exit 1
    WORK=("$RBIN/redis-server" --port "$PORT" --save '' --appendonly no --logfile "$OUT/redis.log")
else
    real_inputs "$OUT"
    read -r -a WORK <<<"$(real_workload "$PROG" "$OUT" 5)"
fi
BIN=$(basename "${WORK[0]}")
read -r -a CONFIGS <<<"${PROF_PARTS_CONFIGS:-plain thread off lean light least default exact}"
# The server started, its client's requests, the server shut down.
drive_redis() {
    local i
    for i in $(seq 300); do
        [[ $("$RBIN/redis-cli" -p "$PORT" ping 2>/dev/null) == PONG ]] && break
        sleep 0.1
    done
    "$RBIN/redis-benchmark" -p "$PORT" -n 200000 -c 10 -t set,get -q >/dev/null
    "$RBIN/redis-cli" -p "$PORT" shutdown nosave >/dev/null 2>&1 || true
}
prefix() {
    case $1 in
    plain) ;;
    thread) echo "env LD_PRELOAD=$ROOT/$OUT/idle_thread.so" ;;
    off) echo "$EP prof -q -o /dev/null --mode off --" ;;
    lean) echo "$EP prof -q -o /dev/null --count-budget 0 --" ;;
    light) echo "$EP prof -q -o /dev/null -k 1 --count-budget 0 --" ;;
    least) echo "$EP prof -q -o /dev/null -k 1 --count-budget 0 --epoch 100 --" ;;
    default) echo "$EP prof -q -o /dev/null --" ;;
    inline) echo "$EP prof -q -o /dev/null --epochs inline --" ;;
    inline20) echo "$EP prof -q -o /dev/null --epochs inline --epoch 20 --" ;;
    inline-timer) echo "env EDGEPROBE_PROF_INLINE_CLOCK=timer $EP prof -q -o /dev/null --epochs inline --" ;;
    inline16) echo "$EP prof -q -o /dev/null --epochs inline --parts 16 --" ;;
    parts16) echo "$EP prof -q -o /dev/null --parts 16 --" ;;
    epoch20) echo "$EP prof -q -o /dev/null --epoch 20 --" ;;
    exact) echo "$EP prof -q -o /dev/null --exact-calls --" ;;
    lib-*) [[ -f ${PROF_PARTS_LIB_DIR:-}/${1#lib-}.so ]] &&
        echo "env EDGEPROBE_PROF_LIB=$PROF_PARTS_LIB_DIR/${1#lib-}.so $EP prof -q -o /dev/null --" ;;
    *) return 1 ;;
    esac
}
for c in "${CONFIGS[@]}"; do # a misspelt one would run as plain under its own name
    prefix "$c" >/dev/null || { echo "prof_cost_parts.sh: no configuration '$c'" >&2; exit 2; }
done
: >"$OUT/raw.txt"
for r in $(seq "$RUNS"); do
    for k in "${!CONFIGS[@]}"; do
        c=${CONFIGS[$(((k + r) % ${#CONFIGS[@]}))]}
        read -r -a pre <<<"$(prefix "$c")"
        /usr/bin/time -f '%U %S' -o "$OUT/t" perf record -q -e cpu-clock -F 4999 -o "$OUT/perf.data" -- \
            "${pre[@]}" "${WORK[@]}" >/dev/null 2>"$OUT/err" &
        [[ $PROG != redis ]] || drive_redis
        wait $!
        # the profiled process's samples by object and symbol: pid:comm dso symbol
        perf report -i "$OUT/perf.data" --no-children --sort pid,dso,sym -n -q -g none --stdio 2>/dev/null |
            awk -v c="$c" -v r="$r" -v bin="$BIN" -v cpu="$(awk '{print $1 + $2}' "$OUT/t")" '
                $3 !~ ":" bin "$" { next } # another process: perf, the edgeprobe command
                { n = $2; d = $4; s = $6 }
                d == bin { part["program"] += n; next }
                d == "libc.so.6" && s ~ /^(_int_malloc|_int_free|malloc|cfree@GLIBC_2.2.5|free|realloc|_int_realloc|calloc|malloc_consolidate|unlink_chunk.constprop.0|tcache_init.part.0|malloc_trim)$/ { part["malloc"] += n; next }
                d == "libc.so.6" { part["libc"] += n; next }
                d == "[kernel.kallsyms]" { part["kernel"] += n; next }
                d == "libedgeprobe-prof.so" { part["agent"] += n; next }
                d == "[JIT]" || d == "[unknown]" || d ~ /^\/\/anon/ { part["stubs"] += n; next }
                { part["other"] += n }
                END { printf "%s %s %s", r, c, cpu; for (p in part) printf " %s=%d", p, part[p]; print "" }' >>"$OUT/raw.txt"
    done
done
python3 - "$OUT/raw.txt" "$PROG" "$RUNS" "${CONFIGS[@]}" >"$OUT/summary.md" <<'PY'
import collections, statistics, subprocess, sys
raw, prog, runs, configs = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
parts = ["malloc", "libc", "kernel", "agent", "stubs", "other"]
by = collections.defaultdict(list)
for line in open(raw):
    f = line.split()
    d = dict(kv.split("=") for kv in f[3:])
    d = {k: int(v) for k, v in d.items()}
    d["cpu"] = float(f[2])
    d["round"] = f[0]
    by[f[1]].append(d)
def per100(d, k):
    return 100.0 * d.get(k, 0) / d["program"]
def total(d):
    return sum(per100(d, k) for k in parts)
med = lambda xs: statistics.median(xs) if xs else float("nan")
base_total = med([total(d) for d in by["plain"]])
base_cpu = {d["round"]: d["cpu"] for d in by["plain"]}
model = subprocess.run(["sh", "-c", "lscpu | sed -n 's/^Model name: *//p'"], capture_output=True, text=True).stdout.strip()
print(f"# {prog}, {runs} runs per configuration, rotated; {model}; samples of the profiled process's threads that carry "
      f"its name (the epoch thread's too; threads that rename themselves, e.g. redis's bio_*, are left out)")
print()
print("Parts in samples per 100 samples of the program's own code (medians over the runs); cost = (100 + all parts) / "
      "(100 + plain's) - 1; CPU = median of per-round CPU-time ratios against plain (VM drift included).")
print()
print("| configuration | " + " | ".join(parts) + " | all parts | cost | CPU vs plain |")
print("|---|" + "---:|" * (len(parts) + 3))
for c in configs:
    ds = by[c]
    cells = [f"{med([per100(d, k) for d in ds]):.2f}" for k in parts]
    t = med([total(d) for d in ds])
    cpu = med([d["cpu"] / base_cpu[d["round"]] for d in ds if d["round"] in base_cpu and base_cpu[d["round"]] > 0])
    cost = (100 + t) / (100 + base_total) - 1
    print(f"| {c} | " + " | ".join(cells) + f" | {t:.2f} | {100 * cost:+.1f}% | {100 * (cpu - 1):+.1f}% |")
PY
cat "$OUT/summary.md"
