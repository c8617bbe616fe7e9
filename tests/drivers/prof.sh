# tests/drivers/prof.sh - sourced by tests/run.sh: `edgeprobe prof` on a
# threaded program with a linked and a dlopen()ed library, built with
# -fpatchable-function-entry=5 (gcc, clang, PIE and not), with
# -finstrument-functions, and with neither; bad command lines.
prof_tools() { shared tools make -s tools >/dev/null; }
# prof_app DIR CC FLAGS [LINK...]: build app + its two libraries in DIR.
prof_app() {
    local d=$1 cc=$2 flags=$3
    shift 3
    mkdir -p "$d"
    $cc -O2 $flags -fPIC -shared tests/prof/applib.c -o "$d/libapplib.so" &&
        $cc -O2 $flags -DPLUGIN -fPIC -shared tests/prof/applib.c -o "$d/plugin.so" &&
        $cc -O2 $flags tests/prof/app.c -L"$d" -lapplib -Wl,-rpath,"$PWD/$d" "$@" -pthread -ldl -o "$d/app"
}
# Runs with and without the profiler: same stdout, same status (7), and a
# report naming functions of the program (static included) and libraries.
prof_case() {
    local cc=$1 flags=$2 link=${3:-} d="$B/prof-$1${2// /}"
    prof_tools && prof_app "$d" "$cc" "$flags" $link || return 1
    "./$d/app" "$PWD/$d/plugin.so" >"$d/plain.out"
    [[ $? -eq 7 ]] || { echo "plain run: status not 7"; return 1; }
    ./build/edgeprobe prof -o "$d/report.txt" --svg "$d/report.svg" -k 5 --epoch 2 -- "./$d/app" "$PWD/$d/plugin.so" >"$d/prof.out"
    [[ $? -eq 7 ]] || { echo "under prof: status not 7"; return 1; }
    cat "$d/report.txt"
    cmp "$d/plain.out" "$d/prof.out" || { echo "stdout differs under prof"; return 1; }
    local fn
    for fn in app_work static_helper applib_inner plugin_step; do
        grep -q "^$fn " "$d/report.txt" || { echo "report lacks $fn"; return 1; }
    done
    grep -q '<svg' "$d/report.svg" && grep -q 'app_work' "$d/report.svg" || { echo "no chart"; return 1; }
    grep -Eq 'edgeprobe-prof-summary: .* samples=[1-9]' "$d/report.txt" || { echo "no samples"; return 1; }
}
case_ prof-fentry-gcc prof_case gcc "-fpatchable-function-entry=5"
case_ prof-fentry-clang prof_case clang "-fpatchable-function-entry=5"
case_ prof-fentry-gcc-nopie prof_case gcc "-fpatchable-function-entry=5 -no-pie"
case_ prof-finstrument-gcc prof_case gcc "-finstrument-functions" "-L$PWD/build -ledgeprobe-hooks -Wl,-rpath,$PWD/build"

# Neither flag: the program runs as usual and the command says why nothing was profiled.
prof_noflag() {
    local d="$B/prof-noflag"
    prof_tools && prof_app "$d" gcc "" || return 1
    "./$d/app" >"$d/plain.out"
    ./build/edgeprobe prof -o "$d/report.txt" -- "./$d/app" >"$d/prof.out" 2>"$d/prof.err"
    local rc=$?
    cat "$d/prof.err"
    [[ $rc -eq 7 ]] && cmp "$d/plain.out" "$d/prof.out" && grep -q 'has no function probes: build it with -fpatchable-function-entry=5' "$d/prof.err"
}
case_ prof-no-flag prof_noflag

# Bad command lines: usage errors exit 2 and say why; a missing program 127.
prof_usage() {
    prof_tools || return 1
    local out
    out=$(./build/edgeprobe prof -k 0 -- /bin/true 2>&1); [[ $? -eq 2 && $out == *"-k needs a positive number"* ]] || return 1
    out=$(./build/edgeprobe prof --mode fast -- /bin/true 2>&1); [[ $? -eq 2 && $out == *"unknown mode"* ]] || return 1
    out=$(./build/edgeprobe prof 2>&1); [[ $? -eq 2 && $out == *"no PROGRAM given"* ]] || return 1
    out=$(./build/edgeprobe prof -o 2>&1); [[ $? -eq 2 && $out == *"missing value"* ]] || return 1
    out=$(./build/edgeprobe prof -- /no/such/program 2>&1); [[ $? -eq 127 && $out == *"cannot run"* ]] || return 1
    out=$(./build/edgeprobe nonsense 2>&1); [[ $? -eq 2 && $out == *"unknown command"* ]] || return 1
    ./build/edgeprobe prof --help | grep -q 'usage: edgeprobe prof'
}
case_ prof-usage prof_usage
