#!/usr/bin/env python3
"""Training throughput (samples/s, ms/step, peak RSS), ours against PyTorch at its best.

    python benchmarks/run.py --threads 2                    # every benchmark, ours vs tuned PyTorch
    python benchmarks/run.py --threads 1,2 --md table.md    # also the 2-vs-1 thread speedups; Markdown
    python benchmarks/run.py --bench mlp --threads 1 --frameworks paddle
    python benchmarks/run.py --torch stock                  # PyTorch with its defaults instead
    python benchmarks/run.py --profile --bench lenet        # where our step goes: layers and kernels
    python benchmarks/run.py --device gpu --bench mlp,lenet,lstm_text --threads 1

Method: synthetic batches made once up front (not timed), the same data for both frameworks.
Every unit (one benchmark, framework and thread count) runs in a fresh process: a warm-up,
then the median of 3 timed repeats, and its own peak RSS. Ours and PyTorch alternate in one
sitting (ours, torch, ours, torch, ... `--repeats` rounds), so drift of a shared machine hits
both alike; the table gives medians over the rounds, the spread of samples/s, and the median
of the per-round ratios ours / PyTorch. "busy" is the most CPU (in cores) that other
processes took while a unit ran; a row over `--busy-limit` is marked "!" and the run is
reported as disturbed rather than published as clean. PyTorch is optional
(`pip install torch==2.13.0` on CPU; without it the run times ours alone, with a note);
`--torch` picks its setup (benchmarks/torch_twins.py).
With --device gpu both engines train on GPU 0 (the timed loops wait for the device) and
"peak MB" is device memory: our pool's peak, torch's max allocated.
"""
import argparse
import json
import os
import platform
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
sys.path.insert(0, HERE)
import harness  # noqa: E402  (benchmarks/harness.py: medians, ratios, tables)


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


def paddle_trainer(name, gpu, precision="fp32"):
    """A trainer of benchmark `name` in its first pass and its synthetic batches."""
    from paddle.proto import message_to_json
    from py_paddle import swig_paddle as api

    conf = paddle_config(name)
    conf.opt_config.precision = precision
    trainer = api.Trainer.create(message_to_json(conf), gpu, 0, 1)  # 0: replicas as `paddle train` chooses
    trainer.startTrainPass(0)
    return trainer, paddle_arguments(name, conf, api)


def run_paddle(name, gpu, precision):
    trainer, args = paddle_trainer(name, gpu, precision)
    if trainer.getGradientMachine().getPrecision() != precision:
        raise RuntimeError("this machine cannot train in %s (no AVX512_BF16)" % precision)
    batch = BENCHES[name]["batch"]
    # trainOneDataBatch reads the batch cost back to the host: each step ends synchronised
    return time_steps(lambda a: trainer.trainOneDataBatch(batch, a), args)


# PyTorch's variants of a benchmark under each --torch setup ("": its one twin)
TORCH_VARIANTS = {"tuned": {"lstm_text": ("padded", "packed")}, "stock": {"lstm_text": ("padded",)}}
BATCHES = {"sparse_ctr": ctr_batches, "gru_seq2seq_attention": seq2seq_batches, "lstm_text": text_batches,
           "cnn_text": text_batches, "mlp": synthetic_batches, "lenet": synthetic_batches}


def run_torch(name, threads, gpu, setup, variant, precision):
    import torch_twins
    batches = BATCHES[name](BENCHES[name]["batch"])
    step, data, sync = torch_twins.build(name, batches, threads, gpu, setup, variant, TEXT_VOCAB, precision)
    return time_steps(step, data, sync=sync)


def peak_mb(framework, gpu):
    if not gpu:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    if framework == "torch":
        import torch
        return torch.cuda.max_memory_allocated() / 2.0 ** 20
    from py_paddle import swig_paddle as api
    return api.getGpuMemoryStats()[2] / 2.0 ** 20


def child(args):
    gpu = args.device == "gpu"
    bench, threads = args.bench[0], int(args.threads)
    os.environ["OPENBLAS_NUM_THREADS"] = str(threads)  # before anything loads OpenBLAS
    if args.profile:
        import engine_profile
        trainer, batches = paddle_trainer(bench, gpu, args.precision[0])
        if args.perf_seconds:
            return engine_profile.child_perf(trainer, BENCHES[bench]["batch"], batches, args.perf_seconds)
        print(json.dumps(engine_profile.child_layers(trainer, BENCHES[bench]["batch"], batches)))
        return
    precision = args.precision[0]
    if args.framework == "paddle":
        sec = run_paddle(bench, gpu, precision)
    else:
        sec = run_torch(bench, threads, gpu, args.torch, args.variant, precision)
    b = BENCHES[bench]
    print(json.dumps({"bench": bench, "framework": args.framework, "variant": args.variant, "threads": threads,
                      "precision": precision,
                      "device": args.device, "ms_per_step": sec * 1e3, "samples_per_s": b["batch"] / sec,
                      "gflops": b["flops_per_sample"] * b["batch"] / sec / 1e9,
                      "peak_mb": peak_mb(args.framework, gpu)}))


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


