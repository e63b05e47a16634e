#!/usr/bin/env python3
"""Sparse vs dense update of a 1,000,000 x 64 embedding table (ParamAttr(sparse_update=True)).

    python benchmarks/sparse_update.py [--vocab 1000000] [--dim 64] [--batch 512] [--method adagrad]

One training step = forward + backward + update of an embedding -> square-error
model whose batch touches `batch` random rows. Reports the median ms/step of
each mode and the speed-up.
"""
import argparse
import json
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "engine"))
from netbuilder import Net, make_args  # noqa: E402
from py_paddle import swig_paddle as api  # noqa: E402


def trainer(vocab, dim, batch, method, sparse):
    net = Net()
    ids = net.data("ids", vocab)
    net.mixed("emb", dim, [(ids, vocab, "table", dim, {})])
    net.params[-1]["sparse_update"] = sparse
    net.params[-1]["decay_rate"] = 1e-4  # exercises the lazy decay too
    y = net.data("y", dim)
    net.output(net.layer("cost", "square_error", 1, ["emb", y], coeff=1.0))
    opt = {"batch_size": batch, "learning_method": method, "learning_rate": 0.05}
    return api.Trainer.create(json.dumps({"model_config": net.config(), "opt_config": opt}), False, 1, 1)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--vocab", type=int, default=1000000)
    p.add_argument("--dim", type=int, default=64)
    p.add_argument("--batch", type=int, default=512)
    p.add_argument("--method", default="adagrad")
    p.add_argument("--steps", type=int, default=10)
    a = p.parse_args()
    rng = np.random.RandomState(0)
    data = [make_args([rng.randint(0, a.vocab, a.batch).astype(np.int32),
                       rng.randn(a.batch, a.dim).astype(np.float32)]) for _ in range(4)]
    result = {}
    for sparse in (False, True):
        t = trainer(a.vocab, a.dim, a.batch, a.method, sparse)
        t.startTrainPass(0)
        t.trainOneDataBatch(a.batch, data[0])  # allocates optimizer state
        times = []
        for i in range(a.steps):
            s = time.perf_counter()
            t.trainOneDataBatch(a.batch, data[i % len(data)])
            times.append(time.perf_counter() - s)
        result["sparse" if sparse else "dense"] = statistics.median(times) * 1e3
        del t
    print("%d x %d table, batch %d, %s: dense %.2f ms/step, sparse %.3f ms/step, speed-up %.0fx"
          % (a.vocab, a.dim, a.batch, a.method, result["dense"], result["sparse"],
             result["dense"] / result["sparse"]))


if __name__ == "__main__":
    main()
