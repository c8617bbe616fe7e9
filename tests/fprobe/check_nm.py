#!/usr/bin/env python3
"""check_nm.py BINARY LISTING - every function `nm` sees in BINARY that the
compiler gave a patchable entry is a function probe in LISTING (the output of
`t_func list`), with the same name, and nothing else is listed for BINARY.

Functions without an entry: the C runtime's start-up code and libc's static
stubs (not built with the flag), and edgeprobe's own functions and
trampolines (never probes)."""
import os
import subprocess
import sys

CRT = {"_start", "_init", "_fini", "deregister_tm_clones", "register_tm_clones",
       "__do_global_dtors_aux", "frame_dummy", "_dl_relocate_static_pie",
       # glibc's libc_nonshared.a, linked into the program statically
       "atexit", "at_quick_exit", "pthread_atfork", "__pthread_atfork"}


def main(binary, listing):
    out = subprocess.run(["nm", "--defined-only", binary], check=True, capture_output=True, text=True).stdout
    want = set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) != 3 or parts[1] not in "Tt":
            continue
        name = parts[2]
        if name in CRT or name.startswith("edgeprobe_") or name.startswith("__libc_csu"):
            continue
        want.add(name)
    real = os.path.realpath(binary)
    got = set()
    for line in open(listing):
        name, path, patchable = line.split()
        if os.path.realpath(path) == real:
            got.add(name)
            if patchable != "1":
                print("not patchable:", name)
                return 1
    missing, extra = sorted(want - got), sorted(got - want)
    print(f"{len(want)} functions in nm, {len(got)} function probes")
    if missing:
        print("in nm, not probes:", " ".join(missing))
    if extra:
        print("probes, not in nm:", " ".join(extra))
    return 1 if missing or extra or not want else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
