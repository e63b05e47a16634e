"""The C++ Trainer: data-parallel replicas, statistics, checkpoints, error paths."""
import json
import os

import numpy as np
import pytest

from netbuilder import Net, make_args
from py_paddle import swig_paddle as api


def mlp_config(method="momentum"):
    net = Net()
    p, label = net.classifier(6, 8, 3)
    model = net.config()
    model["evaluators"] = [{"name": "err", "type": "classification_error", "input_layers": [p, label]}]
    return {"model_config": model,
            "opt_config": {"batch_size": 10, "learning_method": method, "learning_rate": 0.05}}


def batches(n=6, seed=0):
    rng = np.random.RandomState(seed)
    out = []
    for _ in range(n):
        x = rng.randn(10, 6).astype(np.float32)
        y = (x[:, 0] > 0).astype(np.int32) + (x[:, 1] > 0.5).astype(np.int32)
        out.append([x, y])
    return out


def params(trainer):
    gm = trainer.getGradientMachine()
    return {p.getName(): p.getBuf(api.PARAMETER_VALUE).copyToNumpyArray() for p in gm.getParameters()}


@pytest.mark.parametrize("count", [2, 3])
def test_replicas_match_single_thread(count):
    cfg = json.dumps(mlp_config())
    single = api.Trainer.create(cfg, False, 1, 7)
    multi = api.Trainer.create(cfg, False, count, 7)
    np.testing.assert_array_equal(params(single)["_h.w0"], params(multi)["_h.w0"])
    for t in (single, multi):
        t.startTrainPass(0)
        for b in batches():
            t.trainOneDataBatch(10, make_args(b))
    a, b = params(single), params(multi)
    for name in a:
        np.testing.assert_allclose(a[name], b[name], rtol=1e-4, atol=1e-6, err_msg=name)
    assert single.getPassSamples() == multi.getPassSamples() == 60
    assert single.getPassCost() == pytest.approx(multi.getPassCost(), rel=1e-4)
    assert single.getPassEvalValues()[0] == pytest.approx(multi.getPassEvalValues()[0])


def test_gradients_after_a_trained_batch_start_from_zero():
    # the update clears every gradient it used, so the next backward skips its own clearing:
    # a backward right after a trained batch gives the same gradients as any other
    t = api.Trainer.create(json.dumps(mlp_config("adam")), False, 1, 7)
    t.startTrainPass(0)
    first, second = batches(2)
    t.trainOneDataBatch(10, make_args(first))
    gm = t.getGradientMachine()
    grads = []
    for _ in range(2):
        gm.forwardBackward(make_args(second), api.Arguments.createArguments(0), api.PASS_TRAIN)
        grads.append({p.getName(): p.getBuf(api.PARAMETER_GRADIENT).copyToNumpyArray() for p in gm.getParameters()})
    assert all(g.any() for g in grads[0].values())
    for name in grads[0]:
        np.testing.assert_array_equal(grads[0][name], grads[1][name], err_msg=name)


def test_training_statistics_and_test_period():
    t = api.Trainer.create(json.dumps(mlp_config("adam")), False, 1, 3)
    t.startTrainPass(0)
    data = batches(20)
    for b in data:
        t.trainOneDataBatch(10, make_args(b))
    assert t.getPassSamples() == 200
    assert list(t.getEvaluatorNames()) == ["err"]
    assert t.getPassEval().startswith("err=")
    t.startTestPeriod()
    gm = t.getGradientMachine()
    manual_cost, manual_wrong = 0.0, 0
    for b in data[:5]:
        t.testOneDataBatch(10, make_args(b))
        out = api.Arguments.createArguments(0)
        gm.forward(make_args(b), out, api.PASS_TEST)
        manual_cost += out.sum()
        prob = gm.getLayerOutput("p").getSlotValue(0).copyToNumpyMat()
        manual_wrong += int((prob.argmax(1) != b[1]).sum())
    assert t.getTestSamples() == 50
    assert t.getTestCost() == pytest.approx(manual_cost, rel=1e-6)
    assert t.getTestEvalValues()[0] == pytest.approx(manual_wrong / 50.0)
    assert t.getTestCost() / 50 < 1.0  # it learned something


