"""recurrent_group: frames over mixed-length sequences, memories (zero, boot
layer, boot bias, static sequence input), reversed groups."""
import os
import textwrap

import numpy as np
import pytest

from netbuilder import SeqArray, gradient_check, make_args
from paddle.proto import message_to_json
from paddle.trainer.config_parser import parse_config
from py_paddle import swig_paddle as api

STARTS = [0, 3, 4, 9, 11]


def build(tmp_path, body, seed=1):
    conf = tmp_path / "group_conf.py"
    conf.write_text("from paddle.trainer_config_helpers import *\nsettings(batch_size=10)\n" +
                    textwrap.dedent(body))
    tc = parse_config(str(conf), "")
    return api.GradientMachine.createByConfigJson(message_to_json(tc.model_config), False, seed), tc


def seq_slots(widths, seed=0, starts=STARTS):
    rng = np.random.RandomState(seed)
    return [SeqArray.of(rng.randn(starts[-1], w).astype(np.float32), starts) for w in widths]


SIMPLE_RNN = """
x = data_layer(name='x', size=3)
y = data_layer(name='y', size=4)
def step(ipt):
    mem = memory(name='h', size=4)
    return fc_layer(input=[ipt, mem], size=4, act=TanhActivation(), name='h')
out = recurrent_group(step=step, input=[x], reverse=%s)
outputs(regression_cost(input=out, label=y))
"""


@pytest.mark.parametrize("reverse", [False, True])
def test_simple_rnn_group_matches_numpy_and_gradients(tmp_path, reverse):
    gm, _ = build(tmp_path, SIMPLE_RNN % reverse)
    slots = seq_slots([3, 4])
    out = api.Arguments.createArguments(0)
    gm.forward(make_args(slots), out, api.PASS_TEST)
    names = [p.getName() for p in gm.getParameters()]
    w0 = gm.getParameterByName([n for n in names if n.endswith(".w0")][0]).getBuf(0).copyToNumpyArray().reshape(3, 4)
    w1 = gm.getParameterByName([n for n in names if n.endswith(".w1")][0]).getBuf(0).copyToNumpyArray().reshape(4, 4)
    b = gm.getParameterByName([n for n in names if n.endswith(".wbias")][0]).getBuf(0).copyToNumpyArray()
    x = np.asarray(slots[0], dtype=np.float64)
    expected = np.zeros((STARTS[-1], 4))
    for s in range(len(STARTS) - 1):
        rows = range(STARTS[s], STARTS[s + 1])
        h = np.zeros(4)
        for r in (reversed(rows) if reverse else rows):
            h = np.tanh(x[r] @ w0 + h @ w1 + b)
            expected[r] = h
    value = gm.getLayerOutput("h").getSlotValue(0).copyToNumpyMat()
    np.testing.assert_allclose(value, expected, rtol=1e-5, atol=1e-6)
    assert list(gm.getLayerOutput("h").getSlotSequenceStartPositions(0).copyToNumpyArray()) == STARTS
    gradient_check(gm, slots, input_slots=[0], samples=10)


def test_boot_layer_static_input_and_boot_bias(tmp_path):
    gm, _ = build(tmp_path, """
    x = data_layer(name='x', size=3)
    ctx = data_layer(name='ctx', size=4)
    y = data_layer(name='y', size=4)
    boot = fc_layer(input=ctx, size=4, act=TanhActivation())
    def step(ipt, static):
        mem = memory(name='h', size=4, boot_layer=boot)
        mem2 = memory(name='g', size=2, boot_bias=ParamAttr(initial_std=0.5), boot_bias_active_type=TanhActivation())
        g = fc_layer(input=[mem2, ipt], size=2, act=SigmoidActivation(), name='g')
        return fc_layer(input=[ipt, mem, static, g], size=4, act=TanhActivation(), name='h')
    out = recurrent_group(step=step, input=[x, StaticInput(ctx)])
    outputs(regression_cost(input=out, label=y))
    """)
    rng = np.random.RandomState(3)
    slots = [SeqArray.of(rng.randn(11, 3).astype(np.float32), STARTS),
             rng.randn(4, 4).astype(np.float32),  # one context row per sequence
             SeqArray.of(rng.randn(11, 4).astype(np.float32), STARTS)]
    assert [n for n in gm.getInputLayerNames()] == ["x", "ctx", "y"]
    gradient_check(gm, slots, input_slots=[0, 1], samples=8)


def test_group_outputs_a_sequence_usable_by_sequence_layers(tmp_path):
    gm, _ = build(tmp_path, """
    x = data_layer(name='x', size=3)
    y = data_layer(name='y', size=4)
    def step(ipt):
        mem = memory(name='h', size=4)
        return fc_layer(input=[ipt, mem], size=4, act=TanhActivation(), name='h')
    seq = recurrent_group(step=step, input=[fc_layer(input=x, size=5)])
    outputs(regression_cost(input=fc_layer(input=seq, size=4), label=y))
    """)
    gradient_check(gm, seq_slots([3, 4], seed=5), input_slots=[0], samples=8)


def test_generation_config_is_refused_clearly(tmp_path):
    with pytest.raises((ValueError, RuntimeError), match="generation|beam"):
        build(tmp_path, """
        src = data_layer(name='src', size=10)
        def step(word):
            mem = memory(name='dec', size=4)
            h = fc_layer(input=[word, mem], size=4, name='dec')
            return fc_layer(input=h, size=10, act=SoftmaxActivation())
        out = beam_search(step=step, input=[GeneratedInput(size=10, embedding_name='emb', embedding_size=4)],
                          bos_id=0, eos_id=1, beam_size=2, max_length=5)
        outputs(out)
        """)
