#!/usr/bin/env bash
# bench/attach_malloc.sh [TRIALS] - how often `edgeprobe attach` breaks a
# single-threaded program that is inside malloc when it is seized
# (tests/attach/malloc_loop.c: malloc/free in a loop for 1 s). Each trial is a
# new process, attached 0.3 s after its start; it must then run to its end
# and exit 0. Prints one line per failed trial (the attach's words and the
# program's stderr) and the count.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
TRIALS=${1:-30}
B=build/bench-attach-malloc
EP=build/edgeprobe
mkdir -p "$B"
make -s tools >/dev/null || exit 1
gcc -O2 tests/attach/malloc_loop.c -o "$B/mallocloop" || exit 1
bad=0
for ((i = 1; i <= TRIALS; i++)); do
    (exec "./$B/mallocloop" 1 >"$B/out" 2>"$B/err") &
    pid=$!
    sleep 0.3
    $EP attach $pid >"$B/attach" 2>&1
    rc=$?
    wait $pid
    st=$?
    if ((rc || st)); then
        bad=$((bad + 1))
        echo "trial $i: attach exit $rc, program exit $st; attach: $(tr '\n' ' ' <"$B/attach"); program: $(tr '\n' ' ' <"$B/err")"
    fi
done
echo "$bad of $TRIALS attaches broke the program"
