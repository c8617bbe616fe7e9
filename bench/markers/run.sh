#!/usr/bin/env bash
# bench/markers/run.sh - run the issue 9 benchmarks (make bench-markers) and
# print a summary; raw JSON lines in bench/out/markers/results.jsonl.
#   many      disabled cost, 4,096 distinct sites: none, USDT, PROBE, TRACE, LTTng
#   invoke    enabled cost per hit against direct calls (no LTTng session)
#   lttng     the same program with an LTTng-UST session recording ep_bench:hit
#   usdt      USDT's enabled hit through a uprobe (bench/peers/usdt_uprobe)
#   startup   100,000 probes: hyperfine, the same program with and without them
set -u
cd "$(dirname "$0")/../.."
OUT=bench/out/markers
RES=$OUT/results.jsonl
CPU=${PEERS_CPU:-1}
: >"$RES"
echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) CPUs; load: $(cut -d' ' -f1-3 /proc/loadavg); $(date -u)" | tee "$OUT/machine.txt"
taskset -c "$CPU" "$OUT/many" >>"$RES"
taskset -c "$CPU" env PEERS_CPU="$CPU" "$OUT/invoke" >>"$RES"

# LTTng-UST with a live session: needs its session daemon.
lttng_note=""
started_sessiond=""
if ! command -v lttng >/dev/null; then
    lttng_note="skipped: lttng-tools not installed"
else
    if ! pgrep -x lttng-sessiond >/dev/null; then
        lttng-sessiond --daemonize >/dev/null 2>&1 && started_sessiond=1
        sleep 1
    fi
    if lttng create epbench --output="$PWD/$OUT/lttng-trace" >/dev/null &&
        lttng enable-event -u -s epbench 'ep_bench:hit' >/dev/null && lttng start epbench >/dev/null; then
        taskset -c "$CPU" env PEERS_CPU="$CPU" MARKERS_LTTNG_LABEL=on_lttng "$OUT/invoke" >>"$RES"
        lttng stop epbench >/dev/null
        events=$(du -sb "$OUT/lttng-trace" | cut -f1)
        lttng destroy epbench >/dev/null
        echo "lttng: session recorded $events bytes of trace"
        rm -rf "$OUT/lttng-trace"
    else
        lttng_note="skipped: lttng-sessiond could not start a session here"
    fi
    if [[ -n $started_sessiond ]]; then
        pid=$(pgrep -o -x lttng-sessiond)
        [[ -n $pid ]] && kill "$pid"
    fi
fi
[[ -n $lttng_note ]] && echo "lttng: $lttng_note"

# USDT's enabled hit (uprobe), root only.
PB=bench/out/peers/bin
if [[ $(id -u) == 0 && -x $PB/usdt_uprobe ]]; then
    [[ -e /sys/kernel/tracing/uprobe_events ]] || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
    offs=$(python3 bench/peers/sdt_offsets.py "$PB/usdt_uprobe" peers_usdt hot hot_sem)
    # shellcheck disable=SC2086
    taskset -c "$CPU" env PEERS_CPU="$CPU" "$PB/usdt_uprobe" /sys/kernel/tracing "$(realpath "$PB/usdt_uprobe")" $offs >>"$RES" ||
        echo "usdt: failed"
else
    echo "usdt: skipped (needs root and bench/out/peers/bin/usdt_uprobe)"
fi

# Start-up: the peers' 100,000-probe program, with and without the probes.
if command -v hyperfine >/dev/null; then
    hyperfine -N --warmup 5 --runs 40 --export-json "$OUT/startup.json" "$PB/startup_none" "$PB/startup_ep" >/dev/null
fi
python3 bench/markers/summary.py "$RES" "$OUT/startup.json"
