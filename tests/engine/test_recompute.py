"""Recomputation (settings(recompute=...), trainer/Recompute.cpp): checkpoints cut the network into
segments, the training forward frees each finished segment but for what later segments read, and
backward recomputes a segment right before its backward.

- the gradients (of the parameters and of the inputs), costs and batch norm's moving averages are
  bit for bit those of the stored run, over several batches, for an MLP, a conv net with batch
  norm, dropout, max pooling and residual additions, stacked LSTMs and GRUs with dropout, and a
  network around recurrent groups; with 'auto' and with explicit checkpoints; a recurrent
  group's frames recomputed (dropout inside the step replayed);
- the Trainer trains to the same parameters with and without it;
- the engine's own buffer accounting shows the peak of a 20-layer stacked LSTM drop by >= 40%,
  and that of a recurrent group's frames by >= 60%;
- settings / ExtraAttr / YAML / --recompute reach the ModelConfig; bad checkpoints raise
  ConfigError naming the layer (parser and engine).
"""
import json
import textwrap

import numpy as np
import pytest

from netbuilder import ON_GPU, Seq, make_args
from paddle.parser.errors import ConfigError as ParseError
from paddle.proto import message_to_json
from paddle.trainer.config_parser import parse_config
from py_paddle import swig_paddle as api

HEADER = "from paddle.trainer_config_helpers import *\n"


def parse(tmp_path, body, settings="settings(batch_size=4)"):
    conf = tmp_path / "net.py"
    conf.write_text(HEADER + settings + "\n" + textwrap.dedent(body))
    return parse_config(str(conf), "")


def model_json(tc, mode):
    model = json.loads(message_to_json(tc.model_config))
    model["recompute"] = mode
    return model


def build(model, seed=3):
    gm = api.GradientMachine.createByConfigJson(json.dumps(model), ON_GPU, seed)
    gm.setNeedInputGradient(True)
    return gm


def train_steps(gm, batches):
    """forwardBackward in training mode over the batches; per batch the cost, every parameter's
    gradient and every input layer's gradient; at the end every parameter's value (batch norm's
    moving averages are static parameters that the forward moves)."""
    got = []
    out = api.Arguments.createArguments(0)
    for slots in batches:
        gm.forwardBackward(make_args(slots), out, api.PASS_TRAIN)
        step = {"cost": np.array([out.sum()])}
        for p in gm.getParameters():
            if not p.isStatic():
                    step[p.getName() + ".grad"] = p.getBuf(api.PARAMETER_GRADIENT).copyToNumpyArray()
        for name in gm.getInputLayerNames():
            g = gm.getLayerOutput(name).getSlotGrad(0)
            if g is not None:
                step[name + ".grad"] = g.copyToNumpyMat()
        got.append(step)
    got.append({p.getName(): p.getBuf(api.PARAMETER_VALUE).copyToNumpyArray() for p in gm.getParameters()})
    return got


def assert_bitwise_equal(stored, recomputed):
    assert len(stored) == len(recomputed)
    for a, b in zip(stored, recomputed):
        assert a.keys() == b.keys()
        for k in a:
            assert a[k].dtype == b[k].dtype and a[k].shape == b[k].shape, k
            assert np.array_equal(a[k].view(np.uint32), b[k].view(np.uint32)), \
                "%s differs by %g" % (k, np.abs(a[k] - b[k]).max())


def check_recompute(tc, batches, modes=("auto", ), extra_checkpoints=None):
    """The stored run against recomputation in every mode: the same bits everywhere."""
    slots = [[b[n] for n in json.loads(message_to_json(tc.model_config))["input_layer_names"]] for b in batches]
    stored = train_steps(build(model_json(tc, "")), slots)
    grads = [v for k, v in stored[0].items() if k.endswith(".grad")]
    assert any(np.abs(g).sum() > 0 for g in grads)
    for mode in modes:
        model = model_json(tc, mode)
        if extra_checkpoints:
            for layer in model["layers"]:
                if layer["name"] in extra_checkpoints:
                    layer["recompute_checkpoint"] = True
        gm = build(model)
        checkpoints = gm.getRecomputeCheckpoints()
        assert checkpoints, "the plan has no checkpoint: nothing is recomputed"
        if extra_checkpoints:
            assert set(extra_checkpoints) <= set(checkpoints)
        assert_bitwise_equal(stored, train_steps(gm, slots))


