# tests/drivers/control.sh - sourced by tests/run.sh: the control endpoint
# (include/edgeprobe.h section 9) and the edgeprobe command. A demo server
# (examples/control_server.c) is driven through build/edgeprobe only, as a
# user would; raw protocol checks use tests/control_proto.py. Every server is
# started by its case, bounded by -s SECONDS, and killed by the case's trap.
EP=build/edgeprobe

ctl_build() {
    shared tools make -s tools >/dev/null || return 1
    shared control_server ctl_build_server
}
ctl_build_server() {
    [[ -x $B/control_server && $B/control_server -nt examples/control_server.c && $B/control_server -nt include/edgeprobe.h ]] ||
        gcc -O2 $WARN $INC -pthread examples/control_server.c -o "$B/control_server"
}
# ctl_start NAME ARGS...: start a server with EDGEPROBE_CONTROL=1; sets PID,
# SOCK, OUT (its stdout) and ERR (its stderr). Stopped when the case ends.
ctl_start() {
    local name=$1 i
    shift
    OUT=$B/$name.server.out ERR=$B/$name.server.err
    ctl_build || return 1
    EDGEPROBE_CONTROL=1 "./$B/control_server" "$@" >"$OUT" 2>"$ERR" &
    PID=$!
    trap 'kill $PID 2>/dev/null; wait $PID 2>/dev/null; rm -f "$SOCK"' EXIT # SIGTERM: no atexit
    for i in $(seq 100); do
        grep -q '^ready' "$OUT" 2>/dev/null && break
        sleep 0.05
    done
    SOCK=$(awk '/^ready/{print $3}' "$OUT")
    [[ -S $SOCK ]] || { echo "server did not start"; cat "$ERR"; return 1; }
}
# state NAME: on/off as `edgeprobe list --json` reports it.
state() {
    $EP list "$PID" --json | python3 -c 'import json,sys; print(" ".join(p["state"] for p in json.load(sys.stdin) if p["name"]==sys.argv[1]))' "$1"
}
lines_of() { grep -c "$1" "$ERR"; }

# ps, list (live and offline), enable makes lines appear, disable stops them.
ctl_session() {
    ctl_start session -s 30 || return 1
    $EP ps | tee "$B/ctl_ps.txt"
    grep -Eq "^$PID +control_server +$SOCK" "$B/ctl_ps.txt" || return 1
    $EP list "$PID" | tee "$B/ctl_list.txt"
    for p in req_begin req_check req_reply req_end; do grep -q " $p " "$B/ctl_list.txt" || return 1; done
    grep -Eq '^ +[0-9]+ trace +off +0 +1 +req_begin +examples/control_server.c:[0-9]+ worker$' "$B/ctl_list.txt" || return 1
    $EP list "$B/control_server" | tee "$B/ctl_offline.txt"
    diff <(awk 'NR>1{print $2, $5, $6, $7, $8}' "$B/ctl_list.txt") <(awk 'NR>1{print $2, $5, $6, $7, $8}' "$B/ctl_offline.txt") || return 1
    [[ $(lines_of 'begins') -eq 0 ]] || return 1
    $EP enable "$PID" req_begin | tee "$B/ctl_enable.txt"
    grep -qx 'enabled 1 probe' "$B/ctl_enable.txt" || return 1
    sleep 0.5
    echo "lines on the server's stderr after enable: $(lines_of 'begins')"
    [[ $(lines_of 'begins') -gt 10 ]] || return 1
    $EP disable "$PID" 'req_*' | grep -qx 'disabled 1 probe' || return 1
    sleep 0.1
    local n=$(lines_of 'begins')
    sleep 0.5
    echo "after disable: $n, then $(lines_of 'begins')"
    [[ $(lines_of 'begins') -eq $n ]] || return 1
    # errors: a script can rely on the exit status and the message
    $EP enable "$PID" no_such_probe 2>"$B/ctl_err.txt"
    [[ $? -eq 1 ]] && grep -q 'EDGEPROBE_ENOENT no probe has that name' "$B/ctl_err.txt" || return 1
    $EP enable "$PID" 'req_[' 2>&1 | grep -q EDGEPROBE_EPATTERN || return 1
    $EP enable 2>/dev/null
    [[ $? -eq 2 ]] || return 1
    $EP list 999999999 2>/dev/null
    [[ $? -eq 1 ]] || return 1
    $EP --help | grep -q 'trace PID GLOB' && $EP trace --help | grep -q 'usage: edgeprobe trace'
}
case_ control-session ctl_session

