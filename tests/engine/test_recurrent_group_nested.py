"""Nested recurrent groups (v1's hierarchical RNN): an outer recurrent_group over
sub-sequences (SubsequenceInput) whose step runs an inner recurrent_group over the
words of its sub-sequence, the inner memory booted from the outer one. v1's
acceptance test: the nested network computes exactly what the flat network computes
on the flattened sequences (same cost, same parameter gradients, same training).

Networks are built on the device the engine tests run on (PADDLE_TEST_USE_GPU=1:
the GPU, or the stand-in GPU of tests/engine/test_fake_gpu.py), and gradient_check
compares CPU and GPU runs when a GPU is visible."""
import json
import re

import numpy as np
import pytest

import netbuilder
from netbuilder import Seq, gradient_check, make_args
from paddle.proto import message_to_json
from paddle.trainer.config_parser import parse_config
from py_paddle import swig_paddle as api

DICT, WORD, HID, LABELS = 10, 5, 4, 3

HEAD = """
from paddle.trainer_config_helpers import *
settings(batch_size=3, learning_rate=0.01)
"""
# the inputs of the group: word embeddings (v1's configs) or dense vectors
INPUT_IDS = """
word = data_layer(name='word', size=%d)
emb = embedding_layer(input=word, size=%d, param_attr=ParamAttr(name='emb'))
""" % (DICT, WORD)
INPUT_DENSE = """
word = data_layer(name='word', size=3)
emb = fc_layer(input=word, size=%d, act=TanhActivation(), param_attr=ParamAttr(name='w_x'),
               bias_attr=ParamAttr(name='b_x'))
""" % WORD
TAIL = """
rep = last_seq(input=out)
prob = fc_layer(input=rep, size=%d, act=SoftmaxActivation(), param_attr=ParamAttr(name='w_out'),
                bias_attr=ParamAttr(name='b_out'))
outputs(classification_cost(input=prob, label=data_layer(name='label', size=%d)))
""" % (LABELS, LABELS)
CELL = """fc_layer(input=%s, size=%d, act=TanhActivation(), name='%s',
                    param_attr=[%s], bias_attr=ParamAttr(name='b_rec'))"""


def cell(inputs, name, params):
    return CELL % ("[" + ", ".join(inputs) + "]", HID, name, ", ".join("ParamAttr(name='%s')" % p for p in params))


FLAT = """
def step(y):
    mem = memory(name='rnn_state', size=%d)
    return %s
out = recurrent_group(step=step, input=emb)
""" % (HID, cell(["y", "mem"], "rnn_state", ["w_in", "w_rec"]))

NESTED = """
def outer_step(x):
    outer_mem = memory(name='outer_rnn_state', size=%(hid)d)
    def inner_step(y):
        inner_mem = memory(name='inner_rnn_state', size=%(hid)d, boot_layer=outer_mem)
        return %(cell)s
    inner_out = recurrent_group(step=inner_step, input=x)
    last_seq(input=inner_out, name='outer_rnn_state')
    return inner_out
out = recurrent_group(step=outer_step, input=SubsequenceInput(emb))
""" % {"hid": HID, "cell": cell(["y", "inner_mem"], "inner_rnn_state", ["w_in", "w_rec"])}

# v1's sequence_nest_rnn_readonly_memory style: a read-only sequence memory (no boot)
NESTED_READONLY = """
def outer_step(x):
    readonly = memory(name='outer_rnn_readonly', size=%(hid)d, is_seq=True)
    outer_mem = memory(name='outer_rnn_state', size=%(hid)d)
    def inner_step(y):
        inner_mem = memory(name='inner_rnn_state', size=%(hid)d, boot_layer=outer_mem)
        return %(cell)s
    inner_out = recurrent_group(step=inner_step, input=x)
    last_seq(input=inner_out, name='outer_rnn_state')
    with mixed_layer(size=%(hid)d, name='outer_rnn_readonly') as keep:
        keep += identity_projection(input=inner_out)
    return inner_out
out = recurrent_group(step=outer_step, input=SubsequenceInput(emb))
""" % {"hid": HID, "cell": cell(["y", "inner_mem"], "inner_rnn_state", ["w_in", "w_rec"])}

