# tests/drivers/attach.sh - sourced by tests/run.sh: `edgeprobe attach` loads
# the agent into a process that never opted in (tools/cmd_attach.c).

# attach_ready DIR: the command built, the case's DIR made; 77 (skipped)
# where attach cannot run.
attach_ready() {
    [[ $(uname -m) == x86_64 ]] || { echo "skipped: edgeprobe attach is x86-64 only"; return 77; }
    shared tools make -s tools >/dev/null && mkdir -p "$1"
}

attach_ok() {
    local d=$B/attach-ok pid out fifo
    attach_ready "$d" || return
    fifo=$d/fifo
    rm -f "$fifo" && mkfifo "$fifo" || return 1
    gcc -O2 -fpatchable-function-entry=5 -pthread tests/attach/target.c -o "$d/target" || return 1
    "./$d/target" "$fifo" >"$d/out.txt" 2>&1 &
    pid=$!
    exec 7>"$fifo" # the target's open returns; it reaches read()
    for _ in $(seq 50); do grep -q ready "$d/out.txt" && break; sleep 0.1; done
    sleep 0.2 # into the read
    $EP attach "$pid" | tee "$d/attach.txt" || { kill $pid; return 1; }
    # the agent's thread scans and starts the endpoint: list reaches the process
    for _ in $(seq 50); do $EP list "$pid" >"$d/list.txt" 2>/dev/null && break; sleep 0.1; done
    cat "$d/list.txt"
    grep -q 'function .* target_step ' "$d/list.txt" && grep -q 'function .* spinner ' "$d/list.txt" ||
        { echo "list does not show the target's functions"; kill $pid; return 1; }
    # a second attach changes nothing
    $EP attach "$pid" | grep -q 'already has the agent' || { kill $pid; return 1; }
    [[ $(grep -c libedgeprobe-attach.so "/proc/$pid/maps") -ge 1 ]] || { kill $pid; return 1; }
    # the seized thread's read() goes on as if nothing happened
    echo hello >&7
    exec 7>&-
    wait $pid
    local rc=$?
    cat "$d/out.txt"
    [[ $rc == 0 ]] && grep -q '^read 6: hello' "$d/out.txt"
}
case_ attach-agent-loaded attach_ok