# trace -d 1 streams lines to the client only, and puts every state back.
ctl_trace() {
    ctl_start trace -s 30 || return 1
    $EP enable "$PID" req_end req_check >/dev/null || return 1
    local before=$($EP list "$PID" --json | python3 -c 'import json,sys; print([p["state"] for p in json.load(sys.stdin)])')
    local err0=$(lines_of 'begins')
    $EP trace "$PID" 'req_*' -d 1 >"$B/ctl_trace.txt" 2>"$B/ctl_trace.err" || return 1
    cat "$B/ctl_trace.err"
    head -3 "$B/ctl_trace.txt"
    grep -q 'tracing 1 probe (1 already on, left alone)' "$B/ctl_trace.err" || return 1
    grep -Eq '^edgeprobe trace: [0-9]+ lines, 0 dropped$' "$B/ctl_trace.err" || return 1
    [[ $(grep -c '^worker [01]: request [0-9]* begins$' "$B/ctl_trace.txt") -gt 100 ]] || return 1
    [[ $(grep -vc 'begins' "$B/ctl_trace.txt") -eq 0 ]] || return 1 # req_end was on: not streamed
    [[ $(lines_of 'begins') -eq $err0 ]] || return 1                 # routed to the client only
    local after=$($EP list "$PID" --json | python3 -c 'import json,sys; print([p["state"] for p in json.load(sys.stdin)])')
    echo "states before: $before after: $after"
    [[ $before == "$after" ]] || return 1
    # a glob matching only probes that are on, or nothing: an error, nothing changes
    $EP trace "$PID" req_end -d 1 2>&1 | grep -q 'disable them first' || return 1
    [[ $(state req_end) == on ]]
}
case_ control-trace-duration ctl_trace

# trace killed with SIGKILL mid-stream: the process notices and restores.
ctl_trace_kill() {
    ctl_start tracekill -s 30 || return 1
    $EP trace "$PID" 'req_*' >"$B/ctl_tracekill.txt" 2>/dev/null &
    local tp=$!
    sleep 0.7
    [[ $(state req_begin) == on && $(state req_end) == on ]] || return 1
    kill -9 $tp
    wait $tp 2>/dev/null
    sleep 0.3
    echo "lines before SIGKILL: $(wc -l <"$B/ctl_tracekill.txt"); states now: $(state req_begin) $(state req_end)"
    [[ $(wc -l <"$B/ctl_tracekill.txt") -gt 10 ]] || return 1
    [[ $(state req_begin) == off && $(state req_end) == off ]] || return 1
    $EP trace "$PID" req_begin -d 0.2 >/dev/null # the session slot is free again
}
case_ control-trace-sigkill ctl_trace_kill

# A flood of lines (no pause in the server's loop): the command still stops
# on time, lines are dropped and counted, never waited for.
ctl_trace_flood() {
    ctl_start flood -s 30 -t 1 -p 0 || return 1
    local t0=$SECONDS
    timeout 20 $EP trace "$PID" req_begin -d 1 >"$B/ctl_flood.txt" 2>"$B/ctl_flood.err" || { cat "$B/ctl_flood.err"; return 1; }
    cat "$B/ctl_flood.err"
    echo "took $((SECONDS - t0)) s"
    grep -Eq '^edgeprobe trace: [0-9]{4,} lines, [1-9][0-9]* dropped$' "$B/ctl_flood.err" && [[ $(state req_begin) == off ]]
}
case_ control-trace-flood ctl_trace_flood

