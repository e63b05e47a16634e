"""What the fault suite (tools/fault_suite.py) found, each fixed: a FIFO or a link to an
endless device given to show_pb / a v1 proto data source is refused naming the file,
instead of blocking (FIFO) or reading forever (/dev/zero)."""
import os

import pytest

from test_tool_inputs import finishes  # (fails a call that blocks)


def plant_irregular(path, kind):
    """Puts a file that is not a regular one at `path`: a FIFO, a directory, or a link to /dev/zero."""
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "dir":
        os.mkdir(path)
    else:
        os.symlink("/dev/zero", path)


@pytest.mark.parametrize("kind", ["fifo", "dev_zero", "dir"])
def test_a_proto_data_file_that_is_not_a_regular_file_is_refused(tmp_path, kind):
    from paddle.trainer.v1_data_sources import read_proto_file
    path = str(tmp_path / "data.pb")
    plant_irregular(path, kind)
    box = finishes(lambda: read_proto_file(path))
    assert isinstance(box.get("error"), OSError), box
    assert path in str(box["error"]) and "not a regular file" in str(box["error"])


def test_show_pb_on_a_fifo_gives_one_line(tmp_path, capsys):
    from paddle.utils.show_pb import main
    path = str(tmp_path / "data.pb")
    os.mkfifo(path)
    box = finishes(lambda: main([path]))
    code = box.get("value", getattr(box.get("error"), "code", None))
    assert code not in (0, None), box
    assert "not a regular file" in capsys.readouterr().err


def test_an_engine_error_quoting_bytes_that_are_not_utf8_keeps_its_message(tmp_path, monkeypatch):
    """A merged model whose config holds a byte that is not UTF-8: the engine's error quotes
    it; Python got a UnicodeDecodeError about the message instead of the message."""
    import struct
    from paddle.trainer.config_parser import parse_config
    from py_paddle import swig_paddle as api
    monkeypatch.chdir(os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                                   "demos", "mnist"))
    api.initPaddle("--use_gpu=0")
    gm = api.GradientMachine.createFromConfigProto(parse_config("mlp.py", "is_predict=1").model_config)
    path = str(tmp_path / "model.paddle")
    gm.saveMergedModel(path)
    data = bytearray(open(path, "rb").read())
    config_size = struct.unpack_from("<Q", data, 12)[0]
    at = data.index(b'"', 20, 20 + config_size) + 1  # inside the config's first string
    data[at] = 0xAC
    open(path, "wb").write(bytes(data))
    for load in (api.GradientMachine.createFromMergedModel, api.Predictor.createFromMergedModel):
        with pytest.raises(Exception) as e:
            load(path)
        assert not isinstance(e.value, UnicodeDecodeError), repr(e.value)
        assert isinstance(e.value, (ValueError, OSError)) and path in str(e.value), repr(e.value)


@pytest.mark.parametrize("kind", ["fifo", "dev_zero"])
@pytest.mark.parametrize("name", ["conf.py", "conf.yaml"])
def test_a_config_that_is_not_a_regular_file_is_a_config_error(tmp_path, kind, name):
    """`paddle dump_config` (any parse) of a FIFO blocked; of a link to /dev/zero, never ended."""
    from paddle.trainer.config_parser import ConfigError, parse_config
    path = str(tmp_path / name)
    plant_irregular(path, kind)
    box = finishes(lambda: parse_config(path, ""))
    assert isinstance(box.get("error"), ConfigError), box
    assert str(box["error"]).startswith(path + ": ") and "not a regular file" in str(box["error"])


def _plant_link(tmp_path, name):
    victim = tmp_path / "victim.txt"
    victim.write_text("untouched")
    os.symlink(str(victim), str(tmp_path / name))
    return victim


def _mnist():
    return os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "demos", "mnist")


def test_make_diagram_does_not_write_through_a_planted_link(tmp_path):
    from paddle.utils.make_model_diagram import make_diagram
    victim = _plant_link(tmp_path, "model.dot")
    with pytest.raises(OSError) as e:
        make_diagram(os.path.join(_mnist(), "mlp.py"), str(tmp_path / "model.dot"))
    assert victim.read_text() == "untouched"
    assert "symbolic link" in str(e.value) and "model.dot" in str(e.value)


def test_plotcurve_does_not_write_through_a_planted_link(tmp_path, capsys):
    from paddle.utils.plotcurve import main
    log = tmp_path / "train.log"
    log.write_text("".join("I1128 x.cpp:1] Pass=0 Batch=%d samples=%d AvgCost=%.2f\n" % (b, b * 4, 1.0 / b)
                           for b in range(1, 5)))
    victim = _plant_link(tmp_path, "plot.png")
    assert main(["-i", str(log), "-o", str(tmp_path / "plot.png")]) != 0
    assert victim.read_text() == "untouched"
    assert "symbolic link" in capsys.readouterr().err


@pytest.mark.parametrize("fmt", ["text", "npy"])
def test_predict_output_is_not_written_through_a_planted_link(tmp_path, fmt):
    from paddle.trainer.predict import PredictionWriter
    victim = _plant_link(tmp_path, "pred.out")
    with pytest.raises(OSError) as e:
        w = PredictionWriter(str(tmp_path / "pred.out"), fmt)
        w.close()
    assert victim.read_text() == "untouched"
    assert "symbolic link" in str(e.value)


@pytest.mark.parametrize("kind", ["fifo", "dev_zero"])
def test_a_file_list_that_is_not_a_regular_file_is_refused(tmp_path, kind):
    """`paddle predict` / `train` with a FIFO as train.list blocked; /dev/zero never ended."""
    from paddle.trainer.data_provider import load_file_list
    path = str(tmp_path / "train.list")
    plant_irregular(path, kind)
    box = finishes(lambda: load_file_list(path))
    assert isinstance(box.get("error"), OSError), box
    assert path in str(box["error"]) and "not a regular file" in str(box["error"])


def test_a_merged_model_that_is_a_fifo_is_refused_naming_it(tmp_path):
    """`paddle export_onnx --model_file=FIFO` blocked in the v1-layout sniff before the engine's check."""
    from py_paddle import swig_paddle as api
    path = str(tmp_path / "model.paddle")
    os.mkfifo(path)
    for load in (api.GradientMachine.createFromMergedModel, api.Predictor.createFromMergedModel):
        box = finishes(lambda: load(path))
        assert isinstance(box.get("error"), OSError), box
        assert path in str(box["error"]) and "not a regular file" in str(box["error"])


def test_a_damaged_proto_data_file_is_a_value_error_naming_it(tmp_path):
    """show_pb / the ProtoData provider let protobuf's DecodeError out (a traceback)."""
    from paddle.trainer.v1_data_sources import read_proto_file
    path = str(tmp_path / "data.pb")
    with open(path, "wb") as f:
        f.write(b"\x04\xff\xff\xff\xff")  # a 4-byte message that is not a DataHeader
    with pytest.raises(ValueError) as e:
        read_proto_file(path)
    assert path in str(e.value) and "the header" in str(e.value)
