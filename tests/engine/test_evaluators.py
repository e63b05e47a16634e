"""Evaluators against NumPy computations of the same metrics."""
import json

import numpy as np
import pytest

from netbuilder import Net, Seq, make_args
from py_paddle import swig_paddle as api


def run_evaluators(evaluators, slots_batches, sizes):
    """Data layers named by `sizes` feed the evaluators directly; returns the trainer."""
    net = Net()
    for name, size in sizes:
        net.data(name, size)
    net.output(sizes[0][0])
    model = net.config()
    model["evaluators"] = evaluators
    t = api.Trainer.create(json.dumps({"model_config": model, "opt_config": {"batch_size": 10}}), False, 1, 1)
    t.startTestPeriod()
    for slots in slots_batches:
        first = slots[0]
        n = len(first.starts) - 1 if isinstance(first, Seq) else len(first)
        t.testOneDataBatch(n, make_args(slots))
    t.finishTestPeriod()
    return t


def softmax_rows(rng, n, c):
    z = rng.randn(n, c)
    p = np.exp(z) / np.exp(z).sum(1, keepdims=True)
    return p.astype(np.float32)


def test_classification_error_top_k_and_weights():
    rng = np.random.RandomState(0)
    batches = [[softmax_rows(rng, 20, 5), rng.randint(0, 5, 20).astype(np.int32),
                rng.uniform(0.5, 2, (20, 1)).astype(np.float32)] for _ in range(3)]
    evs = [{"name": "top1", "type": "classification_error", "input_layers": ["p", "y", "w"]},
           {"name": "top2", "type": "classification_error", "input_layers": ["p", "y"], "top_k": 2}]
    t = run_evaluators(evs, batches, [("p", 5), ("y", 5), ("w", 1)])
    p = np.concatenate([b[0] for b in batches])
    y = np.concatenate([b[1] for b in batches])
    w = np.concatenate([b[2] for b in batches])[:, 0]
    wrong1 = p.argmax(1) != y
    rank = (p > p[np.arange(len(y)), y][:, None]).sum(1)
    top1, top2 = t.getTestEvalValues()
    assert top1 == pytest.approx((wrong1 * w).sum() / w.sum(), rel=1e-6)
    assert top2 == pytest.approx((rank >= 2).mean(), rel=1e-6)


def test_auc_matches_pairwise_definition():
    rng = np.random.RandomState(1)
    y = rng.randint(0, 2, 300).astype(np.int32)
    score = np.clip(0.3 * y + rng.rand(300) * 0.7, 0, 1).astype(np.float32)
    p = np.stack([1 - score, score], 1).astype(np.float32)
    t = run_evaluators([{"name": "auc", "type": "last-column-auc", "input_layers": ["p", "y"]}],
                       [[p[:150], y[:150]], [p[150:], y[150:]]], [("p", 2), ("y", 2)])
    pos, neg = score[y == 1], score[y == 0]
    expected = ((pos[:, None] > neg[None, :]).sum() + 0.5 * (pos[:, None] == neg[None, :]).sum()) / (len(pos) * len(neg))
    assert t.getTestEvalValues()[0] == pytest.approx(expected, abs=1e-3)
    assert t.getTestEval().startswith("auc=")


def test_precision_recall_positive_label_and_macro():
    rng = np.random.RandomState(2)
    p = softmax_rows(rng, 200, 3)
    y = rng.randint(0, 3, 200).astype(np.int32)
    evs = [{"name": "pr1", "type": "precision_recall", "input_layers": ["p", "y"], "positive_label": 1},
           {"name": "pr", "type": "precision_recall", "input_layers": ["p", "y"]}]
    t = run_evaluators(evs, [[p, y]], [("p", 3), ("y", 3)])
    pred = p.argmax(1)
    prec = [((pred == c) & (y == c)).sum() / max((pred == c).sum(), 1) for c in range(3)]
    rec = [((pred == c) & (y == c)).sum() / max((y == c).sum(), 1) for c in range(3)]
    f1 = 2 * prec[1] * rec[1] / (prec[1] + rec[1])
    text = t.getTestEval()
    assert text.startswith("pr1=positive_label=1 ") or "positive_label=1 precision=" in text
    assert float(text.split("precision=")[1].split()[0]) == pytest.approx(prec[1], rel=1e-5)
    assert t.getTestEvalValues()[0] == pytest.approx(f1, rel=1e-5)
    mp, mr = np.mean(prec), np.mean(rec)
    assert t.getTestEvalValues()[1] == pytest.approx(2 * mp * mr / (mp + mr), rel=1e-5)
    assert "micro-average-precision=" in text


