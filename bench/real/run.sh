#!/usr/bin/env bash
# bench/real/run.sh - time bzip2 and lua, plain and instrumented, with and
# without the edgeprobe profiler (hyperfine), then summarise.
# Run through `make -f bench/real.mk bench-real`; knobs (environment):
#   REAL_BZ_MB=50        size of the generated bzip2 input (MiB)
#   REAL_BZ_ROUNDS=3     rounds over all bzip2 configurations
#   REAL_LUA_ROUNDS=5    rounds over all lua configurations
#   REAL_LUA_N=8         bench.lua rounds per run (~0.2 s CPU each)
#   REAL_CONFIGS="plain stub off prof cplain coff cprof"   (add "none" for the
#                        provider's unbound path: every call looks up its site)
# Each round runs every configuration once, in a rotated order, so slow
# drifts of this shared machine hit all configurations alike.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
OUT=bench/out/real
mkdir -p "$OUT" bench/plots
BZ_MB=${REAL_BZ_MB:-50}
BZ_ROUNDS=${REAL_BZ_ROUNDS:-3}
LUA_ROUNDS=${REAL_LUA_ROUNDS:-5}
LUA_N=${REAL_LUA_N:-8}
CONFIGS=${REAL_CONFIGS:-plain stub off prof cplain coff cprof}
command -v hyperfine >/dev/null || apt-get install -y -qq hyperfine

# configuration -> binary directory and environment
bin_of() {
    case $1 in
    plain) echo plain ;; stub) echo stub ;; off | prof | none) echo instr ;;
    cplain) echo cplain ;; coff | cprof) echo cinstr ;;
    *) echo "run: unknown configuration $1" >&2; exit 2 ;;
    esac
}
env_of() { # $1 config, $2 summary file
    case $1 in
    off | coff) echo "EDGEPROBE_PROF_MODE=off EDGEPROBE_PROF_QUIET=1 EDGEPROBE_PROF_SUMMARY=$2" ;;
    prof | cprof) echo "EDGEPROBE_PROF_QUIET=1 EDGEPROBE_PROF_SUMMARY=$2" ;;
    none) echo "EDGEPROBE_PROF_MODE=none" ;;
    *) echo "" ;;
    esac
}

# ---- inputs and sanity checks -------------------------------------------
TEXT=$OUT/text${BZ_MB}.txt
[ -x build/real/gen_text ] || gcc -O2 -o build/real/gen_text bench/real/gen_text.c
[ -s "$TEXT" ] || build/real/gen_text "$BZ_MB" > "$TEXT"
cat "$TEXT" > /dev/null # warm the page cache
expect=$(build/real/plain/lua bench/real/bench.lua 1 | sed 's/,.*//')
for c in $CONFIGS; do
    b=build/real/$(bin_of "$c")
    got=$(env EDGEPROBE_PROF_QUIET=1 $(env_of "$c" /dev/null) "$b/lua" bench/real/bench.lua 1 | sed 's/,.*//')
    [ "$got" = "$expect" ] || { echo "run: $b/lua gives '$got', expected '$expect'" >&2; exit 1; }
    head -c 3000000 "$TEXT" | env EDGEPROBE_PROF_QUIET=1 $(env_of "$c" /dev/null) "$b/bzip2" -c |
        env EDGEPROBE_PROF_QUIET=1 $(env_of "$c" /dev/null) "$b/bzip2" -dc | cmp -s - <(head -c 3000000 "$TEXT") ||
        { echo "run: $b/bzip2 round trip failed" >&2; exit 1; }
done
echo "run: outputs checked for: $CONFIGS"

# ---- timing ------------------------------------------------------------
rounds() { # $1 program, $2 rounds
    local prog=$1 n=$2 r i c cmds
    rm -f "$OUT/$prog"-*.summary "$OUT/$prog"-round*.json
    read -r -a cfgs <<< "$CONFIGS"
    for ((r = 1; r <= n; r++)); do
        cmds=()
        for ((i = 0; i < ${#cfgs[@]}; i++)); do
            c=${cfgs[$(((i + r - 1) % ${#cfgs[@]}))]}
            b=build/real/$(bin_of "$c")
            e=$(env_of "$c" "$OUT/$prog-$c.summary")
            if [ "$prog" = bzip2 ]; then
                cmds+=(-n "$c" "$e $b/bzip2 -c $TEXT > $OUT/tmp-$c.bz2 && $e $b/bzip2 -dc $OUT/tmp-$c.bz2 > /dev/null")
            else
                cmds+=(-n "$c" "$e $b/lua bench/real/bench.lua $LUA_N > /dev/null")
            fi
        done
        echo "run: $prog round $r/$n"
        hyperfine --runs 1 --style basic --export-json "$OUT/$prog-round$r.json" "${cmds[@]}" > "$OUT/$prog-round$r.log" 2>&1
    done
    rm -f "$OUT"/tmp-*.bz2
}
rounds lua "$LUA_ROUNDS"
rounds bzip2 "$BZ_ROUNDS"

# ---- one profiled run each, with the report and the chart ---------------
EDGEPROBE_PROF_OUT=$OUT/lua-report.txt EDGEPROBE_PROF_SVG=bench/plots/real-lua-profile.svg EDGEPROBE_PROF_TOP=30 \
    build/real/instr/lua bench/real/bench.lua "$LUA_N" > /dev/null
EDGEPROBE_PROF_OUT=$OUT/bzip2-report.txt EDGEPROBE_PROF_SVG=bench/plots/real-bzip2-profile.svg EDGEPROBE_PROF_TOP=30 \
    build/real/instr/bzip2 -c "$TEXT" > /dev/null
EDGEPROBE_PROF_OUT=$OUT/clua-report.txt EDGEPROBE_PROF_TOP=30 \
    build/real/cinstr/lua bench/real/bench.lua "$LUA_N" > /dev/null

python3 bench/real/summarize.py "$OUT" "$CONFIGS"
