"""Which passes `paddle train` keeps (--keep_last, --keep_best, --early_stop_patience), and
the command line itself: help with defaults, exact flag names, --version, config args
everywhere, the CPU features `paddle version` reports, and a prediction config under
--job=test."""
import argparse
import json
import os
import re

import pytest

from paddle.trainer import cli
from paddle.trainer.checkpoints import BestPass, UsageError
from test_cli import DEMO, LOG_PASS, LOG_TEST, paddle


def _dirs(path):
    return sorted(os.listdir(path))


def test_keep_last_keeps_the_best_pass_too(tmp_path):
    """--keep_best=...:max makes the worst pass the best (direction given explicitly), so the
    kept set is {best, last} with the best early: retention deletes everything else."""
    out = str(tmp_path / "out")
    code, _, log = paddle(["train", "--config=mlp.py", "--save_dir=" + out, "--num_passes=4", "--dot_period=0",
                           "--keep_last=1", "--keep_best=classification_error_evaluator:max"], DEMO)
    assert code == 0, log[-2000:]
    errors = [float(t[2]) for t in LOG_TEST.findall(log)]
    best = errors.index(max(errors))  # the first of equal values stays the best
    assert best < 3
    assert _dirs(out) == sorted(["best", "pass-%05d" % best, "pass-00003"])
    assert os.readlink(os.path.join(out, "best")) == "pass-%05d" % best
    with open(os.path.join(out, "best", "metrics.json")) as f:
        saved = json.load(f)
    assert saved["best"] == {"pass": best, "classification_error_evaluator": pytest.approx(errors[best])}
    assert saved["test"]["eval"]["classification_error_evaluator"] == pytest.approx(errors[best])
    assert saved["train"]["pass"] == best
    assert "Keeping the best pass by classification_error_evaluator (higher is better)" in log


def test_keep_best_by_cost_and_job_test_on_it(tmp_path):
    out = str(tmp_path / "out")
    code, _, log = paddle(["train", "--config=mlp.py", "--save_dir=" + out, "--num_passes=3", "--dot_period=0",
                           "--keep_best=cost", "--saving_period=100"], DEMO)
    assert code == 0, log[-2000:]
    costs = [float(t[1]) for t in LOG_TEST.findall(log)]
    best = costs.index(min(costs))
    # every new best is saved whatever --saving_period says, and the last pass too
    assert set(_dirs(out)) >= {"best", "pass-%05d" % best, "pass-00002"}
    assert "(lower is better)" in log
    code, _, err = paddle(["train", "--config=mlp.py", "--job=test", "--init_model_path=" + os.path.join(out, "best")],
                          DEMO)
    assert code == 0, err
    m = re.search(r"Pass=best samples=360 AvgCost=(\S+)", err)
    assert m and float(m.group(1)) == pytest.approx(costs[best], rel=1e-5)


def test_save_only_one_with_keep_best(tmp_path):
    out = str(tmp_path / "out")
    code, _, log = paddle(["train", "--config=mlp.py", "--save_dir=" + out, "--num_passes=3", "--dot_period=0",
                           "--save_only_one", "--keep_best=cost:max"], DEMO)
    assert code == 0, log[-2000:]
    costs = [float(t[1]) for t in LOG_TEST.findall(log)]
    best = costs.index(max(costs))
    assert _dirs(out) == sorted({"best", "pass-%05d" % best, "pass-00002"})


def test_resume_keeps_tracking_the_best_pass(tmp_path):
    """--start_pass reads the best so far from save_dir/best (its metrics.json)."""
    out = str(tmp_path / "out")
    common = ["train", "--config=mlp.py", "--save_dir=" + out, "--dot_period=0", "--keep_last=1",
              "--keep_best=cost:max"]
    code, _, log = paddle(common + ["--num_passes=2"], DEMO)
    assert code == 0, log[-2000:]
    first = [float(t[1]) for t in LOG_TEST.findall(log)]
    code, _, log = paddle(common + ["--num_passes=3", "--start_pass=2"], DEMO)
    assert code == 0, log[-2000:]
    costs = first + [float(t[1]) for t in LOG_TEST.findall(log)]
    best = costs.index(max(costs))
    assert _dirs(out) == sorted({"best", "pass-%05d" % best, "pass-00002"})
    assert os.readlink(os.path.join(out, "best")) == "pass-%05d" % best


def test_early_stopping_stops(tmp_path):
    """With the direction reversed (cost:max) the first pass stays the best while training
    improves, so patience 2 stops after pass 2."""
    out = str(tmp_path / "out")
    code, _, log = paddle(["train", "--config=mlp.py", "--save_dir=" + out, "--num_passes=10", "--dot_period=0",
                           "--early_stop_patience=2", "--keep_best=cost:max"], DEMO)
    assert code == 0, log[-2000:]
    assert [int(p[0]) for p in LOG_PASS.findall(log)] == [0, 1, 2]
    assert "Early stop: cost has not improved for 2 passes (best" in log
    assert "pass-00002" in _dirs(out)  # the pass it stopped at is saved, to resume from