def test_sum_column_sum_and_pnpair():
    rng = np.random.RandomState(3)
    x = rng.randn(30, 4).astype(np.float32)
    y = rng.randint(0, 3, 30).astype(np.int32)
    q = rng.randint(0, 4, 30).astype(np.int32)
    evs = [{"name": "s", "type": "sum", "input_layers": ["x"]},
           {"name": "c", "type": "last-column-sum", "input_layers": ["x"]},
           {"name": "pn", "type": "pnpair", "input_layers": ["x", "y", "q"]}]
    t = run_evaluators(evs, [[x, y, q]], [("x", 4), ("y", 3), ("q", 4)])
    s, c, pn = t.getTestEvalValues()
    assert s == pytest.approx(x.sum() / 30, rel=1e-5)
    assert c == pytest.approx(x[:, -1].sum() / 30, rel=1e-5)
    pos = neg = 0
    for i in range(30):
        for j in range(i + 1, 30):
            if q[i] != q[j] or y[i] == y[j] or x[i, -1] == x[j, -1]:
                continue
            if (y[i] > y[j]) == (x[i, -1] > x[j, -1]):
                pos += 1
            else:
                neg += 1
    assert pn == pytest.approx(pos / neg)


def test_printers_do_not_touch_the_eval_line(capfd):
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    evs = [{"name": "vp", "type": "value_printer", "input_layers": ["x"]},
           {"name": "mp", "type": "max_id_printer", "input_layers": ["x"], "num_results": 2}]
    t = run_evaluators(evs, [[x]], [("x", 3)])
    assert t.getTestEval() == ""
    err = capfd.readouterr().err
    assert "vp: layer=x value:\n0 1 2\n3 4 5\n" in err
    assert "mp: layer=x ids:\n2 1\n2 1\n" in err


def test_unknown_evaluator_is_a_config_error():
    with pytest.raises(ValueError, match="evaluator 'e': unknown type 'f1'"):
        run_evaluators([{"name": "e", "type": "f1", "input_layers": ["x"]}], [], [("x", 2)])


# ------------------------------------------------------------------ chunk

SCHEME_TAGS = {"IOB": "BI", "IOE": "IE", "IOBES": "BIES", "plain": "I"}


def conll_chunks(ids, scheme, n_types):
    """(begin, end, type) chunks of one tag-id sequence, conlleval-style."""
    letters = SCHEME_TAGS[scheme]
    tags = []
    for i in ids:
        t, k = divmod(int(i), len(letters))
        tags.append(("O", None) if t == n_types else (letters[k], t))

    def ends(prev, cur):
        (p, pt), (c, ct) = prev, cur
        if p == "O":
            return False
        if c == "O" or pt != ct or p in "ES":
            return True
        return c in "BS"

    def starts(prev, cur):
        (p, pt), (c, ct) = prev, cur
        if c == "O":
            return False
        if p == "O" or pt != ct or c in "BS":
            return True
        return p in "ES"

    out, begin, prev = [], None, ("O", None)
    for i, cur in enumerate(tags):
        if begin is not None and ends(prev, cur):
            out.append((begin, i - 1, prev[1]))
            begin = None
        if starts(prev, cur):
            begin = i
        prev = cur
    if begin is not None:
        out.append((begin, len(tags) - 1, prev[1]))
    return out


@pytest.mark.parametrize("scheme", ["IOB", "IOE", "IOBES", "plain"])
@pytest.mark.parametrize("excluded", [[], [1]])
def test_chunk_evaluator_matches_conlleval_reference(scheme, excluded):
    rng = np.random.RandomState(len(scheme) + 7 * len(excluded))
    n_types = 3
    n_ids = n_types * len(SCHEME_TAGS[scheme]) + 1
    batches, lab_chunks, out_chunks = [], [], []
    for _ in range(3):
        lengths = rng.randint(1, 9, 6)
        starts = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)
        label = rng.randint(0, n_ids, starts[-1]).astype(np.int32)
        out = np.where(rng.rand(starts[-1]) < 0.8, label, rng.randint(0, n_ids, starts[-1])).astype(np.int32)
        batches.append([Seq(out, starts), Seq(label, starts)])
        for b, e in zip(starts[:-1], starts[1:]):
            lab_chunks.append(conll_chunks(label[b:e], scheme, n_types))
            out_chunks.append(conll_chunks(out[b:e], scheme, n_types))
    ev = {"name": "chunk", "type": "chunk", "input_layers": ["out", "label"], "chunk_scheme": scheme,
          "num_chunk_types": n_types}
    if excluded:
        ev["excluded_chunk_types"] = excluded
    t = run_evaluators([ev], batches, [("out", n_ids), ("label", n_ids)])
    keep = lambda cs: [c for c in cs if c[2] not in excluded]
    n_lab = sum(len(keep(c)) for c in lab_chunks)
    n_out = sum(len(keep(c)) for c in out_chunks)
    n_ok = sum(len(set(keep(o)) & set(keep(l))) for o, l in zip(out_chunks, lab_chunks))
    p, r = n_ok / n_out, n_ok / n_lab
    assert t.getTestEvalValues()[0] == pytest.approx(2 * p * r / (p + r), rel=1e-6)
    text = t.getTestEval()
    assert "true_chunks=%d result_chunks=%d correct_chunks=%d" % (n_lab, n_out, n_ok) in text
    assert "precision=%.4g" % p in text or abs(float(text.split("precision=")[1].split()[0]) - p) < 1e-5


