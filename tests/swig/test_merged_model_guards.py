"""A merged model is a file from elsewhere: damaged or planted contents are refused with
the file and the parameter named, and it never chooses files to write."""
import json
import os
import struct

import numpy as np
import pytest

from paddle.trainer.config_parser import parse_config
from py_paddle import swig_paddle as api

import merged_format

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEMO = os.path.join(ROOT, "demos", "mnist")


def read_merged(path):
    """(config dict, [(name, header bytes, float32 values)]); a version 2 file's checksums are
    skipped (write_merged writes version 1, which has none)."""
    with open(path, "rb") as f:
        data = f.read()
    _, config, entries, end = merged_format.parse(data)
    assert end == len(data)
    params = [(name, data[start:start + 16], np.frombuffer(data, np.float32, (stop - start - 16) // 4,
                                                           start + 16).copy()) for name, start, stop in entries]
    return json.loads(config), params


def write_merged(path, config, params):
    text = json.dumps(config).encode()
    out = [b"PDMERGED", struct.pack("<I", 1), struct.pack("<Q", len(text)), text, struct.pack("<I", len(params))]
    for name, header, values in params:
        out += [struct.pack("<I", len(name)), name.encode(), header, values.astype(np.float32).tobytes()]
    with open(path, "wb") as f:
        f.write(b"".join(out))


def load_all_ways(path):
    """The errors of the Predictor, the GradientMachine and export_onnx's reader."""
    from paddle.utils.export_onnx import load_model
    errors = []
    for load in (lambda: api.Predictor.createFromMergedModel(path),
                 lambda: api.GradientMachine.createFromMergedModel(path),
                 lambda: load_model(model_file=path)):
        with pytest.raises(Exception) as e:
            load()
        errors.append(str(e.value))
    return errors


def test_a_duplicated_parameter_name_is_refused(merged):
    config, params = read_merged(merged)
    # the first parameter twice and the second missing: loaded silently wrong before
    params[1] = (params[0][0], params[0][1], params[0][2] + 1)
    write_merged(merged, config, params)
    for e in load_all_ways(merged):
        assert merged in e and "'%s' twice" % params[0][0] in e, e


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_values_are_refused(merged, bad):
    config, params = read_merged(merged)
    name, header, values = params[2]
    values[5] = bad
    params[2] = (name, header, values)
    write_merged(merged, config, params)
    for e in load_all_ways(merged):
        assert merged in e and name in e and "value 5" in e and "finite" in e, e


@pytest.mark.parametrize("key,value", [("type", "no_such_layer"), ("no_such_field", 1)])
def test_errors_of_the_embedded_config_name_the_file(merged, key, value):
    config, params = read_merged(merged)
    config["layers"][1][key] = value
    write_merged(merged, config, params)
    for e in load_all_ways(merged):
        assert merged in e and ("no_such_layer" in e or "no_such_field" in e), e


def test_an_embedded_printer_writes_no_file(merged, tmp_path):
    config, params = read_merged(merged)
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me\n")
    created = tmp_path / "created.txt"
    out_layer = config["output_layer_names"][0]
    config.setdefault("evaluators", []).extend([
        {"name": "printer", "type": "seq_text_printer", "input_layers": [out_layer], "result_file": str(victim)},
        {"name": "printer2", "type": "seq_text_printer", "input_layers": [out_layer], "result_file": str(created)}])
    for sm in config.get("sub_models", []):
        if sm.get("name") == "root" and sm.get("evaluator_names"):
            sm["evaluator_names"] += ["printer", "printer2"]
    write_merged(merged, config, params)
    gm = api.GradientMachine.createFromMergedModel(merged)
    gm.makeEvaluator()
    assert victim.read_text() == "keep me\n" and not created.exists()
    assert "result_file" not in gm.getModelConfigJson()


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_non_finite_values_in_a_pass_directory_are_refused(tmp_path, monkeypatch, bad):
    """The same rule for a saved pass: loadParameters (and so --init_model_path, --start_pass,
    paddle predict --model_dir) names the file and the value."""
    monkeypatch.chdir(DEMO)
    gm = api.GradientMachine.createFromConfigProto(parse_config("mlp.py", "is_predict=1").model_config)
    gm.saveParameters(str(tmp_path))
    name = next(iter(gm.getParameters())).getName()
    path = tmp_path / name
    data = bytearray(path.read_bytes())
    data[16 + 4 * 7:16 + 4 * 8] = np.float32(bad).tobytes()
    path.write_bytes(bytes(data))
    with pytest.raises(Exception) as e:
        gm.loadParameters(str(tmp_path))
    assert str(path) in str(e.value) and "value 7 is" in str(e.value) and "must be finite" in str(e.value)
