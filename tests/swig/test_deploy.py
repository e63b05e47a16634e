"""Merged models (`paddle merge_model`) and the thread-safe Predictor."""
import os
import subprocess
import sys
import threading

import numpy as np
import pytest

from paddle.trainer.PyDataProvider2 import dense_vector
from paddle.trainer.config_parser import parse_config
from py_paddle import DataProviderConverter, swig_paddle as api

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEMO = os.path.join(ROOT, "demos", "mnist")


def paddle(args, cwd, check=True):
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    if any(n.startswith("_swig_paddle") for n in os.listdir(os.path.join(ROOT, "py_paddle"))):
        env["PYTHONPATH"] = ROOT  # in-place developer build
    p = subprocess.run([sys.executable, "-c", "import sys; from paddle.trainer.cli import main; sys.exit(main())"]
                       + args, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    assert not check or p.returncode == 0, p.stderr[-3000:]
    return p


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """(pass directory, merged model) of the digits MLP after one pass."""
    out = tmp_path_factory.mktemp("deploy")
    paddle(["train", "--config=mlp.py", "--save_dir=" + str(out), "--num_passes=1", "--seed=1", "--dot_period=0"],
           DEMO)
    merged = str(out / "mlp.paddle")
    p = paddle(["merge_model", "--config=mlp.py", "--config_args=is_predict=1",
                "--model_dir=" + str(out / "pass-00000"), "--output=" + merged], DEMO)
    assert "wrote %s (6 parameters)" % merged in p.stdout
    return str(out / "pass-00000"), merged


def digits(n, seed=0):
    rng = np.random.RandomState(seed)
    return DataProviderConverter([dense_vector(64)])([[rng.rand(64).astype(np.float32)] for _ in range(n)])


def probabilities(out):
    return out.getSlotValue(0).copyToNumpyMat()


def test_merged_model_predicts_what_the_pass_directory_predicts(trained, monkeypatch):
    pass_dir, merged = trained
    monkeypatch.chdir(DEMO)
    gm = api.GradientMachine.createFromConfigProto(parse_config("mlp.py", "is_predict=1").model_config)
    gm.loadParameters(pass_dir)
    want = gm.forwardTest(digits(50))[0]["value"]
    from_file = api.GradientMachine.createFromMergedModel(merged)
    assert from_file.forwardTest(digits(50))[0]["value"].tolist() == want.tolist()
    predictor = api.Predictor.createFromMergedModel(merged)
    assert list(predictor.getInputLayerNames()) == ["pixel"]
    assert list(predictor.getOutputLayerNames()) == ["__fc_layer_2__"]
    # the Predictor multiplies by packed weights (engine/math/GemmPacked.h): fp32 sums in another order
    np.testing.assert_allclose(probabilities(predictor.forward(digits(50))), want, rtol=1e-5, atol=1e-6)
    again = str(os.path.join(os.path.dirname(merged), "again.paddle"))
    from_file.saveMergedModel(again)  # a machine writes the same file back
    assert open(again, "rb").read() == open(merged, "rb").read()


def test_predictor_threads_give_what_one_thread_gives(trained):
    predictor = api.Predictor.createFromMergedModel(trained[1])
    batches = [digits(1 + k % 7, seed=k) for k in range(40)]
    want = [probabilities(predictor.forward(b)) for b in batches]
    got = [None] * len(batches)
    errors = []

    def work(t):
        try:
            for k in range(t, len(batches), 4):
                got[k] = probabilities(predictor.forward(batches[k]))
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)
    threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors
    for k in range(len(batches)):
        np.testing.assert_array_equal(got[k], want[k])


def test_bad_merged_files_are_refused(trained, tmp_path):
    merged = open(trained[1], "rb").read()
    cases = {"not_merged": b"PDMODEL?" + merged[8:], "truncated": merged[:-10], "trailing": merged + b"\0",
             "empty": b""}
    for name, data in cases.items():
        path = tmp_path / name
        path.write_bytes(data)
        with pytest.raises(api.IOError, match={"not_merged": "not a merged model", "truncated": "truncated",
                                               "trailing": "bytes after", "empty": "not a merged model"}[name]):
            api.Predictor.createFromMergedModel(str(path))
    with pytest.raises(api.IOError, match="cannot open"):
        api.GradientMachine.createFromMergedModel(str(tmp_path / "missing"))


def test_a_damaged_size_in_a_merged_model_is_refused_before_allocating(trained, tmp_path):
    """The config size (after magic and version) and the first parameter name size (after the
    config, its checksum and the parameter count) made huge: refused as truncated, nothing of that
    size made."""
    import struct
    merged = open(trained[1], "rb").read()
    config_size = struct.unpack("<Q", merged[12:20])[0]
    name_at = 20 + config_size + 4 + 4
    cases = {"config": merged[:12] + struct.pack("<Q", 0x750000000737) + merged[20:],
             "parameter name": merged[:name_at] + struct.pack("<I", 0xFFFFFFF0) + merged[name_at + 4:]}
    for what, data in cases.items():
        path = tmp_path / what.replace(" ", "_")
        path.write_bytes(data)
        with pytest.raises(api.IOError, match="truncated \\(its %s size says" % what):
            api.Predictor.createFromMergedModel(str(path))


def test_merge_model_names_a_missing_parameter_file(trained, tmp_path):
    pass_dir = tmp_path / "pass"
    pass_dir.mkdir()
    p = paddle(["merge_model", "--config_file=mlp.py", "--model_dir=" + str(pass_dir),
                "--model_file=" + str(tmp_path / "x.paddle")], DEMO, check=False)
    assert p.returncode == 1 and "has no file for parameter(s) ___fc_layer_0__.w0" in p.stderr
    assert not os.path.exists(str(tmp_path / "x.paddle"))
