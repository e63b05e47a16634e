"""demos/sentiment: the nets learn the generated reviews (label = majority opinion, with
negation) through `paddle train`; predict.py classifies new sentences with the saved
pass; preprocess.py turns an aclImdb-laid-out tarball into what the provider reads,
and a pass trains on it."""
import io
import os
import shutil
import tarfile

import pytest

from demo_run import CLI, ROOT, TEST_ERROR, run

DEMO = os.path.join(ROOT, "demos", "sentiment")


@pytest.fixture
def work(tmp_path):
    path = str(tmp_path / "sentiment")
    shutil.copytree(DEMO, path, ignore=shutil.ignore_patterns("output", "data", "__pycache__"))
    os.makedirs(os.path.join(path, "data"))
    return path


def train(work, config_args, passes, precision="fp32"):
    log = run(CLI + ["train", "--config=trainer_config.py", "--save_dir=output", "--num_passes=%d" % passes,
                     "--config_args=" + config_args, "--log_period=0", "--dot_period=0",
                     "--precision=" + precision], work)
    return [(int(n), float(e)) for n, e in TEST_ERROR.findall(log)], log


def test_convolution_net_learns_and_predicts(work):
    errors, log = train(work, "net=conv", 3)  # v1's sizes, 4000 training reviews
    assert len(errors) == 3 and errors[-1][0] == 1000, log[-2000:]
    assert errors[-1][1] < 0.1, errors  # chance is 0.5

    reviews = ["a wonderful and brilliant film", "the plot was not good , the acting awful",
               "the movie was never boring", "zzz unknown words"]
    out = run(["predict.py", "--model", "output/pass-00002", "--config_args=net=conv"] + reviews, work)
    out = [line for line in out.split("\n") if line.split(" ")[0] in ("pos", "neg", "?")]
    assert out[3].startswith("? no known word")
    rows = [line.split(" ", 2) for line in out[:3]]
    assert [r[2] for r in rows] == reviews[:3]
    assert all(0.0 <= float(r[1]) <= 1.0 and r[0] == ("pos" if float(r[1]) > 0.5 else "neg") for r in rows)
    assert [r[0] for r in rows] == ["pos", "neg", "pos"], out


@pytest.mark.parametrize("precision", ["fp32", "bf16"])
def test_stacked_lstm_net_learns(work, precision):
    errors, log = train(work, "net=stacked_lstm,hid_dim=128", 5, precision)
    assert len(errors) == 5, log[-2000:]
    assert errors[-1][1] < 0.25, errors  # chance is 0.5


REVIEWS = {  # (split, label folder) -> reviews, in aclImdb's raw form (HTML breaks, punctuation)
    ("train", "pos"): ["A great film!<br /><br />I loved it.", "Superb acting, wonderful story.",
                       "Great fun; great cast.", "I loved the music.", "Wonderful."],
    ("train", "neg"): ["An awful, boring mess.", "Terrible plot.<br />Bad acting.", "I hated it!",
                       "Boring boring boring.", "Awful music."],
    ("test", "pos"): ["Loved it, great.", "A wonderful film.", "Superb!", "Brilliant."],
    ("test", "neg"): ["Boring.", "Awful film.", "A mess.", "Terrible!"],
}


def write_imdb_tarball(path):
    with tarfile.open(path, "w:gz") as tar:
        for (split, label), texts in REVIEWS.items():
            for i, text in enumerate(texts):
                data = text.encode()
                info = tarfile.TarInfo("aclImdb/%s/%s/%d_%d.txt" % (split, label, i, 9 if label == "pos" else 2))
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
        info = tarfile.TarInfo("aclImdb/README")  # other members are ignored
        info.size = 2
        tar.addfile(info, io.BytesIO(b"hi"))


def test_preprocess_reads_an_aclimdb_tarball_and_a_pass_trains_on_it(work):
    write_imdb_tarball(os.path.join(work, "data", "aclImdb_v1.tar.gz"))
    run(["preprocess.py", "-i", "data/aclImdb_v1.tar.gz", "-o", "data/pre-imdb"], work)
    pre = os.path.join(work, "data", "pre-imdb")
    with open(os.path.join(pre, "labels.list")) as f:
        assert f.read() == "neg\t0\npos\t1\n"
    for split in ("train", "test"):
        with open(os.path.join(pre, split + ".list")) as f:
            assert f.read().split() == [os.path.join(pre, split + "_part_000")]
        with open(os.path.join(pre, split + "_part_000")) as f:
            rows = [line.rstrip("\n").split("\t\t") for line in f]
        want = sorted((str(int(label == "pos")), text) for (s, label), texts in REVIEWS.items() if s == split
                      for text in texts)
        got = sorted(rows)
        assert [r[0] for r in got] == [w[0] for w in want]
        assert all("<br" not in text and text == text.lower() for _, text in rows)
        if split == "train":
            assert ["1", "a great film ! i loved it ."] in rows  # HTML breaks are spaces, marks are tokens
    with open(os.path.join(pre, "dict.txt")) as f:
        counts = [line.rstrip("\n").split("\t") for line in f]
    words = {w: int(c) for w, c in counts}  # of the training reviews only
    assert (words["boring"], words["great"], words["loved"], words["!"]) == (4, 3, 2, 2)
    assert "brilliant" not in words
    assert [int(c) for _, c in counts] == sorted(words.values(), reverse=True)

    # an extracted aclImdb folder gives the same files
    with tarfile.open(os.path.join(work, "data", "aclImdb_v1.tar.gz")) as tar:
        tar.extractall(os.path.join(work, "extracted"))
    run(["preprocess.py", "-i", "extracted/aclImdb", "-o", "from_folder"], work)
    for name in ("train_part_000", "test_part_000", "dict.txt", "labels.list"):
        with open(os.path.join(pre, name)) as a, open(os.path.join(work, "from_folder", name)) as b:
            assert sorted(a) == sorted(b), name

    errors, log = train(work, "dataset=imdb,net=conv,emb_dim=8,hid_dim=8", 1)
    assert errors and errors[-1][0] == 8, log[-2000:]  # all 8 test reviews have known words


def test_bad_config_args_are_config_errors():
    code = ("from paddle.trainer.config_parser import parse_config\n"
            "for a in ['net=gru', 'stacked_num=2', 'dataset=imdb']:\n"
            "    try:\n"
            "        parse_config('trainer_config.py', a)\n"
            "    except Exception as e:\n"
            "        print(type(e).__name__, e)\n")
    out = run(["-c", code], DEMO).strip().split("\n")
    assert out[0] == "ConfigError trainer_config.py:34: net must be stacked_lstm, conv or bilstm, got 'gru'"
    # the check is in the helper module: its file:line
    assert out[1].startswith("ConfigError sentiment_net.py:55:") and "stacked_num must be odd, got 2" in out[1]
    assert out[2].startswith("ConfigError dataprovider.py:") and "run data/get_data.sh first" in out[2]


def test_bidirectional_lstm_net_trains(work):
    errors, log = train(work, "net=bilstm,num_samples=500,emb_dim=8,hid_dim=8", 1)
    assert len(errors) == 1 and errors[0][0] == 100, log[-2000:]
    saved = os.listdir(os.path.join(work, "output", "pass-00000"))
    assert {"___bidirectional_lstm_0___fw.w0", "___bidirectional_lstm_0___bw.w0"} <= set(saved), saved
