# tests/drivers/stress.sh - sourced by tests/run.sh. Cross-modification stress: each
# protocol at each split S = 1..4 (and every non-straddling offset), with
# executor threads running the site while this process's patcher toggles
# it. Each case is its own process: a crash fails the case.
# CI: 200,000 toggles per case. `make soak`: the paper's 50 million.
if [[ -n ${EDGEPROBE_SOAK:-} ]]; then
    STRESS_TOGGLES=50000000 STRESS_SECONDS=7200
else
    STRESS_TOGGLES=200000 STRESS_SECONDS=120
fi
stress_build() { shared stress stress_compile; }
stress_compile() {
    [[ -x $B/stress && $B/stress -nt tests/stress.c && $B/stress -nt include/edgeprobe.h ]] ||
        gcc -O2 $WARN $INC -pthread tests/stress.c -o "$B/stress"
}
stress_case() { stress_build && "./$B/stress" "$1" "$2" "$3" "$STRESS_SECONDS"; }
for mode in word-sync word-async call serialize; do
    for split in 1 2 3 4; do
        case_ "stress-$mode-S$split" stress_case "$mode" "$split" "$STRESS_TOGGLES"
    done
done
case_ stress-inline-offsets-0-59 stress_case inline 0 "$STRESS_TOGGLES"

# The same harness with a broken protocol (plain stores, no int3, no wait)
# must crash here, or a green stress run would mean nothing. Its rate is
# reported; the case fails only if no trial out of 12 crashed.
stress_broken_detects() {
    local trial split crashes=0
    stress_build || return 1
    for trial in 1 2 3; do
        for split in 1 2 3 4; do
            "./$B/stress" broken "$split" 200000 5 >/dev/null 2>&1
            (($? >= 128)) && crashes=$((crashes + 1))
        done
    done
    echo "broken protocol crashed in $crashes of 12 trials"
    ((crashes > 0))
}
case_ stress-broken-protocol-is-detected stress_broken_detects