# v1's sequence_rnn_multi_input / sequence_nest_rnn_multi_input style: the ids are a
# second in-link, embedded inside the (inner) step
FLAT_MULTI = """
def step(y, wid):
    z = embedding_layer(input=wid, size=%(word)d, param_attr=ParamAttr(name='emb2'))
    mem = memory(name='rnn_state', size=%(hid)d)
    return %(cell)s
out = recurrent_group(step=step, input=[emb, word])
""" % {"word": WORD, "hid": HID, "cell": cell(["y", "z", "mem"], "rnn_state", ["w_in", "w_z", "w_rec"])}

NESTED_MULTI = """
def outer_step(wid, x):
    outer_mem = memory(name='outer_rnn_state', size=%(hid)d)
    def inner_step(y, wid):
        z = embedding_layer(input=wid, size=%(word)d, param_attr=ParamAttr(name='emb2'))
        inner_mem = memory(name='inner_rnn_state', size=%(hid)d, boot_layer=outer_mem)
        return %(cell)s
    inner_out = recurrent_group(step=inner_step, name='inner', input=[x, wid])
    last_seq(input=inner_out, name='outer_rnn_state')
    return inner_out
out = recurrent_group(step=outer_step, name='outer', input=[SubsequenceInput(word), SubsequenceInput(emb)])
""" % {"word": WORD, "hid": HID, "cell": cell(["y", "z", "inner_mem"], "inner_rnn_state",
                                              ["w_in", "w_z", "w_rec"])}

# 3 samples of 2, 1 and 3 sub-sequences; sub-sequence lengths (2,1), (3), (1,2,2)
OUTER = [0, 3, 6, 11]
SUB = [0, 2, 3, 6, 7, 9, 11]


def build(tmp_path, body, name, use_gpu=None):
    conf = tmp_path / ("%s.py" % name)
    conf.write_text(HEAD + body)
    config = message_to_json(parse_config(str(conf), "").model_config)
    gm = api.GradientMachine.createByConfigJson(config, netbuilder.ON_GPU if use_gpu is None else use_gpu, 1)
    gm.config_json = config  # gradient_check's CPU/GPU parity twin
    return gm


def pair(tmp_path, flat_body, nested_body, input_block=INPUT_IDS, tail=TAIL):
    """(flat, nested) machines with the same parameter values (copied by name)."""
    flat = build(tmp_path, input_block + flat_body + tail, "flat")
    nested = build(tmp_path, input_block + nested_body + tail, "nested")
    rng = np.random.RandomState(4)
    names = sorted(p.getName() for p in flat.getParameters())
    assert names == sorted(p.getName() for p in nested.getParameters())
    for n in names:
        v = (rng.randn(flat.getParameterByName(n).getSize()) * 0.5).astype(np.float32)
        flat.getParameterByName(n).getBuf(api.PARAMETER_VALUE).copyFromNumpyArray(v)
        nested.getParameterByName(n).getBuf(api.PARAMETER_VALUE).copyFromNumpyArray(v)
    return flat, nested, names


def word_slots(dense=False, seed=0):
    """(nested slots, flat slots): the same words, with and without sub-sequences."""
    rng = np.random.RandomState(seed)
    words = rng.randn(SUB[-1], 3).astype(np.float32) if dense else rng.randint(0, DICT, SUB[-1]).astype(np.int32)
    labels = rng.randint(0, LABELS, len(OUTER) - 1).astype(np.int32)
    return [Seq(words, OUTER, SUB), labels], [Seq(words, OUTER), labels]


def run(gm, slots, pass_type=api.PASS_TRAIN):
    out = api.Arguments.createArguments(0)
    gm.forwardBackward(make_args(slots), out, pass_type)
    return out.sum()


def grads(gm, names):
    return {n: gm.getParameterByName(n).getBuf(api.PARAMETER_GRADIENT).copyToNumpyArray() for n in names}


