#!/usr/bin/env python3
"""Hand-written SVG plots for the patch benchmarks (no matplotlib needed).

  bench/plot_patch.py [--out bench/out/patch] [--plots bench/plots]

Reads   <out>/samples/<cond>__<case>__<dir>.txt  (from patch_latency)
        <out>/calibrate.csv                      (from calibrate)
Writes  <plots>/patch_latency_<cond>.svg   log-x histograms, one panel per case,
                                           activation and deactivation overlaid
        <plots>/calibrate_tmax.svg         failures per wait and split (Figure 9)
"""
import argparse
import collections
import csv
import math
import os
import sys

CASE_ORDER = [
    "nonstraddler", "straddler-sync", "async-start", "async-poll", "async-finish1",
    "async-finish2", "batch1000", "callpatch-S0", "callpatch-S1", "callpatch-S2",
    "callpatch-S3", "callpatch-S4", "serialize-sync", "nonstraddler-tmax0",
    "floor-cmpxchg", "callpatch-S0-wxstrict", "serialize-nonstraddler",
]
COLORS = {"act": "#1f77b4", "deact": "#ff7f0e"}


def esc(s):
    return str(s).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def median(xs):
    s = sorted(xs)
    return s[len(s) // 2] if s else 0


def nice_ticks(lo, hi):
    """1-2-5 ticks (1..9 when too few) between 10**lo and 10**hi; at most 6."""
    for mults in ((1, 2, 5), (1, 2, 3, 4, 5, 6, 7, 8, 9)):
        ts = []
        for e in range(int(math.floor(lo)) - 1, int(math.ceil(hi)) + 1):
            for m in mults:
                t = m * 10 ** e
                if lo <= math.log10(t) <= hi:
                    ts.append(t)
        if len(ts) >= 3:
            break
    while len(ts) > 6:
        ts = ts[::2]
    return ts


def fmt_tick(t):
    if t >= 1e6:
        return f"{t / 1e6:g}M"
    if t >= 1e3:
        return f"{t / 1e3:g}k"
    return f"{t:g}"


def load_samples(sdir):
    data = collections.defaultdict(dict)  # cond -> case -> dir -> [ticks]
    if not os.path.isdir(sdir):
        return data
    for name in os.listdir(sdir):
        if not name.endswith(".txt") or name.count("__") != 2:
            continue
        cond, case, d = name[:-4].split("__")
        with open(os.path.join(sdir, name)) as f:
            xs = [int(line) for line in f if line.strip()]
        data[cond].setdefault(case, {})[d] = xs
    return data


def latency_svg(cond, cases, path):
    names = [c for c in CASE_ORDER if c in cases] + sorted(c for c in cases if c not in CASE_ORDER)
    cols, pw, ph = 3, 330, 190
    rows = (len(names) + cols - 1) // cols
    W, H = cols * pw + 20, rows * ph + 70
    nb = 40
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" '
           f'font-family="sans-serif" font-size="11">',
           f'<rect width="{W}" height="{H}" fill="white"/>',
           f'<text x="10" y="20" font-size="15" font-weight="bold">edgeprobe patch latency, '
           f'{esc(cond)} (TSC ticks, log scale per panel; fraction of samples per bin)</text>',
           f'<rect x="10" y="32" width="12" height="8" fill="{COLORS["act"]}"/>'
           f'<text x="26" y="40">activation</text>'
           f'<rect x="110" y="32" width="12" height="8" fill="{COLORS["deact"]}"/>'
           f'<text x="126" y="40">deactivation</text>'
           f'<text x="230" y="40">dashed line: median</text>']
    for i, case in enumerate(names):
        ox, oy = 10 + (i % cols) * pw, 55 + (i // cols) * ph
        px, py, pwid, phei = ox + 35, oy + 22, pw - 50, ph - 60
        out.append(f'<text x="{ox + 5}" y="{oy + 14}" font-weight="bold">{esc(case)}</text>')
        out.append(f'<rect x="{px}" y="{py}" width="{pwid}" height="{phei}" fill="none" stroke="#999"/>')
        allx = sorted(x for xs in cases[case].values() for x in xs)
        if not allx:
            continue
        lo = math.log10(max(allx[0], 1)) - 0.05
        hi = math.log10(max(allx[min(len(allx) - 1, int(len(allx) * 0.999))], 1)) + 0.05
        if hi - lo < 0.6:
            mid = (hi + lo) / 2
            lo, hi = mid - 0.3, mid + 0.3
        hists, meds, over, ymax = {}, {}, {}, 0.0
        for d, xs in cases[case].items():
            h = [0] * nb
            over[d] = 0
            for x in xs:
                v = math.log10(max(x, 1))
                k = int((v - lo) / (hi - lo) * nb)
                if k >= nb:
                    over[d] += 1
                h[min(max(k, 0), nb - 1)] += 1
            n = max(len(xs), 1)
            hists[d] = [c / n for c in h]
            meds[d] = median(xs)
            ymax = max(ymax, max(hists[d]))
        ymax = ymax or 1.0
        for d in ("act", "deact"):
            if d not in hists:
                continue
            pts = []
            for k, fr in enumerate(hists[d]):
                x0 = px + k * pwid / nb
                x1 = px + (k + 1) * pwid / nb
                y = py + phei - fr / ymax * phei
                pts.append(f"{x0:.1f},{y:.1f} {x1:.1f},{y:.1f}")
            out.append(f'<polyline points="{px},{py + phei} {" ".join(pts)} {px + pwid},{py + phei}" '
                       f'fill="{COLORS[d]}" fill-opacity="0.35" stroke="{COLORS[d]}" stroke-width="1"/>')
            m = meds[d]
            mx = px + (math.log10(max(m, 1)) - lo) / (hi - lo) * pwid
            out.append(f'<line x1="{mx:.1f}" y1="{py}" x2="{mx:.1f}" y2="{py + phei}" '
                       f'stroke="{COLORS[d]}" stroke-dasharray="3,2"/>')
        label = "  ".join(f"{d} med {meds[d]}" for d in ("act", "deact") if d in meds)
        tail = sum(over.values())
        if tail:
            label += f"  ({tail} beyond: last bin)"
        out.append(f'<text x="{ox + 5}" y="{oy + ph - 8}" fill="#333">{esc(label)}</text>')
        for t in nice_ticks(lo, hi):
            x = px + (math.log10(t) - lo) / (hi - lo) * pwid
            out.append(f'<line x1="{x:.1f}" y1="{py + phei}" x2="{x:.1f}" y2="{py + phei + 4}" stroke="#666"/>')
            out.append(f'<text x="{x:.1f}" y="{py + phei + 15}" text-anchor="middle">{fmt_tick(t)}</text>')
        out.append(f'<text x="{px - 3}" y="{py + 8}" text-anchor="end">{ymax:.2f}</text>')
        out.append(f'<text x="{px - 3}" y="{py + phei}" text-anchor="end">0</text>')
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def calibrate_svg(csv_path, path):
    cells = collections.defaultdict(lambda: [0, 0])  # (wait, split) -> [fail, runs]
    other = collections.defaultdict(lambda: [0, 0])  # mode -> [fail, runs]
    with open(csv_path) as f:
        for r in csv.DictReader(f):
            fail = r["result"] == "fail"
            if r["mode"] == "tmax":
                c = cells[(int(r["wait"]), int(r["split"]))]
                c[0] += fail
                c[1] += 1
            else:
                c = other[r["mode"]]
                c[0] += fail
                c[1] += 1
    if not cells and not other:
        return False
    waits = sorted({w for w, _ in cells})
    splits = sorted({s for _, s in cells})
    cw, chh = 26, 26
    W = max(80 + cw * len(waits) + 20, 520)
    H = 145 + chh * len(splits) + 30 * (len(other) + 1)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" '
           f'font-family="sans-serif" font-size="11">',
           f'<rect width="{W}" height="{H}" fill="white"/>',
           '<text x="10" y="20" font-size="15" font-weight="bold">Tmax stress test (paper Figure 9): '
           'failed runs per wait and split</text>',
           '<text x="10" y="38">cell: failed/runs; red = at least one crash; wait in TSC ticks '
           '(int3 lock, wait, back bytes, wait, front bytes)</text>']
    ox, oy = 60, 95
    for j, w in enumerate(waits):
        x = ox + j * cw + cw / 2
        out.append(f'<text x="{x + 3}" y="{oy - 4}" font-size="10" '
                   f'transform="rotate(-90 {x + 3} {oy - 4})">{w}</text>')
    for i, s in enumerate(splits):
        y = oy + 10 + i * chh
        out.append(f'<text x="{ox - 6}" y="{y + chh / 2 + 4}" text-anchor="end">S={s}</text>')
        for j, w in enumerate(waits):
            fl, n = cells.get((w, s), (0, 0))
            frac = fl / n if n else 0
            col = "#eeeeee" if not n else ("#d62728" if fl else "#c7e9c0")
            op = 0.35 + 0.65 * frac if fl else 1
            x = ox + j * cw
            out.append(f'<rect x="{x}" y="{y}" width="{cw - 2}" height="{chh - 2}" fill="{col}" '
                       f'fill-opacity="{op:.2f}"/>')
            out.append(f'<text x="{x + (cw - 2) / 2}" y="{y + chh / 2 + 3}" text-anchor="middle" '
                       f'font-size="9">{fl}/{n}</text>')
    y = oy + 20 + len(splits) * chh + 20
    out.append(f'<text x="10" y="{y}" font-weight="bold">other modes (all splits):</text>')
    for k, (m, (fl, n)) in enumerate(sorted(other.items())):
        out.append(f'<text x="20" y="{y + 18 * (k + 1)}">{esc(m)}: {fl}/{n} runs failed</text>')
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")
    return True


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="bench/out/patch")
    ap.add_argument("--plots", default="bench/plots")
    a = ap.parse_args()
    os.makedirs(a.plots, exist_ok=True)
    wrote = []
    for cond, cases in sorted(load_samples(os.path.join(a.out, "samples")).items()):
        p = os.path.join(a.plots, f"patch_latency_{cond}.svg")
        latency_svg(cond, cases, p)
        wrote.append(p)
    cp = os.path.join(a.out, "calibrate.csv")
    if os.path.exists(cp) and calibrate_svg(cp, os.path.join(a.plots, "calibrate_tmax.svg")):
        wrote.append(os.path.join(a.plots, "calibrate_tmax.svg"))
    print("wrote: " + (", ".join(wrote) if wrote else "nothing (run the benchmarks first)"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