# top --once: a non-zero rate for a hot enabled probe.
ctl_top_once() {
    ctl_start top -s 30 -p 50 || return 1
    $EP enable "$PID" req_check >/dev/null || return 1
    $EP top "$PID" --once | tee "$B/ctl_top.txt"
    awk '$5 == "req_check" && $1 > 1000 {ok=1} END {exit !ok}' "$B/ctl_top.txt"
}
case_ control-top-once ctl_top_once

# top on a real terminal (tmux), until 'q'.
ctl_top_tmux() {
    command -v tmux >/dev/null || { echo "skipped: tmux not installed"; return 77; }
    ctl_start toptmux -s 30 -p 50 || return 1
    $EP enable "$PID" req_check >/dev/null || return 1
    local t="edgeprobe-test-$$" i
    tmux -L "$t" new-session -d -x 120 -y 20 "$EP top $PID -i 0.5; echo exited \$?; sleep 5" || return 1
    trap 'tmux -L "$t" kill-server 2>/dev/null; kill $PID 2>/dev/null; wait $PID 2>/dev/null; rm -f "$SOCK"' EXIT
    for i in $(seq 100); do # the first screen, then a second with rates (a loaded machine is slow to both)
        sleep 0.1
        tmux -L "$t" capture-pane -p >"$B/ctl_tmux.txt"
        awk '$5 == "req_check" && $1 > 100 {ok=1} END {exit !ok}' "$B/ctl_tmux.txt" && break
    done
    cat "$B/ctl_tmux.txt"
    grep -q "edgeprobe top - pid $PID" "$B/ctl_tmux.txt" &&
        awk '$5 == "req_check" && $1 > 100 {ok=1} END {exit !ok}' "$B/ctl_tmux.txt" || return 1
    [[ $(grep -c 'edgeprobe top - pid' "$B/ctl_tmux.txt") -eq 1 ]] || return 1 # redrawn in place
    tmux -L "$t" send-keys q
    for i in $(seq 20); do
        tmux -L "$t" capture-pane -p | grep -q '^exited 0' && return 0
        sleep 0.1
    done
    echo "top did not quit on 'q'"
    return 1
}
case_ control-top-tmux ctl_top_tmux

# Another uid is refused (by the 0700 directory, and by SO_PEERCRED when the
# socket is reachable), the refusal is logged, nothing changes.
ctl_other_uid() {
    command -v setpriv >/dev/null || { echo "skipped: setpriv not installed"; return 77; }
    [[ $(id -u) -eq 0 ]] || { echo "skipped: needs root to switch uid"; return 77; }
    ctl_start uid -s 30 || return 1
    PEERDIR=$(mktemp -d /tmp/edgeprobe-peer.XXXXXX)
    local d=$PEERDIR
    trap 'rm -rf "$PEERDIR"; kill $PID 2>/dev/null; wait $PID 2>/dev/null; rm -f "$SOCK"' EXIT
    cp "$EP" "$d/edgeprobe" && chmod 755 "$d" "$d/edgeprobe"
    local nobody="setpriv --reuid=65534 --regid=65534 --clear-groups"
    $nobody "$d/edgeprobe" enable "$PID" req_begin 2>&1 | tee "$B/ctl_uid1.txt"
    grep -q 'no control endpoint\|Permission denied' "$B/ctl_uid1.txt" || return 1
    ln "$SOCK" "$d/sock" && chmod 777 "$d/sock" || return 1 # past the directory check
    $nobody "$d/edgeprobe" enable "$d/sock" req_begin 2>&1 | tee "$B/ctl_uid2.txt"
    grep -q 'EDGEPROBE_EPERM' "$B/ctl_uid2.txt" || return 1
    $nobody "$d/edgeprobe" list "$d/sock" >/dev/null 2>&1 && return 1
    grep "refused" "$ERR"
    grep -q 'control: refused a client of uid 65534' "$ERR" || return 1
    [[ $(state req_begin) == off ]] && $EP list "$d/sock" >/dev/null # root is accepted
}
case_ control-other-uid ctl_other_uid

