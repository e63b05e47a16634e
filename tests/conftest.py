"""Which copy of the project the tests import.

A developer who built the engine in place (`python setup.py build_ext --inplace`)
tests the source tree; otherwise (CI, after `pip install .`) the tests import
the installed packages, so a file missing from the install fails here too.
"""
import glob
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
IN_TREE_ENGINE = glob.glob(os.path.join(ROOT, "py_paddle", "_swig_paddle*.so"))

sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != ROOT]
if IN_TREE_ENGINE:
    sys.path.insert(0, ROOT)
