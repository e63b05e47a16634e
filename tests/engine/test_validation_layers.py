"""v1's validation layers (auc-validation, pnpair-validation): their statistic over a pass
against scikit-learn / NumPy, the network trains with them in it (no gradient through them),
and their result appears beside the evaluators' (Eval part of the log lines, the SWIG API)."""
import json

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from netbuilder import Net, make_args
from py_paddle import swig_paddle as api


def trainer_over(net, trainer_count=1):
    config = {"model_config": net.config(), "opt_config": {"batch_size": 10, "learning_rate": 0.1}}
    return api.Trainer.create(json.dumps(config), False, trainer_count, 1)


def run_test_period(t, batches):
    t.startTestPeriod()
    for slots in batches:
        t.testOneDataBatch(len(slots[0]), make_args(slots))
    t.finishTestPeriod()


def auc_net(weighted):
    net = Net()
    ins = [net.data("p", 2), net.data("y", 2)] + ([net.data("w", 1)] if weighted else [])
    net.layer("auc", "auc-validation", 1, ins)
    net.output("p")
    return net


def scored_labels(rng, n):
    y = rng.randint(0, 2, n).astype(np.int32)
    score = np.clip(0.25 * y + 0.75 * rng.rand(n), 0, 1).astype(np.float32)
    return np.stack([1 - score, score], 1), y


@pytest.mark.parametrize("weighted", [False, True])
def test_auc_validation_equals_sklearn_over_the_whole_period(weighted):
    rng = np.random.RandomState(4)
    p, y = scored_labels(rng, 500)
    w = rng.uniform(0.2, 3.0, (500, 1)).astype(np.float32)
    cuts = [0, 130, 131, 400, 500]  # batches of uneven sizes, one of a single sample
    batches = [[p[a:b], y[a:b]] + ([w[a:b]] if weighted else []) for a, b in zip(cuts, cuts[1:])]
    t = trainer_over(auc_net(weighted))
    run_test_period(t, batches)
    expected = roc_auc_score(y, p[:, 1], sample_weight=w[:, 0] if weighted else None)
    assert list(t.getEvaluatorNames()) == ["auc"]
    assert t.getTestEvalValues()[0] == pytest.approx(expected, abs=2e-4)
    assert t.getTestEval() == "auc=%s " % t.getTestEval()[4:-1]
    # a new period starts from nothing: only the last batch counts
    run_test_period(t, batches[-1:])
    expected_last = roc_auc_score(y[400:], p[400:, 1], sample_weight=w[400:, 0] if weighted else None)
    assert t.getTestEvalValues()[0] == pytest.approx(expected_last, abs=2e-4)


def test_predict_file_gets_the_samples_of_each_test(tmp_path):
    rng = np.random.RandomState(8)
    p, y = scored_labels(rng, 60)
    path = tmp_path / "predict.txt"
    api.initPaddle("--predict_file=" + str(path))
    try:
        t = trainer_over(auc_net(False))
    finally:
        api.initPaddle("--predict_file=")  # the flag is global: later trainers write nothing
    for part in (slice(0, 60), slice(20, 35)):  # rewritten at the end of each test
        run_test_period(t, [[p[part][:10], y[part][:10]], [p[part][10:], y[part][10:]]])
        rows = np.loadtxt(str(path), ndmin=2)
        np.testing.assert_allclose(rows[:, 0], p[part, 1], rtol=1e-5)  # v1: "score label"
        np.testing.assert_array_equal(rows[:, 1], y[part])
    before = path.read_text()
    run_test_period(trainer_over(auc_net(False)), [[p, y]])  # made after the flag was cleared
    assert path.read_text() == before


def pnpair_reference(score, label, query, weight):
    """(correctly ordered, wrongly ordered) pair weights, pairs within a query with
    different labels and different scores, a pair weighing the mean of its two weights."""
    pos = neg = 0.0
    for i in range(len(score)):
        for j in range(i + 1, len(score)):
            if query[i] != query[j] or label[i] == label[j] or score[i] == score[j]:
                continue
            pair = (weight[i] + weight[j]) / 2
            if (label[i] > label[j]) == (score[i] > score[j]):
                pos += pair
            else:
                neg += pair
    return pos, neg


