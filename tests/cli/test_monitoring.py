"""What `paddle train` reports: the start-up summary, v1's lines (with time, samples/s and
learning rate added to the pass line) or a progress bar on a terminal, the metrics file,
TensorBoard events and `paddle plot`."""
import json
import os
import pty
import re
import select
import subprocess
import sys

import pytest

from paddle.trainer.monitor import summary_lines
from test_cli import DEMO, LOG_BATCH, LOG_PASS, LOG_TEST, ROOT, paddle

PASSES = 3
BATCHES = 45  # 1437 digits in batches of 32


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """The digits MLP for a few passes with every report on; stderr is a pipe (no terminal)."""
    tmp = tmp_path_factory.mktemp("monitored")
    metrics, board = str(tmp / "metrics.jsonl"), str(tmp / "tb")
    code, _, log = paddle(["train", "--config=mlp.py", "--save_dir=" + str(tmp / "out"),
                           "--num_passes=%d" % PASSES, "--log_period=20", "--test_period=30",
                           "--metrics_file=" + metrics, "--tensorboard_dir=" + board], DEMO)
    assert code == 0, log[-3000:]
    with open(metrics) as f:
        records = [json.loads(line) for line in f]
    return {"log": log, "records": records, "board": board, "metrics": metrics, "tmp": tmp}


def test_start_up_summary_names_every_layer_once(run):
    log = run["log"]
    assert log.count("Network: ") == 1
    m = re.search(r"Network: (\d+) layers, (\d+) parameters \(([\d,]+) weights\), batch_size=32", log)
    assert m, log[:3000]
    # pixel(64) -> fc 512 -> fc 512 -> fc 10 (weights and biases), the label and the cost
    assert int(m.group(1)) == 6 and int(m.group(2)) == 6
    assert int(m.group(3).replace(",", "")) == 64 * 512 + 512 + 512 * 512 + 512 + 512 * 10 + 10
    for name, kind, size in (("pixel", "data", 64), ("__fc_layer_0__", "fc", 512), ("__fc_layer_2__", "fc", 10),
                             ("__cost_0__", "multi-class-cross-entropy", 1)):
        assert re.search(r"\]   %s +%s +%d$" % (re.escape(name), kind, size), log, re.M), name
    assert re.search(r"Train data: \S*train.list \(1 file\)", log)
    assert re.search(r"Test data: \S*test.list \(1 file\)", log)


def test_without_a_terminal_the_log_keeps_v1_lines(run):
    log = run["log"]
    passes = LOG_PASS.findall(log)
    assert [int(p[0]) for p in passes] == list(range(PASSES))
    assert len(LOG_BATCH.findall(log)) == 2 * PASSES
    assert "." * 19 + "\n" in log  # v1's dots between log lines
    assert "sample/s" not in log and "\r" not in log  # no progress bar


def test_metrics_file_matches_the_log(run):
    records, log = run["records"], run["log"]
    by_event = {e: [r for r in records if r["event"] == e] for e in ("batch", "pass", "test")}
    assert len(records) == sum(len(v) for v in by_event.values())
    assert [(r["pass"], r["batch"]) for r in by_event["batch"]] == [(p, b) for p in range(PASSES) for b in (20, 40)]
    # every test: at batch 30 (--test_period) and at the end of the pass
    assert [(r["pass"], r["batch"]) for r in by_event["test"]] == [(p, b) for p in range(PASSES) for b in (30, BATCHES)]
    common = {"event", "pass", "batch", "samples", "time", "AvgCost", "eval"}
    assert set(by_event["batch"][0]) == common | {"CurrentCost", "current_eval", "lr"}
    assert set(by_event["pass"][0]) == common | {"lr", "pass_time", "samples_per_sec"}
    assert set(by_event["test"][0]) == common
    times = [r["time"] for r in records]
    assert times == sorted(times) and times[0] > 0

    pass_lines = re.findall(r"\]  Pass=(\d+) Batch=(\d+) samples=(\d+) AvgCost=(\S+) Eval: "
                            r"classification_error_evaluator=(\S+) time=(\S+)s samples_per_sec=(\d+) lr=(\S+)$",
                            log, re.M)
    for line, r in zip(pass_lines, by_event["pass"]):
        assert (int(line[0]), int(line[1]), int(line[2])) == (r["pass"], r["batch"], r["samples"]) == \
            (r["pass"], BATCHES, 1437)
        assert float(line[3]) == pytest.approx(r["AvgCost"], rel=1e-5)
        assert float(line[4]) == pytest.approx(r["eval"]["classification_error_evaluator"], rel=1e-5)
        assert float(line[5]) == pytest.approx(r["pass_time"], abs=0.01)
        assert int(line[6]) == pytest.approx(r["samples_per_sec"], abs=1)
        assert r["samples_per_sec"] == pytest.approx(1437 / r["pass_time"], rel=0.01)
        assert float(line[7]) == pytest.approx(r["lr"]) and r["lr"] > 0
    tests = LOG_TEST.findall(log)
    assert len(tests) == len(by_event["test"])
    for (n, cost, error), r in zip(tests, by_event["test"]):
        assert (int(n), float(cost), float(error)) == (r["samples"], pytest.approx(r["AvgCost"], rel=1e-5),
                                                       pytest.approx(r["eval"]["classification_error_evaluator"],
                                                                     rel=1e-5))
    for r in by_event["batch"]:
        assert r["samples"] == 32 * r["batch"]
        assert set(r["current_eval"]) == set(r["eval"]) == {"classification_error_evaluator"}


