"""The GPU code paths, checked on a machine without a GPU. A second build of the engine
(PADDLE_FAKE_GPU=1, layers/math/FakeGpu.cpp) runs its GPU entry points on the CPU and keeps
"device" memory mprotect'ed outside kernels and copies; the engine tests then run with every
network on that GPU (PADDLE_TEST_USE_GPU=1). A host-side read or write of device data, the
error a CPU-only machine cannot otherwise see, crashes that run with a segmentation fault."""
import glob
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


@pytest.fixture(scope="module")
def fake_gpu_engine():
    """py_paddle built with the stand-in GPU, in a directory of its own (kept between
    runs: the build is incremental, so a rerun recompiles only what changed)."""
    out = pathlib.Path(ROOT, "build", "fake-gpu")
    env = dict(os.environ, PADDLE_FAKE_GPU="1", WITH_CUDA="0")
    p = subprocess.run([sys.executable, "setup.py", "-q", "build_ext", "--build-temp", str(out / "tmp"),
                        "--build-lib", str(out / "lib")], cwd=ROOT, env=env, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr[-4000:]
    for f in glob.glob(os.path.join(ROOT, "py_paddle", "*.py")):
        shutil.copy(f, out / "lib" / "py_paddle")
    return str(out / "lib")


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
