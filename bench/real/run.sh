#!/usr/bin/env bash
# bench/real/run.sh - time the real programs (bzip2, lua, zstd) in every
# build and under every tool, interleaved, then summarise (summarize.py).
# Run through `make bench-real`; knobs (environment):
#   REAL_PROGRAMS="bzip2 lua zstd"
#   REAL_CONFIGS="plain fpe eprof eoff cplain cfpe ceprof fiprof fistub"
#       plain   gcc -O2                       cplain  clang -O2
#       fpe     gcc -O2 -fpatchable-function-entry=5 (nothing attached)
#       cfpe    clang, the same flag
#       eprof   the fpe binary under `build/edgeprobe prof` (no rebuild)
#       ceprof  the cfpe binary under `build/edgeprobe prof`
#       eoff    the fpe binary under `edgeprobe prof --mode off` (every
#               function attached, then switched off: the disabled cost)
#       fiprof  -finstrument-functions + the linked profiler (tools/prof_agent.c), sampling
#       fioff   the same binary, every probe switched off (optional)
#       fistub  -finstrument-functions + empty hooks (the classic cost)
#   REAL_UFTRACE=1          also time `uftrace record --no-libcall -P .` on the
#                           fpe binary, in REAL_UFTRACE_RUNS (1) separate
#                           run(s) after the rounds, with a plain run alongside
#                           as its baseline (it is 5-100x slower and writes
#                           GBs: ~1.6 GB per bench.lua round, so lua runs
#                           REAL_UFTRACE_LUA_N=1 round there). uftrace's
#                           default (library calls traced too) kills lua with
#                           SIGSEGV at its first error() or coroutine.yield
#                           (both longjmp).
#   REAL_ROUNDS=7           rounds per program; each round runs every
#                           configuration once (hyperfine --runs 1), in a
#                           rotated order, so slow drifts of this shared
#                           machine hit all configurations alike
#   REAL_LUA_N=5            bench.lua rounds per run (~0.2 s CPU each)
#   REAL_BZ_MB=20           bzip2 input (generated pseudo-text), compressed
#                           and decompressed
#   REAL_ZSTD_MB=50 REAL_ZSTD_LEVEL=9 REAL_ZSTD_THREADS=4
#                           zstd input, level and worker threads (compress,
#                           then decompress)
#   REAL_PIN=0              CPU the single-threaded programs are pinned to
#                           ("" = no pinning); zstd is never pinned. The two
#                           vCPUs of this VM differ (up to 3x for bzip2 -d).
#   REAL_PROF_K=10 REAL_PROF_EPOCH_MS=10   sampling parameters of both
#                           profilers
# Output: REAL_OUT (default bench/out/real/: hyperfine JSON per round, reports, summaries,
# skipped.txt, summary.md); charts in REAL_PLOTS (default bench/plots/, the
# committed charts, for a run of every configuration and program; a run of
# some, REAL_CONFIGS or REAL_PROGRAMS set, draws in REAL_OUT/plots instead).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
OUT=${REAL_OUT:-bench/out/real}
if [[ -n ${REAL_CONFIGS:-}${REAL_PROGRAMS:-} ]]; then export REAL_PLOTS=${REAL_PLOTS:-$OUT/plots}; fi
export REAL_PLOTS=${REAL_PLOTS:-bench/plots}
mkdir -p "$OUT" "$REAL_PLOTS"
PROGRAMS=${REAL_PROGRAMS:-bzip2 lua zstd}
CONFIGS=${REAL_CONFIGS:-plain fpe eprof eoff cplain cfpe ceprof fiprof fistub}
ROUNDS=${REAL_ROUNDS:-7}
LUA_N=${REAL_LUA_N:-5}
BZ_MB=${REAL_BZ_MB:-20}
ZS_MB=${REAL_ZSTD_MB:-50}
ZS_LEVEL=${REAL_ZSTD_LEVEL:-9}
ZS_THREADS=${REAL_ZSTD_THREADS:-4}
PIN=${REAL_PIN-0}
UFTRACE=${REAL_UFTRACE:-1}
UFTRACE_RUNS=${REAL_UFTRACE_RUNS:-1}
UFT_LUA_N=${REAL_UFTRACE_LUA_N:-1}
K=${REAL_PROF_K:-10}
EPOCH=${REAL_PROF_EPOCH_MS:-10}
EP=build/edgeprobe
EPLIB=build/libedgeprobe-prof.so
UDIR=/tmp/edgeprobe-bench-uftrace.$$
SKIPPED=$OUT/skipped.txt
command -v hyperfine >/dev/null || apt-get install -y -qq hyperfine || { echo "run: needs hyperfine (apt-get install hyperfine)" >&2; exit 1; }
if [ "$UFTRACE" = 1 ] && ! command -v uftrace >/dev/null; then
    apt-get install -y -qq uftrace || echo "run: uftrace not installed (apt-get install uftrace): skipped"
