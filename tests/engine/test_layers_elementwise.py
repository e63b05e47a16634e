"""Element-wise / per-sample layers: table-driven finite-difference checks of every input
(and the tensor layer's weight and bias) and forward values against NumPy."""
import numpy as np
import pytest

from netbuilder import Net, forward_values, gradient_check, make_args, sum_cost_net_output
from py_paddle import swig_paddle as api

B = 5


def cos(a, b):
    return (a * b).sum(-1) / np.sqrt((a * a).sum(-1) * (b * b).sum(-1))


def conv_shift(a, k):
    n, half = a.shape[1], (k.shape[1] - 1) // 2
    return np.stack([sum(a[:, (j + s) % n] * k[:, s + half] for s in range(-half, half + 1)) for j in range(n)], 1)


# type, input sizes, layer size, extra layer fields, input generator kind, numpy reference
CASES = [
    ("slope_intercept", [4], 4, {"slope": 1.5, "intercept": -0.3}, "normal", lambda x: 1.5 * x - 0.3),
    ("scaling", [1, 4], 4, {}, "normal", lambda w, x: w * x),
    ("scaling", [1, 37], 37, {}, "normal", lambda w, x: w * x),  # the weight's gradient: 2 x 16 lanes + 5
    ("power", [1, 4], 4, {}, "positive", lambda w, x: x ** w),
    ("interpolation", [1, 4, 4], 4, {}, "normal", lambda w, a, b: w * a + (1 - w) * b),
    ("cos", [4, 4], 1, {"cos_scale": 3.0}, "normal", lambda a, b: 3 * cos(a, b)[:, None]),
    ("cos_vm", [4, 12], 3, {"cos_scale": 2.0}, "normal",
     lambda a, b: 2 * cos(a[:, None, :], b.reshape(B, 3, 4))),
    ("sum_to_one_norm", [4], 4, {}, "positive", lambda x: x / x.sum(1, keepdims=True)),
    ("out_prod", [3, 4], 12, {}, "normal", lambda a, b: (a[:, :, None] * b[:, None, :]).reshape(B, -1)),
    ("convex_comb", [3, 12], 4, {}, "normal", lambda w, v: np.einsum("ni,nij->nj", w, v.reshape(B, 3, 4))),
    ("linear_comb", [2, 10], 5, {}, "normal", lambda w, v: np.einsum("ni,nij->nj", w, v.reshape(B, 2, 5))),
    ("conv_shift", [6, 3], 6, {}, "normal", conv_shift),
    ("featmap_expand", [4], 12, {"num_filters": 3}, "normal", lambda x: np.tile(x, 3)),
]


def make_inputs(rng, sizes, kind, rows=B):
    if kind == "positive":
        return [rng.uniform(0.5, 2.0, (rows, s)).astype(np.float32) for s in sizes]
    return [rng.randn(rows, s).astype(np.float32) for s in sizes]


@pytest.mark.parametrize("type_,sizes,size,fields,kind,ref", CASES, ids=[c[0] for c in CASES])
def test_elementwise_gradients_and_values(type_, sizes, size, fields, kind, ref):
    rng = np.random.RandomState(1)
    net = Net()
    names = [net.data("in%d" % i, s) for i, s in enumerate(sizes)]
    lay = net.layer("L", type_, size, names, **fields)
    sum_cost_net_output(net, lay, size)
    gm = net.build()
    xs = make_inputs(rng, sizes, kind)
    slots = xs + [rng.randn(B, size).astype(np.float32)]
    gradient_check(gm, slots, input_slots=list(range(len(sizes))), samples=15)
    want = ref(*[x.astype(np.float64) for x in xs])
    np.testing.assert_allclose(forward_values(gm, slots, lay), want, rtol=1e-4, atol=1e-5)


