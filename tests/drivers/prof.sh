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

# The provider finds a function's exit site at its first return: when that
# comes epochs after its first call (tests/prof/late_exit.c), the function
# had gone to sleep with its window open, and the exit's discovery shut the
# window. It must wake it: the report samples it and counts most of its
# 20,000 calls (before the fix: no row, 5 runs of 5; prof-finstrument-gcc
# lost app_work so about once in 20 `make test` runs).
prof_late_exit() {
    local d="$B/prof-late-exit"
    mkdir -p "$d"
    prof_tools && gcc -O2 -finstrument-functions tests/prof/late_exit.c -L"$PWD/build" -ledgeprobe-hooks \
        -Wl,-rpath,"$PWD/build" -o "$d/late_exit" || return 1
    ./build/edgeprobe prof -q -o "$d/report.txt" -k 5 --epoch 2 -- "./$d/late_exit" >/dev/null || return 1
    cat "$d/report.txt"
    awk '$1 == "slow_first" { found = 1; printf "slow_first: %d sampled, %d calls\n", $2, $3
             if ($2 < 10 || $3 < 5000) { print "FAIL want at least 10 sampled and 5000 calls"; exit 1 } }
         END { if (!found) { print "FAIL no row for slow_first"; exit 1 } }' "$d/report.txt"
}
case_ prof-late-exit prof_late_exit

# A thread per job (tests/prof/churn.c): a row labelled exact holds every
# call (before the fix, late_work read 1,024 of its 2,000, exact, 3 runs
# of 3: the threads that had exited counted as observed up to the count's
# end); an estimated one is within 0.4-1.6x (it read 0.54-0.97x: the rate
# is pooled over every thread's time, the dead ones' too).
prof_thread_churn() {
    local d="$B/prof-thread-churn"
    mkdir -p "$d"
    prof_tools && gcc -O2 $WARN -fpatchable-function-entry=5 tests/prof/churn.c -pthread -o "$d/churn" || return 1
    ./build/edgeprobe prof -q -o "$d/report.txt" --top 0 -- "./$d/churn" 1000 >"$d/truth.txt" || return 1
    cat "$d/report.txt"
    awk 'FNR == NR { truth[$1] = $2; next }
         $1 == "function" { for (i = 1; i <= NF; i++) { if ($i == "calls") c = i; if ($i == "counted") k = i }; next }
         c && ($1 in truth) { n++; r = $c / truth[$1]; no = $k == "exact" ? $c != truth[$1] : r < 0.4 || r > 1.6; bad += no
             printf "%s %s: %s calls of %s, %s\n", no ? "FAIL" : "ok", $1, $c, truth[$1], $k }
         END { if (n != 2) { print "FAIL job_work or late_work missing"; exit 1 }; exit bad != 0 }' "$d/truth.txt" "$d/report.txt"
}
case_ prof-thread-churn prof_thread_churn

# Thread records are reused (tests/prof/churn.c, 30,000 threads, 4 at a
# time, mode on: every thread runs handlers): the agent's arena stays far
# below one 40 KiB record per thread (the summary's arena_bytes: under 256
# MiB, about 6,500 records; the records follow the threads made in the
# two or three epochs a gone thread takes to be found), every call is
# counted, and the report counts every thread. Before: the arena was full
# (1 GiB) after about 26,000 threads, job_work read 26,048 calls, late_work
# had no row, 26,049 threads.
prof_thread_reuse() {
    local d="$B/prof-thread-reuse"
    mkdir -p "$d"
    prof_tools && gcc -O2 $WARN -fpatchable-function-entry=5 tests/prof/churn.c -pthread -o "$d/churn" || return 1
    ./build/edgeprobe prof -q --mode on -o "$d/report.txt" --top 0 -- "./$d/churn" 30000 4 >"$d/truth.txt" || return 1
    grep -E '^(run|profiler memory|edgeprobe-prof-summary)' "$d/report.txt"
    awk 'FNR == NR { truth[$1] = $2; next }
         $1 == "function" { for (i = 1; i <= NF; i++) if ($i == "calls") c = i; next }
         c && ($1 in truth) { n++; no = $c != truth[$1]; bad += no
             printf "%s %s: %s calls of %s\n", no ? "FAIL" : "ok", $1, $c, truth[$1] }
         /^run .* thread\(s\) hit probes/ { for (i = 1; i <= NF; i++) if ($i == "thread(s)") th = $(i - 1)
             no = th < 30001; bad += no; printf "%s %s threads hit probes (at least 30001)\n", no ? "FAIL" : "ok", th }
         /^edgeprobe-prof-summary:/ { for (i = 1; i <= NF; i++) if ($i ~ /^arena_bytes=/) a = substr($i, 13)
             no = a == "" || a + 0 >= 256 * 1024 * 1024; bad += no
             printf "%s arena_bytes %s (under %d)\n", no ? "FAIL" : "ok", a, 256 * 1024 * 1024 }
         END { if (n != 2) { print "FAIL job_work or late_work missing"; exit 1 }; exit bad != 0 }' "$d/truth.txt" "$d/report.txt"
}
case_ prof-thread-reuse prof_thread_reuse

# A program whose SIGALRM handler leaves by siglongjmp wherever the signal
# finds its thread (tests/prof/jumps.c, 1,500 timeouts of 150 us), the
# handler installed by sigaction, by signal, by sigset, and one-shot
# (SA_RESETHAND | SA_NODEFER), and the program built with
# -finstrument-functions (fi), in modes sample, on and off: every run ends
# by itself with its own output, the handler always ran on main's thread
# (the epoch thread blocks the asynchronous signals), and the report names
# the eight functions (mode off reports none). A one-shot handler, once
# run, leaves the default action and SA_RESETHAND in its flags, as the
# kernel does (the wrapper left flags 0). In mode on, every call of the patchable entries is
# seen: the report's calls are at least the program's, and at most one
# more per timeout (an entry the longjmp cut before the function counted
# itself); the provider's sites are bound an epoch after their first call,
# so fi's are not all seen. Before: 11 of 12 runs crashed (the epoch
# thread took the SIGALRM and jumped onto main's stack) or hung at exit (a
# handler cut short held a lock; DEFERRED SIGNALS in the header).
prof_siglongjmp() {
    local d="$B/prof-siglongjmp" how mode bad=0 out exe rc
    mkdir -p "$d"
    prof_tools && gcc -O2 $WARN -fpatchable-function-entry=5 tests/prof/jumps.c -o "$d/jumps" &&
        gcc -O2 $WARN -finstrument-functions -rdynamic tests/prof/jumps.c -o "$d/jumps-fi" || return 1
    for how in sigaction signal sigset oneshot fi; do
        exe=jumps
        [[ $how == fi ]] && exe=jumps-fi
        for mode in sample on off; do
            timeout -s KILL 60 ./build/edgeprobe prof -q --mode $mode -o "$d/report-$how-$mode.txt" --top 0 -- \
                "./$d/$exe" 1500 150 ${how/fi/sigaction} >"$d/out-$how-$mode.txt" 2>"$d/err-$how-$mode.txt"
            rc=$?
            out="$(cat "$d/out-$how-$mode.txt") exit $rc"
            awk -v how=$how -v mode=$mode -v out="$out" '
                BEGIN { split(out, o, " "); timeouts = o[2]; calls = o[4]; foreign = o[6]; reset = o[8]; status = o[10] }
                $1 == "function" { for (i = 1; i <= NF; i++) if ($i == "calls") c = i; next }
                c && $1 ~ /^f[1-8]$/ { n++; seen += $c }
                END { bad = o[1] != "timeouts" || timeouts != 1500 || foreign != 0 || status != 0 || (mode != "off" && n != 8)
                      bad = bad || reset != (how == "oneshot" ? 1 : "-")
                      if (mode == "on" && how != "fi") bad = bad || seen < calls || seen > calls + timeouts
                      printf "%s %s %s: %s; %d functions in the report, %d calls\n", bad ? "FAIL" : "ok", how, mode, out, n, seen
                      exit bad }' "$d/report-$how-$mode.txt" || bad=1
        done
    done
    return $bad
}
case_ prof-siglongjmp prof_siglongjmp

# 3,000 functions built with -finstrument-functions, each first called
# under a SIGALRM timer of 10-30 us whose handler leaves by siglongjmp
# (tests/prof/first_hits.c), in modes sample, on and off: every run ends by
# itself with its own output, after at least 100 timeouts. A first call is
# the provider site's first hit (dladdr under the loader's lock, then the
# registry's); before the header made it a guarded stretch, a jump out of
# it left a lock held and the program hung at exit in 6 of 6 runs.
prof_first_hits_siglongjmp() {
    local d="$B/prof-first-hits-siglongjmp" mode bad=0 rc
    mkdir -p "$d"
    prof_tools && gcc -O2 $WARN -finstrument-functions -rdynamic tests/prof/first_hits.c -o "$d/first_hits" || return 1
    for mode in sample on off; do
        timeout -s KILL 30 ./build/edgeprobe prof -q --mode $mode -o "$d/report-$mode.txt" --top 0 -- \
            "./$d/first_hits" 2 >"$d/out-$mode.txt" 2>"$d/err-$mode.txt"
        rc=$?
        echo "$(cat "$d/out-$mode.txt") exit $rc" | awk -v mode=$mode '
            { bad = $1 != "timeouts" || $2 < 100 || $4 < 1 || $6 != 0
              printf "%s %s: %s\n", bad ? "FAIL" : "ok", mode, $0; exit bad }' || bad=1
    done
    return $bad
}
case_ prof-first-hits-siglongjmp prof_first_hits_siglongjmp

# fork() in a loop under a SIGALRM timer whose handler leaves by siglongjmp
# (jump) or calls eight probed functions (call) (tests/prof/forks.c), built
# with -fpatchable-function-entry=5 and with -finstrument-functions, in
# modes sample, on and off, and forking by __fork and forkpty (glibc's own
# alias: jump, sample): every run ends by itself with its own output. A
# fork is a guarded stretch (tools/signal_defer.h); before, the handler
# ran inside fork, where the registry's lock and glibc's fork locks are
# held: with the agent of the day before, 7 of the 12 runs hung (and
# forkpty 3 of 3 with fork alone wrapped).
prof_fork_signals() {
    local d="$B/prof-fork-signals" run exe how mode bad=0 rc via
    mkdir -p "$d"
    prof_tools && gcc -O2 $WARN -fpatchable-function-entry=5 tests/prof/forks.c -o "$d/forks" &&
        gcc -O2 $WARN -finstrument-functions -fno-optimize-sibling-calls -rdynamic tests/prof/forks.c -o "$d/forks-fi" ||
        return 1
    for run in "forks jump fork" "forks call fork" "forks-fi jump fork" "forks-fi call fork" "forks jump __fork" \
        "forks jump forkpty"; do
        set -- $run
        exe=$1 how=$2 via=$3
        for mode in sample on off; do
            [[ $via != fork && $mode != sample ]] && continue
            timeout -s KILL 30 ./build/edgeprobe prof -q --mode $mode -o "$d/report-$exe-$how-$via-$mode.txt" --top 0 -- \
                "./$d/$exe" 1000 $how $via >"$d/out-$exe-$how-$via-$mode.txt" 2>"$d/err-$exe-$how-$via-$mode.txt"
            rc=$?
            echo "$(cat "$d/out-$exe-$how-$via-$mode.txt") exit $rc" | awk -v t="$exe $how $via $mode" -v how=$how '
                { bad = $1 != "forks" || $4 < 1 || $6 != 0 || (how == "call" && $2 != 1000)
                  printf "%s %s: %s\n", bad ? "FAIL" : "ok", t, $0; exit bad }' || bad=1
        done
    done
    return $bad
}
case_ prof-fork-signals prof_fork_signals

# One-shot handlers (SA_RESETHAND | SA_NODEFER, and SA_RESETHAND alone)
# under a flood of their signal (tests/prof/oneshot_flood.c, 20,000 of
# them): each runs once, as without the profiler; the wrapper used to be
# installed with SA_NODEFER, and the flood nested deliveries before any
# reset until the stack ran out (SIGSEGV, 3 of 3).
prof_oneshot_flood() {
    local d="$B/prof-oneshot-flood" nodefer out rc bad=0
    mkdir -p "$d"
    prof_tools && gcc -O2 $WARN -fpatchable-function-entry=5 -pthread tests/prof/oneshot_flood.c -o "$d/oneshot_flood" ||
        return 1
    for nodefer in 1 0; do
        out=$(timeout -s KILL 60 ./build/edgeprobe prof -q -o "$d/report-$nodefer.txt" -- "./$d/oneshot_flood" 20000 $nodefer)
        rc=$?
        echo "SA_NODEFER $nodefer: $out, exit $rc"
        [[ $rc == 0 && $out == "oneshots 20000 ran 20000" ]] || bad=1
    done
    return $bad
}
case_ prof-oneshot-flood prof_oneshot_flood

# A -finstrument-functions program with hooks of its own, which its
# constructor prepares (tests/prof/own_hooks.c): under prof it runs as
# without (the provider's calibration called them before the program's
# constructor: SIGSEGV).
prof_own_hooks() {
    local d="$B/prof-own-hooks" out
    mkdir -p "$d"
    prof_tools && gcc -O2 $WARN -finstrument-functions -rdynamic tests/prof/own_hooks.c -o "$d/own_hooks" || return 1
    out=$(timeout -s KILL 30 ./build/edgeprobe prof -q -o "$d/report.txt" -- "./$d/own_hooks") || { echo "FAIL exit $?"; return 1; }
    echo "$out"
    [[ $out == "ok 1498500 depth 1" ]] || return 1
    grep "own cost per event" "$d/report.txt"
    grep -q "not calibrated (the program's own hooks take the calls)" "$d/report.txt"
}
case_ prof-own-hooks prof_own_hooks

