"""A Predictor's conv layers (layers/ConvLayers.cpp forwardConvPacked, layers/ImageUtils.h
im2colRows): with the filters packed, each sample is unfolded on its own and multiplied straight
into its output rows (bias and relu added there); im2col runs 16 outputs a register at column
strides 1 and 2 and by plain loops above. Stride-1 convs with rows of 8 or a multiple of 16 outputs
read each image where it lies (engine/math/GemmPacked.h gemmImageRows): rows of 8 from a padded
copy, rows of a multiple of 16 unpadded, under masks.

For geometries that reach every branch (rows wider than 16 outputs with a partial last chunk,
column stride 2 with padding on both sides, stride 3, a 1x1 stride-2 projection, shared and
per-output biases, relu fused or a linear activation), the training forward,
the OpenBLAS Predictor and the packed Predictor all stay within fp32 rounding of a float64
NumPy convolution, and the OpenBLAS Predictor equals the training forward bit for bit. The
packed Predictor gives the same bits at 1 and 2 engine threads.
"""
import os
import subprocess
import sys

import numpy as np
import pytest

from paddle.trainer.PyDataProvider2 import dense_vector
from paddle.trainer.config_parser import parse_config
from py_paddle import DataProviderConverter, swig_paddle as api

CONFIG = """from paddle.trainer_config_helpers import *
settings(batch_size=16, learning_rate=1e-3)
img = data_layer(name='x', size=%(size)d, height=%(side)d, width=%(side)d)
c = img_conv_layer(name='c', input=img, filter_size=%(fs)d, num_filters=%(F)d, num_channels=%(C)d,
                   stride=%(S)d, padding=%(P)d, act=%(act)s, bias_attr=%(bias)s, shared_biases=%(shared)s)
outputs(c)
"""
# C, side, filter, stride, padding, filters, activation, bias, shared biases
GEOMETRIES = [
    (8, 33, 3, 1, 1, 16, "ReluActivation()", "False", "True"),  # 33 outputs a row: 16 + 16 + 1 lanes
    # stride 1, at least 16 outputs a row: the packed Predictor reads a padded copy where it lies
    (3, 32, 3, 1, 1, 9, "LinearActivation()", "True", "False"),  # per-output bias, 9 filters (8 + 1 rows)
    (2, 34, 5, 1, 2, 10, "ReluActivation()", "True", "True"),  # 5 x 5 taps, padding 2
    (40, 32, 3, 1, 1, 4, "ReluActivation()", "False", "True"),  # K = 360: two k blocks of 256
    (16, 16, 3, 1, 1, 32, "ReluActivation()", "False", "True"),  # 16 a row (ResNet-20's middle stage)
    (5, 20, 5, 1, 2, 9, "LinearActivation()", "True", "True"),  # 20 a row, 5 x 5 taps
    (3, 35, 3, 2, 1, 9, "ReluActivation()", "True", "True"),  # stride 2, 18 outputs: 16 + 2, padding left
    (4, 20, 5, 2, 2, 7, "LinearActivation()", "True", "False"),  # stride 2, 5 taps, per-output bias
    (8, 32, 1, 2, 0, 16, "LinearActivation()", "False", "True"),  # ResNet's 1x1 stride-2 projection
    (5, 19, 3, 3, 1, 6, "ReluActivation()", "True", "True"),  # stride 3: the plain loops
    (16, 8, 3, 1, 1, 32, "ReluActivation()", "False", "True"),  # 8x8 rows (two a vector), K = 144
    # rows of 8 or a multiple of 16 read in place with no extra columns: tiles of 1-4 panels
    (6, 8, 3, 1, 1, 3, "LinearActivation()", "True", "False"),  # rows of 8, 3 filters: 2-panel tiles
    (3, 48, 3, 1, 1, 10, "ReluActivation()", "True", "True"),  # 48 a row: vectors across output rows
    (2, 16, 3, 1, 1, 2, "ReluActivation()", "True", "True"),  # 2 filters: 4-panel tiles
    # rows of a multiple of 16 read the image unpadded under masks: padding 2, and none
    (3, 32, 5, 1, 2, 8, "ReluActivation()", "True", "True"),
    (4, 18, 3, 1, 0, 8, "LinearActivation()", "True", "False"),
]


def reference(x, w, C, side, fs, S, P, F):
    """float64 conv of x [B, C*side*side] by w [F, C, fs, fs] (no bias)."""
    o = (side + 2 * P - fs) // S + 1
    xi = np.pad(x.reshape(-1, C, side, side).astype(np.float64), ((0, 0), (0, 0), (P, P), (P, P)))
    wf = w.reshape(F, C, fs, fs).astype(np.float64)
    out = np.zeros((x.shape[0], F, o, o))
    for i in range(fs):
        for j in range(fs):
            patch = xi[:, :, i:i + S * (o - 1) + 1:S, j:j + S * (o - 1) + 1:S]  # [B, C, o, o]
            out += np.einsum("bcyx,fc->bfyx", patch, wf[:, :, i, j])
    return out.reshape(x.shape[0], -1), o


