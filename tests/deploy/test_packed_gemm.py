"""The Predictor's packed fp32 GEMM (engine/math/GemmPacked.h): a Predictor multiplies by each
weight's packed copy on an AVX-512 CPU, and by OpenBLAS elsewhere or with PADDLE_PACKED_GEMM=0.

- one fc layer per (K, N) shape, fed M rows, equals NumPy's x W + b within fp32 rounding, for
  every edge of the 8 x 32 register tile (M, N around multiples of 8 and 32; 2- and 4-panel
  tiles of 1-4 rows) and of the 1024-deep k blocks of a packed weight (odd K, K = 1024, 1025);
- the bias and a relu the fc layer adds in the product's store (and the other activations after
  it) equal NumPy's over those edges; the fused relu passes a NaN and keeps the unfused zeros;
- with the kernels switched off (PADDLE_PACKED_GEMM=0 when the Predictor is created) it equals
  a training machine's test-mode forward bit for bit; with them on it differs (they ran), by
  at most rtol 1e-5 / atol 1e-6 on the digits MLP;
- the same bits at 1 and 2 engine threads (PADDLE_THREADS), whatever rows a thread computes;
- skipping the zeros of a product's input rows (PADDLE_SKIP_ZEROS) keeps every output bit, for fc
  widths around the row kernel's 256-column blocks (a block, a block and a rest, a last block
  ending inside a panel), depths around its 32-deep k blocks (up to 1024, and past it, where
  nothing is skipped), row counts around its lists of 32 rows, a bias and a relu in the store,
  signed zeros and a NaN in the inputs; it stays within fp32 rounding of NumPy; the digits MLP
  gives the same bits with and without it, at 1 and 2 engine threads.
"""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from paddle.trainer.PyDataProvider2 import dense_vector
from paddle.trainer.config_parser import parse_config
from py_paddle import DataProviderConverter, swig_paddle as api

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CONFIG = """from paddle.trainer_config_helpers import *
settings(batch_size=16, learning_rate=1e-3)
x = data_layer(name='x', size=%(K)d)
%(body)s
"""
ONE_FC = "outputs(fc_layer(input=x, size=%(N)d, act=LinearActivation()))"
MLP = ("h1 = fc_layer(input=x, size=512, act=ReluActivation())\n"
       "h2 = fc_layer(input=h1, size=512, act=ReluActivation())\n"
       "outputs(fc_layer(input=h2, size=10, act=SoftmaxActivation()))")


def has_avx512():
    try:
        with open("/proc/cpuinfo") as f:
            return " avx512f" in f.read()
    except OSError:
        return False


def build(tmp_path, K, body, seed=0, scale=1.0):
    """(merged model path, machine) of a config over x of size K, parameters uniform in
    [-scale, scale]."""
    conf = tmp_path / ("net_%d_%d.py" % (K, seed))
    conf.write_text(CONFIG % {"K": K, "body": body})
    gm = api.GradientMachine.createFromConfigProto(parse_config(str(conf), "").model_config)
    rng = np.random.RandomState(seed)
    for p in gm.getParameters():
        p.getBuf(api.PARAMETER_VALUE).copyFromNumpyArray(rng.uniform(-scale, scale, p.getSize()).astype(np.float32))
    merged = str(tmp_path / ("net_%d_%d.paddle" % (K, seed)))
    gm.saveMergedModel(merged)
    return merged, gm


def rows(x):
    return DataProviderConverter([dense_vector(x.shape[1])])([[r] for r in x])


def predictor(merged, packed=True, monkeypatch=None):
    if packed:
        return api.Predictor.createFromMergedModel(merged)
    monkeypatch.setenv("PADDLE_PACKED_GEMM", "0")  # read when the Predictor is created
    try:
        return api.Predictor.createFromMergedModel(merged)
    finally:
        monkeypatch.delenv("PADDLE_PACKED_GEMM")


def predict(p, x):
    return p.forward(rows(x)).getSlotValue(0).copyToNumpyMat()


# (K, N): panels of 32 columns, whole, short and one past; k blocks (1024 deep) and odd K
SHAPES = [(1, 1), (3, 17), (7, 31), (16, 32), (33, 33), (255, 64), (256, 65), (257, 100), (100, 129), (513, 10),
          (64, 160), (1024, 33), (1025, 47)]
ROWS = [1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 64, 65]


