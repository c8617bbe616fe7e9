"""bench/real/prof_table.py - the table of an `edgeprobe prof` report, for
the benchmark scripts that compare reports (prof_accuracy.sh,
prof_charge.sh): table(path) -> {function: (calls, counted)}, columns found
by their headings."""


def table(path):
    rows, cols = {}, None
    for line in open(path):
        f = line.split()
        if f and f[0] == "function" and "calls" in f:
            cols = f
            continue
        if cols and len(f) >= len(cols) and f[0] != "edgeprobe-prof-summary:":
            try:
                rows[f[0]] = (float(f[cols.index("calls")]), f[cols.index("counted")])
            except ValueError:
                pass
        elif cols and not f:
            cols = None
    return rows