def dense_batches(rng, n, **sizes):
    out = []
    for _ in range(n):
        b = {}
        for name, size in sizes.items():
            b[name] = rng.randint(0, -size, 6).astype(np.int32) if size < 0 else rng.randn(6, size).astype(np.float32)
        out.append(b)
    return out


def sequence_batches(rng, starts, n=3):
    """n batches of 6-wide sequences cut at `starts`, one label of 3 classes per sequence."""
    return [{"x": Seq(rng.randn(starts[-1], 6).astype(np.float32), starts),
             "y": rng.randint(0, 3, len(starts) - 1).astype(np.int32)} for _ in range(n)]


def test_mlp_with_dropout_auto_and_marked(tmp_path):
    tc = parse(tmp_path, """
        h = data_layer(name='x', size=12)
        for i in range(10):
            h = fc_layer(input=h, size=16, act=TanhActivation(), name='h%d' % i,
                         layer_attr=ExtraAttr(drop_rate=0.25 if i % 3 == 1 else None))
        out = fc_layer(input=h, size=4, act=SoftmaxActivation())
        outputs(classification_cost(input=out, label=data_layer(name='y', size=4)))
        """)
    batches = dense_batches(np.random.RandomState(0), 3, x=12, y=-4)
    check_recompute(tc, batches, modes=("auto", "marked"), extra_checkpoints=["h3", "h6"])


def test_conv_net_with_batch_norm_dropout_pooling_and_residuals(tmp_path):
    tc = parse(tmp_path, """
        img = data_layer(name='img', size=3 * 8 * 8, height=8, width=8)
        def conv_bn(x, ch, act, name):
            c = img_conv_layer(input=x, filter_size=3, num_filters=ch, padding=1, act=LinearActivation(),
                               num_channels=3 if x is img else 6, bias_attr=False, name=name + '_conv')
            return batch_norm_layer(input=c, act=act, name=name + '_bn')
        h = conv_bn(img, 6, ReluActivation(), 'stem')
        for i in range(3):
            branch = conv_bn(h, 6, ReluActivation(), 'b%da' % i)
            branch = conv_bn(branch, 6, LinearActivation(), 'b%db' % i)
            h = addto_layer(input=[h, branch], act=ReluActivation(), name='res%d' % i,
                            layer_attr=ExtraAttr(drop_rate=0.2 if i == 1 else None))
        h = img_pool_layer(input=h, pool_size=2, stride=2, pool_type=MaxPooling(), name='pool')
        h = fc_layer(input=h, size=10, act=TanhActivation(), layer_attr=ExtraAttr(drop_rate=0.3))
        out = fc_layer(input=h, size=3, act=SoftmaxActivation())
        outputs(classification_cost(input=out, label=data_layer(name='y', size=3)))
        """)
    batches = dense_batches(np.random.RandomState(1), 3, img=3 * 8 * 8, y=-3)
    check_recompute(tc, batches, modes=("auto", "marked"), extra_checkpoints=["res0", "pool"])


@pytest.mark.parametrize("cell", ["simple_lstm", "simple_gru"])
def test_stacked_recurrent_layers(tmp_path, cell):
    tc = parse(tmp_path, """
        h = data_layer(name='x', size=6)
        for i in range(6):
            h = %s(input=h, size=8, name='r%%d' %% i)
            if i == 2:
                h = dropout_layer(input=h, dropout_rate=0.3)
        h = last_seq(input=h)
        out = fc_layer(input=h, size=3, act=SoftmaxActivation())
        outputs(classification_cost(input=out, label=data_layer(name='y', size=3)))
        """ % cell)
    batches = sequence_batches(np.random.RandomState(2), [0, 3, 10, 11, 19])
    check_recompute(tc, batches, modes=("auto", ))


