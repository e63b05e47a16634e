"""Evaluators report typed fields (name, value, higher_is_better): the log text is written
from them, each evaluator type has its direction, and the Trainer and Evaluator give them
as data for the pass, the log period and the test."""
import json

import numpy as np
import pytest

from netbuilder import Seq, make_args
from py_paddle import swig_paddle as api
from test_evaluators import run_evaluators, softmax_rows
from test_trainer import batches, mlp_config


def as_log_text(fields):
    """What the engine prints for `fields`: counts and settings as integers, the rest as %g."""
    return " ".join("%s=%s" % (name, "%d" % value if higher is None else "%g" % value)
                    for name, value, higher in fields)


def directions(fields):
    return [(name, higher) for name, _, higher in fields]


def test_every_evaluator_type_reports_named_fields_with_a_direction():
    rng = np.random.RandomState(5)
    p = softmax_rows(rng, 60, 3)
    y = rng.randint(0, 3, 60).astype(np.int32)
    q = rng.randint(0, 4, 60).astype(np.int32)
    evs = [{"name": "err", "type": "classification_error", "input_layers": ["p", "y"]},
           {"name": "s", "type": "sum", "input_layers": ["p"]},
           {"name": "c", "type": "last-column-sum", "input_layers": ["p"]},
           {"name": "auc", "type": "last-column-auc", "input_layers": ["p", "y"]},
           {"name": "pn", "type": "pnpair", "input_layers": ["p", "y", "q"]},
           {"name": "pr1", "type": "precision_recall", "input_layers": ["p", "y"], "positive_label": 1},
           {"name": "pr", "type": "precision_recall", "input_layers": ["p", "y"]},
           {"name": "vp", "type": "value_printer", "input_layers": ["p"]}]
    t = run_evaluators(evs, [[p, y, q]], [("p", 3), ("y", 3), ("q", 4)])
    fields = t.getTestEvalFields()
    assert directions(fields) == [
        ("err", False), ("s", False), ("c", False), ("auc", True), ("pn", True),
        ("positive_label", None), ("precision", True), ("recall", True), ("F1-score", True),
        ("macro-average-precision", True), ("macro-average-recall", True), ("macro-average-F1-score", True),
        ("micro-average-precision", True), ("micro-average-recall", True), ("micro-average-F1-score", True)]
    values = {name: value for name, value, _ in fields}
    # the evaluators' own values are fields, at full precision
    err, s, c, auc, pn, f1, macro_f1, _printer = t.getTestEvalValues()
    assert (values["err"], values["s"], values["c"], values["auc"], values["pn"]) == (err, s, c, auc, pn)
    assert values["F1-score"] == f1 and values["macro-average-F1-score"] == macro_f1
    assert values["positive_label"] == 1
    pred = p.argmax(1)
    assert values["precision"] == pytest.approx(((pred == 1) & (y == 1)).sum() / (pred == 1).sum())
    assert values["micro-average-precision"] == pytest.approx((pred == y).mean())
    # the log text is the fields, printed (the printer adds nothing)
    assert t.getTestEval() == as_log_text(fields) + " "


