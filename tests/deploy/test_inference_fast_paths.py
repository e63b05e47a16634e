"""Testing-only fast paths give the bits of the general loops they skip.

- batch_norm whose scale and 1/std are exactly 1 (what trainer/FoldBatchNorm.h leaves behind)
  computes act((x - mean) + bias) in one pass: the same bits as w * ((x - mean) * inv) + bias
  evaluated in float32, signed zeros included (no bias: + 0.0 turns -0 into +0), relu and
  linear alike; a scale off 1 still gets the full formula (within fp32 rounding: the compiler
  may fuse its multiply-add);
- addto of two inputs computes act(x0 + x1) in one pass: the bits of x0 + x1, relu'd;
- a Predictor's folded batch norm run inside its conv, and a residual sum (addto) that alone reads
  such a batch norm run there too, give the bits of those layers run on their own;
- a batch run in slices of a few samples gives the bits of the whole batch at once.
"""
import numpy as np
import pytest

from paddle.trainer.PyDataProvider2 import dense_vector
from paddle.trainer.config_parser import parse_config
from py_paddle import DataProviderConverter, swig_paddle as api

C, SIDE = 4, 5
EPS = np.float32(1e-5)
CONFIG = """from paddle.trainer_config_helpers import *
settings(batch_size=8, learning_rate=1e-3)
x = data_layer(name='x', size=%(size)d, height=%(side)d, width=%(side)d)
y = data_layer(name='y', size=%(size)d, height=%(side)d, width=%(side)d)
outputs(batch_norm_layer(name='bn', input=x, num_channels=%(C)d, act=%(act)s, bias_attr=%(bias)s,
                         use_global_stats=True),
        addto_layer(name='sum', input=[x, y], act=%(act)s))
"""


def unit_variance():
    """A variance whose float32 1 / sqrt(v + eps) is exactly 1."""
    v = np.float32(1) - EPS
    assert np.float32(1) / np.sqrt(v + EPS) == np.float32(1)
    return v


def machine(tmp_path, act, bias, scale):
    conf = tmp_path / "bn.py"
    conf.write_text(CONFIG % {"size": C * SIDE * SIDE, "side": SIDE, "C": C, "act": act, "bias": bias})
    gm = api.GradientMachine.createFromConfigProto(parse_config(str(conf), "").model_config)
    rng = np.random.RandomState(3)
    values = {"_bn.w0": scale, "_bn.w1": np.r_[0.0, rng.uniform(-1, 1, C - 1)].astype(np.float32),
              "_bn.w2": np.full(C, unit_variance(), np.float32), "_bn.wbias": rng.uniform(-1, 1, C).astype(np.float32)}
    for p in gm.getParameters():
        p.getBuf(api.PARAMETER_VALUE).copyFromNumpyArray(values[p.getName()])
    return gm, values


def expected_bn(x, values, bias, relu):
    """The general formula, term by term in float32."""
    w, m, v = values["_bn.w0"], values["_bn.w1"], values["_bn.w2"]
    inv = np.float32(1) / np.sqrt(np.maximum(v, np.float32(0)) + EPS)
    b = values["_bn.wbias"] if bias else np.zeros(C, np.float32)
    xs = x.reshape(len(x), C, SIDE * SIDE)
    y = w[:, None] * ((xs - m[:, None]) * inv[:, None]) + b[:, None]
    y = y.reshape(x.shape).astype(np.float32)
    return np.where(y < 0, np.float32(0), y) if relu else y


def inputs(rows, seed):
    rng = np.random.RandomState(seed)
    x = rng.uniform(-2, 2, (rows, C * SIDE * SIDE)).astype(np.float32)
    x[:, :SIDE] = -0.0  # channel 0 has mean 0: -0 - 0 = -0, then + bias (or + 0.0)
    y = rng.uniform(-2, 2, x.shape).astype(np.float32)
    y[0, :3] = [0.0, -0.0, np.nan]
    x[0, :3] = [-0.0, -0.0, 1.0]
    return x, y


