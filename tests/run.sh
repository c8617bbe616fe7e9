#!/usr/bin/env bash
# tests/run.sh [FILTER] - build and run every test case (or those whose name
# contains FILTER). Each case is one build + run; its log is in build/tests/.
# The last line is "N passed, N failed, N skipped"; the exit status is 1 if
# any failed. A case that cannot run here (a missing package, no uprobes)
# exits 77 after printing "skipped: why"; it is counted apart, never passed.
# Drivers: every tests/drivers/*.sh is sourced (each adds its own cases).
set -u
cd "$(dirname "$0")/.."
B=build/tests
mkdir -p "$B"
FILTER=${1:-}
WARN="-Wall -Wextra -Werror"
INC="-Iinclude -Itests"
pass=0 fail=0 skip=0 failed="" skipped=""

# case NAME CMD...: run CMD (a shell function or command) as one test case.
case_() {
    local name=$1
    shift
    [[ -n $FILTER && $name != *"$FILTER"* ]] && return 0
    local rc=0
    (CASE=$name; "$@") >"$B/$name.log" 2>&1 || rc=$?
    if [[ $rc -eq 0 ]]; then
        pass=$((pass + 1))
        echo "ok   $name"
    elif [[ $rc -eq 77 ]] && grep -q '^skipped: ' "$B/$name.log"; then
        skip=$((skip + 1))
        skipped="$skipped $name"
        echo "skip $name: $(grep -m1 '^skipped: ' "$B/$name.log" | cut -c10-)"
    else
        fail=$((fail + 1))
        failed="$failed $name"
        echo "FAIL $name"
        tail -n 25 "$B/$name.log" | sed 's/^/     | /'
    fi
}
# shared LOCK CMD...: run CMD holding the lock build/tests/.LOCK.lock. For a
# build whose output several cases use (build/edgeprobe, control_server):
# cases that run at once must not run a program while another rewrites it.
shared() {
    local lock=$B/.$1.lock
    shift
    { flock 9 && "$@"; } 9>"$lock"
}
# unit NAME CC FLAGS SRC...: compile and run a single-program test.
unit() {
    local name=$1 cc=$2 flags=$3
    shift 3
    $cc $flags $WARN $INC -pthread "$@" -o "$B/$name" && timeout 300 "./$B/$name"
}
# The compiler/std/optimisation matrix every unit test runs in.
MATRIX="gcc:-std=c99:-O0 gcc:-std=c11:-O2 clang:-std=gnu99:-O0 clang:-std=c17:-O2"
matrix() {
    local test=$1 src=$2 extra=${3:-} m cc std opt
    for m in $MATRIX; do
        IFS=: read -r cc std opt <<<"$m"
        case_ "$test-$cc$std$opt" unit "$test-$cc$std$opt" "$cc" "$std $opt $extra" "$src"
    done
}

# ---- unit tests, whole matrix --------------------------------------------
matrix core tests/t_core.c
matrix tamper tests/t_tamper.c
matrix concurrency tests/t_concurrency.c
for t in patch handlers; do
    [[ -f tests/t_$t.c ]] && matrix "$t" "tests/t_$t.c"
done
case_ core-nop8-gcc unit core-nop8-gcc gcc "-O2 -DEDGEPROBE_SITE_BYTES=8" tests/t_core.c
case_ core-nop8-clang unit core-nop8-clang clang "-O0 -DEDGEPROBE_SITE_BYTES=8" tests/t_core.c
case_ core-strict-wx unit core-strict-wx gcc "-O2 -DEDGEPROBE_WX_STRICT=1" tests/t_core.c
# handler sync in a child forked while a parent thread was inside a handler
case_ fork-sync-gcc unit fork-sync-gcc gcc "-O2" tests/t_fork_sync.c
case_ fork-sync-clang unit fork-sync-clang clang "-O0" tests/t_fork_sync.c

# ---- start-up enabling ----------------------------------------------------
# each case builds its own program: $CASE is the running case's name
env_build() { gcc -O2 $WARN $INC tests/t_env.c -o "$B/t_env-$CASE"; }
env_ok() { env_build && EDGEPROBE_ENABLE="env_a*,env_c" "./$B/t_env-$CASE" env_a1=1 env_a2=1 env_b=0 env_c=1; }
env_none() { env_build && env -u EDGEPROBE_ENABLE "./$B/t_env-$CASE" env_a1=0 env_a2=0 env_b=0 env_c=0; }
env_malformed() {
    env_build || return 1
    EDGEPROBE_ENABLE="env_[x,env_c,,env_b\\" "./$B/t_env-$CASE" env_a1=0 env_b=0 env_c=1 2>"$B/env_err.txt" || return 1
    cat "$B/env_err.txt"
    grep -q 'EDGEPROBE_ENABLE entry 1 "env_\[x" ignored: malformed glob' "$B/env_err.txt" &&
        grep -q 'entry 3 "" ignored' "$B/env_err.txt" && grep -q 'entry 4' "$B/env_err.txt"
}
case_ env-enable env_ok
case_ env-unset env_none
case_ env-malformed env_malformed

