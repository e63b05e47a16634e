"""batch_norm and norm/cmrnorm (layers/NormLayers.cpp): finite-difference checks, NumPy values
and batch_norm's moving statistics."""
import numpy as np
import pytest

from netbuilder import Net, forward_values, gradient_check, make_args, rand, sum_cost_net_output
from py_paddle import swig_paddle as api

B = 3


def bn_net(C, pix, fraction=0.9, use_global=None, act=""):
    net = Net()
    x = net.data("x", C * pix)
    ic = {"channels": C, "img_size": pix, "img_size_y": 1}
    fields = {"moving_average_fraction": fraction}
    if use_global is not None:
        fields["use_global_stats"] = use_global
    bn = net.layer_p("bn", "batch_norm", C * pix, [(x, {"image_conf": ic}), x, x],
                     params=[([1, C], {"mean": 1.0, "std": 0.2}),
                             ([1, C], {"std": 0.0, "is_static": True}),
                             ([1, C], {"std": 0.0, "mean": 1.0, "is_static": True})],
                     bias_dims=[1, C], act=act, **fields)
    return net, bn


@pytest.mark.parametrize("C,pix,act", [(3, 4, ""), (4, 1, "tanh"), (2, 7, "")])
def test_batch_norm_gradients_and_train_values(C, pix, act):
    rng = np.random.RandomState(7)
    net, bn = bn_net(C, pix, act=act)
    sum_cost_net_output(net, bn, C * pix)
    gm = net.build()
    slots = [rand(rng, 5, C * pix) * 2 + 1, rand(rng, 5, C * pix)]
    # The input gradient is small (the batch mean is subtracted), so a float32 cost needs a
    # larger step than the default to keep rounding out of the finite difference.
    gradient_check(gm, slots, input_slots=[0], samples=20, eps=1e-2)
    x = slots[0].reshape(5, C, pix).astype(np.float64)
    mu, var = x.mean((0, 2), keepdims=True), x.var((0, 2), keepdims=True)
    w = gm.getParameterByName("_bn.w0").getBuf(0).copyToNumpyArray().reshape(1, C, 1)
    b = gm.getParameterByName("_bn.wbias").getBuf(0).copyToNumpyArray().reshape(1, C, 1)
    want = (w * (x - mu) / np.sqrt(var + 1e-5) + b).reshape(5, -1)
    want = np.tanh(want) if act == "tanh" else want
    np.testing.assert_allclose(forward_values(gm, slots, bn), want, rtol=1e-4, atol=1e-5)


