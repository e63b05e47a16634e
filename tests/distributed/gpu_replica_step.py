"""One training step of a linear regression on 2 stand-in GPUs (--use_gpu=1 --trainer_count=2),
for tests/distributed/test_gpu_replica_bf16.py; run on the PADDLE_FAKE_GPU engine.

    python gpu_replica_step.py OUT.npz

The parameters start at zero and the step is plain SGD at rate 1, so each value after the step
is exactly minus the gradient GPU 0 ended with. Beside it the worker saves what each replica's
share of the batch gives on its own (one machine, the same kernels), for a NumPy model of the
reduction, and the traffic counts of the step. Keys: "<precision>/<param>" (values after the
step), "grad<r>/<param>", "<precision>/dense_bytes", "<precision>/steps".
"""
import json
import os
import sys

import numpy as np

from py_paddle import swig_paddle as api

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "engine"))
from netbuilder import Net, make_args  # noqa: E402

BATCH, IN, OUT = 8, 16, 5


def model():
    net = Net()
    x, y = net.data("x", IN), net.data("y", OUT)
    out = net.fc("o", [(x, IN)], OUT)
    net.output(net.layer("cost", "square_error", 1, [out, y], coeff=1.0))
    for p in net.params:  # zero values: the step leaves minus the summed gradient
        p["initial_std"], p["initial_mean"] = 0.0, 0.0
    return net.config()


def batch():
    rng = np.random.RandomState(11)
    return rng.randn(BATCH, IN).astype(np.float32), rng.randn(BATCH, OUT).astype(np.float32)


def one_step(config, precision, out):
    trainer = api.Trainer.create(json.dumps({"model_config": config, "opt_config": {
        "batch_size": BATCH, "learning_rate": 1.0, "learning_method": "momentum"}}), True, 2, 1)
    options = api.CollectiveOptions()
    options.bf16Gradients = precision == "bf16"
    trainer.setCollectiveOptions(options)
    x, y = batch()
    trainer.startTrainPass()
    trainer.trainOneDataBatch(BATCH, make_args([x, y]))
    trainer.finishTrainPass()
    traffic = trainer.takeCollectiveTraffic()
    out[precision + "/dense_bytes"] = np.float64(traffic.denseBytes)
    out[precision + "/steps"] = np.int64(traffic.steps)
    gm = trainer.getGradientMachine()
    for i in range(gm.getParameterSize()):
        p = gm.getParameter(i)
        out[precision + "/" + p.getName()] = p.getBuf(api.PARAMETER_VALUE).copyToNumpyArray().copy()


def replica_gradients(config, out):
    """Replica r's gradient: one machine on GPU 0 given replica r's half of the batch."""
    x, y = batch()
    for r, (b, e) in enumerate([(0, BATCH // 2), (BATCH // 2, BATCH)]):
        gm = api.GradientMachine.createByConfigJson(json.dumps(config), True, 1)
        gm.forwardBackward(make_args([x[b:e], y[b:e]]), api.Arguments.createArguments(0), api.PASS_TRAIN)
        for i in range(gm.getParameterSize()):
            p = gm.getParameter(i)
            out["grad%d/%s" % (r, p.getName())] = p.getBuf(api.PARAMETER_GRADIENT).copyToNumpyArray().copy()


def main():
    config = model()
    out = {}
    for precision in ("fp32", "bf16"):
        one_step(config, precision, out)
    replica_gradients(config, out)
    np.savez(sys.argv[1], **out)


if __name__ == "__main__":
    main()
