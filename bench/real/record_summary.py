#!/usr/bin/env python3
"""bench/real/record_summary.py OUT - the tables of record_vs_uftrace.sh from
OUT/runs.tsv: per program, the median wall and CPU time of each configuration,
then the medians of the per-round ratios against the targets of issue 18:
  - added time (configuration - plain, same round), uftrace / edgeprobe:
    at least 3 (edgeprobe adds at most a third of uftrace's);
  - edgeprobe record -t 10us / plain: at most 1.3."""
import csv
import statistics
import sys

out = sys.argv[1]
rows = list(csv.DictReader(open(f"{out}/runs.tsv"), delimiter="\t"))
NAMES = {
    "plain": "plain (the -fpatchable-function-entry=5 binary alone)",
    "ep": "`edgeprobe record -f '*'`",
    "uft": "`uftrace record --no-libcall --max-stack=65535 -P .`",
    "ept": "`edgeprobe record -f '*' -t 10us`",
    "uftt": "`uftrace record ... -t 10us`",
    "epenv": "recorder preloaded by environment (ep without the summary)",
    "epvex": "epenv, recorder built with -mavx2 (no SSE/AVX transitions)",
    "eptvex": "epvex with -t 10us",
}


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def fmt(x, spec=".2f", suffix=""):
    return "-" if x is None else format(x, spec) + suffix


def ratio(a, b):
    return a / b if a is not None and b not in (None, 0) and b > 0 else None


bad = [r for r in rows if r["check"] != "ok"]
programs = list(dict.fromkeys(r["program"] for r in rows))
print("# edgeprobe record against uftrace record on real programs\n")
for line in open(f"{out}/machine.txt"):
    print("    " + line.rstrip())
try:
    loads = [float(l.split()[2]) for l in open(f"{out}/loadavg.txt") if not l.startswith("end")]
    print(f"\n1-minute load average at the start of each round: {min(loads):.2f}-{max(loads):.2f} (median {statistics.median(loads):.2f})")
except (OSError, ValueError, IndexError):
    pass
print(f"\nRuns whose check failed: {len(bad)}" + "".join(f"\n- {r['program']} {r['config']} round {r['round']}: {r['check']}" for r in bad))
verdicts = []
for p in programs:
    pr = [r for r in rows if r["program"] == p]
    rounds = sorted({int(r["round"]) for r in pr})
    cfgs = list(dict.fromkeys(r["config"] for r in pr))
    get = {(int(r["round"]), r["config"]): r for r in pr}

    def val(rd, c, key):
        r = get.get((rd, c))
        if not r or r["check"] != "ok":
            return None
        try:
            return float(r[key])
        except ValueError:
            return None

    unit = "client wall s (redis-benchmark)" if p == "redis" else "wall s"
    cpu_unit = "server CPU s" if p == "redis" else "CPU s (user+sys)"
    print(f"\n## {p}\n")
    print(f"| configuration | {unit} | {cpu_unit} | events | trace MB | lost |")
    print("|---|---:|---:|---:|---:|---:|")
    for c in cfgs:
        ev = med([val(rd, c, "events") for rd in rounds])
        by = med([val(rd, c, "bytes") for rd in rounds])
        lost = med([val(rd, c, "lost") for rd in rounds])
        print(f"| {NAMES.get(c, c)} | {fmt(med([val(rd, c, 'wall_s') for rd in rounds]))} | "
              f"{fmt(med([val(rd, c, 'cpu_s') for rd in rounds]))} | {fmt(ev, ',.0f')} | "
              f"{fmt(by / 1e6 if by is not None else None, '.1f')} | {fmt(lost, '.0f')} |")
    print("\nMedians of per-round ratios:\n")
    print("| ratio | wall | CPU | target | verdict (wall; CPU) |")
    print("|---|---:|---:|---|---|")

    def per_round(f, key):
        return med([f(rd, key) for rd in rounds])

    def added_ratio(num, den):
        def f(rd, key):
            pl = val(rd, "plain", key)
            a, b = val(rd, num, key), val(rd, den, key)
            if None in (pl, a, b):
                return None
            return ratio(a - pl, b - pl)
        return f

    def over_plain(c):
        def f(rd, key):
            return ratio(val(rd, c, key), val(rd, "plain", key))
        return f

    lines = []
    if "uft" in cfgs and "ep" in cfgs:
        lines.append(("uftrace's added time / edgeprobe record's", added_ratio("uft", "ep"), ">= 3", lambda x: x >= 3))
    if "uft" in cfgs and "epenv" in cfgs:
        lines.append(("uftrace's added time / the recorder's alone (epenv)", added_ratio("uft", "epenv"), "(>= 3)", lambda x: x >= 3))
    if "uft" in cfgs and "epvex" in cfgs:
        lines.append(("uftrace's added time / epvex's", added_ratio("uft", "epvex"), "(>= 3)", lambda x: x >= 3))
    if "uftt" in cfgs and "ept" in cfgs:
        lines.append(("with -t 10us: uftrace's added / edgeprobe's", added_ratio("uftt", "ept"), ">= 3", lambda x: x >= 3))
    for c, target in (("ep", None), ("uft", None), ("epenv", None), ("epvex", None), ("ept", 1.3), ("uftt", None), ("eptvex", None)):
        if c in cfgs:
            lines.append((f"{c} / plain", over_plain(c), f"<= {target}" if target else "",
                          (lambda x, t=target: x <= t) if target else None))
    for name, f, target, ok in lines:
        w, cp = per_round(f, "wall_s"), per_round(f, "cpu_s")
        verdict = ""
        if ok:
            verdict = "; ".join("-" if x is None else ("met" if ok(x) else "missed") for x in (w, cp))
            if target.startswith(">") or target.startswith("<"):
                verdicts.append((p, name, w, cp, verdict))
        print(f"| {name} | {fmt(w)} | {fmt(cp)} | {target} | {verdict} |")
    ev = med([val(rd, "ep", "events") for rd in rounds])
    if ev:
        add = per_round(lambda rd, key: (val(rd, "ep", key) - val(rd, "plain", key)) * 1e9 / ev
                        if None not in (val(rd, "ep", key), val(rd, "plain", key)) else None, "cpu_s")
        adde = per_round(lambda rd, key: (val(rd, "epenv", key) - val(rd, "plain", key)) * 1e9 / ev
                         if None not in (val(rd, "epenv", key), val(rd, "plain", key)) else None, "cpu_s")
        addv = per_round(lambda rd, key: (val(rd, "epvex", key) - val(rd, "plain", key)) * 1e9 / ev
                         if None not in (val(rd, "epvex", key), val(rd, "plain", key)) else None, "cpu_s")
        uev = med([val(rd, "uft", "events") for rd in rounds])
        addu = per_round(lambda rd, key: (val(rd, "uft", key) - val(rd, "plain", key)) * 1e9 / uev
                         if uev and None not in (val(rd, "uft", key), val(rd, "plain", key)) else None, "cpu_s")
        print(f"\nAdded CPU per recorded event: edgeprobe record {fmt(add, '.0f')} ns, the recorder alone (epenv) "
              f"{fmt(adde, '.0f')} ns, epvex {fmt(addv, '.0f')} ns, uftrace {fmt(addu, '.0f')} ns (its records: .dat bytes / 16).")
print("\n## Targets\n")
print("| program | ratio | wall | CPU | verdict (wall; CPU) |")
print("|---|---|---:|---:|---|")
for p, name, w, cp, v in verdicts:
    print(f"| {p} | {name} | {fmt(w)} | {fmt(cp)} | {v} |")
