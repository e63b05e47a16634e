"""The tools read files from elsewhere and write beside the user's: FIFOs, planted symlinks,
damaged parameter files and malformed logs give one clear error naming the file, never a
hang, an internal exception or a write through a link."""
import json
import os
import struct
import subprocess
import sys
import threading

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEMO = os.path.join(ROOT, "demos", "mnist")


def finishes(fn, seconds=30):
    """fn()'s result or exception; fails when it blocks (a FIFO read)."""
    box = {}

    def run():
        try:
            box["value"] = fn()
        except BaseException as e:  # noqa: B902  (handed to the test)
            box["error"] = e
    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(seconds)
    assert not t.is_alive(), "blocked for %d s" % seconds
    return box


def write_param(path, values, count=None, version=0):
    values = np.asarray(values, dtype=np.float32)
    with open(path, "wb") as f:
        f.write(struct.pack("<iIQ", version, 4, values.size if count is None else count) + values.tobytes())


# ---------------------------------------------------------------- parameter files
@pytest.mark.parametrize("case,message", [
    ("fifo", "is not a regular file"),
    ("dir", "is not a regular file"),
    ("missing", "cannot open parameter file"),
    ("short", "too short for a parameter header"),
    ("truncated", "says 10 values but holds"),
    ("huge", "says 1152921504606846976 values"),
    ("trailing", "has bytes after its values"),
    ("version", "unsupported format version 3"),
    ("nan", "value 2 is nan"),
    ("inf", "value 2 is -inf"),
])
def test_the_parameter_file_reader_names_the_file(tmp_path, case, message):
    from py_paddle import swig_paddle as api
    from py_paddle.util import loadParameterFile
    path = str(tmp_path / "___fc_layer_0__.w0")
    if case == "fifo":
        os.mkfifo(path)
    elif case == "dir":
        os.mkdir(path)
    elif case == "short":
        open(path, "wb").write(b"\0" * 7)
    elif case == "truncated":
        write_param(path, np.ones(4), count=10)
    elif case == "huge":
        write_param(path, np.ones(4), count=2 ** 60)
    elif case == "trailing":
        write_param(path, np.ones(4))
        open(path, "ab").write(b"\0" * 4 + b"x")
    elif case == "version":
        write_param(path, np.ones(4), version=3)
    elif case in ("nan", "inf"):
        write_param(path, [1, 2, np.nan if case == "nan" else -np.inf, 4])
    box = finishes(lambda: loadParameterFile(path))
    assert isinstance(box.get("error"), api.IOError), box
    assert path in str(box["error"]) and message in str(box["error"]), str(box["error"])


def test_the_reader_still_reads_good_files_and_streams(tmp_path):
    from py_paddle.util import loadParameterFile
    path = str(tmp_path / "p")
    write_param(path, np.arange(6))
    np.testing.assert_array_equal(loadParameterFile(path), np.arange(6))
    write_param(path, [0, np.nan])
    with open(path, "rb") as f:
        with pytest.raises(OSError, match="'%s': value 1 is nan" % path):
            loadParameterFile(f)


def test_export_onnx_model_dir_refuses_a_fifo(tmp_path, monkeypatch):
    from paddle.trainer.config_parser import parse_config
    from paddle.utils.export_onnx import load_model
    from py_paddle import swig_paddle as api
    monkeypatch.chdir(DEMO)
    api.initPaddle("--use_gpu=0")
    gm = api.GradientMachine.createFromConfigProto(parse_config("mlp.py", "is_predict=1").model_config)
    gm.saveParameters(str(tmp_path))
    name = gm.getParameter(0).getName()
    os.unlink(str(tmp_path / name))
    os.mkfifo(str(tmp_path / name))
    model, parameter = load_model(config="mlp.py", model_dir=str(tmp_path), config_args="is_predict=1")
    box = finishes(lambda: parameter(name))
    assert isinstance(box.get("error"), OSError)
    assert str(tmp_path / name) in str(box["error"]) and "not a regular file" in str(box["error"])


# ---------------------------------------------------------------- upgrade_config
PY2 = "print 'hello'\n"


@pytest.mark.parametrize("planted", [".bak", ".upgrade-tmp"])
def test_upgrade_config_does_not_write_through_planted_symlinks(tmp_path, planted):
    from paddle.utils.upgrade_config import main
    conf = tmp_path / "conf.py"
    conf.write_text(PY2)
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    os.symlink(str(victim), str(conf) + planted)
    assert main([str(conf), "--write"]) == 0
    assert victim.read_text() == "precious\n"
    assert "print('hello')" in conf.read_text()
    if planted == ".bak":  # the link itself is replaced by the backup
        assert not os.path.islink(str(conf) + ".bak") and open(str(conf) + ".bak").read() == PY2
    assert not [n for n in os.listdir(str(tmp_path)) if n.endswith(".upgrade-tmp") and n != "conf.py.upgrade-tmp"]


def test_upgrade_config_keeps_the_exact_bytes_in_the_backup(tmp_path):
    from paddle.utils.upgrade_config import main
    conf = tmp_path / "conf.py"
    conf.write_bytes(b"print 'a'\r\nx = 1\r\n")
    assert main([str(conf), "--write"]) == 0
    assert (tmp_path / "conf.py.bak").read_bytes() == b"print 'a'\r\nx = 1\r\n"


