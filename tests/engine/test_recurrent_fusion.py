"""lstmemory's fused passes (layers/LstmLayers.cpp) against the reordering passes they replace.

On the CPU with a bias, lstmemory's forward reads the gate pre-activations from its input in
sequence order (adding the bias and the recurrent product in the cell) and writes its output in
sequence order from the cell, instead of reordering both through batch-order copies. It must
give the bits of the unfused path (PADDLE_FUSE_LSTM_INPUT=0) in bf16 (by groups of sequences at
2 threads; the product added in the cell, which needs the bf16 GEMM to add C in one rounding:
sizes up to its block of k, 384, and over it) and in fp32 (only one step fuses there), both directions,
with and without a bias, values and every gradient.
"""
import os
import subprocess
import sys

import pytest

from test_mixed_precision import needs_bf16

FUSION_BITS = r"""
import os, sys
import numpy as np
sys.path[:0] = [%r]
from netbuilder import Seq, _run_and_collect, api, rand
from paddle.proto import message_to_json
from paddle.trainer_config_helpers import (AvgPooling, LinearActivation, data_layer, fc_layer, lstmemory, outputs,
                                           parse_network_config, pooling_layer, regression_cost)


def net():
    x = data_layer(name="x", size=12)
    layers = [lstmemory(input=fc_layer(input=x, size=4 * 16, act=LinearActivation()), name="fwd"),
              lstmemory(input=fc_layer(input=x, size=4 * 16, act=LinearActivation()), name="bwd", reverse=True),
              lstmemory(input=fc_layer(input=x, size=4 * 384, act=LinearActivation()), name="wide"),
              lstmemory(input=fc_layer(input=x, size=4 * 400, act=LinearActivation()), name="wider"),
              lstmemory(input=fc_layer(input=x, size=4 * 16, act=LinearActivation()), name="nobias",
                        bias_attr=False)]
    pools = [pooling_layer(input=r, pooling_type=AvgPooling()) for r in layers]
    outputs(regression_cost(input=fc_layer(input=pools, size=3, act=LinearActivation()),
                            label=data_layer(name="t", size=3)))


model = parse_network_config(net)
gm = api.GradientMachine.createByConfigJson(message_to_json(model), False, 3)
gm.setPrecision(sys.argv[1])
rng = np.random.RandomState(5)
for p in gm.getParameters():  # biases too (they start at zero, which adds nothing)
    buf = p.getBuf(api.PARAMETER_VALUE)
    buf.copyFromNumpyArray(0.3 * rand(rng, buf.getSize()))
lengths = rng.randint(1, 23, size=37) if sys.argv[2] == "varied" else np.ones(37, int)
slots = [Seq(rand(rng, int(lengths.sum()), 12), np.concatenate([[0], np.cumsum(lengths)])), rand(rng, 37, 3)]
names = [l.name for l in model.layers]
runs = {}
for fused in ("0", "1"):
    os.environ["PADDLE_FUSE_LSTM_INPUT"] = fused
    runs[fused] = _run_and_collect(gm, slots, names)
differ = sorted(k for k in runs["0"] if not np.array_equal(runs["0"][k], runs["1"][k]))
print(gm.getPrecision(), len(runs["0"]), "differ:", differ)
"""


def run_fusion(precision, lengths):
    env = dict(os.environ, PADDLE_THREADS="2", OMP_NUM_THREADS="2")
    here = os.path.dirname(os.path.abspath(__file__))
    out = subprocess.run([sys.executable, "-c", FUSION_BITS % here, precision, lengths], env=env,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip().splitlines()[-1]


@needs_bf16
@pytest.mark.parametrize("lengths", ["varied", "ones"])
def test_fused_lstm_forward_gives_the_bits_of_the_reordering_passes_in_bf16(lengths):
    line = run_fusion("bf16", lengths)
    precision, arrays, _, differ = line.split(" ", 3)
    assert precision == "bf16" and int(arrays) > 20 and differ == "[]", line


@pytest.mark.parametrize("lengths", ["varied", "ones"])
def test_fused_lstm_forward_gives_the_bits_of_the_reordering_passes_in_fp32(lengths):
    line = run_fusion("fp32", lengths)
    precision, arrays, _, differ = line.split(" ", 3)
    assert precision == "fp32" and int(arrays) > 20 and differ == "[]", line
