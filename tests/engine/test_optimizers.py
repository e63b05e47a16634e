"""Each update rule and schedule against a NumPy transcription of v1's formula."""
import json

import numpy as np
import pytest

from py_paddle import swig_paddle as api
from netbuilder import Net

N_IN, N_OUT, STEPS, BATCH = 6, 5, 10, 8


def make_param(**param_fields):
    net = Net()
    x = net.data("x", N_IN)
    net.layers.append({"name": "h", "type": "fc", "size": N_OUT, "active_type": "",
                       "inputs": [{"input_layer_name": x, "input_parameter_name": "w"}]})
    net.param("w", [N_IN, N_OUT], std=0.5, **param_fields)
    net.output("h")
    gm = net.build(seed=3)
    return gm, gm.getParameterByName("w")


def run_engine(opt, steps=STEPS, seed=0, dead=0, **param_fields):
    """Applies `steps` updates with random gradients (the first `dead` elements' always 0,
    like a dead ReLU unit's weights); returns (w0, grads, values, lrs)."""
    gm, p = make_param(**param_fields)
    updater = api.ParameterUpdater.createLocalUpdater(json.dumps(opt))
    rng = np.random.RandomState(seed)
    w0 = p.getBuf(api.PARAMETER_VALUE).copyToNumpyArray().astype(np.float64)
    values, lrs, grads = [], [], []
    for t in range(steps):
        g = (rng.randn(w0.size) * 2).astype(np.float32)
        g[:dead] = 0
        grads.append(g.astype(np.float64))
        updater.startPass(0)
        updater.startBatch(BATCH)
        p.getBuf(api.PARAMETER_GRADIENT).copyFromNumpyArray(g)
        updater.update(p)
        updater.finishBatch()
        lrs.append(updater.getLearningRate())
        values.append(p.getBuf(api.PARAMETER_VALUE).copyToNumpyArray().astype(np.float64))
        assert not p.getBuf(api.PARAMETER_GRADIENT).copyToNumpyArray().any(), "gradient not cleared"
    return w0, grads, values, lrs


def reference(method, w, grads, lr, mu=0.0, decay=0.0, rho=0.95, eps=1e-6, b1=0.9, b2=0.999,
              adam_eps=1e-8, clip=0.0, l1=0.0):
    """NumPy transcription of v1's update rules (reference doc section 3.8-3.11)."""
    w = w.copy()
    m = np.zeros_like(w)
    s0, s1 = np.zeros_like(w), np.zeros_like(w)
    out = []
    in_rule_decay = 0.0 if l1 > 0 else decay
    for t, g in enumerate(grads, start=1):
        g = g.copy()
        if clip > 0 and np.abs(g).max() > clip:
            g = np.clip(g, -clip, clip)
        rate = None
        if method == "momentum":
            m = mu * m - lr * (g + in_rule_decay * w)
            w = w + m
        elif method in ("adagrad", "adadelta", "rmsprop", "decayed_adagrad"):
            if method == "adagrad":
                s1 = s1 + g * g
                rate = 1 / np.sqrt(s0 + s1 + eps)
            elif method == "adadelta":
                s0 = rho * s0 + (1 - rho) * g * g
                rate = np.sqrt((s1 + eps) / (s0 + eps))
                s1 = rho * s1 + (1 - rho) * (g * rate) ** 2
            elif method == "rmsprop":
                s0 = rho * s0 + (1.0 if t == 1 else 1 - rho) * g * g
                s1 = rho * s1 + (1 - rho) * g
                rate = 1 / np.sqrt(s0 - s1 * s1 + eps)
            else:
                s0 = rho * s0 + (1.0 if t == 1 else 1 - rho) * g * g
                rate = 1 / np.sqrt(s0 + eps)
            m = mu * m - lr * rate * (g + in_rule_decay * w)
            w = w + m
        elif method == "adam":
            s0 = b1 * s0 + (1 - b1) * g
            s1 = b2 * s1 + (1 - b2) * g * g
            alpha = lr * np.sqrt(1 - b2 ** t) / (1 - b1 ** t)
            w = w - alpha * s0 / (np.sqrt(s1) + adam_eps)
        elif method == "adamax":
            s0 = b1 * s0 + (1 - b1) * g
            s1 = np.maximum(b2 * s1, np.abs(g))
            w = w - (lr / (1 - b1 ** t)) * s0 / np.where(s1 > 0, s1, 1)  # no step while u is 0
        if l1 > 0:
            r = 1.0 if rate is None else rate
            w = np.sign(w) * np.maximum(np.abs(w) - lr * l1 * r, 0)
            w = w / (1 + lr * decay * r)
        out.append(w.copy())
    return out


