"""Optimizer state on disk: resume is byte-identical for every update rule, and damaged
state (updater.json, buffer files, a FIFO in place of a file) is an error naming the
file, never a crash, a hang or a silently different run."""
import json
import os

import pytest

from test_cli import DEMO, paddle

CONFIG = """
from paddle.trainer_config_helpers import *
define_py_data_sources2(train_list='train.list', test_list='test.list',
                        module='mnist_provider', obj='process', args={'dataset': 'digits'})
settings(batch_size=128, learning_rate=1e-3, learning_method=%s%s)
img = data_layer(name='pixel', size=64)
h = fc_layer(input=img, size=32, act=ReluActivation(), layer_attr=ExtraAttr(drop_rate=0.2))
out = fc_layer(input=h, size=10, act=SoftmaxActivation())
outputs(classification_cost(input=out, label=data_layer(name='label', size=10)))
"""
METHODS = ["MomentumOptimizer(momentum=0.9)", "AdamOptimizer()", "AdamaxOptimizer()", "AdaGradOptimizer()",
           "DecayedAdaGradOptimizer()", "RMSPropOptimizer()", "AdaDeltaOptimizer()"]
AVERAGE = ", model_average=ModelAverage(average_window=0.5, max_average_window=20)"


def write_config(tmp_path, method, average=""):
    conf = tmp_path / "conf.py"
    conf.write_text(CONFIG % (method, average))
    return ["train", "--config=" + str(conf), "--dot_period=0", "--seed=5"]


def files_of(directory):
    out = {}
    for base, _, names in os.walk(directory):
        for name in names:
            with open(os.path.join(base, name), "rb") as f:
                out[os.path.relpath(os.path.join(base, name), directory)] = f.read()
    return out


# Two cases run in the fast subset; the whole matrix is `slow`.
FAST = {("AdamOptimizer()", AVERAGE), ("MomentumOptimizer(momentum=0.9)", "")}
CASES = [pytest.param(m, a, id="%s-%s" % (m.split("(")[0], "average" if a else "plain"),
                      marks=() if (m, a) in FAST else pytest.mark.slow)
         for m in METHODS for a in ("", AVERAGE)]


@pytest.mark.parametrize("method, average", CASES)
def test_resume_writes_the_same_pass_directory_as_an_uninterrupted_run(method, average, tmp_path):
    common = write_config(tmp_path, method, average)
    full, part = str(tmp_path / "full"), str(tmp_path / "part")
    for args in (["--save_dir=" + full, "--num_passes=2"], ["--save_dir=" + part, "--num_passes=1"],
                 ["--save_dir=" + part, "--num_passes=2", "--start_pass=1"]):
        code, _, err = paddle(common + args, DEMO)
        assert code == 0, err
    a, b = files_of(os.path.join(full, "pass-00001")), files_of(os.path.join(part, "pass-00001"))
    assert "optimizer/updater.json" in a and sorted(a) == sorted(b)
    # metrics.json holds the pass's results, with its timings: the same but for those
    for files in (a, b):
        files["metrics.json"] = without_timings(json.loads(files["metrics.json"]))
    assert [n for n in a if a[n] != b[n]] == []


def without_timings(value):
    if isinstance(value, dict):
        return {k: without_timings(v) for k, v in value.items() if k not in ("time", "pass_time", "samples_per_sec")}
    return value


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """One pass of Adam with model averaging: a pass directory with optimizer state."""
    tmp = tmp_path_factory.mktemp("state")
    common = write_config(tmp, "AdamOptimizer()", AVERAGE)
    code, _, err = paddle(common + ["--save_dir=" + str(tmp / "out"), "--num_passes=1"], DEMO)
    assert code == 0, err
    return common, tmp / "out"


def resume_with(saved, tmp_path, damage):
    """Copies the saved run, applies `damage(optimizer_dir)` and resumes at pass 1."""
    common, out = saved
    copy = tmp_path / "out"
    for rel, data in files_of(str(out)).items():
        (copy / rel).parent.mkdir(parents=True, exist_ok=True)
        (copy / rel).write_bytes(data)
    damage(copy / "pass-00000" / "optimizer")
    return paddle(common + ["--save_dir=" + str(copy), "--num_passes=2", "--start_pass=1"], DEMO)


def edit_state(**changes):
    def damage(opt_dir):
        path = opt_dir / "updater.json"
        state = json.loads(path.read_text())
        state.update(changes)
        path.write_text(json.dumps(state))
    return damage


def test_state_lists_its_buffers_and_keeps_exact_counters(saved, tmp_path):
    state = json.loads((saved[1] / "pass-00000" / "optimizer" / "updater.json").read_text())
    assert state["buffers"] and all(state["buffers"].values())
    for name, kinds in state["buffers"].items():
        for kind in kinds:
            assert (saved[1] / "pass-00000" / "optimizer" / ("%s.%s" % (name, kind))).is_file()
    # A counter beyond 2^53 survives exactly (it went through a double before).
    code, _, err = resume_with(saved, tmp_path, edit_state(num_samples=2 ** 62 + 1))
    assert code == 0, err
    resumed = json.loads((tmp_path / "out" / "pass-00001" / "optimizer" / "updater.json").read_text())
    assert resumed["num_samples"] == 2 ** 62 + 1 + 1437


@pytest.mark.parametrize("changes, message", [
    ({"step": None}, "'step' is missing"),
    ({"step": -3}, "'step' is -3, below 1"),
    ({"num_samples": 2 ** 63}, "outside the 64-bit range"),
    ({"num_updates": "9223372036854775808"}, "outside the 64-bit range"),
    ({"num_updates": 1.5}, "expected an integer"),
    ({"update_counts": {"nonexistent": 3}}, "'nonexistent', not a parameter of this model"),
    ({"update_counts": []}, "'update_counts' must be an object"),
])
def test_malformed_state_is_refused_with_its_file(saved, tmp_path, changes, message):
    code, _, err = resume_with(saved, tmp_path, edit_state(**changes))
    assert code == 1 and message in err and "updater.json" in err and "Traceback" not in err, err


def test_deeply_nested_state_is_refused_not_a_stack_overflow(saved, tmp_path):
    def damage(opt_dir):
        (opt_dir / "updater.json").write_text("[" * 200000 + "]" * 200000)
    code, _, err = resume_with(saved, tmp_path, damage)
    assert code == 1 and "nested deeper than" in err and "updater.json" in err, err


def test_missing_buffer_file_is_an_error_not_zeros(saved, tmp_path):
    def damage(opt_dir):
        victim = sorted(p for p in os.listdir(opt_dir) if p.endswith(".momentum"))[0]
        os.remove(opt_dir / victim)
    code, _, err = resume_with(saved, tmp_path, damage)
    assert code == 1 and "is incomplete" in err and ".momentum' is missing" in err, err


def test_a_fifo_in_place_of_a_parameter_file_is_refused_not_a_hang(saved, tmp_path):
    def damage(opt_dir):
        victim = sorted(p for p in os.listdir(opt_dir.parent) if p.startswith("___"))[0]
        os.remove(opt_dir.parent / victim)
        os.mkfifo(opt_dir.parent / victim)
    code, _, err = resume_with(saved, tmp_path, damage)  # subprocess timeout guards a hang
    assert code == 1 and "is not a regular file" in err, err


def test_state_of_older_versions_without_a_buffer_list_still_resumes(saved, tmp_path):
    def damage(opt_dir):
        path = opt_dir / "updater.json"
        state = json.loads(path.read_text())
        del state["buffers"]
        path.write_text(json.dumps(state))
    code, _, err = resume_with(saved, tmp_path, damage)
    assert code == 0, err