fi
: > "$SKIPPED"
skip() { echo "run: SKIPPED $*" | tee -a "$SKIPPED" >&2; }

# ---- configurations ----------------------------------------------------
variant_of() {
    case $1 in
    plain | fpe | cplain | cfpe) echo "$1" ;;
    eprof | eoff | uftrace) echo fpe ;; ceprof) echo cfpe ;;
    fiprof | fioff) echo instr ;; fistub) echo stub ;;
    *) echo "run: unknown configuration $1" >&2; exit 2 ;;
    esac
}
# the command prefix that runs one process of the program in configuration
# $1; $2 names the run (program, round, stage) for the files it writes
prefix_of() {
    case $1 in
    eprof | ceprof) echo "$EP prof -q -o $OUT/$2.report --summary $OUT/$2.summary -k $K --epoch $EPOCH --" ;;
    eoff) echo "$EP prof -q -o $OUT/$2.report --summary $OUT/$2.summary --mode off --" ;;
    fiprof) echo "env EDGEPROBE_PROF_QUIET=1 EDGEPROBE_PROF_K=$K EDGEPROBE_PROF_EPOCH_MS=$EPOCH EDGEPROBE_PROF_SUMMARY=$OUT/$2.summary" ;;
    fioff) echo "env EDGEPROBE_PROF_MODE=off EDGEPROBE_PROF_QUIET=1 EDGEPROBE_PROF_SUMMARY=$OUT/$2.summary" ;;
    uftrace) echo "uftrace record --no-libcall -P . -d $UDIR" ;;
    *) echo "" ;;
    esac
}
pin_of() { [ "$1" != zstd ] && [ -n "$PIN" ] && echo "taskset -c $PIN"; return 0; }
# the whole workload of program $1 in configuration $2; $3 names the run
workload() {
    local prog=$1 c=$2 tag=$3 b pin
    b=build/real/$(variant_of "$c")/$prog
    pin=$(pin_of "$prog")
    case $prog in
    lua) echo "$pin $(prefix_of "$c" "$tag") $b bench/real/bench.lua $LUA_N > /dev/null" ;;
    bzip2) echo "$pin $(prefix_of "$c" "$tag-c") $b -c $BZ_TEXT > $OUT/tmp-$c.bz2 &&" \
        "$pin $(prefix_of "$c" "$tag-d") $b -dc $OUT/tmp-$c.bz2 > /dev/null" ;;
    zstd) echo "$(prefix_of "$c" "$tag-c") $b -q -T$ZS_THREADS -$ZS_LEVEL -c $ZS_TEXT > $OUT/tmp-$c.zst &&" \
        "$(prefix_of "$c" "$tag-d") $b -q -dc $OUT/tmp-$c.zst > /dev/null" ;;
    esac
}

# ---- is `edgeprobe prof` there? ----------------------------------------
prof_ready() {
    [ -x $EP ] && [ -f $EPLIB ] || { echo "$EP or $EPLIB not built (make tools)"; return 1; }
    local out
    out=$($EP prof -o /dev/null -- /bin/true 2>&1) || { echo "'$EP prof -o /dev/null -- /bin/true' failed: $out"; return 1; }
}
if echo " $CONFIGS " | grep -Eq " (eprof|ceprof|eoff) "; then
    if ! why=$(prof_ready); then
        skip "eprof ceprof eoff (edgeprobe prof): $why"
        CONFIGS=$(echo " $CONFIGS " | sed 's/ eprof / /; s/ ceprof / /; s/ eoff / /')
    fi
fi

# ---- inputs and sanity checks -------------------------------------------
[ -x build/real/gen_text ] || gcc -O2 -o build/real/gen_text bench/real/gen_text.c
BZ_TEXT=$OUT/text${BZ_MB}.txt
ZS_TEXT=$OUT/text${ZS_MB}.txt
for mb in "$BZ_MB" "$ZS_MB"; do
    [ -s "$OUT/text$mb.txt" ] || build/real/gen_text "$mb" > "$OUT/text$mb.txt"
    cat "$OUT/text$mb.txt" > /dev/null # warm the page cache
