#!/usr/bin/env python3
"""Inference benchmark: our Predictor beside onnxruntime (on our exported model) and PyTorch eager.

    python benchmarks/predict_bench.py                         # every model below; every contender
    python benchmarks/predict_bench.py --models mlp --repeats 3 --append benchmarks/RESULTS.md

Models are benchmarks/run.py's (same configs and synthetic data) and configs/resnet_cifar.py
(ResNet-20, 32x32 RGB), with random weights (batch norm variances positive), their prediction
layer as output; mlp_blank is the digits MLP on pixels as often 0 as MNIST's. For each model:
  - latency: one sample per call, p50 and p99 over --calls calls;
  - throughput: batches of 64 and 128, samples/s, one caller thread, and two caller threads
    sharing one model (our Predictor is thread-safe; an onnxruntime session and a PyTorch
    module may be called from several threads too).
Every engine computes on one core per caller (OpenBLAS, onnxruntime intra-op and torch
threads set to 1), so "2 threads" measures concurrent serving. Contenders alternate inside
each repeat, and the table shows the median over repeats. Before each repeat the script
waits (up to --idle_wait s) for the CPU to be idle and records the idle share it saw: on a
shared machine the numbers are noisy, so compare ratios from one run.
The LSTM has no ONNX form here (export_onnx refuses sequence layers), so it has no
onnxruntime row. PyTorch is optional (pip install torch==2.13.0), onnxruntime too.
"""
import argparse
import datetime
import glob
import os
import re
import statistics
import sys
import tempfile
import threading
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before the engine loads OpenBLAS
# OPENBLAS_CORETYPE=Haswell (set on some machines for old OpenBLAS builds) holds OpenBLAS to AVX2
# kernels, half its SGEMM speed on an AVX-512 CPU: the benchmark reruns itself without it (and
# OPENBLAS_L2_SIZE) unless --keep_openblas_env; the table's note says which ran. (As a script
# only: the engine loads OpenBLAS later, when a contender is built.)
if __name__ == "__main__" and "--keep_openblas_env" not in sys.argv and any(v in os.environ for v in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")):
    print("predict_bench: rerunning without OPENBLAS_CORETYPE=%s OPENBLAS_L2_SIZE=%s (--keep_openblas_env keeps "
          "them)" % (os.environ.get("OPENBLAS_CORETYPE"), os.environ.get("OPENBLAS_L2_SIZE")), flush=True)
    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")}
    os.execve(sys.executable, [sys.executable, os.path.abspath(__file__)] + sys.argv[1:], env)
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if glob.glob(os.path.join(ROOT, "py_paddle", "_swig_paddle*.so")):  # engine built in place
    sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402

import run as train_bench  # noqa: E402  the training benchmark's configs and data

with open(os.path.join(ROOT, "configs", "resnet_cifar.py")) as _f:  # ResNet-20 on 32x32 RGB images
    RESNET20_CONFIG = _f.read()
# mlp_blank: the digits MLP on pixels as often blank (0) as MNIST's (81%), where mlp's are random
# in [0, 1); a Predictor skips the zeros of a product's input (docs/deployment.md)
MODELS = {"mlp": train_bench.MLP_CONFIG, "mlp_blank": train_bench.MLP_CONFIG, "lenet": train_bench.LENET_CONFIG,
          "resnet20": RESNET20_CONFIG, "lstm_text": train_bench.LSTM_TEXT_CONFIG}
INPUT_DIM = {"mlp": 784, "mlp_blank": 784, "lenet": 784, "resnet20": 3 * 32 * 32}
HEAVY = {"mlp": 1, "mlp_blank": 1, "lenet": 4, "resnet20": 40, "lstm_text": 20}  # fewer calls for slower models
MNIST_BLANK = 0.81  # about the share of MNIST's pixels that are 0
BATCHES = (64, 128)


def cpu_idle_share(seconds=0.5):
    """Share of all cores idle over `seconds` (from /proc/stat); None where unreadable."""
    def snapshot():
        with open("/proc/stat") as f:
            values = [int(v) for v in f.readline().split()[1:]]
        return values[3] + values[4], sum(values)  # idle + iowait, total
    try:
        idle0, total0 = snapshot()
        time.sleep(seconds)
        idle1, total1 = snapshot()
    except (OSError, ValueError, IndexError):
        return None
    return (idle1 - idle0) / max(total1 - total0, 1)


def wait_for_idle(want, max_wait):
    """Waits until at least `want` of the CPU is idle (or max_wait s passed); the last share seen."""
    deadline = time.time() + max_wait
    share = cpu_idle_share()
    while share is not None and share < want and time.time() < deadline:
        share = cpu_idle_share(1.0)
    return share


# ---- inputs: dense rows (mlp, lenet) or word-id sequences (lstm_text)
def make_inputs(model, n, seed):
    rng = np.random.RandomState(seed)
    if model == "lstm_text":
        lengths = rng.randint(10, 201, n)
        ids = rng.randint(0, train_bench.TEXT_VOCAB, int(lengths.sum())).astype(np.int32)
        return ids, lengths
    x = rng.rand(n, INPUT_DIM[model]).astype(np.float32)
    if model == "mlp_blank":
        x[rng.rand(*x.shape) < MNIST_BLANK] = 0.0
    return x


class Paddle(object):
    name = "paddle Predictor"

    def __init__(self, model, merged):
        from py_paddle import swig_paddle as api
        self.api, self.model = api, model
        self.predictor = api.Predictor.createFromMergedModel(merged)

    def prepare(self, data):
        a = self.api.Arguments.createArguments(1)
        if self.model == "lstm_text":
            ids, lengths = data
            a.setSlotIdsFromBuffer(0, ids)
            a.setSlotSequenceStartPositionsFromBuffer(0, np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32))
        else:
            a.setSlotValueFromBuffer(0, data)
        return a

    def __call__(self, args):
        return self.predictor.forward(args).getSlotValue(0).copyToNumpyMat()


