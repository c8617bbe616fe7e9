# tests/drivers/implementation.sh - sourced by tests/run.sh: one compiled
# copy of the implementation per executable or shared library.
#   - a program of several files, a linked library and a dlopen'ed plugin, in
#     every configuration people build with (tests/impl/);
#   - a 20-file program whose text is that of the one-file program plus its
#     sites: fails if any file carries a copy of the implementation;
#   - the link errors: none defined, or two in one object;
#   - the documentation of the header against its code (tests/check_docs.py);
#   - the old names of section >>renamed still build, with a warning.
IMPLSRC=tests/impl

# impl_build DIR CC FLAGS [nolib]: the program of tests/impl, with its two
# libraries unless nolib (a static program).
impl_build() {
    local d=$1 cc=$2 flags="$3 $WARN $INC -I$IMPLSRC -pthread"
    mkdir -p "$d"
    if [[ ${4:-} == nolib ]]; then
        $cc $flags -DNOLIB $IMPLSRC/main.c $IMPLSRC/a.c $IMPLSRC/b.c -o "$d/impl"
        return
    fi
    $cc $flags -fPIC -shared $IMPLSRC/lib.c -o "$d/libimpl.so" &&
        $cc $flags -fPIC -shared -DPLUGIN $IMPLSRC/lib.c -o "$d/plugin.so" &&
        $cc $flags $IMPLSRC/main.c $IMPLSRC/a.c $IMPLSRC/b.c -L"$d" -limpl -Wl,-rpath,"$PWD/$d" -ldl -o "$d/impl"
}
impl_run() {
    local name=$1 cc=$2 flags=$3 mode=${4:-} d="$B/impl-$1"
    impl_build "$d" "$cc" "$flags" "$mode" && "$d/impl" "$PWD/$d/plugin.so"
}
impl_cases() {
    local m name cc flags mode
    for m in "gcc:gcc:-O2" "clang:clang:-O2" "gcc-O0:gcc:-O0" \
        "gcc-hidden:gcc:-O2 -fvisibility=hidden" "clang-hidden:clang:-O2 -fvisibility=hidden" \
        "gcc-pie:gcc:-O2 -fPIE -pie" "gcc-nopie:gcc:-O2 -fno-PIE -no-pie" "gcc-static:gcc:-O2 -static:nolib" \
        "gcc-gc-sections:gcc:-O2 -ffunction-sections -fdata-sections -Wl,--gc-sections" \
        "clang-gc-sections-lld:clang:-O2 -ffunction-sections -fdata-sections -fuse-ld=lld -Wl,--gc-sections" \
        "gcc-lto:gcc:-O2 -flto" "clang-lto:clang:-O2 -flto -fuse-ld=lld" "gcc-lto-gold:gcc:-O2 -flto -fuse-ld=gold" \
        "g++:g++:-O2 -x c++" "clang++:clang++:-O2 -std=c++17 -x c++"; do
        IFS=: read -r name cc flags mode <<<"$m"
        case_ "impl-$name" impl_run "$name" "$cc" "$flags" "$mode"
    done
}
impl_cases

