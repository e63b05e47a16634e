"""Sequence layers without padding (max / average / seqlastins pooling per sequence,
per sub-sequence and per stride window, expand, context projection, seqconcat,
seqreshape, sequence_softmax): finite-difference checks on batches of mixed-length
sequences (length 1 included) and nested sequences, plus values against NumPy."""
import numpy as np
import pytest

from netbuilder import (Net, Seq, forward_output, gradient_check, seq_of_lengths,
                        sum_cost_net_output)

D = 3
LENGTHS = [3, 1, 4, 2]
NESTED = [[2, 1], [1], [1, 3], [2]]  # sub-sequence lengths per sequence


def rand(rng, *shape):
    return rng.randn(*shape).astype(np.float32)


def pool_ref(x, segs, kind, strategy="average", first=False):
    out = []
    for b, e in zip(segs[:-1], segs[1:]):
        block = x[b:e]
        if kind == "max":
            out.append(block.max(axis=0))
        elif kind == "average":
            s = block.sum(axis=0)
            n = e - b
            out.append(s / n if strategy == "average" else s if strategy == "sum" else s / np.sqrt(n))
        else:
            out.append(block[0] if first else block[-1])
    return np.array(out, np.float32)


def param(gm, name):
    return gm.getParameterByName(name).getBuf(0).copyToNumpyArray()


POOLS = [("max", {}), ("average", {"average_strategy": "average"}), ("average", {"average_strategy": "sum"}),
         ("average", {"average_strategy": "squarerootn"}), ("seqlastins", {}),
         ("seqlastins", {"select_first": True})]
POOL_IDS = ["max", "avg", "sum", "sqrtn", "last", "first"]


def build_pool(kind, extra, trans_type, bias, stride=-1, act=""):
    net = Net()
    x = net.data("x", D)
    fields = dict(extra, trans_type=trans_type, seq_pool_stride=stride, active_type=act)
    if bias:
        fields["bias_parameter_name"] = net.param("_p.wbias", [1, D], 0.1)
    p = net.layer("p", kind, D, [x], **fields)
    sum_cost_net_output(net, p, D)
    return net.build()


@pytest.mark.parametrize("kind,extra", POOLS, ids=POOL_IDS)
@pytest.mark.parametrize("case", ["seq", "nested-whole", "nested-per-subseq"])
def test_sequence_pooling(kind, extra, case):
    rng = np.random.RandomState(1)
    if case == "seq":
        x = seq_of_lengths(rng, LENGTHS, D)
    else:
        x = seq_of_lengths(rng, None, D, sub_lengths=NESTED)
    per_sub = case == "nested-per-subseq"
    gm = build_pool(kind, extra, "seq" if per_sub else "non-seq", bias=True, act="tanh")
    segs = x.sub_starts if per_sub else x.starts
    n = len(segs) - 1
    slots = [x, rand(rng, n, D)]
    gradient_check(gm, slots, input_slots=[0], samples=20)
    value, starts, sub = forward_output(gm, slots, "p")
    want = np.tanh(pool_ref(x.data, segs, kind, extra.get("average_strategy"), extra.get("select_first", False))
                   + param(gm, "_p.wbias"))
    np.testing.assert_allclose(value, want, rtol=1e-5, atol=1e-6)
    assert sub is None
    if per_sub:  # a sequence of sub-sequence results: [0, 2, 3, 5, 6]
        np.testing.assert_array_equal(starts, [0, 2, 3, 5, 6])
    else:
        assert starts is None