# ---- several objects: TUs, a linked library, dlopen/dlclose; three linkers
multi() {
    local cc=$1 ld=$2 opt=$3 d="$B/multi-$1-$2$3"
    local f="$opt $WARN $INC -Itests/multi -fuse-ld=$ld"
    mkdir -p "$d"
    $cc $f -fPIC -shared tests/multi/liba.c -o "$d/libmulti_a.so" &&
        $cc $f -fPIC -shared tests/multi/libb.c -o "$d/libmulti_b.so" &&
        $cc $f tests/multi/main.c tests/multi/tu2.c -L"$d" -lmulti_a -Wl,-rpath,"$PWD/$d" -ldl -o "$d/t_multi" &&
        "./$d/t_multi" "$PWD/$d/libmulti_b.so"
}
for m in gcc:bfd:-O2 gcc:gold:-O2 gcc:lld:-O0 clang:bfd:-O0 clang:gold:-O2 clang:lld:-O2; do
    IFS=: read -r cc ld opt <<<"$m"
    case_ "multi-$cc-$ld$opt" multi "$cc" "$ld" "$opt"
done

# ---- layout, as the disassembler sees it -----------------------------------
# Every record points at the first byte of a NOP5 that objdump decodes as one
# instruction, inside one cache line.
layout_objdump() {
    gcc -O2 -no-pie $WARN $INC tests/t_core.c -o "$B/t_core_nopie" &&
        python3 tests/check_layout.py "$B/t_core_nopie"
}
case_ layout-objdump layout_objdump

# ---- the table survives gc-sections, LTO, and a custom linker script --------
case_ gc-sections-gcc unit gc-gcc gcc "-O2 -ffunction-sections -fdata-sections -Wl,--gc-sections" tests/t_core.c
case_ gc-sections-clang-lld unit gc-clang clang "-O2 -ffunction-sections -fdata-sections -fuse-ld=lld -Wl,--gc-sections" tests/t_core.c
case_ lto-gcc unit lto-gcc gcc "-O2 -flto" tests/t_core.c
case_ lto-clang unit lto-clang clang "-O2 -flto -fuse-ld=lld" tests/t_core.c
case_ linker-script-bfd unit ld-bfd gcc "-O2 -fuse-ld=bfd -Wl,-T,linker/edgeprobe.ld -Wl,--gc-sections -ffunction-sections" tests/t_core.c
case_ linker-script-lld unit ld-lld clang "-O2 -fuse-ld=lld -Wl,-T,linker/edgeprobe.ld" tests/t_core.c

# ---- C++, freestanding, sanitizers, install ----------------------------------
cxx() { $1 $2 -O2 $WARN -Iinclude -pthread tests/t_cxx.cc -o "$B/t_cxx-$1$2" && "./$B/t_cxx-$1$2"; }
case_ cxx-g++11 cxx g++ -std=c++11
case_ cxx-g++17 cxx g++ -std=c++17
case_ cxx-clang++17 cxx clang++ -std=c++17
freestanding() {
    gcc -O2 $WARN -ffreestanding -nostdinc -isystem "$(gcc -print-file-name=include)" -Iinclude \
        -c tests/t_freestanding.c -o "$B/t_freestanding.o" &&
        gcc "$B/t_freestanding.o" -o "$B/t_freestanding" && "./$B/t_freestanding"
}
case_ freestanding freestanding
SAN="-O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
case_ asan-ubsan-core unit asan-core gcc "$SAN" tests/t_core.c
case_ asan-ubsan-concurrency unit asan-conc gcc "$SAN" tests/t_concurrency.c
[[ -f tests/t_patch.c ]] && case_ asan-ubsan-patch unit asan-patch gcc "$SAN" tests/t_patch.c
[[ -f tests/t_handlers.c ]] && case_ asan-ubsan-handlers unit asan-handlers gcc "$SAN" tests/t_handlers.c
install_check() {
    local p="$PWD/$B/prefix"
    rm -rf "$p" && shared tools make -s install PREFIX="$p" &&
        test -f "$p/include/edgeprobe.h" && test -f "$p/share/edgeprobe/edgeprobe.ld" &&
        grep -q "^Cflags: -I\${includedir}" "$p/lib/pkgconfig/edgeprobe.pc" &&
        gcc -O2 $(PKG_CONFIG_PATH="$p/lib/pkgconfig" pkg-config --cflags edgeprobe 2>/dev/null || echo "-I$p/include") \
            examples/demo.c -pthread -o "$B/demo-installed"
}
case_ install install_check
case_ demo make -s demo

# ---- issue 3/4 programs with their own drivers -------------------------------
for driver in tests/drivers/*.sh; do
    source "$driver"
done

echo "failed:${failed:- none}"
echo "skipped:${skipped:- none}"
echo "$pass passed, $fail failed, $skip skipped"
[[ $fail -eq 0 ]]