@pytest.mark.parametrize("act,relu", [("ReluActivation()", True), ("LinearActivation()", False)])
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("unit_scale", [True, False])
def test_test_mode_fast_paths_give_the_general_bits(tmp_path, act, relu, bias, unit_scale):
    scale = np.ones(C, np.float32) if unit_scale else np.linspace(0.5, 1.5, C).astype(np.float32)
    gm, values = machine(tmp_path, act, bias, scale)
    for rows, seed in ((1, 1), (7, 2), (64, 3)):
        x, y = inputs(rows, seed)
        feed = DataProviderConverter([dense_vector(x.shape[1]), dense_vector(y.shape[1])])(
            [[a, b] for a, b in zip(x, y)])
        bn, total = (o["value"] for o in gm.forwardTest(feed))
        want_bn = expected_bn(x, values, bias, relu)
        if unit_scale:
            np.testing.assert_array_equal(bn.view(np.uint32), want_bn.view(np.uint32))
        else:  # the general loop (the compiler may fuse w * t + b into one rounding)
            np.testing.assert_allclose(bn, want_bn, rtol=1e-6, atol=1e-7)
        s = x + y
        want_sum = np.where(s < 0, np.float32(0), s) if relu else s
        np.testing.assert_array_equal(total.view(np.uint32), want_sum.view(np.uint32))


@pytest.mark.parametrize("packed", [False, True])
def test_batch_norm_fused_into_its_conv_gives_the_same_bits(tmp_path, monkeypatch, packed):
    """A Predictor's folded batch norms run in their convs' store (layers/InferenceFusion.h), and so
    do the model's residual sums r1 and r2 (each alone reads one of them; r3 reads an unfolded one):
    the bits of those layers run on their own (PADDLE_FUSE_BN=0), packed products or OpenBLAS."""
    import test_fold_batch_norm as fold
    merged, _ = fold.build(tmp_path)
    if not packed:
        monkeypatch.setenv("PADDLE_PACKED_GEMM", "0")
    fused = api.Predictor.createFromMergedModel(merged)
    monkeypatch.setenv("PADDLE_FUSE_BN", "0")  # read when a Predictor is created
    apart = api.Predictor.createFromMergedModel(merged)
    monkeypatch.delenv("PADDLE_FUSE_BN")
    unfolded = fold.make(merged, monkeypatch, fold=False, packed=packed)
    for m in (1, 7, 64, 3):
        x = fold.inputs(m, seed=m)
        got, want = fold.predict(fused, x), fold.predict(apart, x)
        np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))
        np.testing.assert_allclose(got, fold.predict(unfolded, x), rtol=fold.RTOL, atol=fold.ATOL)


@pytest.mark.parametrize("slice_rows", [None, "3", "1"])
def test_batch_in_slices_gives_the_whole_batch_bits(tmp_path, monkeypatch, slice_rows):
    """A packed conv net's batch runs in slices of a few samples (trainer/Predictor.cpp
    sliceRowsFor; by default 32 a thread here, the widest layer being 512 values): the bits of the whole
    batch at once (PADDLE_PREDICT_SLICE=0), uneven last slices included."""
    import test_fold_batch_norm as fold
    merged, _ = fold.build(tmp_path)
    if slice_rows is not None:
        monkeypatch.setenv("PADDLE_PREDICT_SLICE", slice_rows)
    sliced = api.Predictor.createFromMergedModel(merged)  # read when it is created
    monkeypatch.setenv("PADDLE_PREDICT_SLICE", "0")
    whole = api.Predictor.createFromMergedModel(merged)
    for m in (1, 7, 64, 70):
        x = fold.inputs(m, seed=m)
        got, want = fold.predict(sliced, x), fold.predict(whole, x)
        assert got.shape == want.shape == (m, 5)
        np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))


