"""v1's merged models (MergeModel.cpp's layout: int64 size, a serialized TrainerConfig, one v1
parameter record per parameter) are written by `paddle merge_model --format=v1` and read by
createFromMergedModel; `paddle merge_model --model_dir=DIR` finds the config by DIR/path.txt."""
import os
import struct
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from paddle.proto.TrainerConfig_pb2 import TrainerConfig
from paddle.trainer.PyDataProvider2 import dense_vector
from py_paddle import DataProviderConverter, swig_paddle as api
from py_paddle import v1_merged_model

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

CONFIG = """\
    from paddle.trainer_config_helpers import *
    is_predict = get_config_arg("is_predict", bool, False)
    define_py_data_sources2("train.list", None, module="prov", obj="process")
    settings(batch_size=4, learning_rate=0.1)
    x = data_layer(name="x", size=3)
    hidden = fc_layer(input=x, size=4, act=TanhActivation())
    out = fc_layer(input=hidden, size=2, act=SoftmaxActivation(), name="out")
    if is_predict:
        outputs(out)
    else:
        outputs(classification_cost(out, data_layer(name="y", size=2)))
    """

PROVIDER = """\
    from paddle.trainer.PyDataProvider2 import *

    @provider(input_types={"x": dense_vector(3), "y": integer_value(2)})
    def process(settings, name):
        for i in range(16):
            yield {"x": [i % 2, 0.5, -1.0], "y": i % 2}
    """


def paddle(args, cwd):
    env = dict(os.environ, PYTHONPATH=ROOT, OPENBLAS_NUM_THREADS="1")
    return subprocess.run([sys.executable, "-c", "import sys; from paddle.trainer.cli import main; sys.exit(main())"]
                          + args, cwd=str(cwd), env=env, capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    work = tmp_path_factory.mktemp("v1_merged")
    (work / "conf.py").write_text(textwrap.dedent(CONFIG))
    (work / "prov.py").write_text(textwrap.dedent(PROVIDER))
    (work / "train.list").write_text("x\n")
    p = paddle(["train", "--config=conf.py", "--num_passes=1", "--save_dir=out", "--dot_period=0"], work)
    assert p.returncode == 0, p.stderr[-2000:]
    return work


def outputs_of(machine_or_predictor, rows):
    args = DataProviderConverter([dense_vector(3)])([[r] for r in rows])
    if isinstance(machine_or_predictor, api.Predictor):
        return machine_or_predictor.forward(args).getSlotValue(0).copyToNumpyMat()
    out = api.Arguments.createArguments(0)
    machine_or_predictor.forward(args, out, api.PASS_TEST)
    return machine_or_predictor.getLayerOutputs("out")["out"]["value"]


ROWS = [[1, 0.5, -1], [0, 0.5, -1], [0.3, -0.2, 0.1]]


def reference(work):
    from paddle.trainer.config_parser import parse_config
    api.initPaddle("--use_gpu=0")
    gm = api.GradientMachine.createFromConfigProto(parse_config(str(work / "conf.py"), "is_predict=1").model_config)
    gm.loadParameters(str(work / "out" / "pass-00000"))
    return outputs_of(gm, ROWS)


def test_v1_format_written_without_config_and_read_back(trained):
    p = paddle(["merge_model", "--model_dir=out/pass-00000", "--model_file=model.v1", "--format=v1",
                "--config_args=is_predict=1"], trained)
    assert p.returncode == 0, p.stderr
    data = (trained / "model.v1").read_bytes()
    (n, ) = struct.unpack_from("<q", data)
    config = TrainerConfig()
    config.ParseFromString(data[8:8 + n])
    params = list(config.model_config.parameters)
    assert [p.name for p in params] == ["___fc_layer_0__.w0", "___fc_layer_0__.wbias", "_out.w0", "_out.wbias"]
    at = 8 + n
    for p in params:  # each record: int32 version 0, uint32 4, uint64 count, the values
        assert struct.unpack_from("<iIQ", data, at) == (0, 4, p.size)
        record = (trained / "out" / "pass-00000" / p.name).read_bytes()
        assert data[at:at + 16 + 4 * p.size] == record
        at += 16 + 4 * p.size
    assert at == len(data)
    want = reference(trained)
    assert v1_merged_model.is_v1_merged_model(str(trained / "model.v1"))
    gm = api.GradientMachine.createFromMergedModel(str(trained / "model.v1"))
    np.testing.assert_allclose(outputs_of(gm, ROWS), want, rtol=1e-6)
    np.testing.assert_allclose(outputs_of(api.Predictor.createFromMergedModel(str(trained / "model.v1")), ROWS),
                               want, rtol=1e-6)
    # converted for C++ and Java, which read this project's layout
    p = paddle(["merge_model", "--from_v1=model.v1", "--output=model.paddle"], trained)
    assert p.returncode == 0, p.stderr
    assert (trained / "model.paddle").read_bytes()[:8] == b"PDMERGED"
    np.testing.assert_allclose(outputs_of(api.GradientMachine.createFromMergedModel(str(trained / "model.paddle")),
                                          ROWS), want, rtol=1e-6)


def test_project_format_without_config_reads_path_txt(trained):
    p = paddle(["merge_model", "--model_dir=out/pass-00000", "--output=own.paddle", "--config_args=is_predict=1"],
               trained)
    assert p.returncode == 0, p.stderr
    assert not v1_merged_model.is_v1_merged_model(str(trained / "own.paddle"))
    gm = api.GradientMachine.createFromMergedModel(str(trained / "own.paddle"))
    np.testing.assert_allclose(outputs_of(gm, ROWS), reference(trained), rtol=1e-6)
    (trained / "bare").mkdir(exist_ok=True)
    p = paddle(["merge_model", "--model_dir=bare", "--output=x.paddle"], trained)
    assert p.returncode != 0 and "bare has no path.txt" in p.stderr


def test_a_model_config_alone_loads_and_bad_files_are_named(trained, tmp_path):
    from paddle.trainer.config_parser import parse_config
    model = parse_config(str(trained / "conf.py"), "is_predict=1").model_config
    blob = model.SerializeToString()
    records = b"".join((trained / "out" / "pass-00000" / p.name).read_bytes() for p in model.parameters)
    path = tmp_path / "capi.v1"
    path.write_bytes(struct.pack("<q", len(blob)) + blob + records)  # v1's C API took a bare ModelConfig
    np.testing.assert_allclose(outputs_of(api.GradientMachine.createFromMergedModel(str(path)), ROWS),
                               reference(trained), rtol=1e-6)
    (tmp_path / "long.v1").write_bytes(path.read_bytes() + b"\0\0")
    with pytest.raises(ValueError, match=r"long.v1: 2 bytes after the last parameter"):
        v1_merged_model.read(str(tmp_path / "long.v1"))
    (tmp_path / "short.v1").write_bytes(path.read_bytes()[:-5])
    with pytest.raises(ValueError, match=r"short.v1: ends inside parameter _out.wbias"):
        v1_merged_model.read(str(tmp_path / "short.v1"))
