"""A save_dir belongs to one config: passes of another config are refused (or removed with
--overwrite), a pass loaded into another network names the config that trained it, and
save_dir/best steers only the run that resumes it (issue 28: a stale or planted `best`)."""
import json
import os
import re

import pytest

from test_cli import ROOT, paddle
from wine_csv import ZSCORE, write_wine

pytest.importorskip("sklearn")
TEST_COST = re.compile(r"\]  Test samples=\d+ cost=(\S+)", re.M)


def train(folder, *flags, config="wine.py"):
    return paddle(["train", "--config=" + config, "--save_dir=out", "--dot_period=0"] + list(flags), folder)


def best_target(folder):
    return os.readlink(os.path.join(folder, "out", "best"))


@pytest.fixture
def wine(tmp_path):
    write_wine(str(tmp_path), preprocess=ZSCORE)
    write_wine(str(tmp_path), "wide.py", hidden=48, preprocess=ZSCORE)
    return str(tmp_path)


def test_a_save_dir_of_another_config_is_refused_naming_both(wine):
    code, _, log = train(wine, "--num_passes=2")
    assert code == 0, log[-2000:]
    code, _, err = train(wine, "--num_passes=1", config="wide.py")
    assert code == 1
    line = err.strip().splitlines()[-1]
    assert line == ("paddle train: --save_dir=out holds 2 passes of another config: pass-00000 was trained with "
                    "%s, this run is %s. Use another --save_dir, or --overwrite to remove them"
                    % (os.path.join(wine, "wine.py"), os.path.join(wine, "wide.py"))), line
    assert sorted(os.listdir(os.path.join(wine, "out"))) == ["pass-00000", "pass-00001"]  # untouched

    code, _, log = train(wine, "--num_passes=1", "--overwrite", config="wide.py")
    assert code == 0, log[-2000:]
    assert "--overwrite: removing %s (trained with %s)" % (os.path.join("out", "pass-00001"),
                                                           os.path.join(wine, "wine.py")) in log
    assert sorted(os.listdir(os.path.join(wine, "out"))) == ["pass-00000"]
    with open(os.path.join(wine, "out", "pass-00000", "metrics.json")) as f:
        assert json.load(f)["config"]["file"] == os.path.join(wine, "wide.py")


def test_the_same_network_under_another_name_may_continue(wine):
    """The fingerprint is the network's, not the file name's."""
    code, _, log = train(wine, "--num_passes=1")
    assert code == 0, log[-2000:]
    with open(os.path.join(wine, "wine.py")) as f, open(os.path.join(wine, "renamed.py"), "w") as g:
        g.write(f.read())
    code, _, log = train(wine, "--num_passes=2", "--start_pass=1", config="renamed.py")
    assert code == 0, log[-2000:]
    assert sorted(os.listdir(os.path.join(wine, "out"))) == ["pass-00000", "pass-00001"]


def test_init_model_path_errors_name_the_config_of_the_pass(wine):
    code, _, log = train(wine, "--num_passes=1")
    assert code == 0, log[-2000:]
    code, _, err = paddle(["train", "--config=wide.py", "--save_dir=other", "--num_passes=1",
                           "--init_model_path=out/pass-00000"], wine)
    assert code == 1
    line = err.strip().splitlines()[-1]
    assert "out/pass-00000 was trained with %s (another network than %s)" % (
        os.path.join(wine, "wine.py"), os.path.join(wine, "wide.py")) in line, line


def test_loading_another_networks_pass_says_whose_it_is(wine):
    """Fine-tuning from a pass of another network with the same parameters is allowed; the log
    names the config it came from."""
    code, _, log = train(wine, "--num_passes=1")
    assert code == 0, log[-2000:]
    with open(os.path.join(wine, "wine.py")) as f, open(os.path.join(wine, "tanh.py"), "w") as g:
        g.write(f.read().replace("ReluActivation", "TanhActivation"))
    code, _, log = paddle(["train", "--config=tanh.py", "--save_dir=tuned", "--num_passes=1", "--dot_period=0",
                           "--init_model_path=out/pass-00000"], wine)
    assert code == 0, log[-2000:]
    assert "Loaded parameters from out/pass-00000 (trained with %s, another network)" % os.path.join(
        wine, "wine.py") in log