@pytest.mark.parametrize("K,N", SHAPES)
def test_packed_product_equals_numpy(tmp_path, K, N):
    merged, gm = build(tmp_path, K, ONE_FC % {"N": N}, seed=K + N)
    w = list(gm.getParameters())
    weight = [p for p in w if p.getName().endswith(".w0")][0].getBuf(api.PARAMETER_VALUE).copyToNumpyArray()
    bias = [p for p in w if p.getName().endswith(".wbias")][0].getBuf(api.PARAMETER_VALUE).copyToNumpyArray()
    weight = weight.reshape(K, N).astype(np.float64)
    p = predictor(merged)
    rng = np.random.RandomState(K * N)
    for m in ROWS:
        x = rng.uniform(-1, 1, (m, K)).astype(np.float32)
        got = predict(p, x)
        want = x.astype(np.float64) @ weight + bias
        # fp32 sums of K products: within a few units of rounding of sum |x||w| + |b|
        bound = 4 * np.finfo(np.float32).eps * (K + 1) * (np.abs(x) @ np.abs(weight) + np.abs(bias)) + 1e-30
        assert got.shape == (m, N)
        excess = np.abs(got - want) - bound
        assert excess.max() <= 0, "M=%d K=%d N=%d: off by %g past the bound" % (m, K, N, excess.max())


def softmax(z):
    e = np.exp(z - z.max(1, keepdims=True))
    return e / e.sum(1, keepdims=True)


ACTIVATIONS = {  # (NumPy form, Lipschitz bound of each output)
    "Relu": (lambda z: np.maximum(z, 0), 1.0),
    "Sigmoid": (lambda z: 1 / (1 + np.exp(-z)), 0.25),
    "Tanh": (np.tanh, 1.0),
    "Softmax": (softmax, 1.0),
}


@pytest.mark.parametrize("act", sorted(ACTIVATIONS))
@pytest.mark.parametrize("K,N", [(7, 31), (33, 10), (100, 129), (257, 100), (1025, 47)])
def test_bias_and_activation_after_the_packed_product_equal_numpy(tmp_path, act, K, N):
    # the fc layer adds its bias (and a relu) in the product's store: every tile edge and activation
    merged, gm = build(tmp_path, K, "outputs(fc_layer(input=x, size=%d, act=%sActivation()))" % (N, act),
                       seed=K + N)
    w = {p.getName(): p.getBuf(api.PARAMETER_VALUE).copyToNumpyArray() for p in gm.getParameters()}
    weight = next(v for n, v in w.items() if n.endswith(".w0")).reshape(K, N).astype(np.float64)
    bias = next(v for n, v in w.items() if n.endswith(".wbias")).astype(np.float64)
    f, lipschitz = ACTIVATIONS[act]
    p = predictor(merged)
    rng = np.random.RandomState(K + 3 * N)
    for m in (1, 3, 8, 9, 17):
        x = rng.uniform(-1, 1, (m, K)).astype(np.float32)
        got = predict(p, x)
        want = f(x.astype(np.float64) @ weight + bias)
        bound = 4 * np.finfo(np.float32).eps * (K + 1) * (np.abs(x) @ np.abs(weight) + np.abs(bias))
        if act == "Softmax":  # a row's outputs move with all of its inputs
            bound = 2 * bound.max(1, keepdims=True)
        allowed = lipschitz * bound + 8 * np.finfo(np.float32).eps * np.abs(want) + 1e-30
        assert got.shape == (m, N)
        excess = np.abs(got - want) - allowed
        assert excess.max() <= 0, "%s M=%d K=%d N=%d: off by %g past the bound" % (act, m, K, N, excess.max())


def test_fused_relu_passes_nan_and_keeps_the_unfused_zeros(tmp_path, monkeypatch):
    # relu as act::Relu has it (x < 0: 0): a NaN product stays NaN for the non-finite guard
    merged, _ = build(tmp_path, 40, "outputs(fc_layer(input=x, size=70, act=ReluActivation()))", seed=5)
    x = np.random.RandomState(3).uniform(-1, 1, (9, 40)).astype(np.float32)
    x[2, 7] = np.nan
    fused = predict(predictor(merged), x)
    plain = predict(predictor(merged, packed=False, monkeypatch=monkeypatch), x)
    assert np.isnan(fused[2]).all() and not np.isnan(np.delete(fused, 2, 0)).any()
    np.testing.assert_array_equal(fused == 0, plain == 0)
    np.testing.assert_allclose(fused, plain, rtol=1e-5, atol=1e-6)


