"""The engine's opt-in step timers (Trainer.setProfiling / getProfile) and the profile tables
benchmarks/run.py builds from them; the harness end to end without PyTorch. No time is asserted
beyond being counted."""
import os
import subprocess
import sys

import numpy as np
import pytest

from paddle.proto import message_to_json
from paddle.trainer.config_parser import parse_config
from py_paddle import step_profile, swig_paddle as api

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
import engine_profile  # noqa: E402

RUN = os.path.join(ROOT, "benchmarks", "run.py")
TINY = """
from paddle.trainer_config_helpers import *
settings(batch_size=8, learning_rate=0.01, learning_method=MomentumOptimizer(0.9))
x = data_layer(name='x', size=6)
h = fc_layer(input=x, size=5, act=TanhActivation(), name='hidden')
out = fc_layer(input=h, size=3, act=SoftmaxActivation(), name='out')
outputs(classification_cost(input=out, label=data_layer(name='y', size=3), name='cost'))
"""


@pytest.fixture
def trainer(tmp_path):
    path = tmp_path / "tiny.py"
    path.write_text(TINY)
    t = api.Trainer.create(message_to_json(parse_config(str(path), "")), False, 1, 1)
    t.startTrainPass(0)
    return t


def batch(seed):
    rng = np.random.RandomState(seed)
    a = api.Arguments.createArguments(2)
    a.setSlotValueFromBuffer(0, rng.rand(8, 6).astype(np.float32))
    a.setSlotIdsFromBuffer(1, rng.randint(0, 3, 8).astype(np.int32))
    return a


def test_timers_count_every_layer_and_the_update(trainer):
    with pytest.raises(Exception, match="setProfiling"):
        trainer.getProfile()
    trainer.trainOneDataBatch(8, batch(0))  # before profiling: not counted
    trainer.setProfiling(True)
    for i in range(3):
        trainer.trainOneDataBatch(8, batch(i))
    lines = [line.split("\t") for line in trainer.getProfile()]
    assert [(f[0], f[1]) for f in lines] == [("x", "data"), ("hidden", "fc"), ("out", "fc"), ("y", "data"),
                                             ("cost", "multi-class-cross-entropy"), ("(update)", "update")]
    assert all(len(f) == 5 and f[4] == "3" for f in lines)
    assert all(float(f[2]) >= 0 and float(f[3]) >= 0 for f in lines)
    assert float(lines[1][2]) > 0 and float(lines[1][3]) > 0 and float(lines[-1][2]) > 0
    trainer.setProfiling(True)  # restarts from zero
    trainer.trainOneDataBatch(8, batch(5))
    assert {line.split("\t")[4] for line in trainer.getProfile()} == {"1"}
    trainer.setProfiling(False)
    with pytest.raises(Exception, match="setProfiling"):
        trainer.getProfile()


def test_replicas_time_their_gradient_sum_and_say_whose_layers_are_timed(tmp_path):
    path = tmp_path / "tiny.py"
    path.write_text(TINY)
    t = api.Trainer.create(message_to_json(parse_config(str(path), "")), False, 2, 1)  # 2 replicas
    t.startTrainPass(0)
    assert t.getReplicaCount() == 2
    t.setProfiling(True)
    for i in range(3):
        t.trainOneDataBatch(8, batch(i))
    last = t.getProfile()[-1].split("\t")
    assert last[:2] == ["(replica sum)", "replicas"] and last[4] == "3" and float(last[2]) > 0
    assert "2 replicas" in step_profile.replicas_note(2) and "first" in step_profile.replicas_note(2)
    assert step_profile.replicas_note(1) == ""


def test_layer_rows_split_the_step(trainer):
    trainer.setProfiling(True)
    for i in range(2):
        trainer.trainOneDataBatch(8, batch(i))
    lines = list(trainer.getProfile())
    timed_ms = sum(1e3 * (float(l.split("\t")[2]) + float(l.split("\t")[3])) for l in lines) / 2
    rows = step_profile.layer_rows(lines, steps=2, step_ms=timed_ms * 2)
    assert len(rows) == len(lines) + 1 and rows[0]["name"] == "(rest)"
    assert rows[0]["pct"] == pytest.approx(50.0)
    assert sum(r["pct"] for r in rows) == pytest.approx(100.0)
    assert [r["ms"] for r in rows] == sorted((r["ms"] for r in rows), reverse=True)
    types = step_profile.by_type(rows)
    fc = next(t for t in types if t["type"] == "fc")
    assert fc["layers"] == 2 and fc["ms"] == pytest.approx(sum(r["ms"] for r in rows if r["type"] == "fc"))
    header, table = step_profile.layer_table(rows, top=3)
    assert len(table) == 3 and all(len(line) == len(header) for line in table)


def test_kernel_rows_read_perf_reports():
    report = """# Samples: 2K of event 'cpu-clock:ppp'
#
# Overhead  Shared Object            Symbol
# ........  .......................  ......
#
    41.50%  libscipy_openblas32.so   [.] sgemm_kernel_SKYLAKEX
    12.25%  _swig_paddle.so          [.] paddle::im2colBatch(float const*, float*)
     0.75%  [kernel.kallsyms]        [k] clear_page_erms
"""
    rows = engine_profile.kernel_rows(report, step_ms=20.0, top=2)
    assert [(r["dso"], r["pct"]) for r in rows] == [("libscipy_openblas32.so", 41.5), ("_swig_paddle.so", 12.25)]
    assert rows[1]["symbol"] == "paddle::im2colBatch(float const*, float*)"
    assert rows[0]["ms"] == pytest.approx(8.3)


