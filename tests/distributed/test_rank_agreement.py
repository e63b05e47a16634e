"""Ranks started differently (config, flags, data) end with an error naming what differs
and where, instead of hanging in a collective or training silently on different settings."""
import os
import re
import subprocess
import sys
import time

import pytest

from test_data_parallel import MPIEXEC, _env, needs_mpi

HERE = os.path.dirname(os.path.abspath(__file__))

CONFIG = """
from paddle.trainer_config_helpers import *
bs = get_config_arg('bs', int, 8)
size = get_config_arg('size', int, 6)
act = get_config_arg('act', str, 'tanh')
lr = get_config_arg('lr', float, 0.01)
define_py_data_sources2(train_list='train.list', test_list=None, module='rank_provider', obj='process')
settings(batch_size=bs, learning_rate=lr)
h = fc_layer(input=data_layer(name='x', size=4), size=size,
             act=TanhActivation() if act == 'tanh' else ReluActivation())
out = fc_layer(input=h, size=2, act=SoftmaxActivation())
outputs(classification_cost(input=out, label=data_layer(name='y', size=2)))
"""
# SHORT / OTHER: rank 1 reads a shorter file, or a file of the same length with other values
PROVIDER = """
import os
from paddle.trainer.PyDataProvider2 import *

@provider(input_types=[dense_vector(4), integer_value(2)], should_shuffle=False)
def process(settings, filename):
    rank1 = os.environ.get('PMI_RANK') == '1'
    for i in range(24 if MODE == 'short' and rank1 else 40):
        if MODE == 'stuck' and rank1 and i == 20:
            import time
            time.sleep(100)
        v = 0.5 if MODE == 'other' and rank1 and i == 17 else 0.25
        yield [v, -v, float(i % 5), 1.0], i % 2
"""


def run(tmp_path, rank0, rank1, mode="same"):
    (tmp_path / "conf.py").write_text(CONFIG)
    (tmp_path / "rank_provider.py").write_text(PROVIDER.replace("MODE", repr(mode)))
    (tmp_path / "train.list").write_text("data\n")
    base = [sys.executable, os.path.join(HERE, "every_rank_saves.py"), "train", "--config=conf.py",
            "--dot_period=0", "--seed=3"]
    cmd = [MPIEXEC, "-n", "1"] + base + rank0 + [":", "-n", "1"] + base + rank1
    start = time.time()
    p = subprocess.run(cmd, cwd=str(tmp_path), env=_env(tmp_path / "out"), capture_output=True, text=True,
                       timeout=180)
    return p.returncode, p.stderr, time.time() - start


@needs_mpi
@pytest.mark.parametrize("rank0,rank1,expected", [
    (["--config_args=bs=8"], ["--config_args=bs=16"], "opt_config.batch_size: rank 0 has 8, rank 1 has 16"),
    (["--num_passes=2"], ["--num_passes=3"], "--num_passes: rank 0 has 2, rank 1 has 3"),
    (["--config_args=act=tanh"], ["--config_args=act=relu"],
     "model_config.layers['__fc_layer_0__'].active_type: rank 0 has \"tanh\", rank 1 has \"relu\""),
    (["--config_args=lr=0.01"], ["--config_args=lr=0.02"], "learning_rate: rank 0 has 0.01, rank 1 has 0.02"),
    (["--config_args=size=6"], ["--config_args=size=7"],
     "model_config.layers['__fc_layer_0__'].size: rank 0 has \"6\", rank 1 has \"7\""),
])
def test_ranks_started_with_different_settings_are_refused(tmp_path, rank0, rank1, expected):
    code, err, seconds = run(tmp_path, rank0 + ["--num_passes=2"] * ("--num_passes" not in str(rank0)),
                             rank1 + ["--num_passes=2"] * ("--num_passes" not in str(rank1)))
    assert code != 0 and "the ranks were started with different settings" in err, err[-3000:]
    assert expected in err, err[-3000:]
    assert seconds < 120


@needs_mpi
@pytest.mark.parametrize("mode,expected", [
    ("short", r"pass 0, batch 4: the ranks' data differ \(rank 1 has no batch left where rank 0 has a batch of 8 "
              r"samples\)"),
    ("other", r"pass 0, batch 3: the ranks' data differ \(rank 1 has a batch of 8 samples with other data where "
              r"rank 0 has a batch of 8 samples\)"),
])
def test_ranks_reading_different_data_are_an_error_not_a_hang(tmp_path, mode, expected):
    code, err, seconds = run(tmp_path, ["--num_passes=1"], ["--num_passes=1"], mode)
    assert code != 0 and re.search(expected, err), err[-3000:]
    assert seconds < 120


@needs_mpi
def test_ranks_started_alike_train(tmp_path):
    code, err, _ = run(tmp_path, ["--num_passes=2"], ["--num_passes=2"])
    assert code == 0, err[-3000:]
    assert os.path.isdir(str(tmp_path / "out" / "rank-1" / "pass-00001"))


@needs_mpi
def test_a_rank_stuck_outside_mpi_ends_the_job_after_the_collective_timeout(tmp_path):
    code, err, seconds = run(tmp_path, ["--num_passes=1", "--collective_timeout=3"],
                             ["--num_passes=1", "--collective_timeout=3"], "stuck")
    assert code != 0, err[-3000:]
    assert re.search(r"rank 0 of 2: the all-gather that compares the ranks' batches has waited [34] s for the other "
                     r"ranks \(--collective_timeout=3\): a rank is stuck or gone", err), err[-3000:]
    assert seconds < 60