def test_kernels_off_give_the_training_forward_bits_and_on_stay_within_tolerance(tmp_path, monkeypatch):
    merged, gm = build(tmp_path, 784, MLP, scale=0.05)  # about fan-in scaled, as trained weights are
    x = np.random.RandomState(1).rand(64, 784).astype(np.float32)
    training = gm.forwardTest(rows(x))[0]["value"]
    blas = predict(predictor(merged, packed=False, monkeypatch=monkeypatch), x)
    np.testing.assert_array_equal(blas, training)
    packed = predict(predictor(merged), x)
    np.testing.assert_allclose(packed, training, rtol=1e-5, atol=1e-6)
    if has_avx512():
        assert not np.array_equal(packed, training), "the packed kernels did not run (same bits as OpenBLAS)"
    for m in (1, 5):  # few rows take the wide tiles
        np.testing.assert_allclose(predict(predictor(merged), x[:m]), training[:m], rtol=1e-5, atol=1e-6)


SCRIPT = """
import json, sys
import numpy as np
from paddle.trainer.PyDataProvider2 import dense_vector
from py_paddle import DataProviderConverter, swig_paddle as api
cases, out = json.loads(sys.argv[1]), {}
for name, (model, data) in cases.items():
    x = np.load(data)
    p = api.Predictor.createFromMergedModel(model)
    rows = DataProviderConverter([dense_vector(x.shape[1])])([[r] for r in x])
    out[name] = p.forward(rows).getSlotValue(0).copyToNumpyMat()
np.savez(sys.argv[2], **out)
"""