# ---- one copy: 20 files with two markers each against one file with all 40 -
# gen_many DIR FILES: FILES source files with 40 markers in all, main.c
# defining the implementation and calling every function.
gen_many() {
    local d=$1 files=$2 per=$((40 / $2)) f i
    mkdir -p "$d"
    rm -f "$d"/f*.c
    for ((f = 0; f < files; f++)); do
        {
            echo '#include "edgeprobe.h"'
            for ((i = 0; i < per; i++)); do
                echo "int fn_${f}_$i(int n);"
                echo "int fn_${f}_$i(int n) { if (EDGEPROBE_BRANCH(p_${f}_$i)) n++; EDGEPROBE_TRACE(t_${f}_$i, \"%d\\n\", n); return n; }"
            done
        } >"$d/f$f.c"
    done
    {
        echo '#define EDGEPROBE_IMPLEMENTATION'
        echo '#include "edgeprobe.h"'
        for ((f = 0; f < files; f++)); do for ((i = 0; i < per; i++)); do echo "int fn_${f}_$i(int n);"; done; done
        echo 'int main(void) { int s = 0;'
        for ((f = 0; f < files; f++)); do for ((i = 0; i < per; i++)); do echo "s += fn_${f}_$i(1);"; done; done
        echo 'return edgeprobe_enable("p_*") == 40 && s == 40 ? 0 : 1; }'
    } >"$d/main.c"
}
text_size() { size -A "$1" | awk '$1 == ".text" { print $2 }'; }
# one_copy CC: the 20-file program's .text may exceed the one-file
# program's by a little per file (function alignment, 4 bytes of
# edgeprobe_need), never by a copy of the implementation (tens of KB).
one_copy() {
    local cc=$1 run=${2:-} d="$B/impl-onecopy-${1%% *}" one twenty
    gen_many "$d/one" 1 && gen_many "$d/twenty" 20 || return 1
    $cc -O2 $WARN $INC "$d"/one/*.c -o "$d/one/prog" && $run "$d/one/prog" || return 1
    $cc -O2 $WARN $INC "$d"/twenty/*.c -o "$d/twenty/prog" && $run "$d/twenty/prog" || return 1
    one=$(text_size "$d/one/prog") twenty=$(text_size "$d/twenty/prog")
    echo "text: one file $one bytes, 20 files $twenty bytes (+$((twenty - one)))"
    ((twenty - one < 20 * 512)) || { echo "the 20-file program carries more than its sites: a copy of the implementation per file?"; return 1; }
}
case_ impl-one-copy-gcc one_copy gcc
case_ impl-one-copy-clang one_copy clang
one_copy_aarch64() {
    if ! command -v aarch64-linux-gnu-gcc >/dev/null || ! command -v qemu-aarch64 >/dev/null; then
        echo "skipped: no aarch64-linux-gnu-gcc or qemu-aarch64 (make aarch64-tools installs them as root)"
        return 77
    fi
    one_copy aarch64-linux-gnu-gcc "qemu-aarch64 -U LD_PRELOAD -L /usr/aarch64-linux-gnu"
}
case_ impl-one-copy-aarch64 one_copy_aarch64

# ---- the link errors --------------------------------------------------------
# Without EDGEPROBE_IMPLEMENTATION the link fails and names the macro, for an
# executable and a shared library, with each linker; with it twice in one
# object, it fails naming the same symbol.
link_errors() {
    local ld=$1 d="$B/impl-link-$1" out
    mkdir -p "$d"
    printf '#include "edgeprobe.h"\nint main(void) { EDGEPROBE_TRACE(x, "%%d\\n", 1); return 0; }\n' >"$d/none.c"
    printf '#define EDGEPROBE_IMPLEMENTATION\n#include "edgeprobe.h"\nint f(void);\nint f(void) { return 1; }\n' >"$d/impl1.c"
    printf '#define EDGEPROBE_IMPLEMENTATION\n#include "edgeprobe.h"\nint main(void) { EDGEPROBE_TRACE(x, "%%d\\n", 1); return 0; }\n' >"$d/impl2.c"
    for kind in exe so; do
        local extra=""
        [[ $kind == so ]] && extra="-fPIC -shared"
        if gcc -O2 $INC -fuse-ld=$ld $extra "$d/none.c" -o "$d/none.$kind" 2>"$d/none.$kind.err"; then
            echo "$kind without the implementation linked"
            return 1
        fi
        grep -q 'edgeprobe_define_EDGEPROBE_IMPLEMENTATION_in_one_file_of_each_executable_and_shared_library' "$d/none.$kind.err" ||
            { cat "$d/none.$kind.err"; return 1; }
    done
    if gcc -O2 $INC -fuse-ld=$ld "$d/impl1.c" "$d/impl2.c" -o "$d/twice" 2>"$d/twice.err"; then
        echo "two implementations in one executable linked"
        return 1
    fi
    grep -q 'edgeprobe_define_EDGEPROBE_IMPLEMENTATION' "$d/twice.err" || { cat "$d/twice.err"; return 1; }
    gcc -O2 $INC -fuse-ld=$ld "$d/impl2.c" -o "$d/once" && "$d/once" # the control: once links
}
for ld in bfd gold lld; do
    case_ "impl-link-errors-$ld" link_errors "$ld"
done

# ---- the header's documentation against its code --------------------------
case_ docs-consistent python3 tests/check_docs.py
# ... and the check can fail: a header whose list lacks a variable it reads.
docs_mutant() {
    sed 's/^ \*   EDGEPROBE_MEMBARRIER=0.*$/ */' include/edgeprobe.h >"$B/docs-mutant.h"
    ! python3 tests/check_docs.py "$B/docs-mutant.h" >"$B/docs-mutant.txt" &&
        grep -q 'EDGEPROBE_MEMBARRIER is read but not listed' "$B/docs-mutant.txt"
}
case_ docs-check-catches-a-missing-variable docs_mutant

# ---- the names of section >>renamed: old code builds, warns, and works -----
renamed() {
    local cc=$1 out="$B/renamed-$1.txt"
    $cc -O2 $INC -pthread tests/impl/renamed.c -o "$B/renamed-$1" 2>"$out" || { cat "$out"; return 1; }
    grep -q 'edgeprobe_call_activate is now edgeprobe_call_on' "$out" || { cat "$out"; return 1; }
    "$B/renamed-$1"
}
case_ renamed-gcc renamed gcc
case_ renamed-clang renamed clang

# ---- EDGEPROBE_DEBUG: *_locked functions check the registry lock -----------
case_ debug-lock-check unit debug-lock gcc "-O2" tests/impl/t_debug_lock.c
# The suites that switch, bind and patch the most, with the checks on: every
# *_locked call they make holds the lock.
for t in core handlers patch concurrency tamper; do
    case_ "debug-$t" unit "debug-$t" gcc "-O1 -DEDGEPROBE_DEBUG" "tests/t_$t.c"
done
debug_fprobe() {
    local d="$B/debug-fprobe"
    mkdir -p "$d"
    gcc -O1 -fpatchable-function-entry=5 -fPIC -shared tests/fprobe/lib.c -o "$d/libfp.so" &&
        gcc -O1 -DEDGEPROBE_DEBUG $WARN $INC -fpatchable-function-entry=5 tests/fprobe/t_func.c -pthread -ldl -o "$d/t_func" &&
        timeout 120 "$d/t_func" run "$PWD/$d/libfp.so"
}
case_ debug-fprobe debug_fprobe

# A file that includes the header but places no marker (a client that wants
# the types and constants) needs no implementation, at any optimisation.
client_only() {
    local cc opt d="$B/impl-client-only"
    mkdir -p "$d"
    printf '#include "edgeprobe.h"\n#include <stdio.h>\nint main(void) { printf(EDGEPROBE_CONTROL_DIR_TMP "\\n", 0u); return (int)sizeof(edgeprobe__record) != 32; }\n' >"$d/client.c"
    for cc in gcc clang g++; do
        for opt in -O0 -O2; do
            $cc $opt $WARN $INC -x $([[ $cc == g++ ]] && echo c++ || echo c) "$d/client.c" -o "$d/client" && "$d/client" || return 1
        done
    done
}
case_ impl-client-without-markers client_only
