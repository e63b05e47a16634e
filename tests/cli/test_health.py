"""Training health (paddle/trainer/health.py): the warnings of `paddle train` for training that
cannot work, on the issue's case (wine from a raw CSV, unscaled) and the checks one by one."""
import re

import numpy as np
import pytest

from paddle.trainer import health
from test_cli import DEMO, paddle
from wine_csv import ZSCORE, write_wine

pytest.importorskip("sklearn")
WARNING = re.compile(r"^W\d{4} .*\] Training health: (.*)$", re.M)


def _warnings(log):
    return WARNING.findall(log)


def test_unscaled_wine_warns_in_the_first_pass_once_per_kind(tmp_path):
    write_wine(str(tmp_path))
    code, _, log = paddle(["train", "--config=wine.py", "--num_passes=3", "--save_dir=out", "--dot_period=1"],
                          str(tmp_path))
    assert code == 0, log[-3000:]
    warnings = _warnings(log)
    first_pass = log.split(" Pass=0 ")[0]
    # the cause first, naming the columns and the fix, before pass 0 ends
    scale = _warnings(first_pass)[0]
    assert re.search(r"the columns of input 'features' are \d+x apart in scale \(proline ~\S+, magnesium ~\S+ vs "
                     r"nonflavanoid_phenols ~\S+, hue ~\S+\)", scale), scale
    assert "'preprocess': {'columns': 'zscore'}" in scale and "--check_health=0" in scale
    assert any("softmax outputs of layer '__fc_layer_1__' are saturated" in w for w in _warnings(first_pass))
    assert any("every gradient has been zero" in w for w in _warnings(first_pass))
    assert sum("the cost has not moved" in w for w in warnings) == 1
    assert len(warnings) == 4  # once per kind, though every pass repeats the problem
    # each a line of its own: not glued to the progress dots
    assert "." in log and not re.search(r"\.[IWE]\d{4} ", log)


def test_normalised_wine_trains_without_warnings(tmp_path):
    write_wine(str(tmp_path), preprocess=ZSCORE)
    code, _, log = paddle(["train", "--config=wine.py", "--num_passes=5", "--save_dir=out", "--dot_period=0"],
                          str(tmp_path))
    assert code == 0, log[-3000:]
    assert _warnings(log) == []
    errors = re.findall(r"\]  Test samples=38 cost=\S+ Eval: classification_error_evaluator=(\S+)$", log, re.M)
    assert float(errors[-1]) <= 0.1


def test_check_health_0_turns_it_off(tmp_path):
    write_wine(str(tmp_path))
    code, _, log = paddle(["train", "--config=wine.py", "--num_passes=2", "--save_dir=out", "--check_health=0"],
                          str(tmp_path))
    assert code == 0, log[-3000:]
    assert "Training health" not in log


def test_the_digits_demo_is_healthy(tmp_path):
    code, _, log = paddle(["train", "--config=mlp.py", "--num_passes=2", "--save_dir=" + str(tmp_path),
                           "--dot_period=0"], DEMO)
    assert code == 0, log[-3000:]
    assert _warnings(log) == []


def test_scale_problem_names_the_extreme_columns():
    rng = np.random.RandomState(0)
    x = np.column_stack([rng.normal(750, 300, 40), rng.normal(1, 0.2, 40), rng.normal(13, 1, 40)])
    ratio, large, small = health.scale_problem(x, ["proline", "hue", "alcohol"])
    assert 500 < ratio < 1000
    assert large[0].startswith("proline ~") and small[0].startswith("hue ~")
    assert health.scale_problem(x[:, 1:]) is None
    assert health.scale_problem(x[:4]) is None  # too few rows to say


def test_scale_problem_ignores_mostly_zero_columns():
    """Pixels at the border and one-hot columns are zero in most rows: their rare small
    values say nothing about the scale of the data."""
    rng = np.random.RandomState(1)
    pixels = rng.uniform(0.3, 1.0, (64, 20))
    pixels[:, :5] = 0
    pixels[:3, 0] = 0.004  # a faint pixel in three images
    assert health.scale_problem(pixels) is None
    pixels[:, 6] *= 1000  # a column that is dense and far off
    assert health.scale_problem(pixels)[1][0].startswith("column 6 ~")


def test_saturated_share():
    assert health.saturated_share(np.array([[1.0, 0.0, 0.0], [0.2, 0.5, 0.3]]), "softmax") == 0.5
    assert health.saturated_share(np.array([[0.99999, 0.5], [1e-6, 0.3]]), "sigmoid") == 0.5


def test_parameter_stats_are_parsed():
    stats = health.parse_stats(["___fc_layer_0__.w0   avg_abs_val=0.3 max_val=5.8 avg_abs_grad=0 max_grad=nan"])
    assert list(stats) == ["___fc_layer_0__.w0"]
    assert stats["___fc_layer_0__.w0"][:3] == (0.3, 5.8, 0.0) and np.isnan(stats["___fc_layer_0__.w0"][3])


def test_sampled_batches_are_few():
    picked = [b for b in range(1, 5001) if health.sampled(b)]
    assert picked[:6] == [1, 2, 4, 8, 16, 32] and len(picked) == 10 + 5


class _Trainer(object):
    """What Health reads of the trainer: the pass totals and layer outputs."""

    def __init__(self):
        self.cost, self.samples = 0.0, 0

    def getPassCost(self):
        return self.cost

    def getPassSamples(self):
        return self.samples


class _Config(object):
    input_layer_names, layers, parameters = [], [], []


def _run(costs, stats=None):
    said = []
    trainer = _Trainer()
    h = health.Health(_Config(), trainer, said.append)
    for i, c in enumerate(costs):
        trainer.cost += c * 10
        trainer.samples += 10
        h.batch_done(type("Batch", (), {"slots": []})(), None, stats(i) if stats else None)
    return h, said


def test_a_flat_cost_is_reported_once_and_a_noisy_one_never():
    _, said = _run([2.0] * (4 * health.WINDOW))
    assert len(said) == 1 and "the cost has not moved for 150 batches (2)" in said[0]
    rng = np.random.RandomState(0)
    _, said = _run(list(1.0 + 0.01 * rng.randn(20 * health.WINDOW)))  # converged, still moving
    assert said == []
    _, said = _run([0.0] * (4 * health.WINDOW))  # nothing left to learn
    assert said == []


def test_pass_costs_that_repeat_are_flat():
    h, said = _run([])
    h.pass_done(64.2547, 9)
    h.pass_done(64.2547, 9)
    assert len(said) == 1 and "not moved for 18 batches" in said[0]


def test_exploding_gradients_need_a_rising_cost():
    """Gradients of deep and recurrent nets grow a thousandfold while the cost falls (the
    role labelling demo's embedding): only growth with a cost above the first is exploding."""
    def stats(i):
        return ["w avg_abs_val=0.1 max_val=1 avg_abs_grad=%g max_grad=1" % (1e-3 * 2 ** i)]

    class Config(_Config):
        parameters = [type("P", (), {"name": "w", "is_static": False})()]

    for costs, warned in (([5.0 - 0.1 * i for i in range(20)], False), ([1.0 + i for i in range(20)], True)):
        trainer, said = _Trainer(), []
        h = health.Health(Config(), trainer, said.append)
        for i, c in enumerate(costs):
            trainer.cost += c * 10
            trainer.samples += 10
            h.batch_done(type("Batch", (), {"slots": []})(), None, stats(i))
        assert bool(said) == warned, said
        if warned:
            assert "the gradients of 'w' grew" in said[0] and "exploding" in said[0]