class OnnxRuntime(object):
    name = "onnxruntime"

    def __init__(self, model, onnx_path):
        import onnxruntime as ort
        options = ort.SessionOptions()
        options.intra_op_num_threads = options.inter_op_num_threads = 1
        self.session = ort.InferenceSession(onnx_path, options, providers=["CPUExecutionProvider"])
        self.input = self.session.get_inputs()[0].name

    def prepare(self, data):
        return {self.input: data}

    def __call__(self, feed):
        return self.session.run(None, feed)[0]


class Torch(object):
    name = "torch eager"

    def __init__(self, model):
        import torch
        import torch.nn as nn
        torch.set_num_threads(1)
        self.torch, self.model = torch, model
        if model in ("mlp", "mlp_blank"):
            self.net = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(),
                                     nn.Linear(512, 10), nn.Softmax(-1))
        elif model == "lenet":
            self.net = nn.Sequential(nn.Conv2d(1, 20, 5), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(20, 50, 5), nn.ReLU(),
                                     nn.MaxPool2d(2), nn.Flatten(), nn.Linear(800, 500), nn.ReLU(),
                                     nn.Linear(500, 10), nn.Softmax(-1))
        elif model == "resnet20":
            self.net = resnet20_torch(nn)
        else:
            self.emb, self.lstm = nn.Embedding(train_bench.TEXT_VOCAB, 128), nn.LSTM(128, 128, batch_first=True)
            self.out = nn.Sequential(nn.Linear(128, 2), nn.Softmax(-1))
            self.net = lambda batch: self._text(*batch)
        for m in (self.net, getattr(self, "lstm", None)):
            if isinstance(m, nn.Module):
                m.eval()

    def _text(self, ids, mask):
        h, _ = self.lstm(self.emb(ids))
        return self.out(h.masked_fill(~mask.unsqueeze(-1), float("-inf")).max(1).values)

    def prepare(self, data):
        torch = self.torch
        if self.model != "lstm_text":
            x = torch.from_numpy(data)
            if self.model == "resnet20":
                return x.reshape(-1, 3, 32, 32)
            return x.reshape(-1, 1, 28, 28) if self.model == "lenet" else x
        ids, lengths = data  # padded batch + mask: PyTorch's fastest CPU path
        padded, mask, at = np.zeros((len(lengths), lengths.max()), np.int64), np.zeros((len(lengths),
                                                                                        lengths.max()), bool), 0
        for i, n in enumerate(lengths):
            padded[i, :n], mask[i, :n] = ids[at:at + n], True
            at += n
        return torch.from_numpy(padded), torch.from_numpy(mask)

    def __call__(self, x):
        with self.torch.inference_mode():
            return self.net(x).numpy()


