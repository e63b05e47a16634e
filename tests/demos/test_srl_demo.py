"""demos/semantic_role_labeling: db_lstm (stacked bidirectional LSTMs + CRF) learns
the synthetic argument rules far beyond a per-word majority tagger, predict.py
labels a new sentence, and the CoNLL-05 words/props preprocessing gives v1's
feature lines (YAML twins: test_yaml_twins.py)."""
import os
import re
import subprocess
import sys
from collections import Counter

from test_recommendation_demo import copy_demo, run

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEMO = os.path.join(ROOT, "demos", "semantic_role_labeling")
CHUNK_F1 = re.compile(r"\]  Test samples=(\d+) cost=\S+ Eval: __sum_evaluator_0__=\S+ __chunk_evaluator_0__=(\S+) ")


def chunks(labels):
    """(type, start, end) spans of an IOB label sequence (an I- without its B- starts a chunk)."""
    spans, kind, start = set(), None, 0
    for i, label in enumerate(list(labels) + ["O"]):
        if kind is not None and label == "I-" + kind:
            continue
        if kind is not None:
            spans.add((kind, start, i))
        kind, start = (None if label == "O" else label[2:]), i
    return spans


def f1(gold, predicted):
    right = sum(len(chunks(g) & chunks(p)) for g, p in zip(gold, predicted))
    n_gold, n_pred = sum(len(chunks(g)) for g in gold), sum(len(chunks(p)) for p in predicted)
    return 2.0 * right / (n_gold + n_pred) if n_gold + n_pred else 0.0


def majority_tagger_f1(conll05):
    """Every word gets its most frequent training label (the predicate: B-V)."""
    seen = {}
    for words, _, labels in conll05.synthetic("train", 2000):
        for w, l in zip(words, labels):
            seen.setdefault(w, Counter())[l] += 1
    test = conll05.synthetic("test", 500)
    predicted = [[seen[w].most_common(1)[0][0] if w in seen else "O" for w in words] for words, _, _ in test]
    return f1([labels for _, _, labels in test], predicted)


def test_db_lstm_beats_the_majority_tagger_and_predicts(tmp_path):
    work = copy_demo(tmp_path, DEMO)
    sys.path.insert(0, work)
    try:
        import conll05
        baseline = majority_tagger_f1(conll05)
        words, _, labels = conll05.synthetic("other", 1)[0]
    finally:
        sys.path.pop(0)
        sys.modules.pop("conll05", None)
    assert baseline < 0.6

    args = "--config_args=hidden_dim=32,depth=2,train_size=800,learning_rate=1e-2"
    err = run(["train", "--config=db_lstm.py", "--save_dir=output", "--num_passes=4", "--log_period=1000",
               "--dot_period=0", args], work).stderr
    scores = CHUNK_F1.findall(err)
    assert len(scores) == 4 and int(scores[-1][0]) == 500, err[-2000:]
    assert float(scores[-1][1]) >= 0.8 > baseline + 0.2, (scores, baseline)

    out = run(["predict.py", "output/pass-00003", " ".join(words), str(labels.index("B-V")), args], work,
              module=False).stdout.split()
    assert [pair.rsplit("/", 1)[0] for pair in out] == words
    predicted = [pair.rsplit("/", 1)[1] for pair in out]
    assert predicted[labels.index("B-V")] == "B-V" and sum(p == l for p, l in zip(predicted, labels)) >= len(words) - 2


WORDS = "The cat said it ate fish .\n\nYesterday he left .\n".replace(" ", "\n").replace("\n\n\n", "\n\n")
PROPS = """-    (A0*  *
-    *)    *
say  (V*)  *
-    (A1*  (A0*)
eat  *     (V*)
-    *     (A1*)
-    *)    *

-    (AM-TMP*)
-    (A0*)
leave (V*)
-    *
"""


def test_preprocess_reads_conll05_words_and_props(tmp_path):
    (tmp_path / "w").write_text(WORDS)
    (tmp_path / "p").write_text(PROPS)
    out = tmp_path / "out"
    run([os.path.join(DEMO, "data", "preprocess.py"), str(tmp_path / "w"), str(tmp_path / "p"), str(out)],
        str(tmp_path), module=False)
    lines = [l.split("\t") for l in (out / "feature").read_text().splitlines()]
    assert lines == [
        ["The cat said it ate fish .", "say", "The", "cat", "said", "it", "ate", "1 1 1 1 1 0 0",
         "B-A0 I-A0 B-V B-A1 I-A1 I-A1 I-A1"],
        ["The cat said it ate fish .", "eat", "said", "it", "ate", "fish", ".", "0 0 1 1 1 1 1",
         "O O O B-A0 B-V B-A1 O"],
        ["Yesterday he left .", "leave", "Yesterday", "he", "left", ".", "eos", "1 1 1 1", "B-AM-TMP B-A0 B-V O"]]
    assert (out / "targetDict.txt").read_text().split() == [
        "B-A0", "I-A0", "B-A1", "I-A1", "B-AM-TMP", "I-AM-TMP", "B-V", "I-V", "O"]
    assert (out / "verbDict.txt").read_text().split() == ["eat", "leave", "say"]
    assert (out / "wordDict.txt").read_text().split()[:3] == ["<unk>", "bos", "eos"]


def test_db_lstm_trains_on_preprocessed_conll05(tmp_path):
    """The real-data path end to end on the fixture: dictionaries and feature file from data/."""
    (tmp_path / "w").write_text(WORDS)
    (tmp_path / "p").write_text(PROPS)
    work = copy_demo(tmp_path, DEMO)
    run([os.path.join(work, "data", "preprocess.py"), str(tmp_path / "w"), str(tmp_path / "p"),
         os.path.join(work, "data")], work, module=False)
    err = run(["train", "--config=db_lstm.py", "--save_dir=output", "--num_passes=1", "--dot_period=0",
               "--config_args=dataset=conll05,hidden_dim=16,depth=2"], work).stderr
    assert CHUNK_F1.findall(err)[0][0] == "3"  # three predicates


def test_preprocess_names_a_mismatch(tmp_path):
    (tmp_path / "w").write_text("a\nb\n")
    (tmp_path / "p").write_text("-  *\n")
    p = subprocess.run([sys.executable, os.path.join(DEMO, "data", "preprocess.py"), str(tmp_path / "w"),
                        str(tmp_path / "p"), str(tmp_path / "o")], capture_output=True, text=True)
    assert p.returncode != 0 and "sentence 1: 2 words but 1 props rows" in p.stderr
