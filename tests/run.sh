#!/usr/bin/env bash
# tests/run.sh - build and run the test cases, several at a time.
#
#   bash tests/run.sh              every case
#   bash tests/run.sh NAME...      the case called exactly NAME; a NAME that no
#                                  case is called selects every case whose
#                                  name contains it (make soak: "stress")
#   bash tests/run.sh -k WORD      every case whose name contains WORD, even
#                                  when one case is called WORD
#   bash tests/run.sh --list       every case name, one a line; builds and
#                                  runs nothing (with NAMEs or -k: those cases)
#   -j N                           N cases at a time (default: the variable
#                                  EDGEPROBE_TEST_JOBS, else nproc); -j 1 runs
#                                  them one after another
#
# Each case is one build + run in its own subshell; its output is in
# build/tests/NAME.log. As each case ends a line says how: "ok   NAME",
# "FAIL NAME" and the end of its log, or "skip NAME: why" (a case that cannot
# run here - a missing package, no uprobes - prints "skipped: why" and exits
# 77; it is counted apart, never as passed). The last line is
# "N passed, N failed, N skipped"; the exit status is 1 if any failed.
# build/tests/durations.txt has the seconds each case took, slowest first.
#
# Drivers: every tests/drivers/*.sh is sourced and adds its cases with
# `case_ NAME CMD...` (CMD: a function or command, run when the case runs).
#
# Cases run at once, so each writes only paths of its own: names that carry
# its parameters, or $CASE (its name, set while it runs). What they do share:
#  - shared LOCK CMD: a build whose output several cases use (make tools,
#    control_server, the stress harness) runs under a lock; so do the test
#    programs that keep both cores busy (lock "cpu", see unit);
#  - group_of: cases that use one piece of state run one at a time;
#  - runs_alone: cases that need the machine to themselves run after all
#    the others, one at a time.
set -u
cd "$(dirname "$0")/.."
B=${EDGEPROBE_TEST_BUILD:-build/tests} # another for a run inside a run (runner-crash-evidence)
WARN="-Wall -Wextra -Werror"
INC="-Iinclude -Itests"

usage() { sed -n '2,/^set -u/{/^set -u/d;s/^# \{0,1\}//;p}' "$0"; }

# ---- the command line ------------------------------------------------------
LIST=0 JOBS=${EDGEPROBE_TEST_JOBS:-$(nproc)} WORDS=() SUBSTRINGS=()
while (($#)); do
    case $1 in
    -l | --list) LIST=1 ;;
    -j) JOBS=${2:-} && shift ;;
    -j*) JOBS=${1#-j} ;;
    -k) [[ -n ${2:-} ]] || { echo "tests/run.sh: -k wants a word" >&2; exit 2; }
        SUBSTRINGS+=("$2") && shift ;;
    -h | --help) usage && exit 0 ;;
    -*) echo "tests/run.sh: unknown option $1 (see --help)" >&2 && exit 2 ;;
    *) WORDS+=("$1") ;;
    esac
    shift
done
[[ $JOBS =~ ^[1-9][0-9]*$ ]] || { echo "tests/run.sh: -j wants a positive number, not '$JOBS'" >&2; exit 2; }

# ---- registering cases -------------------------------------------------------
NAMES=()          # every case, in the order the files add them
declare -A CMD=() # NAME -> its command line, quoted for eval

