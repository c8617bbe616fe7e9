# tests/drivers/stress.sh - sourced by tests/run.sh. Cross-modification stress: each
# protocol at each split S = 1..4 (and every non-straddling offset), with
# executor threads running the site while this process's patcher toggles
# it. Each case is its own process: a crash fails the case.
# make test: 100,000 toggles per case (the suite must stay within 8 minutes
# on 2 cores). `make soak`: the paper's 50 million.
if [[ -n ${EDGEPROBE_SOAK:-} ]]; then
    STRESS_TOGGLES=50000000 STRESS_SECONDS=7200 STRESS_TMAX=6000
else
    STRESS_TOGGLES=100000 STRESS_SECONDS=120
fi
stress_build() { shared stress stress_compile; }
stress_compile() {
    [[ -x $B/stress && $B/stress -nt tests/stress.c && $B/stress -nt include/edgeprobe.h ]] ||
        gcc -O2 $WARN $INC -pthread tests/stress.c -o "$B/stress"
}
stress_case() {
    local n=$3
    [[ $1 == *-tmax && -z ${EDGEPROBE_SOAK:-} ]] && n=$((n / 4)) # 60,000-tick waits are slow
    stress_build && EDGEPROBE_TMAX=${STRESS_TMAX:-60000} "./$B/stress" "$1" "$2" "$n" "$STRESS_SECONDS"
}
# word-sync and word-async: the default protocol (serialising mode). The
# Tmax protocol, an opt-in: in make test with a wait of 60,000 ticks (ten
# times the default, a check of its logic under executors; 25,000 toggles);
# `make soak`
# runs it at the default wait, where a virtual machine can break it
# (README, "Which straddler protocol is proven where").
for mode in word-sync word-async call word-sync-tmax; do
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
