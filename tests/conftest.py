"""Which copy of the project the tests import.

A developer who built the engine in place (`python setup.py build_ext --inplace`)
tests the source tree; otherwise (CI, after `pip install .`) the tests import
the installed packages, so a file missing from the install fails here too.
PADDLE_ENGINE_DIR names a directory holding another build of py_paddle to test instead.
"""
import glob
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
IN_TREE_ENGINE = glob.glob(os.path.join(ROOT, "py_paddle", "_swig_paddle*.so"))

sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != ROOT]
if os.environ.get("PADDLE_ENGINE_DIR"):  # another build of py_paddle (tests/engine/test_fake_gpu.py)
    sys.path[:0] = [os.environ["PADDLE_ENGINE_DIR"], ROOT]
elif IN_TREE_ENGINE:
    sys.path.insert(0, ROOT)
