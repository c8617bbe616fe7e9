#!/usr/bin/env bash
# bench/record/run.sh - what a recorded event costs (make bench-record):
# bench/record/record_cost.c once while an LTTng-UST session records its
# tracepoint (label on_lttng), so every figure of the table comes from one
# run; without LTTng, once with the tracepoint disabled. Raw JSON lines in
# bench/out/record/results.jsonl, then a summary.
set -u
cd "$(dirname "$0")/../.."
OUT=bench/out/record
RES=$OUT/results.jsonl
CPU=${PEERS_CPU:-1}
TRACE=/dev/shm/edgeprobe-record-cost.$$.trace
: >"$RES"
echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) CPUs; load: $(cut -d' ' -f1-3 /proc/loadavg); $(date -u)" | tee "$OUT/machine.txt"
run() { taskset -c "$CPU" env PEERS_CPU="$CPU" "$@" "$TRACE" >>"$RES"; rm -f "$TRACE"; }
if [[ ! -x $OUT/record_cost_lttng ]]; then
    echo "lttng: skipped: liblttng-ust-dev not installed (make bench-record as root installs it)"
    run "$OUT/record_cost"
elif ! command -v lttng-sessiond >/dev/null; then
    echo "lttng: skipped: lttng-tools not installed"
    run "$OUT/record_cost_lttng"
else
    # A private session daemon (its own LTTNG_HOME), stopped by its pid.
    export LTTNG_HOME=$(mktemp -d /tmp/edgeprobe-lttng.XXXXXX)
    lttng-sessiond --daemonize --no-kernel --pidfile="$LTTNG_HOME/sessiond.pid" >/dev/null 2>&1
    sleep 1
    if lttng create eprec --output="$LTTNG_HOME/trace" >/dev/null &&
        lttng enable-event -u -s eprec 'ep_rec:hit' >/dev/null && lttng start eprec >/dev/null; then
        run env RECORD_LTTNG_LABEL=on_lttng "$OUT/record_cost_lttng"
        lttng stop eprec >/dev/null
        echo "lttng: session recorded $(du -sb "$LTTNG_HOME/trace" | cut -f1) bytes of trace"
        lttng destroy eprec >/dev/null
    else
        echo "lttng: skipped: the session daemon could not start a session here"
        run "$OUT/record_cost_lttng"
    fi
    pid=$(cat "$LTTNG_HOME/sessiond.pid" 2>/dev/null)
    [[ -n $pid ]] && kill "$pid"
    sleep 1
    rm -rf "$LTTNG_HOME"
fi
# The consumer's rate: one producer flat out, 64 MiB ring, a file on tmpfs.
for i in 1 2 3; do "$OUT/throughput" "$TRACE" 20000000 | tee -a "$RES"; rm -f "$TRACE"; done
python3 - "$RES" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{") and '"median"' in l]
m = {r["name"]: r["median"] for r in rows}
base = m["none"]
print("ticks per event, medians (the loop's own %.1f subtracted):" % base)
for k in ["rdtsc", "ep_probe_rec", "ep_trace_rec", "ep_trace_text", "lttng_ust", "call_plain", "call_rec"]:
    print("  %-14s %7.1f" % (k, m[k] - base))
print("  PROBE recorded over rdtsc: %+.1f ticks" % (m["ep_probe_rec"] - m["rdtsc"]))
print("  LTTng / PROBE recorded:    %.2fx" % ((m["lttng_ust"] - base) / (m["ep_probe_rec"] - base)))
print("  TRACE text / recorded:     %.2fx" % ((m["ep_trace_text"] - base) / (m["ep_trace_rec"] - base)))
print("  call recorded over plain:  %+.1f ticks (target: 2 rdtsc + 60 = %.0f)" % (m["call_rec"] - m["call_plain"], 2 * (m["rdtsc"] - base) + 60))
PY