attach_refusals() {
    local d=$B/attach-refusals pid err
    attach_ready "$d" || return
    # no such process
    $EP attach 999999999 2>"$d/none.txt" && return 1
    grep -q 'no process' "$d/none.txt" || return 1
    # a static program: no dlopen to call; nothing changes, it runs on
    printf '#include <unistd.h>\nint main(void){for(;;)pause();}\n' >"$d/pause.c"
    if gcc -O2 -static "$d/pause.c" -o "$d/pause" 2>/dev/null; then
        "./$d/pause" &
        pid=$!
        sleep 0.2
        $EP attach "$pid" 2>"$d/static.txt" && { kill $pid; return 1; }
        cat "$d/static.txt"
        grep -q 'no C library with dlopen mapped (a static program?)' "$d/static.txt" &&
            grep -q 'nothing changed' "$d/static.txt" || { kill $pid; return 1; }
        kill -0 $pid && ! grep -q 'TracerPid:[[:space:]]*[1-9]' "/proc/$pid/status" || { kill $pid; return 1; }
        kill $pid
    else
        echo "(no static libc: the static case is not run)"
    fi
    # another user's process (as nobody, against one of ours): refused
    if [[ $(id -u) == 0 ]] && command -v setpriv >/dev/null; then
        sleep 30 &
        pid=$!
        setpriv --reuid=65534 --regid=65534 --clear-groups \
            env EDGEPROBE_ATTACH_LIB="$PWD/build/libedgeprobe-attach.so" "$PWD/$EP" attach $pid 2>"$d/user.txt"
        err=$?
        kill $pid
        cat "$d/user.txt"
        [[ $err != 0 ]] && grep -q 'cannot trace process' "$d/user.txt" && grep -q 'nothing changed' "$d/user.txt" ||
            return 1
    fi
    attach_refused_stopped "$d" && attach_refused_main_exited "$d" && attach_refused_traced "$d" &&
        attach_refused_yama "$d"
}
# A process whose main thread called pthread_exit (another thread runs on):
# refused, saying so - not "a static program" (its maps read empty), nor a
# question of rights (a zombie cannot be seized: EPERM).
attach_refused_main_exited() {
    local d=$1 pid rc=0
    printf '%s\n' '#include <pthread.h>' '#include <unistd.h>' \
        'static void *idle(void *a) { for (;;) pause(); return a; }' \
        'int main(void) { pthread_t t; pthread_create(&t, 0, idle, 0); pthread_exit(0); }' >"$d/main_exits.c"
    gcc -O2 -pthread "$d/main_exits.c" -o "$d/main_exits" || return 1
    "./$d/main_exits" &
    pid=$!
    wait_for 10 eval '[[ $(cut -d" " -f3 /proc/$pid/stat) == Z ]]' || rc=1
    $EP attach $pid 2>"$d/main-exited.txt" && rc=1
    cat "$d/main-exited.txt"
    grep -q "the main thread of process $pid has exited" "$d/main-exited.txt" || rc=1
    end_child $pid
    return $rc
}
# A stopped process (SIGSTOP): refused - the injected call would run its
# main thread; it stays stopped, untraced, without the agent.
attach_refused_stopped() {
    local d=$1 pid rc=0
    sleep 30 &
    pid=$!
    kill -STOP $pid
    wait_for 10 eval '[[ $(cut -d" " -f3 /proc/$pid/stat) == T ]]' || rc=1
    $EP attach $pid 2>"$d/stopped.txt" && rc=1
    cat "$d/stopped.txt"
    grep -q "process $pid is stopped .*kill -CONT $pid" "$d/stopped.txt" &&
        [[ $(cut -d" " -f3 /proc/$pid/stat) == T ]] && grep -q 'TracerPid:[[:space:]]*0$' "/proc/$pid/status" &&
        ! grep -q libedgeprobe-attach.so "/proc/$pid/maps" || rc=1
    kill $pid
    kill -CONT $pid
    wait $pid
    return $rc
}
# A process a debugger already traces (strace here): refused, naming it.
attach_refused_traced() {
    local d=$1 pid rc=0
    command -v strace >/dev/null || { echo "(no strace: the traced-process case is not run)"; return 0; }
    strace -o /dev/null sleep 30 &
    wait_for 10 eval '[[ -n $(pgrep -P $! -x sleep) ]]' || { kill $!; return 1; }
    pid=$(pgrep -P $! -x sleep)
    $EP attach $pid 2>"$d/traced.txt" && rc=1
    cat "$d/traced.txt"
    grep -q "process $pid is already traced by process $! (strace)" "$d/traced.txt" || rc=1
    kill $pid
    wait $!
    return $rc
}
# Yama: with ptrace_scope 1 or more, a process of the same user that is not
# the attacher's descendant is refused, and the message names ptrace_scope
# (run as nobody against nobody's process). This test changes no sysctl.
attach_refused_yama() {
    local d=$1 scope pid rc=0
    if [[ ! -r /proc/sys/kernel/yama/ptrace_scope ]]; then
        echo "yama: skipped: this kernel has no Yama (/proc/sys/kernel/yama/ptrace_scope)"
        return 0
    fi
    scope=$(cat /proc/sys/kernel/yama/ptrace_scope)
    if ((scope == 0)) || [[ $(id -u) != 0 ]] || ! command -v setpriv >/dev/null; then
        echo "yama: skipped: ptrace_scope is $scope (0 forbids nothing), or not root, or no setpriv"
        return 0
    fi
    setpriv --reuid=65534 --regid=65534 --clear-groups sleep 30 &
    pid=$!
    setpriv --reuid=65534 --regid=65534 --clear-groups \
        env EDGEPROBE_ATTACH_LIB="$PWD/build/libedgeprobe-attach.so" "$PWD/$EP" attach $pid 2>"$d/yama.txt" && rc=1
    kill $pid
    cat "$d/yama.txt"
    grep -q "ptrace_scope is $scope" "$d/yama.txt" || rc=1
    return $rc
}
case_ attach-refused-cleanly attach_refusals

# ---- by PID: the server of tests/attach/server.c under load ----------------
# start_loaded_server DIR: builds the server (with the flag, without the
# header), the client and the stop watch; starts the server, two client
# connections and the watch. Sets SERVER, CLIENT and WATCH (pids); DIR/stop
# ends the client and the watch.
start_loaded_server() {
    local d=$1 port
    gcc -O2 -fpatchable-function-entry=5 -pthread tests/attach/server.c -o "$d/server" &&
        gcc -O2 tests/attach/client.c -o "$d/client" && gcc -O2 tests/attach/stopwatch.c -o "$d/stopwatch" || return 1
    rm -f "$d/port" "$d/stop"
    "./$d/server" "$d/port" &
    SERVER=$!
    for _ in $(seq 50); do [[ -s $d/port ]] && break; sleep 0.1; done
    port=$(cat "$d/port") || return 1
    "./$d/stopwatch" $SERVER "$d/stop" >"$d/watch.txt" &
    WATCH=$!
    "./$d/client" "$port" 2 "$d/stop" >"$d/client.txt" &
    CLIENT=$!
    sleep 0.3
}
# stop_loaded_server DIR: ends the load; 0 when the client saw no error and
# the watch never saw two threads stopped (nor one twice over the run).
stop_loaded_server() {
    local d=$1 rc=0
    touch "$d/stop"
    wait $CLIENT || rc=1
    wait $WATCH
    kill $SERVER
    wait $SERVER 2>/dev/null
    cat "$d/client.txt" "$d/watch.txt"
    grep -q '^requests [1-9][0-9]* errors 0$' "$d/client.txt" || { echo "the client saw errors"; rc=1; }
    grep -Eq 'tracing stop: [01]; most at once: [01];' "$d/watch.txt" || { echo "more than one thread was stopped"; rc=1; }
    return $rc
}
rss_kb() { awk '/^VmRSS/ {print $2}' "/proc/$1/status"; }

