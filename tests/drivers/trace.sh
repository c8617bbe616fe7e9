# tests/drivers/trace.sh - sourced by tests/run.sh: EDGEPROBE_TRACE as an
# argument probe (section 10.4 of the header): lines equal to snprintf's,
# every register intact at every vector width (and the mutant that saves
# too little is caught), the disabled function holds nothing but the NOP,
# compile-time refusals, the lazy form, sites in a shared library.

# ---- lines: gcc and clang, -O0/-O2/-O3, PIE, non-PIE, shared library ------
trace_case() {
    local cc=$1 opt=$2 link=$3 d="$B/trace-$1$2-$3"
    local f="$opt $WARN $INC -pthread"
    mkdir -p "$d"
    case $link in
    pie) $cc $f -fPIE -pie tests/t_trace.c tests/trace/sites.c -lm -o "$d/t_trace" ;;
    nopie) $cc $f -fno-PIE -no-pie tests/t_trace.c tests/trace/sites.c -lm -o "$d/t_trace" ;;
    shared)
        $cc $f -fPIC -shared -DEDGEPROBE_IMPLEMENTATION tests/trace/sites.c -o "$d/libtrsites.so" &&
            $cc $f tests/t_trace.c -L"$d" -ltrsites -Wl,-rpath,"$PWD/$d" -lm -o "$d/t_trace" ;;
    esac || return 1
    EDGEPROBE_VERBOSE=1 timeout 300 "./$d/t_trace" 2>"$d/stderr.txt"
    local rc=$?
    cat "$d/stderr.txt"
    [[ $rc == 0 ]] || return $rc
    # the refused formats, each with its reason (not with the lazy form)
    grep -q 'EDGEPROBE_TRACE tr_pctn (tests/trace/sites.c:[0-9]*): refused: %n in its format' "$d/stderr.txt" &&
        grep -q 'EDGEPROBE_TRACE tr_toofew (tests/trace/sites.c:[0-9]*): refused: more conversions in its format than arguments' \
            "$d/stderr.txt" && return 0
    echo "missing: the refusals of the bad formats in the log"
    return 1
}
for cc in gcc clang; do
    for opt in -O0 -O2 -O3; do case_ "trace-$cc$opt-pie" trace_case "$cc" "$opt" pie; done
    case_ "trace-$cc-O2-nopie" trace_case "$cc" -O2 nopie
    case_ "trace-$cc-O2-shared" trace_case "$cc" -O2 shared
done
case_ trace-nop8 unit trace-nop8 gcc "-O2 -DEDGEPROBE_SITE_BYTES=8" tests/t_trace.c tests/trace/sites.c -lm
case_ trace-lazy-form unit trace-lazy gcc "-O2 -DEDGEPROBE_TRACE_ARGS=0" tests/t_trace.c tests/trace/sites.c -lm
case_ asan-ubsan-trace unit asan-trace gcc "$SAN" tests/t_trace.c tests/trace/sites.c -lm

# ---- registers at every vector width; mutants that save too little -------
trace_regs() {
    local cc=$1 flags=$2 want=$3 out="$B/trace-regs-$1-${4}.txt" rc
    $cc -O2 $WARN $INC $flags tests/trace/regs.c -o "$B/trace-regs-$1-$4" || return 1
    "./$B/trace-regs-$1-$4" >"$out" 2>&1
    rc=$?
    cat "$out"
    [[ $rc == 77 ]] && return 77
    if [[ $want == pass ]]; then return $rc; fi
    [[ $rc != 0 ]] && grep -q 'changed' "$out" && { echo "the mutant was caught"; return 0; }
    echo "the mutant (a trampoline too narrow for the TU) went unnoticed"
    return 1
}
for cc in gcc clang; do
    case_ "trace-regs-xmm-$cc" trace_regs $cc "" pass xmm
    case_ "trace-regs-ymm-$cc" trace_regs $cc "-mavx2" pass ymm
    case_ "trace-regs-zmm-$cc" trace_regs $cc "-mavx512f -mavx512bw" pass zmm
    # upper halves zero: restored as xmm on a clean state (section 27.1)
    case_ "trace-regs-ymm-low-$cc" trace_regs $cc "-mavx2 -DREGS_LOW" pass ymm-low
    case_ "trace-regs-zmm-low-$cc" trace_regs $cc "-mavx512f -mavx512bw -DREGS_LOW" pass zmm-low
    # recorded: the fast path that saves no vector register (section 29.2)
    for w in xmm:"" ymm:-mavx2 zmm:"-mavx512f -mavx512bw"; do
        case_ "trace-regs-${w%%:*}-recorded-$cc" trace_regs $cc "${w#*:} -DREGS_RECORD=$B/trace-regs-$cc-${w%%:*}.trace" \
            pass "${w%%:*}-recorded"
    done
