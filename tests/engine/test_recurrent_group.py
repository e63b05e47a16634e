"""recurrent_group: frames over mixed-length sequences, memories (zero, boot
layer, boot bias, static sequence input), reversed groups."""
import os
import textwrap

import numpy as np
import pytest

from netbuilder import Seq, gradient_check, make_args
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
    return [Seq(rng.randn(starts[-1], w).astype(np.float32), starts) for w in widths]


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
    x = slots[0].data.astype(np.float64)
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
    slots = [Seq(rng.randn(11, 3).astype(np.float32), STARTS),
             rng.randn(4, 4).astype(np.float32),  # one context row per sequence
             Seq(rng.randn(11, 4).astype(np.float32), STARTS)]
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


LSTM_PLAIN = """
x = data_layer(name='x', size=3)
y = data_layer(name='y', size=4)
proj = fc_layer(input=x, size=16, act=LinearActivation(), bias_attr=False)
out = lstmemory(input=proj, act=TanhActivation(), gate_act=SigmoidActivation(), state_act=TanhActivation())
outputs(regression_cost(input=out, label=y))
"""
LSTM_GROUP = """
x = data_layer(name='x', size=3)
y = data_layer(name='y', size=4)
proj = fc_layer(input=x, size=16, act=LinearActivation(), bias_attr=False)
out = lstmemory_group(input=proj, size=4, name='lg', act=TanhActivation(), gate_act=SigmoidActivation(),
                      state_act=TanhActivation())
outputs(regression_cost(input=out, label=y))
"""