done
head -c 3000000 "$BZ_TEXT" > "$OUT/check.txt"
# the check of one program in one configuration: its output must be the
# plain build's (lua: the result line, stdout otherwise untouched; bzip2 and
# zstd: a round trip through the configuration's own binary)
check() { # $1 prog $2 config; prints what went wrong
    local prog=$1 c=$2 b pre got want
    b=build/real/$(variant_of "$c")/$prog
    pre=$(prefix_of "$c" "check-$prog-$c")
    case $prog in
    lua)
        # under uftrace (~45 s and 1.6 GB per bench.lua round) a short script
        # with the same hard parts: error/pcall (longjmp), coroutines
        local args=(bench/real/bench.lua 1)
        [ "$c" = uftrace ] && args=(-e "$LUA_SHORT")
        want=$(build/real/plain/lua "${args[@]}" | sed 's/, .*//')
        got=$($pre "$b" "${args[@]}" 2>"$OUT/check.err" | sed 's/, .*//') || true
        [ "$got" = "$want" ] || { echo "lua printed '$got', expected '$want'"; return 1; } ;;
    bzip2 | zstd)
        local z=$OUT/check.$prog
        if [ "$prog" = bzip2 ]; then
            $pre "$b" -c "$OUT/check.txt" > "$z" 2>"$OUT/check.err" && $pre "$b" -dc "$z" > "$z.out" 2>>"$OUT/check.err"
        else
            $pre "$b" -q -T$ZS_THREADS -$ZS_LEVEL -c "$OUT/check.txt" > "$z" 2>"$OUT/check.err" &&
                $pre "$b" -q -dc "$z" > "$z.out" 2>>"$OUT/check.err"
        fi || { echo "exit status $?"; return 1; }
        cmp -s "$z.out" "$OUT/check.txt" || { echo "round trip differs"; return 1; } ;;
    esac
}
LUA_SHORT='local function f(n) if n == 0 then error("x") end return f(n - 1) end
local co = coroutine.wrap(function() for i = 1, 3 do coroutine.yield(i) end end)
print(pcall(f, 50), co() + co() + co(), string.format("%5.1f", math.pi))'
declare -A PCONF # program -> configurations that passed the check
for prog in $PROGRAMS; do
    for c in $CONFIGS uftrace; do
        [ "$c" = uftrace ] && { [ "$UFTRACE" = 1 ] && command -v uftrace >/dev/null || continue; }
        rm -rf "$UDIR"
        if why=$(check "$prog" "$c"); then
            PCONF[$prog]="${PCONF[$prog]:-} $c"
        else
            skip "$prog $c: check failed: $why; command: $(prefix_of "$c" "check-$prog-$c") build/real/$(variant_of "$c")/$prog ...;" \
                "stderr: $(head -c 600 "$OUT/check.err" | tr '\n' ' ')"
            case $c in eprof | ceprof | eoff | uftrace) ;; *) exit 1 ;; esac
        fi
    done
    echo "run: $prog: checked:${PCONF[$prog]}"
done
rm -rf "$UDIR" "$OUT"/check[.-]*

