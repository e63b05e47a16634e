"""A Predictor folds batch norms into the conv/fc layer they alone read (trainer/FoldBatchNorm.h).

- on a ResNet-like model (conv-bn blocks with and without a conv bias, a 1x1 projection, an
  fc + batch norm, a batch norm without bias, and a conv whose output two layers read, which
  must not fold), folded outputs stay within rtol 1e-4 / atol 1e-5 of the unfolded ones and
  differ from them (the folding ran);
- with PADDLE_FOLD_BN=0 and PADDLE_PACKED_GEMM=0 the Predictor equals a training machine's
  test-mode forward bit for bit;
- a batch norm that normalises with batch statistics in testing (use_global_stats=False) is
  not folded: its outputs stay the training machine's.
"""
import numpy as np
import pytest

from paddle.trainer.PyDataProvider2 import dense_vector
from paddle.trainer.config_parser import parse_config
from py_paddle import DataProviderConverter, swig_paddle as api

C, SIDE = 3, 8
# folded outputs against unfolded: fp32 rounding of scaled weights, carried through 8 layers
RTOL, ATOL = 1e-4, 1e-5
CONFIG = """from paddle.trainer_config_helpers import *
settings(batch_size=16, learning_rate=1e-3)
img = data_layer(name='x', size=%(size)d, height=%(side)d, width=%(side)d)

def conv_bn(name, ipt, fs, nf, stride, pad, act, bias=False, bn_bias=None, **kw):
    c = img_conv_layer(name=name + '_conv', input=ipt, filter_size=fs, num_filters=nf, stride=stride,
                       padding=pad, act=LinearActivation(), bias_attr=bias, **kw)
    return batch_norm_layer(name=name + '_bn', input=c, act=act, bias_attr=bn_bias, %(bn_kw)s)

a = conv_bn('a', img, 3, 8, 1, 1, ReluActivation(), num_channels=%(C)d)
b = conv_bn('b', a, 3, 8, 1, 1, LinearActivation(), bias=True)
r1 = addto_layer(input=[a, b], act=ReluActivation())
p = conv_bn('p', r1, 1, 16, 2, 0, LinearActivation(), bn_bias=False)
c = conv_bn('c', r1, 3, 16, 2, 1, ReluActivation(), bias=ParamAttr(initial_std=0.1), shared_biases=False)
r2 = addto_layer(input=[p, c], act=ReluActivation())
# read by the batch norm and by the sum: stays as it is
shared = img_conv_layer(name='shared_conv', input=r2, filter_size=3, num_filters=16, padding=1,
                        act=LinearActivation())
sbn = batch_norm_layer(name='shared_bn', input=shared, act=ReluActivation(), %(bn_kw)s)
r3 = addto_layer(input=[sbn, shared], act=LinearActivation())
f = fc_layer(name='f', input=r3, size=12, act=LinearActivation())
fbn = batch_norm_layer(name='f_bn', input=f, act=TanhActivation(), %(bn_kw)s)
outputs(fc_layer(name='out', input=fbn, size=5, act=LinearActivation()))  # linear: differences show
"""


def build(tmp_path, bn_kw="", seed=0):
    conf = tmp_path / "resnetish.py"
    conf.write_text(CONFIG % {"size": C * SIDE * SIDE, "side": SIDE, "C": C, "bn_kw": bn_kw})
    gm = api.GradientMachine.createFromConfigProto(parse_config(str(conf), "").model_config)
    rng = np.random.RandomState(seed)
    for p in gm.getParameters():
        name, n = p.getName(), p.getSize()
        if name.endswith("_bn.w2"):  # moving variances, positive
            v = rng.uniform(0.2, 3.0, n)
        elif name.endswith("_bn.w1"):  # moving means, off zero as after training
            v = rng.uniform(-1.0, 1.0, n)
        elif name.endswith("_bn.w0"):
            v = rng.uniform(0.5, 2.0, n)
        else:
            v = rng.uniform(-0.3, 0.3, n)
        p.getBuf(api.PARAMETER_VALUE).copyFromNumpyArray(v.astype(np.float32))
    merged = str(tmp_path / "resnetish.paddle")
    gm.saveMergedModel(merged)
    return merged, gm


def make(merged, monkeypatch, fold=True, packed=True):
    if not fold:
        monkeypatch.setenv("PADDLE_FOLD_BN", "0")
    if not packed:
        monkeypatch.setenv("PADDLE_PACKED_GEMM", "0")
    try:
        return api.Predictor.createFromMergedModel(merged)  # both read when it is created
    finally:
        monkeypatch.delenv("PADDLE_FOLD_BN", raising=False)
        monkeypatch.delenv("PADDLE_PACKED_GEMM", raising=False)


def rows(x):
    return DataProviderConverter([dense_vector(x.shape[1])])([[r] for r in x])


def predict(p, x):
    return p.forward(rows(x)).getSlotValue(0).copyToNumpyMat()


def inputs(m, seed=1):
    return np.random.RandomState(seed).uniform(-1, 1, (m, C * SIDE * SIDE)).astype(np.float32)


@pytest.mark.parametrize("packed", [False, True])
def test_folded_outputs_stay_within_the_stated_tolerance_of_unfolded(tmp_path, monkeypatch, packed):
    merged, gm = build(tmp_path)
    folded = make(merged, monkeypatch, packed=packed)
    unfolded = make(merged, monkeypatch, fold=False, packed=packed)
    differ = False
    for m in (1, 7, 64):
        x = inputs(m, seed=m)
        got, want = predict(folded, x), predict(unfolded, x)
        np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL)
        differ = differ or not np.array_equal(got, want)
    assert differ, "nothing was folded (same bits as unfolded)"


def test_folding_off_with_openblas_gives_the_training_forward_bits(tmp_path, monkeypatch):
    merged, gm = build(tmp_path)
    x = inputs(20)
    training = gm.forwardTest(rows(x))[0]["value"]
    np.testing.assert_array_equal(predict(make(merged, monkeypatch, fold=False, packed=False), x), training)
    np.testing.assert_allclose(predict(make(merged, monkeypatch, packed=False), x), training, rtol=RTOL, atol=ATOL)


def test_batch_norm_on_batch_statistics_is_not_folded(tmp_path, monkeypatch):
    merged, gm = build(tmp_path, bn_kw="use_global_stats=False")
    x = inputs(16)
    training = gm.forwardTest(rows(x))[0]["value"]
    np.testing.assert_array_equal(predict(make(merged, monkeypatch, packed=False), x), training)
