#!/usr/bin/env bash
# bench/real/record_vs_uftrace.sh - issue 18, "Real programs": `edgeprobe
# record` of every function against `uftrace record` with the same scope, on
# the same binary (gcc -O2 -fpatchable-function-entry=5: edgeprobe switches
# its entries, uftrace patches them with -P .), in one run:
#   plain   the binary alone
#   ep      edgeprobe record -f '*' -o TRACE -- PROG      (the command, summary included)
#   uft     uftrace record --no-libcall --max-stack=65535 -P . -d DIR PROG
#   ept     ep with -t 10us
#   uftt    uft with -t 10us
#   epenv   the recorder preloaded through the environment (LD_PRELOAD,
#           EDGEPROBE_RECORD, EDGEPROBE_RECORD_FUNCS='*'): ep without the
#           command's final summary, which reads the whole trace back
#   epvex   epenv with tools/record_agent.c compiled here with -mavx2 (VEX
#           encoding, no legacy SSE): a diagnosis. The function probe's
#           AVX-512 trampolines restore zmm0-7 with vmovdqa64, leaving the
#           upper state dirty, and the C code they call (legacy SSE
#           encoding) then pays an SSE/AVX transition on this CPU; epvex
#           shows what recording costs without that (needs avx2; skipped
#           otherwise)
#   eptvex  epvex with -t 10us (EDGEPROBE_RECORD_MIN_NS=10000)
# Every edgeprobe configuration records with RR_BUFFER (32M) rings: the
# default 1 MiB ring drops events at these rates (the consumer polls every
# millisecond); drops are counted in the table either way.
# uftrace options: --no-libcall (edgeprobe records the functions of objects
# built with the flag, not PLT calls; uftrace's default also kills lua at its
# first longjmp), --max-stack=65535 (its default 1024 drops lua's deep
# recursion; edgeprobe has no depth limit).
# Programs (RR_PROGRAMS): bzip2 (compress RR_BZ_MB MiB of pseudo-text), lua
# (bench/real/bench.lua 1 RR_LUA_SCALE), zstd (-RR_ZSTD_LEVEL -TRR_ZSTD_THREADS
# on RR_ZSTD_MB MiB), redis (redis-server 7 from Debian's source package,
# driven by its own redis-benchmark: RR_REDIS_N SET and GET requests from
# RR_REDIS_C clients; the time is the client's wall time, the CPU the
# server's process tree).
# RR_ROUNDS (5) interleaved rounds, each running every configuration once in
# an order rotated by the round. Traces go to tmpfs (RR_SHM, default
# /dev/shm/edgeprobe-rr.PID) and are removed after each run. Every run is
# checked: the program's output equals the plain run's (redis: the client
# completed), and the trace holds events (edgeprobe: its summary line,
# uftrace: the bytes of its .dat files / 16 = records).
# Output: RR_OUT (bench/out/record-real)/runs.tsv, machine.txt, summary.md
# (bench/real/record_summary.py).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
source bench/real/common.sh
OUT=${RR_OUT:-bench/out/record-real}
SHM=${RR_SHM:-/dev/shm/edgeprobe-rr.$$}
PROGRAMS=${RR_PROGRAMS:-bzip2 lua zstd redis}
CONFIGS=${RR_CONFIGS:-plain ep uft ept uftt epenv epvex eptvex}
BUFFER=${RR_BUFFER:-32M}
ROUNDS=${RR_ROUNDS:-5}
BZ_MB=${RR_BZ_MB:-4}
LUA_SCALE=${RR_LUA_SCALE:-0.3}
ZS_MB=${RR_ZSTD_MB:-16}
ZS_LEVEL=${RR_ZSTD_LEVEL:-9}
ZS_THREADS=${RR_ZSTD_THREADS:-2}
REDIS_N=${RR_REDIS_N:-100000}
REDIS_C=${RR_REDIS_C:-10}
REDIS_PORT=${RR_REDIS_PORT:-16399}
EP=$ROOT/build/edgeprobe
EPLIB=$ROOT/build/libedgeprobe-record.so
VEXLIB=$ROOT/build/real/libedgeprobe-record-vex.so
BIN=build/real/fpe
RBIN=build/real/redis/fpe/src
UFT="uftrace record --no-libcall --max-stack=65535 -P ."
mkdir -p "$OUT" "$SHM"
SERVER_PID=""
cleanup() { # a server left by an interrupted run: shut it down, then its wrapper
    if [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null; then
        $RBIN/redis-cli -p "$REDIS_PORT" shutdown nosave > /dev/null 2>&1 || true
        sleep 1
        kill "$SERVER_PID" 2>/dev/null || true
    fi
    rm -rf "$SHM"
}
trap cleanup EXIT

# ---- what is needed ------------------------------------------------------
command -v uftrace >/dev/null || { [ "$(id -u)" = 0 ] && apt-get install -y -qq uftrace >/dev/null; } ||
    { echo "record_vs_uftrace: needs uftrace (apt-get install uftrace)" >&2; exit 1; }
[ -x /usr/bin/time ] || { [ "$(id -u)" = 0 ] && apt-get install -y -qq time >/dev/null; } ||
    { echo "record_vs_uftrace: needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
[ -x "$EP" ] && [ -f "$EPLIB" ] || make --no-print-directory tools
bench/real/fetch.sh
REAL_PROGRAMS="bzip2 lua zstd" bench/real/build.sh fpe
if echo " $PROGRAMS " | grep -q ' redis '; then
    redis_built || { echo "record_vs_uftrace: no redis; or leave it out: RR_PROGRAMS='bzip2 lua zstd'" >&2; exit 1; }
fi
if echo " $CONFIGS " | grep -Eq ' (epvex|eptvex) '; then
    if grep -qw avx2 /proc/cpuinfo; then
        gcc -O2 -mavx2 -Iinclude -fPIC -shared tools/record_agent.c -o "$VEXLIB" -pthread -ldl
    else
        echo "record_vs_uftrace: SKIPPED epvex eptvex: no avx2" | tee "$OUT/skipped.txt" >&2
        CONFIGS=$(echo " $CONFIGS " | sed 's/ epvex / /; s/ eptvex / /')
    fi
fi
[ -x build/real/gen_text ] || gcc -O2 -o build/real/gen_text bench/real/gen_text.c
build/real/gen_text "$BZ_MB" > "$SHM/bz.txt"
build/real/gen_text "$ZS_MB" > "$SHM/zs.txt"

{
    echo "date: $(date -u '+%F %T UTC')"
    echo "nproc: $(nproc)"
    echo "cpu: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
    echo "kernel: $(uname -r); $(gcc --version | head -1); $(uftrace --version | head -1)"
    echo "workloads: bzip2 -c ${BZ_MB} MiB; lua bench.lua 1 $LUA_SCALE; zstd -q -T$ZS_THREADS -$ZS_LEVEL -c ${ZS_MB} MiB;" \
        "redis-benchmark -n $REDIS_N -c $REDIS_C -t set,get; rounds $ROUNDS"
} > "$OUT/machine.txt"
cat "$OUT/machine.txt"
RUNS=$OUT/runs.tsv
LOADS=$OUT/loadavg.txt
echo -e "program\tround\tconfig\twall_s\tcpu_s\tevents\tbytes\tlost\tcheck" > "$RUNS"
: > "$LOADS"

# the command prefix of configuration $1; the trace goes to $SHM/trace.$1
prefix_of() {
    case $1 in
    plain) echo "" ;;
    ep) echo "$EP record -f * --buffer $BUFFER -o $SHM/trace.ep --" ;;
    ept) echo "$EP record -f * --buffer $BUFFER -t 10us -o $SHM/trace.ept --" ;;
    uft) echo "$UFT -d $SHM/trace.uft" ;;
    uftt) echo "$UFT -t 10us -d $SHM/trace.uftt" ;;
    epenv) echo "env LD_PRELOAD=$EPLIB $(env_of epenv)" ;;
    epvex) echo "env LD_PRELOAD=$VEXLIB $(env_of epvex)" ;;
    eptvex) echo "env LD_PRELOAD=$VEXLIB $(env_of eptvex) EDGEPROBE_RECORD_MIN_NS=10000" ;;
    esac
}
env_of() { echo "EDGEPROBE_RECORD=$SHM/trace.$1 EDGEPROBE_RECORD_FUNCS=* EDGEPROBE_RECORD_BUFFER=$(numfmt --from=iec "$BUFFER")"; }
# the program's command line (not redis)
cmd_of() {
    case $1 in
    bzip2) echo "$BIN/bzip2 -c $SHM/bz.txt" ;;
    lua) echo "$BIN/lua bench/real/bench.lua 1 $LUA_SCALE" ;;
    zstd) echo "$BIN/zstd -q -T$ZS_THREADS -$ZS_LEVEL -c $SHM/zs.txt" ;;
    esac
}
# events, bytes and lost of the trace configuration $1 left; its stderr in $2
trace_stats() {
    local c=$1 err=$2 b line
    case $c in
    ep | ept)
        line=$(grep -a 'edgeprobe record: [0-9]* events from' "$err" | tail -1 || true)
        [ -n "$line" ] || { echo -e "0\t0\t0"; return; }
        echo "$line" | sed -E 's/.*: ([0-9]+) events from [0-9]+ threads?, ([0-9]+) lost, ([0-9]+) bytes.*/\1\t\3\t\2/' ;;
    epenv | epvex | eptvex) # no summary: bytes / 16 (entry and exit events have no
        # arguments; a -t call event one more word), lost from the END block's last word
        b=$(stat -c %s "$SHM/trace.$c" 2>/dev/null || echo 0)
        echo -e "$((b / 16))\t$b\t$(tail -c 8 "$SHM/trace.$c" 2>/dev/null | od -An -tu8 | tr -d ' ' || echo -)" ;;
    uft | uftt)
        b=$(cat "$SHM/trace.$c"/*.dat 2>/dev/null | wc -c || echo 0)
        echo -e "$((b / 16))\t$b\t-" ;;
    plain) echo -e "-\t-\t-" ;;
    esac
}
# one run of program $1 in configuration $2, round $3
run_one() {
    local p=$1 c=$2 r=$3 tf=$SHM/time err=$SHM/stderr pre wall cpu check=ok stats
    pre=$(prefix_of "$c")
    rm -rf "$SHM/trace.$c"
    set -f # the globs are for the tools
    if [ "$p" = redis ]; then
        local stf=$SHM/stime
        # shellcheck disable=SC2086
        /usr/bin/time -f '%e %U %S' -o "$stf" $pre $RBIN/redis-server --port "$REDIS_PORT" --save '' --appendonly no \
            --logfile "$SHM/redis.log" 2> "$err" > /dev/null &
        SERVER_PID=$!
        for _ in $(seq 300); do
            [ "$($RBIN/redis-cli -p "$REDIS_PORT" ping 2>/dev/null)" = PONG ] && break
            sleep 0.1
        done
        /usr/bin/time -f '%e %U %S' -o "$tf" $RBIN/redis-benchmark -p "$REDIS_PORT" -n "$REDIS_N" -c "$REDIS_C" \
            -t set,get --csv > "$SHM/out" 2>/dev/null || check="client failed"
        [ "$(grep -c '^"[SG]ET"' "$SHM/out")" = 2 ] || check="client: no SET and GET lines"
        $RBIN/redis-cli -p "$REDIS_PORT" shutdown nosave > /dev/null 2>&1 || true
        wait "$SERVER_PID" || check="server exited $?"
        SERVER_PID=""
        wall=$(awk '{print $1}' "$tf")
        cpu=$(awk '{printf "%.3f", $2 + $3}' "$stf")
    else
        # shellcheck disable=SC2046,SC2086
        /usr/bin/time -f '%e %U %S' -o "$tf" $pre $(cmd_of "$p") > "$SHM/out" 2> "$err" || check="exit $?"
        wall=$(awk '{print $1}' "$tf")
        cpu=$(awk '{printf "%.3f", $2 + $3}' "$tf")
        if [ "$p" = lua ]; then sed -i 's/, .*//' "$SHM/out"; fi
        if [ "$c" = plain ]; then mv "$SHM/out" "$SHM/want.$p"
        elif ! cmp -s "$SHM/out" "$SHM/want.$p"; then check="output differs from plain"; fi
    fi
    set +f
    stats=$(trace_stats "$c" "$err")
    case $c in
    ep | ept | uft | uftt | epenv | epvex | eptvex)
        [ "$(echo "$stats" | cut -f2)" -gt 64 ] 2>/dev/null || check="$check; no trace"
        [ "$c" != ep ] || [ "$(echo "$stats" | cut -f1)" -gt 0 ] 2>/dev/null || check="$check; no events" ;;
    esac
    [ "$check" = ok ] || { echo "record_vs_uftrace: $p $c round $r: $check; stderr:" >&2; tail -3 "$err" >&2; }
    echo -e "$p\t$r\t$c\t$wall\t$cpu\t$stats\t$check" >> "$RUNS"
    printf '  %-6s %-6s wall %6.2f s cpu %6.2f s  %s\n' "$p" "$c" "$wall" "$cpu" "$(echo "$stats" | tr '\t' ' ')"
    rm -rf "$SHM/trace.$c"
}

read -r -a CFG <<< "$CONFIGS"
n=${#CFG[@]}
for p in $PROGRAMS; do
    # the plain run's output first (the reference of the checks), not timed
    # shellcheck disable=SC2091 # the command line is built by cmd_of
    [ "$p" = redis ] || { $(cmd_of "$p") > "$SHM/want.$p" 2>/dev/null; [ "$p" != lua ] || sed -i 's/, .*//' "$SHM/want.$p"; }
    for r in $(seq "$ROUNDS"); do
        echo "$p round $r: load $(cut -d' ' -f1-3 /proc/loadavg)"
        echo "$p $r $(cut -d' ' -f1-3 /proc/loadavg)" >> "$LOADS"
        for k in $(seq 0 $((n - 1))); do
            run_one "$p" "${CFG[$(((k + r - 1) % n))]}" "$r"
        done
    done
done
echo "end: load $(cut -d' ' -f1-3 /proc/loadavg)" >> "$LOADS"
python3 bench/real/record_summary.py "$OUT" | tee "$OUT/summary.md"