def resnet20_torch(nn):
    """configs/resnet_cifar.py in PyTorch: conv-bn blocks, 1x1 projection shortcuts where the shape changes."""
    def conv_bn(c_in, c_out, k, stride, relu):
        layers = [nn.Conv2d(c_in, c_out, k, stride, k // 2, bias=False), nn.BatchNorm2d(c_out)]
        return nn.Sequential(*(layers + [nn.ReLU()] if relu else layers))

    class Block(nn.Module):
        def __init__(self, c_in, c_out, stride):
            super(Block, self).__init__()
            self.body = nn.Sequential(conv_bn(c_in, c_out, 3, stride, True), conv_bn(c_out, c_out, 3, 1, False))
            self.short = conv_bn(c_in, c_out, 1, stride, False) if stride != 1 or c_in != c_out else nn.Identity()

        def forward(self, x):
            return (self.body(x) + self.short(x)).relu()

    blocks, c_in = [conv_bn(3, 16, 3, 1, True)], 16
    for stage, c_out in enumerate((16, 32, 64)):
        for i in range(3):
            blocks.append(Block(c_in, c_out, 2 if i == 0 and stage > 0 else 1))
            c_in = c_out
    return nn.Sequential(*blocks, nn.AvgPool2d(8), nn.Flatten(), nn.Linear(64, 10), nn.Softmax(-1))


def build(model, workdir):
    """(merged model path, ONNX path or None) of `model` with random weights."""
    from paddle.trainer.config_parser import parse_config
    from py_paddle import swig_paddle as api
    conf = os.path.join(workdir, model + ".py")
    with open(conf, "w") as f:  # the prediction layer as output, not the cost
        text = re.sub(r"outputs\(classification_cost\(input=out, .*\)\)\n", "outputs(out)\n", MODELS[model])
        f.write(re.sub(r"outputs\(classification_cost\(name='cost', input=predict, .*\)\)\n", "outputs(predict)\n",
                       text))
    gm = api.GradientMachine.createFromConfigProto(parse_config(conf, "").model_config)
    gm.randParameters()
    rng = np.random.RandomState(0)
    for param in gm.getParameters():  # batch norm's moving variances (w2) must be positive
        if param.getName().endswith("_bn.w2"):
            param.getBuf(api.PARAMETER_VALUE).copyFromNumpyArray(rng.uniform(0.5, 1.5, param.getSize())
                                                                 .astype(np.float32))
    merged = os.path.join(workdir, model + ".paddle")
    gm.saveMergedModel(merged)
    onnx_path = None
    if model != "lstm_text":
        try:
            from paddle.utils.export_onnx import export_onnx
            onnx_path = os.path.join(workdir, model + ".onnx")
            export_onnx(onnx_path, model_file=merged)
        except ImportError:
            onnx_path = None
    return merged, onnx_path


def contenders(model, merged, onnx_path):
    out = [Paddle(model, merged)]
    if onnx_path:
        try:
            out.append(OnnxRuntime(model, onnx_path))
        except ImportError:
            print("onnxruntime is not installed: no onnxruntime rows")
    try:
        out.append(Torch(model))
    except ImportError:
        print("torch is not installed: no PyTorch rows")
    return out


def latencies_ms(fn, inputs, calls):
    out = []
    for i in range(calls):
        x = inputs[i % len(inputs)]
        t = time.perf_counter()
        fn(x)
        out.append((time.perf_counter() - t) * 1e3)
    return out


def throughput(fn, batches, calls, threads, batch_size):
    """samples/s with `threads` caller threads, each making `calls` calls."""
    def work():
        for i in range(calls):
            fn(batches[i % len(batches)])
    workers = [threading.Thread(target=work) for _ in range(threads)]
    t = time.perf_counter()
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    return threads * calls * batch_size / (time.perf_counter() - t)


def bench_model(model, args, workdir):
    merged, onnx_path = build(model, workdir)
    engines = contenders(model, merged, onnx_path)
    heavy = HEAVY[model]
    singles = [[e.prepare(make_inputs(model, 1, seed=1000 + k)) for k in range(16)] for e in engines]
    batched = {b: [[e.prepare(make_inputs(model, b, seed=k)) for k in range(4)] for e in engines] for b in BATCHES}
    stats = {}  # (engine, metric) -> [value per repeat]
    idle = []
    for e, xs in zip(engines, singles):  # warm-up: first calls allocate
        for x in xs:
            e(x)
    for _ in range(args.repeats):
        idle.append(wait_for_idle(args.idle, args.idle_wait))
        for e, xs in zip(engines, singles):
            lat = latencies_ms(e, xs, max(args.calls // heavy, 50))
            stats.setdefault((e.name, "p50"), []).append(np.percentile(lat, 50))
            stats.setdefault((e.name, "p99"), []).append(np.percentile(lat, 99))
        for b in BATCHES:
            for threads in (1, 2):
                for e, bs in zip(engines, batched[b]):
                    calls = max(args.batch_calls * 64 // (b * heavy), 4)
                    stats.setdefault((e.name, "b%d_t%d" % (b, threads)), []).append(
                        throughput(e, bs, calls, threads, b))
    rows = []
    for e in engines:
        med = {m: statistics.median(v) for (n, m), v in stats.items() if n == e.name}
        rows.append([model, e.name, "%.3f" % med["p50"], "%.3f" % med["p99"]] +
                    ["%.0f" % med["b%d_t%d" % (b, t)] for b in BATCHES for t in (1, 2)])
    return rows, [i for i in idle if i is not None]


HEADER = ["model", "engine", "p50 ms (1 sample)", "p99 ms"] + \
    ["b%d samples/s %s" % (b, t) for b in BATCHES for t in ("1 thread", "2 threads")]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--models", default=",".join(MODELS))
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--calls", type=int, default=2000, help="single-sample calls per repeat (the MLP's; fewer for "
                                                            "slower models)")
    # 400: a 2-thread MLP window of ~0.14 s; at 100 (~35 ms) two runs of the same build differed by 5%
    p.add_argument("--batch_calls", type=int, default=400, help="batch-64 calls per repeat and thread (MLP)")
    p.add_argument("--idle", type=float, default=0.9, help="CPU idle share to wait for before each repeat")
    p.add_argument("--idle_wait", type=float, default=10, help="at most this many seconds of waiting per repeat")
    p.add_argument("--keep_openblas_env", action="store_true",
                   help="keep OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE as the environment sets them")
    p.add_argument("--append", help="append the table (and the command) to this markdown file")
    args = p.parse_args()
    rows, idle = [], []
    with tempfile.TemporaryDirectory() as workdir:
        for model in args.models.split(","):
            r, i = bench_model(model, args, workdir)
            rows += r
            idle += i
            for row in r:
                print(" | ".join(row), flush=True)
    lines = ["| " + " | ".join(HEADER) + " |", "| " + " | ".join("---" for _ in HEADER) + " |"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    openblas = "OPENBLAS_CORETYPE=%s" % os.environ.get("OPENBLAS_CORETYPE", "unset (OpenBLAS picks its kernels)")
    note = ("CPU idle before the repeats: min %.0f%%, median %.0f%%." % (100 * min(idle), 100 * statistics.median(idle))
            if idle else "CPU idle share not readable.") + " " + openblas + "."
    print("\n".join(lines) + "\n" + note)
    if args.append:
        with open(args.append, "a") as f:
            f.write("\n## Inference (%s)\n\n`python benchmarks/predict_bench.py %s` on this machine (%d cores, shared "
                    "with other jobs: noisy), %s. %s\n\n%s\n" % (
                        datetime.date.today().isoformat(), " ".join(sys.argv[1:]), os.cpu_count(), versions(), note,
                        "\n".join(lines)))


def versions():
    out = []
    for name in ("onnxruntime", "torch"):
        try:
            out.append("%s %s" % (name, __import__(name).__version__))
        except ImportError:
            out.append("no " + name)
    return ", ".join(out)


if __name__ == "__main__":
    main()
