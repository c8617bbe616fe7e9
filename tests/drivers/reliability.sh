# tests/drivers/reliability.sh - sourced by tests/run.sh: edgeprobe is never
# the reason a program hangs or dies (README, "Reliability"): late traps,
# privileged processes, the straddler protocol's default.

# A SIGTRAP handled after its patch and 5,000 later ones resumes the site.
case_ trap-late unit trap-late gcc "-O2" tests/t_trap_late.c

# ---- privileged processes (AT_SECURE) ignore their environment -------------
HOSTILE_ENV="EDGEPROBE_ENABLE=* EDGEPROBE_TMAX=0 EDGEPROBE_SYNC=tmax EDGEPROBE_CONTROL=1 EDGEPROBE_VERBOSE=1"
secure_env() {
    local d="$B/secure" plain secure
    mkdir -p "$d"
    gcc -O2 $WARN $INC -pthread tests/t_secure.c -o "$d/t_secure" || return 1
    cp "$d/t_secure" "$d/t_secure_cap"
    if [[ $(id -u) != 0 ]] || ! command -v setcap >/dev/null || ! command -v setpriv >/dev/null ||
        ! setcap cap_net_bind_service+ep "$d/t_secure_cap" 2>/dev/null; then
        echo "skipped: needs root, setcap (libcap2-bin), setpriv and a file system with xattrs"
        return 77
    fi
    # as another user: root gains nothing from a capability (no AT_SECURE)
    rm -rf "$d/xdg" && mkdir -p "$d/xdg" && chown 65534:65534 "$d/xdg" && chmod 700 "$d/xdg"
    local as_nobody="setpriv --reuid=65534 --regid=65534 --clear-groups"
    plain=$(env $HOSTILE_ENV XDG_RUNTIME_DIR="$PWD/$d/xdg" $as_nobody "$d/t_secure" 2>"$d/plain.err")
    rm -rf "$d/xdg"/* 2>/dev/null
    secure=$(env $HOSTILE_ENV XDG_RUNTIME_DIR="$PWD/$d/xdg" $as_nobody "$d/t_secure_cap" 2>"$d/secure.err")
    clean=$(env -i $as_nobody "$d/t_secure_cap")
    echo "plain:             $plain"
    echo "privileged:        $secure"
    echo "privileged, no env: $clean"
    cat "$d/secure.err"
    # the control: a plain run takes every setting
    [[ $plain == "enabled=1 tmax=0 sync=tmax control=on" ]] || { echo "the plain run ignored its environment"; return 1; }
    [[ $secure == "$clean" && $clean == "enabled=0 tmax=6000 "*" control=off" ]] ||
        { echo "the privileged run took settings from its environment"; return 1; }
    [[ $(grep -c 'privileged process (AT_SECURE): settings in the environment ignored' "$d/secure.err") == 1 ]] ||
        { echo "no single log line for the ignored settings"; return 1; }
    [[ -z $(ls -A "$d/xdg") ]] || { echo "the privileged run used XDG_RUNTIME_DIR"; return 1; }
}
case_ secure-env-ignored secure_env

# ---- the straddler protocol's default: serialising mode where it exists ----
sync_default() {
    local d="$B/sync-default" out err
    mkdir -p "$d"
    gcc -O2 $WARN $INC -pthread tests/t_secure.c -o "$d/t_secure" || return 1
    out=$(env -u EDGEPROBE_SYNC "$d/t_secure" 2>"$d/err") || return 1
    echo "$out"; cat "$d/err"
    if grep -q 'membarrier-sync-core=yes' "$d/err"; then
        [[ $out == *"sync=serialize"* ]] || { echo "membarrier SYNC_CORE is there, the default is not serialising"; return 1; }
    else
        [[ $out == *"sync=tmax"* ]] || return 1
    fi
    out=$(EDGEPROBE_SYNC=tmax "$d/t_secure" 2>/dev/null)
    [[ $out == *"sync=tmax"* ]] || { echo "EDGEPROBE_SYNC=tmax was not taken"; return 1; }
}
case_ sync-default-serialize sync_default

# ---- fork while probes are switched: the child goes on using edgeprobe ------
fork_storm() {
    local d="$B/fork-storm"
    mkdir -p "$d"
    gcc -O2 $WARN $INC -Itests/impl -fPIC -shared -DPLUGIN tests/impl/lib.c -o "$d/plugin.so" &&
        gcc -O2 $WARN $INC -pthread tests/t_fork_storm.c -ldl -o "$d/t_fork_storm" &&
        timeout 120 "$d/t_fork_storm" "$PWD/$d/plugin.so" "${FORK_STORM_SECONDS:-3}"
}
case_ fork-storm fork_storm

# ---- ymm values live at a site of a file built without -mavx ---------------
vec_runtime() {
    gcc -O2 $WARN $INC -DREGS_YMM tests/trace/regs.c -o "$B/trace-regs-ymm-runtime" && "./$B/trace-regs-ymm-runtime"
}
case_ trace-regs-ymm-in-sse-file vec_runtime

# ---- threads that block SIGTRAP: straddling patches refused, markers fine --
case_ sigtrap-blocked-refused unit sigtrap-blocked gcc "-O2 -fpatchable-function-entry=5" tests/t_sigtrap_blocked.c
# A thread joined a moment ago may still be listed, exiting, with every
# signal blocked (glibc blocks them before its exit call): not a reason to
# refuse. tests/signal/slowreap.c keeps each exited thread listed for 2 ms,
# as a thread descheduled on its way out is on a loaded machine; the header
# before the fix refused 20 straddling patches of 20 after a join so (and
# once in about five test runs under load, fprobe-stress-unwind-table's
# first switch of fs_nop5_2).
sigtrap_join() {
    local d="$B/sigtrap-join"
    mkdir -p "$d"
    gcc -O2 $WARN $INC -pthread tests/signal/t_join_straddle.c -o "$d/t_join_straddle" &&
        gcc -O2 $WARN tests/signal/slowreap.c -o "$d/slowreap" &&
        timeout 60 "./$d/slowreap" 2000 "./$d/t_join_straddle" 20 300
}
case_ sigtrap-join-not-refused sigtrap_join

# ---- probes in signal handlers that interrupt malloc: no allocation --------
signal_malloc() {
    local cc=$1 d="$B/sigmalloc-$1" f="-O2 $WARN $INC -Itests"
    mkdir -p "$d"
    $cc $f -finstrument-functions -c tests/signal/provided.c -o "$d/provided.o" &&
        $cc $f -fpatchable-function-entry=5 -rdynamic -pthread tests/signal/t_signal_malloc.c "$d/provided.o" -ldl \
            -o "$d/t_signal_malloc" && timeout 60 "./$d/t_signal_malloc"
}
case_ signal-handler-no-malloc signal_malloc gcc
case_ signal-handler-no-malloc-clang signal_malloc clang

# ---- a call in flight across detach, sync and a new attach ------------------
# Without tcache, glibc hands the new binding the freed one's address, which
# is what made a stale exit reach the new handler.
func_gen() {
    gcc -O2 $WARN $INC -fpatchable-function-entry=5 -pthread tests/fprobe/t_func_gen.c -ldl -o "$B/t_func_gen" &&
        GLIBC_TUNABLES=glibc.malloc.tcache_count=0 timeout 60 "./$B/t_func_gen" && timeout 60 "./$B/t_func_gen"
}
case_ func-exit-generation func_gen

# ---- CET shadow stacks: exit handlers refused (skips without the hardware) --
case_ shadow-stack-exit-refused unit shstk gcc "-O2 -fpatchable-function-entry=5" tests/t_shstk.c

# ---- dlopen/dlclose storms against switching, scanning and listing ---------
# tests/dl/t_dl_storm.c: a deadlock (dladdr under the registry lock) or a
# write or read of an unloaded object (SIGSEGV) before the fix. Built with
# EDGEPROBE_DEBUG, which also stops the program if the loader is asked with
# the registry lock held.
dl_storm() {
    local cc=$1 d="$B/dl-storm-$1" f="-O2 $WARN $INC -Itests -DEDGEPROBE_DEBUG"
    mkdir -p "$d"
    $cc $f -fPIC -shared -finstrument-functions -fpatchable-function-entry=5 tests/dl/lib.c -o "$d/lib.so" &&
        $cc $f -rdynamic -pthread tests/dl/t_dl_storm.c -ldl -o "$d/t_dl_storm" &&
        timeout 120 "./$d/t_dl_storm" "$PWD/$d/lib.so" "${DL_STORM_SECONDS:-3}"
}
case_ dl-storm-gcc dl_storm gcc
case_ dl-storm-clang dl_storm clang

# ---- arguments in globals: memory operands with a symbol -------------------
global_args() {
    local cc=$1 how=$2 d="$B/global-args-$1-$2" f="-O2 $WARN $INC -Itests"
    mkdir -p "$d"
    case $how in
    pie) $cc $f tests/args/t_global_args.c -o "$d/t" ;;
    nopie) $cc $f -fno-pie -no-pie tests/args/t_global_args.c -o "$d/t" ;;
    shared) $cc $f -fPIC -shared -DLIBRARY tests/args/t_global_args.c -o "$d/libglobal.so" &&
        $cc $f tests/args/main.c -L"$d" -Wl,-rpath,"$PWD/$d" -lglobal -o "$d/t" ;;
    esac && "./$d/t"
}
for how in pie nopie shared; do
    case_ "args-in-globals-gcc-$how" global_args gcc $how
done
case_ args-in-globals-clang-pie global_args clang pie

# ---- a crash leaves evidence: tests/run.sh records who died, and where -----
if [[ -n ${EDGEPROBE_TEST_CRASH_CASE:-} ]]; then # only inside the run below
    crash_on_purpose() { gcc -g -O0 -rdynamic tests/crash/crash_here.c -o "$B/crash_here" && "./$B/crash_here"; }
    case_ crash-on-purpose crash_on_purpose
fi
runner_crash_evidence() {
    local out
    out=$(EDGEPROBE_TEST_BUILD="$B/runner-crash" EDGEPROBE_TEST_CRASH_CASE=1 bash tests/run.sh -j 1 crash-on-purpose 2>&1)
    echo "$out"
    grep -q '^FAIL crash-on-purpose' <<<"$out" &&
        grep -Eq '! crash: pid [0-9]+ \(crash_here\) thread [0-9]+: SEGV \(code [0-9]+\) at 0x10' <<<"$out" &&
        grep -q '! .*crash_here_now' <<<"$out" && grep -q '! .*crash_here_caller' <<<"$out" && return 0
    echo "the failed case's crash was not recorded (process, signal, backtrace)"
    return 1
}
case_ runner-crash-evidence runner_crash_evidence