def test_tensorboard_events_read_back(run):
    accumulator = pytest.importorskip("tensorboard.backend.event_processing.event_accumulator")
    events = accumulator.EventAccumulator(run["board"])
    events.Reload()
    tags = set(events.Tags()["scalars"])
    assert {"pass/AvgCost", "pass/classification_error_evaluator", "pass/lr", "pass/samples_per_sec",
            "test/AvgCost", "test/classification_error_evaluator", "train/AvgCost", "train/CurrentCost",
            "test_period/AvgCost"} <= tags
    passes = [r for r in run["records"] if r["event"] == "pass"]
    got = events.Scalars("pass/AvgCost")
    assert [e.step for e in got] == list(range(PASSES))
    assert [e.value for e in got] == pytest.approx([r["AvgCost"] for r in passes], rel=1e-6)
    end_tests = [r for r in run["records"] if r["event"] == "test" and r["batch"] == BATCHES]
    got = events.Scalars("test/classification_error_evaluator")
    assert [e.value for e in got] == pytest.approx([r["eval"]["classification_error_evaluator"] for r in end_tests],
                                                  rel=1e-6)
    assert [e.step for e in events.Scalars("train/AvgCost")] == [20, 40, 65, 85, 110, 130]


def _png(path):
    from PIL import Image
    with Image.open(path) as img:
        img.load()
        return img.format, img.size


@pytest.mark.parametrize("source", ["metrics", "log"])
def test_paddle_plot_draws_a_png(run, source, tmp_path):
    pytest.importorskip("matplotlib")
    path = run["metrics"]
    if source == "log":
        path = str(tmp_path / "train.log")
        with open(path, "w") as f:
            f.write(run["log"])
    out = str(tmp_path / "curves.png")
    code, stdout, err = paddle(["plot", path, "-o", out, "AvgCost", "classification_error_evaluator"], str(tmp_path))
    assert code == 0, err
    assert "wrote " + out in stdout
    fmt, size = _png(out)
    assert fmt == "PNG" and size[0] > 300 and size[1] > 200


def test_paddle_plot_reads_the_same_curves_from_both_sources(run):
    from paddle.trainer.monitor import read_metrics
    from paddle.utils.plotcurve import read_paddle_log
    keys = ["AvgCost", "classification_error_evaluator"]
    with open(run["metrics"]) as f:
        from_metrics = read_metrics(f, keys)
    from_log = read_paddle_log(run["log"].splitlines(), keys)
    assert from_metrics["pass"] == from_log["pass"] == list(range(PASSES))
    for side in ("train", "test"):
        for k in keys:
            assert from_metrics[side][k] == pytest.approx(from_log[side][k], rel=1e-5), (side, k)


def test_paddle_plot_of_an_unknown_key_fails(run, tmp_path):
    code, _, err = paddle(["plot", run["metrics"], "-o", str(tmp_path / "x.png"), "no_such_key"], str(tmp_path))
    assert code == 1 and "no_such_key" in err and not os.path.exists(str(tmp_path / "x.png"))


def _on_a_terminal(args, cwd):
    """Runs `paddle ARGS` with stderr (and stdout) on a pseudo-terminal; returns (code, output)."""
    master, slave = pty.openpty()
    env = dict(os.environ, PYTHONPATH=ROOT, COLUMNS="100")
    p = subprocess.Popen([sys.executable, "-c", "import sys; from paddle.trainer.cli import main; sys.exit(main())"]
                         + args, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=slave, stderr=slave)
    os.close(slave)
    chunks = []
    while True:
        ready, _, _ = select.select([master], [], [], 600)
        if not ready:
            p.kill()
            break
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    return p.wait(), b"".join(chunks).decode("utf-8", "replace")


