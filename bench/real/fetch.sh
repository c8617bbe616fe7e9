#!/usr/bin/env bash
# bench/real/fetch.sh - get the Debian source packages of the real programs
# (bzip2, lua5.4, and libzstd for the multi-threaded zstd) into bench/real/src/,
# patched as Debian ships them.
# Adds a deb-src entry next to the existing deb entries when none exists.
set -euo pipefail
cd "$(dirname "$0")"
SRC=src
mkdir -p "$SRC"
have() { compgen -G "$SRC/$1" >/dev/null; }
if have "bzip2-*/bzip2.c" && have "lua5.4-*/src/lvm.c" && have "libzstd-*/programs/zstdcli.c"; then
    echo "fetch: sources already in bench/real/src"
    exit 0
fi
command -v dpkg-source >/dev/null || apt-get install -y dpkg-dev
if ! grep -rqs '^Types:.*deb-src\|^deb-src ' /etc/apt/sources.list /etc/apt/sources.list.d/; then
    if [ -f /etc/apt/sources.list.d/debian.sources ]; then
        sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources \
            > /etc/apt/sources.list.d/edgeprobe-deb-src.sources
    elif [ -f /etc/apt/sources.list ]; then
        sed -n 's/^deb /deb-src /p' /etc/apt/sources.list > /etc/apt/sources.list.d/edgeprobe-deb-src.list
    fi
    apt-get update -qq
fi
cd "$SRC"
apt-get source -qq bzip2 lua5.4 libzstd 2>&1 | grep -v "^W: Download is performed unsandboxed" || true
ls -d bzip2-*/ lua5.4-*/ libzstd-*/
