"""Every model of configs/ (.py and .yaml) trains a pass out of the box on the synthetic
reader: `paddle train --config=configs/X --num_passes=1`. The YAML twins read their own
synthetic sources, here 8 training and 4 test samples (file lists of the same names in the
working directory come first); the Python configs read what `--data=synthetic:8` puts in
their place (8 training, 2 test samples, their types inferred from the model alone)."""
import glob
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CONFIGS = sorted(glob.glob(os.path.join(ROOT, "configs", "*.py")) + glob.glob(os.path.join(ROOT, "configs", "*.yaml")))
PASS = re.compile(r"\]  Pass=0 Batch=\d+ samples=(\d+) AvgCost=(\S+)")
TEST = re.compile(r"\]  Test samples=(\d+) cost=(\S+)")


@pytest.fixture(scope="module")
def tiny_data(tmp_path_factory):
    work = tmp_path_factory.mktemp("configs")
    (work / "synthetic_train.list").write_text("8\n")
    (work / "synthetic_test.list").write_text("4\n")
    return work


def test_ten_models_in_both_languages():
    names = [os.path.basename(c) for c in CONFIGS]
    assert len(names) == 20 and {os.path.splitext(n)[1] for n in names} == {".py", ".yaml"}


@pytest.mark.parametrize("config", CONFIGS, ids=os.path.basename)
def test_one_pass_on_synthetic_data(config, tiny_data, monkeypatch, capfd):
    from paddle.trainer.cli import main
    monkeypatch.chdir(tiny_data)
    save = str(tiny_data / ("out-" + os.path.basename(config)))
    flag = ["--data=synthetic:8"] if config.endswith(".py") else []
    assert main(["train", "--config=" + config, "--num_passes=1", "--save_dir=" + save,
                 "--dot_period=0"] + flag) == 0, capfd.readouterr().err[-3000:]
    log = capfd.readouterr().err
    (samples, cost), = PASS.findall(log)
    assert int(samples) == 8 and float(cost) == float(cost)  # trained, cost not NaN
    assert [int(n) for n, _ in TEST.findall(log)] == [2 if flag else 4]
    assert os.path.exists(os.path.join(save, "pass-00000", "done"))


def test_out_of_the_box_from_the_repository_root(tmp_path):
    """The lists beside the config are found from any working directory."""
    env = dict(os.environ)
    if glob.glob(os.path.join(ROOT, "py_paddle", "_swig_paddle*")):
        env["PYTHONPATH"] = ROOT
    p = subprocess.run([sys.executable, "-c", "import sys; from paddle.trainer.cli import main; sys.exit(main())",
                        "train", "--config=configs/mlp.py", "--num_passes=1", "--save_dir=" + str(tmp_path)],
                       cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    assert [int(s) for s, _ in PASS.findall(p.stderr)] == [64]


def test_data_flag_replaces_a_configs_own_data(tmp_path):
    """--data=synthetic runs a config whose data is not there (the demos' real-data paths)."""
    from paddle.trainer.cli import main
    config = tmp_path / "conf.py"
    config.write_text("from paddle.trainer_config_helpers import *\n"
                      "define_py_data_sources2('missing_train.list', 'missing_test.list', module='nowhere', obj='x')\n"
                      "settings(batch_size=4)\n"
                      "words = data_layer(name='words', size=50)\n"
                      "pooled = pooling_layer(input=embedding_layer(input=words, size=8), pooling_type=MaxPooling())\n"
                      "out = fc_layer(input=pooled, size=3, act=SoftmaxActivation())\n"
                      "outputs(classification_cost(input=out, label=data_layer(name='label', size=3)))\n")
    args = ["train", "--config=%s" % config, "--num_passes=1", "--save_dir=%s" % (tmp_path / "out"), "--dot_period=0"]
    assert main(args + ["--data=synthetic"]) == 0
    assert main(args + ["--data=synthetic:0"]) == 1
    assert main(args) == 1  # without the flag the config's provider is missing
