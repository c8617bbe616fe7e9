#!/usr/bin/env bash
# bench/size.sh - the size of edgeprobe's freestanding core, x86-64 and
# aarch64 (if the cross tools are there), gcc and clang, -O2 and -Os, with and
# without EDGEPROBE_CORE_ONLY. Prints a markdown table (bytes):
#   object     the implementation alone in one freestanding file
#              (EDGEPROBE_IMPLEMENTATION): every function it defines, before
#              any --gc-sections
#   program    a -nostdlib -static program with one probe and one
#              edgeprobe_enable call (bench/size_min.c), linked with
#              -ffunction-sections -Wl,--gc-sections, minus the same program
#              with a plain flag in place of the probe and no header
#   registry   the one heap block (the root) that the first API call allocates
# text counts code and read-only data (`size`'s Berkeley format).
set -u
cd "$(dirname "$0")/.."
O=build/size
mkdir -p "$O"
HOOKS='-DEDGEPROBE_FREESTANDING -DEDGEPROBE_OS_PROTECT(p,l,w)=size_protect(p,l,w) -DEDGEPROBE_OS_ALLOC(n)=size_alloc(n) -DEDGEPROBE_OS_FREE(p)=size_free(p) -DEDGEPROBE_OS_YIELD()=size_yield() -DEDGEPROBE_SINK(...)=0'
PROTOS='#include <stddef.h>
int size_protect(void *, size_t, int); void *size_alloc(size_t); void size_free(void *); void size_yield(void);'
printf '%s\n#define EDGEPROBE_IMPLEMENTATION\n#include "edgeprobe.h"\n' "$PROTOS" >"$O/core.c"
printf '%s\n#include "edgeprobe.h"\nchar size_root[sizeof(edgeprobe__root)];\n' "$PROTOS" >"$O/root.c"
NOLIBC="-ffreestanding -fno-stack-protector -nostdlib -static -ffunction-sections -fdata-sections -Wl,--gc-sections -Iinclude -Itests"

# text and data of an ELF file: "text data"
text_data() { $1 -B "$2" | awk 'NR == 2 { print $1, $2 }'; }

row() { # arch cc-command size-command extra-flags config opt
    local arch=$1 cc=$2 sz=$3 extra=$4 cfg=$5 opt=$6 d ot od pt pd bt bd root name
    local def=""
    [[ $cfg == core-only ]] && def="-DEDGEPROBE_CORE_ONLY"
    d="$O/$arch-${cc%% *}$opt-$cfg"
    $cc $opt $def $HOOKS -Iinclude -ffreestanding -c "$O/core.c" -o "$d-core.o" || return 1
    $cc $opt $def $HOOKS -Iinclude -ffreestanding -c "$O/root.c" -o "$d-root.o" || return 1
    $cc $opt $def $NOLIBC bench/size_min.c $extra -o "$d-min" || return 1
    $cc $opt $def $NOLIBC -DSIZE_BASELINE bench/size_min.c $extra -o "$d-base" || return 1
    read -r ot od < <(text_data "$sz" "$d-core.o")
    read -r pt pd < <(text_data "$sz" "$d-min")
    read -r bt bd < <(text_data "$sz" "$d-base")
    root=$($sz -A "$d-root.o" | awk '$1 == ".bss" { print $2 }')
    name=${cc%% *}
    echo "| $arch | ${name#aarch64-linux-gnu-} $opt | $cfg | $ot | $od | $((pt - bt)) | $((pd - bd)) | $root |"
}

echo "| arch | compiler | configuration | object text | object data | program text | program data | registry (heap) |"
echo "|---|---|---|---|---|---|---|---|"
for cc in gcc clang; do
    for opt in -O2 -Os; do
        for cfg in default core-only; do row x86-64 "$cc" size "" "$cfg" "$opt"; done
    done
done
if command -v aarch64-linux-gnu-gcc >/dev/null && [[ -e /usr/aarch64-linux-gnu/lib/libc.so.6 ]]; then
    for cc in aarch64-linux-gnu-gcc "clang --target=aarch64-linux-gnu"; do
        for opt in -O2 -Os; do
            for cfg in default core-only; do
                row aarch64 "$cc" aarch64-linux-gnu-size "-mno-outline-atomics -lgcc" "$cfg" "$opt"
            done
        done
    done
else
    echo "aarch64: skipped: no aarch64-linux-gnu-gcc (make test-aarch64 installs it as root)"
fi
echo "($(uname -m), $(gcc --version | head -1), $(clang --version | head -1))"
