# tests/drivers/fprobe.sh - sourced by tests/run.sh: function probes on
# -fpatchable-function-entry=5 entries (tests/fprobe/), gcc and clang.
FP="-fpatchable-function-entry=5"
FPSRC=tests/fprobe

# t_func: handlers, registers, return values, longjmp, pthread_exit,
# recursion, signals, a flag-built library without the header, dlclose.
fprobe_func() {
    local cc=$1 opt=$2 d="$B/fprobe-$1$2"
    mkdir -p "$d"
    $cc $opt $FP -fPIC -shared $FPSRC/lib.c -o "$d/libfp.so" &&
        $cc $opt -g $WARN $INC $FP $FPSRC/t_func.c -pthread -ldl -o "$d/t_func" &&
        timeout 120 "./$d/t_func" run "$PWD/$d/libfp.so"
}
for m in gcc:-O0 gcc:-O2 clang:-O0 clang:-O2 "gcc:-O2 -no-pie" "clang:-O2 -no-pie" "gcc:-Os -falign-functions=1" "clang:-Os -falign-functions=1" "clang:-O3" "gcc:-O2 -flto" "clang:-O2 -flto -fuse-ld=lld" "gcc:-O2 -fcf-protection=full" "clang:-O2 -fcf-protection=full"; do
    IFS=: read -r cc opt <<<"$m"
    case_ "fprobe-func-$cc${opt// /}" fprobe_func "$cc" "$opt"
done

# Every function nm lists is a probe with the same name, and no more.
fprobe_nm() {
    local cc=$1 d="$B/fprobe-nm-$1"
    mkdir -p "$d"
    $cc -O2 $WARN $INC $FP $FPSRC/t_func.c -pthread -ldl -o "$d/t_func" &&
        "./$d/t_func" list >"$d/list.txt" && python3 $FPSRC/check_nm.py "$d/t_func" "$d/list.txt"
}
case_ fprobe-nm-gcc fprobe_nm gcc
case_ fprobe-nm-clang fprobe_nm clang

# When gcc's five one-byte NOPs may be rewritten (README: the rule), and
# the pages' permissions after a switch under the page policy WX (keep by
# default, or strict).
fprobe_rules() {
    local cc=$1 flags=$2 expect=$3 wx=${4:-keep} d="$B/fprobe-rules"
    mkdir -p "$d"
    local exe="$d/t_rules-$expect-$cc-$wx${flags//[ =]/}"
    $cc -O2 $WARN $INC $FP $flags -pthread $FPSRC/t_rules.c -o "$exe" && EDGEPROBE_WX=$wx "./$exe" "$expect"
}
case_ fprobe-rules-gcc-pie-mirror fprobe_rules gcc "" mirror
case_ fprobe-rules-gcc-pie-mirror-wx-strict fprobe_rules gcc "" mirror strict
case_ fprobe-rules-gcc-pie-mirror-bulk fprobe_rules gcc "-DEDGEPROBE_FUNC_BULK=1" mirror-threads
case_ fprobe-rules-gcc-pie-mirror-blocked fprobe_rules gcc "-DEDGEPROBE_FUNC_BULK=1" mirror-blocked
case_ fprobe-rules-clang-nop5 fprobe_rules clang "" nop5
case_ fprobe-rules-gcc-nopie-constructor fprobe_rules gcc "-no-pie" nop5
case_ fprobe-rules-gcc-nopie-single-threaded fprobe_rules gcc "-no-pie -DEDGEPROBE_FUNC_CTOR_CONVERT=0" single
case_ fprobe-rules-gcc-nopie-threads-refused fprobe_rules gcc "-no-pie -DEDGEPROBE_FUNC_CTOR_CONVERT=0" threads
# A program that will switch every function (the profiler) converts PIE
# entries too, at a single-threaded scan; with a thread running, or under
# strict W^X, they keep the mirror form (mirror-bulk above).
case_ fprobe-rules-gcc-pie-bulk-convert fprobe_rules gcc "-DEDGEPROBE_FUNC_BULK=1" single
case_ fprobe-rules-gcc-pie-bulk-wx-strict fprobe_rules gcc "-DEDGEPROBE_FUNC_BULK=1" mirror strict

