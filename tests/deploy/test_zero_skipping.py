"""A Predictor's products by a packed weight skip the zeros of their input rows (GemmPacked.cpp):
an fc layer after a relu reads about half zeros, and each row of the product adds only the weight
rows where its input is nonzero. PADDLE_SKIP_ZEROS=0 multiplies every zero, =always skips them in
every product that can (whatever their share), the default where they are at least 45%.

- the same output bits in all three modes, for fc layers of every width around the kernel's
  256-column blocks (a block, a block and a rest, a last block ending inside a panel), input
  depths around its 32-deep k blocks (up to the 1024 of one packed k block, and past it, where
  nothing is skipped), row counts around its lists of 32 rows, with a bias and a relu applied
  as the rows are stored, signed zeros and a NaN in the inputs;
- the digits MLP (relu hidden layers) gives the same bits with and without skipping, at 1 and 2
  engine threads;
- within fp32 rounding of NumPy's product where rows are mostly zeros.
Each mode is read once per process, so each runs in a subprocess of its own.
"""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from paddle.trainer.config_parser import parse_config
from py_paddle import swig_paddle as api

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CONFIG = """from paddle.trainer_config_helpers import *
settings(batch_size=16, learning_rate=1e-3)
x = data_layer(name='x', size=%(K)d)
%(body)s
"""
ONE_FC = "outputs(fc_layer(input=x, size=%(N)d, act=%(act)sActivation()))"
MLP = ("h1 = fc_layer(input=x, size=512, act=ReluActivation())\n"
       "h2 = fc_layer(input=h1, size=512, act=ReluActivation())\n"
       "outputs(fc_layer(input=h2, size=10, act=SoftmaxActivation()))")
# (K, N, act): 256-column blocks whole, with a rest of tiles, ending inside a panel; k blocks of 32
SHAPES = [(32, 256, "Linear"), (33, 300, "Relu"), (100, 500, "Linear"), (512, 512, "Relu"), (784, 522, "Linear"),
          (1024, 257, "Relu"), (1025, 256, "Linear"), (17, 1000, "Relu")]
ROWS = [1, 3, 31, 32, 33, 64, 65]

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


def build(tmp_path, K, body, seed, scale=1.0):
    """(merged model, parameters by name) of a config over x of size K, values uniform in [-scale, scale]."""
    conf = tmp_path / ("net_%d_%d.py" % (K, seed))
    conf.write_text(CONFIG % {"K": K, "body": body})
    gm = api.GradientMachine.createFromConfigProto(parse_config(str(conf), "").model_config)
    rng = np.random.RandomState(seed)
    params = {}
    for p in gm.getParameters():
        value = rng.uniform(-scale, scale, p.getSize()).astype(np.float32)
        p.getBuf(api.PARAMETER_VALUE).copyFromNumpyArray(value)
        params[p.getName()] = value
    merged = str(tmp_path / ("net_%d_%d.paddle" % (K, seed)))
    gm.saveMergedModel(merged)
    return merged, params


def mostly_zeros(rng, m, k, share=0.6):
    """m rows of k values in [0, 1), `share` of them zeros (some of those -0.0)."""
    x = rng.rand(m, k).astype(np.float32)
    x[rng.rand(m, k) < share] = 0.0
    x[(x == 0) & (rng.rand(m, k) < 0.2)] = -0.0
    return x


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


def same_bits(a, b):
    return a.shape == b.shape and np.array_equal(a.view(np.uint32), b.view(np.uint32))


def test_skipping_zeros_keeps_every_bit_around_the_kernel_edges(tmp_path):
    cases, inputs = {}, {}
    for K, N, act in SHAPES:
        merged, _ = build(tmp_path, K, ONE_FC % {"N": N, "act": act}, seed=K + N)
        rng = np.random.RandomState(K * N)
        for m in ROWS:
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
    merged, params = build(tmp_path, K, ONE_FC % {"N": N, "act": "Relu"}, seed=7)
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
