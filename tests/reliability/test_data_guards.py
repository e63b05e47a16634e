"""--skip_nonfinite_batches drops a non-finite batch without touching parameters or optimizer
state (logging each, stopping past the limit), and an empty sequence the engine refuses is
reported by provider, file and sample, not by its place in the batch."""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests", "cli"))

from test_cli import paddle  # noqa: E402

PROVIDER = """
from paddle.trainer.PyDataProvider2 import *

@provider(input_types=[dense_vector(4), integer_value(2)], should_shuffle=False)
def process(settings, filename):
    for i in range(60):
        if DROP and 20 <= i < 40:
            continue
        x = [0.5, -0.5, 1.0 + i % 7, float(i % 3)]
        if i == 25:  # the second batch of 20 holds a bad sample
            x[2] = float('nan')
        yield x, i % 2
"""
# batch_norm: its forward in training writes its moving averages, which a skipped batch must not
CONFIG = """
from paddle.trainer_config_helpers import *
define_py_data_sources2(train_list='train.list', test_list=None, module='provider', obj='process')
settings(batch_size=20, learning_rate=0.01, learning_method=AdamOptimizer(),
         model_average=ModelAverage(average_window=0.5, max_average_window=4))
h = fc_layer(input=data_layer(name='x', size=4), size=8, act=LinearActivation(), bias_attr=False)
bn = batch_norm_layer(input=h, act=TanhActivation())  # (relu would turn NaN into 0)
out = fc_layer(input=bn, size=2, act=SoftmaxActivation())
outputs(classification_cost(input=out, label=data_layer(name='y', size=2)))
"""


def job(directory, drop):
    os.makedirs(directory)
    with open(os.path.join(directory, "provider.py"), "w") as f:
        f.write(PROVIDER.replace("DROP", str(drop)))
    with open(os.path.join(directory, "conf.py"), "w") as f:
        f.write(CONFIG)
    with open(os.path.join(directory, "train.list"), "w") as f:
        f.write("unused\n")
    return ["train", "--config=conf.py", "--save_dir=out", "--dot_period=0", "--seed=2"]


def saved_state(directory):
    """Parameter files and optimizer state of the last pass, by relative path."""
    path = os.path.join(directory, "out", "pass-00001")
    files = {}
    for base, _, names in os.walk(path):
        for name in names:
            rel = os.path.relpath(os.path.join(base, name), path)
            if rel.startswith(("_", "optimizer")):
                with open(os.path.join(base, name), "rb") as f:
                    files[rel] = f.read()
    return files


def test_a_skipped_batch_leaves_parameters_and_optimizer_state_as_if_it_never_was(tmp_path):
    skipping, clean = str(tmp_path / "skip"), str(tmp_path / "clean")
    code, _, err = paddle(job(skipping, False) + ["--num_passes=2", "--skip_nonfinite_batches=2"], skipping)
    assert code == 0, err
    skips = re.findall(r"Skipped pass (\d), batch 2: the cost is nan; first non-finite output: layer 'x' \(data\) "
                       r"outputs nan \(--skip_nonfinite_batches=2\)", err)
    assert skips == ["0", "1"], err
    code, _, err = paddle(job(clean, True) + ["--num_passes=2"], clean)  # the same data without that batch
    assert code == 0, err
    a, b = saved_state(skipping), saved_state(clean)
    assert "optimizer/updater.json" in a and any(name.endswith("w1") for name in a), sorted(a)
    assert sorted(a) == sorted(b) and [name for name in a if a[name] != b[name]] == []


def test_past_the_limit_training_stops_naming_the_batch(tmp_path):
    d = str(tmp_path / "job")
    code, _, err = paddle(job(d, False) + ["--num_passes=2", "--skip_nonfinite_batches=1"], d)
    assert code == 1 and "Traceback" not in err, err
    assert "Skipped pass 0, batch 2" in err
    assert re.search(r"pass 1, batch 2: the cost is nan; .* \(1 batches skipped already, "
                     r"--skip_nonfinite_batches=1\)", err), err
    assert os.path.isdir(os.path.join(d, "out", "pass-00000")) and not os.path.exists(os.path.join(d, "out", "pass-00001"))


SEQ_PROVIDER = """
from paddle.trainer.PyDataProvider2 import *

@provider(input_types={'w': integer_value_sequence(10), 'tag': integer_value_sequence(3)}, should_shuffle=False)
def process(settings, filename):
    for i in range(6):
        n = 0 if (filename == 'b' and i == 2) else 1 + i % 3
        yield {'w': [(i + k) % 10 for k in range(n)], 'tag': [k % 3 for k in range(n)]}
"""
SEQ_CONFIG = """
from paddle.trainer_config_helpers import *
define_py_data_sources2(train_list='train.list', test_list='train.list', module='provider', obj='process')
settings(batch_size=4, learning_rate=0.01)
emb = embedding_layer(input=data_layer(name='w', size=10), size=4)
feat = fc_layer(input=emb, size=3, act=LinearActivation())
outputs(crf_layer(input=feat, label=data_layer(name='tag', size=3), size=3))
"""


def test_an_empty_sequence_is_reported_by_provider_file_and_sample(tmp_path):
    (tmp_path / "provider.py").write_text(SEQ_PROVIDER)
    (tmp_path / "conf.py").write_text(SEQ_CONFIG)
    (tmp_path / "train.list").write_text("a\nb\n")
    for job_flags in (["--job=train"], ["--job=train", "--trainer_count=2"]):
        code, _, err = paddle(["train", "--config=conf.py", "--save_dir=out", "--num_passes=1", "--dot_period=0"]
                              + job_flags, str(tmp_path))
        assert code == 1 and "Traceback" not in err, err
        assert re.search(r"provider\.py:process, file list entry 1 'b', sample 2, slot 0 'w' .*: an empty sequence "
                         r"\(layer '__crf_layer_0__': sequence \d is empty", err), err