# Malformed, overlong and binary requests; silent clients; many clients.
ctl_proto() {
    ctl_start "proto-$1" -s 60 || return 1
    timeout 120 python3 tests/control_proto.py "$1" "$SOCK"
}
case_ control-bad-requests ctl_proto bad
case_ control-silent-clients ctl_proto silent
case_ control-many-clients ctl_proto many
ctl_fuzz() {
    gcc $SAN $WARN $INC -pthread tests/t_control_fuzz.c -o "$B/t_control_fuzz" && timeout 120 "./$B/t_control_fuzz" 100000 30
}
case_ control-fuzz-parser ctl_fuzz

# The process exits while a client is connected: the client ends with a
# message, the socket file is gone.
ctl_exit_connected() {
    ctl_start exit -s 1.5 || return 1
    $EP trace "$PID" 'req_*' >/dev/null 2>"$B/ctl_exit.err"
    local rc=$?
    cat "$B/ctl_exit.err"
    wait $PID
    [[ $rc -eq 1 ]] && grep -q 'closed the connection' "$B/ctl_exit.err" && [[ ! -e $SOCK ]]
}
case_ control-exit-while-connected ctl_exit_connected

# A killed process leaves its socket: commands say so, ps removes it.
ctl_stale() {
    ctl_start stale -s 30 || return 1
    kill -9 $PID
    wait $PID 2>/dev/null
    [[ -S $SOCK ]] || return 1
    $EP list "$PID" 2>&1 | tee "$B/ctl_stale.txt"
    grep -q 'the process is gone' "$B/ctl_stale.txt" || return 1
    $EP ps 2>&1 | tee "$B/ctl_stale_ps.txt"
    grep -q "removed stale socket $SOCK" "$B/ctl_stale_ps.txt" && [[ ! -e $SOCK ]] && ! grep -q "^$PID " "$B/ctl_stale_ps.txt"
}
case_ control-stale-socket ctl_stale

# fork: the child does not answer on its parent's socket and has none; its
# exit does not remove the parent's.
ctl_fork() {
    ctl_start fork -s 12 --fork || return 1
    local i child
    for i in $(seq 50); do grep -q '^child' "$OUT" && break; sleep 0.05; done
    child=$(awk '/^child/{print $2}' "$OUT")
    echo "server $PID, child $child: $(grep '^child' "$OUT")"
    [[ -n $child ]] && grep -q "^child $child -$" "$OUT" || return 1 # no endpoint in the child
    [[ $(python3 tests/control_proto.py pid "$SOCK") == "$PID" ]] || { echo "answered by another process"; return 1; }
    $EP ps | tee "$B/ctl_fork_ps.txt"
    kill -0 "$child" || return 1 # all of the above while the child ran
    grep -q "^$PID " "$B/ctl_fork_ps.txt" && ! grep -q "^$child " "$B/ctl_fork_ps.txt" || return 1
    ! ls "$(dirname "$SOCK")/$child.sock" 2>/dev/null || return 1
    while kill -0 "$child" 2>/dev/null && [[ $(ps -o stat= -p "$child") != Z* ]]; do sleep 0.1; done
    echo "child $child exited; the parent's socket: $(ls "$SOCK")"
    [[ -S $SOCK ]] && $EP list "$PID" >/dev/null
}
case_ control-fork ctl_fork

