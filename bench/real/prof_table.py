"""bench/real/prof_table.py - the table of an `edgeprobe prof` report, for
the benchmark scripts that compare reports (prof_accuracy.sh,
prof_charge.sh): table(path) -> {function: (calls, counted)}, columns found
by their headings; bounds(path) -> {function: err%} (the estimate's error
bound, two standard errors in percent of its calls; None where the report
has no number)."""


def table(path, column=None):
    rows, cols = {}, None
    for line in open(path):
        f = line.split()
        if f and f[0] == "function" and "calls" in f:
            cols = f
            continue
        if cols and len(f) >= len(cols) and f[0] != "edgeprobe-prof-summary:":
            try:
                if column:
                    rows[f[0]] = f[cols.index(column)]
                else:
                    rows[f[0]] = (float(f[cols.index("calls")]), f[cols.index("counted")])
            except ValueError:
                pass
        elif cols and not f:
            cols = None
    return rows


def bounds(path):
    def number(text):
        try:
            return float(text)
        except ValueError:
            return None
    return {name: number(err) for name, err in table(path, "err%").items()}
