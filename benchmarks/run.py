#!/usr/bin/env python3
"""Throughput benchmarks (samples/s, ms/step, peak RSS), ours beside PyTorch.

    python benchmarks/run.py                    # every benchmark the engine supports, both frameworks
    python benchmarks/run.py --bench mlp --threads 1 --frameworks paddle
    python benchmarks/run.py --device gpu --bench mlp,lenet,lstm_text --threads 1

Method: synthetic batches made once up front (not timed), the same data for both
frameworks, a warm-up, then the median of 3 timed repeats. Each
(benchmark, framework) runs in a fresh process so peak RSS is its own. The
machine is shared and noisy: compare the ratio from one run, not absolute
numbers across runs. PyTorch is optional (`pip install torch==2.13.0` on CPU).
With --device gpu both engines train on GPU 0 (the timed loops wait for the
device) and "peak MB" is device memory: our pool's peak, torch's max allocated.
"""
import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
import glob

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if glob.glob(os.path.join(ROOT, "py_paddle", "_swig_paddle*.so")):  # IN_TREE: engine built in place
    sys.path.insert(0, ROOT)

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))

MLP_CONFIG = """
from paddle.trainer_config_helpers import *
settings(batch_size=128, learning_rate=1e-3, learning_method=AdamOptimizer())
img = data_layer(name='pixel', size=784)
h1 = fc_layer(input=img, size=512, act=ReluActivation())
h2 = fc_layer(input=h1, size=512, act=ReluActivation())
out = fc_layer(input=h2, size=10, act=SoftmaxActivation())
outputs(classification_cost(input=out, label=data_layer(name='label', size=10)))
"""
_MLP_MACS = [784 * 512, 512 * 512, 512 * 10]
LENET_CONFIG = """
from paddle.trainer_config_helpers import *
settings(batch_size=128, learning_rate=0.01, learning_method=MomentumOptimizer(0.9))
img = data_layer(name='pixel', size=784, height=28, width=28)
c1 = simple_img_conv_pool(input=img, filter_size=5, num_filters=20, num_channel=1, pool_size=2,
                          pool_stride=2, act=ReluActivation(), pool_type=MaxPooling())
c2 = simple_img_conv_pool(input=c1, filter_size=5, num_filters=50, pool_size=2, pool_stride=2,
                          act=ReluActivation(), pool_type=MaxPooling())
h = fc_layer(input=c2, size=500, act=ReluActivation())
out = fc_layer(input=h, size=10, act=SoftmaxActivation())
outputs(classification_cost(input=out, label=data_layer(name='label', size=10)))
"""
# conv1 20x(1*5*5) filters over 24x24 outputs, conv2 50x(20*5*5) over 8x8, fc 800->500, fc 500->10
_LENET_MACS = [20 * 25 * 24 * 24, 50 * 500 * 8 * 8, 800 * 500, 500 * 10]


def _train_flops(macs):
    """Training FLOPs per sample: forward 2*MACs; backward twice that, except that the
    first layer needs no input gradient."""
    return 2 * sum(macs) + 2 * (sum(macs) + sum(macs[1:]))


TEXT_VOCAB = 30000
LSTM_TEXT_CONFIG = """
from paddle.trainer_config_helpers import *
settings(batch_size=64, learning_rate=2e-3, learning_method=AdamOptimizer())
words = data_layer(name='words', size=30000)
emb = embedding_layer(input=words, size=128)
lstm = simple_lstm(input=emb, size=128)
pooled = pooling_layer(input=lstm, pooling_type=MaxPooling())
out = fc_layer(input=pooled, size=2, act=SoftmaxActivation())
outputs(classification_cost(input=out, label=data_layer(name='label', size=2)))
"""
CNN_TEXT_CONFIG = """
from paddle.trainer_config_helpers import *
settings(batch_size=64, learning_rate=1e-3, learning_method=AdamOptimizer())
words = data_layer(name='words', size=30000)
emb = embedding_layer(input=words, size=128)
conv = sequence_conv_pool(input=emb, context_len=3, hidden_size=128, fc_act=ReluActivation())
out = fc_layer(input=conv, size=2, act=SoftmaxActivation())
outputs(classification_cost(input=out, label=data_layer(name='label', size=2)))
"""
SPARSE_CTR_CONFIG = """
from paddle.trainer_config_helpers import *
settings(batch_size=512, learning_rate=0.05, learning_method=AdaGradOptimizer())
feats = data_layer(name='feats', size=1000000)
bag = fc_layer(input=feats, size=64, act=LinearActivation(), bias_attr=False,
               param_attr=ParamAttr(sparse_update=True))  # embedding-bag sum over the active ids
h = fc_layer(input=bag, size=64, act=ReluActivation())
out = fc_layer(input=h, size=1, act=SigmoidActivation())
outputs(multi_binary_label_cross_entropy(input=out, label=data_layer(name='label', size=1)))
"""
SEQ2SEQ_CONFIG = """
import sys
sys.path.insert(0, %r)
from paddle.trainer_config_helpers import *
from seq2seq_net import seq2seq_net
settings(batch_size=32, learning_rate=1e-3, learning_method=AdamOptimizer())
outputs(seq2seq_net(10000, word_dim=256, hidden=256))
""" % os.path.join(ROOT, "demos", "seq2seq")
# per token: LSTM input projection 128x512 + recurrent 128x512; cnn: window 3*128 x 128
_LSTM_TOKEN_MACS = 2 * 128 * 512
_CNN_TOKEN_MACS = 3 * 128 * 128
_MEAN_LEN = 105.0  # lengths uniform in 10..200

