# tests/drivers/embedded.sh - sourced by tests/run.sh (issue 11): the header
# with no libc at all, the EDGEPROBE_CORE_ONLY configuration, and the core
# suite on aarch64 under qemu-aarch64.

# ---- no libc at all (x86-64 here; aarch64 below) ---------------------------
# tests/t_nolibc.c brings its own _start, system calls and memcpy/memcmp/
# memset; the program must link with nothing and have no interpreter.
NOLIBC_FLAGS="-ffreestanding -fno-stack-protector -nostdlib -static $WARN $INC"
nolibc() {
    local exe="$B/t_nolibc-$1$2"
    $1 $2 $NOLIBC_FLAGS tests/t_nolibc.c -o "$exe" || return 1
    if readelf -lW "$exe" | grep -q 'INTERP\|DYNAMIC'; then
        echo "not a static program"
        return 1
    fi
    "./$exe"
}
case_ nolibc-gcc-O0 nolibc gcc -O0
case_ nolibc-gcc-O2 nolibc gcc -O2
case_ nolibc-clang-O2 nolibc clang -O2
case_ nolibc-gcc-Os-core-only nolibc gcc "-Os -DEDGEPROBE_CORE_ONLY"
case_ nolibc-clang-O0-core-only nolibc clang "-O0 -DEDGEPROBE_CORE_ONLY"

# ---- the back end's site forms against independently written encodings ----
case_ arch-forms-gcc unit arch-forms-gcc gcc -O2 tests/t_arch.c
case_ arch-forms-clang unit arch-forms-clang clang -O0 tests/t_arch.c

# ---- EDGEPROBE_CORE_ONLY: markers, registry and handlers without the x86
# patch API; the same tests pass, and the left-out API refuses to compile.
for t in core tamper concurrency handlers; do
    case_ "core-only-$t-gcc" unit "core-only-$t-gcc" gcc "-O2 -DEDGEPROBE_CORE_ONLY" "tests/t_$t.c"
    case_ "core-only-$t-clang" unit "core-only-$t-clang" clang "-O0 -DEDGEPROBE_CORE_ONLY" "tests/t_$t.c"
done
# x86_only_refused CC: a call of edgeprobe_patch, and EDGEPROBE_PROVIDER,
# fail to compile with CC and say that they are x86-64 only.
x86_only_refused() {
    local cc=$1 src="$B/x86_only-$CASE.c" out="$B/x86_only-$CASE.txt"
    printf '#include "edgeprobe.h"\nint main(void) { static unsigned char b[1]; return edgeprobe_patch(b, b, 1); }\n' >"$src"
    if $cc -O2 $INC -c "$src" -o "$B/x86_only-$CASE.o" 2>"$out"; then
        echo "edgeprobe_patch compiled with $cc"
        return 1
    fi
    grep -q 'x86-64 only' "$out" || { cat "$out"; return 1; }
    printf '#define EDGEPROBE_IMPLEMENTATION\n#define EDGEPROBE_PROVIDER\n#include "edgeprobe.h"\n' >"$src"
    if $cc -O2 $INC -c "$src" -o "$B/x86_only-$CASE.o" 2>"$out"; then
        echo "EDGEPROBE_PROVIDER compiled with $cc"
        return 1
    fi
    grep -q 'provider is x86-64 only' "$out" || { cat "$out"; return 1; }
}
# The control: the same call compiles on x86-64 by default, so the refusal
# above is the configuration's doing.
x86_only_core_only() {
    printf '#include "edgeprobe.h"\nint main(void) { static unsigned char b[1]; return edgeprobe_patch(b, b, 1); }\n' >"$B/x86_full.c" &&
        gcc -O2 $INC -c "$B/x86_full.c" -o "$B/x86_full.o" &&
        x86_only_refused "gcc -DEDGEPROBE_CORE_ONLY" && x86_only_refused "clang -DEDGEPROBE_CORE_ONLY"
}
case_ core-only-x86-api-refused x86_only_core_only

