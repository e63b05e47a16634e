#!/usr/bin/env python3
"""Interleaved A/B timing of one benchmark between two engine builds (source trees).

    python benchmarks/ab_trees.py OLD_ROOT NEW_ROOT [--bench lstm_text] [--precision bf16]
                                  [--threads 2] [--rounds 4]

Each root is a tree with its engine built in place (py_paddle/_swig_paddle*.so); each
round runs one `run.py --child` unit of each, old then new, so that a drift in the
machine's load hits both alike. Prints every unit and the median ms/step of each side.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys


def unit(root, a):
    cmd = [sys.executable, os.path.join(root, "benchmarks", "run.py"), "--child", "--framework", "paddle",
           "--bench", a.bench, "--threads", str(a.threads), "--precision", a.precision]
    out = subprocess.run(cmd, cwd=root, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])["ms_per_step"]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("old")
    p.add_argument("new")
    p.add_argument("--bench", default="lstm_text")
    p.add_argument("--precision", default="bf16")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--rounds", type=int, default=4)
    a = p.parse_args()
    times = {"old": [], "new": []}
    for r in range(a.rounds):
        for side in ("old", "new"):
            times[side].append(unit(getattr(a, side), a))
            print("round %d %s %.2f ms/step" % (r, side, times[side][-1]), flush=True)
    old, new = statistics.median(times["old"]), statistics.median(times["new"])
    print("median old %.2f new %.2f ms/step: new/old %.3f" % (old, new, new / old))


if __name__ == "__main__":
    main()