BENCHES = {
    "mlp": {"batch": 128, "config": MLP_CONFIG, "flops_per_sample": _train_flops(_MLP_MACS)},
    "lenet": {"batch": 128, "config": LENET_CONFIG, "flops_per_sample": _train_flops(_LENET_MACS)},
    # embedding lookups are not counted; the first GEMM's input gradient is (the embedding needs it)
    "lstm_text": {"batch": 64, "config": LSTM_TEXT_CONFIG, "flops_per_sample": 6 * _LSTM_TOKEN_MACS * _MEAN_LEN},
    "cnn_text": {"batch": 64, "config": CNN_TEXT_CONFIG, "flops_per_sample": 6 * _CNN_TOKEN_MACS * _MEAN_LEN},
}
# sparse_ctr: the bag sum forward and its gradient rows count 1 FLOP per active id and column
BENCHES["sparse_ctr"] = {"batch": 512, "config": SPARSE_CTR_CONFIG,
                         "flops_per_sample": 2 * 40 * 64 + _train_flops([64 * 64, 64])}
BENCHES["gru_seq2seq_attention"] = {"batch": 32, "config": SEQ2SEQ_CONFIG, "flops_per_sample": 0.0}
TEXT_BENCHES = ("lstm_text", "cnn_text")


def ctr_batches(batch, n=8, seed=0):
    """About 40 active ids (30..50) out of 1,000,000 per sample, binary labels."""
    rng = np.random.RandomState(seed)
    out = []
    for _ in range(n):
        counts = rng.randint(30, 51, batch)
        rows = np.concatenate([[0], np.cumsum(counts)]).astype(np.int32)
        cols = rng.randint(0, 1000000, int(counts.sum())).astype(np.int32)
        out.append((rows, cols, rng.randint(0, 2, (batch, 1)).astype(np.float32)))
    return out


def seq2seq_batches(batch, n=8, seed=0):
    """Source and target lengths uniform in 10..50 over a 10,000-word vocabulary."""
    rng = np.random.RandomState(seed)
    out = []
    for _ in range(n):
        src_len, trg_len = rng.randint(10, 51, batch), rng.randint(10, 51, batch)
        src = rng.randint(3, 10000, int(src_len.sum())).astype(np.int32)
        trg = rng.randint(3, 10000, int(trg_len.sum())).astype(np.int32)
        trg_starts = np.concatenate([[0], np.cumsum(trg_len)]).astype(np.int32)
        trg_in = trg.copy()
        trg_in[trg_starts[:-1]] = 0  # <s> first, the rest shifted by one
        for i in range(batch):
            a, b = trg_starts[i], trg_starts[i + 1]
            trg_in[a + 1:b] = trg[a:b - 1]
        out.append({"source_words": (src, np.concatenate([[0], np.cumsum(src_len)]).astype(np.int32)),
                    "target_words": (trg_in, trg_starts), "target_next_words": (trg, trg_starts)})
    return out


def text_batches(batch, n=8, seed=0):
    """Word-id sequences of lengths uniform in 10..200 and binary labels."""
    rng = np.random.RandomState(seed)
    out = []
    for _ in range(n):
        lengths = rng.randint(10, 201, batch)
        ids = rng.randint(0, TEXT_VOCAB, int(lengths.sum())).astype(np.int32)
        out.append((ids, lengths, rng.randint(0, 2, batch).astype(np.int32)))
    return out


def synthetic_batches(batch, n=8, seed=0):
    rng = np.random.RandomState(seed)
    return [(rng.rand(batch, 784).astype(np.float32), rng.randint(0, 10, batch).astype(np.int32)) for _ in range(n)]


