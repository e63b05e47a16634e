#!/usr/bin/env python3
"""Convolution throughput against the machine's SGEMM rate, measured in the same run.

    python benchmarks/conv_bench.py                 # 1 thread
    python benchmarks/conv_bench.py --threads 2
    python benchmarks/conv_bench.py --layer conv1   # LeNet's first convolution instead

The convolution is LeNet's second one (20 -> 50 channels, 5x5 filters, 12x12 input,
no padding, batch 128), run through the engine's exconv layer: forward, then backward
for the filter gradient and the input gradient. Its FLOPs are those of the three GEMMs
an im2col implementation performs (3 x 2 x filters x (channels*5*5) x 8*8 per sample);
the bias, zeroing gradients and im2col/col2im are overhead that counts against us. The
sum_cost layer that seeds the gradients is timed alone, on an input of the convolution's
output size whose gradient it writes, and taken off (on conv1's 20x24x24 output it takes
longer than the convolution's forward pass). `--layer conv1` times LeNet's first one (1 -> 20 channels over 28x28,
the direct kernels of the AVX-512 engine), which needs no input gradient: two GEMMs' FLOPs.

The SGEMM rate is a 1024^3 float32 GEMM, through NumPy's OpenBLAS and through the
engine's own OpenBLAS (an fc layer's forward pass, whose time is one GEMM). Acceptance
(issue "Layer library on CPU"): conv GFLOP/s >= half the SGEMM GFLOP/s.
"""
import argparse
import json
import os
import statistics
import sys
import time
import glob

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if glob.glob(os.path.join(ROOT, "py_paddle", "_swig_paddle*.so")):  # IN_TREE: engine built in place
    sys.path.insert(0, ROOT)


def best_time(fn, repeats=5, min_s=0.3):
    fn()
    times = []
    for _ in range(repeats):
        n, t0 = 0, time.perf_counter()
        while True:
            fn()
            n += 1
            el = time.perf_counter() - t0
            if el > min_s:
                break
        times.append(el / n)
    return min(times), statistics.median(times)


LAYERS = {"conv2": dict(C=20, F=50, H=12, k=5, input_grad=True),
          "conv1": dict(C=1, F=20, H=28, k=5, input_grad=False)}