def run(tmp_path, cases, mode, threads="1"):
    """{case: output} of the Predictor on cases {name: (model, input .npy)} with PADDLE_SKIP_ZEROS=mode."""
    env = dict(os.environ, PADDLE_SKIP_ZEROS=mode, PADDLE_THREADS=threads)
    env.pop("PADDLE_PACKED_GEMM", None)
    path = str(tmp_path / ("out_%s_%s.npz" % (mode, threads)))
    r = subprocess.run([sys.executable, "-c", SCRIPT, json.dumps(cases), path], cwd=ROOT, env=env,
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    with np.load(path) as f:
        return {name: f[name] for name in f.files}


def test_same_bits_at_one_and_two_threads(tmp_path):
    merged, _ = build(tmp_path, 784, scale=0.05, body=MLP.replace("size=10, act=SoftmaxActivation()", "size=100, act=LinearActivation()"))
    np.save(str(tmp_path / "x.npy"), np.random.RandomState(2).rand(64, 784).astype(np.float32))
    cases = {"mlp": (merged, str(tmp_path / "x.npy"))}
    outs = [run(tmp_path, cases, "1", threads)["mlp"] for threads in ("1", "2")]
    np.testing.assert_array_equal(outs[0], outs[1])


# conv layers multiply their filters (a weight, on the left) by the unfolded images as they lie
CONV = ("c = img_conv_layer(input=img, filter_size=3, num_filters=%(F)d, num_channels=%(C)d, stride=%(S)d, "
        "padding=1, act=ReluActivation())\n"
        "outputs(fc_layer(input=c, size=7, act=LinearActivation()))")


@pytest.mark.parametrize("C,F,S,side", [(16, 1, 1, 8), (16, 9, 2, 11), (8, 17, 1, 9), (32, 64, 1, 16), (3, 16, 1, 32)])
def test_conv_products_stay_within_fp32_rounding_of_the_training_forward(tmp_path, monkeypatch, C, F, S, side):
    body = ("img = data_layer(name='x', size=%d, height=%d, width=%d)\n" % (C * side * side, side, side) +
            CONV % {"F": F, "C": C, "S": S}).replace("x = data_layer(name='x', size=%d)\n" % (C * side * side), "")
    conf = tmp_path / "conv.py"
    conf.write_text(CONFIG.replace("x = data_layer(name='x', size=%(K)d)\n", "") % {"K": 0, "body": body})
    gm = api.GradientMachine.createFromConfigProto(parse_config(str(conf), "").model_config)
    rng = np.random.RandomState(F)
    for p in gm.getParameters():
        p.getBuf(api.PARAMETER_VALUE).copyFromNumpyArray(rng.uniform(-0.2, 0.2, p.getSize()).astype(np.float32))
    merged = str(tmp_path / "conv.paddle")
    gm.saveMergedModel(merged)
    on, off = predictor(merged), predictor(merged, packed=False, monkeypatch=monkeypatch)
    for m in (1, 3, 20):
        x = rng.rand(m, C * side * side).astype(np.float32)
        training = gm.forwardTest(rows(x))[0]["value"]
        np.testing.assert_array_equal(predict(off, x), training)
        np.testing.assert_allclose(predict(on, x), training, rtol=1e-5, atol=1e-5)


# ---- Zero skipping: a product by a packed weight skips the zeros of its input rows (an fc layer
# after a relu reads about half zeros). PADDLE_SKIP_ZEROS=0 multiplies every zero, =always skips
# them in every product that can, the default where they are at least 45%. Each mode is read once
# per process, so each runs in a subprocess of its own (run(), above).
FC_ACT = "outputs(fc_layer(input=x, size=%(N)d, act=%(act)sActivation()))"
# (K, N, act): 256-column blocks whole, with a rest of tiles, ending inside a panel; k blocks of 32
SKIP_SHAPES = [(32, 256, "Linear"), (33, 300, "Relu"), (100, 500, "Linear"), (512, 512, "Relu"),
               (784, 522, "Linear"), (1024, 257, "Relu"), (1025, 256, "Linear"), (17, 1000, "Relu")]
SKIP_ROWS = [1, 3, 31, 32, 33, 64, 65]


def mostly_zeros(rng, m, k, share=0.6):
    """m rows of k values in [0, 1), `share` of them zeros (some of those -0.0)."""
    x = rng.rand(m, k).astype(np.float32)
    x[rng.rand(m, k) < share] = 0.0
    x[(x == 0) & (rng.rand(m, k) < 0.2)] = -0.0
    return x


def same_bits(a, b):
    return a.shape == b.shape and np.array_equal(a.view(np.uint32), b.view(np.uint32))


def test_skipping_zeros_keeps_every_bit_around_the_kernel_edges(tmp_path):
    cases, inputs = {}, {}
    for K, N, act in SKIP_SHAPES:
        merged, _ = build(tmp_path, K, FC_ACT % {"N": N, "act": act}, seed=K + N)
        rng = np.random.RandomState(K * N)
        for m in SKIP_ROWS:
            x = mostly_zeros(rng, m, K)
            if m == 33:
                x[5] = rng.rand(K)  # a dense row among sparse ones
                x[7, K // 2] = np.nan
            name = "%d_%d_%d" % (K, N, m)
            inputs[name] = str(tmp_path / (name + ".npy"))
            np.save(inputs[name], x)
            cases[name] = (merged, inputs[name])
    multiplied, skipped, always = (run(tmp_path, cases, mode) for mode in ("0", "1", "always"))
    for name in cases:
        assert same_bits(multiplied[name], skipped[name]), name
        assert same_bits(multiplied[name], always[name]), name
    nan_rows = always["%d_%d_33" % (33, 300)]
    assert np.isnan(nan_rows[7]).all() and not np.isnan(np.delete(nan_rows, 7, 0)).any()


def test_skipped_zeros_stay_within_fp32_rounding_of_numpy(tmp_path):
    K, N = 512, 300
    merged, gm = build(tmp_path, K, FC_ACT % {"N": N, "act": "Relu"}, seed=7)
    params = {p.getName(): p.getBuf(api.PARAMETER_VALUE).copyToNumpyArray() for p in gm.getParameters()}
    weight = next(v for n, v in params.items() if n.endswith(".w0")).reshape(K, N).astype(np.float64)
    bias = next(v for n, v in params.items() if n.endswith(".wbias")).astype(np.float64)
    x = mostly_zeros(np.random.RandomState(8), 40, K, share=0.8)
    np.save(str(tmp_path / "x.npy"), x)
    got = run(tmp_path, {"fc": (merged, str(tmp_path / "x.npy"))}, "always")["fc"]
    want = np.maximum(x.astype(np.float64) @ weight + bias, 0)
    bound = 4 * np.finfo(np.float32).eps * (K + 1) * (np.abs(x) @ np.abs(weight) + np.abs(bias)) + 1e-30
    assert (np.abs(got - want) <= bound).all()


@pytest.mark.parametrize("threads", ["1", "2"])
def test_digits_mlp_same_bits_with_and_without_skipping(tmp_path, threads):
    merged, _ = build(tmp_path, 784, MLP, seed=3, scale=0.05)
    rng = np.random.RandomState(4)
    cases = {}
    for name, x in (("pixels", mostly_zeros(rng, 64, 784, share=0.81)), ("dense", rng.rand(64, 784)),
                    ("one", mostly_zeros(rng, 1, 784, share=0.81))):
        np.save(str(tmp_path / (name + ".npy")), x.astype(np.float32))
        cases[name] = (merged, str(tmp_path / (name + ".npy")))
    multiplied, skipped = run(tmp_path, cases, "0", threads), run(tmp_path, cases, "1", threads)
    for name in cases:
        assert same_bits(multiplied[name], skipped[name]), name
    if threads == "2":
        one_thread = run(tmp_path, cases, "1", "1")
        assert all(same_bits(one_thread[name], skipped[name]) for name in cases)
