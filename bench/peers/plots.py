#!/usr/bin/env python3
"""SVG plots of the peer comparison, written by hand (no matplotlib).

    plots.py RESULTS_DIR PLOT_DIR

  peers-toggle-hist.svg   toggle-latency histograms per mechanism, enable and
                          disable (paper Fig. 11 style), log-scale ticks
  peers-throughput.svg    executor throughput vs toggle rate (paper Fig. 12)
  peers-disabled.svg      disabled cost relative to no probes (workload 1)
"""
import json
import math
import os
import sys

RES = sys.argv[1] if len(sys.argv) > 1 else "bench/out/peers/results"
OUT = sys.argv[2] if len(sys.argv) > 2 else "bench/plots"
COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"]


class Svg:
    def __init__(self, width, height):
        self.w, self.h, self.items = width, height, []

    def add(self, s):
        self.items.append(s)

    def line(self, x1, y1, x2, y2, color="#000", width=1, dash=None):
        d = ' stroke-dasharray="%s"' % dash if dash else ""
        self.add('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="%s"%s/>'
                 % (x1, y1, x2, y2, color, width, d))

    def rect(self, x, y, w, h, fill, opacity=1.0, stroke="none"):
        self.add('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s" fill-opacity="%.2f" stroke="%s"/>'
                 % (x, y, max(w, 0), max(h, 0), fill, opacity, stroke))

    def text(self, x, y, s, size=11, anchor="start", color="#000", weight="normal"):
        s = s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        self.add('<text x="%.1f" y="%.1f" font-size="%d" text-anchor="%s" fill="%s" font-weight="%s">%s</text>'
                 % (x, y, size, anchor, color, weight, s))

    def polyline(self, pts, color, width=1.5, dash=None):
        d = ' stroke-dasharray="%s"' % dash if dash else ""
        self.add('<polyline fill="none" stroke="%s" stroke-width="%s"%s points="%s"/>'
                 % (color, width, d, " ".join("%.1f,%.1f" % p for p in pts)))

    def circle(self, x, y, r, color):
        self.add('<circle cx="%.1f" cy="%.1f" r="%.1f" fill="%s"/>' % (x, y, r, color))

    def save(self, path):
        with open(path, "w") as f:
            f.write('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
                    'viewBox="0 0 %d %d" font-family="sans-serif">\n' % (self.w, self.h, self.w, self.h))
            f.write('<rect width="100%" height="100%" fill="white"/>\n')
            f.write("\n".join(self.items))
            f.write("\n</svg>\n")


def load_jsonl(name):
    rows = []
    path = os.path.join(RES, name)
    if os.path.exists(path):
        for line in open(path):
            line = line.strip()
            if line.startswith("{"):
                rows.append(json.loads(line))
    return rows


def read_raw(name):
    path = os.path.join(RES, "raw", "toggle-%s.txt" % name)
    if not os.path.exists(path):
        return None
    return [float(x) for x in open(path) if x.strip()]


def fmt_ticks(v):
    e = int(round(math.log10(v)))
    return "1e%d" % e if e >= 4 else "%d" % v


