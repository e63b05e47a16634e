"""Training stops on a non-finite cost before it updates (naming the batch and the first
non-finite layer) and copes with batches smaller than --trainer_count."""
import os
import re

import numpy as np

from test_cli import DEMO, paddle

PROVIDER = """
from paddle.trainer.PyDataProvider2 import *

@provider(input_types=[dense_vector(4), integer_value(2)])
def process(settings, filename):
    for i in range(40):
        x = [0.5, -0.5, 1.0, float(i % 3)]
        if i == 25:  # the second batch of 20 holds a bad sample
            x[2] = float('BAD')
        yield x, i % 2
"""
CONFIG = """
from paddle.trainer_config_helpers import *
define_py_data_sources2(train_list='train.list', test_list=None, module='provider', obj='process')
settings(batch_size=20, learning_rate=0.1)
x = data_layer(name='x', size=4)
h = fc_layer(input=x, size=3, act=TanhActivation(), name='hidden')
out = fc_layer(input=h, size=2, act=SoftmaxActivation())
outputs(classification_cost(input=out, label=data_layer(name='y', size=2)))
"""


def write_job(tmp_path, bad_value):
    (tmp_path / "provider.py").write_text(PROVIDER.replace('BAD', bad_value))
    (tmp_path / "conf.py").write_text(CONFIG)
    (tmp_path / "train.list").write_text("unused\n")


def test_a_non_finite_cost_stops_training_naming_the_batch_and_layer(tmp_path):
    write_job(tmp_path, "nan")
    code, _, err = paddle(["train", "--config=conf.py", "--save_dir=out", "--num_passes=2", "--dot_period=0"],
                          str(tmp_path))
    assert code == 1 and "Traceback" not in err, err
    assert re.search(r"pass 0, batch 2: the cost is nan; first non-finite output: layer 'x' \(data\) outputs nan",
                     err), err
    assert not os.path.exists(tmp_path / "out" / "pass-00000")  # nothing half-trained was saved


def test_relu_does_not_hide_a_nan(tmp_path):
    """max(x, 0) written as `x > 0 ? x : 0` turns NaN into 0 and the guard would never fire."""
    write_job(tmp_path, "nan")
    conf = (tmp_path / "conf.py").read_text().replace("act=TanhActivation()", "act=ReluActivation()")
    (tmp_path / "conf.py").write_text(conf)
    code, _, err = paddle(["train", "--config=conf.py", "--save_dir=out", "--num_passes=1", "--dot_period=0"],
                          str(tmp_path))
    assert code == 1 and "pass 0, batch 2: the cost is nan" in err, err


def test_an_overflowing_layer_is_named(tmp_path):
    write_job(tmp_path, "1e38")  # finite input; the fc output overflows to inf
    conf = (tmp_path / "conf.py").read_text().replace(
        "act=TanhActivation(), name='hidden')",
        "act=LinearActivation(), name='hidden', param_attr=ParamAttr(initial_mean=1e10, initial_std=0))")
    (tmp_path / "conf.py").write_text(conf)
    code, _, err = paddle(["train", "--config=conf.py", "--save_dir=out", "--num_passes=1", "--dot_period=0"],
                          str(tmp_path))
    assert code == 1 and "first non-finite output: layer 'hidden' (fc) outputs inf" in err, err


DIGITS_CONFIG = """
from paddle.trainer_config_helpers import *
define_py_data_sources2(train_list='train.list', test_list=None,
                        module='mnist_provider', obj='process', args={'dataset': 'digits'})
settings(batch_size=718, learning_rate=1e-3, learning_method=AdamOptimizer())
img = data_layer(name='pixel', size=64)
h = fc_layer(input=img, size=32, act=ReluActivation())
out = fc_layer(input=h, size=10, act=SoftmaxActivation())
outputs(classification_cost(input=out, label=data_layer(name='label', size=10)))
"""


def test_more_replicas_than_samples_in_the_last_batch(tmp_path):
    # 1437 digits in batches of 718: the last batch has one sample for two or three replicas
    (tmp_path / "conf.py").write_text(DIGITS_CONFIG)
    costs = {}
    for count in (1, 2, 3):
        code, _, err = paddle(["train", "--config=" + str(tmp_path / "conf.py"), "--num_passes=1",
                               "--save_dir=" + str(tmp_path / str(count)), "--dot_period=0",
                               "--trainer_count=%d" % count], DEMO)
        assert code == 0 and "empty" not in err, err
        passes = re.findall(r"Pass=0 Batch=3 samples=(\d+) AvgCost=(\S+)", err)
        assert passes and passes[0][0] == "1437", err
        costs[count] = float(passes[0][1])
    # the same gradients, summed in another order
    np.testing.assert_allclose([costs[2], costs[3]], [costs[1]] * 2, rtol=1e-4)


def test_an_empty_train_list_is_an_error_not_an_untrained_model(tmp_path):
    write_job(tmp_path, "0")
    (tmp_path / "train.list").write_text("")
    code, _, err = paddle(["train", "--config=conf.py", "--save_dir=out", "--num_passes=1", "--dot_period=0"],
                          str(tmp_path))
    assert code == 1 and "a training pass read no samples" in err and "train.list has 0 entries" in err, err
    assert "provider.py" in err and not os.path.exists(tmp_path / "out" / "pass-00000")
