"""lstmemory / gated_recurrent / recurrent on mixed-length sequences (no padding):
finite-difference gradients and NumPy references of the recurrences."""
import numpy as np
import pytest

from netbuilder import Net, Seq, _run_and_collect, assert_alone_equals_shared, gradient_check, make_args
from py_paddle import swig_paddle as api

D, H = 3, 4
STARTS = [0, 3, 4, 9, 11]  # lengths 3, 1, 5, 2: unsorted, with a length-1 sequence


def recurrent_net(kind, reversed_=False, bias=True, act="tanh"):
    net = Net()
    x = net.data("x", D)
    y = net.data("y", H)
    width = {"lstmemory": 4 * H, "gated_recurrent": 3 * H, "recurrent": H}[kind]
    proj = net.fc("proj", [(x, D)], width, act="", bias=False, std=0.5)
    w = net.param("_rnn.w0", {"lstmemory": [H, H, 4], "gated_recurrent": [H, 3 * H],
                              "recurrent": [H, H]}[kind], std=0.4)
    layer = {"name": "rnn", "type": kind, "size": H, "active_type": act, "reversed": reversed_,
             "inputs": [{"input_layer_name": proj, "input_parameter_name": w}]}
    if kind == "lstmemory":
        layer.update(active_gate_type="sigmoid", active_state_type="tanh")
    if kind == "gated_recurrent":
        layer.update(active_gate_type="sigmoid")
    if bias:
        layer["bias_parameter_name"] = net.param("_rnn.wbias", [1, {"lstmemory": 7 * H, "gated_recurrent": 3 * H,
                                                                     "recurrent": H}[kind]], std=0.3)
    net.layers.append(layer)
    net.output(net.layer("cost", "square_error", 1, ["rnn", y], coeff=1.0))
    return net


def slots(seed=0, starts=STARTS):
    rng = np.random.RandomState(seed)
    rows = starts[-1]
    return [Seq(rng.randn(rows, D).astype(np.float32), starts),
            Seq(rng.randn(rows, H).astype(np.float32), starts)]


@pytest.mark.parametrize("kind", ["lstmemory", "gated_recurrent", "recurrent"])
@pytest.mark.parametrize("reversed_", [False, True])
def test_recurrent_gradients(kind, reversed_):
    gm = recurrent_net(kind, reversed_).build(seed=2)
    gradient_check(gm, slots(), input_slots=[0], samples=16)


@pytest.mark.parametrize("kind", ["lstmemory", "gated_recurrent", "recurrent"])
def test_recurrent_gradients_without_bias_and_relu(kind):
    gm = recurrent_net(kind, bias=False, act="relu").build(seed=3)
    gradient_check(gm, slots(1), input_slots=[0], samples=16)


@pytest.mark.parametrize("kind", ["lstmemory", "gated_recurrent"])
@pytest.mark.parametrize("bias", [True, False])
def test_recurrent_gradients_on_a_single_sequence(kind, bias):
    """A batch of one sequence: one row per time step, with and without peepholes."""
    gm = recurrent_net(kind, bias=bias).build(seed=5)
    gradient_check(gm, slots(3, starts=[0, 5]), input_slots=[0], samples=16)


def sigmoid(v):
    return 1 / (1 + np.exp(-v))


def numpy_recurrence(kind, x, starts, w, b, reversed_):
    """Runs each sequence on its own, token by token, in float64."""
    out = np.zeros((x.shape[0], H))
    for s in range(len(starts) - 1):
        rows = list(range(starts[s], starts[s + 1]))
        if reversed_:
            rows = rows[::-1]
        h = np.zeros(H)
        c = np.zeros(H)
        for r in rows:
            if kind == "lstmemory":
                W = w.reshape(H, 4 * H)
                a = x[r] + b[:4 * H] + h @ W
                ci, cf, co = b[4 * H:5 * H], b[5 * H:6 * H], b[6 * H:]
                cand = np.tanh(a[:H])
                i = sigmoid(a[H:2 * H] + c * ci)
                f = sigmoid(a[2 * H:3 * H] + c * cf)
                c = cand * i + c * f
                o = sigmoid(a[3 * H:] + c * co)
                h = o * np.tanh(c)
            elif kind == "gated_recurrent":
                Ug = w[:2 * H * H].reshape(H, 2 * H)
                Uc = w[2 * H * H:].reshape(H, H)
                zr = sigmoid(x[r, :2 * H] + b[:2 * H] + h @ Ug)
                z, rg = zr[:H], zr[H:]
                cand = np.tanh(x[r, 2 * H:] + b[2 * H:] + (rg * h) @ Uc)
                h = (1 - z) * h + z * cand
            else:
                h = np.tanh(x[r] + b + h @ w.reshape(H, H))
            out[r] = h
    return out