# both directions reversed: the inner group starts from the outer state of the sub-sequence
# after it, and the state that state carries on is the inner output's first row
FLAT_REVERSED = FLAT.replace("input=emb)", "input=emb, reverse=True)")
NESTED_REVERSED = (NESTED.replace("input=x)", "input=x, reverse=True)")
                   .replace("last_seq(input=inner_out", "first_seq(input=inner_out")
                   .replace("input=SubsequenceInput(emb))", "input=SubsequenceInput(emb), reverse=True)"))
assert FLAT_REVERSED.count("reverse=True") == 1 and NESTED_REVERSED.count("reverse=True") == 2

# the cost reads the last state of the reversed network: its first row
CASES = {"simple": (FLAT, NESTED, TAIL), "readonly_memory": (FLAT, NESTED_READONLY, TAIL),
         "multi_input": (FLAT_MULTI, NESTED_MULTI, TAIL),
         "reversed": (FLAT_REVERSED, NESTED_REVERSED, TAIL.replace("last_seq(input=out)", "first_seq(input=out)"))}


@pytest.mark.parametrize("case", sorted(CASES))
def test_nested_group_equals_the_flat_group(tmp_path, case):
    """Same cost, same rnn states and same parameter gradients (v1's
    test_RecurrentGradientMachine acceptance, written for this engine)."""
    flat_body, nested_body, tail = CASES[case]
    flat, nested, names = pair(tmp_path, flat_body, nested_body, tail=tail)
    nested_slots, flat_slots = word_slots(seed=1)
    cost_nested, cost_flat = run(nested, nested_slots), run(flat, flat_slots)
    assert cost_nested == pytest.approx(cost_flat, rel=1e-5)
    states = nested.getLayerOutput("inner_rnn_state")
    np.testing.assert_allclose(states.getSlotValue(0).copyToNumpyMat(),
                               flat.getLayerOutput("rnn_state").getSlotValue(0).copyToNumpyMat(), rtol=1e-5, atol=1e-6)
    # the out-link is nested: each sample a sequence of its sub-sequences
    assert list(states.getSlotSequenceStartPositions(0).copyToNumpyArray()) == OUTER
    assert list(states.getSlotSubSequenceStartPositions(0).copyToNumpyArray()) == SUB
    g_nested, g_flat = grads(nested, names), grads(flat, names)
    for n in names:
        assert np.abs(g_flat[n]).max() > 0, n  # every parameter takes part
        np.testing.assert_allclose(g_nested[n], g_flat[n], rtol=1e-4, atol=1e-6, err_msg=n)


