#!/usr/bin/env bash
# bench/real/build.sh [VARIANT...] - build bzip2 and lua in each variant:
#   plain    -O2
#   plainns  -O2 -fno-optimize-sibling-calls     (the flag alone, for reference)
#   stub     -O2 -finstrument-functions -fno-optimize-sibling-calls -rdynamic
#            + empty __cyg_profile_func_* hooks   (classic instrumentation cost)
#   instr    -O2 -finstrument-functions -fno-optimize-sibling-calls -rdynamic
#            + examples/profiler/edgeprobe_profiler.c (edgeprobe provider)
#   instrtc  as instr without -fno-optimize-sibling-calls (void functions then
#            tail-call the exit hook; the profiler leaves those sites alone)
#   cplain   clang -O2
#   cinstr   clang -O2 -finstrument-functions-after-inlining
#            -fno-optimize-sibling-calls -rdynamic + the profiler (hooks only
#            in functions that remain after inlining)
# Output: build/real/<variant>/{bzip2,lua}. Needs bench/real/fetch.sh first.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
CC=${REAL_CC:-gcc}
VARIANTS=${*:-plain stub instr}
BZ=$(ls -d bench/real/src/bzip2-*/ | head -1)
LUA=$(ls -d bench/real/src/lua5.4-*/ | head -1)
BZ_SRC="blocksort huffman crctable randtable compress decompress bzlib bzip2"
LUA_SRC="lapi lcode lctype ldebug ldo ldump lfunc lgc llex lmem lobject lopcodes lparser lstate lstring
 ltable ltm lundump lvm lzio lauxlib lbaselib lcorolib ldblib liolib lmathlib loadlib loslib lstrlib
 ltablib lutf8lib linit lua"
JOBS=$(nproc)
# Debian's lua patch includes a header its packaging generates
mkdir -p build/real/luainc
echo '#define DEB_HOST_MULTIARCH "x86_64-linux-gnu"' > build/real/luainc/lua5.4-deb-multiarch.h

for v in $VARIANTS; do
    case $v in
    plain) CF="-O2" LDF="" EXTRA="" ;;
    plainns) CF="-O2 -fno-optimize-sibling-calls" LDF="" EXTRA="" ;;
    stub) CF="-O2 -finstrument-functions -fno-optimize-sibling-calls" LDF="-rdynamic" EXTRA=stub ;;
    instr) CF="-O2 -finstrument-functions -fno-optimize-sibling-calls" LDF="-rdynamic -pthread" EXTRA=prof ;;
    instrtc) CF="-O2 -finstrument-functions" LDF="-rdynamic -pthread" EXTRA=prof ;;
    cplain) CF="-O2" LDF="" EXTRA="" ;;
    cinstr) CF="-O2 -finstrument-functions-after-inlining -fno-optimize-sibling-calls" LDF="-rdynamic -pthread" EXTRA=prof ;;
    *) echo "build: unknown variant $v" >&2; exit 2 ;;
    esac
    VCC=$CC
    case $v in c*) VCC=${REAL_CLANG:-clang} ;; esac
    O=build/real/$v
    mkdir -p "$O/bzobj" "$O/luaobj"
    echo "build: $v: $VCC $CF, link $LDF"
    # the program objects are rebuilt only when the flags change (sources
    # are Debian's, fixed); the hooks are always rebuilt
    STAMP="$VCC $CF"
    if [ "$(cat "$O/stamp" 2>/dev/null)" != "$STAMP" ]; then
        rm -f "$O"/bzobj/*.o "$O"/luaobj/*.o
    fi
    # compile (the hooks file never gets -finstrument-functions)
    {
        for f in $BZ_SRC; do
            [ -f "$O/bzobj/$f.o" ] && continue
            echo "$VCC $CF -D_FILE_OFFSET_BITS=64 -w -c $BZ/$f.c -o $O/bzobj/$f.o"
        done
        for f in $LUA_SRC; do
            [ -f "$O/luaobj/$f.o" ] && continue
            echo "$VCC $CF -std=gnu99 -DLUA_COMPAT_5_3 -DLUA_USE_LINUX -Ibuild/real/luainc -w -c $LUA/src/$f.c -o $O/luaobj/$f.o"
        done
        case $EXTRA in
        stub) echo "$VCC -O2 -c bench/real/stub_hooks.c -o $O/hooks.o" ;;
        prof) echo "$VCC -O2 -Wall -Iinclude -c examples/profiler/edgeprobe_profiler.c -o $O/hooks.o" ;;
        esac
    } | xargs -r -P "$JOBS" -I{} sh -c '{}'
    echo "$STAMP" > "$O/stamp"
    H=""
    [ -n "$EXTRA" ] && H="$O/hooks.o"
    $VCC $LDF -o "$O/bzip2" "$O"/bzobj/*.o $H
    $VCC $LDF -o "$O/lua" "$O"/luaobj/*.o $H -lm -ldl
done
