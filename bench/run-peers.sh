#!/bin/sh
# bench/run-peers.sh - run the peer-comparison benchmarks (issue 5) built by
# bench/peers.mk, then write bench/RESULTS-peers.md and bench/plots/*.svg.
# Run from the repository root (make -f bench/peers.mk bench-peers does).
#
# Environment:
#   PEERS_CPU=1           CPU for the single-threaded benchmarks
#   PEERS_EXEC_CPU=1      executor CPU for the scalability run
#   PEERS_TOGGLE_CPU=0    toggler CPU for the scalability run
#   PEERS_QUICK=1         fewer repetitions (a smoke test, not for RESULTS)
#   PEERS_NO_USDT_UPROBE=1  skip enabling USDT probes through tracefs
# and the per-program knobs documented in bench/peers/*.c.
set -eu

OUT=bench/out/peers
BIN=$OUT/bin
RES=$OUT/results
CPU=${PEERS_CPU:-1}
export PEERS_EXEC_CPU=${PEERS_EXEC_CPU:-1} PEERS_TOGGLE_CPU=${PEERS_TOGGLE_CPU:-0}
export PEERS_RAW_DIR=$RES/raw

if [ "${PEERS_QUICK:-0}" = 1 ]; then
    export PEERS_MANY_REPS=${PEERS_MANY_REPS:-1000} PEERS_TIGHT_REPS=${PEERS_TIGHT_REPS:-2000}
    export PEERS_INVOKE_REPS=${PEERS_INVOKE_REPS:-2000} PEERS_TOGGLE_ROUNDS=${PEERS_TOGGLE_ROUNDS:-4}
    export PEERS_SCALE_MS_PER_RATE=${PEERS_SCALE_MS_PER_RATE:-200} PEERS_USDT_TOGGLES=${PEERS_USDT_TOGGLES:-10}
    HF_RUNS=10
else
    HF_RUNS=${PEERS_HYPERFINE_RUNS:-40}
fi

for b in many invoke toggle scale usdt_uprobe startup_ep startup_none; do
    [ -x "$BIN/$b" ] || { echo "run-peers: $BIN/$b missing; build with: make -f bench/peers.mk peers-build" >&2; exit 1; }
done
if ! make -q -f bench/peers.mk peers-build 2>/dev/null && [ "${PEERS_ALLOW_STALE:-0}" != 1 ]; then
    echo "run-peers: the binaries are older than their sources (include/edgeprobe.h changed?);" >&2
    echo "run-peers: rebuild with: make -f bench/peers.mk peers-build (or set PEERS_ALLOW_STALE=1)" >&2
    exit 1
fi
rm -rf "$RES"
mkdir -p "$RES/raw"
CMDS=$RES/commands.txt
: >"$CMDS"

# run NAME COMMAND...: stdout (JSON lines) to $RES/NAME.jsonl, logged
run() {
    name=$1
    shift
    echo "run-peers: $name: $*" >&2
    echo "$*" >>"$CMDS"
    start=$(date +%s)
    "$@" >"$RES/$name.jsonl"
    echo "run-peers: $name took $(( $(date +%s) - start )) s" >&2
}

# ---- machine ------------------------------------------------------------------
{
    printf '{"date":"%s",' "$(date -u '+%Y-%m-%d %H:%M:%S UTC')"
    printf '"model":"%s",' "$(lscpu | sed -n 's/^Model name: *//p' | head -1)"
    printf '"cpus":"%s",' "$(nproc)"
    printf '"threads_per_core":"%s",' "$(lscpu | sed -n 's/^Thread(s) per core: *//p' | head -1)"
    printf '"kernel":"%s",' "$(uname -srm)"
    printf '"gcc":"%s",' "$(gcc --version | head -1)"
    printf '"clang":"%s",' "$(clang-14 --version | head -1)"
    printf '"hyperfine":"%s",' "$(hyperfine --version 2>/dev/null | head -1)"
    printf '"loadavg":"%s",' "$(cut -d' ' -f1-3 /proc/loadavg)"
    printf '"header_sha256":"%s",' "$(sha256sum include/edgeprobe.h | cut -c1-16)"
    printf '"git":"%s%s"}\n' "$(git rev-parse --short HEAD 2>/dev/null || echo unknown)" \
        "$(git diff --quiet HEAD -- include/edgeprobe.h 2>/dev/null || echo ' (include/edgeprobe.h modified in the working tree)')"
} >"$RES/machine.json"

