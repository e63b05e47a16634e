"""Finite differences against backward() for every layer, activation and cost."""
import numpy as np
import pytest

from netbuilder import Net, gradient_check

BATCH, IN, OUT = 7, 5, 4
ACTIVATIONS = ["", "linear", "sigmoid", "tanh", "relu", "brelu", "softrelu", "stanh", "abs",
               "square", "exponential", "log", "reciprocal", "sqrt", "softsign", "softmax"]
POSITIVE = ("log", "reciprocal", "sqrt")  # defined (or tame) for positive pre-activations only


def regression_net(act, two_inputs=False, mean=0.0, std=0.3):
    net = Net()
    x = net.data("x", IN)
    ins = [(x, IN)]
    if two_inputs:
        ins.append((net.data("x2", 3), 3))
    y = net.data("y", OUT)
    h = net.fc("h", ins, OUT, act=act, mean=mean, std=std)
    net.output(net.layer("cost", "square_error", 1, [h, y], coeff=1.0))
    return net


@pytest.mark.parametrize("act", ACTIVATIONS)
def test_fc_activation_gradients(act):
    rng = np.random.RandomState(1)
    positive = act in POSITIVE
    net = regression_net(act, mean=0.5 if positive else 0.0, std=0.1 if positive else 0.3)
    gm = net.build()
    x = rng.uniform(0.1, 1.0, (BATCH, IN)).astype(np.float32)
    y = rng.uniform(-1, 1, (BATCH, OUT)).astype(np.float32)
    gradient_check(gm, [x, y], input_slots=[0])


def test_fc_with_two_inputs():
    rng = np.random.RandomState(2)
    gm = regression_net("tanh", two_inputs=True).build()
    slots = [rng.randn(BATCH, IN).astype(np.float32), rng.randn(BATCH, 3).astype(np.float32),
             rng.randn(BATCH, OUT).astype(np.float32)]
    gradient_check(gm, slots, input_slots=[0, 1])


@pytest.mark.parametrize("weighted", [False, True])
def test_classification_cost_gradients(weighted):
    rng = np.random.RandomState(3)
    net = Net()
    x = net.data("x", IN)
    label = net.data("label", OUT)
    inputs = [net.fc("prob", [(x, IN)], OUT, act="softmax"), label]
    if weighted:
        inputs.append(net.data("w", 1))
    net.output(net.layer("cost", "multi-class-cross-entropy", 1, inputs, coeff=1.0))
    slots = [rng.randn(BATCH, IN).astype(np.float32), rng.randint(0, OUT, BATCH).astype(np.int32)]
    if weighted:
        slots.append(rng.uniform(0.5, 2, (BATCH, 1)).astype(np.float32))
    gradient_check(net.build(), slots, input_slots=[0])


@pytest.mark.parametrize("coeff", [1.0, 0.5])
def test_square_error_gradients_weighted(coeff):
    rng = np.random.RandomState(4)
    net = Net()
    x = net.data("x", IN)
    y = net.data("y", OUT)
    w = net.data("w", 1)
    h = net.fc("h", [(x, IN)], OUT, act="sigmoid")
    net.output(net.layer("cost", "square_error", 1, [h, y, w], coeff=coeff))
    slots = [rng.randn(BATCH, IN).astype(np.float32), rng.randn(BATCH, OUT).astype(np.float32),
             rng.uniform(0.5, 2, (BATCH, 1)).astype(np.float32)]
    gradient_check(net.build(), slots, input_slots=[0], grad_scale=coeff)


def test_deep_network_gradients():
    rng = np.random.RandomState(5)
    net = Net()
    x = net.data("x", IN)
    label = net.data("label", 3)
    h1 = net.fc("h1", [(x, IN)], 6, act="tanh")
    h2 = net.fc("h2", [(h1, 6), (x, IN)], 6, act="relu")
    p = net.fc("p", [(h2, 6)], 3, act="softmax")
    net.output(net.layer("cost", "multi-class-cross-entropy", 1, [p, label], coeff=1.0))
    slots = [rng.randn(BATCH, IN).astype(np.float32), rng.randint(0, 3, BATCH).astype(np.int32)]
    gradient_check(net.build(), slots, input_slots=[0])


def test_cost_values_match_numpy():
    rng = np.random.RandomState(6)
    net = Net()
    x = net.data("x", IN)
    label = net.data("label", OUT)
    p = net.fc("p", [(x, IN)], OUT, act="softmax")
    net.output(net.layer("cost", "multi-class-cross-entropy", 1, [p, label], coeff=1.0))
    gm = net.build()
    xs = rng.randn(BATCH, IN).astype(np.float32)
    ids = rng.randint(0, OUT, BATCH).astype(np.int32)
    from netbuilder import total_cost
    cost = total_cost(gm, [xs, ids])
    w = gm.getParameterByName("_p.w0").getBuf(0).copyToNumpyArray().reshape(IN, OUT)
    b = gm.getParameterByName("_p.wbias").getBuf(0).copyToNumpyArray()
    z = xs.astype(np.float64) @ w + b
    prob = np.exp(z - z.max(1, keepdims=True))
    prob /= prob.sum(1, keepdims=True)
    assert cost == pytest.approx(-np.log(prob[np.arange(BATCH), ids]).sum(), rel=1e-5)


def test_dropout_masks_in_training_and_scales_in_testing():
    rng = np.random.RandomState(7)
    net = Net()
    x = net.data("x", 50)
    h = net.fc("h", [(x, 50)], 200, act="relu", drop_rate=0.3, std=0.1)
    net.output(h)
    gm = net.build()
    xs = rng.rand(64, 50).astype(np.float32)
    from py_paddle import swig_paddle as api
    from netbuilder import make_args
    out = api.Arguments.createArguments(0)
    gm.forward(make_args([xs]), out, api.PASS_TEST)
    test_out = out.getSlotValue(0).copyToNumpyMat()
    gm.forward(make_args([xs]), out, api.PASS_TRAIN)
    train_out = out.getSlotValue(0).copyToNumpyMat()
    active = test_out > 0
    kept = train_out[active] != 0
    assert abs(kept.mean() - 0.7) < 0.03
    # kept units are unscaled in training; testing multiplies by (1 - p)
    np.testing.assert_allclose(train_out[active][kept] * 0.7, test_out[active][kept], rtol=1e-5)


def test_dropout_layer_gradients():
    rng = np.random.RandomState(8)
    net = Net()
    x = net.data("x", IN)
    y = net.data("y", OUT)
    h = net.fc("h", [(x, IN)], OUT, act="tanh", drop_rate=0.5)
    net.output(net.layer("cost", "square_error", 1, [h, y], coeff=1.0))
    slots = [rng.randn(BATCH, IN).astype(np.float32), rng.randn(BATCH, OUT).astype(np.float32)]
    gradient_check(net.build(), slots, input_slots=[0])