def test_save_load_round_trip_and_errors(tmp_path):
    cfg = json.dumps(mlp_config())
    t = api.Trainer.create(cfg, False, 1, 11)
    t.saveParameters(str(tmp_path))
    u = api.Trainer.create(cfg, False, 1, 99)
    assert not np.array_equal(params(t)["_h.w0"], params(u)["_h.w0"])
    u.loadParameters(str(tmp_path))
    for name, value in params(t).items():
        np.testing.assert_array_equal(value, params(u)[name])
    with open(os.path.join(str(tmp_path), "_h.w0"), "r+b") as f:
        f.truncate(40)
    with pytest.raises(OSError, match="_h.w0"):
        u.loadParameters(str(tmp_path))


def test_engine_errors_are_python_exceptions():
    cfg = mlp_config()
    t = api.Trainer.create(json.dumps(cfg), False, 1, 1)
    bad = batches(1)[0]
    bad[1] = np.array([0, 1, 2, 3, 0, 0, 0, 0, 0, 0], dtype=np.int32)  # label 3 of 3 classes
    with pytest.raises(ValueError, match="sample 3 has label 3, outside"):  # the cost layer checks it
        t.trainOneDataBatch(10, make_args(bad))
    with pytest.raises(ValueError, match="has size 6 but its slot has 5 columns"):
        t.trainOneDataBatch(10, make_args([np.zeros((10, 5), np.float32), bad[1] % 3]))
    broken = mlp_config()
    broken["model_config"]["layers"][2]["type"] = "fcc"
    with pytest.raises(ValueError, match="layer 'h': unknown layer type 'fcc'"):
        api.Trainer.create(json.dumps(broken), False, 1, 1)
    with pytest.raises(ValueError, match="invalid JSON"):
        api.Trainer.create("{not json", False, 1, 1)


def test_global_norm_clipping_scales_all_gradients_together():
    cfg = mlp_config()
    cfg["opt_config"]["gradient_clipping_norm"] = 0.5
    cfg["opt_config"]["learning_rate"] = 1.0
    clipped = api.Trainer.create(json.dumps(cfg), False, 1, 3)
    plain_cfg = mlp_config()
    plain_cfg["opt_config"]["learning_rate"] = 1.0
    plain = api.Trainer.create(json.dumps(plain_cfg), False, 1, 3)
    before = params(plain)
    b = batches(1)[0]
    # the unclipped gradient, from a forward/backward on the same weights
    gm = plain.getGradientMachine()
    out = api.Arguments.createArguments(0)
    gm.forwardBackward(make_args(b), out, api.PASS_TRAIN)
    grads = {p.getName(): p.getBuf(api.PARAMETER_GRADIENT).copyToNumpyArray() for p in gm.getParameters()}
    norm = np.sqrt(sum(float((g.astype(np.float64) ** 2).sum()) for g in grads.values()))
    assert norm > 0.5
    clipped.startTrainPass(0)
    clipped.trainOneDataBatch(10, make_args(b))
    after = params(clipped)
    for name in before:  # plain SGD step with lr 1: w - g * 0.5 / norm
        np.testing.assert_allclose(after[name], before[name] - grads[name] * (0.5 / norm), rtol=1e-4, atol=1e-6)


def test_static_parameter_is_never_updated():
    cfg = mlp_config()
    for p in cfg["model_config"]["parameters"]:
        if p["name"] == "_h.w0":
            p["is_static"] = True
    t = api.Trainer.create(json.dumps(cfg), False, 1, 5)
    before = params(t)
    t.startTrainPass(0)
    for b in batches(3):
        t.trainOneDataBatch(10, make_args(b))
    after = params(t)
    np.testing.assert_array_equal(after["_h.w0"], before["_h.w0"])
    assert not np.array_equal(after["_p.w0"], before["_p.w0"])
    with pytest.raises(ValueError, match="static parameter '_h.w0' has no gradient"):
        t.getGradientMachine().getParameterByName("_h.w0").getBuf(api.PARAMETER_GRADIENT)
