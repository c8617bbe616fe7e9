#!/usr/bin/env python3
"""Check edgeprobe's site table against the disassembly of a non-PIE binary:
every record's site is the start of a `nopl` that objdump decodes as one
5- or 8-byte instruction inside one 64-byte cache line (aarch64: a 4-byte
`nop`). OBJDUMP and READELF name the tools for a cross build."""
import os, re, struct, subprocess, sys

binary = sys.argv[1]
EM_AARCH64 = 183
a64 = struct.unpack_from("<H", open(binary, "rb").read(20), 18)[0] == EM_AARCH64
hdr = subprocess.run([os.environ.get("READELF", "readelf"), "-SW", binary], capture_output=True, text=True, check=True).stdout
m = re.search(r"\]\s+edgeprobe_sites\s+\S+\s+([0-9a-f]+)\s+([0-9a-f]+)\s+([0-9a-f]+)", hdr)
if not m:
    sys.exit("no edgeprobe_sites section")
vaddr, offset, size = (int(x, 16) for x in m.groups())
data = open(binary, "rb").read()[offset:offset + size]
sites = []
for i in range(0, size, 32):  # 32-byte records (include/edgeprobe.h section 3)
    rel_site, _, _, flags = struct.unpack_from("<iiiI", data, i)
    sites.append((vaddr + i + rel_site, 4 if a64 else 8 if flags & 1 else 5))
dis = subprocess.run([os.environ.get("OBJDUMP", "objdump"), "-d", "--no-show-raw-insn", binary], capture_output=True, text=True, check=True).stdout
insns = {}
lines = dis.splitlines()
for k, line in enumerate(lines):
    mm = re.match(r"\s+([0-9a-f]+):\s+(\S+)", line)
    if mm:
        insns[int(mm.group(1), 16)] = mm.group(2)
addrs = sorted(insns)
bad = 0
for site, n in sites:
    op = insns.get(site)
    nxt = next((a for a in addrs if a > site), None)
    ok = op is not None and op.startswith("nop") and nxt == site + n and site // 64 == (site + n - 1) // 64
    if not ok:
        bad += 1
        print(f"bad site {site:#x}: insn {op!r}, next insn at {nxt and hex(nxt)}")
print(f"{len(sites)} sites checked, {bad} bad")
sys.exit(1 if bad or not sites else 0)