def test_around_recurrent_groups(tmp_path):
    tc = parse(tmp_path, """
        h = data_layer(name='x', size=6)
        for i in range(3):
            h = fc_layer(input=h, size=12, act=TanhActivation(), name='in%d' % i)
            h = lstmemory_group(input=fc_layer(input=h, size=16, name='proj%d' % i), size=4, name='g%d' % i)
            h = fc_layer(input=h, size=8, act=TanhActivation(), name='out%d' % i,
                         layer_attr=ExtraAttr(drop_rate=0.2))
        out = fc_layer(input=last_seq(input=h), size=3, act=SoftmaxActivation())
        outputs(classification_cost(input=out, label=data_layer(name='y', size=3)))
        """)
    batches = sequence_batches(np.random.RandomState(3), [0, 4, 5, 12])
    check_recompute(tc, batches, modes=("auto", "marked"), extra_checkpoints=["out0", "in2"])


GROUP_STEP = """
    def step(y):
        mem = memory(name='state', size=8)
        state = fc_layer(input=[y, mem], size=8, act=TanhActivation(), name='state',
                         layer_attr=ExtraAttr(drop_rate=0.2))
        wide = fc_layer(input=state, size=%d, act=ReluActivation(), name='wide',
                        layer_attr=ExtraAttr(drop_rate=0.3))
        return fc_layer(input=wide, size=6, act=TanhActivation(), name='step_out')
    """


def group_net(tmp_path, wide, mode=None):
    settings = "settings(batch_size=4%s)" % (", recompute=%r" % mode if mode else "")
    return parse(tmp_path, textwrap.dedent(GROUP_STEP % wide) + textwrap.dedent("""
        x = data_layer(name='x', size=6)
        g = recurrent_group(step=step, input=fc_layer(input=x, size=6, name='in'), name='g')
        out = fc_layer(input=last_seq(input=g), size=3, act=SoftmaxActivation())
        outputs(classification_cost(input=out, label=data_layer(name='y', size=3)))
        """), settings=settings)


def test_recurrent_group_recomputes_its_frames(tmp_path):
    # in each frame 'state' (the memory) and 'step_out' (the out-link) stay, 'wide' is freed and
    # recomputed with its dropout draws replayed (and 'state' draws between the runs)
    tc = group_net(tmp_path, 10)
    batches = sequence_batches(np.random.RandomState(6), [0, 5, 6, 13])
    check_recompute(tc, batches, modes=("auto", ))


def test_nested_recurrent_groups_recompute_their_frames(tmp_path):
    # the inner group's frames free 'mid' (dropout replayed); the outer frames keep the inner
    # group whole and the memory; the inner group recomputes inside each outer frame's backward
    tc = parse(tmp_path, """
        word = data_layer(name='word', size=3)
        emb = fc_layer(input=word, size=5, act=TanhActivation())
        def outer_step(x):
            outer_mem = memory(name='outer_state', size=6)
            def inner_step(y):
                inner_mem = memory(name='inner_state', size=6, boot_layer=outer_mem)
                state = fc_layer(input=[y, inner_mem], size=6, act=TanhActivation(), name='inner_state')
                mid = fc_layer(input=state, size=7, act=ReluActivation(), name='mid',
                               layer_attr=ExtraAttr(drop_rate=0.3))
                return fc_layer(input=mid, size=6, act=TanhActivation(), name='inner_out')
            inner_out = recurrent_group(step=inner_step, input=x, name='inner')
            last_seq(input=inner_out, name='outer_state')
            return inner_out
        out = recurrent_group(step=outer_step, input=SubsequenceInput(emb), name='outer')
        prob = fc_layer(input=last_seq(input=out), size=3, act=SoftmaxActivation())
        outputs(classification_cost(input=prob, label=data_layer(name='label', size=3)))
        """, settings="settings(batch_size=3)")
    rng = np.random.RandomState(8)
    batches = [{"word": Seq(rng.randn(11, 3).astype(np.float32), [0, 3, 6, 11], [0, 2, 3, 6, 7, 9, 11]),
                "label": rng.randint(0, 3, 3).astype(np.int32)} for _ in range(3)]
    check_recompute(tc, batches, modes=("auto", ))