def assert_close(values, expected, rtol=2e-5, atol=2e-6):
    for t, (v, e) in enumerate(zip(values, expected)):
        np.testing.assert_allclose(v, e, rtol=rtol, atol=atol, err_msg="step %d" % (t + 1))


CASES = [
    ("momentum", {}, {"learning_rate": 1.0, "momentum": 0.9}, {"lr": 0.01, "mu": 0.9}),
    ("momentum", {}, {"momentum": 0.5, "decay_rate": 0.1}, {"lr": 0.01, "mu": 0.5, "decay": 0.1}),
    ("momentum", {}, {"learning_rate": 2.0}, {"lr": 0.02}),
    ("adagrad", {"ada_epsilon": 1e-6}, {}, {"lr": 0.01}),
    ("adadelta", {"ada_rou": 0.9, "ada_epsilon": 1e-4}, {}, {"lr": 0.01, "rho": 0.9, "eps": 1e-4}),
    ("rmsprop", {"ada_rou": 0.9, "ada_epsilon": 1e-3}, {"decay_rate": 0.05},
     {"lr": 0.01, "rho": 0.9, "eps": 1e-3, "decay": 0.05}),
    ("decayed_adagrad", {"ada_rou": 0.9}, {}, {"lr": 0.01, "rho": 0.9}),
    ("adam", {"adam_beta1": 0.8, "adam_beta2": 0.99, "adam_epsilon": 1e-6}, {},
     {"lr": 0.01, "b1": 0.8, "b2": 0.99, "adam_eps": 1e-6}),
    # v1's Adam ignores L2 decay (issues #2088, #5836): decay_rate must not change the result
    ("adam", {}, {"decay_rate": 0.5}, {"lr": 0.01}),
    ("adamax", {"adam_beta1": 0.9, "adam_beta2": 0.999}, {}, {"lr": 0.01}),
]


@pytest.mark.parametrize("method,opt_fields,param_fields,ref", CASES)
def test_update_rule_matches_numpy(method, opt_fields, param_fields, ref):
    opt = dict({"learning_method": method, "learning_rate": 0.01, "batch_size": BATCH}, **opt_fields)
    w0, grads, values, _ = run_engine(opt, **param_fields)
    assert_close(values, reference(method, w0, grads, **ref))


def test_adamax_leaves_never_updated_weights_alone():
    """v1's Adamax divides 0 by 0 for weights whose gradient has always been 0 and writes NaN."""
    opt = {"learning_method": "adamax", "learning_rate": 0.01, "batch_size": BATCH,
           "adam_beta1": 0.9, "adam_beta2": 0.999}
    w0, grads, values, _ = run_engine(opt, dead=7)
    assert np.isfinite(values[-1]).all()
    np.testing.assert_array_equal(values[-1][:7], w0[:7])
    assert_close(values, reference("adamax", w0, grads, lr=0.01))


def test_gradient_clipping_per_parameter_and_global():
    opt = {"learning_method": "momentum", "learning_rate": 0.1, "batch_size": BATCH}
    w0, grads, values, _ = run_engine(opt, gradient_clipping_threshold=0.5)
    assert_close(values, reference("momentum", w0, grads, lr=0.1, clip=0.5))
    opt["gradient_clipping_threshold"] = 1.0  # the global fallback
    w0, grads, values, _ = run_engine(opt)
    assert_close(values, reference("momentum", w0, grads, lr=0.1, clip=1.0))