def test_unknown_keep_best_metric_is_a_clear_error_at_start_up(tmp_path):
    """Checked against the config's evaluators before the first pass, not after its test."""
    code, _, err = paddle(["train", "--config=mlp.py", "--save_dir=" + str(tmp_path), "--num_passes=2",
                           "--dot_period=0", "--keep_best=accuracy", "--early_stop_patience=3"], DEMO)
    assert code == 1 and "Traceback" not in err
    assert ("--keep_best=accuracy (the metric of --early_stop_patience): the config reports no metric "
            "'accuracy'; choose one of: cost, classification_error_evaluator") in err
    assert not LOG_PASS.findall(err) and not os.path.exists(tmp_path / "pass-00000")


def test_keep_best_metric_may_be_any_field_of_an_evaluator(tmp_path):
    """A chunk evaluator reports precision and recall besides its F1: every field is a metric."""
    from py_paddle import swig_paddle as api
    from paddle.trainer.config_parser import parse_config
    from paddle.proto import message_to_json
    tc = parse_config(os.path.join(DEMO, "..", "..", "configs", "crf_tagger.py"), "")
    api.initPaddle("--use_gpu=0")
    trainer = api.Trainer.create(message_to_json(tc), False, 1, 1)
    for name in ("cost", "precision", "recall", tc.model_config.evaluators[0].name):
        cli._check_metric(name, trainer, "--keep_best=" + name)
    with pytest.raises(UsageError, match=r"--keep_best=F1: the config reports no metric 'F1'; choose one of: "
                                         r"cost, (\S+, )*precision, recall, ") as err:
        cli._check_metric("F1", trainer, "--keep_best=F1")
    assert all(ev.name in str(err.value) for ev in tc.model_config.evaluators)


# Typed evaluator fields as Trainer.getTestEvalFields() gives them: (name, value, higher_is_better).
_FIELDS = [("err", 0.1, False), ("auc", 0.9, True), ("precision", 0.5, True), ("F1-score", 0.4, True),
           ("chunk_f1", 0.3, True), ("true_chunks", 12.0, None), ("edit", 0.2, False)]


@pytest.mark.parametrize("spec,higher", [
    ("cost", False), ("err", False), ("auc", True), ("precision", True), ("chunk_f1", True), ("F1-score", True),
    ("err:max", True), ("auc:min", False), ("edit", False), ("true_chunks:max", True)])
def test_keep_best_direction(spec, higher):
    assert BestPass(spec, 0, _FIELDS).higher is higher


def test_keep_best_of_a_count_needs_a_direction():
    with pytest.raises(UsageError, match="true_chunks is a count or a setting.*add :min or :max"):
        BestPass("true_chunks", 0, _FIELDS)


def test_best_pass_counts_passes_without_improvement():
    best = BestPass("cost", 2, [])
    results = [3.0, 2.0, 2.5, 2.0, 1.0, 1.5, 1.2]
    stops = []
    for i, v in enumerate(results):
        best.update(i, {"AvgCost": v, "eval": {}})
        stops.append(best.should_stop())
    assert (best.best_pass, best.best_value) == (4, 1.0)
    assert stops == [False, False, False, True, False, False, True]
    with pytest.raises(UsageError):
        BestPass("cost:up", 0, [])


# ---------------------------------------------------------------- the command line
def test_help_shows_every_flag_with_its_default():
    text = cli._train_parser().format_help()
    flat = re.sub(r"\s+", " ", text)
    shown = [a for a in cli._train_parser()._actions if a.help is not argparse.SUPPRESS and a.dest != "help"]
    assert len(shown) == 55  # v1's honoured flags, the monitoring/checkpoint ones (--profile too), --data_sharding,
    # --data, --skip_nonfinite_batches, --precision, --recompute, the seven that say how gradients travel under mpiexec and
    # --collective_timeout, --local, --overwrite and --check_health, and v1's flags of
    # paddle/trainer/v1_flags.py (9)
    for action in shown:
        flag = action.option_strings[0]
        m = re.search(re.escape(flag) + r" \S+ (.*?)\(default: ([^)]*)\)", flat)
        assert m, flag
    assert "--num_passes NUM_PASSES passes to train (job=test: last pass + 1) (default: 100)" in flat
    assert "--use_gpu [0|1] run on the GPU (default: 0)" in flat
    assert "--progress {auto,bar,log}" in flat
    code, out, _ = paddle(["train", "--help"], DEMO)
    assert code == 0 and "(default: 100)" in out and "--keep_best" in out


@pytest.mark.parametrize("args,meant", [(["train", "--config=mlp.py", "--num_pass=1"], "--num_passes"),
                                        (["train", "--config=mlp.py", "--log_per=5"], "--log_period"),
                                        (["dump_config", "mlp.py", "--who"], "--whole"),
                                        (["predict", "--config=mlp.py", "--model_dir=x", "--output=o",
                                          "--form=npy"], "--format")])
