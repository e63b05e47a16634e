"""configs/vgg_cifar.py and configs/resnet_cifar.py (and their YAML twins) run on the engine:
a Trainer built from the parsed config trains a few batches of generated CIFAR-shaped data,
and the engine's parameters are the ones the models are named after (the counts are those
tests/config/test_yaml_configs.py checks on the configs)."""
import importlib.util
import os

import numpy as np
import pytest

from paddle.proto import message_to_json
from paddle.trainer.config_parser import parse_config
from py_paddle import swig_paddle as api

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _config_counts():
    spec = importlib.util.spec_from_file_location(
        "yaml_config_counts", os.path.join(ROOT, "tests", "config", "test_yaml_configs.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    resnet, resnet_static = mod.resnet20_counts()
    return {"vgg_cifar": (mod.small_vgg_count(), None), "resnet_cifar": (resnet, resnet_static)}


COUNTS = _config_counts()


@pytest.mark.parametrize("ext", [".py", ".yaml"])
@pytest.mark.parametrize("name", ["vgg_cifar", "resnet_cifar"])
def test_cifar_config_trains_on_the_engine(name, ext):
    conf = parse_config(os.path.join(ROOT, "configs", name + ext), "")
    trainer = api.Trainer.create(message_to_json(conf), False, 1, 5)
    gm = trainer.getGradientMachine()
    trainable = sum(p.getSize() for p in gm.getParameters() if not p.isStatic())
    static = sum(p.getSize() for p in gm.getParameters() if p.isStatic())
    want, want_static = COUNTS[name]
    assert trainable == want
    if want_static is not None:
        assert static == want_static
    names = list(conf.model_config.input_layer_names)
    assert names == ["image", "label"]
    rng = np.random.RandomState(0)
    batch, steps = 4, 3
    before = {p.getName(): p.getBuf(api.PARAMETER_VALUE).copyToNumpyArray() for p in gm.getParameters()}
    trainer.startTrainPass(0)
    for _ in range(steps):
        args = api.Arguments.createArguments(2)
        args.setSlotValueFromBuffer(0, rng.rand(batch, 3 * 32 * 32).astype(np.float32))
        args.setSlotIdsFromBuffer(1, rng.randint(0, 10, batch).astype(np.int32))
        trainer.trainOneDataBatch(batch, args)
    cost = trainer.getPassCost()
    assert trainer.getPassSamples() == batch * steps
    assert np.isfinite(cost) and cost > 0
    changed = [n for n, v in before.items()
               if not np.array_equal(v, gm.getParameterByName(n).getBuf(api.PARAMETER_VALUE).copyToNumpyArray())]
    assert len(changed) >= len(before) // 2  # trainable weights moved (and the moving statistics)
    trainer.finishTrainPass()
