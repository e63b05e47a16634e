"""From the repository root of an installed checkout (where the README's commands run, and
where a notebook starts), the source tree's py_paddle has no compiled engine: importing it
and running `paddle` must still work, with the installed engine."""
import glob
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
IN_PLACE = bool(glob.glob(os.path.join(ROOT, "py_paddle", "_swig_paddle*")))


def run(code):
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True)


@pytest.mark.skipif(IN_PLACE, reason="the source tree holds an in-place build; nothing to find elsewhere")
def test_import_and_cli_from_the_repository_root():
    p = run("import py_paddle, sys; from py_paddle import swig_paddle as api; "
            "print(api.getVersion()); print(py_paddle.__file__)")
    assert p.returncode == 0, p.stderr[-2000:]
    assert p.stdout.splitlines()[1].startswith(os.path.join(ROOT, "py_paddle"))  # the source package...
    p = run("import sys; from paddle.trainer.cli import main; sys.exit(main(['version']))")
    assert p.returncode == 0 and "compiled with" in p.stdout, p.stderr[-2000:]


def test_import_from_the_repository_root_in_any_build():
    p = run("from py_paddle import swig_paddle as api; print(len(api.getLayerTypes()))")
    assert p.returncode == 0 and int(p.stdout) > 50, p.stderr[-2000:]