def test_sequence_evaluators_report_their_parts_and_counts():
    rng = np.random.RandomState(6)
    starts = np.array([0, 4, 9], np.int32)
    label = rng.randint(0, 7, 9).astype(np.int32)
    out = label.copy()
    out[2] = (out[2] + 1) % 7
    k = 4
    frames = np.array([0, 5, 8], np.int32)
    probs = softmax_rows(rng, 8, k)
    ids, id_starts = np.array([0, 1, 2], np.int32), np.array([0, 2, 3], np.int32)
    chunk = run_evaluators([{"name": "f1", "type": "chunk", "input_layers": ["out", "label"], "chunk_scheme": "IOB",
                             "num_chunk_types": 3}], [[Seq(out, starts), Seq(label, starts)]],
                           [("out", 7), ("label", 7)])
    fields = chunk.getTestEvalFields()
    assert directions(fields) == [("f1", True), ("precision", True), ("recall", True), ("true_chunks", None),
                                  ("result_chunks", None), ("correct_chunks", None)]
    assert all(float(v).is_integer() for _, v, better in fields if better is None)
    assert chunk.getTestEval() == as_log_text(fields) + " "
    ctc = run_evaluators([{"name": "ctc", "type": "ctc_edit_distance", "input_layers": ["p", "y"]}],
                         [[Seq(probs, frames), Seq(ids, id_starts)]], [("p", k), ("y", k)])
    fields = ctc.getTestEvalFields()
    assert directions(fields) == [("ctc", False), ("deletion_error", False), ("insertion_error", False),
                                  ("substitution_error", False), ("sequence_error", False)]
    assert fields[0][1] == ctc.getTestEvalValues()[0]
    assert ctc.getTestEval() == as_log_text(fields) + " "


def test_counts_print_as_whole_numbers_past_six_digits():
    """A count prints as an integer however large (a %g would write 1.23457e+06)."""
    n = 1234567
    starts = np.array([0, n], np.int32)
    tags = np.zeros(n, np.int32)  # B of type 0 everywhere: every token a chunk of its own
    t = run_evaluators([{"name": "f1", "type": "chunk", "input_layers": ["out", "label"], "chunk_scheme": "IOB",
                         "num_chunk_types": 1}], [[Seq(tags, starts), Seq(tags, starts)]], [("out", 3), ("label", 3)])
    assert "true_chunks=1234567 result_chunks=1234567 correct_chunks=1234567" in t.getTestEval()
    assert dict((name, v) for name, v, _ in t.getTestEvalFields())["true_chunks"] == n


def test_pass_period_and_machine_evaluator_fields():
    t = api.Trainer.create(json.dumps(mlp_config("adam")), False, 1, 3)
    t.startTrainPass(0)
    data = batches(6)
    for b in data[:3]:
        t.trainOneDataBatch(10, make_args(b))
    t.startPeriod()
    for b in data[3:]:
        t.trainOneDataBatch(10, make_args(b))
    (name, value, higher), = t.getPassEvalFields()
    assert (name, higher, value) == ("err", False, t.getPassEvalValues()[0])
    assert t.getPassEval() == "err=%g " % value
    (name, period, _), = t.getPeriodEvalFields()
    assert name == "err" and t.getPeriodEval() == "err=%g " % period
    gm = t.getGradientMachine()
    evaluator = gm.makeEvaluator()
    gm.forward(make_args(data[0]), api.Arguments.createArguments(0), api.PASS_TEST)
    gm.eval(evaluator)
    (name, value, higher), = evaluator.getFields()
    assert (name, higher, value) == ("err", False, evaluator.getValue("err"))
    assert repr(evaluator) == "err=%g " % value


def test_a_field_two_evaluators_report_keeps_the_later_ones_value_in_records():
    """The metrics record keeps v1's unqualified names: with two precision_recall evaluators
    `precision` is the second one's (the log line shows both)."""
    from paddle.trainer.monitor import Evals
    rng = np.random.RandomState(7)
    p = softmax_rows(rng, 80, 3)
    y = rng.randint(0, 3, 80).astype(np.int32)
    evs = [{"name": "pr%d" % c, "type": "precision_recall", "input_layers": ["p", "y"], "positive_label": c}
           for c in (1, 2)]
    t = run_evaluators(evs, [[p, y]], [("p", 3), ("y", 3)])
    evals = Evals.of_test(t)
    precisions = [v for name, v, _ in evals.fields if name == "precision"]
    assert len(precisions) == 2 and precisions[0] != precisions[1]
    assert evals.values()["precision"] == precisions[1] and evals.values()["positive_label"] == 2
    assert evals.text.count("precision=") == 2
    assert evals.log_text("Eval:") == " Eval: " + as_log_text(evals.fields)