@pytest.mark.parametrize("method", ["momentum", "adagrad"])
def test_l1_and_l2_decay(method):
    opt = {"learning_method": method, "learning_rate": 0.05, "batch_size": BATCH}
    w0, grads, values, _ = run_engine(opt, decay_rate_l1=0.3, decay_rate=0.2)
    assert_close(values, reference(method, w0, grads, lr=0.05, l1=0.3, decay=0.2))


SCHEDULES = [
    ("constant", {}, lambda n, p: 0.1),
    ("poly", {"learning_rate_decay_a": 0.01, "learning_rate_decay_b": 0.5},
     lambda n, p: 0.1 * (1 + 0.01 * n) ** -0.5),
    ("caffe_poly", {"learning_rate_decay_a": 60, "learning_rate_decay_b": 2.0},
     lambda n, p: 0.0 if n > 60 else 0.1 * (1 - n / 60.0) ** 2),
    ("exp", {"learning_rate_decay_a": 0.5, "learning_rate_decay_b": 16},
     lambda n, p: 0.1 * 0.5 ** (n / 16.0)),
    ("discexp", {"learning_rate_decay_a": 0.5, "learning_rate_decay_b": 20},
     lambda n, p: 0.1 * 0.5 ** np.floor(n / 20.0)),
    ("linear", {"learning_rate_decay_a": 0.001, "learning_rate_decay_b": 0.05},
     lambda n, p: max(0.1 - 0.001 * n, 0.05)),
    ("manual", {"learning_rate_args": "16:1.0,40:0.5,64:0.1"},
     lambda n, p: 0.1 * (1.0 if n <= 16 else 0.5 if n <= 40 else 0.1)),
]


@pytest.mark.parametrize("name,fields,formula", SCHEDULES)
def test_learning_rate_schedules(name, fields, formula):
    opt = dict({"learning_method": "momentum", "learning_rate": 0.1, "batch_size": BATCH,
                "learning_rate_schedule": name}, **fields)
    w0, grads, values, lrs = run_engine(opt)
    expected_lrs = [formula(BATCH * (t + 1), 0) for t in range(STEPS)]
    np.testing.assert_allclose(lrs, expected_lrs, rtol=1e-9)
    w, exp_values = w0.copy(), []
    for lr, g in zip(expected_lrs, grads):
        w = w - lr * g
        exp_values.append(w.copy())
    assert_close(values, exp_values)


def test_adam_ignores_schedule():
    opt = {"learning_method": "adam", "learning_rate": 0.01, "batch_size": BATCH,
           "learning_rate_schedule": "exp", "learning_rate_decay_a": 0.1, "learning_rate_decay_b": 1}
    w0, grads, values, lrs = run_engine(opt)
    assert lrs == [0.01] * STEPS
    assert_close(values, reference("adam", w0, grads, lr=0.01))


def test_bad_optimizer_config_raises():
    with pytest.raises(ValueError, match="unknown learning_method 'sgdd'"):
        api.ParameterUpdater.createLocalUpdater(json.dumps({"learning_method": "sgdd"}))
    with pytest.raises(ValueError, match="learning_rate_schedule"):
        api.ParameterUpdater.createLocalUpdater(json.dumps({"learning_rate_schedule": "cosine"}))


def model_average_reference(history, average_window, max_average_window):
    """v1 AverageOptimizer bookkeeping over the weights after each update."""
    sum1 = sum2 = sum3 = 0
    num_updates = num_acc = old_acc = 0
    min_window = min(10000, max_average_window)
    for w in history:
        sum1 = sum1 + w
        num_updates += 1
        num_acc += 1
        if num_acc >= min_window and num_acc >= min(max_average_window, num_updates * average_window):
            sum3, sum1, sum2 = sum1 + sum2, 0, 0
            old_acc, num_acc = num_acc, 0
    return (sum1 + sum2 + sum3) / (num_acc + old_acc)


