"""The merged model the merged-model tests damage."""
import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture
def merged(tmp_path, monkeypatch):
    """The digits MLP (demos/mnist/mlp.py, is_predict=1) with random parameters as a merged
    model; the working directory is the demo's."""
    from paddle.trainer.config_parser import parse_config
    from py_paddle import swig_paddle as api
    monkeypatch.chdir(os.path.join(ROOT, "demos", "mnist"))
    api.initPaddle("--use_gpu=0")
    gm = api.GradientMachine.createFromConfigProto(parse_config("mlp.py", "is_predict=1").model_config)
    gm.randParameters()
    path = str(tmp_path / "model.paddle")
    gm.saveMergedModel(path)
    return path
