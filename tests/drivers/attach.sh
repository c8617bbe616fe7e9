# tests/drivers/attach.sh - sourced by tests/run.sh: `edgeprobe attach` loads
# the agent into a process that never opted in (tools/cmd_attach.c).

attach_ok() {
    [[ $(uname -m) == x86_64 ]] || { echo "skipped: edgeprobe attach is x86-64 only"; return 77; }
    shared tools make -s tools >/dev/null || return 1
    local d=$B/attach-ok pid out fifo
    mkdir -p "$d"
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
    [[ $(uname -m) == x86_64 ]] || { echo "skipped: edgeprobe attach is x86-64 only"; return 77; }
    shared tools make -s tools >/dev/null || return 1
    local d=$B/attach-refusals pid err
    mkdir -p "$d"
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
        [[ $err != 0 ]] && grep -q 'cannot trace process' "$d/user.txt" && grep -q 'nothing changed' "$d/user.txt"
    fi
}
case_ attach-refused-cleanly attach_refusals
