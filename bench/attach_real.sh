#!/usr/bin/env bash
# bench/attach_real.sh [ROUNDS] - `edgeprobe prof -p` on the real programs
# (bzip2, lua, zstd: build/real/fpe/, built with -fpatchable-function-entry=5
# by bench/real/build.sh fpe), attached for the middle of a run, against the
# same binary's run without. Each run is one process of about 7 s; in the
# prof run, `prof -p PID -d WINDOW` (attach, profile WINDOW s, detach)
# starts AT s after the program (default: 2 s, then 3 s). Measured for the
# whole run: the program's wall time and user+sys CPU (/usr/bin/time), and
# separately the prof command's own wall and CPU; the seized thread's stall
# (what the attach prints); the output's checksum (every run's must be the
# first plain run's); the report (it must name the program's functions).
# A third run per round, "attach": `edgeprobe attach PID` at the same time,
# then `edgeprobe detach PID` as soon as the agent answers (no profile):
# what an attach leaves behind for the rest of the run (the agent's thread
# stays, dormant). Rounds rotate the order of the runs; the figures are the
# medians of the per-round ratios to plain. Knobs (environment):
#   AR_VARIANTS="plain attach prof"  the runs of a round ("plain prof": no
#                                  attach-only run)
#   AR_PROGRAMS="bzip2 lua zstd"   AR_BIN=build/real/fpe
#   AR_AT=2 AR_WINDOW=3            when prof -p starts, how long it profiles
#   AR_BZ_MB=100                   bzip2 -c on that much pseudo-text (gen_text)
#   AR_LUA_N=35 AR_LUA_SCALE=1     lua bench/real/bench.lua N SCALE
#   AR_ZSTD_MB=300 AR_ZSTD_LEVEL=9 AR_ZSTD_THREADS=2   zstd -q -TT -L -c
#   AR_PIN=0                       CPU the single-threaded programs (bzip2,
#                                  lua) are pinned to, "" = none; zstd never.
#                                  The agent's threads inherit the pinning:
#                                  their CPU shares the program's core.
#   AR_K=10 AR_EPOCH=10            prof's -k and --epoch
#   AR_OUT=build/bench-attach-real where the results go
# Output: AR_OUT (machine.txt, load.txt, runs.txt: one line per run, the
# last report per program);
# inputs and outputs of the programs in /dev/shm (removed at the end).
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-7}
PROGRAMS=${AR_PROGRAMS:-bzip2 lua zstd}
BIN=${AR_BIN:-build/real/fpe}
AT=${AR_AT:-2}
WINDOW=${AR_WINDOW:-3}
BZ_MB=${AR_BZ_MB:-100}
LUA_N=${AR_LUA_N:-35}
LUA_SCALE=${AR_LUA_SCALE:-1}
ZS_MB=${AR_ZSTD_MB:-300}
ZS_LEVEL=${AR_ZSTD_LEVEL:-9}
ZS_THREADS=${AR_ZSTD_THREADS:-2}
PIN=${AR_PIN-0}
read -r -a VARIANTS <<<"${AR_VARIANTS:-plain attach prof}"
K=${AR_K:-10}
EPOCH=${AR_EPOCH:-10}
B=${AR_OUT:-build/bench-attach-real}
EP=build/edgeprobe
SHM=/dev/shm/edgeprobe-attach-real.$$
mkdir -p "$B" "$SHM"
trap 'rm -rf "$SHM"' EXIT
make -s tools >/dev/null
for p in $PROGRAMS; do
    [ -x "$BIN/$p" ] || { echo "attach_real: $BIN/$p missing (bench/real/build.sh fpe)" >&2; exit 1; }