# Probed functions called from a dl_iterate_phdr callback, the loader's
# lock held (tests/prof/in_loader.c), three runs: each ends by itself with
# its own output and profiles both functions. A handler on the program's
# thread switching a function off waited for the registry lock, held by
# the epoch thread, which waited for the loader's (3 of 3 hung); it now
# gives up after a while (edgeprobe__func_off_nowait).
prof_in_loader() {
    local d="$B/prof-in-loader" i out rc bad=0
    mkdir -p "$d"
    prof_tools && gcc -O2 $WARN -fpatchable-function-entry=5 tests/prof/in_loader.c -o "$d/in_loader" || return 1
    for i in 1 2 3; do
        rm -f "$d/report-$i.txt"
        out=$(timeout -s KILL 30 ./build/edgeprobe prof -q -o "$d/report-$i.txt" -- "./$d/in_loader" 300000)
        rc=$?
        echo "run $i: $out, exit $rc; $(grep '^toggles:' "$d/report-$i.txt" | cut -d';' -f1)"
        [[ $rc == 0 && $out == "walks 300000 "* ]] && grep -q '^leaf_a ' "$d/report-$i.txt" &&
            grep -q '^leaf_b ' "$d/report-$i.txt" || bad=1
    done
    return $bad
}
case_ prof-in-loader prof_in_loader

# A program that sets its locale from the environment (tests/prof/locale.c)
# under de_DE.UTF-8, whose decimal point is a comma (built with localedef
# into the case's directory): the report's numbers keep the C locale's
# point (before: "wall_s=0,3017" in the summary).
prof_locale() {
    local d="$B/prof-locale"
    mkdir -p "$d/loc"
    prof_tools && gcc -O2 $WARN -fpatchable-function-entry=5 tests/prof/locale.c -o "$d/locale" || return 1
    if ! localedef -i de_DE -f UTF-8 "$d/loc/de_DE.UTF-8" >"$d/localedef.txt" 2>&1 ||
        [[ $(LOCPATH="$d/loc" LC_ALL=de_DE.UTF-8 "./$d/locale" | head -1) != "0,5" ]]; then
        echo "skipped: no de_DE locale can be built here (localedef, /usr/share/i18n)"
        return 77
    fi
    LOCPATH="$d/loc" LC_ALL=de_DE.UTF-8 ./build/edgeprobe prof -q -o "$d/report.txt" -- "./$d/locale" >"$d/out.txt" || return 1
    cat "$d/report.txt"
    head -1 "$d/out.txt" | grep -qx '0,5' || { echo "FAIL the program did not run in de_DE"; return 1; }
    grep -Eq 'wall_s=[0-9]+\.[0-9]+ cpu_s=[0-9]+\.[0-9]+ ' "$d/report.txt" &&
        grep -q ', count budget 3.5%,' "$d/report.txt" && grep -Eq '^scaled .* [0-9]+\.[0-9]{3} ' "$d/report.txt" ||
        { echo "FAIL the report's numbers are not in the C locale's form"; return 1; }
}
case_ prof-locale prof_locale

# Libraries loaded while a program with TRACE markers runs (tests/prof/
# late_libs.c): the functions of both are profiled (the second one was not
# while the epoch thread held the scan's count of functions against the
# point ids it had seen, markers included).
prof_late_libs() {
    local d="$B/prof-late-libs" f
    mkdir -p "$d"
    prof_tools && gcc -O2 $WARN -fpatchable-function-entry=5 -fPIC -shared -DNAME=fa tests/prof/late_lib.c -o "$d/liba.so" &&
        gcc -O2 $WARN -fpatchable-function-entry=5 -fPIC -shared -DNAME=fb tests/prof/late_lib.c -o "$d/libb.so" &&
        gcc -O2 $WARN $INC -fpatchable-function-entry=5 tests/prof/late_libs.c -pthread -ldl -o "$d/late_libs" || return 1
    ./build/edgeprobe prof -o "$d/report.txt" -- "./$d/late_libs" "$PWD/$d/liba.so" "$PWD/$d/libb.so" >/dev/null || return 1
    cat "$d/report.txt"
    for f in fa fb; do
        grep -q "^$f " "$d/report.txt" || { echo "FAIL the report lacks $f"; return 1; }
    done
    # with --exact-calls their calls from the load to the adoption (up to an
    # epoch) are not seen: their rows say from-load, not exact (the main
    # program's stay exact)
    ./build/edgeprobe prof -q --top 0 --exact-calls -o "$d/exact.txt" -- "./$d/late_libs" "$PWD/$d/liba.so" "$PWD/$d/libb.so" \
        >/dev/null || return 1
    awk '$1 == "function" { for (i = 1; i <= NF; i++) if ($i == "counted") k = i; next }
         k && ($1 == "fa" || $1 == "fb" || $1 == "markers") { n++; want = $1 == "markers" ? "exact" : "from-load"
             ok = $k == want; printf "%s %s: %s (must be %s)\n", ok ? "ok" : "FAIL", $1, $k, want; bad += !ok }
         END { if (n != 3) { print "FAIL fa, fb or markers missing under --exact-calls"; exit 1 }; exit bad != 0 }' "$d/exact.txt"
}
case_ prof-dlopen-after-markers prof_late_libs

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
    out=$(./build/edgeprobe prof -k 0 -- /bin/true 2>&1); [[ $? -eq 2 && $out == *"-k needs a number from 1 to"* ]] || return 1
    out=$(./build/edgeprobe prof --mode fast -- /bin/true 2>&1); [[ $? -eq 2 && $out == *"unknown mode"* ]] || return 1
    out=$(./build/edgeprobe prof -k 4294967296 -- /bin/true 2>&1); [[ $? -eq 2 && $out == *"-k needs a number from 1 to"* ]] || return 1
    out=$(./build/edgeprobe prof --epoch 2147483648 -- /bin/true 2>&1); [[ $? -eq 2 && $out == *"--epoch needs a number"* ]] || return 1
    out=$(./build/edgeprobe prof --exact-calls --mode off -- /bin/true 2>&1); [[ $? -eq 2 && $out == *"not with off"* ]] || return 1
    out=$(./build/edgeprobe prof --exact-calls --report-now 1 2>&1); [[ $? -eq 2 && $out == *"not with --report-now"* ]] || return 1
    out=$(EDGEPROBE_PROF_EXACT_CALLS=yes ./build/edgeprobe prof -q -o /dev/null -- /bin/true 2>&1)
    [[ $? -eq 0 && $out == *"EDGEPROBE_PROF_EXACT_CALLS is 0 or 1, not yes"* ]] || return 1
    local b
    for b in -1 50.5 nan inf x "" " 3" "3 " 0x10 1e1 -0 . 00000000000000012; do
        out=$(./build/edgeprobe prof --count-budget "$b" -- /bin/true 2>&1)
        [[ $? -eq 2 && $out == *"--count-budget needs a percent from 0 to 50, not"* ]] || { echo "--count-budget '$b': $out"; return 1; }
    done
    out=$(./build/edgeprobe prof --count-budget 0 --exact-calls -- /bin/true 2>&1); [[ $? -eq 2 && $out == *"not with --exact-calls"* ]] || return 1
    out=$(./build/edgeprobe prof --count-budget 1 --mode on -- /bin/true 2>&1); [[ $? -eq 2 && $out == *"not with on"* ]] || return 1
    out=$(./build/edgeprobe prof --count-budget 0 --report-now 1 2>&1); [[ $? -eq 2 && $out == *"not with --report-now"* ]] || return 1
    for b in 0 17 x 4x; do
        out=$(./build/edgeprobe prof --parts "$b" -- /bin/true 2>&1)
        [[ $? -eq 2 && $out == *"--parts needs a number from 1 to 16, not"* ]] || { echo "--parts '$b': $out"; return 1; }
    done
    out=$(./build/edgeprobe prof --parts 8 --exact-calls -- /bin/true 2>&1); [[ $? -eq 2 && $out == *"not with --exact-calls"* ]] || return 1
    out=$(EDGEPROBE_PROF_COUNT_BUDGET=lots ./build/edgeprobe prof -q -o /dev/null -- /bin/true 2>&1)
    [[ $? -eq 0 && $out == *"EDGEPROBE_PROF_COUNT_BUDGET is a percent from 0 to 50, not lots; the default 3.5"* ]] || return 1
    out=$(./build/edgeprobe prof 2>&1); [[ $? -eq 2 && $out == *"no PROGRAM given"* ]] || return 1
    out=$(./build/edgeprobe prof -o 2>&1); [[ $? -eq 2 && $out == *"missing value"* ]] || return 1
    out=$(./build/edgeprobe prof -- /no/such/program 2>&1); [[ $? -eq 127 && $out == *"cannot run"* ]] || return 1
    out=$(./build/edgeprobe nonsense 2>&1); [[ $? -eq 2 && $out == *"unknown command"* ]] || return 1
    ./build/edgeprobe prof --help | grep -q 'usage: edgeprobe prof'
}
case_ prof-usage prof_usage

# Later counts (README, "Later counts"): EDGEPROBE_PROF_EPOCH_PARTS sets
# the parts of an epoch; a bad value warns and keeps the default. With one
# part no later count starts; with four, the burst functions of bursts.c,
# whose counts end early in their epochs, count again at the mid-ticks
# (the summary's later_counts). With sixteen (--parts 16) the restarts
# are staggered (the agent's STAGGERED COUNTS): dense.c's functions, whose
# counts end within microseconds, restart at one mid-tick in four (at most
# 4 of an epoch's 15 each, 12 for its three functions), where restarting
# every ended count at every mid-tick restarted them 27-31 times an epoch.
prof_epoch_parts() {
    local d=$B/prof-epoch-parts v out n epochs
    mkdir -p "$d"
    prof_tools && gcc -O2 $WARN -fpatchable-function-entry=5 tests/prof/bursts.c -pthread -o "$d/bursts" &&
        gcc -O2 $WARN -fpatchable-function-entry=5 tests/prof/dense.c -o "$d/dense" || return 1
    for v in lots 0 17 4x; do
        out=$(EDGEPROBE_PROF_EPOCH_PARTS="$v" ./build/edgeprobe prof -q -o /dev/null -- /bin/true 2>&1)
        [[ $? -eq 0 && $out == *"EDGEPROBE_PROF_EPOCH_PARTS is 1 to 16, not $v; the default 4"* ]] || { echo "FAIL '$v': $out"; return 1; }
    done
    for v in 1 4; do
        EDGEPROBE_PROF_EPOCH_PARTS=$v ./build/edgeprobe prof -q -o "$d/report-$v.txt" --top 0 -- "./$d/bursts" 6 >/dev/null || return 1
        grep -q "count budget 3.5%, $v part(s)" "$d/report-$v.txt" || { echo "FAIL no '$v part(s)' in the header"; return 1; }
        n=$(grep -o 'later_counts=[0-9]*' "$d/report-$v.txt" | cut -d= -f2)
        echo "parts $v: later counts ${n:-none}"
        [[ -n $n ]] && if [[ $v == 1 ]]; then ((n == 0)); else ((n > 0)); fi || { echo "FAIL parts $v: later_counts ${n:-missing}"; return 1; }
    done
    ./build/edgeprobe prof --parts 16 -q -o "$d/report-dense.txt" --top 0 -- "./$d/dense" 2000 >"$d/dense-truth.txt" || return 1
    grep -q "count budget 3.5%, 16 part(s)" "$d/report-dense.txt" || { echo "FAIL no '16 part(s)' in the header"; return 1; }
    n=$(grep -o 'later_counts=[0-9]*' "$d/report-dense.txt" | cut -d= -f2)
    epochs=$(grep -o 'epochs: [0-9]*' "$d/report-dense.txt" | cut -d' ' -f2)
    echo "dense.c, 16 parts: later counts ${n:-none} in ${epochs:-no} epochs"
    [[ -n $n && -n $epochs ]] && ((n > 0 && n <= 12 * (epochs + 1))) ||
        { echo "FAIL dense.c: ${n:-no} later counts in ${epochs:-no} epochs: not staggered (at most 12 an epoch)"; return 1; }
    # and the estimates stay estimates of the calls: no span left without a
    # rate (a count not restarted, or not read, at a mid-tick), none twice.
    # Loosely: dense.c's calls come closer than the clocks can part, and its
    # two leaves read 0.7-1.9 of their calls at 16 parts, 0.7-2.9 at 4.
    awk 'NR == FNR { truth[$1] = $2; next }
         $1 == "function" { for (i = 1; i <= NF; i++) if ($i == "calls") c = i; next }
         c && ($1 in truth) && !seen[$1]++ { r = $c / truth[$1]; printf "%s: %s of %s calls (%.2f)\n", $1, $c, truth[$1], r
                                           if (r < 0.2 || r > 5) bad++ }
         END { exit bad || length(seen) != 3 }' "$d/dense-truth.txt" "$d/report-dense.txt" ||
        { echo "FAIL dense.c at 16 parts: an estimate off by more than 5x, or a function missing"; return 1; }
}
case_ prof-epoch-parts prof_epoch_parts

