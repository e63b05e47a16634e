"""beam_search generation: greedy and beam results checked against the same
network scored with teacher forcing, and against exhaustive search."""
import itertools
import re
import textwrap

import numpy as np
import pytest

from netbuilder import Seq, make_args
from paddle.proto import message_to_json
from paddle.trainer.config_parser import parse_config
from py_paddle import swig_paddle as api

VOCAB, BOS, EOS = 5, 0, 1
CONFIG = """
from paddle.trainer_config_helpers import *
generating = get_config_arg('generating', bool, False)
beam = get_config_arg('beam', int, 1)
max_len = get_config_arg('max_len', int, 4)
settings(batch_size=10)
src = data_layer(name='src', size=3)
enc = fc_layer(input=src, size=4, act=TanhActivation())
def step(enc_seq, word):
    mem = memory(name='dec', size=4)
    ctx = pooling_layer(input=enc_seq, pooling_type=AvgPooling())
    h = fc_layer(input=[word, mem, ctx], size=4, act=TanhActivation(), name='dec')
    return fc_layer(input=h, size=%(vocab)d, act=SoftmaxActivation(), name='prob')
if generating:
    out = beam_search(step=step, input=[StaticInput(enc, is_seq=True),
                                        GeneratedInput(size=%(vocab)d, embedding_name='emb', embedding_size=4)],
                      bos_id=%(bos)d, eos_id=%(eos)d, beam_size=beam, max_length=max_len,
                      name='decoder_group')
    outputs(out)
else:
    trg = data_layer(name='trg', size=%(vocab)d)
    emb = embedding_layer(input=trg, size=4, param_attr=ParamAttr(name='emb'))
    out = recurrent_group(step=step, input=[StaticInput(enc, is_seq=True), emb], name='decoder_group')
    outputs(out)
""" % {"vocab": VOCAB, "bos": BOS, "eos": EOS}


@pytest.fixture
def conf(tmp_path):
    p = tmp_path / "gen_conf.py"
    p.write_text(CONFIG)
    return str(p)


def machines(conf, beam, max_len):
    gen = parse_config(conf, "generating=1,beam=%d,max_len=%d" % (beam, max_len))
    score = parse_config(conf, "generating=0")
    g = api.GradientMachine.createByConfigJson(message_to_json(gen.model_config), False, 5)
    s = api.GradientMachine.createByConfigJson(message_to_json(score.model_config), False, 5)
    params = {p.getName(): p for p in s.getParameters()}
    for p in g.getParameters():  # identical weights by parameter name
        params[p.getName()].getBuf(0).copyFromNumpyArray(p.getBuf(0).copyToNumpyArray())
    return g, s


SRC_STARTS = [0, 2, 5, 6]


def source(seed=0):
    return Seq(np.random.RandomState(seed).randn(6, 3).astype(np.float32), SRC_STARTS)


def feed(gm, **slots):
    """Arguments in the machine's input-layer order."""
    return make_args([slots[n] for n in gm.getInputLayerNames()])


def log_prob(scorer, sample, tokens):
    """log P(tokens | source sample) by teacher forcing through the training net."""
    src = source()
    lo, hi = SRC_STARTS[sample], SRC_STARTS[sample + 1]
    one = Seq(src.data[lo:hi], [0, hi - lo])
    inputs = np.array([BOS] + list(tokens[:-1]), dtype=np.int32)
    out = api.Arguments.createArguments(0)
    scorer.forward(feed(scorer, src=one, trg=Seq(inputs, [0, len(inputs)])), out, api.PASS_TEST)
    prob = scorer.getLayerOutput("prob").getSlotValue(0).copyToNumpyMat()
    return float(np.sum(np.log(prob[np.arange(len(tokens)), tokens])))


def generate(gm):
    out = api.Arguments.createArguments(0)
    gm.forward(make_args([source()]), out, api.PASS_TEST)
    ids = out.getSlotIds(0).copyToNumpyArray()
    starts = out.getSlotSequenceStartPositions(0).copyToNumpyArray()
    sub = out.getSlotSubSequenceStartPositions(0)
    return ids, starts, (sub.copyToNumpyArray() if sub is not None else None)


