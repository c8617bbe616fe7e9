# tests/drivers/startup.sh - sourced by tests/run.sh (issue 9, start-up):
# registering a table allocates nothing per site. tests/t_startup.c counts
# malloc/calloc/realloc/mmap calls made before main; the same program is
# built with 500 and with 5,000 generated probes (tests/gen_startup.py), and
# the counts must be equal. Each build also checks the registered probes
# work (listing, discovery, exact, shared and glob enabling).

startup_build() { # startup_build N: the program with N distinct probes
    local d="$B/startup-$1"
    python3 tests/gen_startup.py "$d" "$1" 4 &&
        gcc -O0 $WARN $INC -pthread -DSTARTUP_SITES="$1" tests/t_startup.c "$d"/gen_*.c -o "$d/t_startup"
}
startup_allocs() { # the number of allocations before main, or nothing
    sed -n 's/^sites=[0-9]* allocs=\([0-9]*\) maps=\([0-9]*\)$/\1 \2/p' "$1" | awk '{print $1 + $2}'
}
startup_no_alloc_per_site() {
    local n out few many
    for n in 500 5000; do
        startup_build "$n" || return 1
        timeout 60 "./$B/startup-$n/t_startup" >"$B/startup-$n/out.txt" || { cat "$B/startup-$n/out.txt"; return 1; }
        cat "$B/startup-$n/out.txt"
    done
    few=$(startup_allocs "$B/startup-500/out.txt")
    many=$(startup_allocs "$B/startup-5000/out.txt")
    [[ -n $few && -n $many ]] || { echo "no allocation counts printed"; return 1; }
    if [[ $few -ne $many ]]; then
        echo "allocations before main: $few with 500 probes, $many with 5,000: registration allocates per site"
        return 1
    fi
    echo "allocations before main: $few with 500 probes and with 5,000"
}
case_ startup-no-alloc-per-site startup_no_alloc_per_site
