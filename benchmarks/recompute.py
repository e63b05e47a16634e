#!/usr/bin/env python3
"""Recomputation (settings(recompute=...)): peak memory and time per training step, stored
against recomputed, on deep models; and whether the gradients are the same bits.

    python benchmarks/recompute.py                        # lstm20 and resnet20, 2 threads
    python benchmarks/recompute.py --models lstm20 --threads 1 --rounds 5 --md recompute.md

Models: lstm20, a 20-layer stacked LSTM (simple_lstm, 128 wide, 32 sequences of 50 tokens);
resnet20, configs/resnet_cifar.py (ResNet-20 on 32x32 images, batch 64).

Every unit (model x mode) runs in a fresh process: it builds a Trainer from the parsed config
with `recompute` set ('' = stored, 'auto'), trains `--warmup` batches, then times `--steps`
batches (the median of their ms/step). "peak MB" is the engine's own accounting of its
buffers (swig_paddle.getBufferMemoryStats: every Matrix/IVector from allocation to release)
at its highest over the timed steps, less what the trainer held before its first step
(parameters, gradients, optimizer state); "RSS MB" is the process's high-water mark. Stored
and recomputed units alternate over `--rounds` rounds so drift on a shared machine hits both;
the table gives medians. "grads" compares a hash of the first batch's parameter gradients
(taken before any update) between the two modes: "same" means bit for bit.
"""
import argparse
import hashlib
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

LSTM20 = """
from paddle.trainer_config_helpers import *
settings(batch_size=32, learning_rate=1e-3, learning_method=AdamOptimizer())
h = data_layer(name='x', size=128)
for i in range(20):
    h = simple_lstm(input=h, size=128, name='lstm%d' % i)
out = fc_layer(input=last_seq(input=h), size=10, act=SoftmaxActivation())
outputs(classification_cost(input=out, label=data_layer(name='y', size=10)))
"""

MODELS = {
    "lstm20": {"config": LSTM20, "batch": 32, "seq_len": 50, "dim": 128, "classes": 10},
    "resnet20": {"config_file": os.path.join(ROOT, "configs", "resnet_cifar.py"), "batch": 64, "dim": 3 * 32 * 32,
                 "classes": 10},
}


def parse(name):
    from paddle.trainer.config_parser import parse_config
    m = MODELS[name]
    if "config_file" in m:
        conf = parse_config(m["config_file"], "")
    else:
        with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
            f.write(m["config"])
        conf = parse_config(f.name, "")
        os.unlink(f.name)
    conf.opt_config.batch_size = m["batch"]
    return conf


def batches(name, api, n):
    import numpy as np
    m = MODELS[name]
    rng = np.random.RandomState(0)
    out = []
    for _ in range(n):
        b = m["batch"]
        rows = b * m.get("seq_len", 1)
        a = api.Arguments.createArguments(2)
        a.setSlotValueFromBuffer(0, rng.randn(rows, m["dim"]).astype(np.float32))
        if "seq_len" in m:
            a.setSlotSequenceStartPositionsFromBuffer(0, np.arange(0, rows + 1, m["seq_len"]).astype(np.int32))
        a.setSlotIdsFromBuffer(1, rng.randint(0, m["classes"], b).astype(np.int32))
        out.append(a)
    return out


def child(args):
    os.environ["OPENBLAS_NUM_THREADS"] = os.environ["PADDLE_THREADS"] = str(args.threads)
    from paddle.proto import message_to_json
    from py_paddle import swig_paddle as api

    conf = parse(args.model)
    conf.model_config.recompute = args.mode
    name_order = list(conf.model_config.input_layer_names)
    assert name_order[0] in ("x", "image"), name_order
    trainer = api.Trainer.create(message_to_json(conf), False, 1, 1)
    gm = trainer.getGradientMachine()
    data = batches(args.model, api, 2)
    # the first batch's gradients, before any update: the same bits in both modes
    out = api.Arguments.createArguments(0)
    held, _ = api.getBufferMemoryStats(True)
    gm.forwardBackward(data[0], out, api.PASS_TRAIN)
    digest = hashlib.sha256()
    for p in gm.getParameters():
        if not p.isStatic():
            digest.update(p.getBuf(api.PARAMETER_GRADIENT).copyToNumpyArray().tobytes())
    trainer.startTrainPass(0)
    batch = MODELS[args.model]["batch"]
    for i in range(args.warmup):
        trainer.trainOneDataBatch(batch, data[i % 2])
    times = []
    for i in range(args.steps):
        start = time.perf_counter()
        trainer.trainOneDataBatch(batch, data[i % 2])
        times.append(time.perf_counter() - start)
    _, peak = api.getBufferMemoryStats()
    print(json.dumps({"model": args.model, "mode": args.mode or "stored", "threads": args.threads,
                      "checkpoints": len(gm.getRecomputeCheckpoints()),
                      "ms_per_step": statistics.median(times) * 1e3, "peak_mb": (peak - held) / 2.0 ** 20,
                      "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0,
                      "grads": digest.hexdigest()}))


def run_unit(args, model, mode):
    cmd = [sys.executable, os.path.abspath(__file__), "--child", "--model", model, "--mode", mode,
           "--threads", str(args.threads), "--steps", str(args.steps), "--warmup", str(args.warmup)]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError("%s/%s failed:\n%s" % (model, mode or "stored", p.stderr[-3000:]))
    return json.loads(p.stdout.strip().splitlines()[-1])


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--models", default="lstm20,resnet20")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--rounds", type=int, default=3, help="stored/recomputed alternations")
    p.add_argument("--steps", type=int, default=5, help="timed batches per unit")
    p.add_argument("--warmup", type=int, default=2)
    p.add_argument("--md", default="", help="also write the table as Markdown here")
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--model", default="", help=argparse.SUPPRESS)
    p.add_argument("--mode", default="", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        return child(args)
    lines = ["| model | checkpoints | peak MB stored | peak MB recomputed | memory | RSS MB stored | "
             "RSS MB recomputed | ms/step stored | ms/step recomputed | time | grads |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for model in args.models.split(","):
        runs = {"": [], "auto": []}
        for _ in range(args.rounds):
            for mode in ("", "auto"):
                runs[mode].append(run_unit(args, model, mode))
                print(json.dumps(runs[mode][-1]), file=sys.stderr)

        def med(mode, key):
            return statistics.median(r[key] for r in runs[mode])
        same = len({r["grads"] for r in runs[""] + runs["auto"]}) == 1
        lines.append("| %s | %d | %.1f | %.1f | %+.0f%% | %.0f | %.0f | %.1f | %.1f | %+.0f%% | %s |" % (
            model, runs["auto"][0]["checkpoints"], med("", "peak_mb"), med("auto", "peak_mb"),
            100 * (med("auto", "peak_mb") / med("", "peak_mb") - 1), med("", "rss_mb"), med("auto", "rss_mb"),
            med("", "ms_per_step"), med("auto", "ms_per_step"),
            100 * (med("auto", "ms_per_step") / med("", "ms_per_step") - 1), "same" if same else "DIFFER"))
    table = "\n".join(lines)
    print("%d threads, %d rounds, median of %d steps per unit\n%s" % (args.threads, args.rounds, args.steps, table))
    if args.md:
        with open(args.md, "w") as f:
            f.write(table + "\n")


if __name__ == "__main__":
    main()