@pytest.mark.parametrize("weighted", [False, True])
def test_pnpair_validation_counts_pairs_within_queries(weighted):
    rng = np.random.RandomState(5)
    n = 120
    out = rng.randn(n, 1).astype(np.float32)
    out[7] = out[3]  # a tie: counted neither way
    label = rng.randint(0, 3, n).astype(np.int32)
    query = rng.randint(0, 6, n).astype(np.int32)
    w = rng.uniform(0.5, 2.0, (n, 1)).astype(np.float32)
    net = Net()
    ins = [net.data("out", 1), net.data("label", 3), net.data("query", 6)]
    if weighted:
        ins.append(net.data("w", 1))
    net.layer("pn", "pnpair-validation", 1, ins)
    net.output("out")
    t = trainer_over(net)
    slots = lambda a, b: [out[a:b], label[a:b], query[a:b]] + ([w[a:b]] if weighted else [])
    run_test_period(t, [slots(0, 50), slots(50, n)])  # queries span both batches
    pos, neg = pnpair_reference(out[:, 0], label, query, w[:, 0] if weighted else np.ones(n))
    assert neg > 0 and pos > 0
    assert t.getTestEvalValues()[0] == pytest.approx(pos / neg, rel=1e-6)


def classifier_with_validation(validation):
    net = Net()
    prob, label = net.classifier(6, 8, 2)
    if validation:
        net.layer("auc", "auc-validation", 1, [prob, label])
    return net


def test_no_gradient_flows_through_a_validation_layer():
    rng = np.random.RandomState(6)
    x = rng.randn(16, 6).astype(np.float32)
    y = rng.randint(0, 2, 16).astype(np.int32)
    grads = []
    for validation in (False, True):
        gm = classifier_with_validation(validation).build(seed=3)
        out = api.Arguments.createArguments(0)
        gm.forwardBackward(make_args([x, y]), out, api.PASS_TRAIN)
        grads.append({gm.getParameter(i).getName(): gm.getParameter(i).getBuf(api.PARAMETER_GRADIENT)
                      .copyToNumpyArray() for i in range(gm.getParameterSize())})
    assert grads[0].keys() == grads[1].keys()
    for name in grads[0]:
        np.testing.assert_array_equal(grads[0][name], grads[1][name])


@pytest.mark.parametrize("trainer_count", [1, 2])
def test_a_network_with_a_validation_layer_trains_and_reports_per_pass(trainer_count):
    rng = np.random.RandomState(7)
    x = rng.randn(200, 6).astype(np.float32)
    y = (x[:, 0] + 0.5 * x[:, 1] > 0).astype(np.int32)
    t = trainer_over(classifier_with_validation(True), trainer_count)
    aucs = []
    for pass_id in range(3):
        t.startTrainPass()
        for b in range(0, 200, 20):
            t.trainOneDataBatch(20, make_args([x[b:b + 20], y[b:b + 20]]))
        t.finishTrainPass()
        aucs.append(t.getPassEvalValues()[0])
        assert t.getPassEval().startswith("auc=")
    assert aucs[-1] > aucs[0] and aucs[-1] > 0.9
    # the pass value is the AUC of what the network output during that pass
    run_test_period(t, [[x, y]])
    prob = forward_prob(t, x, y)
    assert t.getTestEvalValues()[0] == pytest.approx(roc_auc_score(y, prob[:, 1]), abs=2e-4)


def forward_prob(t, x, y):
    t.forwardOneDataBatch(make_args([x, y]))
    return t.getLayerOutput("p").getSlotValue(0).copyToNumpyMat()


@pytest.mark.parametrize("inputs,message", [
    (["p"], "expects 2 to 3 inputs, got 1"),
    (["p", "y", "p"], "input 2 \\('p'\\) has size 2, expected 1"),
])
def test_validation_layer_input_errors_name_the_layer(inputs, message):
    net = Net()
    net.data("p", 2)
    net.data("y", 2)
    net.layer("auc", "auc-validation", 1, inputs)
    net.output("p")
    with pytest.raises(ValueError, match="layer 'auc' \\(type auc-validation\\): " + message):
        net.build()


def test_gradient_machine_evaluator_includes_the_validation_layers():
    rng = np.random.RandomState(9)
    p, y = scored_labels(rng, 80)
    gm = auc_net(False).build()
    evaluator = gm.makeEvaluator()
    out = api.Arguments.createArguments(0)
    for part in (slice(0, 30), slice(30, 80)):
        gm.forward(make_args([p[part], y[part]]), out, api.PASS_TEST)
        gm.eval(evaluator)
    evaluator.finish()
    assert list(evaluator.getNames()) == ["auc"]
    assert evaluator.getValue("auc") == pytest.approx(roc_auc_score(y, p[:, 1]), abs=2e-4)