def test_batch_norm_moving_statistics_and_test_pass():
    rng = np.random.RandomState(8)
    C, pix, frac = 2, 3, 0.8
    net, bn = bn_net(C, pix, fraction=frac)
    net.output(bn)
    gm = net.build()
    xs = rand(rng, 6, C * pix) * 3 + 2
    x = xs.reshape(6, C, pix).astype(np.float64)
    mean_p, var_p = gm.getParameterByName("_bn.w1"), gm.getParameterByName("_bn.w2")
    m0 = mean_p.getBuf(0).copyToNumpyArray()
    v0 = var_p.getBuf(0).copyToNumpyArray()
    forward_values(gm, [xs], bn, api.PASS_TRAIN)
    m1 = mean_p.getBuf(0).copyToNumpyArray()
    v1 = var_p.getBuf(0).copyToNumpyArray()
    np.testing.assert_allclose(m1, m0 * frac + x.mean((0, 2)) * (1 - frac), rtol=1e-5)
    np.testing.assert_allclose(v1, v0 * frac + x.var((0, 2)) * (1 - frac), rtol=1e-5)
    # the gradient-check pass does not move the statistics
    forward_values(gm, [xs], bn)
    np.testing.assert_allclose(mean_p.getBuf(0).copyToNumpyArray(), m1)
    # testing uses the moving statistics
    w = gm.getParameterByName("_bn.w0").getBuf(0).copyToNumpyArray().reshape(1, C, 1)
    b = gm.getParameterByName("_bn.wbias").getBuf(0).copyToNumpyArray().reshape(1, C, 1)
    want = (w * (x - m1.reshape(1, C, 1)) / np.sqrt(v1.reshape(1, C, 1) + 1e-5) + b).reshape(6, -1)
    np.testing.assert_allclose(forward_values(gm, [xs], bn, api.PASS_TEST), want, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("use_global", [None, True, False])
def test_batch_norm_use_global_stats_applies_to_testing_only(use_global):
    # v1 (BatchNormalizationLayer::forward): training always normalises with the batch's own
    # statistics; use_global_stats picks moving (None/True) or batch (False) ones at test time.
    rng = np.random.RandomState(9)
    C, pix = 3, 2
    net, bn = bn_net(C, pix, use_global=use_global)
    net.output(bn)
    gm = net.build()
    gm.getParameterByName("_bn.w1").getBuf(0).copyFromNumpyArray(np.array([0.5, -0.2, 0.1], np.float32))
    xs = rand(rng, 4, C * pix) * 2 + 1
    x = xs.reshape(4, C, pix).astype(np.float64)
    w = gm.getParameterByName("_bn.w0").getBuf(0).copyToNumpyArray().reshape(1, C, 1)
    b = gm.getParameterByName("_bn.wbias").getBuf(0).copyToNumpyArray().reshape(1, C, 1)

    def normalised(mean, var):
        return (w * (x - mean) / np.sqrt(var + 1e-5) + b).reshape(4, -1)

    batch = normalised(x.mean((0, 2), keepdims=True), x.var((0, 2), keepdims=True))
    np.testing.assert_allclose(forward_values(gm, [xs], bn, api.PASS_TRAIN), batch, rtol=1e-4, atol=1e-5)
    moving = [gm.getParameterByName(n).getBuf(0).copyToNumpyArray().reshape(1, C, 1) for n in ("_bn.w1", "_bn.w2")]
    want = batch if use_global is False else normalised(*moving)
    np.testing.assert_allclose(forward_values(gm, [xs], bn, api.PASS_TEST), want, rtol=1e-4, atol=1e-5)


def np_cmrnorm(x, C, pix, size, scale, power):
    x = x.reshape(-1, C, pix).astype(np.float64)
    d = np.ones_like(x)
    start = -((size - 1) // 2)
    for c in range(C):
        for s in range(start, start + size):
            if 0 <= c + s < C:
                d[:, c] += scale * x[:, c + s] ** 2
    return (x * d ** (-power)).reshape(x.shape[0], -1)


@pytest.mark.parametrize("C,size,H,W", [(5, 3, 3, 2), (4, 4, 3, 2), (2, 5, 3, 2), (4, 3, 5, 7)])
def test_cmrnorm_gradients_and_values(C, size, H, W):
    rng = np.random.RandomState(10)
    scale, power = 0.3, 0.75
    conf = {"norm_type": "cmrnorm-projection", "channels": C, "size": size, "scale": scale, "pow": power,
            "output_x": W, "img_size": W, "output_y": H, "img_size_y": H, "blocked": False}
    net = Net()
    x = net.data("x", C * H * W)
    n = net.layer_p("n", "norm", C * H * W, [(x, {"norm_conf": conf})])
    sum_cost_net_output(net, n, C * H * W)
    gm = net.build()
    slots = [rand(rng, B, C * H * W), rand(rng, B, C * H * W)]
    # a bigger image: a bigger float32 cost, whose differences need a bigger step
    gradient_check(gm, slots, input_slots=[0], samples=30, eps=1e-3 if H * W <= 16 else 1e-2)
    np.testing.assert_allclose(forward_values(gm, slots, n), np_cmrnorm(slots[0], C, H * W, size, scale, power),
                               rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("strategy", ["z-score", "min-max", "decimal-scaling"])
def test_data_norm_gradients_and_values(strategy):
    rng = np.random.RandomState(10)
    n = 4
    net = Net()
    x = net.data("x", n)
    d = net.layer_p("d", "data_norm", n, [x], params=[([5, n], {"is_static": True})], data_norm_strategy=strategy)
    sum_cost_net_output(net, d, n)
    gm = net.build()
    stats = np.stack([rng.randn(n), rng.uniform(0.5, 2, n), rng.randn(n), rng.uniform(0.5, 2, n),
                      np.full(n, 0.01)]).astype(np.float32)  # min, 1/range, mean, 1/std, 1/10^k
    gm.getParameterByName("_d.w0").getBuf(0).copyFromNumpyArray(stats.reshape(-1))
    slots = [rand(rng, B, n), rand(rng, B, n)]
    gradient_check(gm, slots, input_slots=[0], samples=12)
    shift, scale = {"z-score": (stats[2], stats[3]), "min-max": (stats[0], stats[1]),
                    "decimal-scaling": (0, stats[4])}[strategy]
    np.testing.assert_allclose(forward_values(gm, slots, d), (slots[0] - shift) * scale, rtol=1e-5, atol=1e-6)


def test_data_norm_unknown_strategy_is_a_config_error():
    net = Net()
    x = net.data("x", 3)
    net.output(net.layer_p("d", "data_norm", 3, [x], params=[([5, 3], {"is_static": True})],
                           data_norm_strategy="l2"))
    with pytest.raises(ValueError, match="unknown data_norm_strategy 'l2'"):
        net.build()


BN_TRAINING_CONFIG = """
from paddle.trainer_config_helpers import *
settings(batch_size=16, learning_rate=0.05, learning_method=MomentumOptimizer(0.9),
         regularization=L2Regularization(0.01))
img = data_layer(name='img', size=2 * 6 * 6, height=6, width=6)
conv = img_conv_layer(input=img, num_channels=2, num_filters=3, filter_size=3, padding=1,
                      act=LinearActivation(), bias_attr=False, name='conv')
bn = batch_norm_layer(input=conv, act=ReluActivation(), name='bn',
                      layer_attr=ExtraAttr(drop_rate=0.3))
out = fc_layer(input=bn, size=4, act=SoftmaxActivation())
outputs(classification_cost(input=out, label=data_layer(name='label', size=4)))
"""


def test_batch_norm_test_pass_after_training_matches_numpy(tmp_path):
    """v1's BatchNormalizationLayer through the v1 config language, trained like a demo
    (momentum, L2, dropout after the norm): the test pass normalises with the moving
    averages of every training batch's statistics, m = 0.9 m + 0.1 batch (from 0), leaves
    them alone, and scales the dropped output by 1 - drop_rate."""
    from paddle.trainer.config_parser import parse_config
    path = tmp_path / "bn_conf.py"
    path.write_text(BN_TRAINING_CONFIG)
    conf = parse_config(str(path), "")
    gm = api.GradientMachine.createFromConfigProto(conf.model_config, seed=2)
    updater = api.ParameterUpdater.createLocalUpdater(api.OptimizationConfig.createFromProto(conf.opt_config))
    updater.init(gm)
    rng = np.random.RandomState(5)
    C, P = 3, 36
    mm, mv = np.zeros(C), np.zeros(C)
    out = api.Arguments.createArguments(0)
    gm.start()
    updater.startPass()
    for _ in range(6):
        slots = [rand(rng, 16, 72) * 2 + 0.5, rng.randint(0, 4, 16).astype(np.int32)]
        pass_type = updater.startBatch(16)
        gm.forwardBackward(make_args(slots), out, pass_type)
        conv = gm.getLayerOutput("conv").getSlotValue(0).copyToNumpyMat().reshape(16, C, P).astype(np.float64)
        mm = 0.9 * mm + 0.1 * conv.mean((0, 2))
        mv = 0.9 * mv + 0.1 * conv.var((0, 2))
        for param in gm.getParameters():
            updater.update(param)
        updater.finishBatch(out.sum() / 16)
    value = {p.getName(): p.getBuf(api.PARAMETER_VALUE).copyToNumpyArray() for p in gm.getParameters()}
    np.testing.assert_allclose(value["_bn.w1"], mm, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(value["_bn.w2"], mv, rtol=1e-4, atol=1e-6)
    xs = rand(rng, 5, 72)
    gm.forward(make_args([xs, np.zeros(5, np.int32)]), out, api.PASS_TEST)
    conv = gm.getLayerOutput("conv").getSlotValue(0).copyToNumpyMat().reshape(5, C, P).astype(np.float64)
    w = value["_bn.w0"].reshape(1, C, 1)
    b = value["_bn.wbias"].reshape(1, C, 1)
    want = np.maximum(w * (conv - mm.reshape(1, C, 1)) / np.sqrt(mv.reshape(1, C, 1) + 1e-5) + b, 0) * 0.7
    got = gm.getLayerOutput("bn").getSlotValue(0).copyToNumpyMat()
    np.testing.assert_allclose(got, want.reshape(5, -1), rtol=1e-4, atol=1e-5)
    np.testing.assert_array_equal(gm.getParameterByName("_bn.w1").getBuf(0).copyToNumpyArray(), value["_bn.w1"])
