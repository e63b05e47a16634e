"""The GPU code paths, checked on a machine without a GPU. A second build of the engine
(PADDLE_FAKE_GPU=1, engine/FakeGpu.cpp) runs its GPU entry points on the CPU and keeps
"device" memory mprotect'ed outside kernels and copies; the engine tests then run with every
network on that GPU (PADDLE_TEST_USE_GPU=1). A host-side read or write of device data, the
error a CPU-only machine cannot otherwise see, crashes that run with a segmentation fault."""
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


@pytest.mark.slow
@pytest.mark.skipif(os.environ.get("PADDLE_FAKE_GPU") == "1", reason="already the stand-in GPU run")
def test_engine_tests_pass_on_the_stand_in_gpu(fake_gpu_engine):
    env = dict(os.environ, PADDLE_ENGINE_DIR=fake_gpu_engine, PADDLE_FAKE_GPU="1", PADDLE_TEST_USE_GPU="1")
    p = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", HERE,
                        "-k", "not cuda_source and not kernel_bodies and not loops_reversed"],
                       env=env, capture_output=True, text=True, cwd=ROOT)
    assert p.returncode == 0, p.stdout[-4000:] + p.stderr[-2000:]
    passed = int(p.stdout.strip().splitlines()[-1].split(" passed")[0].split()[-1])
    assert passed > 300, p.stdout[-500:]


DISTRIBUTED = os.path.join(ROOT, "tests", "distributed")


def _train(engine, cwd, config, save_dir, *flags):
    """`paddle train` on the stand-in engine: its log (stderr)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([engine, ROOT, DISTRIBUTED]), PADDLE_FAKE_GPU="1",
               OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    cmd = [sys.executable, "-c", "import sys; from paddle.trainer.cli import main; sys.exit(main())", "train",
           "--config=" + config, "--num_passes=1", "--seed=7", "--dot_period=0", "--log_period=1",
           "--save_dir=" + str(save_dir)] + list(flags)
    p = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=900)
    assert p.returncode == 0, p.stderr[-3000:]
    return p.stderr


def _logged_numbers(log):
    """The numbers of every batch, pass and test line (costs, evaluators; not the timings)."""
    lines = [line.split("]", 1)[-1].split(" time=")[0] for line in log.splitlines()
             if " Batch=" in line or " Pass=" in line or " Test " in line]
    assert lines, log[-2000:]
    return [float(w.split("=")[1]) for line in lines for w in line.split() if "=" in w and w.split("=")[1]]


def _parameters(pass_dir):
    return {p.name: np.fromfile(p, dtype=np.float32)[4:] for p in sorted(pathlib.Path(pass_dir).iterdir())
            if p.is_file() and p.name not in ("done", "path.txt", "metrics.json") and p.suffix != ".py"}


@pytest.mark.slow
@pytest.mark.skipif(os.environ.get("PADDLE_FAKE_GPU") == "1", reason="already the stand-in GPU run")
@pytest.mark.parametrize("cwd, config", [(os.path.join(ROOT, "demos", "mnist"), "mlp.py"),
                                         (DISTRIBUTED, "lstm_text.py")], ids=["digits_mlp", "lstm_text"])
def test_two_stand_in_gpus_train_what_two_cpu_threads_train(fake_gpu_engine, tmp_path, cwd, config):
    """--use_gpu=1 --trainer_count=2: replica r on GPU r (the stand-in has two), gradients summed
    onto GPU 0 (the stand-in collective), GPU 0's values copied to GPU 1 before every batch.
    Each batch's cost sums both replicas' costs, so a GPU 1 that computed with stale values
    shows in the next batch's logged cost; the pass's parameters are GPU 0's."""
    gpus = _train(fake_gpu_engine, cwd, config, tmp_path / "gpus", "--use_gpu=1", "--trainer_count=2")
    threads = _train(fake_gpu_engine, cwd, config, tmp_path / "threads", "--use_gpu=0", "--trainer_count=2")
    assert _logged_numbers(gpus) == pytest.approx(_logged_numbers(threads), rel=1e-5)
    on_gpus, on_threads = _parameters(tmp_path / "gpus" / "pass-00000"), _parameters(tmp_path / "threads" / "pass-00000")
    assert sorted(on_gpus) == sorted(on_threads) and on_gpus
    for name in on_gpus:
        np.testing.assert_allclose(on_gpus[name], on_threads[name], rtol=1e-5, atol=1e-6, err_msg=name)


@pytest.mark.slow
@pytest.mark.skipif(os.environ.get("PADDLE_FAKE_GPU") == "1", reason="already the stand-in GPU run")
def test_more_gpu_replicas_than_gpus_is_refused_naming_both(fake_gpu_engine, tmp_path):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([fake_gpu_engine, ROOT]), PADDLE_FAKE_GPU="1")
    p = subprocess.run([sys.executable, "-c", "import sys; from paddle.trainer.cli import main; sys.exit(main())",
                        "train", "--config=mlp.py", "--num_passes=1", "--use_gpu=1", "--trainer_count=3"],
                       cwd=os.path.join(ROOT, "demos", "mnist"), env=env, capture_output=True, text=True, timeout=300)
    assert p.returncode != 0
    assert "--trainer_count=3" in p.stderr and "needs 3 GPUs, but 2 are visible" in p.stderr, p.stderr[-2000:]


def test_gpu_replicas_without_cuda_or_gpus_are_a_clear_error():
    """The engine under test (normally the CPU build): --use_gpu=1 --trainer_count=2 says why not."""
    from py_paddle import swig_paddle as api
    if api.getGpuCount():
        pytest.skip("GPUs are visible")
    env = dict(os.environ, PYTHONPATH=ROOT)
    p = subprocess.run([sys.executable, "-c", "import sys; from paddle.trainer.cli import main; sys.exit(main())",
                        "train", "--config=mlp.py", "--num_passes=1", "--use_gpu=1", "--trainer_count=2"],
                       cwd=os.path.join(ROOT, "demos", "mnist"), env=env, capture_output=True, text=True, timeout=300)
    reasons = ["needs 2 GPUs, but 0 are visible", "built without NCCL"] if api.isGpuVersion() else ["built without CUDA"]
    assert p.returncode != 0 and any(r in p.stderr for r in reasons) and "Traceback" not in p.stderr, p.stderr[-2000:]