def _thread_counts(text):
    try:
        counts = [int(t) for t in text.split(",") if t.strip()]
    except ValueError:
        counts = []
    if not counts or min(counts) < 1:
        raise argparse.ArgumentTypeError("expected positive thread counts separated by commas, got %r" % text)
    return counts


def _positive(text):
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError("expected a positive integer, got %r" % text)
    return n


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--bench", default=list(BENCHES), type=_names(BENCHES),
                   help="comma-separated, from: %s" % ", ".join(BENCHES))
    p.add_argument("--threads", default=[1, 2], type=_thread_counts, help="comma-separated thread counts (1,2)")
    p.add_argument("--frameworks", default=["paddle", "torch"], type=_names(("paddle", "torch")))
    p.add_argument("--torch", choices=["tuned", "stock"], default="tuned",
                   help="PyTorch's setup: tuned (its fastest form here) or stock (its defaults)")
    p.add_argument("--repeats", default=3, type=_positive, help="rounds of ours-then-torch units (3)")
    p.add_argument("--busy-limit", default=0.25, type=float,
                   help="flag a unit during which other processes used more CPU than this, in cores (0.25)")
    p.add_argument("--device", choices=["cpu", "gpu"], default="cpu")
    p.add_argument("--precision", choices=["fp32", "bf16"], default="fp32",
                   help="bf16: each round also runs ours with settings(precision='bf16') and torch under "
                        "torch.autocast(bfloat16), after the fp32 pair")
    p.add_argument("--profile", action="store_true",
                   help="profile our engine instead: time per layer and update, and perf's hottest functions")
    p.add_argument("--top", default=12, type=_positive, help="--profile: rows per table (12)")
    p.add_argument("--json", help="also write the unit results here")
    p.add_argument("--md", help="also write the results as Markdown here")
    for hidden in ("--framework", "--variant", "--perf-seconds"):
        p.add_argument(hidden, help=argparse.SUPPRESS)
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    args.variant = args.variant or ""
    # the precisions each round runs (a child runs the one it is given)
    args.precision = [args.precision] if args.child or args.precision == "fp32" else ["fp32", "bf16"]
    args.perf_seconds = float(args.perf_seconds or 0)
    if args.child:
        args.threads = args.threads[0]
    return args


def child_cmd(args, bench, threads, framework="paddle", variant="", profile=False, precision="fp32"):
    cmd = [sys.executable, os.path.abspath(__file__), "--child", "--bench", bench, "--threads", str(threads),
           "--framework", framework, "--torch", args.torch, "--device", args.device, "--precision", precision]
    return cmd + (["--variant", variant] if variant else []) + (["--profile"] if profile else [])


def plan(args):
    """The units in running order: per benchmark and thread count, `repeats` rounds of, per
    precision, ours then torch (each of torch's variants)."""
    units = []
    for bench in args.bench:
        for threads in args.threads:
            for rnd in range(args.repeats):
                for precision in args.precision:
                    for fw in args.frameworks:
                        for variant in (TORCH_VARIANTS[args.torch].get(bench, ("",)) if fw == "torch" else ("",)):
                            units.append({"bench": bench, "threads": threads, "framework": fw, "variant": variant,
                                          "round": rnd, "precision": precision})
    return units


def run_unit(args, unit):
    """One unit in a fresh process; its result, with how busy the machine was meanwhile."""
    load = harness.MachineLoad()
    p = subprocess.run(child_cmd(args, unit["bench"], unit["threads"], unit["framework"], unit["variant"],
                                 precision=unit.get("precision", "fp32")), capture_output=True, text=True)
    busy = load.others()
    if p.returncode != 0:
        raise RuntimeError((p.stderr.strip().splitlines() or ["exit status %d" % p.returncode])[-1])
    return dict(json.loads(p.stdout.strip().splitlines()[-1]), round=unit["round"], busy=busy)