def test_abbreviated_flags_are_errors_that_name_the_flag_meant(args, meant):
    code, _, err = paddle(args, DEMO)
    assert code == 2 and "unrecognized arguments: " + args[-1] in err
    assert "(%s: did you mean %s?)" % (args[-1], meant) in err


def test_a_missing_config_file_is_named_with_the_directory(tmp_path):
    code, _, err = paddle(["train", "--config=nope.py"], str(tmp_path))
    assert code == 1 and err == "paddle train: --config=nope.py: no such file (in %s)\n" % tmp_path


def test_unknown_flags_and_commands_get_a_suggestion_only_when_one_is_close():
    p = cli._train_parser()
    assert p.suggestion("--save_dri=x") == "--save_dri=x: did you mean --save_dir?"
    assert p.suggestion("--learning_rate=0.1") is None and p.suggestion("positional") is None
    assert p.suggestion("--ports_nm=1") is None  # v1 flags accepted with a warning are not suggested
    code, _, err = paddle(["trian", "--config=mlp.py"], DEMO)
    assert code == 2 and "paddle: unknown command 'trian' (did you mean 'train'?)" in err
    code, _, err = paddle(["fit"], DEMO)
    assert code == 2 and "paddle: unknown command 'fit'\n" in err


def test_bare_booleans():
    args = cli._train_parser().parse_args(cli._normalize(["--config=c.py", "--use_gpu", "--save_only_one"]))
    assert args.use_gpu is True and args.save_only_one is True
    args = cli._train_parser().parse_args(cli._normalize(["--config=c.py", "--use_gpu=0", "--nosave_only_one"]))
    assert args.use_gpu is False and args.save_only_one is False


def test_version_flag_and_cpu_features():
    code, out, err = paddle(["--version"], DEMO)
    assert code == 0, err
    code2, out2, _ = paddle(["version"], DEMO)
    assert code2 == 0 and out == out2
    built = re.search(r"^    build SIMD: (.*)$", out, re.M).group(1).split()
    cpu = re.search(r"^    CPU SIMD: (.*)$", out, re.M).group(1).split()
    with open("/proc/cpuinfo") as f:
        flags = set(re.search(r"^(?:flags|Features)\s*:(.*)$", f.read(), re.M).group(1).split())
    for feature in ("sse4_2", "avx", "avx2", "fma", "avx512f"):
        assert (feature in cpu) == (feature in flags), feature
    assert set(built) <= set(cpu) | {"none"}  # the engine runs here, so its build fits this CPU
    assert re.search(r"with_avx: (ON|OFF)", out).group(1) == ("ON" if "avx" in built else "OFF")
    from py_paddle import cpu_dispatch
    if not cpu_dispatch.built_variants(cpu_dispatch.engine_dir()):  # pip install . builds one engine
        assert "    engine: one, built for the installing machine's CPU" in out, out
    code, out, _ = paddle(["train", "--version"], DEMO)
    assert code == 0 and ("withAvx: true" if "avx" in built else "withAvx: false") in out


def test_config_args_flag_works_for_every_subcommand(tmp_path):
    runs = {}
    for form in (["mlp.py", "is_predict=1"], ["mlp.py", "--config_args=is_predict=1"], ["mlp.py"]):
        code, out, err = paddle(["dump_config"] + form, DEMO)
        assert code == 0, err
        runs[" ".join(form)] = out
    assert runs["mlp.py is_predict=1"] == runs["mlp.py --config_args=is_predict=1"] != runs["mlp.py"]
    code, _, err = paddle(["dump_config", "mlp.py", "is_predict=1", "--config_args=is_predict=1"], DEMO)
    assert code == 2 and "config args given twice" in err
    dots = []
    for form in (["is_predict=1"], ["--config_args=is_predict=1"]):
        dot = str(tmp_path / ("d%d.dot" % len(dots)))
        code, _, err = paddle(["make_diagram", "mlp.py", dot] + form, DEMO)
        assert code == 0, err
        with open(dot) as f:
            dots.append(f.read())
    assert dots[0] == dots[1] and "cost" not in dots[0]


def test_testing_a_prediction_config_points_to_predictions(tmp_path):
    out = str(tmp_path / "out")
    code, _, err = paddle(["train", "--config=mlp.py", "--save_dir=" + out, "--num_passes=1", "--dot_period=0"], DEMO)
    assert code == 0, err
    code, _, err = paddle(["train", "--config=mlp.py", "--job=test", "--config_args=is_predict=1",
                           "--init_model_path=" + os.path.join(out, "pass-00000")], DEMO)
    assert code == 1 and "Traceback" not in err
    assert "AvgCost=0" not in err
    assert "--predict_output_dir=DIR" in err and "paddle predict" in err and "is_predict=1" in err