# ---- aarch64 under qemu-aarch64 -------------------------------------------
# The core suite cross-built for aarch64 and run under qemu-aarch64 (user
# mode): core (every site's bytes checked after each enable and disable),
# tamper, concurrency, handlers, environment, several objects with dlopen,
# the site layout, no libc, C++, and the refusal of the x86-only API. gcc,
# and clang --target=aarch64-linux-gnu. `make test-aarch64` runs only these.
# Without the cross tools one case prints "skipped: ..." and exits 77.
# qemu translates code and drops its translations when the code is written:
# a pass shows that the logic is right, not how hardware fetches (README,
# Limitations).
A64_SYSROOT=${A64_SYSROOT:-/usr/aarch64-linux-gnu}
A64_GCC=aarch64-linux-gnu-gcc
A64_CLANG="clang --target=aarch64-linux-gnu"
A64_PACKAGES="gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user (and g++-aarch64-linux-gnu for C++)"

# What is missing of the cross compiler, its libc and qemu (empty: nothing).
a64_missing() {
    command -v $A64_GCC >/dev/null || echo -n " $A64_GCC"
    [[ -e $A64_SYSROOT/lib/libc.so.6 && -e $A64_SYSROOT/include/stdio.h ]] || echo -n " $A64_SYSROOT"
    command -v qemu-aarch64 >/dev/null || echo -n " qemu-aarch64"
}
a64_skip() {
    echo "skipped: no aarch64 tools (missing:$(a64_missing)); install $A64_PACKAGES, or run make test-aarch64 as root"
    exit 77
}
# a64_cc gcc|clang: the cross compiler command.
a64_cc() { [[ $1 == clang ]] && echo "$A64_CLANG" || echo "$A64_GCC"; }
a64_run() { QEMU_LD_PREFIX=$A64_SYSROOT timeout 300 qemu-aarch64 -U LD_PRELOAD "$@"; } # not the host's crash logger

# a64_unit NAME gcc|clang FLAGS SRC: build one test program and run it.
a64_unit() {
    local name=$1 cc=$2 flags=$3 src=$4
    $(a64_cc "$cc") $flags $WARN $INC -pthread "$src" -o "$B/a64-$name" && a64_run "./$B/a64-$name"
}
# EDGEPROBE_ENABLE before main: set, unset, and with a malformed entry.
a64_env() {
    local t="./$B/a64-t_env-$1"
    $(a64_cc "$1") -O2 $WARN $INC tests/t_env.c -o "$t" || return 1
    EDGEPROBE_ENABLE="env_a*,env_c" a64_run "$t" env_a1=1 env_a2=1 env_b=0 env_c=1 || return 1
    env -u EDGEPROBE_ENABLE QEMU_LD_PREFIX=$A64_SYSROOT qemu-aarch64 -U LD_PRELOAD "$t" env_a1=0 env_a2=0 env_b=0 env_c=0 || return 1
    EDGEPROBE_ENABLE="env_[x,env_c" a64_run "$t" env_a1=0 env_b=0 env_c=1 2>"$B/a64-env-err-$1.txt" || return 1
    grep -q 'EDGEPROBE_ENABLE entry 1 "env_\[x" ignored: malformed glob' "$B/a64-env-err-$1.txt"
}
# Two TUs, a linked library, dlopen/dlclose; GNU ld, gold and lld.
a64_multi() {
    local cc=$1 ld=$2 opt=$3 d="$B/a64-multi-$1-$2$3" c
    local f="$opt $WARN $INC -Itests/multi -fuse-ld=$ld"
    c=$(a64_cc "$cc")
    mkdir -p "$d"
    $c $f -fPIC -shared tests/multi/liba.c -o "$d/libmulti_a.so" &&
        $c $f -fPIC -shared tests/multi/libb.c -o "$d/libmulti_b.so" &&
        $c $f tests/multi/main.c tests/multi/tu2.c -L"$d" -lmulti_a -Wl,-rpath,"$PWD/$d" -ldl -o "$d/t_multi" &&
        a64_run "./$d/t_multi" "$PWD/$d/libmulti_b.so"
}
# Every record points at a 4-byte `nop`, as the cross objdump decodes it.
a64_layout() {
    $A64_GCC -O2 -no-pie $WARN $INC tests/t_core.c -o "$B/a64-t_core_nopie" &&
        OBJDUMP=aarch64-linux-gnu-objdump READELF=aarch64-linux-gnu-readelf \
            python3 tests/check_layout.py "$B/a64-t_core_nopie"
}
# No libc at all. aarch64 needs libgcc (-lgcc) for __builtin___clear_cache;
# -mno-outline-atomics keeps the atomics inline (libgcc's out-of-line ones
# would want getauxval from a C library).
a64_nolibc() {
    $(a64_cc "$1") $2 $NOLIBC_FLAGS -mno-outline-atomics tests/t_nolibc.c -lgcc -o "$B/a64-t_nolibc-$1$2" &&
        a64_run "./$B/a64-t_nolibc-$1$2"
}
# The store is followed by cache maintenance: edgeprobe__cas_bytes calls
# libgcc's __clear_cache. qemu would not notice its absence (a test run
# passes without it), so the disassembly is checked instead.
a64_cache_maintenance() {
    local f="$B/a64-cas.txt"
    $A64_GCC -O2 $WARN $INC -pthread tests/t_core.c -o "$B/a64-t_core_cm" &&
        aarch64-linux-gnu-objdump -d "$B/a64-t_core_cm" |
        awk '/<edgeprobe__cas_bytes>:/ { on = 1; next } on && /^$/ { exit } on' >"$f" || return 1
    grep -E 'bl\s+[0-9a-f]+ <(__clear_cache|__aarch64_sync_cache_range)' "$f" || { cat "$f"; return 1; }
}
# C++ (the header's clang++ template path too), when the cross g++ and its
# libstdc++ are there (g++-aarch64-linux-gnu; make test-aarch64 installs it).
a64_cxx() {
    command -v aarch64-linux-gnu-g++ >/dev/null ||
        { echo "skipped: no aarch64-linux-gnu-g++ (install g++-aarch64-linux-gnu)"; exit 77; }
    $1 $2 -O2 $WARN -Iinclude -pthread tests/t_cxx.cc -o "$B/a64-t_cxx$2" && a64_run "./$B/a64-t_cxx$2"
}