def time_steps(step, batches, warmup_s=1.0, repeat_s=2.0, repeats=3, sync=lambda: None):
    """Median seconds per step; `sync` waits for queued device work before a clock is read."""
    t0 = time.perf_counter()
    n = 0
    while time.perf_counter() - t0 < warmup_s or n < 3:
        step(batches[n % len(batches)])
        n += 1
    sync()
    per_step = (time.perf_counter() - t0) / n
    steps = max(int(repeat_s / per_step), 5)
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        for i in range(steps):
            step(batches[i % len(batches)])
        sync()
        times.append((time.perf_counter() - t) / steps)
    return statistics.median(times)


def paddle_arguments(name, conf, api):
    """The synthetic batches of benchmark `name` as swig_paddle Arguments (also benchmarks/scaleout.py)."""
    b = BENCHES[name]
    args = []
    if name == "sparse_ctr":
        for rows, cols, y in ctr_batches(b["batch"]):
            a = api.Arguments.createArguments(2)
            a.setSlotSparseFromBuffers(0, rows, cols, np.zeros(0, np.float32), 1000000)
            a.setSlotValueFromBuffer(1, y)
            args.append(a)
    elif name == "gru_seq2seq_attention":
        names = list(conf.model_config.input_layer_names)
        for batch in seq2seq_batches(b["batch"]):
            a = api.Arguments.createArguments(len(names))
            for i, n in enumerate(names):
                ids, starts = batch[n]
                a.setSlotIdsFromBuffer(i, ids)
                a.setSlotSequenceStartPositionsFromBuffer(i, starts)
            args.append(a)
    elif name in TEXT_BENCHES:
        for ids, lengths, y in text_batches(b["batch"]):
            a = api.Arguments.createArguments(2)
            a.setSlotIdsFromBuffer(0, ids)
            a.setSlotSequenceStartPositionsFromBuffer(0, np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32))
            a.setSlotIdsFromBuffer(1, y)
            args.append(a)
    else:
        for x, y in synthetic_batches(b["batch"]):
            a = api.Arguments.createArguments(2)
            a.setSlotValueFromBuffer(0, x)
            a.setSlotIdsFromBuffer(1, y)
            args.append(a)
    return args


def paddle_config(name):
    """The TrainerConfig of benchmark `name`."""
    import tempfile

    from paddle.trainer.config_parser import parse_config
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write(BENCHES[name]["config"])
    conf = parse_config(f.name, "")
    os.unlink(f.name)
    return conf


def run_paddle(name, threads, gpu):
    os.environ["OPENBLAS_NUM_THREADS"] = str(threads)
    from paddle.proto import message_to_json
    from py_paddle import swig_paddle as api

    b = BENCHES[name]
    conf = paddle_config(name)
    trainer = api.Trainer.create(message_to_json(conf), gpu, 1, 1)
    trainer.startTrainPass(0)
    args = paddle_arguments(name, conf, api)
    # trainOneDataBatch reads the batch cost back to the host: each step ends synchronised
    return time_steps(lambda a: trainer.trainOneDataBatch(b["batch"], a), args)


def run_torch(name, threads, gpu):
    import torch
    import torch.nn as nn

    torch.set_num_threads(threads)
    b = BENCHES[name]
    device = torch.device("cuda" if gpu else "cpu")
    sync = torch.cuda.synchronize if gpu else (lambda: None)
    if name == "sparse_ctr":
        if gpu:
            raise RuntimeError("sparse_ctr: sparse updates run on the CPU only (ours too)")
        return run_torch_ctr(b)
    if name == "gru_seq2seq_attention":
        return run_torch_seq2seq(b, device, sync)
    if name in TEXT_BENCHES:
        return run_torch_text(name, b, device, sync)
    if name == "mlp":
        model = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(),
                              nn.Linear(512, 10)).to(device)
        opt = torch.optim.Adam(model.parameters(), lr=1e-3)
        shape = (-1, 784)
    else:  # lenet
        model = nn.Sequential(nn.Conv2d(1, 20, 5), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(20, 50, 5), nn.ReLU(),
                              nn.MaxPool2d(2), nn.Flatten(), nn.Linear(800, 500), nn.ReLU(),
                              nn.Linear(500, 10)).to(device)
        opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
        shape = (-1, 1, 28, 28)
    loss_fn = nn.CrossEntropyLoss(reduction="sum")
    data = [(torch.from_numpy(x).reshape(shape).to(device), torch.from_numpy(y).long().to(device))
            for x, y in synthetic_batches(b["batch"])]

    def step(batch):
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(model(batch[0]), batch[1])
        loss.backward()
        opt.step()

    return time_steps(step, data, sync=sync)


