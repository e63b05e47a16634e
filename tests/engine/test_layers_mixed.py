"""mixed (every projection and the dot_mul operator), embedding, concat2, addto, concat:
finite-difference checks of inputs and parameters, plus forward values against NumPy."""
import numpy as np
import pytest

from netbuilder import (Net, _run_and_collect, assert_alone_equals_shared, forward_values, gradient_check, make_args,
                        seq_of_lengths, sum_cost_net_output)
from py_paddle import swig_paddle as api

B = 6


def rand(rng, *shape):
    return rng.randn(*shape).astype(np.float32)


# (projection type, input size, output size, extra proj_conf fields)
PROJECTIONS = [("fc", 5, 4, {}), ("trans_fc", 5, 4, {}), ("identity", 4, 4, {}),
               ("identity_offset", 7, 3, {"offset": 2}), ("dot_mul", 4, 4, {}), ("scaling", 4, 4, {})]


@pytest.mark.parametrize("ptype,in_size,out_size,extra", PROJECTIONS, ids=[p[0] for p in PROJECTIONS])
@pytest.mark.parametrize("bias,act", [(False, ""), (True, "tanh")])
def test_mixed_projection_gradients(ptype, in_size, out_size, extra, bias, act):
    rng = np.random.RandomState(1)
    net = Net()
    x = net.data("x", in_size)
    m = net.mixed("m", out_size, [(x, in_size, ptype, out_size, extra)], act=act, bias=bias)
    sum_cost_net_output(net, m, out_size)
    gm = net.build()
    gradient_check(gm, [rand(rng, B, in_size), rand(rng, B, out_size)], input_slots=[0])


def test_mixed_projection_forward_values():
    rng = np.random.RandomState(2)
    net = Net()
    x = net.data("x", 5)
    y = net.data("y", 4)
    m = net.mixed("m", 4, [(x, 5, "fc", 4, {}), (y, 4, "trans_fc", 4, {}), (x, 5, "identity_offset", 4, {"offset": 1}),
                           (y, 4, "dot_mul", 4, {}), (y, 4, "scaling", 4, {})],
                  ops=[("dot_mul", [x2 for x2 in ("y", "y")], [4, 4], 4, {"dotmul_scale": 0.5})], bias=True)
    net.output(m)
    gm = net.build()
    xs, ys = rand(rng, B, 5), rand(rng, B, 4)
    got = forward_values(gm, [xs, ys], m)
    P = lambda n: gm.getParameterByName(n).getBuf(0).copyToNumpyArray()
    want = (xs @ P("_m.w0").reshape(5, 4) + ys @ P("_m.w1").reshape(4, 4).T + xs[:, 1:5] + ys * P("_m.w3")
            + ys * P("_m.w4")[0] + 0.5 * ys * ys + P("_m.wbias"))
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_mixed_dotmul_operator_gradients():
    rng = np.random.RandomState(3)
    net = Net()
    a = net.data("a", 4)
    b = net.data("b", 4)
    m = net.mixed("m", 4, [(a, 4, "fc", 4, {})], ops=[("dot_mul", [a, b], [4, 4], 4, {"dotmul_scale": 2.0})],
                  act="sigmoid", bias=True)
    sum_cost_net_output(net, m, 4)
    gradient_check(net.build(), [rand(rng, B, 4), rand(rng, B, 4), rand(rng, B, 4)], input_slots=[0, 1])


def test_embedding_table_projection_gradients_and_values():
    rng = np.random.RandomState(4)
    net = Net()
    ids = net.data("ids", 9)
    e = net.mixed("emb", 3, [(ids, 9, "table", 3, {})])
    sum_cost_net_output(net, e, 3)
    gm = net.build()
    idv = np.array([0, 3, 3, 8, 1, 5], dtype=np.int32)
    slots = [idv, rand(rng, B, 3)]
    gradient_check(gm, slots, samples=27)  # every table entry, repeated ids included
    table = gm.getParameterByName("_emb.w0").getBuf(0).copyToNumpyArray().reshape(9, 3)
    np.testing.assert_allclose(forward_values(gm, slots, e), table[idv], rtol=1e-6)