def test_progress_bar_on_a_terminal(tmp_path):
    pytest.importorskip("tqdm")
    code, out = _on_a_terminal(["train", "--config=mlp.py", "--save_dir=" + str(tmp_path / "out"),
                                "--num_passes=2", "--log_period=1000"], DEMO)
    assert code == 0, out[-3000:]
    # the bar: rate in samples/s, a total and an ETA; in pass 0 the total appears once the provider
    # has read its file (the default pool reads it before the first batch), from pass 1 on it is known
    # (tqdm shows '?' for rate and ETA until its first refresh, which a quick pass may never reach)
    assert re.search(r"Pass 0: +\d+%\|.*\| *\d+/1437 \[[\d:]+<[\d:?]+, +[\d.?]+sample/s", out), out[-3000:]
    assert re.search(r"Pass 1: +\d+%\|.*\| *\d+/1437 \[[\d:]+<[\d:?]+, +[\d.?]+sample/s", out), out[-3000:]
    assert "....." not in out  # the bar replaces v1's dots
    assert len(re.findall(r"\]  Pass=\d+ Batch=45 samples=1437 AvgCost=", out)) == 2  # the log lines stay


def test_progress_bar_total_in_the_first_pass_from_the_reader(tmp_path):
    """The synthetic reader declares its sample count: pass 0's bar has its total from the start,
    and the start-up summary says how many samples the data holds."""
    pytest.importorskip("tqdm")
    (tmp_path / "synthetic_train.list").write_text("200\n100\n")
    (tmp_path / "synthetic_test.list").write_text("50\n")
    code, out = _on_a_terminal(["train", "--config=" + os.path.join(ROOT, "configs", "mlp.py"),
                                "--save_dir=" + str(tmp_path / "out"), "--num_passes=1"], str(tmp_path))
    assert code == 0, out[-3000:]
    assert re.search(r"Pass 0: +0%\| +\| 0/300 \[", out), out[-3000:]
    assert re.search(r"Train data: \S*synthetic_train.list \(2 files, 300 samples\)", out)
    assert re.search(r"Test data: \S*synthetic_test.list \(1 file, 50 samples\)", out)


def test_progress_log_on_a_terminal_keeps_v1_dots(tmp_path):
    code, out = _on_a_terminal(["train", "--config=mlp.py", "--save_dir=" + str(tmp_path / "out"),
                                "--num_passes=1", "--log_period=1000", "--progress=log"], DEMO)
    assert code == 0, out[-3000:]
    assert "." * 45 in out and "sample/s" not in out


def test_progress_bar_without_a_terminal_when_asked(tmp_path):
    pytest.importorskip("tqdm")
    code, _, err = paddle(["train", "--config=mlp.py", "--save_dir=" + str(tmp_path / "out"), "--num_passes=1",
                           "--progress=bar"], DEMO)
    assert code == 0, err[-2000:]
    assert "sample/s" in err and "....." not in err


def test_a_provider_keeping_its_own_num_samples_still_gets_a_pass_0_eta(tmp_path):
    """The sentiment demo's provider set `num_samples` (0: its default size) for itself: the
    start-up summary printed "0 samples" and pass 0 had no total, so no ETA. It now declares
    each pass's real count (the test split's too), and a declared 0 counts as unknown."""
    pytest.importorskip("tqdm")
    code, out = _on_a_terminal(["train", "--config=trainer_config.py", "--save_dir=" + str(tmp_path / "out"),
                                "--num_passes=1", "--log_period=1000"], os.path.join(ROOT, "demos", "sentiment"))
    assert code == 0, out[-3000:]
    assert " 0 samples" not in out
    assert "Train data: train.list (1 file, 4,000 samples)" in out
    assert "Test data: test.list (1 file, 1,000 samples)" in out
    assert re.search(r"Pass 0: +\d+%\|.*\| *\d+/4000 \[", out), out[-3000:]


def test_summary_and_bar_take_a_zero_estimate_for_unknown():
    from paddle.trainer.monitor import Monitor

    class Data(object):
        file_list, file_list_path = ["train"], "train.list"

        def expected_samples(self):
            return 0

    class Config(object):
        class model_config(object):
            layers, parameters = [], []

        class opt_config(object):
            batch_size = 8

    assert summary_lines(Config(), Data(), None)[-1] == "Train data: train.list (1 file)"
    monitor = Monitor(progress="log")
    monitor.start_pass(0, Data().expected_samples)
    assert monitor._expected() is None