# Mirror stubs across page boundaries: the page policy changed between two
# pages of one stub, and a line-straddling entry left in the one-byte form.
fprobe_mirror_pages() {
    local mode=$1 flags=$2 exe="$B/fprobe-rules/t_mirror_pages-$1"
    mkdir -p "$B/fprobe-rules"
    gcc -O2 $WARN $INC $FP $flags $FPSRC/t_mirror_pages.c $FPSRC/mirror_pages.S -o "$exe" && "./$exe" "$mode"
}
case_ fprobe-mirror-pages-policy fprobe_mirror_pages policy ""
case_ fprobe-mirror-pages-bulk fprobe_mirror_pages bulk "-DEDGEPROBE_FUNC_BULK=1"

# Executors call a function while its entry is switched, every form and split.
fprobe_stress() {
    $1 -O2 $WARN $INC -pthread $FPSRC/t_fstress.c -o "$B/t_fstress-$1" && timeout 120 "./$B/t_fstress-$1"
}
case_ fprobe-stress-gcc fprobe_stress gcc
case_ fprobe-stress-clang fprobe_stress clang
# The same with the stubs' unwind table registered (EDGEPROBE_FUNC_UNWIND_TABLE):
# signals that land in a stub or the skip path unwind into the function.
fprobe_stress_unwind() {
    gcc -O2 $WARN $INC -DEDGEPROBE_FUNC_UNWIND_TABLE=1 -pthread $FPSRC/t_fstress.c -o "$B/t_fstress-unwind" &&
        timeout 120 "./$B/t_fstress-unwind"
}
case_ fprobe-stress-unwind-table fprobe_stress_unwind
# A backtrace in a SIGPROF handler while the program unwinds too, with
# function probes in use (libgcc_s linked): must not hang (tests/fprobe/t_bt_signal.c).
fprobe_bt_signal() {
    gcc -O2 $WARN $INC $FP $FPSRC/t_bt_signal.c -Wl,--no-as-needed -lgcc_s -Wl,--as-needed -o "$B/t_bt_signal" &&
        timeout 60 "./$B/t_bt_signal"
}
case_ fprobe-backtrace-in-signal-handler fprobe_bt_signal

# C++ exceptions through functions whose exit is probed.
fprobe_exc() {
    $1 -std=c++17 -O2 $WARN $INC $FP -pthread $FPSRC/t_exc.cc -o "$B/t_exc-$1" && "./$B/t_exc-$1"
}
case_ fprobe-exceptions-g++ fprobe_exc g++
case_ fprobe-exceptions-clang++ fprobe_exc clang++

# Sanitizers on the whole path (the library itself is not instrumented).
fprobe_asan() {
    local d="$B/fprobe-asan"
    mkdir -p "$d"
    gcc -O1 $FP -fPIC -shared $FPSRC/lib.c -o "$d/libfp.so" &&
        gcc $SAN $WARN $INC $FP $FPSRC/t_func.c -pthread -ldl -o "$d/t_func" &&
        timeout 300 "./$d/t_func" run "$PWD/$d/libfp.so"
}
case_ fprobe-asan-ubsan fprobe_asan

# No object built with the flag: a clear error, nothing else changes.
fprobe_noflag() {
    printf '#define EDGEPROBE_IMPLEMENTATION\n#include "edgeprobe.h"\n#include <stdio.h>\nint main(void){int n=edgeprobe_func_scan();\nprintf("%%d %%s\\n",n,edgeprobe_strerror(n));return n!=EDGEPROBE_ENOFUNC;}\n' >"$B/noflag.c" &&
        gcc -O2 $WARN $INC "$B/noflag.c" -o "$B/noflag" && "./$B/noflag"
}
case_ fprobe-no-flag-enofunc fprobe_noflag

# The same harness must catch a naive protocol (gcc's NOPs overwritten byte
# by byte with a call): at least half of its runs crash.
fprobe_broken() {
    gcc -O2 $WARN $INC -pthread $FPSRC/t_fstress.c -o "$B/t_fstress-broken" && timeout 120 "./$B/t_fstress-broken" broken
}
case_ fprobe-stress-broken-protocol-is-detected fprobe_broken

# Frames left by longjmp under an unhooked caller, more than the shadow
# stack holds, and a tail call between hooked functions (tests/fprobe/t_stale.c).
fprobe_stale() {
    $1 -O2 $WARN $INC $FP $FPSRC/t_stale.c -pthread -o "$B/t_stale-$1" && timeout 120 "./$B/t_stale-$1"
}
case_ fprobe-stale-frames-gcc fprobe_stale gcc
case_ fprobe-stale-frames-clang fprobe_stale clang