def test_lstmemory_equals_recurrent_group_of_lstm_step(tmp_path):
    """Same weights => same outputs and gradients (tolerance 1e-5 relative)."""
    plain, _ = build(tmp_path, LSTM_PLAIN)
    group, _ = build(tmp_path, LSTM_GROUP)
    p = {q.getName(): q for q in plain.getParameters()}
    g = {q.getName(): q for q in group.getParameters()}
    rng = np.random.RandomState(7)

    def set_(param, value):
        param.getBuf(api.PARAMETER_VALUE).copyFromNumpyArray(np.ascontiguousarray(value, dtype=np.float32))

    w_in = rng.randn(3 * 16).astype(np.float32) * 0.5
    w_h = rng.randn(4 * 16).astype(np.float32) * 0.5
    peep = rng.randn(12).astype(np.float32) * 0.5
    set_(p["___fc_layer_0__.w0"], w_in)
    set_(g["___fc_layer_0__.w0"], w_in)
    set_(p["___lstmemory_0__.w0"], w_h)
    set_(g["_lg_input_recurrent@lg_recurrent_group.w1"], w_h)
    set_(p["___lstmemory_0__.wbias"], np.concatenate([np.zeros(16, np.float32), peep]))
    set_(g["_lg@lg_recurrent_group.wbias"], peep)
    slots = seq_slots([3, 4], seed=8)
    outs = {}
    for name, gm in (("plain", plain), ("group", group)):
        out = api.Arguments.createArguments(0)
        gm.forwardBackward(make_args(slots), out, api.PASS_TRAIN)
        outs[name] = out.sum()
    assert outs["plain"] == pytest.approx(outs["group"], rel=1e-5)
    np.testing.assert_allclose(plain.getLayerOutput("__lstmemory_0__").getSlotValue(0).copyToNumpyMat(),
                               group.getLayerOutput("lg").getSlotValue(0).copyToNumpyMat(), rtol=1e-5, atol=1e-6)

    def grad(param):
        return param.getBuf(api.PARAMETER_GRADIENT).copyToNumpyArray()

    np.testing.assert_allclose(grad(p["___fc_layer_0__.w0"]), grad(g["___fc_layer_0__.w0"]), rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(grad(p["___lstmemory_0__.w0"]), grad(g["_lg_input_recurrent@lg_recurrent_group.w1"]),
                               rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(grad(p["___lstmemory_0__.wbias"])[16:], grad(g["_lg@lg_recurrent_group.wbias"]),
                               rtol=1e-4, atol=1e-6)


def test_gru_group_equals_grumemory(tmp_path):
    plain, _ = build(tmp_path, """
    x = data_layer(name='x', size=3)
    y = data_layer(name='y', size=4)
    out = simple_gru2(input=x, size=4, name='g2')
    outputs(regression_cost(input=out, label=y))
    """)
    group, _ = build(tmp_path, """
    x = data_layer(name='x', size=3)
    y = data_layer(name='y', size=4)
    out = simple_gru(input=x, size=4, name='g1')
    outputs(regression_cost(input=out, label=y))
    """)
    p = {q.getName(): q for q in plain.getParameters()}
    g = {q.getName(): q for q in group.getParameters()}
    assert sorted(q.getSize() for q in p.values()) == sorted(q.getSize() for q in g.values())
    rng = np.random.RandomState(3)
    pairs = [("_g2_transform.w0", "_g1_transform.w0")]
    rec_p = [n for n in p if n.startswith("_g2") and n.endswith(".w0") and "transform" not in n][0]
    rec_g = [n for n in g if n.startswith("_g1@") and n.endswith(".w0")][0]
    bias_p = [n for n in p if n.startswith("_g2") and n.endswith(".wbias") and "transform" not in n][0]
    bias_g = [n for n in g if n.startswith("_g1@") and n.endswith(".wbias")][0]
    pairs += [(rec_p, rec_g), (bias_p, bias_g)]
    for a, b in pairs:
        v = (rng.randn(p[a].getSize()) * 0.5).astype(np.float32)
        p[a].getBuf(0).copyFromNumpyArray(v)
        g[b].getBuf(0).copyFromNumpyArray(v)
    slots = seq_slots([3, 4], seed=9)
    costs = []
    for gm in (plain, group):
        out = api.Arguments.createArguments(0)
        gm.forwardBackward(make_args(slots), out, api.PASS_TRAIN)
        costs.append(out.sum())
    assert costs[0] == pytest.approx(costs[1], rel=1e-5)
    for a, b in pairs:
        np.testing.assert_allclose(p[a].getBuf(1).copyToNumpyArray(), g[b].getBuf(1).copyToNumpyArray(),
                                   rtol=1e-4, atol=1e-6, err_msg=a)


def test_lstm_and_gru_group_gradients(tmp_path):
    gm, _ = build(tmp_path, LSTM_GROUP)
    gradient_check(gm, seq_slots([3, 4], seed=10), input_slots=[0], samples=8)
    gm, _ = build(tmp_path, """
    x = data_layer(name='x', size=3)
    y = data_layer(name='y', size=4)
    outputs(regression_cost(input=simple_gru(input=x, size=4, reverse=True), label=y))
    """)
    gradient_check(gm, seq_slots([3, 4], seed=11), input_slots=[0], samples=8)


ATTENTION = """
src = data_layer(name='src', size=3)
trg = data_layer(name='trg', size=2)
y = data_layer(name='y', size=4)
enc = fc_layer(input=src, size=4, act=TanhActivation())
enc_proj = fc_layer(input=enc, size=4, act=LinearActivation(), bias_attr=False)
boot = fc_layer(input=first_seq(input=enc), size=4, act=TanhActivation())
def step(enc_seq, enc_proj_seq, word):
    mem = memory(name='dec', size=4, boot_layer=boot)
    ctx = simple_attention(encoded_sequence=enc_seq, encoded_proj=enc_proj_seq, decoder_state=mem)
    return fc_layer(input=[ctx, word, mem], size=4, act=TanhActivation(), name='dec')
out = recurrent_group(step=step, input=[StaticInput(enc, is_seq=True), StaticInput(enc_proj, is_seq=True), trg])
outputs(regression_cost(input=out, label=y))
"""


def test_attention_over_a_static_sequence_input(tmp_path):
    """Decoder steps over target sequences attend over their own source sequence."""
    gm, _ = build(tmp_path, ATTENTION)
    rng = np.random.RandomState(12)
    src_starts = [0, 2, 7, 8]     # source lengths 2, 5, 1
    trg_starts = [0, 3, 4, 8]     # target lengths 3, 1, 4
    slots = [Seq(rng.randn(8, 3).astype(np.float32), src_starts),
             Seq(rng.randn(8, 2).astype(np.float32), trg_starts),
             Seq(rng.randn(8, 4).astype(np.float32), trg_starts)]
    gradient_check(gm, slots, input_slots=[0, 1], samples=8)
    # a target step reads only its own source: changing source 1 leaves sequence 0's outputs alone
    out = api.Arguments.createArguments(0)
    gm.forward(make_args(slots), out, api.PASS_TEST)
    before = gm.getLayerOutput("dec").getSlotValue(0).copyToNumpyMat()
    changed = slots[0].data.copy()
    changed[2:7] += 1.0
    gm.forward(make_args([Seq(changed, src_starts)] + slots[1:]), out, api.PASS_TEST)
    after = gm.getLayerOutput("dec").getSlotValue(0).copyToNumpyMat()
    np.testing.assert_allclose(after[0:3], before[0:3], rtol=1e-6)
    np.testing.assert_allclose(after[4:8], before[4:8], rtol=1e-6)
    assert not np.allclose(after[3], before[3])



def test_frame_gradients_handed_on_across_batches_of_other_lengths(tmp_path):
    """Frames share two sets of gradient buffers; after a longer and then a shorter
    batch trained through the same frames, gradients are still exact."""
    gm, _ = build(tmp_path, ATTENTION)
    rng = np.random.RandomState(13)
    long_starts = [0, 7, 9, 16]  # 7 steps: every frame hands its buffers on
    longer = [Seq(rng.randn(16, w).astype(np.float32), long_starts) for w in (3, 2, 4)]
    out = api.Arguments.createArguments(0)
    gm.forward(make_args(longer), out, api.PASS_TRAIN)
    gm.backward()
    src_starts, trg_starts = [0, 3, 4, 9], [0, 5, 6, 9]
    slots = [Seq(rng.randn(9, 3).astype(np.float32), src_starts),
             Seq(rng.randn(9, 2).astype(np.float32), trg_starts),
             Seq(rng.randn(9, 4).astype(np.float32), trg_starts)]
    gradient_check(gm, slots, input_slots=[0, 1], samples=8)

NESTED = """
x = data_layer(name='x', size=3)
y = data_layer(name='y', size=4)
def step(sub):  # one sub-sequence per step
    mem = memory(name='h', size=4)
    pooled = pooling_layer(input=sub, pooling_type=AvgPooling())
    return fc_layer(input=[pooled, mem], size=4, act=TanhActivation(), name='h',
                    param_attr=[ParamAttr(name='w_in'), ParamAttr(name='w_rec')], bias_attr=ParamAttr(name='b'))
out = recurrent_group(step=step, input=SubsequenceInput(x), reverse=%s)
outputs(regression_cost(input=out, label=y))
"""
FLAT = """
x = data_layer(name='x', size=3)
y = data_layer(name='y', size=4)
pooled = pooling_layer(input=x, pooling_type=AvgPooling(), agg_level=AggregateLevel.EACH_SEQUENCE)
def step(v):
    mem = memory(name='h', size=4)
    return fc_layer(input=[v, mem], size=4, act=TanhActivation(), name='h',
                    param_attr=[ParamAttr(name='w_in'), ParamAttr(name='w_rec')], bias_attr=ParamAttr(name='b'))
out = recurrent_group(step=step, input=pooled, reverse=%s)
outputs(regression_cost(input=out, label=y))
"""
# 3 samples: 2, 1 and 3 sub-sequences of lengths (2,1), (3), (1,2,2)
SUB_STARTS = [0, 2, 3, 6, 7, 9, 11]
OUTER_STARTS = [0, 3, 6, 11]


@pytest.mark.parametrize("reverse", [False, True])
def test_subsequence_input_steps_over_sub_sequences(tmp_path, reverse):
    nested, _ = build(tmp_path, NESTED % reverse)
    flat, _ = build(tmp_path, FLAT % reverse)
    for name in ("w_in", "w_rec", "b"):
        flat.getParameterByName(name).getBuf(0).copyFromNumpyArray(
            nested.getParameterByName(name).getBuf(0).copyToNumpyArray())
    rng = np.random.RandomState(13)
    x = Seq(rng.randn(11, 3).astype(np.float32), OUTER_STARTS, SUB_STARTS)
    y_units = Seq(rng.randn(6, 4).astype(np.float32), [0, 2, 3, 6])  # one target per sub-sequence
    outs = []
    for gm in (nested, flat):
        out = api.Arguments.createArguments(0)
        gm.forward(make_args([x, y_units]), out, api.PASS_TEST)
        arg = gm.getLayerOutput("h")
        outs.append(arg.getSlotValue(0).copyToNumpyMat())
        assert list(arg.getSlotSequenceStartPositions(0).copyToNumpyArray()) == [0, 2, 3, 6]
    np.testing.assert_allclose(outs[0], outs[1], rtol=1e-5, atol=1e-6)
    gradient_check(nested, [x, y_units], input_slots=[0], samples=8)


def test_nested_output_when_the_step_returns_sequences(tmp_path):
    gm, _ = build(tmp_path, """
    x = data_layer(name='x', size=3)
    y = data_layer(name='y', size=2)
    def step(sub):
        return fc_layer(input=sub, size=2, act=TanhActivation(), name='tok',
                        param_attr=ParamAttr(name='w'), bias_attr=ParamAttr(name='b'))
    out = recurrent_group(step=step, input=SubsequenceInput(x))
    outputs(regression_cost(input=out, label=y))
    """)
    rng = np.random.RandomState(14)
    x = Seq(rng.randn(11, 3).astype(np.float32), OUTER_STARTS, SUB_STARTS)
    y = Seq(rng.randn(11, 2).astype(np.float32), OUTER_STARTS, SUB_STARTS)
    out = api.Arguments.createArguments(0)
    gm.forward(make_args([x, y]), out, api.PASS_TEST)
    arg = gm.getLayerOutput("tok")
    w = gm.getParameterByName("w").getBuf(0).copyToNumpyArray().reshape(3, 2)
    b = gm.getParameterByName("b").getBuf(0).copyToNumpyArray()
    np.testing.assert_allclose(arg.getSlotValue(0).copyToNumpyMat(), np.tanh(x.data @ w + b), rtol=1e-5, atol=1e-6)
    assert list(arg.getSlotSequenceStartPositions(0).copyToNumpyArray()) == OUTER_STARTS
    assert list(arg.getSlotSubSequenceStartPositions(0).copyToNumpyArray()) == SUB_STARTS
    gradient_check(gm, [x, y], input_slots=[0], samples=8)