def test_clip_gradients_and_values():
    rng = np.random.RandomState(4)
    net = Net()
    x = net.data("x", 6)
    lay = net.layer_p("L", "clip", 6, [(x, {"clip_conf": {"min": -0.5, "max": 0.7}})])
    sum_cost_net_output(net, lay, 6)
    gm = net.build()
    xs = rng.randn(B, 6).astype(np.float32)
    xs[np.abs(xs + 0.5) < 0.05] += 0.1  # keep finite differences off the kinks
    xs[np.abs(xs - 0.7) < 0.05] += 0.1
    slots = [xs, rng.randn(B, 6).astype(np.float32)]
    gradient_check(gm, slots, input_slots=[0], samples=20)
    np.testing.assert_allclose(forward_values(gm, slots, lay), np.clip(xs, -0.5, 0.7))


def test_trans_gradients_and_values():
    rng = np.random.RandomState(2)
    net = Net()
    x = net.data("x", 3)
    t = net.layer("t", "trans", 3, [x])
    t2 = net.layer("t2", "trans", 3, [t], active_type="tanh")  # back to [B, 3]
    sum_cost_net_output(net, t2, 3)
    gm = net.build()
    slots = [rng.randn(B, 3).astype(np.float32), rng.randn(B, 3).astype(np.float32)]
    gradient_check(gm, slots, input_slots=[0])
    np.testing.assert_allclose(forward_values(gm, slots, t), slots[0].T)


@pytest.mark.parametrize("bias", [False, True])
def test_tensor_gradients_and_values(bias):
    rng = np.random.RandomState(3)
    net = Net()
    a = net.data("a", 3)
    b = net.data("b", 4)
    t = net.layer_p("t", "tensor", 2, [a, b], params=[[3, 4, 2]], bias_dims=[1, 2] if bias else None, act="tanh")
    sum_cost_net_output(net, t, 2)
    gm = net.build()
    slots = [rng.randn(B, 3).astype(np.float32), rng.randn(B, 4).astype(np.float32), rng.randn(B, 2).astype(np.float32)]
    gradient_check(gm, slots, input_slots=[0, 1], samples=24)
    W = gm.getParameterByName("_t.w0").getBuf(0).copyToNumpyArray().reshape(2, 3, 4)  # k-major blocks
    want = np.einsum("ni,kij,nj->nk", slots[0], W, slots[1])
    if bias:
        want += gm.getParameterByName("_t.wbias").getBuf(0).copyToNumpyArray()
    np.testing.assert_allclose(forward_values(gm, slots, t), np.tanh(want), rtol=1e-4, atol=1e-5)


def test_maxid_and_sampling_id():
    rng = np.random.RandomState(4)
    net = Net()
    x = net.data("x", 5)
    m = net.layer("m", "maxid", 5, [x])
    s = net.layer("s", "sampling_id", 5, [x])
    net.output(m, s)
    gm = net.build()
    xs = rng.uniform(0, 1, (400, 5)).astype(np.float32)
    xs[:, 2] += 1.0  # column 2 dominates: maxid is 2, sampling picks it ~ (1+0.5)/(2.5+1) of the time
    out = api.Arguments.createArguments(0)
    gm.forward(make_args([xs]), out, api.PASS_TEST)
    ids = gm.getLayerOutput(m).getSlotIds(0).copyToNumpyArray()
    np.testing.assert_array_equal(ids, xs.argmax(1))
    np.testing.assert_allclose(forward_values(gm, [xs], m, api.PASS_TEST)[:, 0], xs.max(1))
    sampled = gm.getLayerOutput(s).getSlotIds(0).copyToNumpyArray()
    assert sampled.min() >= 0 and sampled.max() < 5
    p = xs / xs.sum(1, keepdims=True)
    assert abs((sampled == 2).mean() - p[:, 2].mean()) < 0.08


def test_data_checks_name_the_first_bad_sample():
    net = Net()
    x = net.data("x", 3)
    net.output(net.layer("n", "sum_to_one_norm", 3, [x]))
    gm = net.build()
    with pytest.raises(ValueError, match="sample 1 sums to 0"):
        forward_values(gm, [np.array([[1, 2, 3], [1, -1, 0], [0, 0, 0]], np.float32)], "n")
    net = Net()
    x = net.data("x", 3)
    net.output(net.layer("s", "sampling_id", 3, [x]))
    gm = net.build()
    with pytest.raises(ValueError, match="sample 1 has a negative probability"):
        forward_values(gm, [np.array([[1, 2, 3], [1, -1, 3], [0, 0, 0]], np.float32)], "s", api.PASS_TEST)
    with pytest.raises(ValueError, match="sample 2 has no probability mass"):
        forward_values(gm, [np.array([[1, 2, 3], [1, 1, 3], [0, 0, 0]], np.float32)], "s", api.PASS_TEST)


