# tests/drivers/markers.sh - sourced by tests/run.sh: EDGEPROBE_PROBE argument
# probes (gcc and clang, -O0/-O2/-O3, PIE, non-PIE, markers in a shared
# library), mutants the tests must catch, compile-time refusals, USDT notes
# with readelf and bpftrace, and the lock-free handler readers.

# ---- argument values, registers, red zone, bad input, load ---------------
probe_case() {
    local cc=$1 opt=$2 link=$3 d="$B/probe-$1$2-$3"
    local f="$opt $WARN $INC -pthread"
    mkdir -p "$d"
    case $link in
    pie) $cc $f -fPIE -pie tests/t_probe.c tests/probe/sites.c -o "$d/t_probe" ;;
    nopie) $cc $f -fno-PIE -no-pie tests/t_probe.c tests/probe/sites.c -o "$d/t_probe" ;;
    shared)
        $cc $f -fPIC -shared -DEDGEPROBE_IMPLEMENTATION tests/probe/sites.c -o "$d/libsites.so" &&
            $cc $f tests/t_probe.c -L"$d" -lsites -Wl,-rpath,"$PWD/$d" -o "$d/t_probe" ;;
    esac || return 1
    EDGEPROBE_VERBOSE=1 shared cpu timeout 300 "./$d/t_probe" 2>"$d/stderr.txt"
    local rc=$?
    cat "$d/stderr.txt"
    # the site whose symbolic operand its instruction does not hold was
    # refused when switched on, with its file:line and the reason, logged once
    [[ $(grep -c 'EDGEPROBE_PROBE pr_badspec (tests/t_probe.c:[0-9]*): refused: cannot read its argument locations "8@regs_after(%rip)"' "$d/stderr.txt") == 1 ]] && return $rc
    echo "missing: the refusal of the bad spec in the log"
    return 1
}
for cc in gcc clang; do
    for opt in -O0 -O2 -O3; do
        for link in pie nopie shared; do
            case_ "probe-$cc$opt-$link" probe_case "$cc" "$opt" "$link"
        done
    done
done
case_ probe-nop8 unit probe-nop8 gcc "-O2 -DEDGEPROBE_SITE_BYTES=8" tests/t_probe.c tests/probe/sites.c
case_ asan-ubsan-probe unit asan-probe gcc "$SAN" tests/t_probe.c tests/probe/sites.c

# A stub that does not step over the whole red zone must be caught.
probe_redzone_mutant() {
    gcc -O2 $INC -pthread -DEDGEPROBE__RED_ZONE=8 tests/t_probe.c tests/probe/sites.c -o "$B/t_probe_rz" || return 1
    shared cpu "./$B/t_probe_rz" >"$B/t_probe_rz.txt" 2>&1 && { echo "the red-zone mutant passed"; return 1; }
    grep 'CHECK failed: on == off' "$B/t_probe_rz.txt"
}
case_ probe-redzone-mutant-is-detected probe_redzone_mutant

# Floating-point, struct and 128-bit arguments: a compile error that says why.
probe_refuses() {
    local what=$1 decl=$2 want=$3 cc
    for cc in gcc clang g++ clang++; do
        local x=c std=-std=c11
        [[ $cc == *++ ]] && x=c++ std=-std=c++17
        printf '#include "edgeprobe.h"\n%s\nvoid f(void) { EDGEPROBE_PROBE(bad, v); }\n' "$decl" >"$B/refuse-$what.$x"
        if $cc $std $INC -c "$B/refuse-$what.$x" -o /dev/null 2>"$B/refuse-$what-$cc.txt"; then
            echo "$cc accepted a $what argument"
            return 1
        fi
        grep -q "$want" "$B/refuse-$what-$cc.txt" || { cat "$B/refuse-$what-$cc.txt"; return 1; }
        echo "$cc: $(grep -m1 -o "$want.*" "$B/refuse-$what-$cc.txt")"
    done
}
case_ probe-refuses-double probe_refuses double 'static double v = 1.5;' 'must be integers or pointers'
case_ probe-refuses-struct probe_refuses struct 'static struct { int a; } v;' 'must be integers or pointers'
case_ probe-refuses-int128 probe_refuses int128 'static __int128 v;' 'at most 64 bits wide'