def test_greedy_generation_follows_the_argmax(conf):
    gen, scorer = machines(conf, beam=1, max_len=6)
    ids, starts, sub = generate(gen)
    assert sub is None and len(starts) == 4
    for s in range(3):
        tokens = list(ids[starts[s]:starts[s + 1]])
        assert 1 <= len(tokens) <= 6
        assert EOS not in tokens[:-1]
        assert tokens[-1] == EOS or len(tokens) == 6
        # each generated token is the argmax given the tokens before it
        src = source()
        lo, hi = SRC_STARTS[s], SRC_STARTS[s + 1]
        inputs = np.array([BOS] + tokens[:-1], dtype=np.int32)
        out = api.Arguments.createArguments(0)
        scorer.forward(feed(scorer, src=Seq(src.data[lo:hi], [0, hi - lo]), trg=Seq(inputs, [0, len(inputs)])),
                       out, api.PASS_TEST)
        prob = scorer.getLayerOutput("prob").getSlotValue(0).copyToNumpyMat()
        assert list(prob.argmax(1)) == tokens


def test_wide_beam_finds_the_most_probable_sequence(conf):
    """With a beam wider than the number of paths, the best result is the exhaustive argmax."""
    max_len = 3
    gen, scorer = machines(conf, beam=VOCAB ** max_len, max_len=max_len)
    ids, starts, sub = generate(gen)
    assert sub is not None
    for s in range(3):
        best = None
        for n in range(1, max_len + 1):
            for tail in itertools.product(range(VOCAB), repeat=n):
                if EOS in tail[:-1] or (n < max_len and tail[-1] != EOS):
                    continue
                lp = log_prob(scorer, s, list(tail))
                if best is None or lp > best[0]:
                    best = (lp, list(tail))
        first = list(ids[sub[np.searchsorted(sub, starts[s])]:sub[np.searchsorted(sub, starts[s]) + 1]])
        assert first == best[1]


def test_generated_results_are_sorted_by_score(conf):
    gen, scorer = machines(conf, beam=3, max_len=5)
    ids, starts, sub = generate(gen)
    for s in range(3):
        k0, k1 = np.searchsorted(sub, starts[s]), np.searchsorted(sub, starts[s + 1])
        assert k1 - k0 == 3  # num_results_per_sample defaults to beam_size
        lps = [log_prob(scorer, s, list(ids[sub[k]:sub[k + 1]])) for k in range(k0, k1)]
        assert lps == sorted(lps, reverse=True)


def test_generation_cannot_be_trained(conf):
    gen, _ = machines(conf, beam=2, max_len=3)
    with pytest.raises((RuntimeError, ValueError), match="test mode|cannot be trained"):
        out = api.Arguments.createArguments(0)
        gen.forwardBackward(make_args([source()]), out, api.PASS_TRAIN)


@pytest.mark.parametrize("beam", [1, 2])
def test_seq_text_printer_writes_v1_formats(tmp_path, beam):
    """beam 1 (one result per sample): "id<TAB> w w" lines; beam 2: a block per sample, its id,
    then "rank<TAB>log-prob<TAB> w w" per result, best first, and an empty line."""
    out = tmp_path / "gen.txt"
    conf = tmp_path / "printing.py"
    conf.write_text(CONFIG + "\nif generating:\n    seqtext_printer_evaluator(input=out, result_file=%r)\n" % str(out))
    tc = parse_config(str(conf), "generating=1,beam=%d,max_len=3" % beam)
    t = api.Trainer.createFromConfigProto(tc, use_gpu=False, trainer_count=1)
    t.startTestPeriod()
    t.testOneDataBatch(3, make_args([source()]))
    t.finishTestPeriod()
    text = out.read_text()
    word = r"( \d+)+"
    if beam == 1:
        lines = text.splitlines()
        assert len(lines) == 3 and all(re.fullmatch(r"%d\t%s" % (i, word), l) for i, l in enumerate(lines)), text
    else:
        blocks = text.strip("\n").split("\n\n")
        assert len(blocks) == 3, text
        for i, block in enumerate(blocks):
            head, *results = block.split("\n")
            assert head == str(i) and len(results) == 2, block
            scores = []
            for rank, line in enumerate(results):
                m = re.fullmatch(r"%d\t(-?[\d.e+-]+)\t%s" % (rank, word), line)
                assert m, line
                scores.append(float(m.group(1)))
            assert scores == sorted(scores, reverse=True)
