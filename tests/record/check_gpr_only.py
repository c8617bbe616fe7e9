#!/usr/bin/env python3
"""check_gpr_only.py BINARY - the recorded probe's fast path touches no
vector register (include/edgeprobe.h, section 29.2): starting from
edgeprobe__args_record_fast, every function it can call (followed through
direct calls in `objdump -d`) must name no xmm, ymm, zmm or mask register
and call nothing outside the program. One callee is allowed to: the ring's
first mapping (edgeprobe__ring_new), which the fast path never reaches
because it runs only on a thread that has its ring already."""
import re
import subprocess
import sys

START = "edgeprobe__args_record_fast"
NEVER_REACHED = {"edgeprobe__ring_new"}
VECTOR = re.compile(r"%(?:[xyz]mm\d+|k[0-7])\b")
CALL = re.compile(r"\bcall\s+[0-9a-f]+ <([^>]+)>")


def functions(binary):
    text = subprocess.run(["objdump", "-d", "--no-show-raw-insn", binary], check=True,
                          capture_output=True, text=True).stdout
    funcs, name = {}, None
    for line in text.splitlines():
        m = re.match(r"^[0-9a-f]+ <([^>]+)>:$", line)
        if m:
            name = m.group(1)
            funcs[name] = []
        elif name and line.strip():
            funcs[name].append(line)
    return funcs


def main():
    funcs = functions(sys.argv[1])
    if START not in funcs:
        print(f"{START} is not in {sys.argv[1]}")
        return 1
    seen, todo, bad = set(), [START], 0
    while todo:
        f = todo.pop()
        if f in seen:
            continue
        seen.add(f)
        for line in funcs.get(f, []):
            if VECTOR.search(line):
                print(f"{f}: uses a vector register: {line.strip()}")
                bad += 1
            m = CALL.search(line)
            if not m:
                if re.search(r"\bcall\s+\*", line):
                    print(f"{f}: an indirect call: {line.strip()}")
                    bad += 1
                continue
            callee = m.group(1)
            if callee in NEVER_REACHED:
                continue
            if "@plt" in callee or callee not in funcs:
                print(f"{f}: calls {callee}, outside the code compiled without vector registers")
                bad += 1
            else:
                todo.append(callee)
    print(f"fast path: {len(seen)} functions ({', '.join(sorted(seen))}); {bad} problems")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