a64_cases() {
    local m cc std opt t ld
    for m in gcc:-std=c99:-O0 gcc:-std=c11:-O2 clang:-std=gnu99:-O0 clang:-std=c17:-O2; do
        IFS=: read -r cc std opt <<<"$m"
        for t in core tamper concurrency handlers; do
            case_ "aarch64-$t-$cc$std$opt" a64_unit "$t-$cc$std$opt" "$cc" "$std $opt" "tests/t_$t.c"
        done
    done
    case_ aarch64-core-strict-wx a64_unit core-strict-wx gcc "-O2 -DEDGEPROBE_WX_STRICT=1" tests/t_core.c
    case_ aarch64-core-site-bytes-4 a64_unit core-site-bytes-4 clang "-O2 -DEDGEPROBE_SITE_BYTES=4" tests/t_core.c
    case_ aarch64-arch-forms-gcc a64_unit arch-forms-gcc gcc -O2 tests/t_arch.c
    case_ aarch64-arch-forms-clang a64_unit arch-forms-clang clang -O0 tests/t_arch.c
    case_ aarch64-env-gcc a64_env gcc
    case_ aarch64-env-clang a64_env clang
    for m in gcc:bfd:-O2 gcc:gold:-O0 clang:bfd:-O0 clang:lld:-O2; do
        IFS=: read -r cc ld opt <<<"$m"
        case_ "aarch64-multi-$cc-$ld$opt" a64_multi "$cc" "$ld" "$opt"
    done
    case_ aarch64-cxx-g++11 a64_cxx aarch64-linux-gnu-g++ -std=c++11
    case_ aarch64-cxx-clang++17 a64_cxx "clang++ --target=aarch64-linux-gnu" -std=c++17
    case_ aarch64-layout-objdump a64_layout
    case_ aarch64-cache-maintenance-emitted a64_cache_maintenance
    case_ aarch64-nolibc-gcc-O2 a64_nolibc gcc -O2
    case_ aarch64-nolibc-gcc-O0 a64_nolibc gcc -O0
    case_ aarch64-nolibc-clang-O2 a64_nolibc clang -O2
    case_ aarch64-x86-only-api-refused x86_only_refused "$A64_GCC"
    case_ aarch64-x86-only-api-refused-clang x86_only_refused "$A64_CLANG"
}
if [[ -z $(a64_missing) ]]; then
    a64_cases
else
    case_ aarch64 a64_skip
fi
