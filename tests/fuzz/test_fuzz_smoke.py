"""tools/fuzz.py on a small sample (the full campaign is run by hand: see
docs/reliability.md), and its worker's classification of crashes, hangs and internal errors."""
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))

import fuzz  # noqa: E402
from fuzzlib import configs, runner  # noqa: E402

pytest.importorskip("py_paddle.swig_paddle")


def test_a_small_campaign_finds_no_crash_hang_internal_or_silent_case(tmp_path):
    seeds = [os.path.join(ROOT, p) for p in ("configs/mlp.py", "configs/mlp.yaml", "configs/text_lstm.py")]
    before = _tree_state()
    counts, bad = fuzz.run(24, 18, 9, seed=7, timeout=50, case_timeout=20, report=str(tmp_path / "r.json"),
                           seeds=seeds)
    assert bad == [], bad
    assert sum(counts["configs"].values()) + sum(counts["batches"].values()) + sum(counts["files"].values()) >= 30
    for name in ("configs", "batches", "files"):
        assert counts[name]["clean"] > 0, counts  # the damage is seen ...
    assert counts["configs"]["ok"] + counts["batches"]["ok"] + counts["files"]["ok"] > 0, counts  # ... and not all
    assert (tmp_path / "r.json").exists()
    assert _tree_state() == before  # a damaged config writing ./train.list writes it in its case directory


def _tree_state():
    return {os.path.join(d, f): os.stat(os.path.join(d, f)).st_mtime_ns
            for top in ("configs", "demos") for d, _, fs in os.walk(os.path.join(ROOT, top)) for f in fs}


def test_same_seed_same_mutants():
    import random
    a = [configs.mutate(configs.SEEDS[0], random.Random(3)) for _ in range(5)]
    b = [configs.mutate(configs.SEEDS[0], random.Random(3)) for _ in range(5)]
    assert a == b
    assert any(m != open(configs.SEEDS[0]).read() for m in a)


def test_the_worker_sees_crashes_hangs_and_internal_errors(tmp_path):
    worker = runner.Worker(str(tmp_path))
    try:
        def outcome(**case):
            return worker.run(dict(case, campaign="selftest"), 15)["outcome"]
        assert outcome(action="ok") == "ok"
        assert outcome(action="kill") == "crash"
        assert outcome(action="abort") == "crash"
        assert outcome(action="exit") == "crash"
        assert outcome(action="raise", type="ValueError") == "clean"
        assert worker.run({"campaign": "selftest", "action": "sleep"}, 2)["outcome"] == "hang"
        assert outcome(action="ok") == "ok"  # restarted
        assert worker.restarts == 4
    finally:
        worker.stop()


def _raised_in(filename, exc_type):
    try:
        exec(compile("raise %s('x')" % exc_type.__name__, filename, "exec"), {})
    except exc_type as e:
        return e


def test_classification(tmp_path):
    import paddle
    from paddle.trainer.config_parser import ConfigError
    assert runner.classify(ConfigError("conf.py:3: fc_layer 'x': size must be positive"))[0] == "clean"
    assert runner.classify(ConfigError("size must be positive"))[0] == "unlocated"
    in_project = os.path.join(os.path.dirname(paddle.__file__), "parser", "somewhere.py")
    assert runner.classify(_raised_in(in_project, TypeError))[0] == "internal"
    assert runner.classify(_raised_in(in_project, ValueError))[0] == "clean"
    user = str(tmp_path / "conf.py")
    assert runner.classify(_raised_in(user, TypeError), {user})[0] == "clean"  # the config's own bug
    assert runner.classify(runner.Outcome("silent", "nan cost"))[0] == "silent"
