"""bench/control_sites/gen.py TAG KIND N - one translation unit of N small
functions, each holding one probe of KIND (branch, trace, none), for the
disabled-cost check of hit counting (bench/control_sites/main.c)."""
import sys
tag, kind, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
print('#include "edgeprobe.h"')
for i in range(n):
    if kind == "branch":
        body = "if (EDGEPROBE_BRANCH(%s_%d)) x = x * 3 + 1;" % (tag, i)
    elif kind == "trace":
        body = 'EDGEPROBE_TRACE(%s_%d, "%%d\\n", x);' % (tag, i)
    else:
        body = ""
    print("__attribute__((noinline)) int f_%s_%d(int x) { %s return x * 7 + %d; }" % (tag, i, body, i))
print("int (*const tab_%s[%d])(int) = {%s};" % (tag, n, ",".join("f_%s_%d" % (tag, i) for i in range(n))))