def test_nested_group_input_gradients_equal_the_flat_group(tmp_path):
    flat, nested, names = pair(tmp_path, FLAT, NESTED, INPUT_DENSE)
    nested_slots, flat_slots = word_slots(dense=True, seed=2)
    for gm in (flat, nested):
        gm.setNeedInputGradient(True)
    assert run(nested, nested_slots) == pytest.approx(run(flat, flat_slots), rel=1e-5)
    np.testing.assert_allclose(nested.getLayerOutput("word").getSlotGrad(0).copyToNumpyMat(),
                               flat.getLayerOutput("word").getSlotGrad(0).copyToNumpyMat(), rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("body", [NESTED, NESTED_MULTI], ids=["simple", "multi_input"])
def test_nested_group_gradient_check(tmp_path, body):
    gm = build(tmp_path, INPUT_IDS + body + TAIL, "nested")
    nested_slots, _ = word_slots(seed=3)
    gradient_check(gm, nested_slots, samples=8)


def test_nested_group_gradient_check_with_input_gradients(tmp_path):
    gm = build(tmp_path, INPUT_DENSE + NESTED + TAIL, "nested")
    nested_slots, _ = word_slots(dense=True, seed=5)
    gradient_check(gm, nested_slots, input_slots=[0], samples=8)


def test_training_steps_keep_nested_and_flat_parameters_equal(tmp_path):
    flat, nested, names = pair(tmp_path, FLAT, NESTED)
    opt = json.dumps({"learning_method": "adagrad", "learning_rate": 0.1})
    updaters = {id(gm): api.ParameterUpdater.createLocalUpdater(opt) for gm in (flat, nested)}
    before = {n: flat.getParameterByName(n).getBuf(api.PARAMETER_VALUE).copyToNumpyArray() for n in names}
    for step in range(4):
        nested_slots, flat_slots = word_slots(seed=10 + step)
        for gm, slots in ((flat, flat_slots), (nested, nested_slots)):
            run(gm, slots)
            u = updaters[id(gm)]
            u.startPass(0)
            u.startBatch(len(OUTER) - 1)
            for p in gm.getParameters():
                u.update(p)
            u.finishBatch()
    for n in names:
        a = flat.getParameterByName(n).getBuf(api.PARAMETER_VALUE).copyToNumpyArray()
        b = nested.getParameterByName(n).getBuf(api.PARAMETER_VALUE).copyToNumpyArray()
        assert not np.allclose(a, before[n]), n  # training moved it
        np.testing.assert_allclose(b, a, rtol=1e-4, atol=1e-6, err_msg=n)


def test_outer_step_returning_one_row_per_sub_sequence(tmp_path):
    """An outer step may return a non-sequence (its inner group's last state):
    the group's output then has one row per sub-sequence."""
    body = """
def outer_step(x):
    outer_mem = memory(name='outer_rnn_state', size=%(hid)d)
    def inner_step(y):
        inner_mem = memory(name='inner_rnn_state', size=%(hid)d, boot_layer=outer_mem)
        return %(cell)s
    return last_seq(input=recurrent_group(step=inner_step, input=x), name='outer_rnn_state')
out = recurrent_group(step=outer_step, input=SubsequenceInput(emb))
""" % {"hid": HID, "cell": cell(["y", "inner_mem"], "inner_rnn_state", ["w_in", "w_rec"])}
    flat, nested, names = pair(tmp_path, FLAT, body)
    nested_slots, flat_slots = word_slots(seed=6)
    assert run(nested, nested_slots) == pytest.approx(run(flat, flat_slots), rel=1e-5)
    last = nested.getLayerOutput("outer_rnn_state")
    states = flat.getLayerOutput("rnn_state").getSlotValue(0).copyToNumpyMat()
    np.testing.assert_allclose(last.getSlotValue(0).copyToNumpyMat(), states[np.array(SUB[1:]) - 1],
                               rtol=1e-5, atol=1e-6)
    assert list(last.getSlotSequenceStartPositions(0).copyToNumpyArray()) == [0, 2, 3, 6]
    for n in names:
        np.testing.assert_allclose(grads(nested, [n])[n], grads(flat, [n])[n], rtol=1e-4, atol=1e-6, err_msg=n)
    gradient_check(nested, nested_slots, samples=6)


# v1's sample_trainer_nest_rnn_gen / sample_trainer_rnn_gen pair: beam_search inside the
# step of a group over sub-sequences generates, for every sub-sequence, what the flat
# beam_search generates for that sub-sequence taken as a sample of its own.
GEN = """
from paddle.trainer_config_helpers import *
nested = get_config_arg('nested', bool, False)
beam = get_config_arg('beam', int, 1)
results = get_config_arg('results', int, 1)
settings(batch_size=10)
src = data_layer(name='src', size=3)
def decoder_step(source, word):
    mem = memory(name='dec', size=4)
    ctx = pooling_layer(input=source, pooling_type=AvgPooling())
    h = fc_layer(input=[word, mem, ctx], size=4, act=TanhActivation(), name='dec',
                 param_attr=[ParamAttr(name='d_word'), ParamAttr(name='d_mem'), ParamAttr(name='d_ctx')],
                 bias_attr=ParamAttr(name='d_b'))
    return fc_layer(input=h, size=%(vocab)d, act=SoftmaxActivation(), name='prob',
                    param_attr=ParamAttr(name='p_w'), bias_attr=ParamAttr(name='p_b'))
def generate(source):
    return beam_search(step=decoder_step, name='gen', bos_id=0, eos_id=1, beam_size=beam,
                       num_results_per_sample=results, max_length=6,
                       input=[StaticInput(source, is_seq=True),
                              GeneratedInput(size=%(vocab)d, embedding_name='emb', embedding_size=4)])
if nested:
    out = recurrent_group(step=generate, input=SubsequenceInput(src), name='outer')
else:
    out = generate(src)
outputs(out)
""" % {"vocab": 6}


def gen_machine(tmp_path, args):
    conf = tmp_path / "gen.py"
    conf.write_text(GEN)
    config = message_to_json(parse_config(str(conf), args).model_config)
    return api.GradientMachine.createByConfigJson(config, netbuilder.ON_GPU, 3)


def generated(gm, src):
    out = api.Arguments.createArguments(0)
    gm.forward(make_args([src]), out, api.PASS_TEST)
    sub = out.getSlotSubSequenceStartPositions(0)
    return (list(out.getSlotIds(0).copyToNumpyArray()), list(out.getSlotSequenceStartPositions(0).copyToNumpyArray()),
            None if sub is None else list(sub.copyToNumpyArray()))


@pytest.mark.parametrize("beam", [1, 3])
def test_beam_search_inside_a_nested_group_generates_per_sub_sequence(tmp_path, beam):
    flat = gen_machine(tmp_path, "beam=%d" % beam)
    nested = gen_machine(tmp_path, "nested=1,beam=%d" % beam)
    for p in flat.getParameters():  # identical weights by name
        nested.getParameterByName(p.getName()).getBuf(0).copyFromNumpyArray(p.getBuf(0).copyToNumpyArray())
    words = np.random.RandomState(7).randn(SUB[-1], 3).astype(np.float32)
    ids, starts, sub = generated(flat, Seq(words, SUB))
    assert sub is None and len(starts) == len(SUB)
    n_ids, n_starts, n_sub = generated(nested, Seq(words, OUTER, SUB))
    assert n_ids == ids and n_sub == starts  # one generated sequence per sub-sequence
    assert n_starts == [starts[k] for k in (0, 2, 3, 6)]  # grouped by sample


def test_seq_text_printer_prints_nested_generation_as_v1s_nested_sequences(tmp_path):
    """v1 checks hasSubseq first: the results of a group generating per sub-sequence print as
    "id<TAB> w w" then "<TAB> w w" per further sub-sequence and an empty line, not as beam
    blocks (those are for one beam_search's several results per sample)."""
    out = tmp_path / "gen.txt"
    conf = tmp_path / "gen_print.py"
    conf.write_text(GEN + "\nseqtext_printer_evaluator(input=out, result_file=%r)\n" % str(out))
    words = np.random.RandomState(7).randn(SUB[-1], 3).astype(np.float32)
    texts = []
    for args, src in (("nested=1,beam=2", Seq(words, OUTER, SUB)), ("beam=2,results=2", Seq(words, SUB))):
        trainer = api.Trainer.createFromConfigProto(parse_config(str(conf), args), use_gpu=netbuilder.ON_GPU,
                                                    trainer_count=1)
        trainer.startTestPeriod()
        trainer.testOneDataBatch(len(OUTER) - 1, make_args([src]))
        trainer.finishTestPeriod()
        texts.append(out.read_text())
    blocks = texts[0].strip("\n").split("\n\n")
    assert len(blocks) == len(OUTER) - 1, texts[0]
    for i, block in enumerate(blocks):
        lines = block.split("\n")
        subs = sum(1 for s in SUB[:-1] if OUTER[i] <= s < OUTER[i + 1])
        assert len(lines) == subs and lines[0].startswith("%d\t" % i), block
        assert all(line.startswith("\t") and not line.startswith("\t0\t") for line in lines[1:]), block
    flat = texts[1].strip("\n").split("\n\n")  # one beam_search, 2 results per sample: beam blocks
    assert len(flat) == len(SUB) - 1 and all(re.fullmatch(r"\d+\n0\t\S+\t.*\n1\t\S+\t.*", b) for b in flat), texts[1]


def test_nested_generation_of_several_results_gathers_the_first_of_each(tmp_path):
    """v1: with num_results_per_sample > 1 inside a group over sub-sequences, the outer output
    holds each inner generation's first (best) result, as with one result."""
    one = gen_machine(tmp_path, "nested=1,beam=2,results=1")
    two = gen_machine(tmp_path, "nested=1,beam=2,results=2")
    for p in one.getParameters():
        two.getParameterByName(p.getName()).getBuf(0).copyFromNumpyArray(p.getBuf(0).copyToNumpyArray())
    words = np.random.RandomState(7).randn(SUB[-1], 3).astype(np.float32)
    assert generated(two, Seq(words, OUTER, SUB)) == generated(one, Seq(words, OUTER, SUB))


LSTM_GROUP = """
word = data_layer(name='word', size=3)
y = data_layer(name='y', size=%(hid)d)
def lstm_over(sub):  # v1's sequence_nest_layer_group: an lstmemory_group per sub-sequence
    with mixed_layer(size=%(gates)d) as proj:
        proj += full_matrix_projection(input=sub)
    return lstmemory_group(input=proj, name='lstm_group', size=%(hid)d, act=TanhActivation(),
                           gate_act=SigmoidActivation(), state_act=TanhActivation())
if get_config_arg('nested', bool, False):
    out = recurrent_group(input=SubsequenceInput(word), step=lstm_over, name='lstm_nest_group')
else:
    out = lstm_over(word)
outputs(regression_cost(input=out, label=y))
""" % {"hid": HID, "gates": 4 * HID}


def test_lstm_group_per_sub_sequence_equals_the_flat_group_over_sub_sequences(tmp_path):
    """No outer memory: the nested group runs the lstm over each sub-sequence on its own,
    as the flat group does over the sub-sequences taken as sequences."""
    conf = tmp_path / "lstm.py"
    conf.write_text(HEAD + LSTM_GROUP)
    machines = []
    for args in ("", "nested=1"):
        config = message_to_json(parse_config(str(conf), args).model_config)
        gm = api.GradientMachine.createByConfigJson(config, netbuilder.ON_GPU, 1)
        gm.config_json = config
        machines.append(gm)
    flat, nested = machines
    rng = np.random.RandomState(8)
    for p, q in zip(flat.getParameters(), nested.getParameters()):  # same order, names differ by the '@' suffix
        assert p.getSize() == q.getSize()
        v = (rng.randn(p.getSize()) * 0.5).astype(np.float32)
        p.getBuf(api.PARAMETER_VALUE).copyFromNumpyArray(v)
        q.getBuf(api.PARAMETER_VALUE).copyFromNumpyArray(v)
    words = rng.randn(SUB[-1], 3).astype(np.float32)
    target = rng.randn(SUB[-1], HID).astype(np.float32)
    cost_flat = run(flat, [Seq(words, SUB), Seq(target, SUB)])
    nested_slots = [Seq(words, OUTER, SUB), Seq(target, OUTER, SUB)]
    assert run(nested, nested_slots) == pytest.approx(cost_flat, rel=1e-5)
    np.testing.assert_allclose(nested.getLayerOutput("lstm_group").getSlotValue(0).copyToNumpyMat(),
                               flat.getLayerOutput("lstm_group").getSlotValue(0).copyToNumpyMat(), rtol=1e-5, atol=1e-6)
    for p, q in zip(flat.getParameters(), nested.getParameters()):
        np.testing.assert_allclose(q.getBuf(api.PARAMETER_GRADIENT).copyToNumpyArray(),
                                   p.getBuf(api.PARAMETER_GRADIENT).copyToNumpyArray(), rtol=1e-4, atol=1e-6,
                                   err_msg=q.getName())
    gradient_check(nested, nested_slots, input_slots=[0], samples=6)


SEQUENCE_MEMORY = """
word = data_layer(name='word', size=3)
ctx = data_layer(name='ctx', size=%(hid)d)  # one sequence per sample: boots the sequence memory
label = data_layer(name='label', size=%(labels)d)
def outer_step(x):
    prev = memory(name='prev_states', size=%(hid)d, is_seq=True, boot_layer=ctx)
    outer_mem = memory(name='outer_state', size=%(hid)d)
    def inner_step(w, prev_seq):
        inner_mem = memory(name='inner_state', size=%(hid)d, boot_layer=outer_mem)
        att = simple_attention(encoded_sequence=prev_seq, encoded_proj=prev_seq, decoder_state=inner_mem)
        return fc_layer(input=[w, inner_mem, att], size=%(hid)d, act=TanhActivation(), name='inner_state')
    inner = recurrent_group(step=inner_step, input=[x, StaticInput(prev, is_seq=True)])
    last_seq(input=inner, name='outer_state')
    with mixed_layer(size=%(hid)d, name='prev_states') as keep:
        keep += identity_projection(input=inner)
    return inner
out = recurrent_group(step=outer_step, input=SubsequenceInput(word))
prob = fc_layer(input=last_seq(input=out), size=%(labels)d, act=SoftmaxActivation())
outputs(classification_cost(input=prob, label=label))
""" % {"hid": HID, "labels": LABELS}


def test_inner_group_attends_over_the_outer_sequence_memory(tmp_path):
    """The outer memory is a sequence (the previous sub-sequence's states, or the boot
    sequence first) that the inner group reads as a StaticInput sequence."""
    gm = build(tmp_path, SEQUENCE_MEMORY, "seqmem")
    rng = np.random.RandomState(9)
    words = Seq(rng.randn(SUB[-1], 3).astype(np.float32), OUTER, SUB)
    ctx = Seq(rng.randn(5, HID).astype(np.float32), [0, 2, 3, 5])
    labels = rng.randint(0, LABELS, 3).astype(np.int32)
    gradient_check(gm, [words, ctx, labels], input_slots=[0, 1], samples=8)
    # each sample reads its own boot sequence: changing sample 2's changes only its states
    out = api.Arguments.createArguments(0)
    gm.forward(make_args([words, ctx, labels]), out, api.PASS_TEST)
    before = gm.getLayerOutput("inner_state").getSlotValue(0).copyToNumpyMat()
    changed = ctx.data.copy()
    changed[3:5] += 1.0
    gm.forward(make_args([words, Seq(changed, ctx.starts), labels]), out, api.PASS_TEST)
    after = gm.getLayerOutput("inner_state").getSlotValue(0).copyToNumpyMat()
    np.testing.assert_allclose(after[:6], before[:6], rtol=1e-6)
    assert not np.allclose(after[6:], before[6:])


def test_configs_written_before_sequence_gather_agents_still_run(tmp_path):
    """Out-links of groups over sub-sequences are sequence_gather_agents with has_subseq
    (v1); a config written with a plain gather_agent runs the same."""
    conf = tmp_path / "nested.py"
    conf.write_text(HEAD + INPUT_IDS + NESTED + TAIL)
    config = json.loads(message_to_json(parse_config(str(conf), "").model_config))
    types = {l["name"]: l["type"] for l in config["layers"]}
    assert types["inner_rnn_state"] == "sequence_gather_agent"
    outer = [sm for sm in config["sub_models"] if sm["name"] == "__recurrent_group_0__"][0]
    assert outer["out_links"][0]["has_subseq"] is True
    old = json.loads(json.dumps(config))
    for layer in old["layers"]:
        if layer["name"] == "inner_rnn_state":
            layer["type"] = "gather_agent"
    for sm in old["sub_models"]:
        for link in sm.get("out_links", []):
            link["has_subseq"] = False
    nested_slots, _ = word_slots(seed=11)
    values = []
    for c in (config, old):
        gm = api.GradientMachine.createByConfigJson(json.dumps(c), netbuilder.ON_GPU, 1)
        run(gm, nested_slots)
        values.append(gm.getLayerOutput("inner_rnn_state").getSlotValue(0).copyToNumpyMat())
    np.testing.assert_array_equal(values[0], values[1])