# Opt-in: no thread and no socket unless asked; edgeprobe_control_start().
ctl_optin() {
    ctl_build || return 1
    env -u EDGEPROBE_CONTROL "./$B/control_server" -s 1 -t 2 >"$B/ctl_optin.out" &
    local p=$! i
    sleep 0.4
    local threads=$(ls /proc/$p/task | wc -l)
    echo "threads without opt-in: $threads (main + 2 workers expected)"
    [[ $threads -eq 3 ]] && grep -q "^ready $p -$" "$B/ctl_optin.out" || return 1
    ls /tmp/edgeprobe-$(id -u)/$p.sock 2>/dev/null && return 1
    wait $p
    env -u EDGEPROBE_CONTROL "./$B/control_server" -s 1 -t 2 --start >"$B/ctl_optin2.out" &
    p=$!
    sleep 0.4
    threads=$(ls /proc/$p/task | wc -l)
    echo "threads with edgeprobe_control_start(): $threads; $(cat "$B/ctl_optin2.out")"
    [[ $threads -eq 4 ]] && grep -q "edgeprobe-ctl" /proc/$p/task/*/comm && $EP list "$p" >/dev/null || return 1
    wait $p
    EDGEPROBE_CONTROL=yes "./$B/control_server" -s 0.2 2>&1 | grep -q 'EDGEPROBE_CONTROL must be 1 or 0'
}
case_ control-opt-in ctl_optin

# Offline listing: non-PIE, PIE, clang/lld, RELR relocations, a shared
# library; JSON parses.
ctl_offline() {
    shared tools make -s tools >/dev/null || return 1
    local d=$B/ctl-offline
    mkdir -p "$d"
    gcc -O2 -no-pie $INC -pthread examples/control_server.c -o "$d/nopie" &&
        gcc -O2 -pie -fPIE $INC -pthread examples/control_server.c -o "$d/pie" &&
        clang -O2 -fuse-ld=lld $INC -pthread examples/control_server.c -o "$d/clang" &&
        gcc -O2 $INC -pthread -Wl,-z,pack-relative-relocs examples/control_server.c -o "$d/relr" &&
        gcc -O2 -fPIC -shared $INC -Itests/multi tests/multi/liba.c -o "$d/liba.so" || return 1
    local f
    for f in nopie pie clang relr; do
        $EP list "$d/$f" --json | python3 -c '
import json, sys
probes = {p["name"]: p for p in json.load(sys.stdin)}
assert set(probes) == {"req_begin", "req_check", "req_reply", "req_end"}, probes
assert probes["req_check"]["kind"] == "branch" and probes["req_check"]["function"] == "compute"
assert probes["req_begin"]["file"] == "examples/control_server.c" and probes["req_begin"]["hits"] is None
print(sys.argv[1], "ok:", sorted(probes))' "$f" || return 1
    done
    $EP list "$d/liba.so" | tee "$d/liba.txt"
    local n=$(grep -c 'EDGEPROBE_\(TRACE\|BRANCH\|HANDLER\)' tests/multi/liba.c)
    echo "liba.c has $n markers"
    [[ $(($(wc -l <"$d/liba.txt") - 1)) -eq $n ]] || return 1
    $EP list /bin/true | tee "$d/true.txt"
    [[ $(wc -l <"$d/true.txt") -eq 1 ]] || return 1
    $EP list Makefile 2>&1 | grep -q 'not an ELF file'
}
case_ control-offline-list ctl_offline

# Offline listing of function probes: every function nm lists in .text of a
# file built with -fpatchable-function-entry=5 (PIE, where the entries are
# relocations, non-PIE, a shared library); the same file without the flag
# says so.
ctl_offline_functions() {
    shared tools make -s tools >/dev/null || return 1
    local d=$B/ctl-offline-fn f obj
    local flag=-fpatchable-function-entry=5
    mkdir -p "$d"
    gcc -O2 $flag -fPIC -c tests/fprobe/lib.c -o "$d/lib.o" && gcc -shared "$d/lib.o" -o "$d/lib.so" &&
        gcc -O2 $flag -fPIE $INC -c examples/control_server.c -o "$d/server.o" &&
        gcc -pie -pthread "$d/server.o" -o "$d/pie" &&
        gcc -O2 $flag -fno-pie $INC -c examples/control_server.c -o "$d/server-nopie.o" &&
        gcc -no-pie -pthread "$d/server-nopie.o" -o "$d/nopie" &&
        gcc -O2 -fPIC -shared tests/fprobe/lib.c -o "$d/plain.so" || return 1
    for f in lib.so:lib.o pie:server.o nopie:server-nopie.o; do
        obj=${f#*:} f=${f%%:*}
        $EP list "$d/$f" --json >"$d/$f.json" || return 1
        python3 - "$d/$f" "$d/$f.json" "$d/$obj" <<'PY' || return 1
import json, subprocess, sys
path, listing, obj = sys.argv[1], json.load(open(sys.argv[2])), sys.argv[3]
listed = {p["name"] for p in listing if p["kind"] == "function"}
def text_symbols(f):
    out = subprocess.run(["nm", "--defined-only", f], capture_output=True, text=True, check=True).stdout
    return {l.split()[2] for l in out.splitlines() if len(l.split()) == 3 and l.split()[1] in "tT"}
# every function compiled here with the flag (not the header's own, built
# without NOPs, nor cold partitions, which have no entry) is listed
want = {f for f in text_symbols(obj) if not f.startswith("edgeprobe") and "." not in f}
missing = want - listed
assert want and not missing, f"{path}: not listed: {sorted(missing)}"
assert listed <= text_symbols(path), f"{path}: listed but not functions: {sorted(listed - text_symbols(path))}"
print(path, "ok:", len(listed), "function probes, e.g.", sorted(listed)[:4])
PY
    done
    $EP list "$d/plain.so" 2>"$d/plain.err" >/dev/null || return 1
    cat "$d/plain.err"
    grep -q 'has no function entries (build with -fpatchable-function-entry=5' "$d/plain.err"
}
case_ control-offline-function-probes ctl_offline_functions

# Hit counts: exact from several threads, nothing when off; compiled out.
case_ hits-gcc unit hits-gcc gcc "-O2" tests/t_hits.c
case_ hits-clang unit hits-clang clang "-O0" tests/t_hits.c
case_ hits-compiled-out unit hits-off gcc "-O2 -DEDGEPROBE_HIT_COUNTS=0" tests/t_hits.c

# 3,000 probes: the list is produced in batches (more rows than a client's
# buffer holds) and stays complete and in order; enable by glob; live hits.
ctl_many() {
    shared tools make -s tools >/dev/null || return 1
    python3 bench/gen_core.py 3000 | sed 's/^void (\*const core_funcs\[3000\])(void) = {/const int core_nfuncs = 3000;\n&/' >"$B/ctl_many_probes.c"
    gcc -O2 $INC -pthread tests/control_many.c "$B/ctl_many_probes.c" -o "$B/ctl_many" || return 1
    "./$B/ctl_many" 30 >"$B/ctl_many.out" &
    PID=$!
    SOCK=/nonexistent
    trap 'kill $PID 2>/dev/null; wait $PID 2>/dev/null; rm -f "$SOCK"' EXIT
    local i
    for i in $(seq 100); do grep -q '^ready' "$B/ctl_many.out" && break; sleep 0.05; done
    SOCK=$(ls /tmp/edgeprobe-$(id -u)/$PID.sock ${XDG_RUNTIME_DIR:-/nonexistent}/edgeprobe/$PID.sock 2>/dev/null | head -1)
    $EP enable "$PID" 'p_1*' | tee "$B/ctl_many_enable.txt"
    grep -qx 'enabled 1111 probes' "$B/ctl_many_enable.txt" || return 1
    sleep 0.3
    $EP list "$PID" --json | python3 -c '
import json, sys
probes = json.load(sys.stdin)
assert [p["id"] for p in probes] == list(range(3000)), "ids"
on = [p for p in probes if p["state"] == "on"]
assert len(on) == 1111 and all(p["name"].startswith("p_1") for p in on), len(on)
assert all(p["hits"] > 0 for p in on) and all(p["hits"] == 0 for p in probes if p["state"] == "off")
print(len(probes), "probes listed,", len(on), "on, all of them hit")'
}
case_ control-many-probes ctl_many
