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


def test_plots_the_log_of_a_real_training(tmp_path):
    """`paddle train` on the digits demo with --test_period (so tests also run inside a
    pass), then v1's `python -m paddle.utils.plotcurve -i train.log > plot.png`."""
    pytest.importorskip("matplotlib")
    demo = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                        "demos", "mnist")  # the checkout's demo, whichever copy of the package is tested
    train = subprocess.run([sys.executable, "-c", "import sys; from paddle.trainer.cli import main; sys.exit(main())",
                            "train", "--config=mlp.py", "--save_dir=" + str(tmp_path / "out"), "--num_passes=2",
                            "--log_period=20", "--test_period=30", "--dot_period=0"],
                           capture_output=True, text=True, cwd=demo, env=ENV, timeout=600)
    assert train.returncode == 0, train.stderr[-2000:]
    log_lines = train.stderr.splitlines()
    (tmp_path / "train.log").write_text(train.stderr)

    passes = [line for line in log_lines if "]  Pass=" in line]
    tests = [line for line in log_lines if "]  Test samples=" in line]
    assert len(passes) == 2 and len(tests) == 4  # a test in the middle and one at the end of each pass
    end_of_pass_tests = [log_lines[log_lines.index(p) + 1] for p in passes]  # the trainer tests after each pass
    log = read_paddle_log(log_lines, ["AvgCost", "classification_error_evaluator"])
    assert log["pass"] == [0, 1]
    assert log["train"]["AvgCost"] == [float(p.split("AvgCost=")[1].split()[0]) for p in passes]
    assert log["test"]["AvgCost"] == [float(t.split(" cost=")[1].split()[0]) for t in end_of_pass_tests]
    assert log["test"]["classification_error_evaluator"] == [
        float(t.split("classification_error_evaluator=")[1].split()[0]) for t in end_of_pass_tests]

    # v1's README usage: the figure on standard output
    p = subprocess.run([sys.executable, "-m", "paddle.utils.plotcurve", "-i", "train.log"],
                       capture_output=True, cwd=str(tmp_path), env=ENV)
    assert p.returncode == 0, p.stderr
    assert p.stdout[:8] == b"\x89PNG\r\n\x1a\n"
    from PIL import Image
    with Image.open(io.BytesIO(p.stdout)) as img:
        assert img.format == "PNG"

    # one curve per key (and its test curve): the legend entries of an SVG rendering
    p = subprocess.run([sys.executable, "-m", "paddle.utils.plotcurve", "-i", "train.log", "-o", "plot.svg",
                        "AvgCost", "classification_error_evaluator"], capture_output=True, cwd=str(tmp_path), env=ENV)
    assert p.returncode == 0, p.stderr
    svg = (tmp_path / "plot.svg").read_text()
    for label in ("AvgCost", "Test AvgCost", "classification_error_evaluator", "Test classification_error_evaluator"):
        assert svg.count("<!-- %s -->" % label) == 1, label