@pytest.mark.parametrize("kind", ["lstmemory", "gated_recurrent", "recurrent"])
@pytest.mark.parametrize("reversed_", [False, True])
def test_recurrence_matches_per_sequence_numpy(kind, reversed_):
    gm = recurrent_net(kind, reversed_).build(seed=4)
    s = slots(2)
    out = api.Arguments.createArguments(0)
    gm.forward(make_args(s), out, api.PASS_TEST)
    got = gm.getLayerOutput("rnn").getSlotValue(0).copyToNumpyMat()
    x = gm.getLayerOutput("proj").getSlotValue(0).copyToNumpyMat().astype(np.float64)
    w = gm.getParameterByName("_rnn.w0").getBuf(0).copyToNumpyArray().astype(np.float64)
    b = gm.getParameterByName("_rnn.wbias").getBuf(0).copyToNumpyArray().astype(np.float64)
    np.testing.assert_allclose(got, numpy_recurrence(kind, x, STARTS, w, b, reversed_), rtol=1e-4, atol=1e-5)
    seq = gm.getLayerOutput("rnn").getSlotSequenceStartPositions(0)
    assert list(seq.copyToNumpyArray()) == STARTS


def test_sequence_result_does_not_depend_on_its_batch_mates():
    """A 200-token sequence gives the same outputs alone and batched with 63 short ones."""
    net = recurrent_net("lstmemory")
    gm = net.build()
    rng = np.random.RandomState(0)
    x = rng.randn(200, D).astype(np.float32)
    alone = [0, 200]
    mixed = [0, 200] + [200 + k for k in range(1, 64)]
    out = api.Arguments.createArguments(0)
    gm.forward(make_args([Seq(x, alone), Seq(np.zeros((200, H), np.float32), alone)]),
               out, api.PASS_TEST)
    first = gm.getLayerOutput("rnn").getSlotValue(0).copyToNumpyMat()
    xm = np.concatenate([x, rng.randn(63, D).astype(np.float32)])
    gm.forward(make_args([Seq(xm, mixed), Seq(np.zeros((263, H), np.float32), mixed)]),
               out, api.PASS_TEST)
    np.testing.assert_allclose(gm.getLayerOutput("rnn").getSlotValue(0).copyToNumpyMat()[:200], first, rtol=1e-5)


@pytest.mark.parametrize("bias", [True, False])
def test_an_lstm_that_alone_reads_a_layer_sets_its_gradient(bias):
    """lstmemory, the only reader of its input projection, sets that layer's whole gradient
    (which then skips clearing it), with and without the bias gradient summed in the same pass:
    the same bits as with a second reader, in a second batch of other lengths too."""
    results = []
    for second_reader in (False, True):
        net = recurrent_net("lstmemory", bias=bias)
        if second_reader:
            net.layer("unused", "slope_intercept", 4 * H, ["proj"], slope=2.0, intercept=0.0)
        gm = net.build(seed=4)
        batches = [slots(5), slots(6, starts=[0, 6, 7, 9])]
        results.append([_run_and_collect(gm, b, ["proj", "rnn"]) for b in batches])
    assert_alone_equals_shared(results)


def test_lstm_rejects_bad_config():
    net = recurrent_net("lstmemory")
    net.layers[-2]["active_gate_type"] = "softmax"
    with pytest.raises(ValueError, match="active_gate_type: activation 'softmax' is not supported here"):
        net.build()
    net = recurrent_net("lstmemory")
    net.params[-1]["size"] = 5 * H
    net.params[-1]["dims"] = [1, 5 * H]
    with pytest.raises(ValueError, match="layer 'rnn'.*bias '_rnn.wbias' has 20 values, expected 28"):
        net.build()