# case_ NAME CMD...: add a case; CMD (a shell function or command) runs later.
case_() {
    local name=$1 quoted
    shift
    if [[ -n ${CMD[$name]+set} ]]; then
        echo "tests/run.sh: two cases are called $name (their logs would mix)" >&2
        exit 2
    fi
    printf -v quoted '%q ' "$@"
    NAMES+=("$name")
    CMD[$name]=$quoted
}
# shared LOCK CMD...: run CMD holding the lock build/tests/.LOCK.lock. For a
# build whose output several cases use (build/edgeprobe, control_server):
# cases that run at once must not run a program while another rewrites it.
shared() {
    local lock=$B/.$1.lock
    shift
    { flock 9 && "$@"; } 9>"$lock"
}
# The test programs whose threads keep both cores busy (executors against a
# patcher, handler_sync waiting for them) run holding the lock "cpu", one at
# a time, while other cases build beside them: two at once took twice as
# long each as one after the other (busy threads waiting for preempted
# ones), and left t_probe's executors unscheduled ("0 handler calls under
# load"). The same holds for every unit test, as most are of that kind.
# unit NAME CC FLAGS SRC...: compile and run a single-program test.
unit() {
    local name=$1 cc=$2 flags=$3
    shift 3
    $cc $flags $WARN $INC -pthread "$@" -o "$B/$name" && shared cpu timeout 300 "./$B/$name"
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
matrix sort tests/t_sort.c
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

# ---- what may run at once ----------------------------------------------------
# group_of NAME: sets GROUP to the group of cases NAME must not run beside
# (empty: none). Cases of a group run one at a time, in their order.
group_of() {
    case $1 in
    # `edgeprobe ps` removes every stale socket it finds, the one that
    # control-stale-socket leaves and then expects ps to report included.
    control-session | control-stale-socket | control-fork) GROUP=edgeprobe-ps ;;
    # All of them use build/tests/t_usdt and attach uprobes to it.
    bpftrace-*) GROUP=bpftrace ;;
    *) GROUP= ;;
    esac
}
# runs_alone NAME: true for cases that need the machine to themselves. They
# run after the others, one at a time.
runs_alone() {
    case $1 in
    # Cross-modification storms: executor threads pinned to every core race
    # the patcher; each must reach its toggle count within its time limit,
    # and a broken protocol's runs must still crash.
    stress-* | fprobe-stress-*) return 0 ;;
    # The profiler's estimates against known truth: scaled counts assume
    # the program's threads run steadily, which other cases' load breaks
    # (truth_3k and truth_burst off by 15-30% beside them, in bounds alone).
    prof-truth-*) return 0 ;;
    # Latencies weighted by calls: a short call preempted while it is timed
    # stands for many calls, and other cases' load preempts often (one run
    # in five over its 10% bound beside 36 prof and attach cases).
    prof-phases) return 0 ;;
    # A function of phases counted within 2%: beside two busy loops its
    # estimate read x1.036-1.047 in 5 runs of 5 (alone x0.999-1.000), and it
    # failed 2 runs of 4 of `-k prof -j 2` on a loaded machine.
    prof-alternating) return 0 ;;
    esac
    return 1
}
# start_rank NAME: sets RANK; cases of rank 1 start before those of rank 2,
# and so on.
start_rank() {
    # A group is a chain of cases that one slot works through: it begins
    # first, to end with the rest.
    group_of "$1"
    if [[ -n $GROUP ]]; then
        RANK=1
        return
    fi
    case $1 in
    # The slowest cases (10-40 s each; build/tests/durations.txt), so that
    # the run does not end with one of them on one core while the other idles.
    *handlers* | asan-* | probe-*-O3-* | *startup-no-alloc-per-site | exit-while-sites-run) RANK=2 ;;
    control-many-probes | control-offline-list | control-fuzz-parser | demo) RANK=2 ;;
    *) RANK=3 ;;
    esac
}

# ---- running cases -------------------------------------------------------------
pass=0 fail=0 skip=0 failed="" skipped=""
declare -A RUNNING=() # pid of a running case -> its name
declare -A BUSY=()    # group -> its case that is running
declare -A STARTED=() # name -> when it started ($EPOCHREALTIME)
DURATIONS=()          # "SECONDS NAME" for each case that ended