@pytest.mark.parametrize("kind,extra", POOLS, ids=POOL_IDS)
def test_sequence_pooling_with_stride(kind, extra):
    rng = np.random.RandomState(2)
    x = seq_of_lengths(rng, [5, 1, 4, 2], D)
    first = extra.get("select_first", False)
    # windows of 2 rows; first_seq cuts them from the end of each sequence (v1 "reversed")
    segs = [0, 1, 3, 5, 6, 8, 10, 12] if first else [0, 2, 4, 5, 6, 8, 10, 12]
    gm = build_pool(kind, extra, "non-seq", bias=False, stride=2)
    slots = [x, rand(rng, len(segs) - 1, D)]
    gradient_check(gm, slots, input_slots=[0], samples=20)
    value, starts, _ = forward_output(gm, slots, "p")
    np.testing.assert_allclose(value, pool_ref(x.data, segs, kind, extra.get("average_strategy"), first),
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(starts, [0, 3, 4, 6, 7])


@pytest.mark.parametrize("h_act", ["relu", "tanh"])
@pytest.mark.parametrize("case", ["seq", "stride", "per-subseq", "bias"])
def test_a_max_pool_that_alone_reads_a_layer_sets_its_gradient(case, h_act):
    """A max pool whose segments tile its input is that input's only reader here: it sets the
    input's whole gradient (the input skips clearing it) and, without a bias, activation or
    dropout of its own, applies a relu input's derivative too (the input skips that pass). The
    same net with a second, unused reader keeps the clear-add-multiply order: both must give
    the same bits, also in a second, shorter batch, where a row the pool failed to set would
    still hold the first batch's gradient."""
    from netbuilder import _run_and_collect, assert_alone_equals_shared
    nested = case == "per-subseq"
    results = []
    for second_reader in (False, True):
        net = Net()
        x = net.data("x", D)
        h = net.fc("h", [(x, D)], 5, act=h_act)
        fields = dict(trans_type="seq" if nested else "non-seq", seq_pool_stride=2 if case == "stride" else -1)
        if case == "bias":
            fields["bias_parameter_name"] = net.param("_p.wbias", [1, 5], 0.1)
        p = net.layer("p", "max", 5, [h], **fields)
        if second_reader:
            net.fc("unused", [(h, 5)], 2)
        sum_cost_net_output(net, p, 5)
        gm = net.build()
        batches = []
        for seed, lengths, subs in ((1, [6, 1, 4], [[2, 4], [1], [3, 1]]), (2, [3, 2], [[1, 2], [2]])):
            rng = np.random.RandomState(seed)
            xs = seq_of_lengths(rng, None, D, sub_lengths=subs) if nested else seq_of_lengths(rng, lengths, D)
            n = {"per-subseq": sum(len(t) for t in subs), "stride": sum((l + 1) // 2 for l in lengths)}
            batches.append([xs, rand(rng, n.get(case, len(lengths)), 5)])
        results.append([_run_and_collect(gm, b, ["h"]) for b in batches])
        if not second_reader and h_act == "tanh":
            gradient_check(gm, batches[1], input_slots=[0], samples=20)
    assert_alone_equals_shared(results)


def test_pooling_errors_name_sample_and_field():
    rng = np.random.RandomState(3)
    gm = build_pool("max", {}, "non-seq", bias=False)
    with pytest.raises(ValueError, match="not a sequence"):
        forward_output(gm, [rand(rng, 4, D), rand(rng, 4, D)], "p")
    with pytest.raises(ValueError, match="sequence 1 has length 0"):
        forward_output(gm, [Seq(rand(rng, 4, D), [0, 2, 2, 4]), rand(rng, 3, D)], "p")
    gm = build_pool("average", {}, "seq", bias=False)
    with pytest.raises(ValueError, match="nested sequence"):
        forward_output(gm, [seq_of_lengths(rng, LENGTHS, D), rand(rng, 4, D)], "p")
    with pytest.raises(ValueError, match="trans_type"):
        build_pool("max", {}, "bogus", bias=False)
    with pytest.raises(ValueError, match="seq_pool_stride"):
        build_pool("max", {}, "seq", bias=False, stride=2)


@pytest.mark.parametrize("level", ["non-seq", "seq"])
def test_expand(level):
    rng = np.random.RandomState(4)
    target = seq_of_lengths(rng, None, 2, sub_lengths=NESTED)
    segs = target.starts if level == "non-seq" else target.sub_starts
    n = len(segs) - 1
    net = Net()
    x = net.data("x", D)
    a = net.data("as", 2)
    e = net.layer("e", "expand", D, [x, a], trans_type=level,
                  bias_parameter_name=net.param("_e.wbias", [1, D], 0.1))
    sum_cost_net_output(net, e, D)
    gm = net.build()
    slots = [rand(rng, n, D), target, rand(rng, segs[-1], D)]
    gradient_check(gm, slots, input_slots=[0], samples=12)
    value, starts, sub = forward_output(gm, slots, "e")
    want = np.repeat(slots[0], np.diff(segs), axis=0) + param(gm, "_e.wbias")
    np.testing.assert_allclose(value, want, rtol=1e-6)
    np.testing.assert_array_equal(starts, target.starts)  # the output takes expand_as's structure
    np.testing.assert_array_equal(sub, target.sub_starts)
    with pytest.raises(ValueError, match="has 3 rows"):
        forward_output(gm, [rand(rng, 3, D), target, rand(rng, segs[-1], D)], "e")


def context_ref(x, starts, cs, cl, pad=None):
    d = x.shape[1]
    out = np.zeros((x.shape[0], d * cl), np.float32)
    begin_pad = max(0, -cs)
    for b, e in zip(starts[:-1], starts[1:]):
        n = e - b
        for t in range(n):
            for j in range(cl):
                rel = t + cs + j
                if 0 <= rel < n:
                    out[b + t, j * d:(j + 1) * d] = x[b + rel]
                elif pad is not None:
                    out[b + t, j * d:(j + 1) * d] = pad[begin_pad + (rel if rel < 0 else rel - n)]
    return out


@pytest.mark.parametrize("start,length", [(-1, 3), (-2, 3), (0, 2), (1, 2), (-3, 2), (-2, 5)])
@pytest.mark.parametrize("trainable", [False, True])
def test_context_projection(start, length, trainable):
    rng = np.random.RandomState(5)
    x = seq_of_lengths(rng, LENGTHS, D)
    total_pad = max(0, -start) + max(0, start + length - 1)
    net = Net()
    xin = net.data("x", D)
    proj = {"context_start": start, "context_length": length, "trainable_padding": trainable}
    entry = {"input_layer_name": xin,
             "proj_conf": dict({"type": "context", "name": "_m.w0", "input_size": D, "output_size": D * length},
                               **proj)}
    if trainable:
        entry["input_parameter_name"] = net.param("_m.w0", [total_pad, D], 0.5)
    net.layers.append({"name": "m", "type": "mixed", "size": D * length, "active_type": "tanh",
                       "inputs": [entry]})
    sum_cost_net_output(net, "m", D * length)
    gm = net.build()
    slots = [x, rand(rng, sum(LENGTHS), D * length)]
    gradient_check(gm, slots, input_slots=[0], samples=30)
    value, starts, _ = forward_output(gm, slots, "m")
    pad = param(gm, "_m.w0").reshape(total_pad, D) if trainable else None
    np.testing.assert_allclose(value, np.tanh(context_ref(x.data, x.starts, start, length, pad)), rtol=1e-5,
                               atol=1e-6)
    np.testing.assert_array_equal(starts, x.starts)


def test_context_projection_needs_sequences():
    rng = np.random.RandomState(6)
    net = Net()
    xin = net.data("x", D)
    net.mixed("m", 3 * D, [(xin, D, "context", 3 * D, {"context_start": -1, "context_length": 3})])
    net.output("m")
    gm = net.build()
    with pytest.raises(ValueError, match="needs a sequence input"):
        forward_output(gm, [rand(rng, 4, D)], "m")
    net = Net()
    xin = net.data("x", D)
    net.mixed("m", 2 * D, [(xin, D, "context", 2 * D, {"context_start": -1, "context_length": 3})])
    net.output("m")
    with pytest.raises(ValueError, match="output_size"):
        net.build()


def test_seqconcat():
    rng = np.random.RandomState(7)
    a = seq_of_lengths(rng, [2, 1, 3], D)
    b = seq_of_lengths(rng, [1, 2, 1], D)
    net = Net()
    xa, xb = net.data("a", D), net.data("b", D)
    c = net.layer("c", "seqconcat", D, [xa, xb], bias_parameter_name=net.param("_c.wbias", [1, D], 0.1))
    sum_cost_net_output(net, c, D)
    gm = net.build()
    slots = [a, b, rand(rng, 10, D)]
    gradient_check(gm, slots, input_slots=[0, 1], samples=15)
    value, starts, _ = forward_output(gm, slots, "c")
    want = np.concatenate([np.concatenate([a.data[a.starts[i]:a.starts[i + 1]], b.data[b.starts[i]:b.starts[i + 1]]])
                           for i in range(3)]) + param(gm, "_c.wbias")
    np.testing.assert_allclose(value, want, rtol=1e-6)
    np.testing.assert_array_equal(starts, [0, 3, 6, 10])
    with pytest.raises(ValueError, match="3 and 2 sequences"):
        forward_output(gm, [a, seq_of_lengths(rng, [1, 2], D), rand(rng, 9, D)], "c")


def test_seqreshape():
    rng = np.random.RandomState(8)
    x = seq_of_lengths(rng, [2, 4, 2], 3)  # 6, 12, 6 values -> rows of 2: 3, 6, 3
    net = Net()
    xin = net.data("x", 3)
    r = net.layer("r", "seqreshape", 2, [xin], active_type="tanh")
    sum_cost_net_output(net, r, 2)
    gm = net.build()
    slots = [x, rand(rng, 12, 2)]
    gradient_check(gm, slots, input_slots=[0])
    value, starts, _ = forward_output(gm, slots, "r")
    np.testing.assert_allclose(value, np.tanh(x.data.reshape(-1, 2)), rtol=1e-6)
    np.testing.assert_array_equal(starts, [0, 3, 9, 12])
    with pytest.raises(ValueError, match="sequence 1 has 3 values"):
        forward_output(gm, [seq_of_lengths(rng, [2, 1, 1], 3), rand(rng, 6, 2)], "r")


def test_sequence_softmax_activation():
    rng = np.random.RandomState(9)
    x = seq_of_lengths(rng, LENGTHS, D)
    net = Net()
    xin = net.data("x", D)
    s = net.fc("s", [(xin, D)], 1, act="sequence_softmax")
    sum_cost_net_output(net, s, 1)
    gm = net.build()
    slots = [x, rand(rng, sum(LENGTHS), 1)]
    gradient_check(gm, slots, input_slots=[0])
    value, starts, _ = forward_output(gm, slots, "s")
    z = x.data @ param(gm, "_s.w0").reshape(D, 1) + param(gm, "_s.wbias")
    for b, e in zip(x.starts[:-1], x.starts[1:]):
        ez = np.exp(z[b:e] - z[b:e].max())
        np.testing.assert_allclose(value[b:e], ez / ez.sum(), rtol=1e-5)
    np.testing.assert_array_equal(starts, x.starts)
    assert value[x.starts[1]] == pytest.approx(1.0)  # a sequence of length 1


def test_token_wise_layers_pass_sequence_structure():
    rng = np.random.RandomState(10)
    x = seq_of_lengths(rng, None, D, sub_lengths=NESTED)
    net = Net()
    xin = net.data("x", D)
    f = net.fc("f", [(xin, D)], D, act="tanh")
    m = net.mixed("m", D, [(f, D, "fc", D, {})])
    a = net.layer("a", "addto", D, [m, xin])
    c = net.layer("c", "concat", 2 * D, [a, f])
    s = net.layer("s", "slope_intercept", 2 * D, [c], slope=2.0, intercept=0.5)
    net.output(s)
    gm = net.build()
    for name in ("f", "m", "a", "c", "s"):
        _, starts, sub = forward_output(gm, [x], name)
        np.testing.assert_array_equal(starts, x.starts, err_msg=name)
        np.testing.assert_array_equal(sub, x.sub_starts, err_msg=name)


def test_text_conv_pool_network_from_v1_config():
    """embedding -> context projection -> fc -> max pooling -> fc softmax, as the config
    parser writes it (sequence_conv_pool), gradient-checked on integer sequences."""
    from paddle.trainer.config_parser import parse_config
    from paddle.proto import message_to_json
    from py_paddle import swig_paddle as api

    def conf():
        from paddle.trainer_config_helpers import (data_layer, embedding_layer, sequence_conv_pool, fc_layer,
                                                   pooling_layer, AvgPooling, last_seq, first_seq,
                                                   expand_layer, concat_layer, classification_cost,
                                                   SoftmaxActivation, settings, outputs, ParamAttr)
        settings(batch_size=4)
        w = data_layer(name="word", size=12)
        e = embedding_layer(w, 4)
        conv = sequence_conv_pool(e, context_len=3, hidden_size=5, context_proj_param_attr=ParamAttr())
        avg = pooling_layer(e, pooling_type=AvgPooling())
        ex = expand_layer(avg, expand_as=e)
        ends = concat_layer([last_seq(ex), first_seq(e)])
        out = fc_layer([conv, ends], 3, act=SoftmaxActivation())
        outputs(classification_cost(out, data_layer(name="label", size=3)))

    mc = parse_config(conf, "").model_config
    gm = api.GradientMachine.createByConfigJson(message_to_json(mc), False, 1)
    rng = np.random.RandomState(11)
    names = list(gm.getInputLayerNames())
    word = seq_of_lengths(rng, LENGTHS, vocab=12)
    slots = {"word": word, "label": np.array([0, 2, 1, 2], np.int32)}
    gradient_check(gm, [slots[n] for n in names], samples=10)


def test_nested_sequence_network_from_v1_config_and_provider_types():
    """integer_value_sub_sequence -> embedding -> per-sub-sequence pooling -> expand back ->
    seq_concat / seq_reshape / strided last_seq / first_seq -> cost; fed by DataProviderConverter."""
    from paddle.trainer.config_parser import parse_config
    from paddle.proto import message_to_json
    from paddle.trainer.PyDataProvider2 import integer_value_sub_sequence, integer_value
    from py_paddle import swig_paddle as api
    from py_paddle.util import DataProviderConverter

    def conf():
        from paddle.trainer_config_helpers import (data_layer, embedding_layer, pooling_layer, MaxPooling,
                                                   SumPooling, AggregateLevel, ExpandLevel, expand_layer,
                                                   last_seq, first_seq, seq_concat_layer, seq_reshape_layer,
                                                   concat_layer, fc_layer, classification_cost,
                                                   SoftmaxActivation, settings, outputs)
        settings(batch_size=3)
        w = data_layer(name="word", size=10)
        e = embedding_layer(w, 4)
        sub = pooling_layer(e, pooling_type=MaxPooling(), agg_level=AggregateLevel.EACH_SEQUENCE)
        back = expand_layer(sub, expand_as=e, expand_level=ExpandLevel.FROM_SEQUENCE)
        flat = pooling_layer(back, pooling_type=SumPooling())
        cat = seq_concat_layer(sub, sub)
        rs = seq_reshape_layer(cat, 2)
        strided = last_seq(rs, stride=2)
        ends = concat_layer([first_seq(strided), last_seq(sub), flat])
        out = fc_layer(ends, 3, act=SoftmaxActivation())
        outputs(classification_cost(out, data_layer(name="label", size=3)))

    mc = parse_config(conf, "").model_config
    gm = api.GradientMachine.createByConfigJson(message_to_json(mc), False, 1)
    names = list(gm.getInputLayerNames())
    types = {"word": integer_value_sub_sequence(10), "label": integer_value(3)}
    samples = [{"word": [[1, 2], [3]], "label": 0}, {"word": [[4]], "label": 2},
               {"word": [[5, 6, 7], [8], [9, 0]], "label": 1}]
    args = DataProviderConverter([types[n] for n in names])([[s[n] for n in names] for s in samples])
    out = api.Arguments.createArguments(0)
    gm.forwardBackward(args, out, api.PASS_TRAIN)
    cost = out.sum()
    assert np.isfinite(cost) and cost > 0
    for p in gm.getParameters():
        assert np.abs(p.getBuf(api.PARAMETER_GRADIENT).copyToNumpyArray()).sum() > 0, p.getName()


def test_data_layer_checks_start_positions():
    rng = np.random.RandomState(12)
    net = Net()
    xin = net.data("x", D)
    net.output(net.fc("f", [(xin, D)], 2))
    gm = net.build()
    with pytest.raises(ValueError, match="run from 0 to 3, expected 0 to 4"):
        forward_output(gm, [Seq(rand(rng, 4, D), [0, 2, 3])], "f")
    with pytest.raises(ValueError, match="decrease at sequence 1"):
        forward_output(gm, [Seq(rand(rng, 4, D), [0, 3, 1, 4])], "f")
    with pytest.raises(ValueError, match="sequence 1 starts at row 2, which is not a sub-sequence start"):
        forward_output(gm, [Seq(rand(rng, 4, D), [0, 2, 4], [0, 1, 3, 4])], "f")
