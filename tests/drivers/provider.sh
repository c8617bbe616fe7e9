# tests/drivers/provider.sh - sourced by tests/run.sh: the -finstrument-functions
# provider on an instrumented test program, hooks in their own translation
# unit or in the instrumented one, gcc and clang, -O0 and -O2.
provider_case() {
    local cc=$1 opt=$2 here=$3 d="$B/provider-$1$2$3" hooks=""
    local f="$opt $WARN $INC -Itests/provider -pthread"
    mkdir -p "$d"
    $cc $f -fPIC -shared -finstrument-functions tests/provider/lib.c -o "$d/libprov.so" || return 1
    if [[ -z $here ]]; then
        $cc $f -c tests/provider/hooks.c -o "$d/hooks.o" || return 1
        hooks="$d/hooks.o"
    fi
    $cc $f $here -finstrument-functions -rdynamic tests/provider/t_provider.c $hooks -ldl -o "$d/t_provider" &&
        timeout 300 "./$d/t_provider" "$PWD/$d/libprov.so"
}
for m in gcc:-O0: gcc:-O2: clang:-O0: clang:-O2: gcc:-O2:-DHOOKS_HERE clang:-O2:-DHOOKS_HERE; do
    IFS=: read -r cc opt here <<<"$m"
    case_ "provider-$cc$opt${here:+-hooks-here}" provider_case "$cc" "$opt" "$here"
done
