# tests/drivers/startup.sh - sourced by tests/run.sh (issue 9, start-up):
# registering a table allocates nothing per site and writes nothing into the
# program (its marks stay untouched until a probe is on). tests/t_startup.c counts
# malloc/calloc/realloc/mmap calls made before main; the same program is
# built with 500 and with 5,000 generated probes (tests/gen_startup.py), and
# the counts must be equal. Each build also checks the registered probes
# work (listing, discovery, exact, shared and glob enabling). On x86-64, and
# on aarch64 under qemu (helpers from embedded.sh, sourced before this file).

# startup_no_alloc_per_site TAG CC [RUNNER...]
startup_no_alloc_per_site() {
    local tag=$1 cc=$2 n d few many
    shift 2
    for n in 500 5000; do
        d="$B/startup-$tag-$n"
        python3 tests/gen_startup.py "$d" "$n" 4 &&
            $cc -O0 $WARN $INC -pthread -DSTARTUP_SITES="$n" tests/t_startup.c "$d"/gen_*.c -o "$d/t_startup" || return 1
        timeout 120 "$@" "./$d/t_startup" >"$d/out.txt" || { cat "$d/out.txt"; return 1; }
        cat "$d/out.txt"
    done
    few=$(startup_allocs "$B/startup-$tag-500/out.txt")
    many=$(startup_allocs "$B/startup-$tag-5000/out.txt")
    [[ -n $few && -n $many ]] || { echo "no allocation counts printed"; return 1; }
    if [[ $few -ne $many ]]; then
        echo "allocations before main: $few with 500 probes, $many with 5,000: registration allocates per site"
        return 1
    fi
    echo "allocations before main: $few with 500 probes and with 5,000"
}
startup_allocs() { # the allocations (calls + mappings) a run printed, or nothing
    sed -n 's/^sites=[0-9]* allocs=\([0-9]*\) maps=\([0-9]*\)$/\1 \2/p' "$1" | awk '{print $1 + $2}'
}
startup_a64() {
    [[ -z $(a64_missing) ]] || { a64_skip; return 77; }
    startup_no_alloc_per_site a64 "$A64_GCC" env QEMU_LD_PREFIX="$A64_SYSROOT" qemu-aarch64 -U LD_PRELOAD
}
case_ startup-no-alloc-per-site startup_no_alloc_per_site x86 gcc
case_ aarch64-startup-no-alloc-per-site startup_a64