done
# Everything that fast path runs is compiled without vector registers.
fast_path_gpr_only() {
    local cc=$1 opt=$2 bin="$B/fast-path-$1$2"
    $cc $opt $WARN $INC -DREGS_RECORD=/dev/null tests/trace/regs.c -pthread -o "$bin" &&
        python3 tests/record/check_gpr_only.py "$bin"
}
for m in gcc:-O0 gcc:-O2 clang:-O0 clang:-O2; do
    case_ "record-fast-path-gpr-only-${m%%:*}${m#*:}" fast_path_gpr_only "${m%%:*}" "${m#*:}"
done
case_ trace-regs-zmm-no-bw trace_regs gcc "-mavx512f" pass zmmf
case_ trace-regs-ymm-mutant-is-detected trace_regs gcc "-mavx2 -DEDGEPROBE__ARGS_VEC=0" mutant ymm-mutant
case_ trace-regs-zmm-mutant-is-detected trace_regs gcc "-mavx512f -mavx512bw -DEDGEPROBE__ARGS_VEC=1" mutant zmm-mutant

# ---- disabled: the function holds the NOP and its own code, nothing else ---
# only_trace(x) { TRACE("only %d\n", x); return x; } must compile to the
# NOP5, the move and the return: no call, no push, no stack frame.
trace_floor() {
    local cc=$1 body
    $cc -O2 $INC -c tests/trace/sites.c -o "$B/trace-floor-$cc.o" || return 1
    body=$(objdump -d --no-show-raw-insn "$B/trace-floor-$cc.o" |
        awk '/<only_trace>:/{on=1; next} on && /^$/{exit} on{sub(/^ *[0-9a-f]+:\t/, ""); print}')
    echo "$body"
    grep -q 'nopl *0x0(%rax,%rax,1)' <<<"$body" || { echo "no NOP5 site"; return 1; }
    if grep -Eq 'call|push|sub +\$0x[0-9a-f]+,%rsp' <<<"$body"; then
        echo "the disabled TRACE left code for its enabled path in the function"
        return 1
    fi
    [[ $(grep -cv 'nop\|xchg   %ax,%ax\|^$' <<<"$body") -le 3 ]] || { echo "more than mov + ret"; return 1; }
}
case_ trace-disabled-is-the-nop-gcc trace_floor gcc
case_ trace-disabled-is-the-nop-clang trace_floor clang

# ---- compile-time refusals, with the reason -----------------------------
trace_refuses() {
    local what=$1 src=$2 want=$3 cc
    for cc in gcc clang; do
        printf '#include "edgeprobe.h"\n%s\n' "$src" >"$B/trace-refuse-$what.c"
        if $cc -std=c11 $INC -c "$B/trace-refuse-$what.c" -o /dev/null 2>"$B/trace-refuse-$what-$cc.txt"; then
            echo "$cc accepted: $src"
            return 1
        fi
        grep -q "$want" "$B/trace-refuse-$what-$cc.txt" || { cat "$B/trace-refuse-$what-$cc.txt"; return 1; }
        echo "$cc: $(grep -m1 -o "$want.*" "$B/trace-refuse-$what-$cc.txt")"
    done
}
case_ trace-refuses-long-double trace_refuses ldouble \
    'void f(long double v) { EDGEPROBE_TRACE(bad, "%Lf", v); }' 'must be integers, pointers, float or double'
case_ trace-refuses-struct trace_refuses struct \
    'struct s { int a; }; void f(struct s v) { EDGEPROBE_TRACE(bad, "%d", v); }' 'must be integers, pointers, float or double'
case_ trace-refuses-nonliteral-format trace_refuses format \
    'void f(const char *fmt, int x) { EDGEPROBE_TRACE(bad, fmt, x); }' 'the format must be a string literal'
trace_format_warning() { # a wrong format is the compiler's warning, as for printf
    printf '#include "edgeprobe.h"\nvoid f(long v) { EDGEPROBE_TRACE(w, "%%s", v); }\n' >"$B/trace-fmtwarn.c"
    if gcc -Wall -Werror $INC -c "$B/trace-fmtwarn.c" -o /dev/null 2>"$B/trace-fmtwarn.txt"; then
        echo "gcc did not check the format"
        return 1
    fi
    grep -m1 "expects argument of type" "$B/trace-fmtwarn.txt"
}
case_ trace-format-is-checked trace_format_warning