def run_torch_ctr(b):
    """PyTorch's CTR twin: a sum-mode EmbeddingBag with sparse gradients (its fast path for
    a 1M-row table: only the touched rows are updated), fc 64 relu, fc 1, logistic loss, Adagrad."""
    import torch
    import torch.nn as nn

    bag = nn.EmbeddingBag(1000000, 64, mode="sum", sparse=True)
    head = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 1))
    opt = torch.optim.Adagrad(list(bag.parameters()) + list(head.parameters()), lr=0.05)
    loss_fn = nn.BCEWithLogitsLoss(reduction="sum")
    data = [(torch.from_numpy(cols).long(), torch.from_numpy(rows[:-1]).long(), torch.from_numpy(y))
            for rows, cols, y in ctr_batches(b["batch"])]

    def step(batch):
        opt.zero_grad(set_to_none=True)
        loss_fn(head(bag(batch[0], batch[1])), batch[2]).backward()
        opt.step()

    return time_steps(step, data)


def run_torch_seq2seq(b, device, sync, vocab=10000, dim=256):
    """PyTorch's twin of seq2seq_net (word_dim = hidden = 256): a bidirectional GRU encoder over
    packed sources, a GRUCell decoder with additive attention over the padded, masked
    annotations (teacher forcing), and the vocabulary projection once over the real target
    positions after the loop, as ours does; Adam."""
    import torch
    import torch.nn as nn
    from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

    class Seq2Seq(nn.Module):
        def __init__(self):
            super().__init__()
            self.src_emb, self.trg_emb = nn.Embedding(vocab, dim), nn.Embedding(vocab, dim)
            self.encoder = nn.GRU(dim, dim, batch_first=True, bidirectional=True)
            self.boot = nn.Linear(dim, dim)
            self.key, self.query = nn.Linear(2 * dim, dim, bias=False), nn.Linear(dim, dim)
            self.score = nn.Linear(dim, 1, bias=False)
            self.cell = nn.GRUCell(3 * dim, dim)
            self.out = nn.Linear(dim, vocab)

        def forward(self, src, src_len, src_mask, trg_in, trg_mask):
            packed = pack_padded_sequence(self.src_emb(src), src_len, batch_first=True, enforce_sorted=False)
            enc, last = self.encoder(packed)
            enc = pad_packed_sequence(enc, batch_first=True)[0]
            keys = self.key(enc)
            state = torch.tanh(self.boot(last[1]))  # the backward GRU's state at the first token
            words = self.trg_emb(trg_in)
            states = []
            for t in range(trg_in.shape[1]):
                energy = self.score(torch.tanh(keys + self.query(state).unsqueeze(1))).squeeze(2)
                weights = torch.softmax(energy.masked_fill(~src_mask, float("-inf")), dim=1)
                context = torch.bmm(weights.unsqueeze(1), enc).squeeze(1)
                state = self.cell(torch.cat([context, words[:, t]], dim=1), state)
                states.append(state)
            return self.out(torch.stack(states, dim=1)[trg_mask])

    def padded(ids, starts):
        lengths = np.diff(starts)
        out = np.zeros((len(lengths), lengths.max()), np.int64)
        mask = np.arange(lengths.max())[None, :] < lengths[:, None]
        out[mask] = ids
        return torch.from_numpy(out), torch.from_numpy(lengths), torch.from_numpy(mask)

    model = Seq2Seq().to(device)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss(reduction="sum")
    data = []
    for batch in seq2seq_batches(b["batch"]):
        src, src_len, src_mask = padded(*batch["source_words"])
        trg_in, _, trg_mask = padded(*batch["target_words"])
        labels = torch.from_numpy(batch["target_next_words"][0]).long()
        data.append((src.to(device), src_len, src_mask.to(device), trg_in.to(device), trg_mask.to(device),
                     labels.to(device)))

    def step(batch):
        opt.zero_grad(set_to_none=True)
        loss_fn(model(*batch[:5]), batch[5]).backward()
        opt.step()

    return time_steps(step, data, sync=sync)