def test_upgrade_config_refuses_fifos_and_symlinked_files(tmp_path, capsys):
    from paddle.utils.upgrade_config import main
    fifo = str(tmp_path / "fifo.py")
    os.mkfifo(fifo)
    box = finishes(lambda: main([fifo, "--write"]))
    assert box.get("value") == 2
    assert "%s: not a regular file" % fifo in capsys.readouterr().err
    real = tmp_path / "real.py"
    real.write_text(PY2)
    os.symlink(str(real), str(tmp_path / "link.py"))
    assert main([str(tmp_path / "link.py"), "--write"]) == 2
    assert "is a symbolic link" in capsys.readouterr().err and real.read_text() == PY2


# ---------------------------------------------------------------- paddle plot
METRICS_CASES = [
    ('{"event":"pass"}\n', ':1: a "pass" record needs "pass"'),
    ('{"event":"pass","pass":0,"AvgCost":"x","eval":"s"}\n', ":1: AvgCost is 'x', expected a number"),
    ('{"event":"pass","pass":0,"eval":"s"}\n', ':1: "eval" is str'),
    ('{"event":"pass","pass":0,"eval":5}\n', ':1: "eval" is int'),
    ('{"event":"pass","pass":%d,"AvgCost":1}\n' % 10 ** 400, ':1: a "pass" record needs "pass"'),
    ('{"event":"pass","pass":1e400,"AvgCost":1}\n', ':1: a "pass" record needs "pass"'),
    ('{"event":"pass","pass":"0","AvgCost":1}\n', ':1: a "pass" record needs "pass"'),
    ('{"event":"pass","pass":0,"AvgCost":1}\n{"event":"test","pass":[0]}\n', ':2: a "test" record needs "pass"'),
    ('{"event":"pass","pass":0,"AvgCost":[1]}\n', ':1: AvgCost is [1], expected a number'),
    ('{"event":"pass",\n', ':1: not a JSON line'),
    ('{"event":"pass","pass":0,"AvgCost":1}\n[1]\n', ':2: expected a JSON object'),
    ("Pass=%d Batch=1 AvgCost=1\n" % 10 ** 40, ":1: pass number 1000"),
]


@pytest.mark.parametrize("text,message", METRICS_CASES)
def test_paddle_plot_names_the_bad_line(tmp_path, text, message):
    from paddle.utils.plotcurve import PlotError, plot
    src = str(tmp_path / "metrics.jsonl")
    open(src, "w").write(text)
    with pytest.raises(PlotError) as e:
        plot(src, str(tmp_path / "out.png"))
    assert str(e.value).startswith(src + message), str(e.value)


def test_paddle_plot_refuses_fifos_and_binary_files(tmp_path):
    from paddle.utils.plotcurve import PlotError, plot
    fifo = str(tmp_path / "metrics.jsonl")
    os.mkfifo(fifo)
    box = finishes(lambda: plot(fifo, str(tmp_path / "out.png")))
    assert isinstance(box.get("error"), PlotError) and "not a regular file" in str(box["error"])
    binary = str(tmp_path / "log")
    open(binary, "wb").write(b"\xff\xfe\0Pass=1")
    with pytest.raises(PlotError, match="is not a text log"):
        plot(binary, str(tmp_path / "out.png"))


def test_paddle_plot_leaves_out_non_finite_values_and_says_so(tmp_path, capsys):
    from paddle.utils.plotcurve import plot
    src = str(tmp_path / "m.jsonl")
    with open(src, "w") as f:
        for p, cost in enumerate([1.0, float("inf"), 0.5]):
            f.write(json.dumps({"event": "pass", "pass": p, "AvgCost": cost}) + "\n")
    assert plot(src, str(tmp_path / "out.png")) is True
    assert "AvgCost is not finite in pass 1: left out" in capsys.readouterr().err
    with open(src, "w") as f:
        f.write(json.dumps({"event": "pass", "pass": 0, "AvgCost": float("nan")}) + "\n")
    assert plot(src, str(tmp_path / "out.png")) is False
    assert "no finite values of AvgCost" in capsys.readouterr().err


def test_plotcurve_gives_one_line_errors(tmp_path):
    src = str(tmp_path / "train.log")
    open(src, "w").write("Pass=%d Batch=1 AvgCost=1\n" % 10 ** 40)
    p = subprocess.run([sys.executable, "-m", "paddle.utils.plotcurve", "-i", src, "-o", str(tmp_path / "a.png")],
                       env=dict(os.environ, PYTHONPATH=ROOT), capture_output=True, text=True, timeout=120)
    assert p.returncode == 2 and "Traceback" not in p.stderr, p.stderr
    assert p.stderr.startswith("plotcurve: %s:1: pass number" % src) and len(p.stderr.splitlines()) == 1, p.stderr
    assert not os.path.exists(str(tmp_path / "a.png"))


@pytest.mark.parametrize("text", ['{"event":"pass"}\n', '{"event":"pass","pass":0,"eval":5}\n',
                                  "Pass=%d Batch=1 AvgCost=1\n" % 10 ** 40])
def test_paddle_plot_gives_one_line_errors(tmp_path, text):
    src = str(tmp_path / "metrics.jsonl")
    open(src, "w").write(text)
    p = subprocess.run([sys.executable, "-c", "import sys; from paddle.trainer.cli import main; sys.exit(main())",
                        "plot", src, "-o", str(tmp_path / "b.png")], env=dict(os.environ, PYTHONPATH=ROOT),
                       capture_output=True, text=True, timeout=120)
    assert p.returncode != 0 and "Traceback" not in p.stderr, p.stderr
    assert src + ":1: " in p.stderr and len(p.stderr.strip().splitlines()) == 1, p.stderr
