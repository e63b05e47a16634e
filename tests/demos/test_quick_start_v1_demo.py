"""demos/quick_start, v1's remaining configs and real-data path: the residual,
deep bidirectional and bidirectional LSTM configs learn the generated word-order
corpus (a bag of words stays at chance), predict.sh classifies sentences, and
the Amazon-reviews preprocessing writes v1's train.txt / test.txt / dict.txt,
which the configs then train on with dataset=amazon."""
import gzip
import json
import os
import re
import subprocess
import sys

import pytest

from test_recommendation_demo import copy_demo, environment, run

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEMO = os.path.join(ROOT, "demos", "quick_start")
CLS_TEST = re.compile(r"\]  Test samples=(\d+) cost=\S+ Eval: classification_error_evaluator=(\S+)$", re.M)


def train(work, config, passes, args):
    err = run(["train", "--config=" + config, "--save_dir=output", "--num_passes=%d" % passes, "--log_period=1000",
               "--dot_period=0", "--config_args=" + args], work).stderr
    errors = CLS_TEST.findall(err)
    assert len(errors) == passes, err[-2000:]
    return errors


@pytest.mark.parametrize("config", [
    "trainer_config.resnet-lstm.py",
    pytest.param("trainer_config.db-lstm.py", marks=pytest.mark.slow),
    pytest.param("trainer_config.bidi-lstm.py", marks=pytest.mark.slow)])
def test_v1_lstm_configs_learn_word_order_and_predict(config, tmp_path):
    work = copy_demo(tmp_path, DEMO)
    errors = train(work, config, 4, "hidden=32,depth=4")
    assert int(errors[-1][0]) == 500 and float(errors[-1][1]) <= 0.1, errors  # chance: 0.5

    env = environment()
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env["PATH"]  # the `paddle` command
    out = subprocess.run(["./predict.sh", config, "output/pass-00003", "hidden=32,depth=4"], cwd=work, env=env,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    rows = open(os.path.join(work, "result.txt")).read().splitlines()
    # pred.txt: "5 1 7 2 9" has A (1) before B (2): class 1; "9 2 8 8 1 4" the reverse: class 0
    probs = [[float(p) for p in row.split(";")[1].split()] for row in rows]
    assert len(probs) == 2 and probs[0][1] > 0.5 > probs[1][1], rows


def reviews():
    good = ["Great sound, works perfectly!", "I love this cable.", "Best purchase ever; five stars.",
            "Works great with my laptop.", "Excellent battery life!", "Perfect fit and great price."]
    bad = ["Broke after two days.", "Terrible sound, returned it.", "Doesn't work at all!",
           "Cheap plastic, stopped charging.", "Worst mouse I've owned.", "Arrived broken; no refund."]
    good += [t.replace(".", "!").replace("!", "!!") + " Really." for t in good[:5]]
    bad += [t + " Avoid." for t in bad[:5]]
    rows = [(5.0, t) for t in good] + [(1.0, t) for t in bad[:6]] + [(2.0, t) for t in bad[6:]]
    rows += [(3.0, "It is okay."), (4.0, "Pretty good."), (5.0, good[0]), (5.0, ""), (5.0, "More great stuff!")]
    return [json.dumps({"reviewerID": "A%d" % i, "overall": s, "reviewText": t, "summary": "x"})
            for i, (s, t) in enumerate(rows)]


def test_amazon_preprocessing_and_training_on_it(tmp_path):
    raw = tmp_path / "reviews_Electronics_5.json.gz"
    with gzip.open(str(raw), "wt") as f:
        f.write("\n".join(reviews()) + "\n")
    work = copy_demo(tmp_path, DEMO)
    data = os.path.join(work, "data")
    run([os.path.join(data, "preprocess.py"), str(raw), data], work, module=False)
    train_rows = [l.split("\t") for l in open(os.path.join(data, "train.txt")).read().splitlines()]
    test_rows = [l.split("\t") for l in open(os.path.join(data, "test.txt")).read().splitlines()]
    # 12 distinct positive (the duplicate and the empty text dropped), 11 negative: balanced to 11 + 11,
    # a tenth (1 of each) held out; 3 and 4 stars are neither
    assert len(train_rows) == 20 and len(test_rows) == 2
    assert sorted(l for l, _ in train_rows) == ["0"] * 10 + ["1"] * 10 and sorted(l for l, _ in test_rows) == ["0", "1"]
    texts = {t for _, t in train_rows + test_rows}
    assert "okay" not in " ".join(texts) and all(t == t.lower() for t in texts)
    assert "broke after two days ." in texts or "broke after two days . avoid ." in texts  # punctuation split off
    words = [l.split("\t") for l in open(os.path.join(data, "dict.txt")).read().splitlines()]
    assert words[0] == ["unk", "-1"] and all(int(a[1]) >= int(b[1]) for a, b in zip(words[1:], words[2:]))
    assert {w for w, _ in words} >= set(" ".join(texts).split())

    errors = train(work, "trainer_config.lstm.py", 1, "dataset=amazon")  # the real-data path end to end
    assert int(errors[0][0]) == 2


def test_amazon_preprocessing_names_a_bad_line(tmp_path):
    bad = tmp_path / "r.json"
    bad.write_text(reviews()[0] + "\n{not json\n")
    p = subprocess.run([sys.executable, os.path.join(DEMO, "data", "preprocess.py"), str(bad), str(tmp_path / "o")],
                       capture_output=True, text=True)
    assert p.returncode != 0 and "r.json:2: not a review" in p.stderr