def test_elementwise_config_errors():
    net = Net()
    a = net.data("a", 4)
    k = net.data("k", 2)
    net.output(net.layer("c", "conv_shift", 4, [a, k]))
    with pytest.raises(ValueError, match="odd size"):
        net.build()
    net = Net()
    a = net.data("a", 4)
    net.output(net.layer("c", "featmap_expand", 10, [a], num_filters=3))
    with pytest.raises(ValueError, match="num_filters"):
        net.build()


def test_parsed_v1_elementwise_config_runs():
    from paddle.trainer.config_parser import parse_config
    from paddle.proto import message_to_json

    def conf():
        from paddle.trainer_config_helpers import (data_layer, slope_intercept_layer, scaling_layer, power_layer,
                                                   interpolation_layer, cos_sim, sum_to_one_norm_layer,
                                                   out_prod_layer, tensor_layer, linear_comb_layer,
                                                   conv_shift_layer, repeat_layer, addto_layer, fc_layer,
                                                   concat_layer, outputs, settings, regression_cost)
        settings(batch_size=4)
        x = data_layer(name="x", size=6)
        y = data_layer(name="y", size=6)
        w = data_layer(name="w", size=1)
        k = data_layer(name="k", size=3)
        v = data_layer(name="v", size=18)
        a = slope_intercept_layer(x, slope=2.0, intercept=0.5)
        b = scaling_layer(input=x, weight=w)
        d = interpolation_layer(input=[a, y], weight=w)
        e = cos_sim(x, y, scale=3)
        f = cos_sim(x, v, size=3)
        i = out_prod_layer(x, k)
        j = tensor_layer(x, k, size=4)
        l = linear_comb_layer(weights=k, vectors=v, size=6)
        m = conv_shift_layer(x, k)
        q = repeat_layer(e, 3)
        s = addto_layer([b, d, l, m])
        out = fc_layer(concat_layer([s, f, i, j, q]), size=2)
        outputs(regression_cost(out, data_layer(name="t", size=2)))

    mc = parse_config(conf, "").model_config
    gm = api.GradientMachine.createByConfigJson(message_to_json(mc), False, 1)
    rng = np.random.RandomState(5)
    names = list(gm.getInputLayerNames())
    sizes = {"x": 6, "y": 6, "w": 1, "k": 3, "v": 18, "t": 2}
    slots = [rng.randn(4, sizes[n]).astype(np.float32) for n in names]
    gradient_check(gm, slots, input_slots=[names.index("x"), names.index("k")], samples=8)


@pytest.mark.parametrize("partial_sum", [1, 3])
def test_prelu_gradients_and_values(partial_sum):
    rng = np.random.RandomState(11)
    n = 6
    net = Net()
    x = net.data("x", n)
    p = net.layer_p("p", "prelu", n, [x], params=[([n // partial_sum], {"std": 0.5, "mean": 0.3})],
                    partial_sum=partial_sum)
    sum_cost_net_output(net, p, n)
    gm = net.build()
    xs = rng.randn(B, n).astype(np.float32)
    xs[np.abs(xs) < 0.05] = 0.3  # finite differences off the kink at 0
    slots = [xs, rng.randn(B, n).astype(np.float32)]
    gradient_check(gm, slots, input_slots=[0], samples=20)
    w = gm.getParameterByName("_p.w0").getBuf(0).copyToNumpyArray()
    slope = np.repeat(w, partial_sum)
    np.testing.assert_allclose(forward_values(gm, slots, p), np.where(xs > 0, xs, slope * xs), rtol=1e-6)