# --count-budget (README, "Where the cost goes, and its floor") on the
# truth program: at 0 the skip path counts less than a third of what it
# counts by default, and more functions are estimated, where the default
# counts them all in full; the setting is in the report's header and
# summary.
prof_count_budget() {
    local d="$B/prof-count-budget" a bad=0 skips=() estimated=()
    mkdir -p "$d"
    prof_tools && gcc -O2 $WARN -fpatchable-function-entry=5 tests/prof/truth.c -pthread -o "$d/truth" || return 1
    for a in default 0; do
        local opt=(--count-budget "$a")
        [[ $a == default ]] && opt=()
        ./build/edgeprobe prof -q -o "$d/report-$a.txt" --top 0 "${opt[@]}" -- "./$d/truth" 1 4000 "$d/truth.txt" || return 1
        skips[${#skips[@]}]=$(sed -n 's/.*when the skip path counts it (\([0-9]*\) calls.*/\1/p' "$d/report-$a.txt")
        estimated[${#estimated[@]}]=$(awk '$1 == "function" { for (i = 1; i <= NF; i++) if ($i == "counted") k = i; next }
                                           k && $k == "estimated" { n++ } END { print n + 0 }' "$d/report-$a.txt")
        echo "$a: $(sed -n 2p "$d/report-$a.txt"); skip path ${skips[-1]} calls; ${estimated[-1]} rows estimated"
    done
    grep -q '^=== edgeprobe profiler: mode sample, K=10, epoch 10 ms, count budget 3.5%,' "$d/report-default.txt" &&
        grep -q 'count_budget=3.5 ' "$d/report-default.txt" &&
        grep -q ', count budget 0%,' "$d/report-0.txt" && grep -q 'count_budget=0 ' "$d/report-0.txt" ||
        { echo "FAIL the settings in the headers or summaries"; bad=1; }
    # half at most (a third, until a loaded clean-clone run of 2026-11-28 read
    # 36,072 against 103,790: the default left one function estimated; it is
    # 33,000-35,000 against 123,322 unloaded, with this agent and the last)
    ((skips[1] * 2 < skips[0])) || { echo "FAIL budget 0 counted ${skips[1]} calls by the skip path, default ${skips[0]}"; bad=1; }
    ((estimated[1] > estimated[0])) || { echo "FAIL budget 0 estimated no more functions than the default"; bad=1; }
    return $bad
}
case_ prof-count-budget prof_count_budget

# ERROR BOUNDS (README, "Error bounds"): an estimated count's err% is two
# standard errors of it. Where the counts see how the calls come (truth.c
# and yields.c with exact counting off, truth.c with one thread and three;
# alternating.c in phases shorter than an epoch and longer), the truth lies
# within it for most estimates (80%: the load of the other cases moves
# every estimate of a run by a few percent, which no term of the bound
# holds; unloaded 97-100%), and the bounds say something (median at most
# 50%). The counts' noise alone held for 13 of 40 (the first version of
# this case); a bound of everything
# would fail the median. truth_burst (1.1-1.55x, a count that ends at its
# cap in a burst reads the burst's rate) is left out of the share. yields.c's
# functions of a call every 8 rounds read 1.07-1.36x (median of a run's
# three) until their rates were no longer read from a call or two (RATES
# FROM A FEW CALLS); 1.006-1.04 since: the median over both runs must be
# within 5%. A row counted exact says 0, and the line above the table
# counts the rows exact and estimated.
prof_error_bounds() {
    local d="$B/prof-error-bounds" r t ph median sparse
    mkdir -p "$d"
    prof_tools && gcc -O2 $WARN -fpatchable-function-entry=5 tests/prof/truth.c -pthread -o "$d/truth" &&
        gcc -O2 $WARN -fpatchable-function-entry=5 tests/prof/alternating.c -o "$d/alternating" &&
        gcc -O2 $WARN -fpatchable-function-entry=5 tests/prof/yields.c -o "$d/yields" || return 1
    for r in 1 2; do
        ./build/edgeprobe prof -q -o "$d/report-yields$r.txt" --top 0 --count-budget 0 -- "./$d/yields" 60000 \
            >"$d/truth-yields$r.txt" || return 1
    done
    for t in 1 3; do
        for r in 1 2 3; do
            ./build/edgeprobe prof -q -o "$d/report-truth$t-$r.txt" --top 0 --count-budget 0 -- \
                "./$d/truth" $t 4000 "$d/truth-truth$t-$r.txt" || return 1
        done
    done
    for ph in 25000000 75000000 250000000; do
        ./build/edgeprobe prof -q -o "$d/report-alt$ph.txt" --top 0 -- "./$d/alternating" 6 $ph >"$d/truth-alt$ph.txt" ||
            return 1
    done
    for r in "$d"/report-*.txt; do
        awk -v run="${r##*/report-}" 'FNR == NR { truth[$1] = $2; next }
             $1 == "function" { for (i = 1; i <= NF; i++) { if ($i == "calls") c = i; if ($i == "err%") e = i
                                                             if ($i == "counted") k = i }; next }
             c && e && k && ($1 in truth) {
                 if ($k == "exact") { print ($e == "0" ? "exact" : "FAIL exact, err% " $e), run, $1; next }
                 held = ($c - truth[$1]) ^ 2 <= ($e / 100 * $c) ^ 2
                 printf "%s %s %s %.3f %s\n", held ? "held" : "outside", run, $1, $c / truth[$1], $e }' \
            "${r/report-/truth-}" "$r"
    done >"$d/bounds.txt"
    cat "$d/bounds.txt"
    # the line above the table says how many rows are exact and estimated
    awk '/^calls: / { said = $2 " " $6; next }
         $1 == "function" { for (i = 1; i <= NF; i++) if ($i == "counted") k = i; next }
         k && $k == "exact" { exact++ } k && $k == "estimated" { estimated++ }
         END { printf "calls line: %s; rows: %d %d\n", said, exact, estimated; exit said != exact " " estimated }' \
        "$d/report-truth1-1.txt" || { echo "FAIL the calls line and the table disagree"; return 1; }
    median_of() { sort -g | awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : "" }'; }
    median=$(awk '$1 == "held" || $1 == "outside" { print $5 }' "$d/bounds.txt" | median_of)
    sparse=$(awk '$2 ~ /^yields/ && $3 ~ /^(outer_work|tail_outer|deep_work)$/ { print $4 }' "$d/bounds.txt" | median_of)
    awk -v median="$median" -v sparse="$sparse" '
         ($1 == "held" || $1 == "outside") && $3 != "truth_burst" { n++; held += $1 == "held" }
         $1 == "exact" { exact++ }
         $1 == "FAIL" { bad = 1; print }
         END { if (!n) { print "FAIL no estimate"; exit 1 }
               printf "%d of %d estimates within their bounds (%.0f%%; truth_burst aside), median bound %s%%; " \
                      "yields.c, a call every 8 rounds: %s of the truth (median); %d exact rows say 0\n",
                      held, n, 100 * held / n, median, sparse, exact
               if (held < 0.8 * n) { print "FAIL fewer than 80% within their bounds"; bad = 1 }
               if (median > 50) { print "FAIL the median bound is over 50%"; bad = 1 }
               if (sparse == "" || sparse < 0.95 || sparse > 1.05) { print "FAIL yields.c off by more than 5%"; bad = 1 }
               if (!exact) { print "FAIL no exact row"; bad = 1 }
               exit bad }' "$d/bounds.txt"
}
case_ prof-error-bounds prof_error_bounds

# The profiler's self-test (tests/prof/selftest.c) under `edgeprobe prof`:
# every sample pairs one call, every function is sampled near its known
# duration, the program still makes every call, and a function whose exit
# hook the compiler tail-called is named as not observable (it cannot be
# timed: see the self-test's comment). The disassembly says which exits are
# tail calls: TAIL is "some" (vtail's must be, or the case has nothing to
# check and skips) or "none" (-fno-optimize-sibling-calls: there must be none).
prof_selftest_build() {
    local d=$1 cc=$2 flags=$3
    mkdir -p "$d"
    $cc -O2 $WARN -finstrument-functions $flags -rdynamic -pthread tests/prof/selftest.c \
        -L"$PWD/build" -ledgeprobe-hooks -Wl,-rpath,"$PWD/build" -o "$d/selftest"
}
# The functions of BINARY that end in a jump to the exit hook, comma-separated.
prof_tail_called() {
    objdump -d --no-show-raw-insn "$1" | awk '
        /^[0-9a-f]+ <[^>]*>:$/ { fn = $2; gsub(/[<>:]/, "", fn) }
        /jmp +[0-9a-f]+ <__cyg_profile_func_exit(@plt)?>/ && !(fn in seen) { seen[fn]; out = out (out ? "," : "") fn }
        END { print out }'
}
prof_selftest() {
    local cc=$1 flags=$2 tail=$3 k=$4 epoch=$5 d="$B/prof-selftest-$1${2// /}-k$4" found
    command -v objdump >/dev/null || { echo "skipped: objdump (binutils) is not installed"; return 77; }
    prof_tools && prof_selftest_build "$d" "$cc" "$flags" || return 1
    found=$(prof_tail_called "$d/selftest")
    echo "exit hook tail-called in: ${found:-none}"
    if [[ $tail == none && -n $found ]]; then
        echo "FAIL $flags left tail-called exit hooks"
        return 1
    elif [[ $tail == some && ,$found, != *,vtail,* ]]; then
        echo "skipped: $cc did not tail-call vtail's exit hook"
        return 77
    fi
    EP_SELFTEST_CHILD=1 timeout 60 ./build/edgeprobe prof -o "$d/report.txt" --top 0 -k "$k" --epoch "$epoch" \
        -- "./$d/selftest" 2>"$d/prof.err" || {
        cat "$d/prof.err"
        echo "FAIL the profiled run (3: a call was lost; 4: a sample paired two calls)"
        return 1
    }
    cat "$d/prof.err"
    "./$d/selftest" --check "$d/report.txt" --tail-called "$found" || return 1
    # the command tells the user which rebuild would time them
    local n; n=$(tr ',' '\n' <<<"$found" | grep -c .)
    if [[ $n -gt 0 ]]; then
        grep -q "prof: $n functions not timed: their exit hook is tail-called (rebuild with -fno-optimize-sibling-calls" \
            "$d/prof.err" || { echo "FAIL no word from the command about the $n untimed functions"; return 1; }
    elif grep -q 'not timed' "$d/prof.err"; then
        echo "FAIL the command speaks of untimed functions"
        return 1
    fi
}
case_ prof-selftest-tailcall-gcc prof_selftest gcc "" some 10 10
case_ prof-selftest-tailcall-clang prof_selftest clang "" some 10 10
case_ prof-selftest-nosibling-gcc prof_selftest gcc "-fno-optimize-sibling-calls" none 10 10
# K=1 and a 1 ms epoch: a toggle every few calls, the most mismatch chances
case_ prof-selftest-k1-gcc prof_selftest gcc "-fno-optimize-sibling-calls" none 1 1
# The profiler linked into the program (README: "Add one file to the link"),
# the self-test's own parent running and checking the child.
prof_selftest_linked() {
    local d="$B/prof-selftest-linked"
    mkdir -p "$d"
    gcc -O2 $WARN -Iinclude -c tools/prof_agent.c -o "$d/prof_agent.o" &&
        gcc -O2 $WARN -finstrument-functions -fno-optimize-sibling-calls -rdynamic -pthread tests/prof/selftest.c \
            "$d/prof_agent.o" -ldl -o "$d/selftest" || return 1
    EDGEPROBE_PROF_MODE=none timeout 60 "./$d/selftest"
}
case_ prof-selftest-linked prof_selftest_linked
# The hooks' cost is calibrated on the profiler's own function, found by
# name: linked into a program built without -rdynamic, dladdr names it
# "0x...", and until 2026-11-28 the calibration did not run and the report
# said nothing of it. Now it is found by that name too, and where it cannot
# run (the program's own hooks take the calls: prof-own-hooks) the report
# says why.
prof_calibration_linked() {
    local d="$B/prof-calibration-linked"
    mkdir -p "$d"
    gcc -O2 $WARN -Iinclude -c tools/prof_agent.c -o "$d/prof_agent.o" &&
        gcc -O2 $WARN -finstrument-functions -fno-optimize-sibling-calls -pthread tests/prof/truth.c \
            "$d/prof_agent.o" -ldl -lm -o "$d/truth" || return 1
    EDGEPROBE_PROF_OUT="$d/report.txt" timeout -s KILL 60 "./$d/truth" 1 200 "$d/truthfile" 2>"$d/err.txt" || return 1
    cat "$d/err.txt"
    grep 'own cost per event' "$d/report.txt"
    grep -Eq "plus the hooks' calls and the provider's dispatch, [0-9]+ ticks" "$d/report.txt"
}
case_ prof-calibration-linked prof_calibration_linked

# The example a reader runs first (examples/prof_demo.c) keeps its promise:
# under `edgeprobe prof`, spin_1us, spin_10us and spin_100us show medians
# about ten times apart (at least 3x here: the machine may be busy).
prof_demo() {
    local d="$B/prof-demo" a b c
    mkdir -p "$d"
    prof_tools && gcc -O2 $WARN -fpatchable-function-entry=5 examples/prof_demo.c -pthread -o "$d/demo" || return 1
    ./build/edgeprobe prof -q -o "$d/report.txt" --svg "$d/report.svg" -- "./$d/demo" 0.3 || return 1
    cat "$d/report.txt"
    read -r a b c < <(awk '$1 == "function" { for (i = 1; i <= NF; i++) if ($i == "p50(ns)") p = i; next }
                           p && $1 == "spin_1us" { a = $p } p && $1 == "spin_10us" { b = $p } p && $1 == "spin_100us" { c = $p }
                           END { print a + 0, b + 0, c + 0 }' "$d/report.txt")
    echo "p50 ns: spin_1us $a, spin_10us $b, spin_100us $c"
    awk -v a="$a" -v b="$b" -v c="$c" 'BEGIN { exit !(a > 0 && b > 3 * a && c > 3 * b) }' &&
        grep -q 'handle_request' "$d/report.svg"
}
case_ prof-demo prof_demo

# Known truth (tests/prof/truth.c): functions that spin fixed TSC durations,
# with call counts known exactly, in THREADS threads, built with
# -fpatchable-function-entry=5 or (fi) -finstrument-functions. The plain run times
# every call from its caller (the durations to match); the profiled run's
# report must give, for every function of at least 3,000 ticks, a p50 within
# 5% (or 200 ticks, whichever is larger) and, where it says the count is
# exact, calls within 5% of the truth. Which counts are exact depends on the
# machine (a function counted in full lasts 16 times what counting a call
# costs: 800-2,000 ticks on the Intel VM of 2026-11-23, about 5,800 on the
# AMD EPYC VM of 2026-11-25). An estimated count is printed with its error
# but not asserted: its 5% target is not met (README, "How far the numbers
# can be trusted": -33% to +24% seen here). Columns are found by headings.
# Every row's latencies are in order: min <= p50 <= p99 <= max (p99 from
# the histogram, within its 2% buckets), and max is at least the p50 of
# the plain run (each call spins at least that long).
prof_truth_check() {
    awk -v tol_calls=0.05 -v tol_p50=0.05 -v floor_p50=200 '
        FNR == NR { calls[$1] = $2; p50[$1] = $3; next }
        $1 == "function" { for (i = 1; i <= NF; i++) { if ($i == "calls" || $i == "est.calls") c = i; if ($i == "p50(tk)") p = i; if ($i == "counted") k = i
                                                      if ($i == "min(tk)") lo = i; if ($i == "p99(tk)") q = i; if ($i == "max(tk)") hi = i }; next }
        c && ($1 in calls) { gc[$1] = $c; gp[$1] = $p; exact[$1] = $k == "exact"; gmin[$1] = $lo; gq[$1] = $q; gmax[$1] = $hi }
        END {
            if (!c || !p || !lo || !q || !hi) { print "FAIL: no calls, min(tk), p50(tk), p99(tk) or max(tk) column in the report"; exit 1 }
            for (f in calls) {
                if (p50[f] < 3000) continue
                dc = (gc[f] - calls[f]) / calls[f]; dp = gp[f] - p50[f]
                lim = tol_p50 * p50[f] > floor_p50 ? tol_p50 * p50[f] : floor_p50
                order = gmin[f] <= gp[f] * 1.02 && gp[f] <= gq[f] && gq[f] <= gmax[f] * 1.02 && gmax[f] >= p50[f]
                ok = (f in gc) && (!exact[f] || (dc <= tol_calls && dc >= -tol_calls)) && dp <= lim && dp >= -lim && order
                printf "%-4s %-12s calls %8d, reported %10.0f (%+.1f%%, %s); p50 %7d ticks, reported %7.0f (%+.0f, limit %.0f); min %.0f p99 %.0f max %.0f%s\n",
                       ok ? "ok" : "FAIL", f, calls[f], gc[f], 100 * dc, exact[f] ? "exact" : "estimated, not asserted",
                       p50[f], gp[f], dp, lim, gmin[f], gq[f], gmax[f], order ? "" : " (not in order)"
                bad += !ok
                nexact += exact[f]
            }
            printf "%d of the functions of 3,000 ticks or more counted exactly\n", nexact
            exit bad != 0
        }' "$1" "$2"
}
prof_truth() {
    local threads=$1 rounds=$2 flag=${3:-fentry} d="$B/prof-truth-$1-${3:-fentry}" build
    build="-fpatchable-function-entry=5"
    [[ $flag == fi ]] && build="-finstrument-functions -fno-optimize-sibling-calls -rdynamic"
    mkdir -p "$d"
    prof_tools && gcc -O2 $WARN $build tests/prof/truth.c -pthread -o "$d/truth" || return 1
    "./$d/truth" "$threads" "$rounds" "$d/truth.txt" time || return 1
    ./build/edgeprobe prof -q -o "$d/report.txt" --top 0 -- "./$d/truth" "$threads" "$rounds" "$d/counted.txt" || return 1
    cat "$d/report.txt"
    cmp <(cut -d' ' -f1-2 "$d/truth.txt") <(cut -d' ' -f1-2 "$d/counted.txt") || { echo "FAIL the calls differ under prof"; return 1; }
    # what a timed call's exit costs beyond its handler (the return
    # trampoline) is calibrated and taken out of its callers' time: it read
    # 0 in every report until 2026-11-26 (the calibration's timed calls
    # were not timed past the window's 8K entries and its bank's slots)
    # (the provider's: its hooks' calls, charged since 2026-11-27; truth_outer
    # read p50 +9.6% without, its callees' events in its time)
    if [[ $flag == fi ]]; then
        grep -E "the provider's dispatch, [1-9][0-9]* ticks" "$d/report.txt" ||
            { echo "FAIL the provider's calibrated cost is 0 (or missing)"; return 1; }
    else
        grep -E 'trampolines [0-9]+ ticks \(entry\) and [1-9][0-9]* \(exit\)' "$d/report.txt" ||
            { echo "FAIL the exit's calibrated cost is 0 (or missing)"; return 1; }
    fi
    prof_truth_check "$d/truth.txt" "$d/report.txt"
}
case_ prof-truth-1thread prof_truth 1 8000
case_ prof-truth-3threads prof_truth 3 4000
case_ prof-truth-finstrument prof_truth 1 8000 fi

# A function whose call rate and duration vary together (tests/prof/
# phases.c: busy phases of thousands of short calls an epoch, sparse ones of
# a few 1 ms calls an epoch): every epoch gives up to K samples, so unless a
# sample weighs the calls it stands for, the sparse phases set the p50 and
# the mean. The p50 must be within 5% (or 200 ticks) of the plain run's; the
# mean and the total within 10% of the profiled run's own calls, each less
# the profiler's cost on it (the short calls' medians of the two runs
# differ by it): a loaded machine moves a run's mean by more than 10%.
prof_phases_check() { # PLAIN PROFILED REPORT
    awk -v tol_p50=0.05 -v floor_p50=200 -v tol=0.10 '
        FILENAME == ARGV[1] { p50 = $4; short0 = $6; next }
        FILENAME == ARGV[2] { calls = $2; total = $5 - $2 * ($6 - short0); mean = total / calls; next }
        $1 == "function" { for (i = 1; i <= NF; i++) { if ($i == "calls") c = i; if ($i == "mean(tk)") m = i; if ($i == "mean(ns)") mn = i
                                                      if ($i == "p50(tk)") p = i; if ($i == "total(ms)") t = i }; next }
        c && $1 == "phase_f" { gc = $c; gm = $m; gp = $p; gt = $t; gns = $mn }
        END {
            if (!gm) { print "FAIL: no row for phase_f in the report"; exit 1 }
            lim = tol_p50 * p50 > floor_p50 ? tol_p50 * p50 : floor_p50
            tms = total * gns / gm / 1e6 # the truth in ms, at the report'"'"'s ns per tick
            dm = (gm - mean) / mean; dt = (gt - tms) / tms; dc = (gc - calls) / calls
            okp = gp - p50 <= lim && p50 - gp <= lim; okm = dm <= tol && -dm <= tol; okt = dt <= tol && -dt <= tol
            printf "%-4s p50   %9.0f ticks, reported %9.0f (%+.0f, limit %.0f)\n", okp ? "ok" : "FAIL", p50, gp, gp - p50, lim
            printf "%-4s mean  %9.0f ticks, reported %9.0f (%+.1f%%)\n", okm ? "ok" : "FAIL", mean, gm, 100 * dm
            printf "%-4s total %9.3f ms,    reported %9.3f (%+.1f%%)\n", okt ? "ok" : "FAIL", tms, gt, 100 * dt
            printf "info calls %9d,       reported %9.0f (%+.1f%%)\n", calls, gc, 100 * dc
            exit !(okp && okm && okt)
        }' "$1" "$2" "$3"
}
prof_phases() {
    local rounds=$1 d="$B/prof-phases"
    mkdir -p "$d"
    prof_tools && gcc -O2 $WARN -fpatchable-function-entry=5 tests/prof/phases.c -o "$d/phases" || return 1
    "./$d/phases" "$rounds" "$d/plain.txt" || return 1
    ./build/edgeprobe prof -q -o "$d/report.txt" --top 0 -- "./$d/phases" "$rounds" "$d/profiled.txt" || return 1
    cat "$d/report.txt" "$d/plain.txt" "$d/profiled.txt"
    prof_phases_check "$d/plain.txt" "$d/profiled.txt" "$d/report.txt"
}
case_ prof-phases prof_phases 4

# A launched program ended by SIGTERM or SIGINT still leaves its report, and
# still ends by that signal (the command returns 128 + N). The shell starts
# background jobs with SIGINT ignored, and a program that ignores a signal
# keeps it so: env gives the program SIGINT's default action.
# prof_signalled SIG ERR COMMAND...: COMMAND (a `prof` that launches a
# program) in the background, with the caller's stdin and SIGINT's default
# action, its stderr to ERR; the program gets SIG after a second (KILL
# after 30 more); the command's status in term_rc; ERR shown.
prof_signalled() {
    local sig=$1 err=$2 cmd child= i dog
    shift 2
    env --default-signal=INT "$@" <&0 2>"$err" &
    cmd=$!
    for i in $(seq 100); do child=$(pgrep -P "$cmd") && break; sleep 0.05; done
    [[ -n $child ]] || { kill "$cmd"; echo "FAIL no program started"; return 1; }
    sleep 1
    (sleep 30; kill -KILL "$child" 2>/dev/null) &
    dog=$!
    kill -"$sig" "$child"
    wait "$cmd"
    term_rc=$?
    kill "$dog" 2>/dev/null
    cat "$err"
}
prof_stop_signal() {
    local sig=$1 want=$2 d="$B/prof-signal-$1" term_rc
    mkdir -p "$d"
    rm -f "$d/report.txt"
    prof_tools && gcc -O2 $WARN -fpatchable-function-entry=5 tests/prof/truth.c -pthread -o "$d/truth" || return 1
    prof_signalled "$sig" "$d/prof.err" ./build/edgeprobe prof -o "$d/report.txt" -- "./$d/truth" 1 1000000000 \
        "$d/never.txt" || return 1
    head -14 "$d/report.txt" 2>/dev/null
    [[ $term_rc -eq $want ]] || { echo "FAIL status $term_rc, not $want"; return 1; }
    grep -q '^truth_30k ' "$d/report.txt" && grep -q '^edgeprobe-prof-summary:' "$d/report.txt" &&
        grep -q 'report in' "$d/prof.err" || { echo "FAIL no report after SIG$sig"; return 1; }
}
case_ prof-report-on-sigterm prof_stop_signal TERM 143
case_ prof-report-on-sigint prof_stop_signal INT 130

# C++: names demangled by the program's own C++ runtime, printed whole.
prof_cxx_names() {
    local d="$B/prof-cxx-names" want='edgeprobe_test::deeply_nested_namespace::AccumulatorWithAVeryLongName<long>::add_all_the_values(std::vector<long, std::allocator<long> > const&, int)'
    mkdir -p "$d"
    prof_tools && g++ -O2 $WARN -fpatchable-function-entry=5 tests/prof/cxx_names.cc -o "$d/cxx_names" || return 1
    ./build/edgeprobe prof -q -o "$d/report.txt" -- "./$d/cxx_names" >/dev/null || return 1
    cat "$d/report.txt"
    grep -qF "$want" "$d/report.txt" || { echo "FAIL no demangled, whole name: $want"; return 1; }
}
case_ prof-cxx-names prof_cxx_names

# g++ and a C++ static library of leveldb's shape (tests/prof/cxxlib/env.h
# says what triggers the link failure). clang++ builds it and prof names its
# functions, demangled; g++ 12 fails to link it as the README says (if a
# g++ links it, the case says so and profiles that build too); g++ with
# -fno-weak links (the README says why that is no general fix).
prof_cxxlib_build() { # DIR CXX FLAGS
    local d=$1 cxx=$2 flags=$3 f
    mkdir -p "$d"
    for f in env user; do $cxx -O2 $flags -fpatchable-function-entry=5 -c tests/prof/cxxlib/$f.cc -o "$d/$f.o" || return 1; done
    rm -f "$d/lib.a" && ar rcs "$d/lib.a" "$d/env.o" "$d/user.o" &&
        $cxx -O2 $flags -fpatchable-function-entry=5 tests/prof/cxxlib/main.cc "$d/lib.a" -o "$d/main" 2>"$d/link.err"
}
prof_cxxlib_profile() { # DIR
    ./build/edgeprobe prof -q -o "$1/report.txt" --top 0 -- "./$1/main" >/dev/null || return 1
    grep -q '^edgeprobe_cxxlib::helper(unsigned long) ' "$1/report.txt" &&
        grep -q '^edgeprobe_cxxlib::use_it() ' "$1/report.txt" ||
        { cat "$1/report.txt"; echo "FAIL $1: the report lacks helper or use_it"; return 1; }
}
prof_cxxlib() {
    local d="$B/prof-cxxlib"
    command -v clang++ >/dev/null || { echo "skipped: clang++ is not installed"; return 77; }
    prof_tools || return 1
    prof_cxxlib_build "$d/clang" clang++ "" && prof_cxxlib_profile "$d/clang" || { cat "$d/clang/link.err"; return 1; }
    if prof_cxxlib_build "$d/gcc" g++ ""; then
        echo "note: $(g++ -dumpversion) links this shape; profiling it too"
        prof_cxxlib_profile "$d/gcc" || return 1
    else
        cat "$d/gcc/link.err"
        grep -q 'discarded section' "$d/gcc/link.err" || { echo "FAIL g++ failed otherwise"; return 1; }
        echo "g++ $(g++ -dumpversion): the known link failure (README, 'g++ and -fpatchable-function-entry')"
    fi
    prof_cxxlib_build "$d/gcc-noweak" g++ "-fno-weak" && prof_cxxlib_profile "$d/gcc-noweak" ||
        { cat "$d/gcc-noweak/link.err"; echo "FAIL g++ -fno-weak"; return 1; }
}
case_ prof-cxx-static-lib prof_cxxlib

# fork without exec (tests/prof/forker.c): the child neither stops the
# parent's profiler nor writes the report; SIGTERM still kills a child; the
# parent's calls after the fork are in its report.
prof_fork() {
    local d="$B/prof-fork"
    mkdir -p "$d"
    prof_tools && gcc -O2 $WARN -fpatchable-function-entry=5 tests/prof/forker.c -o "$d/forker" || return 1
    timeout 60 ./build/edgeprobe prof -q -o "$d/report.txt" -- "./$d/forker" || { echo "FAIL status $?"; return 1; }
    cat "$d/report.txt"
    grep -q '^after_fork_work ' "$d/report.txt" || { echo "FAIL no after_fork_work in the report"; return 1; }
    ! grep -q '^child_work ' "$d/report.txt" || { echo "FAIL the child wrote the report"; return 1; }
}
case_ prof-fork prof_fork

# `prof --report-now PID`: the report so far of a program launched by prof
# with EDGEPROBE_CONTROL=1, with the views it asks for (--graph, --flame);
# it runs on, and its own report comes at exit. A process that runs no
# profile says so.
prof_report_now() {
    local d="$B/prof-report-now" pid wall
    mkdir -p "$d"
    rm -f "$d/stop" "$d/now.txt" "$d/final.txt"
    prof_tools && gcc -O2 $WARN -fpatchable-function-entry=5 tests/prof/until.c -o "$d/until" || return 1
    EDGEPROBE_CONTROL=1 timeout 60 ./build/edgeprobe prof -q -o "$d/final.txt" -- "./$d/until" "$d/stop" &
    local prof=$!
    for _ in $(seq 100); do pid=$(pgrep -n -f "^./$d/until") && ./build/edgeprobe list $pid >/dev/null 2>&1 && break; sleep 0.05; done
    sleep 0.5
    ./build/edgeprobe prof --report-now $pid -o "$d/now.txt" --graph --sort self --flame "$d/now.svg" ||
        { touch "$d/stop"; wait $prof; return 1; }
    kill -0 $pid || { echo "FAIL the program stopped"; return 1; }
    sleep 0.3
    touch "$d/stop"
    wait $prof || { echo "FAIL prof's status $?"; return 1; }
    cat "$d/now.txt"
    grep -q '^until_work ' "$d/now.txt" && grep -q '^until_work ' "$d/final.txt" || { echo "FAIL until_work missing"; return 1; }
    # the views travel in the request: the graph in the report, the flame graph beside it
    grep -q '^call graph:' "$d/now.txt" && ! grep -q '^call graph:' "$d/final.txt" && grep -q 'until_work' "$d/now.svg" ||
        { echo "FAIL no graph or flame graph from --report-now"; return 1; }
    wall=$(sed -n 's/^run \([0-9.]*\) s wall.*/\1/p' "$d/now.txt")
    echo "report-now covered $wall s; the final report $(sed -n 's/^run \([0-9.]*\) s wall.*/\1/p' "$d/final.txt") s"
    python3 -c "import sys; a, b = map(float, sys.argv[1:]); sys.exit(not (0.3 < a < b))" "$wall" \
        "$(sed -n 's/^run \([0-9.]*\) s wall.*/\1/p' "$d/final.txt")" || { echo "FAIL the spans"; return 1; }
}
case_ prof-report-now prof_report_now

# The views (tests/prof/graph.c: graph_a spins 20,000 ticks of its own and
# calls graph_b, 30,000; graph_rec recurses 8 deep, 5,000 a level). Each case
# runs it under prof with the options it checks; ROUNDS keep a run near 0.5 s.
prof_views_run() { # DIR CFLAGS PROF-OPTIONS...
    local d=$1 flags=$2
    shift 2
    mkdir -p "$d"
    prof_tools && gcc -O2 $flags $WARN -fpatchable-function-entry=5 tests/prof/graph.c -o "$d/graph" || return 1
    ./build/edgeprobe prof -q -o "$d/report.txt" --top 0 "$@" -- "./$d/graph" 6000 || return 1
    sed -n '/^function /,/^total = /p' "$d/report.txt"
}
# The value of column HEADING in FUNCTION's row of REPORT.
prof_col() {
    awk -v f="$2" -v h="$3" '$1 == "function" && $2 == "sampled" { for (i = 1; i <= NF; i++) if ($i == h) c = i; next }
                             c && $1 == f { print $c; exit }' "$1"
}
# Whether REPORT's rows come in decreasing order of column HEADING.
prof_sorted_by() {
    awk -v h="$2" '$1 == "function" && $2 == "sampled" { for (i = 1; i <= NF; i++) if ($i == h) c = i; next }
                   c && /^total = / { exit }
                   c && NF > c && $c != "-" { n++; if (n > 1 && $c + 0 > last + 0) bad = 1; last = $c }
                   END { exit !(n > 3 && !bad) }' "$1"
}
# Self time: self(a) = total(a) - total(b) (b is a's only callee), within
# 5% of total(a), and self(b) = total(b) (no callees). self(a)/total(a) is
# printed against its truth, 0.4, not asserted: totals are calls x mean, and
# one preemption in a sampled call moves a mean (0.31 and 0.63 seen on a
# busy machine, where p50s held). The same for graph_t, whose only call,
# graph_u, is a tail call (a jmp: graph_u returns to main), within 10%
# (TAIL CALLS: before, self(t) = total(t)). --sort self and --sort calls
# order the table by those columns.
prof_self_time() {
    local d="$B/prof-self-time" ta tb sa sb tt tu st
    prof_views_run "$d" "" --sort self || return 1
    ta=$(prof_col "$d/report.txt" graph_a "total(ms)") tb=$(prof_col "$d/report.txt" graph_b "total(ms)")
    sa=$(prof_col "$d/report.txt" graph_a "self(ms)") sb=$(prof_col "$d/report.txt" graph_b "self(ms)")
    echo "graph_a total $ta ms self $sa ms; graph_b total $tb ms self $sb ms"
    awk -v ta="$ta" -v tb="$tb" -v sa="$sa" -v sb="$sb" 'BEGIN {
        d = sa - (ta - tb); r = sa / ta
        printf "self(a) - (total(a) - total(b)) = %.3f ms (limit %.3f); self(a)/total(a) = %.3f (truth 0.4); " \
               "self(b)/total(b) = %.3f (truth 1)\n", d, 0.05 * ta, r, sb / tb
        exit !(ta > 0 && sa > 0 && d <= 0.05 * ta && d >= -0.05 * ta && sb / tb > 0.95) }' ||
        { echo "FAIL self time"; return 1; }
    tt=$(prof_col "$d/report.txt" graph_t "total(ms)") tu=$(prof_col "$d/report.txt" graph_u "total(ms)")
    st=$(prof_col "$d/report.txt" graph_t "self(ms)")
    awk -v tt="$tt" -v tu="$tu" -v st="$st" 'BEGIN {
        d = st - (tt - tu)
        printf "graph_t total %s ms self %s ms, graph_u (its tail call) total %s ms: self(t) - (total(t) - total(u)) = %.3f ms (limit %.3f)\n", \
               tt, st, tu, d, 0.1 * tt
        exit !(tt > 0 && tu > 0 && d <= 0.1 * tt && d >= -0.1 * tt) }' || { echo "FAIL self time of a tail call's caller"; return 1; }
    # the rows in the order of their own column (which function comes first
    # depends on the means, so on the machine's load)
    prof_sorted_by "$d/report.txt" "self(ms)" || { echo "FAIL --sort self: rows not by self time"; return 1; }
    ./build/edgeprobe prof -q -o "$d/calls.txt" --top 0 --sort calls -- "./$d/graph" 1000 &&
        prof_sorted_by "$d/calls.txt" calls || { echo "FAIL --sort calls: rows not by calls"; return 1; }
}
case_ prof-self-time prof_self_time
# Recursion counted once: graph_rec's total is its outermost calls', 6,000
# of 8 x 5,000 ticks (counted level by level it would be 4.5 times that,
# held at 100% of the run), and its share stays below 100%; graph_ping,
# recursive through graph_pong, 6,000 of 8 x 2,500 (level by level: 2.5
# times that). Against the
# truth in ticks, not against graph_a: a preempted sample in graph_a's mean
# moved that ratio to 0.3 on a busy machine.
prof_recursion_once() {
    local d="$B/prof-recursion" tr tp ghz share
    prof_views_run "$d" "" || return 1
    tr=$(prof_col "$d/report.txt" graph_rec "total(ms)") share=$(prof_col "$d/report.txt" graph_rec "share%")
    tp=$(prof_col "$d/report.txt" graph_ping "total(ms)")
    ghz=$(sed -n 's/.* TSC \([0-9.]*\) GHz.*/\1/p' "$d/report.txt")
    echo "graph_rec total $tr ms, share $share%; graph_ping total $tp ms; TSC $ghz GHz"
    awk -v tr="$tr" -v tp="$tp" -v ghz="$ghz" -v s="$share" 'BEGIN {
        r = tr * 1e6 * ghz / (6000 * 8 * 5000); p = tp * 1e6 * ghz / (6000 * 8 * 2500)
        printf "total(rec) / its truth (6,000 x 40,000 ticks) = %.3f (limits 0.7 to 1.6); share %.2f%% (under 100)\n", r, s
        printf "total(ping) / its truth (6,000 x 20,000 ticks) = %.3f (limits 0.7 to 1.6; through pong)\n", p
        exit !(r > 0.7 && r < 1.6 && s < 100 && p > 0.7 && p < 1.6) }' || { echo "FAIL recursion counted more than once"; return 1; }
}
case_ prof-recursion-once prof_recursion_once
# Call graph: --graph names graph_b as graph_a's callee, graph_a as its
# caller, graph_rec as its own caller; the folded stacks hold main;graph_a;
# graph_b; the flame graph parses as XML, names graph_a and graph_b, and has
# a time axis.
prof_call_graph() {
    local d="$B/prof-call-graph"
    prof_views_run "$d" "" --graph --flame "$d/flame.svg" --folded "$d/stacks.folded" || return 1
    sed -n '/^call graph:/,/^edgeprobe-prof-summary/p' "$d/report.txt"
    head -5 "$d/stacks.folded"
    awk '/^call graph:/ { g = 1; next } g && /^[^ ]/ { f = $1; next }
         g && f == "graph_a" && $1 == "->" && $2 == "graph_b" { ab = 1 }
         g && f == "graph_b" && $1 == "<-" && $2 == "graph_a" { ba = 1 }
         g && f == "graph_rec" && $1 == "<-" && $2 == "graph_rec" { rr = 1 }
         END { exit !(ab && ba && rr) }' "$d/report.txt" || { echo "FAIL the graph lacks a->b, b<-a or rec<-rec"; return 1; }
    grep -q '^main;graph_a;graph_b [1-9]' "$d/stacks.folded" || { echo "FAIL no stack main;graph_a;graph_b"; return 1; }
    python3 - "$d/flame.svg" <<'PY' || { echo "FAIL the flame graph"; return 1; }
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
texts = " ".join(t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}text"))
titles = " ".join(t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}title"))
ok = all(n in titles for n in ("graph_a", "graph_b", "main")) and "time (ms)" in texts
print("flame graph: %d elements; names %s; axis %s" % (len(list(root.iter())), "ok" if "graph_b" in titles else "missing",
      "ok" if "time (ms)" in texts else "missing"))
sys.exit(not ok)
PY
}
case_ prof-call-graph prof_call_graph
# file:line: with -g, graph_a's where column is tests/prof/graph.c and the
# line of its definition (addr2line, run by the command); without -g it
# stays OBJECT+0xADDRESS, and so does the static graph_pong's, for which
# addr2line finds a file and no line ("graph.c:?" before).
prof_file_line() {
    local d="$B/prof-file-line" want got
    command -v addr2line >/dev/null || { echo "skipped: addr2line (binutils) is not installed"; return 77; }
    prof_views_run "$d/g" "-g" || return 1
    want="tests/prof/graph.c:$(grep -n '^NOINLINE void graph_a' tests/prof/graph.c | cut -d: -f1)"
    got=$(prof_col "$d/g/report.txt" graph_a where)
    echo "graph_a where: $got (want $want)"
    [[ $got == "$want" ]] || { echo "FAIL file:line"; return 1; }
    prof_views_run "$d/nog" "" || return 1
    for fn in graph_a graph_pong; do
        got=$(prof_col "$d/nog/report.txt" $fn where)
        echo "without -g: $fn $got"
        [[ $got == "$PWD/$d/nog/graph+0x"* ]] || { echo "FAIL without -g, want OBJECT+0xADDRESS"; return 1; }
    done
}
case_ prof-file-line prof_file_line

# A server under load (issue 19): tests/attach/server.c (the flag, no
# header) launched under `edgeprobe prof`, two loopback client connections
# for 2 s, then SIGTERM: the client saw no error, and the report names the
# server's request path with calls counted.
prof_server() {
    local d=$B/prof-server port server= cmd rc=0 i
    mkdir -p "$d"
    rm -f "$d/port" "$d/stop" "$d/report.txt"
    prof_tools && gcc -O2 $WARN -fpatchable-function-entry=5 -pthread tests/attach/server.c -o "$d/server" &&
        gcc -O2 $WARN tests/attach/client.c -o "$d/client" || return 1
    ./build/edgeprobe prof -o "$d/report.txt" -k 5 --epoch 5 -- "./$d/server" "$d/port" 2>"$d/prof.err" &
    cmd=$!
    for i in $(seq 100); do [[ -s $d/port ]] && break; sleep 0.1; done
    server=$(pgrep -P "$cmd") && port=$(cat "$d/port") || { kill "$cmd"; echo "FAIL the server did not start"; return 1; }
    (sleep 2; touch "$d/stop") &
    "./$d/client" "$port" 2 "$d/stop" >"$d/client.txt" || rc=1
    kill -TERM "$server"
    wait "$cmd"
    cat "$d/client.txt" "$d/prof.err"
    head -12 "$d/report.txt" 2>/dev/null
    grep -q '^requests [1-9][0-9]* errors 0$' "$d/client.txt" || { echo "FAIL the client saw errors"; rc=1; }
    for fn in handle_request request_checksum parse_request format_reply; do
        awk -v f="$fn" '$1 == f && $2 > 0 {found=1} END {exit !found}' "$d/report.txt" ||
            { echo "FAIL the report lacks $fn with calls"; rc=1; }
    done
    prof_server_calls "$d/client.txt" "$d/report.txt" 0.10 || rc=1
    return $rc
}
# The estimated calls of handle_request against the requests the client had
# answered (one call each): within tol. Threads blocked in read() most of
# the time once made the estimate 0.72-0.92 of the truth (the README, prof).
prof_server_calls() {
    awk -v tol="$3" '
        FNR == NR { if ($1 == "requests") want = $2; next }
        $1 == "function" { for (i = 1; i <= NF; i++) if ($i == "calls") c = i; next }
        c && $1 == "handle_request" { got = $c }
        END {
            if (!want || !got) { print "FAIL no requests or no calls of handle_request"; exit 1 }
            d = (got - want) / want
            ok = d <= tol && d >= -tol
            printf "%s handle_request: %d requests answered, %.0f calls estimated (%+.1f%%, limit %.0f%%)\n",
                   ok ? "ok" : "FAIL", want, got, 100 * d, 100 * tol
            exit !ok
        }' "$1" "$2"
}
case_ prof-server prof_server

# Calls in dense bursts after idle phases (tests/prof/bursts.c): an interval
# that counted nothing while a function was idle grew, and the burst then
# went through the handler call by call until the next fold (lua under
# prof: 12.6 M handler calls in 1.5 s, +40% CPU). A count that reaches
# PROF_COUNT_CAP now ends the function's interval for the epoch. Asserted:
# handler invocations per epoch (642-686 here; 13,352 before the cap),
# and that no function run by one thread of the four has a share over 100%
# (the bound was 100% times every thread that hit probes: 400%), and that
# a count the report calls exact is within 0.5% of the truth. The
# estimated calls of the burst functions are printed, not asserted (README,
# "How far the numbers can be trusted").
prof_bursts() {
    local d=$B/prof-bursts
    mkdir -p "$d"
    prof_tools && gcc -O2 $WARN -fpatchable-function-entry=5 tests/prof/bursts.c -pthread -o "$d/bursts" || return 1
    ./build/edgeprobe prof -q -o "$d/report.txt" --top 0 -- "./$d/bursts" 20 >"$d/truth.txt" || return 1
    cat "$d/truth.txt"
    head -14 "$d/report.txt"
    awk -v limit=4000 '
        FNR == NR { truth[$1] = $2; next }
        /^handler invocations:/ { events = $3 }
        /epochs:/ { for (i = 1; i <= NF; i++) if ($i == "epochs:") epochs = $(i + 1) }
        $1 == "function" { for (i = 1; i <= NF; i++) { if ($i == "calls") c = i; if ($i == "share%") s = i; if ($i == "counted") k = i }; next }
        c && ($1 in truth) { got[$1] = $c; share[$1] = $s; how[$1] = $k }
        END {
            if (!epochs || !c || !s) { print "FAIL no epochs, calls or share% in the report"; exit 1 }
            per = events / epochs
            bad = per > limit
            printf "%s handler invocations per epoch: %.0f (limit %d)\n", bad ? "FAIL" : "ok", per, limit
            for (f in truth) {
                if (!(f in got)) { printf "FAIL %s is not in the report\n", f; bad++; continue }
                one = f != "burst_helper"
                over = one && share[f] > 100
                # a count the report calls exact is the truth (the tremove of lua
                # once read 0 of 40,000 calls, "exact")
                wrong = how[f] == "exact" && (got[f] < truth[f] * 0.995 || got[f] > truth[f] * 1.005)
                printf "%s %-12s calls %9d, reported %11.0f %s (x%.2f%s); share %6.2f%%%s\n",
                       over || wrong ? "FAIL" : "ok", f, truth[f], got[f], how[f], got[f] / truth[f],
                       how[f] == "exact" ? ", must be 1" : ", not asserted", share[f], one ? " (one thread: at most 100)" : ""
                bad += over + wrong
            }
            exit bad != 0
        }' "$d/truth.txt" "$d/report.txt"
}
case_ prof-bursts prof_bursts

# A function called steadily for a few epochs, then not at all for as long
# (tests/prof/alternating.c, the shape of lua's garbage collector). Two
# runs. 12 rounds of calls of about 70 ticks, counted by the skip path up
# to a count: the estimate must be within 0.8-1.25 of the truth (0.99-1.04
# here, 1.08-1.13 with the tick gap's fix alone; 0.58-0.88 when a window
# re-opened at the tick closed in the tick gap and left the next epoch
# unobserved). One round of calls of about
# 450 ticks, counted in full but in the first epoch, whose count ends at
# its initial cap: within 2% of the truth (0.996-1.001 here; 0.92-0.97,
# labelled exact, when the calibration's look at the clock stood in the
# first epoch and its span read days).
prof_alternating() {
    local d=$B/prof-alternating work bad=0
    mkdir -p "$d"
    prof_tools && gcc -O2 $WARN -fpatchable-function-entry=5 tests/prof/alternating.c -o "$d/alternating" || return 1
    for work in 100 600; do
        ./build/edgeprobe prof -q -o "$d/report-$work.txt" --top 0 -- "./$d/alternating" \
            $([[ $work == 100 ]] && echo 12 60000000 || echo 1 700000000) "$work" >"$d/truth-$work.txt" || return 1
        awk -v work="$work" '
            FNR == NR { truth[$1] = $2; next }
            $1 == "function" { for (i = 1; i <= NF; i++) { if ($i == "calls") c = i; if ($i == "counted") k = i }; next }
            c && k && $1 == "alt_hot" { got = $c; how = $k }
            END {
                t = truth["alt_hot"]
                if (!t || got == "") { print "FAIL alt_hot: no truth or not in the report"; exit 1 }
                lo = work == 600 ? 0.98 : 0.8; hi = work == 600 ? 1.02 : 1.25
                bad = got < t * lo || got > t * hi
                printf "%s alt_hot (work %d): %d calls, reported %.0f %s (x%.3f; must be x%.2f-%.2f)\n",
                       bad ? "FAIL" : "ok", work, t, got, how, got / t, lo, hi
                exit bad
            }' "$d/truth-$work.txt" "$d/report-$work.txt" || bad=1
    done
    return $bad
}
case_ prof-alternating prof_alternating

# --exact-calls (README, "Exact calls"): every call counted, none estimated,
# whatever the calls' pattern. Known counts: the truth program (three
# threads, calls of 100 ticks to 30,000), bursts (a burst of short calls
# after an idle phase, every round), alternating (phases of a few epochs
# with none between), signals (a signal handler's calls) and the provider (-finstrument-functions: counted by
# the handler, no skip path). Every function of the truth must read its
# calls exactly, labelled exact, and no row of the report may be
# estimated; the truth's p50s are held to prof-truth's bounds.
prof_exact_check() { # TRUTH REPORT
    awk '
        FNR == NR { truth[$1] = $2; next }
        $1 == "function" { for (i = 1; i <= NF; i++) { if ($i == "calls") c = i; if ($i == "counted") k = i }; next }
        c && k && $k == "estimated" { printf "FAIL %s is estimated\n", $1; bad++ }
        c && ($1 in truth) { got[$1] = $c; how[$1] = $k }
        END {
            if (!c || !k) { print "FAIL no calls or counted column in the report"; exit 1 }
            for (f in truth) {
                ok = (f in got) && got[f] == truth[f] && how[f] == "exact"
                printf "%s %-12s calls %9d, reported %9s %s\n", ok ? "ok" : "FAIL", f, truth[f], got[f], how[f]
                bad += !ok
            }
            exit bad != 0
        }' "$1" "$2"
}
prof_exact_calls() {
    local d=$B/prof-exact-calls bad=0
    mkdir -p "$d"
    prof_tools || return 1
    gcc -O2 $WARN -fpatchable-function-entry=5 tests/prof/truth.c -pthread -o "$d/truth" &&
        gcc -O2 $WARN -fpatchable-function-entry=5 tests/prof/bursts.c -pthread -o "$d/bursts" &&
        gcc -O2 $WARN -fpatchable-function-entry=5 tests/prof/alternating.c -o "$d/alternating" &&
        gcc -O2 $WARN -fpatchable-function-entry=5 tests/prof/signals.c -pthread -o "$d/signals" &&
        gcc -O2 $WARN -finstrument-functions tests/prof/bursts.c -pthread -L"$PWD/build" -ledgeprobe-hooks \
            -Wl,-rpath,"$PWD/build" -o "$d/bursts-provider" || return 1
    "./$d/truth" 3 4000 "$d/truth.txt" time || return 1
    local ep=(./build/edgeprobe prof -q --top 0 --exact-calls)
    "${ep[@]}" -o "$d/truth-report.txt" -- "./$d/truth" 3 4000 "$d/counted.txt" || return 1
    head -12 "$d/truth-report.txt"
    grep -q '^=== edgeprobe profiler: mode sample (exact calls),' "$d/truth-report.txt" ||
        { echo "FAIL the header does not say exact calls"; bad=1; }
    echo "truth, 3 threads:"
    prof_exact_check <(cut -d' ' -f1-2 "$d/counted.txt") "$d/truth-report.txt" || bad=1
    prof_truth_check "$d/truth.txt" "$d/truth-report.txt" || bad=1
    "${ep[@]}" -o "$d/bursts-report.txt" -- "./$d/bursts" 20 >"$d/bursts-truth.txt" || return 1
    echo "bursts:"
    prof_exact_check "$d/bursts-truth.txt" "$d/bursts-report.txt" || bad=1
    "${ep[@]}" -o "$d/alt-report.txt" -- "./$d/alternating" 12 60000000 100 >"$d/alt-truth.txt" || return 1
    echo "alternating:"
    prof_exact_check "$d/alt-truth.txt" "$d/alt-report.txt" || bad=1
    # a signal handler's calls, many of them while a handler ran (none runs
    # for those: edgeprobe_func_nested counts them; without, 0.5-0.9x)
    "${ep[@]}" -o "$d/signals-report.txt" -- "./$d/signals" 0.5 >"$d/signals-truth.txt" || return 1
    echo "signals:"
    prof_exact_check "$d/signals-truth.txt" "$d/signals-report.txt" || bad=1
    # and a function asleep whose only calls come inside a handler: they
    # wake nobody, and the end's fold takes them (the report once lacked it)
    "${ep[@]}" -k 1000000 -o "$d/late-report.txt" -- "./$d/signals" 0.6 late >"$d/late-truth.txt" || return 1
    echo "signals, late:"
    grep -q '^sig_late [12]$' "$d/late-truth.txt" || { echo "FAIL sig_late was not called: $(cat "$d/late-truth.txt")"; bad=1; }
    prof_exact_check "$d/late-truth.txt" "$d/late-report.txt" || bad=1
    # the provider finds a site at its first call: the calls until it is
    # bound (within the first epoch) are not seen, and the header says so;
    # an epoch in which a later site (an inlined copy) closed the window
    # until it was bound is estimated, and says so (at most 1.5)
    "${ep[@]}" -o "$d/provider-report.txt" -- "./$d/bursts-provider" 8 >"$d/provider-truth.txt" || return 1
    echo "bursts, -finstrument-functions (calls from the binding on: 0.5 to 1 of the truth, exact; to 1.5, estimated):"
    grep -q "^calls are counted from each site's binding on" "$d/provider-report.txt" ||
        { echo "FAIL the provider's report does not say where its counts start"; bad=1; }
    awk '
        FNR == NR { truth[$1] = $2; next }
        $1 == "function" { for (i = 1; i <= NF; i++) { if ($i == "calls") c = i; if ($i == "counted") k = i }; next }
        c && ($1 == "burst_leaf" || $1 == "burst_mid") {
            seen++; r = $c / truth[$1]; ok = r >= 0.5 && (r <= 1 && $k == "exact" || r <= 1.5 && $k == "estimated")
            printf "%s %-12s calls %9d, reported %9d %s (x%.3f)\n", ok ? "ok" : "FAIL", $1, truth[$1], $c, $k, r
            bad += !ok
        }
        END { if (seen != 2) { print "FAIL burst_leaf or burst_mid missing"; exit 1 }; exit bad != 0 }' \
        "$d/provider-truth.txt" "$d/provider-report.txt" || bad=1
    return $bad
}
case_ prof-exact-calls prof_exact_calls

# A timed call still running when its epoch is weighed (tests/prof/
# straddle.c, with -k 1000): a 30 M-tick call of shared_work among 20,000
# calls of 100 ticks on another thread. Its exit took the weight the fold
# gave the running calls, a score of calls as long as itself: the report's
# mean read 12-17 times the mean the program measured. It must be within
# 0.3-3 of it: 0.9-1.0 on an idle machine. Under load it spreads (0.35-2.7
# with two busy loops beside it: preempted short calls weigh as samples, and
# the estimated calls read up to 1.7 times the truth), so it runs holding the
# lock "cpu" (both its threads spin); a long call that no window timed leaves
# the mean at 0.1, the bug at 12 or more.
prof_straddle() {
    local d=$B/prof-straddle
    mkdir -p "$d"
    prof_tools && gcc -O2 $WARN -fpatchable-function-entry=5 -pthread tests/prof/straddle.c -o "$d/straddle" || return 1
    shared cpu ./build/edgeprobe prof -q -k 1000 -o "$d/report.txt" --top 0 -- "./$d/straddle" 20 >"$d/truth.txt" || return 1
    awk '
        FNR == NR { calls = $2; mean = $3 / $2; next }
        $1 == "function" { for (i = 1; i <= NF; i++) { if ($i == "calls") c = i; if ($i == "mean(tk)") m = i }; next }
        c && m && $1 == "shared_work" { got = $m; n = $c }
        END {
            if (!mean || got == "") { print "FAIL shared_work: no truth or not in the report"; exit 1 }
            bad = got < 0.3 * mean || got > 3 * mean
            printf "%s shared_work: mean %.0f ticks over %d calls, reported %.0f over %.0f (x%.2f; must be x0.3-3)\n",
                   bad ? "FAIL" : "ok", mean, calls, got, n, got / mean
            exit bad
        }' "$d/truth.txt" "$d/report.txt"
}
case_ prof-straddle prof_straddle

# Timed calls that a longjmp leaves (tests/prof/yields.c: a coroutine's
# resume, body and yield, none of which returns) beside a function that
# returns. The profiler's stack of timed calls filled with the calls left
# (lua: its coroutine switches) and no call was timed from then on:
# steady_work had about 50 samples in 90 epochs. It must have at least two
# an epoch (K=10), and its calls must be right. outer_work (timed around
# probed callees) and tail_outer (whose callee is a tail call) are live
# frames that a wrong rule drops: their mean must be at least 90% of the
# least their call lasts (their samples lost: a mean of 0). deep_work,
# whose first calls longjmp out of 400 KiB of recursion, must have a total
# of at least 90% of its calls x its mean (its later samples marked nested:
# a total of 0). Then with --settle 100
# (SETTLED FUNCTIONS: K/5 = 2 a window after 100 samples): at least 100
# samples, and no more than 100 + 2 an epoch (and the K still being
# taken when the 100th came).
prof_longjmp_frames() {
    local d=$B/prof-longjmp-frames
    mkdir -p "$d"
    prof_tools && gcc -O2 $WARN -fpatchable-function-entry=5 tests/prof/yields.c -o "$d/yields" || return 1
    ./build/edgeprobe prof -q -o "$d/report.txt" --top 0 -- "./$d/yields" 120000 >"$d/truth.txt" || return 1
    cat "$d/truth.txt"
    head -8 "$d/report.txt"
    awk '
        FNR == NR { truth[$1] = $2; least[$1] = $3; next }
        /epochs:/ { for (i = 1; i <= NF; i++) if ($i == "epochs:") epochs = $(i + 1) }
        $1 == "function" { for (i = 1; i <= NF; i++) { if ($i == "calls") c = i; if ($i == "sampled") n = i; if ($i == "mean(tk)") m = i
                                                          if ($i == "mean(ns)") mns = i; if ($i == "total(ms)") tot = i }; next }
        c && $1 == "steady_work" { samples = $n; calls = $c }
        c && ($1 == "outer_work" || $1 == "tail_outer") { mean[$1] = $m }
        c && $1 == "deep_work" { deep_calls = $c; deep_total = $tot; deep_mean = $mns }
        END {
            if (!epochs || !c || !n || !m || !mns || !tot) { print "FAIL a column is missing in the report"; exit 1 }
            bad = samples < 2 * epochs
            printf "%s steady_work: %d samples in %d epochs (at least %d)\n", bad ? "FAIL" : "ok", samples, epochs, 2 * epochs
            off = calls < truth["steady_work"] * 0.9 || calls > truth["steady_work"] * 1.1
            printf "%s steady_work: %d calls reported, %d made (within 10%%)\n", off ? "FAIL" : "ok", calls, truth["steady_work"]
            for (f in mean) {
                low = mean[f] < 0.9 * least[f]
                printf "%s %s: mean %d ticks, its call lasts at least %d\n", low ? "FAIL" : "ok", f, mean[f], least[f]
                bad += low
            }
            if (length(mean) != 2) { print "FAIL outer_work or tail_outer is not in the report"; bad++ }
            want = 0.9 * deep_calls * deep_mean / 1e6
            low = !deep_calls || deep_total < want
            printf "%s deep_work: total %.3f ms, its %d calls x its mean %.3f ms\n", low ? "FAIL" : "ok", deep_total, deep_calls, want / 0.9
            bad += low
            exit bad + off != 0
        }' "$d/truth.txt" "$d/report.txt" || return 1
    ./build/edgeprobe prof -q --settle 100 -o "$d/settled.txt" --top 0 -- "./$d/yields" 60000 >/dev/null || return 1
    head -3 "$d/settled.txt"
    awk '
        /epochs:/ { for (i = 1; i <= NF; i++) if ($i == "epochs:") epochs = $(i + 1) }
        /^=== edgeprobe profiler/ { said = /K=10 \(2 after 100 samples\)/ }
        $1 == "function" { for (i = 1; i <= NF; i++) if ($i == "sampled") n = i; next }
        n && $1 == "steady_work" { samples = $n }
        END {
            most = 100 + 2 * epochs + 10
            bad = !said || samples < 100 || samples > most
            printf "%s --settle 100: steady_work %d samples in %d epochs (100 to %d); header says so: %s\n",
                   bad ? "FAIL" : "ok", samples, epochs, most, said ? "yes" : "no"
            exit bad
        }' "$d/settled.txt"
}
case_ prof-longjmp-frames prof_longjmp_frames

# --epochs inline (the agent's INLINE EPOCHS): a program of one thread
# keeps it. tests/prof/inline.c calls inl_hot and inl_cold for 600 ms with
# blocking calls between: inline, glibc still reads one thread and the
# process has one, no blocking call returned EINTR, the epochs ran on the
# thread (parts and epochs counted in the report) and reopened the windows
# (more samples than three windows' K); with the epoch thread (the same
# run, --epochs thread), glibc reads two threads, so the check can tell.
prof_inline_epochs() {
    local d="$B/prof-inline-epochs" how out
    mkdir -p "$d"
    prof_tools && gcc -O2 $WARN -fpatchable-function-entry=5 tests/prof/inline.c -pthread -o "$d/inline" || return 1
    for how in inline thread; do
        out=$(timeout -s KILL 60 ./build/edgeprobe prof -q --epochs $how -k 5 -o "$d/report-$how.txt" -- \
            "./$d/inline" busy 600) || { echo "FAIL $how: status $?"; return 1; }
        echo "$how: $out"
        grep -o 'epochs: .*' "$d/report-$how.txt"
        awk -v how=$how -v out="$out" '
            BEGIN { split(out, o, " "); single = o[2]; tasks = o[4]; eintr = o[6] }
            /epochs: / { for (i = 1; i <= NF; i++) { if ($i == "epochs:") epochs = $(i + 1) + 0
                                                     if ($i == "parts,") parts = $(i - 1) + 0 } }
            $1 == "inl_hot" { hot = $2 }
            END { want1 = how == "inline" ? 1 : 0; want_tasks = how == "inline" ? 1 : 2
                  bad = single != want1 || tasks != want_tasks || eintr != 0 || hot < 15 || epochs < 5
                  if (how == "inline") bad = bad || parts < 10
                  printf "%s %s: single %s tasks %s eintr %s; epochs %d, parts %d; inl_hot sampled %d\n",
                         bad ? "FAIL" : "ok", how, single, tasks, eintr, epochs, parts, hot
                  exit bad }' "$d/report-$how.txt" || return 1
    done
}
case_ prof-inline-epochs prof_inline_epochs

# The parts' clock (the agent's THE PARTS' CLOCK): the kernel's task-clock
# event times the parts at 2.5 ms of the thread's CPU time, where the
# CPU-time timer (EDGEPROBE_PROF_INLINE_CLOCK=timer) waits for the kernel's
# tick (4-5 ms a part here). inline.c busy 600: with the event, at least
# 0.7 of the parts its CPU time holds; the timer's run, fewer than the
# event's. inline.c closeall closes every descriptor, the event's too,
# after 100 ms: the timer behind it takes over, the report says so, and
# the windows keep reopening. Skipped where perf_event_open is refused.
prof_inline_clock() {
    local d="$B/prof-inline-clock" clock mode out
    mkdir -p "$d"
    prof_tools && gcc -O2 $WARN -fpatchable-function-entry=5 tests/prof/inline.c -pthread -o "$d/inline" || return 1
    for clock in event timer; do
        for mode in busy closeall; do
            out=$(EDGEPROBE_PROF_INLINE_CLOCK=$clock timeout -s KILL 60 ./build/edgeprobe prof -q --epochs inline -k 5 \
                -o "$d/report-$clock-$mode.txt" -- "./$d/inline" $mode 600) || { echo "FAIL $clock $mode: status $?"; return 1; }
            echo "$clock $mode: $out; $(grep -o 'epochs: [^;]*' "$d/report-$clock-$mode.txt")"
        done
    done
    grep -q 'timed by the task-clock event:' "$d/report-event-busy.txt" || {
        echo "skipped: perf_event_open refused the task-clock event (perf_event_paranoid $(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null))"
        return 77
    }
    awk '/^run / { cpu = $5 * 1000 }
         /epochs: / { for (i = 1; i <= NF; i++) if ($i == "parts,") parts[FILENAME] = $(i - 1) + 0
                      said[FILENAME] = $0 }
         $1 == "inl_hot" { hot[FILENAME] = $2; if (FILENAME ~ /event-busy/) want = 0.7 * cpu / 2.5 }
         END { e = ARGV[1]; t = ARGV[2]; c = ARGV[3]
               ok1 = parts[e] >= want; ok2 = parts[t] < parts[e]
               ok3 = said[c] ~ /the task-clock event, then its CPU-time timer/ && parts[c] >= 100 && hot[c] >= 100
               printf "%s event: %d parts, at least %d wanted\n", ok1 ? "ok" : "FAIL", parts[e], want
               printf "%s timer: %d parts, fewer than the event\x27s\n", ok2 ? "ok" : "FAIL", parts[t]
               printf "%s descriptor closed: the timer took over, %d parts, inl_hot sampled %d\n",
                      ok3 ? "ok" : "FAIL", parts[c], hot[c]
               exit !(ok1 && ok2 && ok3) }' "$d/report-event-busy.txt" "$d/report-timer-busy.txt" \
        "$d/report-event-closeall.txt"
}
case_ prof-inline-clock prof_inline_clock

# The program starts threads after a third of its run, and main waits in
# pthread_join: the epochs go to an epoch thread at the first
# pthread_create, which reopens the workers' windows (inl_worker sampled in
# more than three windows of K = 5).
prof_inline_to_thread() {
    local d="$B/prof-inline-to-thread" out
    mkdir -p "$d"
    prof_tools && gcc -O2 $WARN -fpatchable-function-entry=5 tests/prof/inline.c -pthread -o "$d/inline" || return 1
    out=$(timeout -s KILL 60 ./build/edgeprobe prof -q --epochs inline -k 5 -o "$d/report.txt" -- \
        "./$d/inline" threads 600) || { echo "FAIL status $?"; return 1; }
    echo "$out"
    grep -o 'epochs: .*' "$d/report.txt"
    grep -q "then the epoch thread" "$d/report.txt" || { echo "FAIL the epochs did not go to a thread"; return 1; }
    awk '$1 == "inl_worker" { w = $2 }
         END { printf "%s inl_worker sampled %d\n", (w >= 15) ? "ok" : "FAIL", w; exit w < 15 }' "$d/report.txt"
}
case_ prof-inline-to-thread prof_inline_to_thread

# SIGTERM reaches a program whose thread waits in read(): the report is
# written in the signal's handler (inside a blocking call's wrapper), and
# the program ends by the signal.
# prof_inline_term REPORT ERR PROGRAM ARGS...: PROGRAM under `prof --epochs
# inline`, sent SIGTERM after a second (prof_signalled).
prof_inline_term() {
    local report=$1 err=$2
    shift 2
    rm -f "$report"
    prof_signalled TERM "$err" ./build/edgeprobe prof -q --epochs inline -o "$report" -- "$@"
}
prof_inline_sigterm_waiting() {
    local d="$B/prof-inline-sigterm-waiting" term_rc
    mkdir -p "$d"
    rm -f "$d/stdin" "$d/fifo"
    prof_tools && gcc -O2 $WARN -fpatchable-function-entry=5 tests/prof/inline.c -pthread -o "$d/inline" || return 1
    mkfifo "$d/stdin" "$d/fifo" && exec 9<>"$d/stdin" || return 1 # a writer that never writes: read() waits
    prof_inline_term "$d/report.txt" "$d/prof.err" "./$d/inline" wait <"$d/stdin" || { exec 9>&-; return 1; }
    exec 9>&-
    grep -o 'epochs: .*' "$d/report.txt"
    [[ $term_rc -eq 143 ]] || { echo "FAIL status $term_rc, not 143"; return 1; }
    grep -q '^inl_hot ' "$d/report.txt" && grep -q '^edgeprobe-prof-summary:' "$d/report.txt" ||
        { echo "FAIL no report after SIGTERM"; return 1; }
    grep -q 'on the program.s thread' "$d/report.txt" || { echo "FAIL the epochs were not inline"; return 1; }
    echo "ok read: report written, status $term_rc"
    # and in a call that blocks outside the wrappers of reads and sleeps: a
    # FIFO's open (the review: no report after 7 s)
    prof_inline_term "$d/report-fifo.txt" "$d/prof-fifo.err" "./$d/inline" fifo "$d/fifo" || return 1
    [[ $term_rc -eq 143 ]] && grep -q '^edgeprobe-prof-summary:' "$d/report-fifo.txt" ||
        { echo "FAIL fifo: status $term_rc, no report"; return 1; }
    echo "ok fifo: report written, status $term_rc"
}
case_ prof-inline-sigterm-waiting prof_inline_sigterm_waiting

# The signal and fork cases above, and the known-truth program's, with the
# epochs on the program's thread (each in its own directory).
prof_inline() {
    local B="$B/inline"
    EDGEPROBE_PROF_EPOCHS=inline "$@"
}
case_ prof-inline-siglongjmp prof_inline prof_siglongjmp
case_ prof-inline-first-hits-siglongjmp prof_inline prof_first_hits_siglongjmp
case_ prof-inline-fork-signals prof_inline prof_fork_signals
case_ prof-inline-oneshot-flood prof_inline prof_oneshot_flood
case_ prof-inline-in-loader prof_inline prof_in_loader
case_ prof-inline-truth-1thread prof_inline prof_truth 1 8000
case_ prof-inline-report-on-sigterm prof_inline prof_stop_signal TERM 143
case_ prof-inline-fork prof_inline prof_fork

# An allocator built into the executable: no point of its text is safe for
# the epochs (they call malloc), so they run on an epoch thread, and the
# command says why.
prof_inline_own_malloc() {
    local d="$B/prof-inline-own-malloc"
    mkdir -p "$d"
    prof_tools && gcc -O2 $WARN -fpatchable-function-entry=5 tests/prof/own_malloc.c -o "$d/own_malloc" || return 1
    timeout -s KILL 60 ./build/edgeprobe prof -q --epochs inline -o "$d/report.txt" -- "./$d/own_malloc" \
        >"$d/out.txt" 2>"$d/err.txt" || { echo "FAIL status $?"; cat "$d/err.txt"; return 1; }
    cat "$d/out.txt" "$d/err.txt"
    grep -o 'epochs: .*' "$d/report.txt"
    grep -q 'epochs inline: the program.s own text holds its allocator' "$d/err.txt" ||
        { echo "FAIL no word of the allocator"; return 1; }
    grep -q 'epochs: [0-9]* (the epoch thread' "$d/report.txt" && grep -q '^own_work ' "$d/report.txt" ||
        { echo "FAIL the epochs were not on a thread"; return 1; }
    echo "ok epochs on a thread"
}
case_ prof-inline-own-malloc prof_inline_own_malloc

# A thread that runs with 16 KiB of its stack left (ulimit -s 512): the
# epochs' parts, which take more than that, run on the profiler's own stack
# (OWN STACK; on the thread's, 3 runs of 3 ended by SIGSEGV). The same run
# with the epoch thread shows the handlers fit.
prof_inline_deep_stack() {
    local d="$B/prof-inline-deep-stack" how out rc
    mkdir -p "$d"
    prof_tools && gcc -O2 $WARN -fpatchable-function-entry=5 tests/prof/deep_stack.c -o "$d/deep_stack" || return 1
    for how in thread inline; do
        out=$(ulimit -s 512 && timeout -s KILL 60 ./build/edgeprobe prof -q --epochs $how -o "$d/report-$how.txt" -- \
            "./$d/deep_stack" 16384 400)
        rc=$?
        echo "$how: status $rc, $out; $(grep -o 'epochs: [0-9]* ([^;]*' "$d/report-$how.txt")"
        [[ $rc -eq 0 && $out == depth* ]] || { echo "FAIL $how: status $rc"; return 1; }
    done
    grep -q "epochs: [0-9]* (on the program.s thread, timed by [^:]*: [1-9]" "$d/report-inline.txt" ||
        { echo "FAIL no part ran on the program's thread"; return 1; }
}
case_ prof-inline-deep-stack prof_inline_deep_stack

# Signal handlers on an alternate stack just above the frames they
# interrupt (tests/prof/altstack_above.c: an array in a caller's frame; a
# thread stack mapped right below it), calling probed functions: the
# interrupted call's frame looks left by longjmp from there. The header
# dropped it (every run aborted: "return trampoline reached with no frame
# for it"), and, with that fixed, the profiler dropped its timed call (mean
# 0). Each run must exit 0 with `interrupted`'s mean within 0.7-1.5 times
# the program's own measure.
prof_altstack_above() {
    local d="$B/prof-altstack-above" where how out rc bad=0
    mkdir -p "$d"
    prof_tools && gcc -O2 $WARN -fpatchable-function-entry=5 tests/prof/altstack_above.c -pthread \
        -o "$d/altstack_above" || return 1
    for where in frame thread; do
        for how in thread inline; do
            out=$(timeout -s KILL 60 ./build/edgeprobe prof -q --epochs $how -o "$d/report-$where-$how.txt" -- \
                "./$d/altstack_above" $where 300 2>"$d/err-$where-$how.txt")
            rc=$?
            awk -v run="$where/$how" -v out="$out" -v rc=$rc '
                $1 == "interrupted" { sampled = $2; mean = $5 }
                END { split(out, o, " "); r = o[3] > 0 ? mean / o[3] : 0
                      bad = rc != 0 || o[1] != "interrupted" || sampled < 10 || r < 0.7 || r > 1.5
                      printf "%s %s: status %d, \"%s\", report: sampled %d, mean %d ticks (%.2fx)\n",
                             bad ? "FAIL" : "ok", run, rc, out, sampled, mean, r
                      exit bad }' "$d/report-$where-$how.txt" || { bad=1; cat "$d/err-$where-$how.txt"; }
        done
    done
    return $bad
}
case_ prof-altstack-above prof_altstack_above

# A program that closes every descriptor from 3 up, as daemons do
# (tests/prof/inline.c closeall), under the epoch thread: the thread used to
# sleep on a pipe, which the program closed; it then spun on the closed
# descriptor, and the exit wrote its stop byte for ever (the review's
# program: killed at 60 s). It must end within the timeout with the
# windows still reopening.
prof_closeall() {
    local d="$B/prof-closeall" out
    mkdir -p "$d"
    prof_tools && gcc -O2 $WARN -fpatchable-function-entry=5 tests/prof/inline.c -pthread -o "$d/inline" || return 1
    out=$(timeout -s KILL 30 ./build/edgeprobe prof -q -k 5 -o "$d/report.txt" -- "./$d/inline" closeall 600) ||
        { echo "FAIL status $?"; return 1; }
    echo "$out; $(grep -o 'epochs: [0-9]*' "$d/report.txt")"
    awk '$1 == "inl_hot" { hot = $2 } END { printf "%s inl_hot sampled %d\n", (hot >= 100) ? "ok" : "FAIL", hot; exit (hot < 100) }' \
        "$d/report.txt"
}
case_ prof-closeall prof_closeall

# A program that becomes a daemon (tests/prof/daemon.c: daemon(0, 0), then
# 400 ms of calls in "/"): its parent exits inside daemon(), and the
# profile must follow the child (the agent's DAEMONS): the command waits
# for it, says so, and the report (given as a relative path) holds
# daemon_work within 0.7-1.3 of the daemon's own count; with the epoch
# thread and inline. Before: no report ("it ended before the profiler
# wrote one"). Then a daemon that runs on: SIGTERM to the command reaches
# it, and it writes its report (status 143). The pid files lie in a
# directory of the command's own under $TMPDIR, mode 0700 while the daemon
# runs, and gone after (until 2026-11-28: /tmp/edgeprobe-PID.daemon.PID,
# a name another user could plant ahead); a relative $TMPDIR, which a
# program that moved to "/" before daemon() would resolve elsewhere, gives
# way to /tmp (an independent review: the first version followed no such
# daemon).
prof_daemon() {
    local d="$B/prof-daemon" how out rc cmd dog mode
    rm -rf "$d/tmp"
    mkdir -p "$d/tmp"
    export TMPDIR="$PWD/$d/tmp"
    prof_tools && gcc -O2 $WARN -fpatchable-function-entry=5 tests/prof/daemon.c -o "$d/daemon" || return 1
    for how in thread inline; do
        rm -f "$d/report-$how.txt" "$d/own-$how.txt"
        timeout -s KILL 60 ./build/edgeprobe prof --epochs $how -o "$d/report-$how.txt" -- "./$d/daemon" 400 \
            "$PWD/$d/own-$how.txt" 2>"$d/err-$how.txt"
        rc=$?
        cat "$d/err-$how.txt"
        grep -q 'went on as a daemon' "$d/err-$how.txt" || { echo "FAIL $how: the command did not wait"; return 1; }
        awk -v how=$how -v rc=$rc 'FILENAME == ARGV[1] { own = $2; next }
             $1 == "daemon_work" { est = $3 }
             END { r = own > 0 ? est / own : 0; bad = rc != 0 || r < 0.7 || r > 1.3
                   printf "%s %s: status %d, daemon_work %d calls, reported %d (%.2fx)\n",
                          bad ? "FAIL" : "ok", how, rc, own, est, r
                   exit bad }' "$d/own-$how.txt" "$d/report-$how.txt" || return 1
    done
    rm -f "$d/report-rel.txt"
    TMPDIR="${d#"$PWD"/}/tmp" timeout -s KILL 60 ./build/edgeprobe prof -o "$d/report-rel.txt" -- "./$d/daemon" 100 \
        "$PWD/$d/own-rel.txt" cd-first 2>"$d/err-rel.txt"
    grep -q 'went on as a daemon' "$d/err-rel.txt" && grep -q '^daemon_work ' "$d/report-rel.txt" ||
        { cat "$d/err-rel.txt"; echo "FAIL a relative \$TMPDIR: the daemon was not followed"; return 1; }
    echo "ok a relative \$TMPDIR: followed"
    rm -f "$d/report-term.txt"
    ./build/edgeprobe prof -q -o "$d/report-term.txt" -- "./$d/daemon" forever "$PWD/$d/own-term.txt" &
    cmd=$!
    (sleep 30; kill -KILL "$cmd" 2>/dev/null) &
    dog=$!
    sleep 1.5
    mode=$(stat -c '%a %U' "$d"/tmp/edgeprobe-* 2>/dev/null)
    kill -TERM "$cmd"
    wait "$cmd"
    rc=$?
    kill "$dog" 2>/dev/null
    grep -q '^daemon_work ' "$d/report-term.txt" 2>/dev/null && [[ $rc -eq 143 ]] ||
        { echo "FAIL SIGTERM: status $rc, report $( [[ -s $d/report-term.txt ]] && echo without daemon_work || echo none)"; return 1; }
    echo "ok SIGTERM: passed on, status $rc, report written"
    [[ $mode == "700 $(id -un)" ]] || { echo "FAIL the pid files' directory under \$TMPDIR: '${mode:-none}'"; return 1; }
    [[ -z $(ls -A "$d/tmp") ]] || { echo "FAIL left in \$TMPDIR: $(ls -A "$d/tmp")"; return 1; }
    echo "ok the pid files' directory: mode $mode while the daemon ran, removed after"
}
case_ prof-daemon prof_daemon

# daemon() while a worker thread calls probed functions, twenty
# generations in a row (tests/prof/daemon_threads.c): the worker is gone
# in each child, maybe in the middle of switching a probe, and what it held
# (the count of threads switching off, a window's or a count's try-lock)
# the child lets go of. Before: 3 runs of 5 hung (the child's epoch thread
# waited for the gone worker at its first switch on). Three runs, each
# ends by itself with the last daemon's count and a report naming work0.
prof_daemon_threads() {
    local d="$B/prof-daemon-threads" run
    mkdir -p "$d"
    prof_tools && gcc -O2 $WARN -fpatchable-function-entry=5 -pthread tests/prof/daemon_threads.c -o "$d/dth" || return 1
    for run in 1 2 3; do
        rm -f "$d/out$run" "$d/report$run.txt"
        timeout -s KILL 30 ./build/edgeprobe prof -q -o "$d/report$run.txt" -- "./$d/dth" 20 "$PWD/$d/out$run" ||
            { echo "FAIL run $run: status $? (137: killed after 30 s)"; pkill -KILL -f "$d/dth 20"; return 1; }
        grep -q '^done [1-9]' "$d/out$run" || { echo "FAIL run $run: the last daemon wrote no count"; return 1; }
        grep -Eq '^work0 +[0-9]+ +[1-9]' "$d/report$run.txt" || { echo "FAIL run $run: no row for work0"; return 1; }
        echo "run $run: $(cat "$d/out$run"), $(grep -E '^work0 ' "$d/report$run.txt" | cut -c1-60)"
    done
}
case_ prof-daemon-threads prof_daemon_threads

# Programs that broke --epochs inline in an independent review
# (tests/prof/inline.c): every signal reset to its default (the
# profiler's signal killed the program), one handler for every signal, every
# signal blocked and taken by sigtimedwait (the program got the profiler's
# signal, and no epoch ran), and threads the profiler's pthread_create does
# not make (C11 threads, a SIGEV_THREAD timer's) while main waits (their
# functions were sampled in one window). Each must exit 0, print "done 0",
# and, with threads, have inl_worker sampled in more than three windows of 5.
prof_inline_hostile() {
    local d="$B/prof-inline-hostile" mode out rc bad=0
    mkdir -p "$d"
    prof_tools && gcc -O2 $WARN -fpatchable-function-entry=5 tests/prof/inline.c -pthread \
        -o "$d/inline" || return 1
    for mode in reset catchall sigwait c11 sigev; do
        out=$(timeout -s KILL 60 ./build/edgeprobe prof -q --epochs inline -k 5 -o "$d/report-$mode.txt" -- \
            "./$d/inline" $mode 2>"$d/err-$mode.txt")
        rc=$?
        awk -v mode=$mode -v out="$out" -v rc=$rc '
            $1 == "inl_worker" { w = $2 }
            END { bad = rc != 0 || out != "done 0" || ((mode == "c11" || mode == "sigev") && w < 15)
                  printf "%s %s: status %d, \"%s\", inl_worker sampled %d\n", bad ? "FAIL" : "ok", mode, rc, out, w
                  exit bad }' "$d/report-$mode.txt" || { bad=1; cat "$d/err-$mode.txt"; }
    done
    return $bad
}
case_ prof-inline-hostile prof_inline_hostile

# SIGTERM to a program that allocates under a SIGALRM handler, which raises
# a signal handled on an alternate stack above it: the report must not be
# written inside the SIGALRM handler (it may have interrupted malloc; the
# review: 6 of 12 runs aborted in malloc, no report). 4 runs, each ended by
# SIGTERM with a report.
prof_inline_sigterm_altstack() {
    local d="$B/prof-inline-sigterm-altstack" run bad=0 term_rc
    mkdir -p "$d"
    prof_tools && gcc -O2 $WARN -fpatchable-function-entry=5 tests/prof/inline.c -pthread \
        -o "$d/inline" || return 1
    for run in 1 2 3 4; do
        prof_inline_term "$d/report.txt" "$d/err.txt" "./$d/inline" altstack || return 1
        if [[ $term_rc -eq 143 ]] && grep -q '^edgeprobe-prof-summary:' "$d/report.txt"; then
            echo "ok run $run: status 143, report written"
        else
            echo "FAIL run $run: status $term_rc, report $( [[ -s $d/report.txt ]] && echo partial || echo none)"
            bad=1
        fi
    done
    return $bad
}
case_ prof-inline-sigterm-altstack prof_inline_sigterm_altstack