def test_memory_of_a_recurrent_group_drops(tmp_path):
    rng = np.random.RandomState(7)
    starts = list(range(0, 8 * 40 + 1, 40))
    slots = [Seq(rng.randn(8 * 40, 6).astype(np.float32), starts), rng.randint(0, 3, 8).astype(np.int32)]
    stored, _ = peak_training_bytes(group_net(tmp_path, 256), slots)
    recomputed, _ = peak_training_bytes(group_net(tmp_path, 256, "auto"), slots)
    # the frames' 256-wide layers (value, gradient, dropout mask) are alive in one frame at a time
    assert recomputed <= 0.4 * stored, (recomputed, stored)


def test_trainer_reaches_the_same_parameters(tmp_path):
    tc = parse(tmp_path, """
        h = data_layer(name='x', size=8)
        for i in range(8):
            h = fc_layer(input=h, size=12, act=ReluActivation(), layer_attr=ExtraAttr(drop_rate=0.1))
        out = fc_layer(input=h, size=3, act=SoftmaxActivation())
        outputs(classification_cost(input=out, label=data_layer(name='y', size=3)))
        """, settings="settings(batch_size=6, learning_method=AdamOptimizer(), recompute=True)")
    assert tc.model_config.recompute == "auto"
    batches = dense_batches(np.random.RandomState(4), 4, x=8, y=-3)
    names = list(tc.model_config.input_layer_names)
    results = []
    for mode in ("", "auto"):
        conf = json.loads(message_to_json(tc))
        conf["model_config"]["recompute"] = mode
        trainer = api.Trainer.create(json.dumps(conf), False, 1, 7)
        trainer.startTrainPass(0)
        for b in batches:
            trainer.trainOneDataBatch(6, make_args([b[n] for n in names]))
        gm = trainer.getGradientMachine()
        results.append({p.getName(): p.getBuf(api.PARAMETER_VALUE).copyToNumpyArray() for p in gm.getParameters()})
        results[-1]["cost"] = np.array([trainer.getPassCost()])
    assert_bitwise_equal([results[0]], [results[1]])


def stacked_lstm(tmp_path, depth, mode):
    settings = "settings(batch_size=8%s)" % (", recompute=%r" % mode if mode else "")
    return parse(tmp_path, """
        h = data_layer(name='x', size=32)
        for i in range(%d):
            h = simple_lstm(input=h, size=32, name='lstm%%d' %% i)
        out = fc_layer(input=last_seq(input=h), size=4, act=SoftmaxActivation())
        outputs(classification_cost(input=out, label=data_layer(name='y', size=4)))
        """ % depth, settings=settings)


def peak_training_bytes(tc, slots):
    """The engine's buffers at their peak over two training steps, above what the machine held
    before them (its parameters and their gradients)."""
    gm = build(json.loads(message_to_json(tc.model_config)))
    out = api.Arguments.createArguments(0)
    alive, _ = api.getBufferMemoryStats(True)
    for _ in range(2):
        gm.forwardBackward(make_args(slots), out, api.PASS_TRAIN)
    return api.getBufferMemoryStats()[1] - alive, gm


def test_memory_of_a_20_layer_stacked_lstm_drops_by_40_percent(tmp_path):
    rng = np.random.RandomState(5)
    starts = list(range(0, 8 * 50 + 1, 50))
    slots = [Seq(rng.randn(8 * 50, 32).astype(np.float32), starts), rng.randint(0, 4, 8).astype(np.int32)]
    stored, _ = peak_training_bytes(stacked_lstm(tmp_path, 20, None), slots)
    recomputed, gm = peak_training_bytes(stacked_lstm(tmp_path, 20, "auto"), slots)
    # about sqrt(40) segments, cut at the LSTMs' outputs (narrower than their 4x input projections)
    checkpoints = gm.getRecomputeCheckpoints()
    assert 4 <= len(checkpoints) <= 9 and all(c.startswith("lstm") for c in checkpoints), checkpoints
    assert recomputed <= 0.6 * stored, (recomputed, stored)


