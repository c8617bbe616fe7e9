#!/usr/bin/env python3
"""Write a C file with N functions, each holding one EDGEPROBE_BRANCH probe
named p_<i>, and a table of them (bench/core.c toggles and looks them up)."""
import sys
n = int(sys.argv[1])
out = ['#include "edgeprobe.h"', "volatile int core_hits;"]
for i in range(n):
    out.append(f"__attribute__((noinline)) void pf_{i}(void) {{ if (EDGEPROBE_BRANCH(p_{i})) core_hits++; }}")
out.append(f"void (*const core_funcs[{n}])(void) = {{")
out += [f"pf_{i}," for i in range(n)]
out.append("};")
print("\n".join(out))