def toggle_hist():
    mechs = [("ep_handle", "edgeprobe handle (NOP5)"), ("ep_handle_nop8", "edgeprobe handle (NOP8)"),
             ("ep_name", "edgeprobe by name"), ("ep_strict", "edgeprobe strict W^X"),
             ("xray", "XRay patch/unpatch_function"), ("naive_mprotect", "blog: mprotect + write"),
             ("mremap_wx", "mremap W^X"), ("flag_store", "flag store (reference)"),
             ("usdt_uprobe", "USDT uprobe via tracefs")]
    data = []
    for key, label in mechs:
        on, off = read_raw(key + "-on"), read_raw(key + "-off")
        if on and off:
            data.append((label, on, off))
    if not data:
        return
    lo_e, hi_e = 1, 9  # 10 .. 1e9 ticks
    per_dec = 16
    nb = (hi_e - lo_e) * per_dec
    left, right, top, ph, gap = 190, 20, 40, 58, 10
    width = 900
    pw = width - left - right
    height = top + len(data) * (ph + gap) + 50
    svg = Svg(width, height)
    svg.text(width / 2, 20, "Toggle latency per call (TSC ticks, log scale): enable and disable", 14, "middle",
             weight="bold")
    svg.rect(width - 220, 28, 10, 10, COLORS[0], 0.6)
    svg.text(width - 205, 37, "enable", 11)
    svg.rect(width - 140, 28, 10, 10, COLORS[1], 0.6)
    svg.text(width - 125, 37, "disable", 11)

    def xof(v):
        v = min(max(v, 10 ** lo_e), 10 ** hi_e * 0.999)
        return left + (math.log10(v) - lo_e) / (hi_e - lo_e) * pw

    for i, (label, on, off) in enumerate(data):
        y0 = top + 10 + i * (ph + gap)
        svg.rect(left, y0, pw, ph, "#f7f7f7")
        hists = []
        for vals in (on, off):
            h = [0] * nb
            for v in vals:
                b = int((math.log10(max(v, 1)) - lo_e) * per_dec)
                h[min(max(b, 0), nb - 1)] += 1
            hists.append([c / len(vals) for c in h])
        top_frac = max(max(h) for h in hists) or 1
        for k, h in enumerate(hists):
            for b, frac in enumerate(h):
                if frac <= 0:
                    continue
                x1 = left + b / nb * pw
                bh = frac / top_frac * (ph - 4)
                svg.rect(x1, y0 + ph - bh, pw / nb, bh, COLORS[k], 0.55)
        med_on = sorted(on)[len(on) // 2]
        med_off = sorted(off)[len(off) // 2]
        svg.text(left - 8, y0 + ph / 2 - 2, label, 11, "end")
        svg.text(left - 8, y0 + ph / 2 + 12, "median %s / %s" % (fmt_num(med_on), fmt_num(med_off)), 9, "end",
                 "#555")
    ybot = top + 10 + len(data) * (ph + gap) - gap
    for e in range(lo_e, hi_e + 1):
        x = left + (e - lo_e) / (hi_e - lo_e) * pw
        svg.line(x, top + 10, x, ybot, "#ccc", 0.6, "2,2")
        svg.text(x, ybot + 14, "1e%d" % e, 10, "middle")
    svg.text(left + pw / 2, ybot + 32, "ticks per call (bars: fraction of calls per bin, 16 bins per decade, "
             "each panel scaled to its tallest bar)", 11, "middle")
    svg.save(os.path.join(OUT, "peers-toggle-hist.svg"))


def fmt_num(v):
    if v >= 1e6:
        return "%.1fM" % (v / 1e6)
    if v >= 1e4:
        return "%.0fk" % (v / 1e3)
    return "%.0f" % v


def throughput():
    rows = [r for r in load_jsonl("scale.jsonl") if r.get("bench") == "scale"]
    if not rows:
        return
    mechs = []
    for r in rows:
        if r["mechanism"] not in mechs:
            mechs.append(r["mechanism"])
    left, right, top, bottom = 70, 170, 40, 60
    width, height = 820, 440
    pw, ph = width - left - right, height - top - bottom
    ymin, ymax = 0.0, 1.3
    svg = Svg(width, height)
    svg.text(left + pw / 2, 22, "Executor throughput vs toggle rate (relative to no toggling)", 14, "middle",
             weight="bold")

    def xof(rate):
        return left + math.log10(rate) / 6 * pw

    def yof(v):
        v = min(max(v, ymin), ymax)
        return top + ph - (v - ymin) / (ymax - ymin) * ph

    for k in range(0, 14):
        v = k / 10
        svg.line(left, yof(v), left + pw, yof(v), "#eee", 0.8)
        if k % 2 == 0:
            svg.text(left - 6, yof(v) + 4, "%.1f" % v, 10, "end")
    svg.line(left, yof(0.95), left + pw, yof(0.95), "#888", 1, "6,3")
    svg.text(left + pw + 4, yof(0.95) + 4, "0.95 target", 10)
    for e in range(0, 7):
        x = xof(10 ** e)
        svg.line(x, top, x, top + ph, "#eee", 0.8)
        svg.text(x, top + ph + 16, ["1", "10", "100", "1k", "10k", "100k", "1M"][e], 10, "middle")
    svg.line(left, top + ph, left + pw, top + ph, "#000")
    svg.line(left, top, left, top + ph, "#000")
    svg.text(left + pw / 2, height - 18, "requested toggles per second (log scale); hollow marker: the mechanism "
             "kept below 90% of the rate", 11, "middle")
    svg.add('<text x="18" y="%.1f" font-size="11" transform="rotate(-90 18 %.1f)" text-anchor="middle">'
            'throughput / untoggled (median, IQR bars)</text>' % (top + ph / 2, top + ph / 2))
    for i, m in enumerate(mechs):
        c = COLORS[i % len(COLORS)]
        pts = []
        for r in sorted((r for r in rows if r["mechanism"] == m), key=lambda r: r["rate"]):
            x, y = xof(r["rate"]) + (i - len(mechs) / 2) * 3, yof(r["relative"])
            pts.append((x, y))
            svg.line(x, yof(r["relative_p25"]), x, yof(r["relative_p75"]), c, 1.2)
            if r.get("effective_rate", r["achieved_rate"]) < 0.9 * r["rate"]:
                svg.add('<circle cx="%.1f" cy="%.1f" r="3.5" fill="white" stroke="%s" stroke-width="1.5"/>'
                        % (x, y, c))
            else:
                svg.circle(x, y, 3.5, c)
        svg.polyline(pts, c, 1.6)
        svg.line(left + pw + 10, top + 14 + i * 18, left + pw + 30, top + 14 + i * 18, c, 2)
        svg.text(left + pw + 36, top + 18 + i * 18, m, 11)
    svg.save(os.path.join(OUT, "peers-throughput.svg"))


def disabled():
    rows = [r for r in load_jsonl("many.jsonl") if r.get("bench") == "many"]
    if not rows:
        return
    names = []
    for r in rows:
        if r["name"] not in names:
            names.append(r["name"])
    left, right, top = 190, 40, 50
    bh, gap = 9, 8
    width = 760
    height = top + len(names) * (2 * bh + gap) + 60
    pw = width - left - right
    vals = [r["ratio"] for r in rows]
    lo = min(0.98, math.floor((min(vals) - 0.01) * 20) / 20)
    hi = max(1.1, max(vals) + 0.03)
    svg = Svg(width, height)
    svg.text(width / 2, 20, "Disabled cost per call relative to no probes (same compiler), median ratio", 14,
             "middle", weight="bold")
    svg.rect(width - 260, 28, 10, 10, COLORS[0])
    svg.text(width - 245, 37, "many-site (random)", 11)
    svg.rect(width - 130, 28, 10, 10, COLORS[2])
    svg.text(width - 115, 37, "tight loop", 11)

    def xof(v):
        return left + (v - lo) / (hi - lo) * pw

    ybot = top + len(names) * (2 * bh + gap)
    k = math.ceil(lo * 20) / 20
    while k <= hi:
        svg.line(xof(k), top - 4, xof(k), ybot, "#ddd" if abs(k - 1) > 1e-9 else "#000", 0.8)
        svg.text(xof(k), ybot + 14, "%.2f" % k, 10, "middle")
        k += 0.05
    svg.line(xof(1.01), top - 4, xof(1.01), ybot, "#888", 1, "5,3")
    svg.text(xof(1.01) + 3, top + 2, "+1%", 9, color="#555")
    for i, n in enumerate(names):
        y = top + i * (2 * bh + gap)
        svg.text(left - 8, y + bh + 4, n, 11, "end")
        for j, wl in enumerate(("random", "tight")):
            r = next((r for r in rows if r["name"] == n and r["workload"] == wl), None)
            if not r:
                continue
            x0, x1 = xof(min(1.0, r["ratio"])), xof(max(1.0, r["ratio"]))
            svg.rect(x0, y + j * bh, x1 - x0, bh - 1, COLORS[0] if j == 0 else COLORS[2])
            svg.text(xof(max(1.0, r["ratio"])) + 3, y + j * bh + bh - 1, "%.3f" % r["ratio"], 8, color="#333")
    svg.text(left + pw / 2, height - 16, "median ticks per call / median of the probe-free TU", 11, "middle")
    svg.save(os.path.join(OUT, "peers-disabled.svg"))


def main():
    os.makedirs(OUT, exist_ok=True)
    toggle_hist()
    throughput()
    disabled()
    print("plots: wrote %s/peers-*.svg" % OUT)


if __name__ == "__main__":
    main()