@pytest.mark.parametrize("window,max_window,steps", [(0.5, 3, 10), (0.5, 4, 7), (1.0, 100, 9)])
def test_model_average_apply_restore(window, max_window, steps):
    opt = {"learning_method": "momentum", "learning_rate": 0.1, "batch_size": BATCH,
           "average_window": window, "max_average_window": max_window}
    gm, p = make_param()
    updater = api.ParameterUpdater.createLocalUpdater(json.dumps(opt))
    rng = np.random.RandomState(1)
    history = []
    for _ in range(steps):
        updater.startBatch(BATCH)
        p.getBuf(api.PARAMETER_GRADIENT).copyFromNumpyArray(rng.randn(len(p)).astype(np.float32))
        updater.update(p)
        updater.finishBatch()
        history.append(p.getBuf(api.PARAMETER_VALUE).copyToNumpyArray().astype(np.float64))
    updater.apply()
    np.testing.assert_allclose(p.getBuf(api.PARAMETER_VALUE).copyToNumpyArray(),
                               model_average_reference(history, window, max_window), rtol=1e-5, atol=1e-6)
    updater.restore()
    np.testing.assert_array_equal(p.getBuf(api.PARAMETER_VALUE).copyToNumpyArray(), history[-1].astype(np.float32))


@pytest.mark.parametrize("method,opt_fields,param_fields,ref", CASES)
def test_a_dense_table_update_reads_only_the_rows_a_batch_wrote(method, opt_fields, param_fields, ref):
    """An embedding table's dense gradient holds only the rows its batch looked up: the update
    runs the rule on a zero gradient for the others without reading or clearing theirs
    (Parameter::rowsWithGradient). It must give the bits of the update over every row, which
    reading the gradient through the API forces (getBuf marks every row written)."""
    from netbuilder import make_args, sum_cost_net_output
    opt = dict({"learning_method": method, "learning_rate": 0.01, "batch_size": BATCH}, **opt_fields)
    vocab, dim = 9, 4
    batches = [[0, 2, 2, 5], [1, 1, -1], [7, 0, 3], [2]]  # rows 4, 6 and 8 never looked up
    runs = []
    for every_row in (False, True):
        net = Net()
        ids = net.data("ids", vocab)
        net.mixed("emb", dim, [(ids, vocab, "table", dim, {})])
        net.params[-1].update(param_fields)
        sum_cost_net_output(net, "emb", dim)
        gm = net.build(seed=3)
        p = gm.getParameterByName("_emb.w0")
        updater = api.ParameterUpdater.createLocalUpdater(json.dumps(opt))
        rng = np.random.RandomState(4)
        values = []
        for step in range(3):
            for b in batches:
                target = rng.randn(len(b), dim).astype(np.float32)
                gm.forwardBackward(make_args([np.array(b, np.int32), target]), api.Arguments.createArguments(0),
                                   api.PASS_TRAIN)
                updater.startPass(0)
                updater.startBatch(BATCH)
                if every_row:
                    p.getBuf(api.PARAMETER_GRADIENT)
                updater.update(p)
                updater.finishBatch()
                values.append(p.getBuf(api.PARAMETER_VALUE).copyToNumpyArray())
                assert not p.getBuf(api.PARAMETER_GRADIENT).copyToNumpyArray().any(), "gradient not cleared"
        runs.append(values)
    for t, (rows_only, every) in enumerate(zip(*runs)):
        np.testing.assert_array_equal(rows_only, every, err_msg="update %d" % (t + 1))
    if method in ("adam", "adamax") or param_fields.get("momentum"):  # state moves rows without gradient
        row5 = [v.reshape(vocab, dim)[5] for v in runs[0][:2]]  # (looked up in the first batch only)
        assert not np.array_equal(*row5)