def test_a_fresh_run_is_not_steered_by_the_last_runs_best(wine):
    """Issue 28: a second, improving run in the same save_dir took the first run's best as
    its own, early-stopped, --keep_last deleted its passes, and `best` kept pointing at the
    first run's pass."""
    code, _, log = train(wine, "--num_passes=6", "--keep_best=cost")
    assert code == 0, log[-2000:]
    assert best_target(wine) == "pass-00005"
    code, _, log = train(wine, "--num_passes=4", "--keep_best=cost", "--early_stop_patience=2", "--keep_last=1")
    assert code == 0, log[-2000:]
    assert "Early stop" not in log  # (it stopped after 2 passes: "best 0.0126 at pass 5")
    costs = [float(c) for c in TEST_COST.findall(log)]
    assert len(costs) == 4
    best = costs.index(min(costs))
    assert best_target(wine) == "pass-%05d" % best
    with open(os.path.join(wine, "out", "best", "metrics.json")) as f:
        assert json.load(f)["test"]["AvgCost"] == pytest.approx(costs[best], rel=1e-5)
    assert "Removing %s -> pass-00005 from an earlier run: this run starts at pass 0" % os.path.join(
        "out", "best") in log


def test_a_planted_best_is_ignored(wine, tmp_path):
    """A `best` link to a directory outside save_dir whose metrics claim a perfect cost."""
    planted = tmp_path / "elsewhere" / "pass-00000"
    planted.mkdir(parents=True)
    (planted / "metrics.json").write_text(json.dumps({"best": {"pass": 0, "cost": 0.0}}))
    (planted / "done").write_text("")
    os.makedirs(os.path.join(wine, "out"))
    os.symlink(str(planted), os.path.join(wine, "out", "best"))
    code, _, log = train(wine, "--num_passes=3", "--keep_best=cost", "--early_stop_patience=1")
    assert code == 0, log[-2000:]
    assert "Early stop" not in log and best_target(wine).startswith("pass-0000")  # (it stopped: "best 0")
    assert "Removing %s -> %s from an earlier run" % (os.path.join("out", "best"), planted) in log

    # resuming does not take it either
    os.remove(os.path.join(wine, "out", "best"))
    os.symlink(str(planted), os.path.join(wine, "out", "best"))
    code, _, log = train(wine, "--num_passes=4", "--start_pass=3", "--keep_best=cost", "--early_stop_patience=1")
    assert code == 0, log[-2000:]
    assert best_target(wine) == "pass-00003" and "Early stop" not in log
    assert "it does not point to a pass directory inside out" in log


def test_resuming_takes_the_best_of_its_own_passes_only(wine):
    code, _, log = train(wine, "--num_passes=3", "--keep_best=cost")
    assert code == 0, log[-2000:]
    first = [float(c) for c in TEST_COST.findall(log)]
    code, _, log = train(wine, "--num_passes=4", "--start_pass=3", "--keep_best=cost")
    assert code == 0, log[-2000:]
    assert "Resuming the best pass so far: %d (cost=" % first.index(min(first)) in log


def _train_commands(readme):
    """(directory, save_dir, config, config args) of each `paddle train` in a README's
    code blocks, following `cd`s; save_dir relative to the repository."""
    import shlex
    folder = os.path.dirname(readme)
    with open(readme) as f:
        text = f.read().replace("\\\n", " ")
    out = []
    for block in re.findall(r"```sh\n(.*?)```", text, re.S):
        cwd = folder
        for line in block.splitlines():
            for part in line.split("#")[0].split("&&"):
                words = shlex.split(part)
                if words[:1] == ["cd"] and len(words) == 2:  # from the demo's folder, else the repository's
                    there = os.path.join(cwd, words[1])
                    cwd = os.path.normpath(there if os.path.isdir(there) else os.path.join(ROOT, words[1]))
                elif words[:2] == ["paddle", "train"]:
                    flags = dict(w[2:].split("=", 1) for w in words[2:] if w.startswith("--") and "=" in w)
                    if "save_dir" in flags:
                        out.append((os.path.normpath(os.path.join(cwd, flags["save_dir"])), flags.get("config"),
                                    flags.get("config_args", "")))
    return out


def test_demo_readmes_give_every_model_its_own_save_dir():
    """One README's commands must not train two configs (or config args) into one save_dir:
    the second run would be refused, or with --overwrite replace the first one's passes."""
    import glob
    owners = {}
    for readme in sorted(glob.glob(os.path.join(ROOT, "demos", "*", "README.md"))):
        for save_dir, config, config_args in _train_commands(readme):
            owners.setdefault(save_dir, set()).add((config, config_args))
    shared = {os.path.relpath(d, ROOT): sorted(o) for d, o in owners.items() if len(o) > 1}
    assert shared == {}
    assert len(owners) >= 15
