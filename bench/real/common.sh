# bench/real/common.sh - sourced, from the repository's root, by the scripts
# that run the Debian programs built with -fpatchable-function-entry=5
# (bench/real/build.sh fpe) or compare the profiler of another commit.

# real_inputs OUT: the programs built (fetched first if need be), and
# OUT/text8.txt, 8 MiB of generated text for bzip2 and zstd.
real_inputs() {
    mkdir -p "$1"
    [[ -x build/real/fpe/lua ]] || { bash bench/real/fetch.sh && bash bench/real/build.sh fpe; }
    [[ -x build/real/gen_text ]] || gcc -O2 -o build/real/gen_text bench/real/gen_text.c
    [[ -s $1/text8.txt ]] || build/real/gen_text 8 >"$1/text8.txt"
}

# real_workload PROGRAM OUT [LUA_N] [ZSTD_THREADS]: the command line of a
# program's workload, one process (bench.lua LUA_N rounds, default 2;
# zstd -9 with ZSTD_THREADS workers, default 1).
real_workload() {
    case $1 in
    bzip2) echo "build/real/fpe/bzip2 -c $2/text8.txt" ;;
    lua) echo "build/real/fpe/lua bench/real/bench.lua ${3:-2}" ;;
    zstd) echo "build/real/fpe/zstd -q -T${4:-1} -9 -c $2/text8.txt" ;;
    esac
}

# base_agent BASE OUT [CFLAGS...]: OUT/agent-base.so, the profiler library
# of commit BASE (its tools/prof_agent.c, every header of its tools/ and
# include/edgeprobe.h: the agent's headers grew, signal_defer.h on
# 2026-11-27 and daemon_follow.h on 2026-11-28), built with CFLAGS
# (-DNAME=VALUE experiments).
base_agent() {
    local base=$1 out=$2 f
    shift 2
    rm -rf "$out/base"
    mkdir -p "$out/base"
    for f in include/edgeprobe.h tools/prof_agent.c $(git ls-tree --name-only "$base" tools/ | grep '\.h$'); do
        git show "$base:$f" >"$out/base/${f##*/}" || return 1
    done
    cc -O2 -Wall -Wextra "$@" -I"$out/base" -fPIC -shared "$out/base/prof_agent.c" -o "$out/agent-base.so" -pthread -ldl
}

# redis_built: build/real/redis/fpe/src/redis-server, redis 7 from Debian's
# sources (apt-get source: bench/real/fetch.sh adds a deb-src entry) built
# with -fpatchable-function-entry=5 on every file of the server (its own
# Makefile, its bundled deps, libc malloc); fetched and built if missing.
# Returns 1, saying why, when it cannot be.
redis_built() {
    local src
    [[ -x build/real/redis/fpe/src/redis-server ]] && return 0
    if ! compgen -G "bench/real/src/redis-*/src/server.c" >/dev/null; then
        bash bench/real/fetch.sh >/dev/null
        (cd bench/real/src && apt-get source -qq redis 2>&1 | grep -v "^W: Download is performed unsandboxed" || true)
    fi
    src=$(ls -d bench/real/src/redis-*/ 2>/dev/null | head -1) || src= # pipefail: ls fails with no match
    [[ -n $src ]] || { echo "no redis source: 'apt-get source redis' failed" >&2; return 1; }
    mkdir -p build/real/redis && rm -rf build/real/redis/fpe && cp -a "$src" build/real/redis/fpe
    make -C build/real/redis/fpe -j"$(nproc)" MALLOC=libc BUILD_TLS=no USE_SYSTEMD=no \
        CFLAGS=-fpatchable-function-entry=5 >build/real/redis/build.log 2>&1 ||
        { echo "the redis build failed: build/real/redis/build.log" >&2; return 1; }
}