# C++: PROBE in a method, a template and a lambda.
probe_cxx() {
    $1 -std=c++17 -O2 $WARN $INC -pthread tests/t_probe_cxx.cc -o "$B/t_probe_cxx-$1" && "./$B/t_probe_cxx-$1"
}
case_ probe-cxx-g++ probe_cxx g++
case_ probe-cxx-clang++ probe_cxx clang++

# ---- USDT: notes, bpftrace --------------------------------------------------
usdt_build() { gcc -O2 $WARN $INC tests/t_usdt.c -o "$B/t_usdt"; }
# One stapsdt note per site, for every marker kind (C; see README for clang++).
usdt_notes() {
    local t=$1 flags=$2 notes sites
    $t -O2 $WARN $INC $flags tests/t_usdt.c tests/probe/sites.c -pthread -o "$B/t_usdt_notes-$t" || return 1
    notes=$(readelf -n "$B/t_usdt_notes-$t" | grep -c 'Provider: edgeprobe')
    sites=$("./$B/t_usdt_notes-$t" sites)
    echo "readelf: $notes stapsdt notes with provider edgeprobe; edgeprobe: $sites sites"
    # sizes and signs as declared; locations as the compiler chose (gcc: registers, clang: stack slots)
    readelf -n "$B/t_usdt_notes-$t" | grep -A3 'Name: us_args' | grep -Eq 'Arguments: -4@[^ ]+ -4@[^ ]+ 8@[^ ]+ 8@[^ ]+ -4@\$99$' || {
        readelf -n "$B/t_usdt_notes-$t" | grep -A3 'Name: us_args'
        return 1
    }
    for k in us_trace us_branch us_handler pr_twelve; do
        readelf -n "$B/t_usdt_notes-$t" | grep -q "Name: $k\$" || { echo "no note for $k"; return 1; }
    done
    [[ $notes -eq $sites && $sites -gt 10 ]]
}
case_ usdt-notes-gcc usdt_notes gcc ""
case_ usdt-notes-clang usdt_notes clang ""
usdt_provider() {
    gcc -O2 $WARN $INC -DEDGEPROBE_USDT_PROVIDER=myapp tests/t_usdt.c -o "$B/t_usdt_prov" &&
        readelf -n "$B/t_usdt_prov" | grep -q 'Provider: myapp' &&
        ! readelf -n "$B/t_usdt_prov" | grep -q 'Provider: edgeprobe'
}
case_ usdt-provider-override usdt_provider

# bpftrace needs root, the bpftrace package and uprobes (tracefs).
bpftrace_ready() {
    [[ $(id -u) == 0 ]] || { echo "skipped: bpftrace needs root"; return 77; }
    command -v bpftrace >/dev/null || { echo "skipped: bpftrace is not installed (apt-get install bpftrace)"; return 77; }
    [[ -e /sys/kernel/tracing/uprobe_events ]] || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
    [[ -e /sys/kernel/tracing/uprobe_events ]] || { echo "skipped: no uprobes here (no tracefs uprobe_events)"; return 77; }
    ulimit -l unlimited 2>/dev/null
    return 0
}
bpftrace_list() {
    bpftrace_ready || return $?
    usdt_build || return 1
    local out
    out=$(timeout 60 bpftrace -l "usdt:$PWD/$B/t_usdt:*" 2>&1)
    echo "$out"
    for k in us_args us_trace us_branch us_handler; do
        grep -q "usdt:$PWD/$B/t_usdt:edgeprobe:$k\$" <<<"$out" || return 1
    done
}
case_ bpftrace-lists-markers bpftrace_list
# bpftrace_usdt PROBE ACTION WORD AWK: t_usdt's sites run 10 times under
# bpftrace, which runs ACTION at usdt probe PROBE. Passes when bpftrace
# printed lines starting with WORD and AWK (run on them) exits 0.
bpftrace_usdt() {
    bpftrace_ready || return $?
    usdt_build || return 1
    local out
    out=$(timeout 60 bpftrace -e "usdt:$PWD/$B/t_usdt:edgeprobe:$1 { $2 }" -c "$PWD/$B/t_usdt args 10" 2>&1)
    echo "$out"
    grep -q "^$3 " <<<"$out" && grep "^$3 " <<<"$out" | awk "$4"
}
# bpftrace may miss the first calls while it attaches: any hit must be exact
case_ bpftrace-reads-probe-args bpftrace_usdt us_args 'printf("hit %d %d %lu %s %d\n", arg0, arg1, arg2, str(arg3), arg4);' \
    hit '{ i = $2; if ($3 != -i || $4 != 18446744073709551600 + i || $5 != "text" || $6 != 99) bad = 1 } END { exit bad }'
