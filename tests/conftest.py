"""Which copy of the project the tests import.

A developer who built the engine in place (`python setup.py build_ext --inplace`)
tests the source tree; otherwise (CI, after `pip install .`) the tests import
the installed packages, so a file missing from the install fails here too.
PADDLE_ENGINE_DIR names a directory holding another build of py_paddle to test instead.
"""
import glob
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
IN_TREE_ENGINE = glob.glob(os.path.join(ROOT, "py_paddle", "_swig_paddle*.so"))

sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != ROOT]
if os.environ.get("PADDLE_ENGINE_DIR"):  # another build of py_paddle (tests/engine/test_fake_gpu.py)
    sys.path[:0] = [os.environ["PADDLE_ENGINE_DIR"], ROOT]
elif IN_TREE_ENGINE:
    sys.path.insert(0, ROOT)


@pytest.fixture(scope="session")
def fake_gpu_engine():
    """py_paddle built with the stand-in GPU (PADDLE_FAKE_GPU) in build/fake-gpu, kept between
    runs: the build is incremental, so a rerun recompiles only what changed."""
    out = pathlib.Path(ROOT, "build", "fake-gpu")
    env = dict(os.environ, PADDLE_FAKE_GPU="1", WITH_CUDA="0")
    p = subprocess.run([sys.executable, "setup.py", "-q", "build_ext", "--build-temp", str(out / "tmp"),
                        "--build-lib", str(out / "lib")], cwd=ROOT, env=env, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr[-4000:]
    for f in glob.glob(os.path.join(ROOT, "py_paddle", "*.py")):
        shutil.copy(f, out / "lib" / "py_paddle")
    return str(out / "lib")