def measure(threads, batch=128, C=20, F=50, H=12, k=5, input_grad=True):
    os.environ["OPENBLAS_NUM_THREADS"] = str(threads)
    import numpy as np
    from py_paddle import swig_paddle as api
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "engine"))
    from netbuilder import Net, make_args

    api.initPaddle("--use_gpu=0", "--trainer_count=1")
    rng = np.random.RandomState(0)

    # --- SGEMM, NumPy's OpenBLAS
    n = 1024
    a, b = rng.rand(n, n).astype(np.float32), rng.rand(n, n).astype(np.float32)
    c = np.empty((n, n), np.float32)
    t_np, _ = best_time(lambda: np.matmul(a, b, out=c))
    sgemm_numpy = 2.0 * n ** 3 / t_np / 1e9

    # --- SGEMM, the engine's OpenBLAS: fc forward, no bias, linear
    net = Net()
    x = net.data("x", n)
    net.fc("fc", [(x, n)], n, bias=False)
    net.output("fc")
    gm = net.build()
    args = make_args([a])
    out = api.Arguments.createArguments(0)
    t_fc, _ = best_time(lambda: gm.forward(args, out, api.PASS_TEST))
    sgemm_engine = 2.0 * n ** 3 / t_fc / 1e9

    # --- the convolution
    oh = H - k + 1
    conf = {"filter_size": k, "filter_size_y": k, "channels": C, "stride": 1, "stride_y": 1, "padding": 0,
            "padding_y": 0, "groups": 1, "filter_channels": C, "output_x": oh, "output_y": oh,
            "img_size": H, "img_size_y": H, "caffe_mode": True}
    size = F * oh * oh
    net = Net()
    x = net.data("x", C * H * H)
    net.layer_p("conv", "exconv", size, [(x, {"conv_conf": conf})], params=[([F * C * k * k], {"std": 0.05})],
                bias_dims=[F, 1], num_filters=F, shared_biases=True)
    net.output(net.layer("cost", "sum_cost", 1, ["conv"], coeff=1.0))  # the cheapest way to seed gradients
    gm = net.build()
    gm.setNeedInputGradient(input_grad)  # LeNet's second conv computes its input gradient, the first not
    args = make_args([rng.rand(batch, C * H * H).astype(np.float32)])
    t_fwd, _ = best_time(lambda: gm.forward(args, out, api.PASS_TRAIN))
    t_fb, t_fb_med = best_time(lambda: gm.forwardBackward(args, out, api.PASS_TRAIN))
    # The sum_cost layer alone, on an input of the convolution's output size: what it costs
    # (its sum forward, its gradient of ones backward) is taken off the convolution's times.
    net = Net()
    net.output(net.layer("cost", "sum_cost", 1, [net.data("y", size)], coeff=1.0))
    cost_only = net.build()
    cost_only.setNeedInputGradient(True)  # it writes the whole input gradient, as it does the conv's
    cost_args = make_args([rng.rand(batch, size).astype(np.float32)])
    c_fwd, _ = best_time(lambda: cost_only.forward(cost_args, out, api.PASS_TRAIN))
    c_fb, _ = best_time(lambda: cost_only.forwardBackward(cost_args, out, api.PASS_TRAIN))
    t_fwd, t_fb, t_fb_med = t_fwd - c_fwd, t_fb - c_fb, t_fb_med - c_fb
    gemms = 3 if input_grad else 2
    flops = gemms * 2.0 * F * (C * k * k) * oh * oh * batch
    return {"threads": threads, "sgemm_numpy_gflops": sgemm_numpy, "sgemm_engine_gflops": sgemm_engine,
            "cost_layer_fwd_ms": c_fwd * 1e3, "cost_layer_fwd_bwd_ms": c_fb * 1e3,
            "conv_fwd_ms": t_fwd * 1e3, "conv_fwd_bwd_ms": t_fb * 1e3, "conv_fwd_bwd_ms_median": t_fb_med * 1e3,
            "conv_gflops": flops / t_fb / 1e9, "conv_fwd_gflops": flops / gemms / t_fwd / 1e9}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--layer", choices=sorted(LAYERS), default="conv2", help="LeNet's convolution to time (conv2)")
    p.add_argument("--json", help="also write the result here")
    args = p.parse_args()
    spec = LAYERS[args.layer]
    r = measure(args.threads, **spec)
    sgemm = max(r["sgemm_numpy_gflops"], r["sgemm_engine_gflops"])
    r["ratio_to_sgemm"] = r["conv_gflops"] / sgemm
    print("threads %d" % r["threads"])
    print("SGEMM 1024^3      numpy %.1f GFLOP/s   engine %.1f GFLOP/s" % (r["sgemm_numpy_gflops"],
                                                                           r["sgemm_engine_gflops"]))
    print("conv %d->%d %dx%d %dx%d batch 128: forward %.2f ms (%.1f GFLOP/s), forward+backward %.2f ms "
          "(median %.2f) = %.1f GFLOP/s" % (spec["C"], spec["F"], spec["k"], spec["k"], spec["H"], spec["H"],
                                            r["conv_fwd_ms"], r["conv_fwd_gflops"], r["conv_fwd_bwd_ms"],
                                            r["conv_fwd_bwd_ms_median"], r["conv_gflops"]))
    print("(the sum_cost layer's %.2f ms forward, %.2f ms forward+backward taken off)" % (
        r["cost_layer_fwd_ms"], r["cost_layer_fwd_bwd_ms"]))
    print("conv / SGEMM = %.2f (acceptance >= 0.5)" % r["ratio_to_sgemm"])
    if args.json:
        with open(args.json, "w") as f:
            json.dump(r, f, indent=1)


if __name__ == "__main__":
    main()
