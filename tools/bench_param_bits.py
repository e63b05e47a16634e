#!/usr/bin/env python3
"""The bit check of a speed change on one benchmark model: trains a benchmarks/run.py model for a
few steps from its fixed initialisation on its synthetic batches and prints a hash of every
parameter's value, for each engine tree given. Equal lines: equal bits.

    python tools/bench_param_bits.py /work/base /work/wt-x --bench lstm_text --precision bf16 --threads 2

Each tree runs in its own process with its in-place engine build (py_paddle/_swig_paddle*.so).
"""
import argparse
import hashlib
import os
import subprocess
import sys

CHILD = r"""
import hashlib, os, sys
sys.path.insert(0, os.path.join(os.getcwd(), "benchmarks"))
import numpy as np
import run
from py_paddle import swig_paddle as api
bench, precision, steps = sys.argv[1], sys.argv[2], int(sys.argv[3])
trainer, batches = run.paddle_trainer(bench, False, precision)
assert trainer.getGradientMachine().getPrecision() == precision, "this CPU cannot train in " + precision
for i in range(steps):
    trainer.trainOneDataBatch(run.BENCHES[bench]["batch"], batches[i % len(batches)])
digest = hashlib.sha256()
for p in trainer.getGradientMachine().getParameters():
    digest.update(p.getName().encode())
    digest.update(np.ascontiguousarray(p.getBuf(api.PARAMETER_VALUE).copyToNumpyArray()).tobytes())
print(digest.hexdigest()[:16])
"""


def tree_hash(root, a):
    env = dict(os.environ, PYTHONPATH=root, PADDLE_THREADS=str(a.threads), OPENBLAS_NUM_THREADS=str(a.threads))
    p = subprocess.run([sys.executable, "-c", CHILD, a.bench, a.precision, str(a.steps)], cwd=root, env=env,
                       capture_output=True, text=True, timeout=900)
    if p.returncode != 0:
        return "failed: " + (p.stderr.strip().splitlines() or ["exit %d" % p.returncode])[-1]
    return p.stdout.strip().splitlines()[-1]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("roots", nargs="+", help="engine trees, each built in place")
    ap.add_argument("--bench", default="lstm_text")
    ap.add_argument("--precision", default="bf16")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--steps", type=int, default=5)
    a = ap.parse_args()
    lines = [tree_hash(os.path.abspath(r), a) for r in a.roots]
    for root, line in zip(a.roots, lines):
        print("%-40s %s" % (root, line))
    if len(set(lines)) != 1 or lines[0].startswith("failed"):
        sys.exit(1)


if __name__ == "__main__":
    main()
