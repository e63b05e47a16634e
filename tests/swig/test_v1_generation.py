"""v1's GradientMachine.asSequenceGenerator / SequenceGenerator / ISequenceResults over a
beam_search config."""
import os

import numpy as np
import pytest

from paddle.trainer.config_parser import parse_config
from py_paddle import swig_paddle as api

VOCAB, BOS, EOS = 6, 0, 1
WORDS = ["<s>", "<e>", "a", "b", "c", "d"]
CONFIG = """
from paddle.trainer_config_helpers import *
beam = get_config_arg('beam', int, 3)
settings(batch_size=10)
src = data_layer(name='src', size=3)
enc = fc_layer(input=src, size=8, act=TanhActivation())
def step(enc_seq, word):
    mem = memory(name='dec', size=8)
    ctx = pooling_layer(input=enc_seq, pooling_type=AvgPooling())
    h = fc_layer(input=[word, mem, ctx], size=8, act=TanhActivation(), name='dec')
    return fc_layer(input=h, size=%d, act=SoftmaxActivation(), name='prob')
outputs(beam_search(step=step, input=[StaticInput(enc, is_seq=True),
                                      GeneratedInput(size=%d, embedding_name='emb', embedding_size=4)],
                    bos_id=%d, eos_id=%d, beam_size=beam, max_length=5, name='decoder_group'))
""" % (VOCAB, VOCAB, BOS, EOS)


@pytest.fixture
def machine(tmp_path):
    conf = tmp_path / "gen.py"
    conf.write_text(CONFIG)

    def make(beam):
        gm = api.GradientMachine.createFromConfigProto(parse_config(str(conf), "beam=%d" % beam).model_config,
                                                       seed=7)
        for p in gm.getParameters():  # larger weights: varied, confident sequences
            p.getBuf(api.PARAMETER_VALUE).copyFromNumpyArray(
                np.random.RandomState(len(p.getName())).randn(p.getSize()).astype(np.float32) * 2)
        return gm
    return make


def one_source(rows=3, seed=0):
    args = api.Arguments.createArguments(1)
    args.setSlotValue(0, api.Matrix.createDenseFromNumpy(np.random.RandomState(seed).randn(rows, 3)))
    args.setSlotSequenceStartPositions(0, api.IVector.create([0, rows]))
    return args


def test_n_best_results_in_score_order_with_words(machine):
    gen = machine(3).asSequenceGenerator(WORDS)
    results = gen.generateSequence(one_source())
    assert results.getSize() == 3
    scores = [results.getScore(i) for i in range(3)]
    assert scores == sorted(scores, reverse=True) and all(s <= 0 for s in scores)  # log probabilities
    for i in range(3):
        ids = results.getSequence(i)
        assert 1 <= len(ids) <= 5 and (ids[-1] == EOS or len(ids) == 5) and EOS not in ids[:-1]
        assert results.getSentence(i, True) == " ".join(WORDS[t] for t in ids)
        assert results.getSentence(i) == "".join(WORDS[t] for t in ids)
    with pytest.raises(api.RangeError):
        results.getSequence(3)
    gen.setDict([w.upper() for w in WORDS])
    assert gen.generateSequence(one_source()).getSentence(0, True) == results.getSentence(0, True).upper()


def test_setters_override_the_config(machine):
    gm = machine(3)
    gen = gm.asSequenceGenerator(WORDS)
    gen.setBeamSize(1)
    greedy = gen.generateSequence(one_source())
    reference = machine(1).asSequenceGenerator().generateSequence(one_source())
    assert greedy.getSize() == 1 and greedy.getSequence(0) == reference.getSequence(0)
    assert greedy.getScore(0) == pytest.approx(reference.getScore(0), rel=1e-5)
    gen.setBeamSize(-1)  # v1: -1 keeps the beam
    gen.setMaxLength(2)
    assert all(len(gen.generateSequence(one_source()).getSequence(i)) <= 2 for i in range(1))
    gen.setEos(4)
    gen.setMaxLength(5)
    short = gen.generateSequence(one_source())
    for i in range(short.getSize()):
        ids = short.getSequence(i)
        assert 4 not in ids[:-1] and (ids[-1] == 4 or len(ids) == 5)
    default_bos = [gen.generateSequence(one_source(seed=s)).getScore(0) for s in range(3)]
    gen.setBos(3)  # a different first input word changes what follows
    assert [gen.generateSequence(one_source(seed=s)).getScore(0) for s in range(3)] != default_bos
    # the tuned machine reads the original machine's current parameters
    before = gen.generateSequence(one_source()).getScore(0)
    for p in gm.getParameters():
        p.getBuf(api.PARAMETER_VALUE).copyFromNumpyArray(
            p.getBuf(api.PARAMETER_VALUE).copyToNumpyArray() * np.float32(0.5))
    assert gen.generateSequence(one_source()).getScore(0) != pytest.approx(before)


def test_generation_takes_one_sample_and_needs_a_beam_search_config(machine):
    gen = machine(2).asSequenceGenerator(WORDS, beam_size=2)
    args = api.Arguments.createArguments(1)
    args.setSlotValue(0, api.Matrix.createDenseFromNumpy(np.zeros((4, 3), np.float32)))
    args.setSlotSequenceStartPositions(0, api.IVector.create([0, 2, 4]))
    with pytest.raises(ValueError, match="one input sample"):
        gen.generateSequence(args)
    mlp = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "demos", "mnist", "mlp.py")
    plain = api.GradientMachine.createFromConfigProto(parse_config(mlp, "").model_config)
    with pytest.raises(api.UnsupportError, match="one beam_search group, found 0"):
        plain.asSequenceGenerator()
