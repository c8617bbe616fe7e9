#!/usr/bin/env python3
"""tests/record/check_trace.py FILE [NAME=COUNT...] - checks a trace file
with a reader of its own (not tools/trace_file.c): within each thread,
timestamps never go backwards and every function exit closes the entry on
top of its stack; per thread, no function is left open but those given
with -open; each NAME=COUNT is the exact number of entries of a function
(or hits of a marker). Prints what it counted; exit 1 on a violation."""
import struct
import sys
from collections import Counter, defaultdict

ENTRY, EXIT = 5, 6


def blocks(data):
    assert data[:8] == b"EPTRACE\0", "no EPTRACE header"
    at = 48
    while at < len(data):
        kind, tid, length = struct.unpack_from("<IIQ", data, at)
        yield kind, tid, data[at + 16 : at + 16 + length]
        at += 16 + length


def main():
    data = open(sys.argv[1], "rb").read()
    names, per_thread = {}, defaultdict(list)
    for kind, tid, body in blocks(data):
        if kind == 2:
            pid, _, _, a, b, c, d = struct.unpack_from("<IIiIIII", body)
            names[pid] = body[28 : 28 + a].decode()
        elif kind == 1:
            w = 0
            while w < len(body) // 8:
                tsc, head = struct.unpack_from("<QQ", body, 8 * w)
                n = (head >> 40) & 0xFF
                per_thread[tid].append((tsc, head & 0xFFFFFFFF, (head >> 32) & 0xFF))
                w += 2 + n
    counts, bad = Counter(), 0
    for tid, events in per_thread.items():
        stack, last = [], 0
        for tsc, pid, kind in events:
            if tsc < last and kind in (ENTRY, EXIT):
                print("thread %d: time goes backwards at %s" % (tid, names.get(pid)))
                bad += 1
            if kind in (ENTRY, EXIT):
                last = tsc
            if kind == ENTRY:
                stack.append(pid)
                counts[names.get(pid)] += 1
            elif kind == EXIT:
                if not stack or stack[-1] != pid:
                    print("thread %d: exit of %s does not close the entry on top (%s)"
                          % (tid, names.get(pid), stack[-1:] and names.get(stack[-1])))
                    bad += 1
                else:
                    stack.pop()
            else:
                counts[names.get(pid)] += 1
        if stack:
            print("thread %d: left open: %s" % (tid, [names.get(p) for p in stack]))
            bad += 1
    print("counted:", dict(counts))
    for want in sys.argv[2:]:
        name, n = want.split("=")
        if counts[name] != int(n):
            print("%s: %d, expected %s" % (name, counts[name], n))
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
