#!/usr/bin/env bash
# bench/real/build.sh [VARIANT...] - build the real programs (bzip2, lua,
# zstd: REAL_PROGRAMS) from their Debian sources, in each variant:
#   plain    gcc -O2
#   fpe      gcc -O2 -fpatchable-function-entry=5   (NOPs at every function
#            entry: what `edgeprobe prof` and uftrace patch at run time)
#   stub     gcc -O2 -finstrument-functions -fno-optimize-sibling-calls -rdynamic
#            + empty __cyg_profile_func_* hooks   (classic instrumentation cost)
#   instr    gcc -O2 -finstrument-functions -fno-optimize-sibling-calls -rdynamic
#            + tools/prof_agent.c linked in (edgeprobe provider)
#   plainns  gcc -O2 -fno-optimize-sibling-calls     (for reference)
#   instrtc  as instr without -fno-optimize-sibling-calls (void functions then
#            tail-call the exit hook; the profiler leaves those sites alone)
#   cplain   clang -O2
#   cfpe     clang -O2 -fpatchable-function-entry=5
#   cinstr   clang -O2 -finstrument-functions-after-inlining
#            -fno-optimize-sibling-calls -rdynamic + the profiler (hooks only
#            in functions that remain after inlining)
# Output: build/real/<variant>/{bzip2,lua,zstd}. Needs bench/real/fetch.sh
# first. Objects are rebuilt only when a variant's flags change.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
CC=${REAL_CC:-gcc}
VARIANTS=${*:-plain fpe stub instr cplain cfpe}
PROGRAMS=${REAL_PROGRAMS:-bzip2 lua zstd}
JOBS=$(nproc)
src_dir() { ls -d bench/real/src/"$1"-*/ | head -1; }
BZ=$(src_dir bzip2)
LUA=$(src_dir lua5.4)
ZS=$(src_dir libzstd)
# Debian's lua patch includes a header its packaging generates
mkdir -p build/real/luainc
echo '#define DEB_HOST_MULTIARCH "x86_64-linux-gnu"' > build/real/luainc/lua5.4-deb-multiarch.h

# Per program: its sources (relative to the source tree), compile flags,
# link flags.
sources() {
    case $1 in
    bzip2) for f in blocksort huffman crctable randtable compress decompress bzlib bzip2; do echo "$BZ$f.c"; done ;;
    lua) for f in lapi lcode lctype ldebug ldo ldump lfunc lgc llex lmem lobject lopcodes lparser lstate \
        lstring ltable ltm lundump lvm lzio lauxlib lbaselib lcorolib ldblib liolib lmathlib loadlib loslib \
        lstrlib ltablib lutf8lib linit lua; do echo "${LUA}src/$f.c"; done ;;
    zstd) ls "$ZS"lib/common/*.c "$ZS"lib/compress/*.c "$ZS"lib/decompress/*.c "$ZS"lib/decompress/*.S \
        "$ZS"lib/dictBuilder/*.c "$ZS"programs/*.c ;;
    esac
}
prog_cflags() {
    case $1 in
    bzip2) echo "-D_FILE_OFFSET_BITS=64" ;;
    lua) echo "-std=gnu99 -DLUA_COMPAT_5_3 -DLUA_USE_LINUX -Ibuild/real/luainc" ;;
    zstd) echo "-DZSTD_MULTITHREAD -DZSTD_LEGACY_SUPPORT=0 -DBACKTRACE_ENABLE=0 -I${ZS}lib -I${ZS}lib/common" \
        "-I${ZS}lib/compress -I${ZS}lib/dictBuilder -pthread" ;;
    esac
}
prog_libs() {
    case $1 in
    lua) echo "-lm -ldl" ;;
    zstd) echo "-pthread" ;;
    esac
}
# object name: the source path below the tree, flattened (zstd has several
# directories)
obj_name() { local p=${1#bench/real/src/*/}; p=${p//\//_}; echo "${p%.*}.o"; }

build_variant() { # $1 variant
    local v=$1 CF LDF EXTRA VCC O STAMP p f H
    case $v in
    plain | cplain) CF="-O2" LDF="" EXTRA="" ;;
    fpe | cfpe) CF="-O2 -fpatchable-function-entry=5" LDF="" EXTRA="" ;;
    plainns) CF="-O2 -fno-optimize-sibling-calls" LDF="" EXTRA="" ;;
    stub) CF="-O2 -finstrument-functions -fno-optimize-sibling-calls" LDF="-rdynamic" EXTRA=stub ;;
    instr) CF="-O2 -finstrument-functions -fno-optimize-sibling-calls" LDF="-rdynamic -pthread" EXTRA=prof ;;
    instrtc) CF="-O2 -finstrument-functions" LDF="-rdynamic -pthread" EXTRA=prof ;;
    cinstr) CF="-O2 -finstrument-functions-after-inlining -fno-optimize-sibling-calls" LDF="-rdynamic -pthread" EXTRA=prof ;;
    *) echo "build: unknown variant $v" >&2; exit 2 ;;
    esac
    VCC=$CC
    case $v in c*) VCC=${REAL_CLANG:-clang} ;; esac
    O=build/real/$v
    echo "build: $v: $VCC $CF, link $LDF ($PROGRAMS)"
    STAMP="$VCC $CF"
    if [ "$(cat "$O/stamp" 2>/dev/null)" != "$STAMP" ]; then rm -rf "$O"; fi
    for p in $PROGRAMS; do mkdir -p "$O/$p.obj"; done
    # compile in parallel (the hooks file never gets -finstrument-functions)
    {
        for p in $PROGRAMS; do
            for f in $(sources "$p"); do
                [ -f "$O/$p.obj/$(obj_name "$f")" ] && continue
                echo "$VCC $CF $(prog_cflags "$p") -w -c $f -o $O/$p.obj/$(obj_name "$f")"
            done
        done
        case $EXTRA in
        stub) echo "$VCC -O2 -c bench/real/stub_hooks.c -o $O/hooks.o" ;;
        prof) echo "$VCC -O2 -Wall -Iinclude -c tools/prof_agent.c -o $O/hooks.o" ;;
        esac
    } | xargs -r -P "$JOBS" -I{} sh -c '{}'
    echo "$STAMP" > "$O/stamp"
    H=""
    [ -n "$EXTRA" ] && H="$O/hooks.o"
    for p in $PROGRAMS; do
        # shellcheck disable=SC2046
        $VCC $LDF -o "$O/$p" "$O/$p.obj"/*.o $H $(prog_libs "$p")
    done
}

for v in $VARIANTS; do build_variant "$v"; done
