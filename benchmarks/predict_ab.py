#!/usr/bin/env python3
"""Interleaved A/B of the Predictor's products: packed AVX-512 kernels (engine/math/GemmPacked.h)
against OpenBLAS (a Predictor created with PADDLE_PACKED_GEMM=0), beside onnxruntime, in one process;
for resnet20 also the packed Predictor with its batch norms kept (PADDLE_FOLD_BN=0) and with them folded
but not fused into the convs' store (PADDLE_FUSE_BN=0).

    python benchmarks/predict_ab.py --models mlp,lenet,resnet20 --rounds 15

Each round times a burst of calls of every engine in turn (one sample per call, then batches of
64), on one thread; the table holds the median over rounds of each engine's per-sample time, in
CPU time of the calling thread (time.thread_time) and wall time. On a loaded machine the CPU time
is the steadier of the two; the ratios are what to read.

    python benchmarks/predict_ab.py --trees OLD_ROOT NEW_ROOT --models resnet20 --rounds 11

compares two engine builds instead (source trees with their engine built in place): one worker
process a tree and batch size, each timing its packed Predictor for a burst in turn (the order
alternating from round to round), CPU time of the calling thread; the models and inputs are
each tree's benchmarks/predict_bench.py's (the same in both unless that file changed).
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import predict_bench as pb  # noqa: E402  (sets OPENBLAS_NUM_THREADS=1 before the engine loads)


def timed(fn, x, calls):
    t, c = time.perf_counter(), time.thread_time()
    for _ in range(calls):
        fn(x)
    return (time.perf_counter() - t) / calls, (time.thread_time() - c) / calls


# A --trees worker: builds the model with its tree's predict_bench, then answers each line "n" on
# stdin with the CPU and wall seconds of n calls.
WORKER = """
import os, sys, tempfile, time
root, model, batch = sys.argv[1], sys.argv[2], int(sys.argv[3])
sys.path.insert(0, os.path.join(root, "benchmarks"))
import predict_bench as pb
with tempfile.TemporaryDirectory() as workdir:
    merged, _ = pb.build(model, workdir)
    engine = pb.Paddle(model, merged)
    x = engine.prepare(pb.make_inputs(model, batch, seed=batch))
    for _ in range(3):
        engine(x)
    print("ready", flush=True)
    for line in sys.stdin:
        c, w = time.thread_time(), time.perf_counter()
        for _ in range(int(line)):
            engine(x)
        print(time.thread_time() - c, time.perf_counter() - w, flush=True)
"""


def compare_trees(args):
    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")}
    env["OPENBLAS_NUM_THREADS"] = "1"
    for model in args.models.split(","):
        for batch in (1, 64):
            workers = [subprocess.Popen([sys.executable, "-c", WORKER, os.path.abspath(root), model, str(batch)],
                                        cwd=root, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
                       for root in args.trees]
            for w in workers:
                assert w.stdout.readline().strip() == "ready", "a worker failed to start"
            calls = None
            cpu = [[], []]
            for r in range(args.rounds + 1):  # round 0 sizes the bursts and is not kept
                for i in ((0, 1) if r % 2 else (1, 0)):
                    n = calls or 3
                    workers[i].stdin.write("%d\n" % n)
                    workers[i].stdin.flush()
                    c, w = map(float, workers[i].stdout.readline().split())
                    if calls is None:
                        calls = max(2, int(args.ms / 1e3 / (w / n)))
                    elif r:
                        cpu[i].append(c / n * 1e3 / batch)
            for w in workers:
                w.stdin.close()
                w.wait()
            old, new = statistics.median(cpu[0]), statistics.median(cpu[1])
            print("%-8s batch %-3d cpu ms/sample: old %.4f  new %.4f  new/old %.3f  (old %s, new %s)" % (
                model, batch, old, new, new / old, args.trees[0], args.trees[1]), flush=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--models", default="mlp,lenet,resnet20")
    p.add_argument("--rounds", type=int, default=15)
    p.add_argument("--ms", type=float, default=40, help="about this many ms per burst")
    p.add_argument("--trees", nargs=2, metavar=("OLD_ROOT", "NEW_ROOT"),
                   help="time the packed Predictor of two engine builds against each other")
    args = p.parse_args()
    if args.trees:
        return compare_trees(args)
    print("OPENBLAS_CORETYPE=%s" % os.environ.get("OPENBLAS_CORETYPE", "unset"))
    with tempfile.TemporaryDirectory() as workdir:
        for model in args.models.split(","):
            merged, onnx_path = pb.build(model, workdir)
            packed = pb.Paddle(model, merged)
            os.environ["PADDLE_PACKED_GEMM"] = "0"  # read when a Predictor is created
            blas = pb.Paddle(model, merged)
            del os.environ["PADDLE_PACKED_GEMM"]
            packed.name, blas.name = "Predictor packed", "Predictor OpenBLAS"
            engines = [packed, blas]
            if model == "resnet20":  # batch norms folded (the default) or kept
                os.environ["PADDLE_FOLD_BN"] = "0"
                kept = pb.Paddle(model, merged)
                del os.environ["PADDLE_FOLD_BN"]
                kept.name = "Predictor BN kept"
                engines.insert(1, kept)
                os.environ["PADDLE_FUSE_BN"] = "0"  # folded, but run as a pass of its own
                apart = pb.Paddle(model, merged)
                del os.environ["PADDLE_FUSE_BN"]
                apart.name = "Predictor BN unfused"
                engines.insert(1, apart)
            engines += ([pb.OnnxRuntime(model, onnx_path)] if onnx_path else [])
            for batch in (1, 64):
                data = pb.make_inputs(model, batch, seed=batch)
                xs = [e.prepare(data) for e in engines]
                outs = [e(x) for e, x in zip(engines, xs)]
                diff = max(float(abs(o - outs[0]).max()) for o in outs[1:])
                t, _ = timed(engines[0], xs[0], 3)
                calls = max(2, int(args.ms / 1e3 / t))
                wall, cpu = {e.name: [] for e in engines}, {e.name: [] for e in engines}
                for _ in range(args.rounds):
                    for e, x in zip(engines, xs):
                        w, c = timed(e, x, calls)
                        wall[e.name].append(w * 1e3 / batch)
                        cpu[e.name].append(c * 1e3 / batch)
                ref = statistics.median(cpu[engines[-1].name])
                for e in engines:
                    c = statistics.median(cpu[e.name])
                    print("%-8s batch %-3d %-20s cpu %.4f ms/sample (%.2fx of %s)  wall %.4f" % (
                        model, batch, e.name, c, c / ref, engines[-1].name, statistics.median(wall[e.name])))
                print("%-8s batch %-3d largest |output - packed output|: %.2g" % (model, batch, diff), flush=True)


if __name__ == "__main__":
    main()
