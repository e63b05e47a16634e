"""Every model of configs/ (.py and .yaml) trains a pass out of the box on the synthetic
reader: `paddle train --config=configs/X --num_passes=1`. The runs here read 8 training and
4 test samples (file lists of the same names in the working directory come first)."""
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
    assert main(["train", "--config=" + config, "--num_passes=1", "--save_dir=" + save,
                 "--dot_period=0"]) == 0, capfd.readouterr().err[-3000:]
    log = capfd.readouterr().err
    (samples, cost), = PASS.findall(log)
    assert int(samples) == 8 and float(cost) == float(cost)  # trained, cost not NaN
    assert [int(n) for n, _ in TEST.findall(log)] == [4]
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