def run_torch_text(name, b, device, sync):
    """PyTorch's text models on padded batches (its fastest CPU path: fused LSTM)."""
    import torch
    import torch.nn as nn

    class TextNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(TEXT_VOCAB, 128)
            if name == "lstm_text":
                self.seq = nn.LSTM(128, 128, batch_first=True)
            else:
                self.seq = nn.Conv1d(128, 128, 3, padding=1)
            self.out = nn.Linear(128, 2)

        def forward(self, ids, mask):
            x = self.emb(ids)
            if name == "lstm_text":
                h, _ = self.seq(x)
            else:
                h = torch.relu(self.seq(x.transpose(1, 2))).transpose(1, 2)
            h = h.masked_fill(~mask.unsqueeze(-1), float("-inf")).max(1).values
            return self.out(h)

    model = TextNet().to(device)
    opt = torch.optim.Adam(model.parameters(), lr=2e-3 if name == "lstm_text" else 1e-3)
    loss_fn = nn.CrossEntropyLoss(reduction="sum")
    data = []
    for ids, lengths, y in text_batches(b["batch"]):
        padded = np.zeros((len(lengths), lengths.max()), np.int64)
        mask = np.zeros(padded.shape, bool)
        at = 0
        for i, n in enumerate(lengths):
            padded[i, :n] = ids[at:at + n]
            mask[i, :n] = True
            at += n
        data.append(tuple(t.to(device) for t in (torch.from_numpy(padded), torch.from_numpy(mask),
                                                  torch.from_numpy(y).long())))

    def step(batch):
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(model(batch[0], batch[1]), batch[2])
        loss.backward()
        opt.step()

    return time_steps(step, data, sync=sync)


def peak_gpu_mb(framework):
    if framework == "torch":
        import torch
        return torch.cuda.max_memory_allocated() / 2.0 ** 20
    from py_paddle import swig_paddle as api
    return api.getGpuMemoryStats()[2] / 2.0 ** 20


def child(args):
    gpu = args.device == "gpu"
    sec = (run_paddle if args.framework == "paddle" else run_torch)(args.bench, args.threads, gpu)
    b = BENCHES[args.bench]
    peak_mb = peak_gpu_mb(args.framework) if gpu else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    if not b["flops_per_sample"]:
        b = dict(b, flops_per_sample=0.0)
    print(json.dumps({"bench": args.bench, "framework": args.framework, "threads": args.threads, "device": args.device,
                      "ms_per_step": sec * 1e3, "samples_per_s": b["batch"] / sec,
                      "gflops": b["flops_per_sample"] * b["batch"] / sec / 1e9, "peak_rss_mb": peak_mb}))


def _names(choices):
    """argparse type of a comma-separated list whose items must be among `choices`."""
    def parse(text):
        names = [n for n in text.split(",") if n]
        unknown = [n for n in names if n not in choices]
        if unknown or not names:
            raise argparse.ArgumentTypeError("unknown name(s) %s; choose from: %s" % (
                ", ".join(repr(n) for n in unknown) or "(none given)", ", ".join(choices)))
        return names
    return parse


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--bench", default=",".join(BENCHES), type=_names(BENCHES),
                   help="comma-separated, from: %s" % ", ".join(BENCHES))
    p.add_argument("--threads", default="1,2")
    p.add_argument("--frameworks", default="paddle,torch", type=_names(("paddle", "torch")))
    p.add_argument("--device", choices=["cpu", "gpu"], default="cpu")
    p.add_argument("--json", help="also write the results here")
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--framework", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        args.threads, args.bench = int(args.threads), args.bench[0]
        return child(args)
    results = []
    for bench in args.bench:
        for threads in [int(t) for t in args.threads.split(",")]:
            for fw in args.frameworks:
                cmd = [sys.executable, os.path.abspath(__file__), "--child", "--bench", bench,
                       "--threads", str(threads), "--framework", fw, "--device", args.device]
                p2 = subprocess.run(cmd, capture_output=True, text=True)
                if p2.returncode != 0:
                    print("%s/%s/%d threads failed: %s" % (bench, fw, threads, p2.stderr.strip().splitlines()[-1:]))
                    continue
                results.append(json.loads(p2.stdout.strip().splitlines()[-1]))
    print("%-8s %-8s %7s %12s %10s %8s %10s %12s" % ("bench", "engine", "threads", "samples/s", "ms/step",
                                                     "GFLOP/s", "peak MB", "ours/torch"))
    for r in results:
        ref = [t for t in results if t["bench"] == r["bench"] and t["threads"] == r["threads"]
               and t["framework"] == "torch"]
        ratio = "%.2f" % (r["samples_per_s"] / ref[0]["samples_per_s"]) if ref and r["framework"] == "paddle" else ""
        print("%-8s %-8s %7d %12.0f %10.2f %8.1f %10.0f %12s" % (
            r["bench"], r["framework"], r["threads"], r["samples_per_s"], r["ms_per_step"], r["gflops"],
            r["peak_rss_mb"], ratio))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
