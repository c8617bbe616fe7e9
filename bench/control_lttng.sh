#!/usr/bin/env bash
# bench/control_lttng.sh - LTTng's enable-to-first-hit latency, for
# comparison with `edgeprobe enable` (bench/control.c). Runs a private
# lttng-sessiond (user space only, its own LTTNG_HOME), one session, the
# measuring program; then stops them. Prints one markdown table row, or why
# it could not run.
set -u
cd "$(dirname "$0")/.."
command -v lttng-sessiond >/dev/null && [[ -f /usr/include/x86_64-linux-gnu/lttng/tracepoint.h || -f /usr/include/lttng/tracepoint.h ]] ||
    { echo "LTTng: lttng-tools or liblttng-ust-dev not installed; no comparison"; exit 0; }
out=bench/out/control
mkdir -p "$out"
gcc -O2 -Ibench/lttng bench/lttng/lttng_latency.c bench/lttng/lttng_tp.c -llttng-ust -ldl -pthread -o "$out/lttng_latency" ||
    { echo "LTTng: the benchmark does not build"; exit 0; }
# Use a session daemon that already runs; else start a private one (user
# space only) and stop it afterwards.
SESSION=epbench-$$
OURS=""
export LTTNG_HOME=${LTTNG_HOME:-$HOME}
if ! lttng list >/dev/null 2>&1; then
    export LTTNG_HOME=$(mktemp -d /tmp/edgeprobe-lttng.XXXXXX)
    lttng-sessiond --daemonize --no-kernel --pidfile="$LTTNG_HOME/sessiond.pid" >/dev/null 2>&1 ||
        { echo "LTTng: no session daemon runs here and lttng-sessiond does not start"; exit 0; }
    OURS=$(cat "$LTTNG_HOME/sessiond.pid")
fi
stop_lttng() {
    lttng destroy "$SESSION" >/dev/null 2>&1
    if [[ -n $OURS ]]; then # the daemon we started (it stops its consumer daemons)
        local i
        kill "$OURS" 2>/dev/null
        for i in $(seq 50); do kill -0 "$OURS" 2>/dev/null && sleep 0.1; done
        rm -rf "$LTTNG_HOME"
    fi
}
trap stop_lttng EXIT
lttng create "$SESSION" --output="/tmp/$SESSION" >/dev/null && lttng enable-event -u -s "$SESSION" bench_ep:nothing >/dev/null &&
    lttng start "$SESSION" >/dev/null || { echo "LTTng: cannot create a session"; exit 0; }
echo "LTTng session daemon: $([[ -n $OURS ]] && echo "started for this run" || echo "already running")"
timeout 300 "./$out/lttng_latency" "$SESSION" || echo "LTTng: the probe was never hit"
rm -rf "/tmp/$SESSION"
