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
export LTTNG_HOME=$(mktemp -d /tmp/edgeprobe-lttng.XXXXXX)
lttng-sessiond --daemonize --no-kernel --pidfile="$LTTNG_HOME/sessiond.pid" >/dev/null 2>&1 || { echo "LTTng: lttng-sessiond does not start here"; exit 0; }
stop_lttng() { # the daemon we started (it stops its consumer daemons)
    lttng destroy epbench >/dev/null 2>&1
    local pid=$(cat "$LTTNG_HOME/sessiond.pid" 2>/dev/null) i
    [[ -n $pid ]] && kill "$pid" 2>/dev/null
    for i in $(seq 50); do [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null && sleep 0.1; done
    rm -rf "$LTTNG_HOME"
}
trap stop_lttng EXIT
lttng create epbench --output="$LTTNG_HOME/trace" >/dev/null && lttng enable-event -u -s epbench bench_ep:nothing >/dev/null &&
    lttng start epbench >/dev/null || { echo "LTTng: cannot create a session"; exit 0; }
timeout 300 "./$out/lttng_latency" epbench || echo "LTTng: the probe was never hit"