def _torch_importable():
    """PyTorch imports here (found is not enough: a broken install fails every torch unit)."""
    try:
        import torch  # noqa: F401
    except ImportError:
        return False
    return True


def machine_line():
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(l.split(":", 1)[1].strip() for l in f if l.startswith("model name"))
    except (OSError, StopIteration):
        pass
    try:
        import importlib.metadata as md
        torch_version = md.version("torch")
    except Exception:
        torch_version = "not installed"
    return "%s, %d cores, load average %.2f at the start; torch %s; %s" % (
        cpu, os.cpu_count(), os.getloadavg()[0], torch_version, time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()))


def compare(args, machine):
    results, failed = [], []
    units = plan(args)
    for i, unit in enumerate(units):
        tag = "%s/%s%s%s/%d threads/round %d" % (unit["bench"], unit["framework"],
                                               " bf16" if unit.get("precision") == "bf16" else "",
                                               " (%s)" % unit["variant"] if unit["variant"] else "",
                                               unit["threads"], unit["round"] + 1)
        try:
            r = run_unit(args, unit)
        except RuntimeError as e:
            failed.append("%s failed: %s" % (tag, e))
            print(failed[-1], file=sys.stderr, flush=True)
            continue
        results.append(r)
        print("[%d/%d] %s: %.0f samples/s, busy %.2f" % (i + 1, len(units), tag, r["samples_per_s"], r["busy"]),
              file=sys.stderr, flush=True)
        if args.json:  # after every unit, so a stopped run keeps what it measured
            with open(args.json, "w") as f:
                json.dump({"machine": machine, "torch": args.torch, "units": results, "failed": failed}, f, indent=1)
    if not results:
        return [], [], [], failed
    rows = harness.summarize(results, args.busy_limit)
    print(harness.text_table(rows))
    speedups = harness.speedup_lines(rows)
    if speedups:
        print("\n2-vs-1 thread speedup (samples/s):\n  " + "\n  ".join(speedups))
    bf16 = harness.bf16_speedup_lines(rows)
    if bf16:
        print("\nbf16 over fp32 (samples/s):\n  " + "\n  ".join(bf16))
    flagged = [r for r in rows if r["flagged"]]
    if flagged:
        print("\nDISTURBED: other processes used over %.2f cores during %d row(s) marked '!'; rerun on a quiet "
              "machine before quoting them." % (args.busy_limit, len(flagged)))
    return rows, speedups, flagged, failed


def main(argv=None):
    args = parse_args(argv)
    if args.child:
        return child(args)
    command = "python benchmarks/run.py " + " ".join(sys.argv[1:] if argv is None else argv)
    machine = machine_line()
    if args.profile:
        import engine_profile
        text = engine_profile.profile_benches(args.bench, max(args.threads),
                                              lambda b, t: child_cmd(args, b, t, profile=True, precision=args.precision[-1]),
                                              engine_profile.perf_available(), args.top, md=bool(args.md))
        print(text)
        if args.md:
            with open(args.md, "w") as f:
                f.write("`%s` (%s)\n\n%s\n" % (command, machine, text))
        return 0
    torch_note = None
    if "torch" in args.frameworks and not _torch_importable():  # said once, before any unit runs
        if args.frameworks == ["torch"]:
            sys.exit("PyTorch is not installed: pip install torch==2.13.0")
        args.frameworks = [f for f in args.frameworks if f != "torch"]
        torch_note = "PyTorch is not installed, so this run times our engine alone (no ratios)"
        print("note: %s; pip install torch==2.13.0 to compare" % torch_note, file=sys.stderr, flush=True)
    rows, speedups, flagged, failed = compare(args, machine)
    if args.md:
        lines = ["`%s`" % command, "", "Machine: %s. PyTorch setup: %s." % (machine, args.torch), "",
                 harness.results_markdown(rows), ""]
        if speedups:
            lines += ["2-vs-1 thread speedup (samples/s): " + "; ".join(speedups) + ".", ""]
        if harness.bf16_speedup_lines(rows):
            lines += ["bf16 over fp32 (samples/s): " + "; ".join(harness.bf16_speedup_lines(rows)) + ".", ""]
        if flagged:
            lines += ["Disturbed: rows marked ! ran while other processes used over %.2f cores." % args.busy_limit,
                      ""]
        if torch_note:
            lines += ["Note: %s." % torch_note, ""]
        lines += ["Failed: " + f for f in failed]
        with open(args.md, "w") as f:
            f.write("\n".join(lines).rstrip() + "\n")
    return 1 if failed and not rows else 0


if __name__ == "__main__":
    sys.exit(main())
