"""v1-style training scripts that drive py_paddle.swig_paddle themselves.

The engine's own `paddle train` is the reference: a script's loop (Trainer, or
GradientMachine + ParameterUpdater) over the same data in the same order must give
the same parameters, bit for bit.
"""
import os
import re
import subprocess
import sys

import numpy as np
import pytest

from paddle.trainer.config_parser import parse_config
from paddle.trainer.data_provider import DataProvider
from py_paddle import swig_paddle as api
from py_paddle.util import loadParameterFile, slots_to_arguments

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEMO = os.path.join(ROOT, "demos", "mnist")
PASSES = 2


def run(args, cwd):
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    if any(n.startswith("_swig_paddle") for n in os.listdir(os.path.join(ROOT, "py_paddle"))):
        env["PYTHONPATH"] = ROOT  # in-place developer build
    p = subprocess.run([sys.executable] + args, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    return p.stdout + p.stderr


def paddle(args, cwd):
    return run(["-c", "import sys; from paddle.trainer.cli import main; sys.exit(main())"] + args, cwd)


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """Parameters after `paddle train` of the digits MLP (2 passes, seed 1)."""
    out = str(tmp_path_factory.mktemp("ref"))
    paddle(["train", "--config=mlp.py", "--save_dir=" + out, "--num_passes=%d" % PASSES, "--seed=1",
            "--dot_period=0"], DEMO)
    path = os.path.join(out, "pass-%05d" % (PASSES - 1))
    return {name: loadParameterFile(os.path.join(path, name))
            for name in os.listdir(path) if name.startswith("___")}


@pytest.fixture
def config(monkeypatch):
    monkeypatch.chdir(DEMO)
    api.initPaddle("--use_gpu=0", "--trainer_count=1")
    return parse_config("mlp.py", "")


def values(gm):
    return {p.getName(): p.getBuf(api.PARAMETER_VALUE).copyToNumpyArray() for p in gm.getParameters()}


def assert_same_parameters(got, want):
    assert sorted(got) == sorted(want) and len(want) == 6
    for name in want:
        np.testing.assert_array_equal(got[name], want[name], err_msg=name)


def test_trainer_with_the_configs_own_data_equals_paddle_train(config, reference):
    """v1's Trainer.create(proto) + startTrain/startTrainPass/trainOneBatch/finishTrainPass."""
    trainer = api.Trainer.create(config)
    trainer.startTrain()
    for _ in range(PASSES):
        trainer.startTrainPass()
        batches = 0
        while not trainer.trainOneBatch(config.opt_config.batch_size):
            batches += 1
        trainer.finishTrainPass()
        assert batches == 45  # 1437 samples in batches of 32
    trainer.finishTrain()
    assert_same_parameters(values(trainer.getGradientMachine()), reference)


def test_updater_loop_over_a_gradient_machine_equals_paddle_train(config, reference):
    """v1's api_train loop: GradientMachine + ParameterUpdater + Evaluator, fed batch by batch."""
    gm = api.GradientMachine.createFromConfigProto(config.model_config, api.CREATE_MODE_NORMAL,
                                                   [api.PARAMETER_VALUE, api.PARAMETER_GRADIENT])
    updater = api.ParameterUpdater.createLocalUpdater(api.OptimizationConfig.createFromProto(config.opt_config))
    updater.init(gm)
    data = DataProvider.from_trainer_config(config, seed=1)
    gm.start()
    for _ in range(PASSES):
        updater.startPass()
        evaluator = gm.makeEvaluator()
        evaluator.start()
        out = api.Arguments.createArguments(0)
        for batch in data.batches():
            pass_type = updater.startBatch(batch.size)
            assert pass_type == api.PASS_TRAIN
            gm.forwardBackward(slots_to_arguments(batch.slots), out, pass_type)
            for param in gm.getParameters():
                updater.update(param)
            gm.eval(evaluator)
            updater.finishBatch(out.sum() / batch.size)
        evaluator.finish()
        assert list(evaluator.getNames()) == ["classification_error_evaluator"]
        assert 0 <= evaluator.getValue("classification_error_evaluator") < 0.5
        assert re.match(r"classification_error_evaluator=[\d.e-]+ $", repr(evaluator))
        updater.catchUpWith()
        updater.finishPass()
    gm.finish()
    data.close()
    assert_same_parameters(values(gm), reference)


def test_trainer_over_a_users_gradient_machine_and_callback_updates(config, reference):
    """Trainer.create(config, gm) trains gm's own parameters; and forwardBackward's
    update callback (v1's UpdateCallback) gives the same as updating after it."""
    gm = api.GradientMachine.createFromConfigProto(config.model_config)
    trainer = api.Trainer.create(api.TrainerConfig.createFromProto(config), gm)
    trainer.startTrain()
    trainer.startTrainPass()
    assert not trainer.trainOneBatch(32)
    trainer.finishTrainPass()
    trained = values(gm)
    assert any(not np.array_equal(trained[k], v) for k, v in values(
        api.GradientMachine.createFromConfigProto(config.model_config)).items())

    class Apply(api.UpdateCallback):
        def __init__(self, updater):
            self.updater, self.seen = updater, []

        def apply(self, param):
            self.seen.append(param.getName())
            self.updater.update(param)

    gm2 = api.GradientMachine.createFromConfigProto(config.model_config)
    updater = api.ParameterUpdater.createLocalUpdater(config.opt_config)  # a proto works too
    updater.init(gm2)
    data = DataProvider.from_trainer_config(config, seed=1)
    batch = next(iter(data.batches()))
    data.close()
    updater.startPass()
    callback = Apply(updater)
    updater.startBatch(batch.size)
    gm2.forwardBackward(slots_to_arguments(batch.slots), api.Arguments.createArguments(0), api.PASS_TRAIN, callback)
    updater.finishBatch(0)
    assert sorted(callback.seen) == sorted(trained) and callback.seen[0] == "___fc_layer_2__.wbias"
    assert_same_parameters(values(gm2), trained)


def test_api_train_demo_reaches_paddle_train_accuracy(tmp_path):
    """demos/mnist/api_train.py (v1's api_train.py) trains to paddle train's accuracy
    (test error <= 3% after 30 passes, as tests/cli asserts for `paddle train`), and its
    saved pass is a model `paddle train --job=test` reads and scores the same."""
    out = str(tmp_path / "api")
    log = run(["api_train.py", "--num_passes=30", "--save_dir=" + out], DEMO)
    last = re.findall(r"Pass=29 .* Test cost=(\S+) Eval: classification_error_evaluator=(\S+)", log)
    assert last, log[-2000:]
    error = float(last[0][1])
    assert error <= 0.03, log[-2000:]
    test_log = paddle(["train", "--config=mlp.py", "--job=test", "--init_model_path=" + os.path.join(out, "pass-00029")],
                      DEMO)
    scored = re.findall(r"samples=360 AvgCost=(\S+) Eval: classification_error_evaluator=(\S+)", test_log)
    assert scored and float(scored[0][1]) == pytest.approx(error, abs=1e-6), test_log[-2000:]
    assert float(scored[0][0]) == pytest.approx(float(last[0][0]), rel=1e-4)