# ---- timing ------------------------------------------------------------
loadavg() { cut -d' ' -f1-3 /proc/loadavg; }
rounds() { # $1 program
    local prog=$1 r i c cmds cfgs
    rm -f "$OUT/$prog"-round*.json "$OUT/$prog"-r*-*.summary "$OUT/$prog"-r*-*.report
    read -r -a cfgs <<< "$(echo "${PCONF[$prog]}" | sed 's/ uftrace//')"
    for ((r = 1; r <= ROUNDS; r++)); do
        cmds=()
        for ((i = 0; i < ${#cfgs[@]}; i++)); do
            c=${cfgs[$(((i + r - 1) % ${#cfgs[@]}))]}
            cmds+=(-n "$c" "$(workload "$prog" "$c" "$prog-r$r-$c")")
        done
        echo "run: $prog round $r/$ROUNDS (load $(loadavg))"
        echo "$prog round $r start $(date +%T) load $(loadavg)" >> "$OUT/load.txt"
        hyperfine --runs 1 --style basic --export-json "$OUT/$prog-round$r.json" "${cmds[@]}" > "$OUT/$prog-round$r.log" 2>&1
    done
    echo "$prog end $(date +%T) load $(loadavg)" >> "$OUT/load.txt"
}
uftrace_runs() { # $1 program
    local prog=$1 LUA_N=$UFT_LUA_N
    rm -f "$OUT/$prog"-uftrace.json
    echo " ${PCONF[$prog]} " | grep -q " uftrace " || return 0
    echo "run: $prog under uftrace record, $UFTRACE_RUNS run(s), plain alongside (load $(loadavg))"
    hyperfine --runs "$UFTRACE_RUNS" --style basic --prepare "rm -rf $UDIR $UDIR.old" \
        --export-json "$OUT/$prog-uftrace.json" -n plain "$(workload "$prog" plain "$prog-uftrace-plain")" \
        -n uftrace "$(workload "$prog" uftrace "$prog-uftrace")" \
        > "$OUT/$prog-uftrace.log" 2>&1 || skip "$prog uftrace: failed, see $OUT/$prog-uftrace.log"
    du -smc "$UDIR" "$UDIR.old" 2>/dev/null | tail -1 | cut -f1 > "$OUT/$prog-uftrace.mb" || true
    rm -rf "$UDIR" "$UDIR.old"
}
: > "$OUT/load.txt"
echo "start $(date +%T) load $(loadavg)" >> "$OUT/load.txt"
for prog in $PROGRAMS; do
    rounds "$prog"
    uftrace_runs "$prog"
done
rm -f "$OUT"/tmp-*

# ---- start-up and exit cost of `edgeprobe prof`: trivial runs ------------
# (the program starts and exits at once; the difference to the bare binary
# is what prof costs per process, whatever the workload)
startup() {
    local prog b args cmds=()
    for prog in $PROGRAMS; do
        case $prog in lua) args="-e ''" ;; bzip2) args="--help" ;; zstd) args="-V" ;; esac
        for b in build/real/fpe/$prog build/real/cfpe/$prog; do
            cmds+=("$b $args" "$EP prof -q -o $OUT/startup.report --mode off -- $b $args"
                "$EP prof -q -o $OUT/startup.report -- $b $args")
        done
    done
    hyperfine -N --runs "${REAL_STARTUP_RUNS:-20}" --style basic --export-json "$OUT/startup.json" "${cmds[@]}" \
        > "$OUT/startup.log" 2>&1 || skip "start-up cost: hyperfine failed, see $OUT/startup.log"
    rm -f "$OUT/startup.report"
}
if echo " $CONFIGS " | grep -q " eprof "; then
    echo "run: start-up cost of edgeprobe prof (load $(loadavg))"
    startup
fi

# ---- one profiled run each, with the report and the chart ---------------
for prog in $PROGRAMS; do
    case $prog in
    lua) args="bench/real/bench.lua $LUA_N" ;;
    bzip2) args="-c $BZ_TEXT" ;;
    zstd) args="-q -T$ZS_THREADS -$ZS_LEVEL -c $ZS_TEXT" ;;
    esac
    if echo " ${PCONF[$prog]} " | grep -q " eprof "; then
        # shellcheck disable=SC2086
        $EP prof -q -o "$OUT/$prog-eprof-report.txt" --top 30 --svg "$REAL_PLOTS/real-$prog-eprof.svg" -k "$K" --epoch "$EPOCH" \
            -- build/real/fpe/$prog $args > /dev/null 2> "$OUT/$prog-eprof-report.err" ||
            skip "$prog: '$EP prof -o $OUT/$prog-eprof-report.txt ... -- build/real/fpe/$prog $args' exit status $?"
    fi
    # shellcheck disable=SC2086
    [ ! -x build/real/instr/$prog ] || EDGEPROBE_PROF_OUT=$OUT/$prog-fiprof-report.txt EDGEPROBE_PROF_TOP=30 \
        EDGEPROBE_PROF_K=$K EDGEPROBE_PROF_EPOCH_MS=$EPOCH build/real/instr/$prog $args > /dev/null
done
echo "end $(date +%T) load $(loadavg)" >> "$OUT/load.txt"

python3 bench/real/summarize.py "$OUT" "$PROGRAMS" "$CONFIGS" "pin=$PIN lua_n=$LUA_N bz_mb=$BZ_MB zstd=-T$ZS_THREADS,-$ZS_LEVEL,${ZS_MB}MB k=$K epoch_ms=$EPOCH rounds=$ROUNDS"
