#!/usr/bin/env python3
"""Run programs in interleaved rounds (one run of each per round) and print,
per program, the median wall time and the median CPU time (user + system of
the child, from wait4). On a shared, loaded machine the rounds spread the
load over every program alike, and CPU time does not count waits for a CPU.

    interleave.py ROUNDS OUT.json CMD [CMD...]   (each CMD one shell word list)
"""
import json
import os
import shlex
import statistics
import subprocess
import sys
import time


def run_once(argv):
    t0 = time.perf_counter()
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    if status:
        sys.exit("failed: %s" % " ".join(argv))
    return wall, ru.ru_utime + ru.ru_stime


def main():
    rounds, out, cmds = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
    argvs = [shlex.split(c) for c in cmds]
    samples = {c: [] for c in cmds}
    for a in argvs:  # warm-up: page cache, CPU frequency
        run_once(a)
    for _ in range(rounds):
        for c, a in zip(cmds, argvs):
            samples[c].append(run_once(a))
    res = []
    for c in cmds:
        wall = statistics.median(s[0] for s in samples[c])
        cpu = statistics.median(s[1] for s in samples[c])
        res.append({"command": c, "wall_median": wall, "cpu_median": cpu, "rounds": rounds})
        print("%-58s wall %7.2f ms  cpu %7.2f ms" % (c, wall * 1e3, cpu * 1e3))
    json.dump(res, open(out, "w"), indent=1)


if __name__ == "__main__":
    main()