def test_chunk_evaluator_config_and_data_errors():
    starts = np.array([0, 2], np.int32)
    ok = [Seq(np.array([0, 1], np.int32), starts), Seq(np.array([0, 9], np.int32), starts)]
    ev = {"name": "c", "type": "chunk", "input_layers": ["out", "label"], "chunk_scheme": "IOB"}
    with pytest.raises(ValueError, match="num_chunk_types"):
        run_evaluators([ev], [ok], [("out", 10), ("label", 10)])
    ev["num_chunk_types"] = 2
    with pytest.raises(ValueError, match="sequence 0 label token 1 is 9"):
        run_evaluators([ev], [ok], [("out", 10), ("label", 10)])
    ev["chunk_scheme"] = "BIO"
    with pytest.raises(ValueError, match="chunk_scheme"):
        run_evaluators([ev], [ok], [("out", 10), ("label", 10)])


# ------------------------------------------------------------- ctc_edit_distance

def levenshtein(a, b):
    d = np.arange(len(b) + 1)
    for i in range(1, len(a) + 1):
        prev, d[0] = d.copy(), i
        for j in range(1, len(b) + 1):
            d[j] = min(prev[j] + 1, d[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1]))
    return d[-1]


def test_ctc_edit_distance_matches_reference():
    rng = np.random.RandomState(4)
    k = 4  # classes, blank = 3
    frames = [5, 1, 7, 3, 4]
    fs = np.concatenate([[0], np.cumsum(frames)]).astype(np.int32)
    probs = softmax_rows(rng, fs[-1], k)
    labels = [list(rng.randint(0, k - 1, n)) for n in [3, 1, 0, 2, 4]]
    ls = np.concatenate([[0], np.cumsum([len(l) for l in labels])]).astype(np.int32)
    ids = np.array([c for l in labels for c in l], np.int32)
    t = run_evaluators([{"name": "ctc", "type": "ctc_edit_distance", "input_layers": ["p", "y"]}],
                       [[Seq(probs, fs), Seq(ids, ls)]], [("p", k), ("y", k)])
    errs, wrong = [], 0
    for s in range(len(frames)):
        best = probs[fs[s]:fs[s + 1]].argmax(1)
        dec = [c for i, c in enumerate(best) if c != k - 1 and (i == 0 or c != best[i - 1])]
        dist = levenshtein(labels[s], dec)
        n = max(len(labels[s]), len(dec))
        errs.append(dist / n if n else 0.0)
        wrong += dist != 0
    assert t.getTestEvalValues()[0] == pytest.approx(np.mean(errs), rel=1e-6)
    assert "sequence_error=%g" % (wrong / len(frames)) in t.getTestEval()


def test_seq_text_printer_writes_v1_one_line_per_sample(tmp_path):
    """One result per sample: v1's "id<TAB> w w ..." lines (a space before every word)."""
    (tmp_path / "dict.txt").write_text("a\nb\nc\n")
    out = tmp_path / "result.txt"
    ids = Seq(np.array([0, 1, 2, 2, 1], np.int32), [0, 3, 5])
    sample = np.array([7, 9], np.int32)
    evs = [{"name": "p", "type": "seq_text_printer", "input_layers": ["sid", "w"],
            "dict_file": str(tmp_path / "dict.txt"), "result_file": str(out)}]
    run_evaluators(evs, [[sample, ids]], [("sid", 10), ("w", 3)])
    assert out.read_text() == "7\t a b c\n9\t c b\n"


def test_seq_text_printer_nested_sequences_without_scores(tmp_path):
    out = tmp_path / "result.txt"
    ids = Seq(np.array([0, 1, 2, 2, 1, 0], np.int32), [0, 5, 6], sub_starts=[0, 3, 5, 6])
    evs = [{"name": "p", "type": "seq_text_printer", "input_layers": ["w"], "result_file": str(out),
            "delimited": False}]
    run_evaluators(evs, [[ids]], [("w", 3)])
    assert out.read_text() == "0\t012\n\t21\n\n1\t0\n\n"
