"""Every demo's YAML twin parses to the same network and optimizer as its Python config
(the ModelConfig and, when training, the OptimizationConfig messages compared whole, so
layer and parameter names agree too and a pass saved by one loads into the other), and trains: one pass of
`paddle train --data=synthetic` on the twin."""
import math
import os
import re

import pytest

from demo_run import CLI, ROOT, run

# (demo folder, Python config, the config args only it needs, YAML twin, config arg sets to compare)
TWINS = [
    ("mnist", "mlp.py", "", "mlp.yaml", ["", "is_predict=1"]),
    ("image_classification", "vgg_16_cifar.py", "", "vgg_16_cifar.yaml", ["", "is_predict=1", "num_samples=50"]),
    ("introduction", "trainer_config.py", "", "trainer_config.yaml", ["", "is_predict=1", "num_samples=50"]),
    ("quick_start", "trainer_config.lstm.py", "", "trainer_config.lstm.yaml", ["", "is_predict=1"]),
    ("quick_start", "trainer_config.bidi-lstm.py", "", "trainer_config.bidi-lstm.yaml",
     ["hidden=16", "hidden=16,is_predict=1"]),
    ("recommendation", "trainer_config.py", "", "trainer_config.yaml", ["hidden=16", "is_predict=1"]),
    ("semantic_role_labeling", "db_lstm.py", "", "db_lstm.yaml", ["", "is_predict=1"]),
    ("sentiment", "trainer_config.py", "net=conv", "trainer_config.conv.yaml", ["", "is_predict=1", "num_samples=50"]),
    ("seq2seq", "train.conf", "", "train.yaml", ["", "vocab=12"]),
    ("sequence_tagging", "trainer_config.crf.py", "", "trainer_config.crf.yaml", ["", "is_predict=1"]),
]
IDS = ["%s/%s" % (t[0], t[3]) for t in TWINS]

# run in the demo's folder (its configs import its modules); prints one line per arg set
COMPARE = """
import sys
sys.path.insert(0, '.')
from paddle.trainer.config_parser import parse_config
py, py_args, twin = sys.argv[1:4]
for args in sys.argv[4:]:
    a = parse_config(py, ','.join(x for x in (py_args, args) if x))
    b = parse_config(twin, args)
    # prediction runs no optimizer (bidi-lstm.py predicts in batches of 1, its twin of 128)
    for part in ('model_config',) if 'is_predict' in args else ('model_config', 'opt_config'):
        if getattr(a, part) != getattr(b, part):
            pa, pb = str(getattr(a, part)).splitlines(), str(getattr(b, part)).splitlines()
            first = next((i for i, (x, y) in enumerate(zip(pa, pb)) if x != y), min(len(pa), len(pb)))
            print('%r: %s differs at line %d: %r vs %r' % (args, part, first, pa[first:first + 1], pb[first:first + 1]))
            break
    else:
        print('%r: same' % args)
"""


@pytest.mark.parametrize("demo,py,py_args,twin,arg_sets", TWINS, ids=IDS)
def test_twin_parses_to_the_same_network(demo, py, py_args, twin, arg_sets):
    out = run(["-c", COMPARE, py, py_args, twin] + arg_sets, os.path.join(ROOT, "demos", demo))
    assert out.strip().splitlines()[-len(arg_sets):] == ["%r: same" % a for a in arg_sets], out[-3000:]


@pytest.mark.parametrize("demo,py,py_args,twin,arg_sets", TWINS, ids=IDS)
def test_twin_trains(demo, py, py_args, twin, arg_sets, tmp_path):
    log = run(CLI + ["train", "--config=" + twin, "--config_args=" + arg_sets[0], "--data=synthetic:32",
                     "--num_passes=1", "--save_dir=" + str(tmp_path), "--log_period=0", "--dot_period=0"],
              os.path.join(ROOT, "demos", demo), blas_threads=1)
    costs = re.findall(r"\]  Test samples=8 cost=(\S+)(?: |$)", log, re.M)
    assert len(costs) == 1 and math.isfinite(float(costs[0])), log[-2000:]
    assert os.listdir(str(tmp_path / "pass-00000")), log[-2000:]