def test_embedding_rejects_out_of_range_id():
    net = Net()
    ids = net.data("ids", 9)
    e = net.mixed("emb", 3, [(ids, 9, "table", 3, {})])
    net.output(e)
    gm = net.build()
    with pytest.raises(ValueError, match="layer 'emb': sample 1 has id 9, outside the table"):
        forward_values(gm, [np.array([0, 9], dtype=np.int32)], e)


def test_concat2_gradients_and_values():
    rng = np.random.RandomState(5)
    net = Net()
    x = net.data("x", 5)
    y = net.data("y", 3)
    c = net.concat2("c", 7, [(x, 5, "fc", 4, {}), (y, 3, "identity", 3, {})], bias=True, act="tanh")
    sum_cost_net_output(net, c, 7)
    gm = net.build()
    slots = [rand(rng, B, 5), rand(rng, B, 3), rand(rng, B, 7)]
    gradient_check(gm, slots, input_slots=[0, 1])
    P = lambda n: gm.getParameterByName(n).getBuf(0).copyToNumpyArray()
    want = np.tanh(np.hstack([slots[0] @ P("_c.w0").reshape(5, 4), slots[1]]) + P("_c.wbias"))
    np.testing.assert_allclose(forward_values(gm, slots, c), want, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("bias", [False, True])
def test_addto_gradients_and_values(bias):
    rng = np.random.RandomState(6)
    net = Net()
    x = net.data("x", 4)
    y = net.data("y", 4)
    fields = {"bias_parameter_name": net.param("_a.wbias", [1, 4], 0.1)} if bias else {}
    a = net.layer("a", "addto", 4, [x, y], active_type="relu", **fields)
    sum_cost_net_output(net, a, 4)
    gm = net.build()
    slots = [rand(rng, B, 4), rand(rng, B, 4), rand(rng, B, 4)]
    gradient_check(gm, slots, input_slots=[0, 1])
    b = gm.getParameterByName("_a.wbias").getBuf(0).copyToNumpyArray() if bias else 0
    np.testing.assert_allclose(forward_values(gm, slots, a), np.maximum(slots[0] + slots[1] + b, 0), rtol=1e-5)


def test_concat_gradients_and_values():
    rng = np.random.RandomState(7)
    net = Net()
    x = net.data("x", 4)
    y = net.data("y", 2)
    h = net.fc("h", [(x, 4)], 3, act="tanh")
    c = net.layer("c", "concat", 9, [x, h, y], active_type="sigmoid")
    sum_cost_net_output(net, c, 9)
    gm = net.build()
    slots = [rand(rng, B, 4), rand(rng, B, 2), rand(rng, B, 9)]
    gradient_check(gm, slots, input_slots=[0, 1])
    got = forward_values(gm, slots, c)
    np.testing.assert_allclose(got[:, :4], 1 / (1 + np.exp(-slots[0])), rtol=1e-5)
    np.testing.assert_allclose(got[:, 7:], 1 / (1 + np.exp(-slots[1])), rtol=1e-5)


def test_config_errors_name_the_field():
    net = Net()
    x = net.data("x", 5)
    net.mixed("m", 4, [(x, 5, "identity", 5, {})])
    net.output("m")
    with pytest.raises(ValueError, match="output_size"):
        net.build()
    net = Net()
    x = net.data("x", 5)
    net.mixed("m", 4, [(x, 5, "bogus", 4, {})])
    net.output("m")
    with pytest.raises(ValueError, match="proj_conf.type 'bogus'"):
        net.build()
    net = Net()
    x = net.data("x", 5)
    net.layer("c", "concat", 9, [x])
    net.output("c")
    with pytest.raises(ValueError, match="add up to 5"):
        net.build()


def test_parsed_v1_config_runs():
    """The config parser's own output for mixed/embedding/addto/concat/concat2 builds and runs."""
    from paddle.trainer.config_parser import parse_config
    from paddle.proto import message_to_json
    from py_paddle import swig_paddle as api

    def conf():
        from paddle.trainer_config_helpers import (data_layer, mixed_layer, full_matrix_projection,
                                                   trans_full_matrix_projection, identity_projection,
                                                   dotmul_projection, scaling_projection, dotmul_operator,
                                                   embedding_layer, addto_layer, concat_layer, outputs,
                                                   settings, TanhActivation, regression_cost)
        settings(batch_size=4)
        x = data_layer(name="x", size=6)
        ids = data_layer(name="ids", size=10)
        m = mixed_layer(size=6, input=[full_matrix_projection(x), trans_full_matrix_projection(x),
                                       identity_projection(x), dotmul_projection(x), scaling_projection(x),
                                       dotmul_operator(x, x, scale=2.0)], bias_attr=True, act=TanhActivation())
        e = embedding_layer(ids, 6)
        a = addto_layer([m, e], bias_attr=True)
        c = concat_layer([a, identity_projection(x, offset=1, size=3) if False else e])
        c2 = concat_layer([full_matrix_projection(c, size=4), identity_projection(x)])
        y = data_layer(name="y", size=10)
        outputs(regression_cost(c2, y))

    mc = parse_config(conf, "").model_config
    gm = api.GradientMachine.createByConfigJson(message_to_json(mc), False, 1)
    rng = np.random.RandomState(8)
    names = list(gm.getInputLayerNames())
    slots = {"x": rand(rng, 4, 6), "ids": np.array([1, 2, 3, 9], np.int32), "y": rand(rng, 4, 10)}
    gradient_check(gm, [slots[n] for n in names], input_slots=[names.index("x")])


# ---------------------------------------------------------------- conv projection / operator

def _conv_conf(C, H, W, f, s, p, groups):
    o = (2 * p + H - f) // s + 1
    ow = (2 * p + W - f) // s + 1
    return {"filter_size": f, "filter_size_y": f, "channels": C, "stride": s, "stride_y": s, "padding": p,
            "padding_y": p, "groups": groups, "filter_channels": C // groups, "output_x": ow, "output_y": o,
            "img_size": W, "img_size_y": H, "caffe_mode": True}, o, ow


def np_conv_filters(x, w, C, H, W, f, s, p, groups, nf):
    """Reference with cuDNN-layout filters w: [nf][C/groups][f][f] (float64)."""
    o, ow = (2 * p + H - f) // s + 1, (2 * p + W - f) // s + 1
    xi = np.pad(x.reshape(-1, C, H, W).astype(np.float64), ((0, 0), (0, 0), (p, p), (p, p)))
    wf = w.reshape(nf, C // groups, f, f).astype(np.float64)
    cg, mg = C // groups, nf // groups
    out = np.zeros((x.shape[0], nf, o, ow))
    for k in range(nf):
        g = k // mg
        for oy in range(o):
            for ox in range(ow):
                patch = xi[:, g * cg:(g + 1) * cg, oy * s:oy * s + f, ox * s:ox * s + f]
                out[:, k, oy, ox] = (patch * wf[k]).sum(axis=(1, 2, 3))
    return out.reshape(x.shape[0], -1)


@pytest.mark.parametrize("groups,shared_bias", [(1, True), (2, False)])
def test_mixed_conv_projection_gradients_and_values(groups, shared_bias):
    rng = np.random.RandomState(4)
    C, H, W, f, s, p, nf = 4, 6, 5, 3, 1, 1, 6
    conf, o, ow = _conv_conf(C, H, W, f, s, p, groups)
    size = nf * o * ow
    wsize = nf * (C // groups) * f * f
    net = Net()
    x = net.data("x", C * H * W)
    layer = {"name": "m", "type": "mixed", "size": size, "active_type": "tanh",
             "inputs": [{"input_layer_name": x, "input_parameter_name": net.param("_m.w0", [wsize, 1], 0.3),
                         "proj_conf": {"type": "conv", "name": "_m.w0", "input_size": C * H * W,
                                       "output_size": size, "num_filters": nf, "conv_conf": conf}}]}
    if shared_bias:
        layer["shared_biases"] = True
        layer["bias_parameter_name"] = net.param("_m.wbias", [1, nf], 0.1)
    net.layers.append(layer)
    sum_cost_net_output(net, "m", size)
    gm = net.build()
    slots = [rand(rng, B, C * H * W) * 0.5, rand(rng, B, size)]
    gradient_check(gm, slots, input_slots=[0], samples=15, eps=1e-2)
    w = gm.getParameterByName("_m.w0").getBuf(0).copyToNumpyArray()
    want = np_conv_filters(slots[0], w, C, H, W, f, s, p, groups, nf)
    if shared_bias:
        want += np.repeat(gm.getParameterByName("_m.wbias").getBuf(0).copyToNumpyArray(), o * ow)
    np.testing.assert_allclose(forward_values(gm, slots, "m"), np.tanh(want), rtol=1e-4, atol=1e-5)


def test_mixed_conv_operator_gradients_and_values():
    """Each sample's image is convolved with its own filters, which come from another layer."""
    rng = np.random.RandomState(6)
    C, H, W, f, s, p, nf = 2, 5, 5, 3, 2, 1, 3
    conf, o, ow = _conv_conf(C, H, W, f, s, p, 1)
    size, fsize = nf * o * ow, nf * C * f * f
    net = Net()
    x = net.data("x", C * H * W)
    z = net.data("z", 4)
    filt = net.fc("filt", [(z, 4)], fsize, act="tanh")
    net.layers.append({"name": "m", "type": "mixed", "size": size, "active_type": "",
                       "inputs": [{"input_layer_name": x}, {"input_layer_name": filt}],
                       "operator_confs": [{"type": "conv", "input_indices": [0, 1], "input_sizes": [C * H * W, fsize],
                                           "output_size": size, "num_filters": nf, "conv_conf": conf}]})
    sum_cost_net_output(net, "m", size)
    gm = net.build()
    slots = [rand(rng, B, C * H * W), rand(rng, B, 4), rand(rng, B, size)]
    gradient_check(gm, slots, input_slots=[0, 1], samples=15, eps=1e-2)
    fv = forward_values(gm, slots, "filt")
    got = forward_values(gm, slots, "m")
    for r in range(B):
        want = np_conv_filters(slots[0][r:r + 1], fv[r], C, H, W, f, s, p, 1, nf)
        np.testing.assert_allclose(got[r:r + 1], want, rtol=1e-4, atol=1e-5)


def test_parsed_conv_projection_and_operator_config_runs():
    """conv_projection / conv_operator as the config helpers write them (shared bias, v1 sizes)."""
    from paddle.trainer.config_parser import parse_config
    from paddle.proto import message_to_json
    from py_paddle import swig_paddle as api

    def conf():
        from paddle.trainer_config_helpers import (data_layer, mixed_layer, conv_projection, conv_operator,
                                                   concat_layer, fc_layer, outputs, settings, TanhActivation,
                                                   regression_cost)
        settings(batch_size=4)
        img = data_layer(name="img", size=2 * 6 * 6, height=6, width=6)
        z = data_layer(name="z", size=3)
        filt = fc_layer(input=z, size=4 * 2 * 3 * 3)
        m = mixed_layer(size=4 * 6 * 6, input=[conv_projection(img, filter_size=3, num_filters=4, num_channels=2,
                                                               padding=1)],
                        bias_attr=True, act=TanhActivation())
        op = mixed_layer(size=4 * 6 * 6, input=[conv_operator(img, filt, filter_size=3, num_filters=4,
                                                              num_channels=2, padding=1)])
        c2 = concat_layer([conv_projection(img, filter_size=3, num_filters=2, num_channels=2, padding=1),
                           conv_projection(img, filter_size=3, num_filters=3, num_channels=2, stride=2)],
                          bias_attr=True)
        y = data_layer(name="y", size=4 * 36)
        y2 = data_layer(name="y2", size=2 * 36 + 3 * 4)
        outputs(regression_cost(m, y), regression_cost(op, y), regression_cost(c2, y2))

    mc = parse_config(conf, "").model_config
    gm = api.GradientMachine.createByConfigJson(message_to_json(mc), False, 1)
    rng = np.random.RandomState(9)
    names = list(gm.getInputLayerNames())
    slots = {"img": rand(rng, 4, 72), "z": rand(rng, 4, 3), "y": rand(rng, 4, 144), "y2": rand(rng, 4, 84)}
    gradient_check(gm, [slots[n] for n in names], input_slots=[names.index("img")], eps=1e-2, samples=8)


def test_table_projection_skips_the_ignored_id_and_checks_the_table():
    """-1 (v1's ignored id) looks up a zero row and leaves the table's gradient alone; ids past
    the table are a DataError naming the layer that uses them."""
    net = Net()
    w = net.data("w", 4)
    emb = net.mixed("emb", 3, [(w, 4, "table", 3, {})])
    sum_cost_net_output(net, emb, 3)
    gm = net.build()
    ids = np.array([2, -1, 0], dtype=np.int32)
    target = np.zeros((3, 3), np.float32)
    out = forward_values(gm, [ids, target], emb)
    table = gm.getParameterByName("_emb.w0").getBuf(0).copyToNumpyArray().reshape(4, 3)
    np.testing.assert_allclose(out, [table[2], np.zeros(3), table[0]], rtol=1e-6)
    gm.forwardBackward(make_args([ids, target]), api.Arguments.createArguments(0), api.PASS_TRAIN)
    grad = gm.getParameterByName("_emb.w0").getBuf(api.PARAMETER_GRADIENT).copyToNumpyArray().reshape(4, 3)
    assert np.abs(grad[[1, 3]]).sum() == 0 and np.abs(grad[[0, 2]]).sum() > 0
    with pytest.raises(ValueError, match="layer 'emb': sample 1 has id 4, outside the table"):
        forward_values(gm, [np.array([0, 4, 1], np.int32), target], emb)


def test_first_projection_overwrites_what_the_last_batch_left():
    """A layer's first projection sets its output (no clearing pass before it), as concat2's
    and concat's pieces do: a batch run in buffers that a previous batch left full of other
    values must read none of them, in the rows of ignored ids, of context padding, or of the
    pieces. Gradients stay right too (each projection still adds its part)."""
    from test_layers_sequence import context_ref
    rng = np.random.RandomState(11)
    net = Net()
    w = net.data("w", 7)
    emb = net.mixed("emb", 3, [(w, 7, "table", 3, {})])
    ctx = net.mixed("ctx", 6, [(emb, 3, "context", 6, {"context_start": -1, "context_length": 2}),
                               (emb, 3, "fc", 6, {})], act="tanh")
    cat = net.concat2("cat", 9, [(emb, 3, "identity", 3, {}),
                                 (emb, 3, "context", 6, {"context_start": 0, "context_length": 2})])
    cc = net.layer("cc", "concat", 12, [emb, cat])
    two = net.mixed("two", 3, [(w, 7, "table", 3, {}), (w, 7, "table", 3, {})])  # the second table adds
    sum_cost_net_output(net, ctx, 6)
    sum_cost_net_output(net, cc, 12)
    sum_cost_net_output(net, two, 3)
    gm = net.build()
    P = lambda n: gm.getParameterByName(n).getBuf(0).copyToNumpyArray()
    table, wfc = P("_emb.w0").reshape(7, 3), P("_ctx.w1").reshape(3, 6)
    lookup = lambda t, ids: np.where(ids[:, None] >= 0, t.reshape(7, 3)[np.maximum(ids, 0)], 0).astype(np.float32)
    for lengths, ignored in (([4, 2, 3], []), ([2, 5, 1], [0, 4])):  # the second batch leaves stale rows
        ids = seq_of_lengths(rng, lengths, vocab=7)
        ids.data[ignored] = -1
        e = lookup(table, ids.data)
        slots = [ids, rand(rng, sum(lengths), 6), rand(rng, sum(lengths), 12), rand(rng, sum(lengths), 3)]
        np.testing.assert_allclose(forward_values(gm, slots, emb), e, rtol=1e-6)
        np.testing.assert_allclose(forward_values(gm, slots, ctx),
                                   np.tanh(context_ref(e, ids.starts, -1, 2) + e @ wfc), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(forward_values(gm, slots, cc),
                                   np.hstack([e, e, context_ref(e, ids.starts, 0, 2)]), rtol=1e-6)
        np.testing.assert_allclose(forward_values(gm, slots, two),
                                   lookup(P("_two.w0"), ids.data) + lookup(P("_two.w1"), ids.data), rtol=1e-6)
    gradient_check(gm, slots, samples=30)


READERS = {  # a layer that alone reads h (size 4) can set h's gradient instead of adding to it
    "fc": lambda net, h: net.fc("r", [(h, 4)], 6, act="tanh"),
    "fc projection": lambda net, h: net.mixed("r", 6, [(h, 4, "fc", 6, {})], act="tanh", bias=True),
    "trans_fc projection": lambda net, h: net.mixed("r", 6, [(h, 4, "trans_fc", 6, {})]),  # (clears, then adds)
    "context projection": lambda net, h: net.mixed("r", 12, [(h, 4, "context", 12, {"context_start": -1,
                                                                                     "context_length": 3})]),
    "trainable padding": lambda net, h: _with_padding(net, net.mixed("r", 12, [(h, 4, "context", 12, {
        "context_start": -2, "context_length": 3, "trainable_padding": True})]), [2, 4]),
}


def _with_padding(net, name, dims):
    """Gives the context projection of mixed layer `name` its padding rows (a parameter)."""
    net.layers[-1]["inputs"][0]["input_parameter_name"] = net.param("_%s.w0" % name, dims, 0.5)
    return name


@pytest.mark.parametrize("act", ["tanh", "relu"])
@pytest.mark.parametrize("reader", sorted(READERS))
def test_a_layer_that_alone_reads_another_sets_its_gradient(reader, act):
    """Where an fc layer, or a mixed layer of one projection, is a layer's only reader, it sets
    that layer's gradient (the layer skips clearing it; the fc and context projections set it in
    their one pass, the others clear it first). The same net with a
    second, unused reader keeps the usual clear-then-add order: both must give the same bits,
    also in a second, shorter batch, where a row the reader failed to set would still hold the
    first batch's gradient. The net alone passes finite differences."""
    results = []
    for second_reader in (False, True):
        net = Net()
        x = net.data("x", 3)
        h = net.fc("h", [(x, 3)], 4, act=act)
        r = READERS[reader](net, h)
        size = net.layers[-1]["size"]
        if second_reader:
            net.fc("unused", [(h, 4)], 2)
        sum_cost_net_output(net, r, size)
        gm = net.build()
        batches = []
        for seed, lengths in ((1, [5, 1, 4]), (2, [2, 3])):
            rng = np.random.RandomState(seed)
            batches.append([seq_of_lengths(rng, lengths, 3), rng.randn(sum(lengths), size).astype(np.float32)])
        results.append([_run_and_collect(gm, b, ["h"]) for b in batches])
        if not second_reader and act == "tanh":
            gradient_check(gm, batches[1], input_slots=[0], samples=20, eps=1e-2)
    assert_alone_equals_shared(results)