# Attach, `prof -p -d 2 --stay`, detach; 20 times, under load. The agent
# stays loaded (dormant) after the first detach: later attaches find it.
# Memory bound: the server's RSS after the 20th cycle is at most 2 MiB above
# its RSS after the first (the profiler's tables are made once; each profile
# resets them).
attach_under_load() {
    local d=$B/attach-load i rss1= rss rc=0
    attach_ready "$d" || return
    start_loaded_server "$d" || return 1
    for i in $(seq 20); do
        $EP attach $SERVER >"$d/attach-$i.txt" &&
            $EP prof -p $SERVER -d 2 --stay -o "$d/report-$i.txt" 2>"$d/prof-$i.txt" &&
            $EP detach $SERVER >"$d/detach-$i.txt" || { echo "cycle $i failed"; cat "$d"/*-$i.txt; rc=1; break; }
        grep -q '^handle_request ' "$d/report-$i.txt" && grep -q '^request_checksum ' "$d/report-$i.txt" ||
            { echo "report $i does not name the server's functions"; cat "$d/report-$i.txt"; rc=1; break; }
        rss=$(rss_kb $SERVER)
        [[ -n $rss1 ]] || rss1=$rss
        echo "cycle $i: $(head -c 80 "$d/attach-$i.txt" | head -1); server RSS $rss kB"
    done
    stop_loaded_server "$d" || rc=1
    [[ $rc == 0 ]] || return 1
    echo "RSS after cycle 1: $rss1 kB, after cycle 20: $rss kB (bound: +2048 kB)"
    ((rss <= rss1 + 2048))
}
case_ attach-under-load attach_under_load

# Two profiles of one process (tests/attach/phases.c): the first while
# hot() runs in a tight loop, the second while it runs once every 50 ms.
# The first profile's last epoch left its unobserved rest (THE REST OF AN
# EPOCH in tools/prof_agent.c) to be settled at the next observed epoch,
# which was the second profile's first: hot read -226,395 calls, labelled
# exact (an independent review). The second report's calls of hot must be
# between 0 and the calls the rare phase can have made in it (one per 50
# ms, 3 s, plus 10).
attach_second_profile() {
    local d=$B/attach-second-profile pid rc=0 calls
    attach_ready "$d" || return
    gcc -O2 -fpatchable-function-entry=5 tests/attach/phases.c -o "$d/phases" || return 1
    "./$d/phases" 2.5 4 2>"$d/out.txt" &
    pid=$!
    for _ in $(seq 50); do grep -q ready "$d/out.txt" && break; sleep 0.1; done
    $EP attach $pid >"$d/attach.txt" && $EP prof -p $pid -d 1 --stay -o "$d/report-1.txt" 2>"$d/prof-1.txt" || rc=1
    for _ in $(seq 50); do grep -q rare "$d/out.txt" && break; sleep 0.1; done
    [[ $rc == 0 ]] && $EP prof -p $pid -d 3 -o "$d/report-2.txt" 2>"$d/prof-2.txt" || rc=1
    wait $pid || rc=1
    cat "$d/out.txt"
    [[ $rc == 0 ]] || { echo "attach or prof failed"; cat "$d"/*.txt; return 1; }
    calls=$(awk '$1 == "function" { for (i = 1; i <= NF; i++) if ($i == "calls") c = i; next } c && $1 == "hot" { print $c }' "$d/report-2.txt")
    echo "first profile: $(grep '^hot ' "$d/report-1.txt" | cut -c1-60)"
    echo "second profile: hot $calls calls (bound 0-70)"
    [[ -n $calls ]] && awk -v c="$calls" 'BEGIN { exit !(c >= 0 && c <= 70) }'
}
case_ attach-second-profile attach_second_profile

# `prof -p` (no signal held back, attached) of a program that forks while
# a periodic SIGALRM handler calls eight probed functions
# (tests/prof/forks.c, call), counts estimated (--count-budget 0) so that
# windows close and switch probes off: a handler run inside fork, where the
# header's fork handler holds the registry's lock, switched probes off and
# waited for that lock for ever (4 of 4 runs hung; the profiler now leaves
# the window open when its thread may hold the lock). Two profiles; each
# must end, switch probes (toggles > 0) and leave the program to finish
# its 8,000 forks.
attach_prof_fork_signals() {
    local d=$B/attach-prof-fork-signals pid round rc toggles
    attach_ready "$d" || return
    gcc -O2 -fpatchable-function-entry=5 tests/prof/forks.c -o "$d/forks" || return 1
    for round in 1 2; do
        "./$d/forks" 8000 call >"$d/out-$round.txt" 2>&1 &
        pid=$!
        sleep 0.3
        timeout -s KILL 30 $EP prof -p $pid -d 1 --count-budget 0 -o "$d/report-$round.txt" 2>"$d/prof-$round.txt"
        rc=$?
        for _ in $(seq 100); do kill -0 $pid 2>/dev/null || break; sleep 0.2; done
        if kill -0 $pid 2>/dev/null; then
            echo "FAIL round $round: the program hung (prof exit $rc)"
            kill -KILL $pid
            wait $pid
            return 1
        fi
        wait $pid || { echo "FAIL round $round: the program failed"; return 1; }
        toggles=$(awk '$1 == "toggles:" { print $2 }' "$d/report-$round.txt")
        echo "round $round: prof exit $rc, $(cat "$d/out-$round.txt"), toggles ${toggles:-none}"
        [[ $rc == 0 && $(cat "$d/out-$round.txt") == "forks 8000 "* && ${toggles:-0} -gt 0 ]] || return 1
    done
}
case_ attach-prof-fork-signals attach_prof_fork_signals

# `prof -p PID --exact-calls` (the request `prof start K EPOCH_MS exact`):
# a profile of the hot phase of tests/attach/phases.c counts every call of
# hot() (about 20 ticks each, which a sampled profile estimates): the
# report says so in its header and has no estimated row. It follows a
# sampled profile (--stay, with --count-budget 0 and --parts ' 8', which
# its header must show: the command passes on the number it read, where
# the words of the request split at the blank), whose last count's cap
# must not carry into the exact profile's first epoch (it did: that epoch
# was estimated).
attach_exact_calls() {
    local d=$B/attach-exact-calls pid rc=0
    attach_ready "$d" || return
    gcc -O2 -fpatchable-function-entry=5 tests/attach/phases.c -o "$d/phases" || return 1
    "./$d/phases" 4 0 2>"$d/out.txt" &
    pid=$!
    for _ in $(seq 50); do grep -q ready "$d/out.txt" && break; sleep 0.1; done
    $EP attach $pid >"$d/attach.txt" && $EP prof -p $pid -d 0.5 -k 1 --count-budget 0 --parts ' 8' --stay -o "$d/report-sampled.txt" \
        2>"$d/prof-1.txt" &&
        $EP prof -p $pid -d 1 --exact-calls -o "$d/report.txt" 2>"$d/prof.txt" || rc=1
    wait $pid || rc=1
    [[ $rc == 0 ]] || { echo "attach or prof failed"; cat "$d"/*.txt; return 1; }
    head -12 "$d/report.txt"
    # the first profile's settings reached the process (prof start's budget and parts words)
    grep -q '^=== edgeprobe profiler: mode sample, K=1, epoch 10 ms, count budget 0%, 8 part(s),' "$d/report-sampled.txt" ||
        { echo "FAIL the first profile's header:"; sed -n 2p "$d/report-sampled.txt"; rc=1; }
    grep -q '^=== edgeprobe profiler: mode sample (exact calls),' "$d/report.txt" || { echo "FAIL no (exact calls) in the header"; rc=1; }
    awk '$1 == "function" { for (i = 1; i <= NF; i++) { if ($i == "calls") c = i; if ($i == "counted") k = i }; next }
         c && $1 == "hot" { hot = $c; how = $k }
         c && $k == "estimated" { printf "FAIL %s is estimated\n", $1; bad++ }
         END { printf "hot: %s calls, %s\n", hot, how; exit bad || how != "exact" || hot < 1000 }' "$d/report.txt" || rc=1
    return $rc
}
case_ attach-exact-calls attach_exact_calls

# enable, top, trace and disable over the function probes of an attached
# process, then detach: everything off again, hits no longer move.
attach_commands_by_pid() {
    local d=$B/attach-commands rc=0 h1= h2=
    attach_ready "$d" || return
    start_loaded_server "$d" || return 1
    {
        $EP attach $SERVER &&
            for _ in $(seq 50); do $EP list $SERVER >/dev/null 2>&1 && break; sleep 0.1; done &&
            $EP enable $SERVER 'handle_*' | tee "$d/enable.txt" && grep -q '^enabled 1 probe$' "$d/enable.txt" &&
            $EP top $SERVER --once -i 0.5 | tee "$d/top.txt" &&
            grep -Eq '^ +[1-9][0-9]* +[0-9]+ on +function +handle_request ' "$d/top.txt" &&
            $EP disable $SERVER 'handle_*' &&
            $EP trace $SERVER format_reply -d 1 >"$d/trace.txt" &&
            head -3 "$d/trace.txt" && grep -q '^format_reply(0x' "$d/trace.txt" &&
            grep -Eq '^format_reply = 0x[0-9a-f]+ \([0-9]+ ticks\)$' "$d/trace.txt" &&
            $EP enable $SERVER 'parse_*' && $EP detach $SERVER | tee "$d/detach.txt" &&
            grep -q ": 2 function probes switched off" "$d/detach.txt" &&
            h1=$($EP list $SERVER | awk '$2 == "function" {s += $4} END {print s}') && sleep 0.3 &&
            h2=$($EP list $SERVER | awk '$2 == "function" {s += $4} END {print s}') &&
            ! $EP list $SERVER | awk '$2 == "function"' | grep -q ' on '
    } || { echo "a command by PID failed"; rc=1; }
    echo "function hits after detach: $h1, then $h2"
    [[ ${h1:-x} == "${h2:-y}" ]] || rc=1
    stop_loaded_server "$d" || rc=1
    return $rc
}
case_ attach-commands-by-pid attach_commands_by_pid

# `record -p`: the attached server records its functions into a trace file
# that `report` reads; then nothing stays on, and a second recording works.
attach_record_by_pid() {
    local d=$B/attach-record rc=0 i
    attach_ready "$d" || return
    start_loaded_server "$d" || return 1
    # (a request in flight when the recording ends leaves the last entry of
    # handle_request, or of format_reply within it, unmatched, and report
    # says so on its row: format_reply's did in one run of 2026-11-27)
    for i in 1 2; do
        $EP record -p $SERVER -d 1 -f 'handle_*' -f format_reply -o "$d/run-$i.trace" &&
            $EP report "$d/run-$i.trace" | tee "$d/report-$i.txt" &&
            grep -Eq '^ +[1-9][0-9]* .* handle_request( \(unmatched entries\))?$' "$d/report-$i.txt" &&
            grep -Eq '^ +[1-9][0-9]* .* format_reply( \(unmatched entries\))?$' "$d/report-$i.txt" &&
            ! $EP list $SERVER | awk '$2 == "function"' | grep -q ' on ' || { echo "recording $i failed"; rc=1; break; }
    done
    # --depth 1 through the endpoint: format_reply, called by
    # handle_request, is one deeper and not recorded
    $EP record -p $SERVER -d 1 --depth 1 -f 'handle_*' -f format_reply -o "$d/depth.trace" &&
        $EP report "$d/depth.trace" >"$d/report-depth.txt" &&
        grep -Eq '^ +[1-9][0-9]* .* handle_request( \(unmatched entries\))?$' "$d/report-depth.txt" &&
        ! grep -q 'format_reply' "$d/report-depth.txt" || { echo "--depth 1 by PID failed"; cat "$d/report-depth.txt"; rc=1; }
    # bad input changes nothing: an exact name that matches nothing
    $EP record -p $SERVER -d 1 -e no_such_probe -o "$d/bad.trace" 2>"$d/bad.txt" && rc=1
    grep -q 'EDGEPROBE_ENOENT' "$d/bad.txt" || { cat "$d/bad.txt"; rc=1; }
    stop_loaded_server "$d" || rc=1
    return $rc
}
case_ attach-record-by-pid attach_record_by_pid

# ---- safety ------------------------------------------------------------------
# wait_for SECONDS CMD...: run CMD every 50 ms until it succeeds; 1 if it has
# not after SECONDS (no fixed sleeps: the machine may be loaded).
wait_for() {
    local end=$((SECONDS + $1))
    shift
    until "$@"; do
        ((SECONDS <= end)) || return 1
        sleep 0.05
    done
}
# in_syscall PID REGEX: PID's main thread is blocked in a system call whose
# number matches REGEX (/proc/PID/syscall: "NR args..." or "running").
in_syscall() { [[ $(cut -d' ' -f1 "/proc/$1/syscall" 2>/dev/null) =~ ^($2)$ ]]; }
# gone PID: PID has exited (a zombie until waited for) or never was.
gone() { [[ ! -e /proc/$1/stat || $(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null) == Z ]]; }
# end_child PID: kill PID if it still runs, and reap it.
end_child() {
    kill "$1" 2>/dev/null
    wait "$1" 2>/dev/null
}

# complete_and_check PID FIFO LINE OUT EXPECTED: write LINE to the FIFO the
# process PID waits on; 0 when PID then ends and its output OUT has a line
# that starts with EXPECTED.
complete_and_check() {
    local pid=$1 fifo=$2 line=$3 out=$4 expected=$5 rc=0
    echo "$line" 1<>"$fifo" # read-write: no wait for a reader that has gone
    wait_for 15 gone $pid || { echo "process $pid still runs"; rc=1; }
    end_child $pid
    cat "$out"
    grep -q "^$expected" "$out" || rc=1
    return $rc
}

# attach_blocked_one DIR MODE: tests/attach/blocker.c's main thread blocks
# in MODE's call; attach; it must go back into that call (restart_syscall,
# 219, for a sleep: its deadline kept), the agent be mapped, and the call
# complete as without the attach when the helper thread completes it. The
# sleep (4 s) is first held 2 s by an attach of tests/attach/slow_agent.c:
# a restart that lost the deadline would sleep 4 s more, 6 in all; the
# target wants 4 to 5.5.
attach_blocked_one() {
    local d=$1 mode=$2 fifo=$1/$2.fifo pid nr rc=0
    rm -f "$fifo" "$d/$mode.txt" && mkfifo "$fifo" || return 1
    "./$d/blocker" "$mode" "$fifo" >"$d/$mode.txt" 2>&1 &
    pid=$!
    wait_for 10 grep -q '^ready' "$d/$mode.txt" && nr=$(awk '/^ready/ {print $2}' "$d/$mode.txt") &&
        wait_for 10 in_syscall $pid "$nr" || { echo "$mode: never blocked"; end_child $pid; return 1; }
    if [[ $mode == nanosleep ]]; then
        $EP attach $pid --lib "$PWD/$d/slow_agent.so" || rc=1
        wait_for 10 in_syscall $pid "$nr|219" || { echo "$mode: not back in its call"; rc=1; }
    fi
    $EP attach $pid >"$d/$mode-attach.txt" 2>&1 || rc=1
    cat "$d/$mode-attach.txt"
    grep -q '/libedgeprobe-attach.so' "/proc/$pid/maps" || { echo "$mode: no agent mapped"; rc=1; }
    wait_for 10 in_syscall $pid "$nr|219" || { echo "$mode: not back in its call"; rc=1; }
    complete_and_check $pid "$fifo" go "$d/$mode.txt" "$mode ok" || rc=1
    return $rc
}
attach_blocked_calls() {
    local d=$B/attach-blocked mode rc=0
    attach_ready "$d" || return
    gcc -O2 -Wall -Wextra -Werror -pthread tests/attach/blocker.c -o "$d/blocker" &&
        gcc -O2 -Wall -Wextra -Werror -fPIC -shared tests/attach/slow_agent.c -o "$d/slow_agent.so" || return 1
    for mode in accept nanosleep futex epoll; do
        attach_blocked_one "$d" $mode || { echo "$mode: FAILED"; rc=1; }
    done
    return $rc
}
case_ attach-blocked-calls attach_blocked_calls

# start_reader DIR: tests/attach/target.c (built into DIR), its main thread
# blocked in read() on DIR/fifo (fd 7 of this shell is the writer). Sets
# READER (its pid).
start_reader() {
    local d=$1
    rm -f "$d/fifo" "$d/out.txt" && mkfifo "$d/fifo" || return 1
    "./$d/target" "$d/fifo" >"$d/out.txt" 2>&1 &
    READER=$!
    exec 7>"$d/fifo" # the target's open returns; it goes on to read()
    wait_for 10 in_syscall $READER 0 || { echo "the target never blocked in read"; return 1; }
}
# stop_reader DIR: the line the target waits for; 0 when its read() got it
# and it exited 0 untraced.
stop_reader() {
    local d=$1 rc=0
    grep -q 'TracerPid:[[:space:]]*0$' "/proc/$READER/status" || { echo "the target is still traced"; rc=1; }
    echo hello >&7
    exec 7>&-
    wait_for 10 gone $READER || { echo "the target did not finish its read"; rc=1; }
    end_child $READER || rc=1
    grep -q '^read 6: hello' "$d/out.txt" || { cat "$d/out.txt"; rc=1; }
    return $rc
}
build_reader() { gcc -O2 -fpatchable-function-entry=5 -pthread tests/attach/target.c -o "$1/target"; }

# Two `edgeprobe attach PID` started together, 5 times: both end (bounded),
# one loads the agent, the other finds it loaded (it waits while the first
# holds the process); each names its own copy of the agent, so a second
# load would map a second one: exactly one is mapped.
attach_twice_at_once() {
    local d=$B/attach-twice i rc=0 agents p1 p2 r1 r2
    attach_ready "$d" || return
    mkdir -p "$d/a" "$d/b"
    build_reader "$d" && cp build/libedgeprobe-attach.so "$d/a/" && cp build/libedgeprobe-attach.so "$d/b/" || return 1
    for i in 1 2 3 4 5; do
        start_reader "$d" || return 1
        timeout 30 $EP attach $READER --lib "$d/a/libedgeprobe-attach.so" >"$d/a.txt" 2>&1 &
        p1=$!
        timeout 30 $EP attach $READER --lib "$d/b/libedgeprobe-attach.so" >"$d/b.txt" 2>&1 &
        p2=$!
        wait $p1
        r1=$?
        wait $p2
        r2=$?
        cat "$d/a.txt" "$d/b.txt"
        agents=$(grep libedgeprobe-attach.so "/proc/$READER/maps" | awk '{print $6}' | sort -u | wc -l)
        echo "round $i: exit statuses $r1 $r2, agents mapped: $agents"
        [[ $r1 == 0 && $r2 == 0 && $agents == 1 ]] &&
            [[ $(cat "$d/a.txt" "$d/b.txt" | grep -c 'agent loaded into') == 1 ]] &&
            [[ $(cat "$d/a.txt" "$d/b.txt" | grep -c 'already has the agent') == 1 ]] || rc=1
        stop_reader "$d" || rc=1
        ((rc == 0)) || break
    done
    return $rc
}
case_ attach-twice-at-once attach_twice_at_once

# A process that exits, and one that runs exec, the moment the attach
# seizes it (tests/attach/vanisher.c), 5 times each: the command ends
# within 20 s, not killed, with an error saying what happened; nothing
# stays traced (the exec'd program runs on untraced). Rounds 1-3 load
# tests/attach/slow_agent.c, whose constructor holds the seized thread
# 2 s: the process goes while the injected dlopen runs, however loaded the
# machine.
# Rounds 4-5 load the agent: the helper thread must be scheduled within
# the attach's fraction of a millisecond; when it is late the attach
# succeeds first - also a clean end. At least 3 rounds must catch it.
attach_vanishing_one() {
    local d=$1 mode=$2 i pid rc=0 st want=exited caught=0 lib
    [[ $mode == exec ]] && want="ran exec"
    for i in 1 2 3 4 5; do
        lib=$PWD/build/libedgeprobe-attach.so
        ((i <= 3)) && lib=$PWD/$d/slow_agent.so
        "./$d/vanisher" $mode >"$d/$mode.txt" 2>&1 &
        pid=$!
        wait_for 10 in_syscall $pid 34 || { echo "$mode: never paused"; end_child $pid; return 1; } # pause
        timeout 20 $EP attach $pid --lib "$lib" >"$d/$mode-attach.txt" 2>&1
        st=$?
        cat "$d/$mode-attach.txt"
        if ((st == 1)) && grep -q "process $pid $want during the attach" "$d/$mode-attach.txt"; then
            caught=$((caught + 1))
            if [[ $mode == exec ]]; then
                wait_for 10 grep -q execed "$d/$mode.txt" || { echo "exec round $i: the new program does not run"; rc=1; }
            fi
        elif ((st != 0)) || ! grep -q 'agent loaded into' "$d/$mode-attach.txt"; then
            echo "$mode round $i: exit status $st, neither the error expected nor a load"
            rc=1
        fi
        gone $pid || grep -q 'TracerPid:[[:space:]]*0$' "/proc/$pid/status" || { echo "$mode round $i: still traced"; rc=1; }
        end_child $pid
        ((rc == 0)) || break
    done
    echo "$mode: caught going in $caught of 5 rounds"
    ((rc == 0 && caught >= 3))
}
attach_exit_or_exec() {
    local d=$B/attach-vanish rc=0
    attach_ready "$d" || return
    gcc -O2 -Wall -Wextra -Werror -pthread tests/attach/vanisher.c -o "$d/vanisher" &&
        gcc -O2 -Wall -Wextra -Werror -fPIC -shared tests/attach/slow_agent.c -o "$d/slow_agent.so" || return 1
    attach_vanishing_one "$d" exit || rc=1
    attach_vanishing_one "$d" exec || rc=1
    return $rc
}
case_ attach-exit-or-exec attach_exit_or_exec

# attach_sandboxed_one DIR MODE [AS...]: tests/attach/sandboxed.c under
# MODE's seccomp policy, its main thread in read(); attach (both run by AS,
# a command prefix, when given). A policy that forbids what loading the
# agent needs: the error names seccomp and why, no agent is mapped. clone3
# (ENOSYS, glibc falls back to clone), or MADV_POPULATE_WRITE failing (the
# pages fault in one at a time): the agent loads. Either way the
# process lives on untraced and its read() gets the line.
attach_sandboxed_one() {
    local d=$1 mode=$2 fifo=$1/$2.fifo pid st rc=0 want
    shift 2
    case $mode in
    eperm) want='seccomp filter forbids openat, .*(the filter fails with Operation not permitted)' ;;
    kill) want='seccomp filter forbids openat, .*(the filter kills the process)' ;;
    populate-kill) want='seccomp filter forbids madvise, .*(the filter kills the process)' ;;
    strict) want='seccomp strict mode' ;;
    unreadable) want='seccomp filters cannot be read .*CAP_SYS_ADMIN' ;;
    esac
    rm -f "$fifo" "$d/$mode.txt" && mkfifo -m 666 "$fifo" || return 1
    "$@" "$PWD/$d/sandboxed" ${mode/unreadable/eperm} "$fifo" >"$d/$mode.txt" 2>&1 &
    pid=$!
    wait_for 10 in_syscall $pid 0 || { echo "$mode: never blocked in read"; end_child $pid; return 1; }
    timeout 20 "$@" env EDGEPROBE_ATTACH_LIB="$PWD/build/libedgeprobe-attach.so" "$PWD/$EP" attach $pid \
        >"$d/$mode-attach.txt" 2>&1
    st=$?
    cat "$d/$mode-attach.txt"
    if [[ $mode == clone3 || $mode == populate-eperm ]]; then
        ((st == 0)) && grep -q '/libedgeprobe-attach.so' "/proc/$pid/maps" || { echo "$mode: not loaded"; rc=1; }
    else
        ((st == 1)) && grep -Eq "$want" "$d/$mode-attach.txt" && grep -q 'nothing changed' "$d/$mode-attach.txt" ||
            { echo "$mode: not the refusal expected (exit status $st)"; rc=1; }
        ! grep -q '/libedgeprobe-attach.so' "/proc/$pid/maps" 2>/dev/null || { echo "$mode: agent mapped"; rc=1; }
    fi
    ! gone $pid && grep -q 'TracerPid:[[:space:]]*0$' "/proc/$pid/status" &&
        wait_for 10 in_syscall $pid 0 || { echo "$mode: the process died, or is traced, or left its read"; rc=1; }
    complete_and_check $pid "$fifo" hello "$d/$mode.txt" "read ok: hello" || rc=1
    return $rc
}
attach_seccomp() {
    local d=$B/attach-seccomp mode rc=0
    attach_ready "$d" || return
    gcc -O2 -Wall -Wextra -Werror tests/attach/sandboxed.c -o "$d/sandboxed" || return 1
    for mode in eperm kill clone3 populate-eperm populate-kill strict; do
        attach_sandboxed_one "$d" $mode || { echo "$mode: FAILED"; rc=1; }
    done
    # not root: the filters cannot be read (PTRACE_SECCOMP_GET_FILTER needs
    # CAP_SYS_ADMIN), so what they do is unknown: refused
    if [[ $(id -u) == 0 ]] && command -v setpriv >/dev/null; then
        attach_sandboxed_one "$d" unreadable setpriv --reuid=65534 --regid=65534 --clear-groups || rc=1
    else
        echo "(not root, or no setpriv: the unreadable-filter case is not run)"
    fi
    return $rc
}
case_ attach-seccomp attach_seccomp

# Seized inside malloc: a single-threaded program that lives in malloc and
# free (tests/attach/malloc_loop.c), attached 30 times, each a new process
# 0.2 s into its 1 s run. Every run must end with status 0 and its
# checksum (an injected dlopen inside an interrupted malloc corrupted the
# heap in about 1 attach of 10 before the safe-point rule), and every
# attach must load the agent or refuse cleanly.
attach_inside_malloc() {
    local d=$B/attach-malloc i pid rc st bad=0 loaded=0
    attach_ready "$d" || return
    gcc -O2 $WARN tests/attach/malloc_loop.c -o "$d/loop" || return 1
    for i in $(seq 30); do
        (exec "./$d/loop" 1 >"$d/out" 2>"$d/err") &
        pid=$!
        sleep 0.2
        $EP attach $pid >"$d/attach.txt" 2>&1
        rc=$?
        wait $pid
        st=$?
        grep -q 'agent loaded into' "$d/attach.txt" && loaded=$((loaded + 1))
        if ((st != 0)) || ! grep -Eq '^[0-9]+$' "$d/out" ||
            { ((rc != 0)) && ! grep -q 'inside the C library\|exited during the attach' "$d/attach.txt"; }; then
            echo "trial $i: attach $rc, program $st: $(cat "$d/attach.txt" "$d/err" | tr '\n' ' ')"
            bad=$((bad + 1))
        fi
    done
    echo "$bad of 30 trials broke; the agent loaded in $loaded"
    ((bad == 0 && loaded >= 20))
}
case_ attach-inside-malloc attach_inside_malloc