# ---- 1-3: single-threaded, pinned -----------------------------------------------
run many taskset -c "$CPU" "$BIN/many"
run invoke taskset -c "$CPU" "$BIN/invoke"
run toggle taskset -c "$CPU" env PEERS_CPU="$CPU" "$BIN/toggle"
# the strict policy chosen by the environment instead of the API
run toggle_env_strict taskset -c "$CPU" env -u PEERS_RAW_DIR EDGEPROBE_WX=strict PEERS_TOGGLE_ONLY=ep_handle \
    PEERS_TOGGLE_ROUNDS=4 "$BIN/toggle"

# ---- 4: executor + toggler (the program pins both threads) -----------------------
run scale "$BIN/scale"

# ---- USDT switched on for real: uprobes through tracefs (root only) --------------
TRACEFS=/sys/kernel/tracing
mounted_here=0
usdt_note=""
if [ "${PEERS_NO_USDT_UPROBE:-0}" = 1 ]; then
    usdt_note="skipped (PEERS_NO_USDT_UPROBE=1)"
elif [ "$(id -u)" != 0 ]; then
    usdt_note="skipped: enabling uprobes needs root"
else
    if [ ! -e "$TRACEFS/uprobe_events" ] && [ -d "$TRACEFS" ]; then
        mount -t tracefs nodev "$TRACEFS" 2>/dev/null && mounted_here=1 || true
    fi
    if [ -e "$TRACEFS/uprobe_events" ]; then
        offs=$(python3 bench/peers/sdt_offsets.py "$BIN/usdt_uprobe" peers_usdt hot hot_sem)
        # shellcheck disable=SC2086
        run usdt taskset -c "$CPU" env PEERS_CPU="$CPU" "$BIN/usdt_uprobe" "$TRACEFS" "$(realpath "$BIN/usdt_uprobe")" $offs ||
            usdt_note="failed (see stderr)"
    else
        usdt_note="skipped: no tracefs with uprobe_events (kernel without CONFIG_UPROBE_EVENTS?)"
    fi
    if [ "$mounted_here" = 1 ]; then umount "$TRACEFS" 2>/dev/null || true; fi
fi
if [ -n "$usdt_note" ]; then
    printf '{"bench":"usdt_note","name":"%s"}\n' "$usdt_note" >>"$RES/usdt.jsonl"
fi

# ---- 5: start-up, whole process ------------------------------------------------------
echo "hyperfine -N --warmup 5 --runs $HF_RUNS --export-json $RES/startup.json $BIN/startup_none $BIN/startup_ep 'env EDGEPROBE_ENABLE=st* $BIN/startup_ep' 'env PEERS_UNUSED=1 $BIN/startup_ep'" >>"$CMDS"
hyperfine -N --warmup 5 --runs "$HF_RUNS" --export-json "$RES/startup.json" \
    "$BIN/startup_none" "$BIN/startup_ep" \
    "env EDGEPROBE_ENABLE=st* $BIN/startup_ep" "env PEERS_UNUSED=1 $BIN/startup_ep" >&2
for b in startup_none startup_ep; do
    sites=$(size -A "$BIN/$b" | awk '$1 == "edgeprobe_sites" { print $2 / 32 }') # 32-byte records
    printf '{"bench":"startup_size","name":"%s","bytes":%s,"sites":%s}\n' "$b" "$(stat -c %s "$BIN/$b")" "${sites:-0}"
done >"$RES/startup_size.jsonl"

# ---- report ------------------------------------------------------------------------------
python3 bench/peers/report.py "$RES" bench/RESULTS-peers.md
python3 bench/peers/plots.py "$RES" bench/plots
echo "run-peers: wrote bench/RESULTS-peers.md and bench/plots/peers-*.svg" >&2