done
[ -x build/real/gen_text ] || { mkdir -p build/real && gcc -O2 -o build/real/gen_text bench/real/gen_text.c; }
build/real/gen_text "$BZ_MB" >"$SHM/bz.txt"
build/real/gen_text "$ZS_MB" >"$SHM/zs.txt"
{
    echo "date: $(date -u '+%F %T UTC'); load: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "cpu: $(lscpu | sed -n 's/^Model name:[[:space:]]*//p' | head -1), $(nproc) CPUs; kernel $(uname -r)"
    echo "workloads: bzip2 -c ${BZ_MB} MiB; lua bench.lua $LUA_N $LUA_SCALE; zstd -q -T$ZS_THREADS -$ZS_LEVEL -c ${ZS_MB} MiB;" \
        "pin '${PIN}'; runs ${VARIANTS[*]}; prof -p -d $WINDOW -k $K --epoch $EPOCH after $AT s; rounds $ROUNDS"
} | tee "$B/machine.txt"
pin_of() { [ "$1" != zstd ] && [ -n "$PIN" ] && echo "taskset -c $PIN"; return 0; }
args_of() {
    case $1 in
    bzip2) echo "-c $SHM/bz.txt" ;;
    lua) echo "bench/real/bench.lua $LUA_N $LUA_SCALE" ;;
    zstd) echo "-q -T$ZS_THREADS -$ZS_LEVEL -c $SHM/zs.txt" ;;
    esac
}
# functions each report must name (one is enough; lua's interpreter loop,
# bzip2's and zstd's compressors)
want_of() {
    case $1 in
    bzip2) echo 'BZ2_compressBlock|mainSort|mainGtU|fallbackSort|BZ2_blockSort|BZ2_hbMakeCodeLengths' ;;
    lua) echo 'luaV_execute|luaH_|luaD_|luaC_|luaS_' ;;
    zstd) echo 'ZSTD_compress|ZSTD_BtFindBestMatch|ZSTD_HcFindBestMatch|ZSTD_RowFindBestMatch|ZSTD_encodeSequences|HUF_' ;;
    esac
}
# one run: "PROGRAM VARIANT wall_s cpu_s cmd_wall_s cmd_cpu_s stall_ms
# checksum report_functions still_running_after_the_command ROUND" (cmd: the
# prof -p command, or attach + list + detach)
# a failed run (the command failed, or the program died): said on stderr,
# kept in failures.txt, a FAIL row in runs.txt (its round is left out of
# the ratios); the program is let finish (never left behind) and the
# benchmark goes on. A bad report (no function of the program) stops it.
fail() {
    local st
    echo "attach_real: $*" | tee -a "$B/failures.txt" >&2
    wait "$tpid" 2>/dev/null && st=0 || st=$?
    echo "attach_real:   the program then ended with status $st ($(tail -1 "$SHM/time" 2>/dev/null | tr '\n' ' '))" |
        tee -a "$B/failures.txt" >&2
    echo "$prog $variant FAIL - - - - - - - $round"
}
fatal() {
    echo "attach_real: $*" >&2
    wait "$tpid" 2>/dev/null || true
    exit 1
}
one() {
    local prog=$1 variant=$2 round=$3 tpid pid t pw="-" pc="-" stall="-" fns="-" tail_s="-" sum
    rm -f "$SHM/out" "$SHM/time" "$SHM/ptime" "$B/prof.out" "$B/prof.err"
    # shellcheck disable=SC2046
    /usr/bin/time -f "%e %U %S" -o "$SHM/time" $(pin_of "$prog") "$BIN/$prog" $(args_of "$prog") >"$SHM/out" &
    tpid=$!
    t=$(date +%s%N)
    pid=""
    for _ in $(seq 200); do
        pid=$(pgrep -P "$tpid" || true)
        [ -n "$pid" ] && [ "$(readlink "/proc/$pid/exe" 2>/dev/null)" = "$(readlink -f "$BIN/$prog")" ] && break
        pid=""
        sleep 0.005
    done
    [ -n "$pid" ] || fatal "$prog did not start"
    if [[ $variant == attach ]]; then
        sleep "$(python3 -c "import time; print(max(0, $AT - (time.time_ns() - $t) / 1e9))")"
        /usr/bin/time -f "%e %U %S" -o "$SHM/ptime" bash -c "
            $EP attach $pid && for _ in \$(seq 500); do $EP list $pid >/dev/null 2>&1 && break; sleep 0.02; done &&
            $EP detach $pid" >"$B/prof.out" 2>"$B/prof.err" ||
            { fail "$prog round $round: attach/detach failed: $(cat "$B/prof.out" "$B/prof.err" | tr '\n' ' ')"; return; }
        read -r pw pu ps <"$SHM/ptime"
        pc=$(python3 -c "print(f'{$pu + $ps:.2f}')")
        stall=$(sed -n 's/.*stopped \([0-9.]*\) ms.*/\1/p' "$B/prof.out")
        [ -n "$stall" ] || stall="?"
        grep -q 'switched off and unbound' "$B/prof.out" || { fail "$prog round $round: detach said: $(tr '\n' ' ' <"$B/prof.out")"; return; }
        kill -0 "$pid" 2>/dev/null && tail_s=1 || tail_s=0
    elif [[ $variant == prof ]]; then
        sleep "$(python3 -c "import time; print(max(0, $AT - (time.time_ns() - $t) / 1e9))")"
        if ! /usr/bin/time -f "%e %U %S" -o "$SHM/ptime" \
            $EP prof -p "$pid" -d "$WINDOW" -k "$K" --epoch "$EPOCH" -o "$B/$prog-report.txt" \
            >"$B/prof.out" 2>"$B/prof.err"; then
            fail "$prog round $round: prof -p failed: $(cat "$B/prof.out" "$B/prof.err" | tr '\n' ' ')"
            return
        fi
        read -r pw pu ps <"$SHM/ptime"
        pc=$(python3 -c "print(f'{$pu + $ps:.2f}')")
        stall=$(sed -n 's/.*stopped \([0-9.]*\) ms.*/\1/p' "$B/prof.out")
        [ -n "$stall" ] || stall="?"
        # the report's rows that are the program's own functions
        fns=$(grep -cE "$(want_of "$prog")" "$B/$prog-report.txt" || true)
        [ "$fns" -gt 0 ] || fatal "$prog: the report $B/$prog-report.txt names none of: $(want_of "$prog")"
        kill -0 "$pid" 2>/dev/null && tail_s=1 || tail_s=0 # still running after prof: the window was inside
    fi
    local st
    wait "$tpid" && st=0 || st=$?
    if ((st)); then
        echo "attach_real: $prog round $round ($variant): the program ended with status $st ($(tr '\n' ' ' <"$SHM/time"));" \
            "the command said: $(cat "$B/prof.out" "$B/prof.err" 2>/dev/null | tr '\n' ' ')" | tee -a "$B/failures.txt" >&2
        echo "$prog $variant FAIL - - - - - - - $round"
        return
    fi
    read -r w u s <<<"$(tail -1 "$SHM/time")"
    if [ "$prog" = lua ]; then sum=$(sed 's/, .*//' "$SHM/out" | md5sum | cut -c1-12); else sum=$(md5sum <"$SHM/out" | cut -c1-12); fi
    echo "$prog $variant $w $(python3 -c "print(f'{$u + $s:.2f}')") $pw $pc $stall $sum $fns $tail_s $3"
}
: >"$B/runs.txt"
: >"$B/load.txt"
: >"$B/failures.txt"
for prog in $PROGRAMS; do
    echo "$prog start $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)" >>"$B/load.txt"
    for ((r = 0; r < ROUNDS; r++)); do
        for ((i = 0; i < ${#VARIANTS[@]}; i++)); do
            one "$prog" "${VARIANTS[$(((i + r) % ${#VARIANTS[@]}))]}" "$r"
        done
    done | tee -a "$B/runs.txt"
done
echo "end $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)" >>"$B/load.txt"
python3 - "$B/runs.txt" "$WINDOW" <<'PY' | tee "$B/summary.txt"
import statistics as st, sys
rows = [l.split() for l in open(sys.argv[1])]
window = float(sys.argv[2])
med = st.median
for prog in dict.fromkeys(r[0] for r in rows):
    fails = [r for r in rows if r[0] == prog and r[2] == "FAIL"]
    bad = {r[10] for r in fails}
    mine = [r for r in rows if r[0] == prog and r[10] not in bad]
    by = {}  # variant -> round -> row
    for r in mine:
        by.setdefault(r[1], {})[r[10]] = r
    plain = by["plain"]
    sums = {r[7] for r in mine}
    if fails:
        print(f"{prog}: FAILED runs: {' '.join(f'round {r[10]} {r[1]}' for r in fails)} (failures.txt); "
              f"those rounds are left out")
    print(f"{prog}: {len(plain)} rounds; output {'identical' if len(sums) == 1 else 'DIFFERS: ' + ' '.join(sorted(sums))}")
    print(f"  plain: wall {med(float(q[2]) for q in plain.values()):.2f} s, CPU {med(float(q[3]) for q in plain.values()):.2f} s")
    for v in ("attach", "prof"):
        if v not in by:
            continue
        runs = by[v]
        rs = [k for k in runs if k in plain]
        wall = [float(runs[k][2]) / float(plain[k][2]) for k in rs]
        cpu = [float(runs[k][3]) / float(plain[k][3]) for k in rs]
        dcpu = [float(runs[k][3]) - float(plain[k][3]) for k in rs]
        dwall = [float(runs[k][2]) - float(plain[k][2]) for k in rs]
        stall = [float(p[6]) for p in runs.values() if p[6] not in "-?"]
        inside = sum(p[9] == "1" for p in runs.values())
        print(f"  {v}: wall {med(float(p[2]) for p in runs.values()):.2f} s, ratio median {med(wall):.3f} "
              f"(min {min(wall):.3f}, max {max(wall):.3f}), added {med(dwall):+.2f} s; "
              f"CPU {med(float(p[3]) for p in runs.values()):.2f} s, ratio median {med(cpu):.3f} "
              f"(min {min(cpu):.3f}, max {max(cpu):.3f}), added {med(dcpu):+.2f} s "
              f"(per round {' '.join(f'{d:+.2f}' for d in dcpu)})")
        print(f"    its command: wall {med(float(p[4]) for p in runs.values()):.2f} s, "
              f"CPU {med(float(p[5]) for p in runs.values()):.2f} s; stall median {med(stall):.2f} ms "
              f"(min {min(stall):.2f}, max {max(stall):.2f}); program still running after it in {inside} of {len(runs)}")
        if v == "prof":
            print(f"    report rows naming its functions: {min(int(p[8]) for p in runs.values())}-"
                  f"{max(int(p[8]) for p in runs.values())}; added CPU / window: {med(dcpu) / window * 100:+.1f}%")
    if "attach" in by and "prof" in by:
        rs = [k for k in by["prof"] if k in by["attach"]]
        d = [float(by["prof"][k][3]) - float(by["attach"][k][3]) for k in rs]
        print(f"  prof - attach, CPU per round: median {med(d):+.2f} s = {med(d) / window * 100:+.1f}% of the {window:g} s window "
              f"(per round {' '.join(f'{x:+.2f}' for x in d)})")
PY
