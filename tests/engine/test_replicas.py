"""--trainer_count replicas on the CPU (trainer/Replicas.h): the batch split over the replicas,
their gradients added onto replica 0 and one update make the step one machine takes on the
whole batch, also when a short batch leaves some replicas idle (replica 0 among them)."""
import json

import numpy as np
import pytest

from netbuilder import Net, make_args
from py_paddle import swig_paddle as api

PARAMS = ("_h.w0", "_h.wbias", "_p.w0", "_p.wbias")


def batches():
    rng = np.random.RandomState(3)
    out = []
    for n in (8, 3, 1, 5):  # 3 samples over 4 replicas: replica 0 idles; 1 sample: only the last works
        x = rng.randn(n, 6).astype(np.float32)
        out.append((x, rng.randint(0, 3, n).astype(np.int32)))
    return out


def values(t):
    gm = t.getGradientMachine()
    return {name: gm.getParameterByName(name).getBuf(api.PARAMETER_VALUE).copyToNumpyArray().copy()
            for name in PARAMS}


def trained(trainer_count):
    net = Net()
    net.classifier(6, 8, 3)
    config = {"model_config": net.config(),
              "opt_config": {"batch_size": 8, "learning_rate": 0.1, "learning_method": "momentum"}}
    t = api.Trainer.create(json.dumps(config), False, trainer_count, 1)
    assert t.getReplicaCount() == trainer_count
    before = values(t)
    t.startTrainPass()
    for x, y in batches():
        t.trainOneDataBatch(len(x), make_args([x, y]))
    t.finishTrainPass()
    return before, values(t), t.getPassCost()


@pytest.mark.parametrize("trainer_count", [2, 3, 4])
def test_replicas_take_the_step_of_one_machine(trainer_count):
    start, one, one_cost = trained(1)
    begin, many, many_cost = trained(trainer_count)
    for name in PARAMS:
        assert np.array_equal(start[name], begin[name])  # the same start
        assert not np.allclose(one[name], start[name])  # and a step that moves every parameter
        np.testing.assert_allclose(many[name], one[name], rtol=1e-5, atol=1e-6, err_msg=name)
    assert many_cost == pytest.approx(one_cost, rel=1e-5)


def test_replicas_repeat_their_bits():
    first = trained(4)[1]
    again = trained(4)[1]
    assert all(np.array_equal(first[n], again[n]) for n in PARAMS)