WIDE = """from paddle.trainer_config_helpers import *
settings(batch_size=8, learning_rate=1e-3)
img = data_layer(name='x', size=3 * 16 * 16, height=16, width=16)

def conv_bn(name, ipt, nf, act, bias=False, **kw):
    c = img_conv_layer(name=name + '_conv', input=ipt, filter_size=3, num_filters=nf, padding=1,
                       act=LinearActivation(), bias_attr=bias, **kw)
    return batch_norm_layer(name=name + '_bn', input=c, act=act)

a = conv_bn('a', img, 8, ReluActivation(), num_channels=3)
b = conv_bn('b', a, 8, LinearActivation())
r1 = addto_layer(input=[a, b], act=ReluActivation())
c = conv_bn('c', r1, 8, ReluActivation(), bias=True)  # its own bias: added before the epilogue
r2 = addto_layer(input=[c, r1], act=LinearActivation())
outputs(fc_layer(name='out', input=r2, size=5, act=LinearActivation()))
"""


def test_fusion_on_the_padded_image_path_gives_the_same_bits(tmp_path, monkeypatch):
    """16 outputs a row: the packed convs read the padded image in place, then the fused batch norm
    and residual sum finish each sample (one conv with a bias of its own): the bits of the layers
    apart."""
    conf = tmp_path / "wide.py"
    conf.write_text(WIDE)
    gm = api.GradientMachine.createFromConfigProto(parse_config(str(conf), "").model_config)
    rng = np.random.RandomState(5)
    for p in gm.getParameters():
        n = p.getSize()
        v = rng.uniform(0.2, 3.0, n) if p.getName().endswith(".w2") else rng.uniform(-0.5, 0.5, n)
        p.getBuf(api.PARAMETER_VALUE).copyFromNumpyArray(v.astype(np.float32))
    merged = str(tmp_path / "wide.paddle")
    gm.saveMergedModel(merged)
    fused = api.Predictor.createFromMergedModel(merged)
    monkeypatch.setenv("PADDLE_FUSE_BN", "0")
    apart = api.Predictor.createFromMergedModel(merged)
    for m in (1, 9):
        x = np.random.RandomState(m).uniform(-1, 1, (m, 3 * 16 * 16)).astype(np.float32)
        feed = DataProviderConverter([dense_vector(x.shape[1])])([[r] for r in x])
        got = fused.forward(feed).getSlotValue(0).copyToNumpyMat()
        want = apart.forward(feed).getSlotValue(0).copyToNumpyMat()
        np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))
        assert np.abs(got).max() > 0


POOL = """from paddle.trainer_config_helpers import *
settings(batch_size=8, learning_rate=1e-3)
x = data_layer(name='x', size=%(C)d * %(side)d * %(side)d, height=%(side)d, width=%(side)d)
outputs(img_pool_layer(input=x, num_channels=%(C)d, pool_size=%(side)d, stride=1, pool_type=AvgPooling()))
"""


@pytest.mark.parametrize("channels,side", [(64, 8), (11, 5)])
def test_global_average_pool_gives_the_window_order_sums(tmp_path, channels, side):
    """A Predictor's average pool with one window an image (layers/PoolLayers.cpp, several channels'
    sums side by side) sums each channel in the window's row-major order, then divides by its area:
    the bits of those float32 sums taken one by one (channel counts a multiple of 8 and not)."""
    conf = tmp_path / "pool.py"
    conf.write_text(POOL % {"C": channels, "side": side})
    gm = api.GradientMachine.createFromConfigProto(parse_config(str(conf), "").model_config)
    merged = str(tmp_path / "pool.paddle")
    gm.saveMergedModel(merged)
    predictor = api.Predictor.createFromMergedModel(merged)
    for m in (1, 5, 64):
        x = np.random.RandomState(m).uniform(-1, 1, (m, channels * side * side)).astype(np.float32)
        x[0, :side * side] = -0.0  # an all -0 channel: 0 + -0 = +0
        feed = DataProviderConverter([dense_vector(x.shape[1])])([[r] for r in x])
        got = predictor.forward(feed).getSlotValue(0).copyToNumpyMat()
        sums = np.zeros((m, channels), np.float32)
        for p in range(side * side):
            sums = (sums + x.reshape(m, channels, side * side)[:, :, p]).astype(np.float32)
        want = (sums / np.float32(side * side)).astype(np.float32)
        assert got.shape == want.shape
        np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))
        training = gm.forwardTest(feed)[0]["value"]
        np.testing.assert_array_equal(training.view(np.uint32), want.view(np.uint32))