def rows(x):
    return DataProviderConverter([dense_vector(x.shape[1])])([[r] for r in x])


def make(merged, monkeypatch, packed):
    if not packed:
        monkeypatch.setenv("PADDLE_PACKED_GEMM", "0")
    try:
        return api.Predictor.createFromMergedModel(merged)
    finally:
        monkeypatch.delenv("PADDLE_PACKED_GEMM", raising=False)


@pytest.mark.parametrize("C,side,fs,S,P,F,act,bias,shared", GEOMETRIES)
def test_conv_forward_matches_numpy_in_training_and_both_predictors(tmp_path, monkeypatch, C, side, fs, S, P, F, act,
                                                                    bias, shared):
    g = {"size": C * side * side, "side": side, "fs": fs, "F": F, "C": C, "S": S, "P": P, "act": act, "bias": bias,
         "shared": shared}
    conf = tmp_path / "conv.py"
    conf.write_text(CONFIG % g)
    gm = api.GradientMachine.createFromConfigProto(parse_config(str(conf), "").model_config)
    rng = np.random.RandomState(C * side + fs)
    params = {}
    for p in gm.getParameters():
        v = rng.uniform(-0.3, 0.3, p.getSize()).astype(np.float32)
        p.getBuf(api.PARAMETER_VALUE).copyFromNumpyArray(v)
        params[p.getName()] = v
    merged = str(tmp_path / "conv.paddle")
    gm.saveMergedModel(merged)
    packed, blas = make(merged, monkeypatch, True), make(merged, monkeypatch, False)
    for m in (1, 1, 3, 3):  # a second call of a shape reuses the padded copy, its padding zeroed once
        x = rng.uniform(-1, 1, (m, C * side * side)).astype(np.float32)
        want, o = reference(x, params["_c.w0"], C, side, fs, S, P, F)
        if bias == "True":
            b = params["_c.wbias"]
            want = want + (b.repeat(o * o) if shared == "True" else b)
        if act.startswith("Relu"):
            want = np.maximum(want, 0)
        bound = C * fs * fs + 1
        training = gm.forwardTest(rows(x))[0]["value"]
        tol = 4 * np.finfo(np.float32).eps * bound  # sums of `bound` products of values below 1
        for got in (training, predict(blas, x), predict(packed, x)):
            assert got.shape == want.shape
            assert np.abs(got - want).max() <= tol
        np.testing.assert_array_equal(predict(blas, x), training)


def predict(p, x):
    return p.forward(rows(x)).getSlotValue(0).copyToNumpyMat()


SCRIPT = """
import sys
import numpy as np
from paddle.trainer.PyDataProvider2 import dense_vector
from py_paddle import DataProviderConverter, swig_paddle as api
x = np.random.RandomState(3).uniform(-1, 1, (int(sys.argv[3]), 3 * 8 * 8)).astype(np.float32)
feed = DataProviderConverter([dense_vector(x.shape[1])])([[r] for r in x])
outs = []
for _ in range(2):  # two Predictors, each called twice
    p = api.Predictor.createFromMergedModel(sys.argv[1])
    outs += [p.forward(feed).getSlotValue(0).copyToNumpyMat() for _ in range(2)]
np.save(sys.argv[2], np.stack(outs))
"""


@pytest.mark.parametrize("batch", [1, 5, 64])
def test_same_bits_at_one_and_two_threads(tmp_path, batch):
    """Threads take samples (several) or a product's columns (one): the same bits either way (64: the
    samples a pool thread takes run the packed kernels too, not OpenBLAS)."""
    from test_fold_batch_norm import build  # its ResNet-like model (conv-bn blocks, strides 1 and 2)
    merged, _ = build(tmp_path)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    outs = []
    for threads in ("1", "2"):
        env = dict(os.environ, PADDLE_THREADS=threads)
        env.pop("PADDLE_PACKED_GEMM", None)
        path = str(tmp_path / ("out%s.npy" % threads))
        r = subprocess.run([sys.executable, "-c", SCRIPT, merged, path, str(batch)], cwd=root, env=env,
                           capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr[-3000:]
        runs = np.load(path)
        for run in runs[1:]:  # the same bits call after call
            np.testing.assert_array_equal(run, runs[0])
        outs.append(runs[0])
    np.testing.assert_array_equal(outs[0], outs[1])
