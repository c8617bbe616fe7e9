# tests/drivers/flaky.sh - sourced by tests/run.sh: provider probes of an
# instrumented library that is unloaded and loaded again (found while
# hunting a rare crash of provider-gcc-O2; see tests/provider/t_unload.c).
provider_unload_case() {
    local cc=$1 opt=$2 d="$B/provider-unload-$1$2"
    local f="$opt $WARN $INC -Itests/provider -pthread"
    mkdir -p "$d"
    $cc $f -fPIC -shared -finstrument-functions tests/provider/lib.c -o "$d/libprov.so" &&
        $cc $f tests/provider/t_unload.c -ldl -o "$d/t_unload" &&
        timeout 60 "./$d/t_unload" "$PWD/$d/libprov.so"
}
case_ provider-unload-gcc-O2 provider_unload_case gcc -O2
case_ provider-unload-clang-O0 provider_unload_case clang -O0

# The same for function probes (-fpatchable-function-entry=5): gcc's and
# clang's entry forms.
fprobe_reload_case() {
    local cc=$1 d="$B/fprobe-reload-$1"
    mkdir -p "$d"
    $cc -O2 -fpatchable-function-entry=5 -fPIC -shared tests/fprobe/lib.c -o "$d/libfp.so" &&
        $cc -O2 $WARN $INC tests/fprobe/t_reload.c -pthread -ldl -o "$d/t_reload" &&
        timeout 60 "./$d/t_reload" "$PWD/$d/libfp.so"
}
case_ fprobe-reload-gcc fprobe_reload_case gcc
case_ fprobe-reload-clang fprobe_reload_case clang

# Enabled sites keep running in another thread while the process exits and
# the destructors unregister (tests/t_exit_race.c): 30 runs, no crash.
exit_race_case() {
    local d="$B/exit-race" i bad=0
    python3 tests/gen_startup.py "$d" 2500 2 &&
        gcc -O2 $WARN $INC -pthread tests/t_exit_race.c "$d"/gen_*.c -o "$d/t_exit_race" || return 1
    for i in $(seq 30); do
        shared cpu timeout 20 "./$d/t_exit_race" >/dev/null 2>&1 || { bad=$((bad + 1)); echo "run $i: exit status $?"; }
    done
    echo "30 runs, $bad failed"
    [[ $bad -eq 0 ]]
}
case_ exit-while-sites-run exit_race_case