def test_settings_extraattr_and_flag_reach_the_model_config(tmp_path):
    body = """
        x = data_layer(name='x', size=4)
        a = fc_layer(input=x, size=4, name='a', layer_attr=ExtraAttr(recompute_checkpoint=%s))
        b = fc_layer(input=a, size=4, name='b')
        outputs(fc_layer(input=b, size=2, name='c'))
        """
    marked = parse(tmp_path, body % True)
    assert marked.model_config.recompute == "marked"
    assert [l.name for l in marked.model_config.layers if l.recompute_checkpoint] == ["a"]
    assert parse(tmp_path, body % True, "settings(batch_size=4, recompute=False)").model_config.recompute == ""
    assert parse(tmp_path, body % False).model_config.recompute == ""
    listed = parse(tmp_path, body % False, "settings(batch_size=4, recompute=['b'])").model_config
    assert listed.recompute == "marked" and [l.name for l in listed.layers if l.recompute_checkpoint] == ["b"]
    assert build(json.loads(message_to_json(listed))).getRecomputeCheckpoints() == ("b", )

    from paddle.trainer import cli
    parser = cli._train_parser()
    if parser is not None:
        assert parser.parse_args(["--config", "x.py", "--recompute", "auto"]).recompute == "auto"


def test_yaml_settings_and_layer_attr(tmp_path):
    conf = tmp_path / "net.yaml"
    conf.write_text(textwrap.dedent("""
        settings: {batch_size: 4, recompute: [b]}
        layers:
          - {type: data_layer, name: x, size: 4}
          - {type: fc_layer, name: a, input: x, size: 4, layer_attr: {recompute_checkpoint: true}}
          - {type: fc_layer, name: b, input: a, size: 4}
          - {type: fc_layer, name: c, input: b, size: 2}
        outputs: [c]
        """))
    model = parse_config(str(conf), "").model_config
    assert model.recompute == "marked"
    assert build(json.loads(message_to_json(model))).getRecomputeCheckpoints() == ("a", "b")


@pytest.mark.parametrize("value,message", [
    ("['nope']", "'nope' is not a layer name"),
    ("['step_fc@g']", "'step_fc@g' is a layer inside a recurrent group"),
    ("'sometimes'", "recompute must be"),
    ("[]", "recompute must be"),
])
def test_bad_checkpoints_in_settings(tmp_path, value, message):
    body = """
        x = data_layer(name='x', size=4)
        def step(y):
            return fc_layer(input=y, size=4, name='step_fc')
        g = recurrent_group(step=step, input=x, name='g')
        outputs(fc_layer(input=last_seq(input=g), size=2))
        """
    with pytest.raises(ParseError, match=message):
        parse(tmp_path, body, "settings(batch_size=4, recompute=%s)" % value)


def test_bad_checkpoints_in_the_engine(tmp_path):
    tc = parse(tmp_path, """
        x = data_layer(name='x', size=4)
        def step(y):
            return fc_layer(input=y, size=4, name='step_fc')
        g = recurrent_group(step=step, input=x, name='g')
        outputs(fc_layer(input=last_seq(input=g), size=2, name='top'))
        """)
    model = model_json(tc, "marked")
    with pytest.raises(ValueError, match="no layer is a checkpoint"):
        build(model)
    for layer in model["layers"]:
        if layer["name"] == "step_fc@g":
            layer["recompute_checkpoint"] = True
    with pytest.raises(ValueError, match="'step_fc@g' is a layer inside a recurrent group"):
        build(model)
    with pytest.raises(ValueError, match="recompute must be 'auto', 'marked'"):
        build(model_json(tc, "sometimes"))
