#!/usr/bin/env python3
"""Print the file offsets uprobe_events needs for two USDT probes of a binary:

    sdt_offsets.py BINARY PROVIDER NAME_NOSEM NAME_SEM
    -> OFF_NOSEM OFF_SEM REF_SEM     (hex)

Reads the stapsdt notes and the program headers with readelf (binutils) and
maps each virtual address to its file offset through the LOAD segment that
holds it."""
import re
import subprocess
import sys


def main():
    binary, provider, n1, n2 = sys.argv[1:5]
    notes = subprocess.run(["readelf", "-nW", binary], capture_output=True, text=True, check=True).stdout
    segs = []
    for line in subprocess.run(["readelf", "-lW", binary], capture_output=True, text=True, check=True).stdout.splitlines():
        f = line.split()
        if f and f[0] == "LOAD":
            segs.append((int(f[1], 16), int(f[2], 16), int(f[4], 16)))  # offset, vaddr, filesz

    def off(vaddr):
        for o, v, sz in segs:
            if v <= vaddr < v + sz:
                return vaddr - v + o
        raise SystemExit("address 0x%x is in no LOAD segment" % vaddr)

    probes = {}
    cur = None
    for line in notes.splitlines():
        m = re.search(r"Provider: (\S+)", line)
        if m:
            cur = [m.group(1), None]
            continue
        m = re.search(r"Name: (\S+)", line)
        if m and cur:
            cur[1] = m.group(1)
            continue
        m = re.search(r"Location: (0x[0-9a-f]+), Base: (0x[0-9a-f]+), Semaphore: (0x[0-9a-f]+)", line)
        if m and cur:
            probes[(cur[0], cur[1])] = (int(m.group(1), 16), int(m.group(3), 16))
    a, b = probes[(provider, n1)], probes[(provider, n2)]
    print("0x%x 0x%x 0x%x" % (off(a[0]), off(b[0]), off(b[1])))


if __name__ == "__main__":
    main()
