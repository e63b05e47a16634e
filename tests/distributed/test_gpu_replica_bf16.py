"""--allreduce_precision=bf16 for the GPUs of one process (--use_gpu=1 --trainer_count=N,
trainer/GpuCollective.h), on the stand-in GPU build (PADDLE_FAKE_GPU, two GPUs): GPU 1 sends its
gradients to GPU 0 as bfloat16 and GPU 0 adds them to its own in fp32, which a NumPy model of
the rounding reproduces bit for bit; the step's gradient bytes halve; the fp32 reduction keeps
its bits; the digits MLP still learns; and one process without GPU replicas refuses the flag."""
import os
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
MNIST = os.path.join(ROOT, "demos", "mnist")
CLI = "import sys; from paddle.trainer.cli import main; sys.exit(main())"

pytestmark = pytest.mark.skipif(os.environ.get("PADDLE_FAKE_GPU") == "1", reason="builds the stand-in GPU itself")


def _stand_in_env(engine):
    return dict(os.environ, PYTHONPATH=os.pathsep.join([engine, ROOT]), PADDLE_FAKE_GPU="1",
                OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")


@pytest.fixture(scope="module")
def one_step(fake_gpu_engine, tmp_path_factory):
    """gpu_replica_step.py's results: the step in fp32 and in bf16, each replica's own gradient."""
    out = tmp_path_factory.mktemp("step") / "step.npz"
    p = subprocess.run([sys.executable, os.path.join(HERE, "gpu_replica_step.py"), str(out)],
                       env=_stand_in_env(fake_gpu_engine), capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    return dict(np.load(out))


def bf16(x):
    """float32 -> bfloat16 -> float32 as the engine rounds: to nearest even, denormals to a
    signed zero, NaN kept (quiet)."""
    u = np.asarray(x, dtype=np.float32).view(np.uint32).copy()
    nan = (u & 0x7fffffff) > 0x7f800000
    denormal = (u & 0x7f800000) == 0
    rounded = u + np.uint32(0x7fff) + ((u >> 16) & 1)
    u = np.where(nan, u | 0x00400000, np.where(denormal, u & 0x80000000, rounded))
    return (u & np.uint32(0xffff0000)).astype(np.uint32).view(np.float32)


def test_the_numpy_model_rounds_like_bfloat16():
    x = np.array([1.0, 1 + 2 ** -8, 1 + 3 * 2 ** -8, 1 + 2 ** -8 + 2 ** -20, -2.5, 1e-40, -1e-40, np.inf, 3.4e38],
                 dtype=np.float32)
    got = bf16(x)
    # ties go to the even mantissa (1 + 2^-8 down, 1 + 3*2^-8 up), denormals to signed zeros,
    # a value past bfloat16's largest to infinity
    expected = np.array([1.0, 1.0, 1 + 2 ** -6, 1 + 2 ** -7, -2.5, 0.0, -0.0, np.inf, np.inf], dtype=np.float32)
    assert np.array_equal(got, expected) and np.signbit(got[6])
    assert np.isnan(bf16(np.array([np.nan], dtype=np.float32)))[0]


def _names(step):
    return sorted(k.split("/", 1)[1] for k in step if k.startswith("grad0/"))


def test_bf16_reduction_is_the_numpy_model_bit_for_bit(one_step):
    """GPU 0's gradient = g0 + bf16(g1), added in fp32 (the value after the step is minus it)."""
    names = _names(one_step)
    assert names
    for name in names:
        g0, g1 = one_step["grad0/" + name], one_step["grad1/" + name]
        assert np.abs(g1).min() > 0 and not np.array_equal(bf16(g1), g1)  # the rounding changes bits here
        model = -(g0 + bf16(g1))
        assert np.array_equal(one_step["bf16/" + name], model), name
        assert not np.array_equal(one_step["bf16/" + name], one_step["fp32/" + name]), name


def test_fp32_reduction_keeps_its_bits(one_step):
    for name in _names(one_step):
        model = -(one_step["grad0/" + name] + one_step["grad1/" + name])
        assert np.array_equal(one_step["fp32/" + name], model), name


def test_bf16_halves_the_gradient_bytes_per_step(one_step):
    floats = sum(one_step["grad0/" + name].size for name in _names(one_step))
    assert one_step["fp32/steps"] == one_step["bf16/steps"] == 1
    assert one_step["fp32/dense_bytes"] == floats * 4  # GPU 1's fp32 gradient, once
    assert one_step["bf16/dense_bytes"] * 2 == one_step["fp32/dense_bytes"]


def _digits(tmp_path):
    for name in ("mnist_provider.py", "train.list", "test.list"):
        shutil.copy(os.path.join(MNIST, name), str(tmp_path))
    text = open(os.path.join(MNIST, "mlp.py")).read()
    text = text.replace("outputs(classification_cost", "classification_error_evaluator(input=predict, label=label)\n"
                                                       "    outputs(classification_cost")
    (tmp_path / "digits.py").write_text(text)
    return "digits.py"


@pytest.mark.slow
def test_two_stand_in_gpus_in_bf16_still_learn_the_digits(fake_gpu_engine, tmp_path):
    """paddle train passes --allreduce_precision to a single-process multi-GPU trainer."""
    config = _digits(tmp_path)
    logs = {}
    for precision in ("bf16", "fp32"):
        p = subprocess.run([sys.executable, "-c", CLI, "train", "--config=" + config, "--num_passes=2", "--seed=7",
                            "--dot_period=0", "--log_period=0", "--use_gpu=1", "--trainer_count=2",
                            "--allreduce_precision=" + precision, "--save_dir=" + str(tmp_path / precision)],
                           cwd=str(tmp_path), env=_stand_in_env(fake_gpu_engine), capture_output=True, text=True,
                           timeout=900)
        assert p.returncode == 0, p.stderr[-3000:]
        logs[precision] = p.stderr
    for precision, log in logs.items():  # (after 2 passes both reach about 0.03 here)
        errors = [float(e) for e in re.findall(r" Test .*?classification_error_evaluator=([0-9.e-]+)", log)]
        assert len(errors) == 2 and errors[-1] < 0.1, log[-2000:]  # chance is 0.9
    params = {}
    for precision in ("bf16", "fp32"):
        pass_dir = tmp_path / precision / "pass-00001"
        params[precision] = {f.name: np.fromfile(f, dtype=np.float32)[4:] for f in sorted(pass_dir.iterdir())
                             if f.is_file() and f.name.startswith("_")}
    assert sorted(params["bf16"]) == sorted(params["fp32"]) and params["fp32"]
    # the rounding really happened, and stayed small
    assert any(not np.array_equal(params["bf16"][k], params["fp32"][k]) for k in params["fp32"])
    assert all(np.abs(params["bf16"][k] - params["fp32"][k]).max() < 0.05 for k in params["fp32"])


@pytest.mark.parametrize("flags", [["--use_gpu=0", "--trainer_count=2"], ["--use_gpu=0", "--trainer_count=1"]],
                         ids=["cpu_replicas", "one_cpu"])
def test_bf16_where_one_process_sends_nothing_is_a_clear_error(tmp_path, flags):
    """The engine under test (the CPU build): replicas that share memory send no gradients."""
    p = subprocess.run([sys.executable, "-c", CLI, "train", "--config=mlp.py", "--num_passes=1",
                        "--allreduce_precision=bf16", "--save_dir=" + str(tmp_path)] + flags,
                       cwd=MNIST, env=dict(os.environ, PYTHONPATH=ROOT), capture_output=True, text=True, timeout=300)
    assert p.returncode != 0 and "Traceback" not in p.stderr, p.stderr[-2000:]
    assert "--allreduce_precision=bf16" in p.stderr and "--use_gpu=1 --trainer_count=N > 1" in p.stderr, p.stderr[-2000:]
