"""`paddle train` reads the evaluators' typed fields, not their log text: --keep_best by a
precision_recall field (its direction the field's own), the metrics file and the log line
showing the same fields, and --job=test reporting the kept pass's numbers again."""
import json
import os
import re

import pytest

from test_cli import paddle
from wine_csv import ZSCORE, write_wine

pytest.importorskip("sklearn")

# The wine classifier with a small learning rate (so F1 moves over the passes) and class 1's
# precision, recall and F1.
CONFIG = """
from paddle.trainer_config_helpers import *
define_py_data_sources2(train_list='train.list', test_list='test.list', module='paddle.trainer.readers',
                        obj='csv', args={'label_column': 'species'%s})
settings(batch_size=16, learning_rate=0.0005, learning_method=MomentumOptimizer(0.9))
x = data_layer(name='features', size=13)
label = data_layer(name='label', size=3)
h = fc_layer(input=x, size=8, act=ReluActivation())
out = fc_layer(input=h, size=3, act=SoftmaxActivation())
precision_recall_evaluator(input=out, label=label, positive_label=1)
outputs(classification_cost(input=out, label=label))
""" % ZSCORE
# (classification_cost adds its classification_error_evaluator)
FIELDS = ("positive_label", "precision", "recall", "F1-score", "classification_error_evaluator")
EVAL_LINE = re.compile(r"Eval: positive_label=(\d+) precision=(\S+) recall=(\S+) F1-score=(\S+) "
                       r"classification_error_evaluator=(\S+)$", re.M)


@pytest.fixture
def wine(tmp_path):
    write_wine(str(tmp_path))
    (tmp_path / "pr.py").write_text(CONFIG)
    return str(tmp_path)


def _records(path, event):
    with open(path) as f:
        return [r for r in map(json.loads, f) if r["event"] == event]


def test_keep_best_by_f1_keeps_the_pass_with_the_highest_f1(wine):
    code, _, log = paddle(["train", "--config=pr.py", "--save_dir=out", "--num_passes=5", "--dot_period=0",
                           "--keep_best=F1-score", "--metrics_file=metrics.jsonl"], wine)
    assert code == 0, log[-3000:]
    assert "Keeping the best pass by F1-score (higher is better)" in log
    tests = _records(os.path.join(wine, "metrics.jsonl"), "test")
    f1 = [r["eval"]["F1-score"] for r in tests]
    assert len(f1) == 5 and len(set(f1)) > 1, f1  # F1 moves, so the direction decides the pass
    best = f1.index(max(f1))  # the first of equal values stays the best
    assert os.readlink(os.path.join(wine, "out", "best")) == "pass-%05d" % best
    with open(os.path.join(wine, "out", "best", "metrics.json")) as f:
        assert json.load(f)["best"] == {"pass": best, "F1-score": f1[best]}

    # the records hold the fields the log line prints, under the same names
    test_lines = EVAL_LINE.findall("\n".join(re.findall(r"\]  Test samples=\d+ cost=\S+ (.*)$", log, re.M)))
    assert len(test_lines) == 5, log[-3000:]
    for record, line in zip(tests, test_lines):
        assert set(record["eval"]) == set(FIELDS)
        assert line[0] == "1" and record["eval"]["positive_label"] == 1
        assert list(line[1:]) == ["%g" % record["eval"][k] for k in FIELDS[1:]]
    passes = _records(os.path.join(wine, "metrics.jsonl"), "pass")
    assert len(passes) == 5 and all(set(r["eval"]) == set(FIELDS) for r in passes)
    assert len(re.findall(r"\]  Pass=\d+ .* Eval: positive_label=1 precision=\S+ recall=\S+ F1-score=\S+ "
                          r"classification_error_evaluator=\S+ time=", log)) == 5

    # --job=test of the kept pass reports its F1 again
    code, _, log = paddle(["train", "--config=pr.py", "--job=test", "--init_model_path=out/best",
                           "--metrics_file=retest.jsonl"], wine)
    assert code == 0, log[-3000:]
    (retest,) = _records(os.path.join(wine, "retest.jsonl"), "test")
    assert retest["eval"]["F1-score"] == pytest.approx(f1[best], rel=1e-6)


def test_keep_best_names_come_from_the_fields(wine):
    """`F1` is no field of precision_recall (its F1 is `F1-score`), and positive_label is a
    setting: both fail at start-up, before any pass."""
    code, _, err = paddle(["train", "--config=pr.py", "--save_dir=out", "--num_passes=1", "--keep_best=F1"], wine)
    assert code == 1 and "Traceback" not in err
    assert ("--keep_best=F1: the config reports no metric 'F1'; choose one of: cost, F1-score, "
            "classification_error_evaluator, positive_label, precision, recall") in err
    code, _, err = paddle(["train", "--config=pr.py", "--save_dir=out", "--num_passes=1",
                           "--keep_best=positive_label"], wine)
    assert code == 1 and "Traceback" not in err
    assert "positive_label is a count or a setting" in err
    assert not os.path.exists(os.path.join(wine, "out", "pass-00000"))