FAKE_PERF = """#!%s
# `perf record ... -p PID -- sleep S` that starts recording late, as on a loaded machine, and,
# as the real one, exits 143 when PID ends before S seconds are over; `perf report` prints a line
import os, sys, time
if sys.argv[1] == "report":
    print("    90.00%%  _swig_paddle.so  [.] paddle::step()")
    sys.exit(0)
pid, seconds = int(sys.argv[sys.argv.index("-p") + 1]), float(sys.argv[-1])
time.sleep(1.5)
end = time.time() + seconds
while time.time() < end:
    try:
        with open("/proc/%%d/stat" %% pid) as f:
            ended = f.read().rsplit(")", 1)[1].split()[0] in "ZX"  # exited (a zombie until reaped)
    except OSError:
        ended = True
    if ended:
        sys.exit(143)
    time.sleep(0.05)
open(sys.argv[sys.argv.index("-o") + 1], "w").close()
"""
FAKE_CHILD = """
import sys, time
sys.path.insert(0, %r)
import engine_profile
class Trainer(object):
    def trainOneDataBatch(self, batch, args):
        time.sleep(0.002)
engine_profile.child_perf(Trainer(), 1, [None], float(sys.argv[-1]), warmup_s=0.1)
"""


@pytest.mark.slow  # a longer training: the whole suite (CI) runs it
def test_kernel_view_survives_a_perf_that_starts_late(tmp_path, monkeypatch):
    """Under load perf may start recording a second or more after the child is warm: the child
    must keep training until perf is done (it trained a fixed time and perf exited 143)."""
    (tmp_path / "perf").write_text(FAKE_PERF % sys.executable)
    (tmp_path / "perf").chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path) + os.pathsep + os.environ["PATH"])
    child = [sys.executable, "-c", FAKE_CHILD % os.path.join(ROOT, "benchmarks")]
    report, step_ms = engine_profile.run_perf_child(child, seconds=1.0)
    assert "paddle::step()" in report and 2.0 <= step_ms < 50


def env_without_torch(tmp_path):
    """PYTHONPATH with a `torch` that cannot be imported, ahead of the real one."""
    (tmp_path / "torch.py").write_text("raise ImportError('torch must not be needed here')\n")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path)] + [p for p in sys.path if p])
    return env


def test_without_torch_the_default_run_times_ours_alone(tmp_path):
    """Both frameworks are the default: without PyTorch the run says so once and measures ours."""
    md = tmp_path / "table.md"
    p = subprocess.run([sys.executable, RUN, "--bench", "mlp", "--threads", "1", "--repeats", "1", "--md", str(md)],
                       capture_output=True, text=True, timeout=300, env=env_without_torch(tmp_path))
    assert p.returncode == 0, p.stderr
    assert p.stderr.count("note: PyTorch is not installed, so this run times our engine alone") == 1
    head, row = p.stdout.splitlines()[:2]
    assert head.split()[:4] == ["bench", "engine", "threads", "samples/s"] and row.split()[:3] == ["mlp", "paddle", "1"]
    table = [line for line in md.read_text().splitlines() if line.startswith("| mlp")]
    assert len(table) == 1 and table[0].split(" | ")[1:3] == ["paddle", "1"]
    assert "Note: PyTorch is not installed" in md.read_text()
    p = subprocess.run([sys.executable, RUN, "--bench", "mlp", "--frameworks", "torch"], capture_output=True,
                       text=True, timeout=120, env=env_without_torch(tmp_path))
    assert p.returncode == 1 and p.stderr.strip() == "PyTorch is not installed: pip install torch==2.13.0"


@pytest.mark.slow  # a longer training: the whole suite (CI) runs it
def test_profile_prints_the_tables(tmp_path):
    p = subprocess.run([sys.executable, RUN, "--profile", "--bench", "mlp", "--threads", "1", "--top", "4"],
                       capture_output=True, text=True, timeout=300, env=env_without_torch(tmp_path))
    assert p.returncode == 0, p.stderr
    out = p.stdout
    assert "== mlp, 1 thread(s):" in out
    types = out.split("layer type")[1].split("\n\n")[0].splitlines()[1:]
    assert sorted(line.split()[0] for line in types) == ["data", "fc", "multi-class-cross-entropy", "untimed",
                                                         "update"]
    assert sum(float(line.split()[-1].rstrip("%")) for line in types) == pytest.approx(100.0, abs=0.3)
    layers = out.split("\nlayer  ")[1].split("\n\n")[0].splitlines()
    assert len(layers) == 1 + 4 and layers[0].split()[:2] == ["type", "forward"]
    if engine_profile.perf_available():
        kernels = out.split("kernels (perf")[1].split("\n\n")[1].splitlines()
        assert kernels[0].split()[:2] == ["function", "library"] and len(kernels) > 2
    else:
        assert "no kernel view" in out


def test_paddle_train_profile_logs_the_layers(tmp_path):
    p = subprocess.run([sys.executable, "-c", "import sys; from paddle.trainer.cli import main; sys.exit(main())",
                        "train", "--config=mlp.py", "--num_passes=1", "--dot_period=0", "--profile",
                        "--save_dir=" + str(tmp_path)], cwd=os.path.join(ROOT, "demos", "mnist"),
                       capture_output=True, text=True, timeout=300,
                       env=dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p)))
    assert p.returncode == 0, p.stderr
    err = p.stderr
    assert err.count("Profile of pass 0:") == 1
    layer_lines = [l for l in err.splitlines() if "% of step" in l or l.rstrip().endswith("%")]
    assert any("(update)" in l for l in layer_lines) and any("(rest)" in l for l in layer_lines)
    assert any(" fc " in l for l in layer_lines)
