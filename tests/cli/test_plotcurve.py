"""paddle.utils.plotcurve (v1's learning-curve plotter) on a log that `paddle train` wrote."""
import io
import os
import subprocess
import sys

import pytest

import paddle
from paddle.utils.plotcurve import plot_paddle_curve, read_paddle_log

# subprocesses import the same copy of the package as this test
ENV = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(os.path.abspath(paddle.__file__))))

LOG = """\
I1124 05:19:19.693763 26173 cli.py:273]  Batch=20 samples=640 AvgCost=1.9 CurrentCost=1.9 Eval: classification_error_evaluator=0.6  CurrentEval: classification_error_evaluator=0.6 
I1124 05:19:19.693763 26173 cli.py:273]  Pass=0 Batch=45 samples=1437 AvgCost=0.774375 Eval: classification_error_evaluator=0.17119 
I1124 05:19:19.709643 26173 cli.py:232]  Test samples=360 cost=0.218751 Eval: classification_error_evaluator=0.0555556 
I1124 05:19:19.811639 26173 cli.py:273]  Pass=1 Batch=45 samples=1437 AvgCost=0.157209 Eval: classification_error_evaluator=0.0438413 
I1124 05:19:19.819105 26173 cli.py:232]  Test samples=360 cost=0.144944 Eval: classification_error_evaluator=0.0333333 
I1124 05:19:19.928526 26173 cli.py:273]  Pass=2 Batch=45 samples=1437 AvgCost=9.50172e-02 Eval: classification_error_evaluator=0.0208768 
"""


def test_reads_pass_and_test_lines():
    log = read_paddle_log(io.StringIO(LOG), ["AvgCost", "classification_error_evaluator"])
    assert log["pass"] == [0, 1, 2]  # the batch line is not a pass
    assert log["train"]["AvgCost"] == [0.774375, 0.157209, 0.0950172]
    assert log["test"]["AvgCost"] == [0.218751, 0.144944, None]
    assert log["test"]["classification_error_evaluator"] == [0.0555556, 0.0333333, None]


def test_plots_a_png_from_the_command_line(tmp_path):
    pytest.importorskip("matplotlib")
    (tmp_path / "train.log").write_text(LOG)
    out = tmp_path / "curve.png"
    p = subprocess.run([sys.executable, "-m", "paddle.utils.plotcurve", "-i", str(tmp_path / "train.log"),
                        "-o", str(out), "AvgCost", "classification_error_evaluator"],
                       capture_output=True, text=True, cwd=str(tmp_path), env=ENV)
    assert p.returncode == 0, p.stderr
    from PIL import Image
    with Image.open(out) as img:
        assert img.format == "PNG" and img.size[0] > 300
    # stdin to stdout, v1's default
    p = subprocess.run([sys.executable, "-m", "paddle.utils.plotcurve", "--format", "svg"], input=LOG.encode(),
                       capture_output=True, cwd=str(tmp_path), env=ENV)
    assert p.returncode == 0 and b"<svg" in p.stdout[:2000]


def test_a_log_without_passes_says_so(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    assert plot_paddle_curve(["AvgCost"], io.StringIO("nothing here\n"), str(tmp_path / "x.png")) is False
    assert "no \"Pass=\" lines" in capsys.readouterr().err
