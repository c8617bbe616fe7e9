#!/usr/bin/env python3
"""Summarise bench/markers/run.sh results: summary.py RESULTS.jsonl [startup.json]"""
import json
import sys

rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
get = lambda bench, name: next((r for r in rows if r["bench"] == bench and r["name"] == name), None)

print("\n## disabled, 4,096 distinct sites (ticks per call; ratios = medians of paired ratios to the same")
print("## compiler's probe-free variant, and to the bare NOP5 of the same shape)")
for r in reversed([r for r in rows if r["bench"] == "markers_many"]):
    floor = "%.3fx" % r["ratio_to_nop5"] if r.get("ratio_to_nop5") else "-"
    print("| %-20s | %7.2f | %.3fx | %s | %.1f bytes/fn |" % (r["name"], r["median"], r["ratio_paired"], floor,
                                                            r["bytes_per_fn"]))

for phase in ("off", "on", "on_lttng"):
    names = [r for r in rows if r["bench"] == "markers_invoke_" + phase]
    if not names:
        continue
    print("\n## invoke, phase %s (ticks per iteration, loop included)" % phase)
    for r in names:
        print("| %-15s | %7.3f |" % (r["name"], r["median"]))
on = lambda n: get("markers_invoke_on", n)["median"]
if get("markers_invoke_on", "ep_probe"):
    print("\nenabled PROBE / direct call with the same args: %.2fx" % (on("ep_probe") / on("direct_args")))
    print("enabled HANDLER / direct call: %.2fx" % (on("ep_handler") / on("direct_handler")))
    if get("markers_invoke_on", "ep_trace"):
        print("enabled TRACE (argument form) / direct call of the sink: %.2fx; lazy form: %.2fx" %
              (on("ep_trace") / on("direct_format"), on("ep_trace_lazy") / on("direct_format")))
    if get("markers_invoke_on", "ep_handler_inline"):
        print("enabled HANDLER, EDGEPROBE_HANDLER_INLINE=1 / direct call: %.2fx" %
              (on("ep_handler_inline") / on("direct_handler")))
lt = get("markers_invoke_on_lttng", "lttng_ust")
if lt:
    base = get("markers_invoke_on_lttng", "none")["median"]
    print("LTTng-UST enabled: %.2f ticks per event (%.2f net of the loop); disabled %.3f (loop %.3f)" %
          (lt["median"], lt["median"] - base, get("markers_invoke_off", "lttng_ust")["median"],
           get("markers_invoke_off", "none")["median"]))
for r in rows:
    if r["bench"] == "usdt":
        print("usdt %s: median %.1f ticks %s" % (r["name"], r["median"],
              {k: v for k, v in r.items() if k not in ("bench", "name", "median", "p90", "p99", "min", "mean", "n")}))
if len(sys.argv) > 2:
    try:
        res = json.load(open(sys.argv[2]))["results"]
        med = {r["command"].split("/")[-1]: r["median"] for r in res}
        none, ep = med.get("startup_none"), med.get("startup_ep")
        print("\nstart-up: none %.2f ms, 100,000 probes %.2f ms: %.0f ns per probe" %
              (none * 1e3, ep * 1e3, (ep - none) / 100000 * 1e9))
    except (OSError, KeyError, ValueError) as e:
        print("start-up: no data (%s)" % e)