# TRACE's argument form describes its arguments too: the hits bpftrace saw
# count 1, 2, ... without gaps from where it started
case_ bpftrace-reads-trace-args bpftrace_usdt us_trace 'printf("trace %d\n", arg0);' \
    trace 'NR > 1 && $2 != prev + 1 { bad = 1 } { prev = $2 } $2 < 1 || $2 > 10 { bad = 1 } END { exit bad }'
bpftrace_hold() {
    bpftrace_ready || return $?
    usdt_build || return 1
    "./$B/t_usdt" hold >"$B/hold.out" 2>&1 &
    local pid=$! rc
    sleep 0.3
    timeout 60 bpftrace -p $pid -e "usdt:$PWD/$B/t_usdt:edgeprobe:us_args { @n = @n + 1; if (@n >= 5) { exit(); } }" 2>&1
    wait $pid
    rc=$?
    cat "$B/hold.out"
    grep -q '^held: ' "$B/hold.out" && return $rc
    return 1
}
case_ bpftrace-holds-site-edgeprobe-refuses bpftrace_hold

# ---- handler readers -----------------------------------------------------------
# Without membarrier the readers fence themselves; the same tests must pass.
handlers_fence() { gcc -O2 $WARN $INC -pthread tests/t_handlers.c -o "$B/t_handlers_fence" && EDGEPROBE_MEMBARRIER=0 shared cpu "./$B/t_handlers_fence"; }
case_ handlers-fence-mode handlers_fence
probe_fence() { gcc -O2 $WARN $INC -pthread tests/t_probe.c tests/probe/sites.c -o "$B/t_probe_fence" && EDGEPROBE_MEMBARRIER=0 shared cpu "./$B/t_probe_fence"; }
case_ probe-fence-mode probe_fence
# The inlined handler dispatch (EDGEPROBE_HANDLER_INLINE=1), gcc and clang, ASan.
case_ handlers-inline-gcc unit handlers-inline-gcc gcc "-O2 -DEDGEPROBE_HANDLER_INLINE=1" tests/t_handlers.c
case_ handlers-inline-clang unit handlers-inline-clang clang "-O2 -DEDGEPROBE_HANDLER_INLINE=1" tests/t_handlers.c
case_ asan-ubsan-handlers-inline unit asan-handlers-inline gcc "$SAN -DEDGEPROBE_HANDLER_INLINE=1" tests/t_handlers.c
# A handler_sync that waits for nobody must be caught (ASan or the magic check).
sync_mutant() {
    gcc $SAN -DEDGEPROBE__MUTANT_NOOP_SYNC $INC -pthread "$@" -o "$B/t_sync_mutant-$CASE" || return 1
    if ASAN_OPTIONS=detect_leaks=0 shared cpu timeout 300 "./$B/t_sync_mutant-$CASE" >"$B/sync_mutant-$CASE.txt" 2>&1; then
        tail -5 "$B/sync_mutant-$CASE.txt"
        echo "a no-op edgeprobe_handler_sync went unnoticed"
        return 1
    fi
    grep -m3 -E 'heap-use-after-free|CHECK' "$B/sync_mutant-$CASE.txt"
    return 0
}
case_ asan-handlers-sync-mutant-is-detected sync_mutant tests/t_handlers.c
case_ asan-probe-sync-mutant-is-detected sync_mutant tests/t_probe.c tests/probe/sites.c