# Crash evidence: tests/crash/crashlog.c, preloaded into everything a case
# runs, writes which process died of which signal, where, and its threads'
# backtraces (gdb in batch mode) to $B/NAME.crash, shown with a failed case.
# Cases that crash on purpose (a mutant must be caught) skip gdb's seconds.
CRASHLIB=
crashlog_build() {
    gcc -O2 -fPIC -shared tests/crash/crashlog.c -o "$B/libcrashlog.so" 2>"$B/libcrashlog.err" &&
        CRASHLIB=$PWD/$B/libcrashlog.so
}
crashlog_env() {
    local name=$1
    rm -f "$B/$name.crash"
    [[ -n $CRASHLIB ]] || return 0
    export LD_PRELOAD="$CRASHLIB${LD_PRELOAD:+ $LD_PRELOAD}" EDGEPROBE_CRASH_LOG="$PWD/$B/$name.crash"
    export ASAN_OPTIONS="verify_asan_link_order=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}" # ours comes first
    case $name in
    *mutant* | *broken* | *is-detected*) unset EDGEPROBE_CRASH_GDB ;;
    *) command -v gdb >/dev/null && export EDGEPROBE_CRASH_GDB=1 ;;
    esac
}
# start NAME: run the case in the background, its output to its log. It gets
# a process group of its own (set -m) so that whatever it leaves running can
# be stopped with it.
start() {
    local name=$1
    set -m
    (
        set +m
        CASE=$name
        crashlog_env "$name"
        eval "${CMD[$name]}"
    ) </dev/null >"$B/$name.log" 2>&1 &
    set +m
    RUNNING[$!]=$name
    STARTED[$name]=$EPOCHREALTIME
    group_of "$name"
    [[ -z $GROUP ]] || BUSY[$GROUP]=$name
}
# finish PID STATUS: the case PID ran has ended with STATUS: count and say it.
finish() {
    local pid=$1 rc=$2 name=${RUNNING[$1]}
    unset "RUNNING[$pid]"
    kill -KILL -- "-$pid" 2>/dev/null # what the case left running
    group_of "$name"
    [[ -z $GROUP ]] || unset "BUSY[$GROUP]"
    DURATIONS+=("$(elapsed "${STARTED[$name]}") $name")
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
        # a long log's first lines too: a program's first failed checks come
        # before its summaries (fprobe-stress-unwind-table failed once so, its
        # first check lost)
        if (($(wc -l <"$B/$name.log") > 45)); then
            head -n 15 "$B/$name.log" | sed 's/^/     | /'
            echo "     | ..."
        fi
        tail -n 25 "$B/$name.log" | sed 's/^/     | /'
        [[ -s $B/$name.crash ]] && head -n 80 "$B/$name.crash" | sed 's/^/     ! /'
    fi
}
# elapsed T0: seconds since T0 (an $EPOCHREALTIME), to a tenth.
elapsed() {
    local now=${EPOCHREALTIME/[.,]/} t0=${1/[.,]/}
    local ds=$(((now - t0) / 100000))
    echo "$((ds / 10)).$((ds % 10))"
}
# run_all JOBS NAME...: run the cases, JOBS at a time, never two of one group
# at once; each starts as soon as a slot is free and its group is.
run_all() {
    local jobs=$1 i pid rc
    shift
    local queue=("$@")
    while ((${#queue[@]} + ${#RUNNING[@]})); do
        for i in "${!queue[@]}"; do
            ((${#RUNNING[@]} < jobs)) || break
            group_of "${queue[i]}"
            [[ -n $GROUP && -n ${BUSY[$GROUP]:-} ]] && continue
            start "${queue[i]}"
            unset "queue[i]"
        done
        pid=
        wait -n -p pid
        rc=$?
        [[ -n $pid ]] && finish "$pid" "$rc"
    done
}
# stop_all: on ^C or TERM, stop the running cases and all they started.
stop_all() {
    local pid
    for pid in "${!RUNNING[@]}"; do kill -TERM -- "-$pid" 2>/dev/null; done
    sleep 0.5
    for pid in "${!RUNNING[@]}"; do kill -KILL -- "-$pid" 2>/dev/null; done
    wait
}

# ---- the cases asked for ----------------------------------------------------------
# select_cases: the cases the command line names, in their order, into
# SELECTED; each NAME or -k WORD that selects no case, into UNMATCHED.
SELECTED=() UNMATCHED=()
select_cases() {
    local name word n
    local -A want=()
    if ((${#WORDS[@]} + ${#SUBSTRINGS[@]} == 0)); then
        SELECTED=("${NAMES[@]}")
        return
    fi
    for word in "${WORDS[@]}"; do # an exact name, else a part of names
        [[ -n ${CMD[$word]+set} ]] && want[$word]=1 || SUBSTRINGS+=("$word")
    done
    for word in "${SUBSTRINGS[@]}"; do
        n=0
        for name in "${NAMES[@]}"; do [[ $name == *"$word"* ]] && want[$name]=1 && n=$((n + 1)); done
        ((n)) || UNMATCHED+=("$word")
    done
    for name in "${NAMES[@]}"; do
        [[ -n ${want[$name]:-} ]] && SELECTED+=("$name")
    done
    return 0
}
select_cases
if ((${#UNMATCHED[@]})); then
    echo "tests/run.sh: no case is called or contains: ${UNMATCHED[*]} (see --list)" >&2
    exit 2
fi
if ((LIST)); then
    printf '%s\n' "${SELECTED[@]}"
    exit 0
fi

mkdir -p "$B"
crashlog_build || echo "tests/run.sh: no crash logger ($B/libcrashlog.err): a crash leaves only its exit status"
rank1=() rank2=() rank3=() alone=()
for name in "${SELECTED[@]}"; do
    if runs_alone "$name"; then
        alone+=("$name")
    else
        start_rank "$name"
        case $RANK in
        1) rank1+=("$name") ;;
        2) rank2+=("$name") ;;
        *) rank3+=("$name") ;;
        esac
    fi
done
echo "${#SELECTED[@]} cases, $JOBS at a time; ${#alone[@]} of them alone at the end"
trap 'stop_all; echo "tests/run.sh: interrupted"; exit 130' INT TERM
run_all "$JOBS" "${rank1[@]}" "${rank2[@]}" "${rank3[@]}"
run_all 1 "${alone[@]}"
printf '%s\n' "${DURATIONS[@]}" | sort -rn >"$B/durations.txt"

echo "failed:${failed:- none}"
echo "skipped:${skipped:- none}"
echo "$pass passed, $fail failed, $skip skipped"
[[ $fail -eq 0 ]]
