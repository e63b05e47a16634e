"""v1 configs that used to fail here: each written the way v1's documentation and demos do."""
import textwrap

import pytest

from paddle.trainer.config_parser import ConfigError, parse_config


def test_data_layer_takes_its_name_by_position(tmp_path):
    conf = tmp_path / "conf.py"
    conf.write_text(textwrap.dedent("""\
        from paddle.trainer_config_helpers import *
        settings(batch_size=10)
        word = data_layer("word", 10)
        label = data_layer("label", 1)
        out = fc_layer(word, 3, act=SoftmaxActivation())
        outputs(classification_cost(out, label))
        """))
    layers = {l.name: l for l in parse_config(str(conf)).model_config.layers}
    assert layers["word"].type == "data" and layers["word"].size == 10
    assert layers["label"].size == 1


def test_star_import_exports_the_separate_parsers():
    namespace = {}
    exec("from paddle.trainer_config_helpers import *", namespace)
    for name in ("parse_network_config", "parse_optimizer_config", "parse_trainer_config"):
        assert callable(namespace[name]), name

    def network():
        x = namespace["data_layer"](name="x", size=4)
        namespace["outputs"](namespace["fc_layer"](x, size=2))

    def optimizer():
        namespace["settings"](batch_size=7, learning_rate=0.5)

    assert [l.name for l in namespace["parse_network_config"](network).layers][0] == "x"
    opt = namespace["parse_optimizer_config"](optimizer)
    assert opt.batch_size == 7 and opt.learning_rate == 0.5


def test_raw_config_names_inputs_and_outputs_before_defining_them(tmp_path):
    conf = tmp_path / "raw.py"
    conf.write_text(textwrap.dedent("""\
        from paddle.trainer.config_parser import *
        Settings(batch_size=10, learning_rate=0.1)
        Inputs("x", "label")
        Outputs("cost")
        Layer(name="x", type="data", size=4)
        Layer(name="label", type="data", size=2)
        Layer(name="out", type="fc", size=2, active_type="softmax",
              inputs=[Input("x", parameter_name="w")])
        Layer(name="cost", type="multi-class-cross-entropy", inputs=["out", "label"])
        """))
    mc = parse_config(str(conf)).model_config
    assert list(mc.input_layer_names) == ["x", "label"] and list(mc.output_layer_names) == ["cost"]


def test_a_name_never_defined_points_at_the_line_that_named_it(tmp_path):
    conf = tmp_path / "raw.py"
    conf.write_text(textwrap.dedent("""\
        from paddle.trainer.config_parser import *
        Settings(batch_size=10)
        Inputs("x")
        Outputs("nope")
        Layer(name="x", type="data", size=4)
        """))
    with pytest.raises(ConfigError) as info:
        parse_config(str(conf))
    assert str(info.value).startswith("%s:4: output 'nope' is not a layer name" % conf)


def test_naive_gru_builds_the_mixed_layer_step(tmp_path):
    conf = tmp_path / "gru.py"
    conf.write_text(textwrap.dedent("""\
        from paddle.trainer_config_helpers import *
        settings(batch_size=10)
        words = data_layer(name="words", size=20)
        emb = embedding_layer(words, size=6)
        g = simple_gru(emb, size=4, naive=True, gru_layer_attr=ExtraAttr(error_clipping_threshold=5.0))
        outputs(last_seq(g))
        """))
    layers = {l.name: l for l in parse_config(str(conf)).model_config.layers}
    assert not any(l.type == "gru_step" for l in layers.values())  # naive: no fused step layer
    gates = [l for n, l in layers.items() if n.startswith(("__simple_gru_0___update", "__simple_gru_0___reset@"))]
    assert len(gates) == 2 and all(g.type == "mixed" and g.error_clipping_threshold == 5.0 for g in gates)


def test_context_projection_pads_with_a_trainable_parameter_by_default(tmp_path):
    """v1's default (padding_attr omitted or True): a zero-initialised trainable padding of
    [begin + end pad rows, input size]; padding_attr=False: zeros, no parameter."""
    conf = tmp_path / "ctx.py"
    conf.write_text(textwrap.dedent("""\
        from paddle.trainer_config_helpers import *
        settings(batch_size=10)
        a = data_layer(name="a", size=5)
        m = mixed_layer(input=context_projection(input=a, context_len=3), size=15)
        z = mixed_layer(input=context_projection(input=a, context_len=3, padding_attr=False), size=15)
        outputs(m, z)
        """))
    mc = parse_config(str(conf)).model_config
    layers = {l.name: l for l in mc.layers}
    params = {p.name: p for p in mc.parameters}
    padded = layers["__mixed_0__"].inputs[0]
    assert padded.proj_conf.trainable_padding and padded.input_parameter_name in params
    p = params[padded.input_parameter_name]
    assert list(p.dims) == [2, 5] and p.initial_std == 0 and p.initial_mean == 0
    plain = layers["__mixed_1__"].inputs[0]
    assert not plain.proj_conf.trainable_padding and not plain.input_parameter_name


def test_v1_module_globals_read_the_current_parse(tmp_path):
    """Raw configs and old tools read config_parser.settings / g_config / g_layer_map."""
    import paddle.trainer.config_parser as cp
    conf = tmp_path / "c.py"
    conf.write_text("from paddle.trainer_config_helpers import *\nsettings(batch_size=7)\n"
                    "outputs(data_layer(name='x', size=2))\n")
    parse_config(str(conf))
    assert isinstance(cp.settings, dict) and cp.settings["batch_size"] == 7
    assert "x" in cp.g_layer_map and cp.g_config.opt_config.batch_size == 7
    namespace = {}
    exec("from paddle.trainer.config_parser import *", namespace)
    assert namespace["settings"] is cp.settings


def test_the_separate_parsers_point_yaml_configs_to_the_front_end(tmp_path):
    from paddle.trainer_config_helpers import parse_trainer_config
    conf = tmp_path / "c.yaml"
    conf.write_text("settings: {batch_size: 4}\n")
    with pytest.raises(ConfigError, match="YAML config is read by paddle.trainer.config_parser.parse_config"):
        parse_trainer_config(str(conf))


def test_star_import_gives_a_raw_config_v1_names_not_the_parser_internals():
    """The facade re-exports v1's names; the modules of paddle.parser and its state object
    are implementation, and a raw config that defined e.g. `data` or `image` keeps its own."""
    import types
    namespace = {}
    exec("from paddle.trainer.config_parser import *", namespace)
    internal = sorted(n for n, v in namespace.items() if isinstance(v, types.ModuleType)
                      and v.__name__.startswith("paddle."))
    assert internal == []
    assert not {"ParseState", "state", "python2_hint", "upgrade_source"} & set(namespace)
    assert {"Layer", "Input", "Settings", "g_config", "g_layer_map", "parse_config", "os"} <= set(namespace)


def test_validation_layers_are_written_as_v1_wrote_them(tmp_path):
    conf = tmp_path / "conf.py"
    conf.write_text(textwrap.dedent("""\
        from paddle.trainer_config_helpers import *
        from paddle.trainer.config_parser import Layer
        settings(batch_size=10)
        x = data_layer(name="x", size=4)
        y = data_layer(name="y", size=2)
        q = data_layer(name="q", size=3)
        prob = fc_layer(input=x, size=2, act=SoftmaxActivation())
        Layer(name="auc", type="auc-validation", inputs=[prob.name, "y"])
        Layer(name="pn", type="pnpair-validation", inputs=[prob.name, "y", "q"])
        outputs(classification_cost(input=prob, label=y))
        """))
    mc = parse_config(str(conf)).model_config
    layers = {l.name: l for l in mc.layers}
    for name, type_, inputs in [("auc", "auc-validation", ["__fc_layer_0__", "y"]),
                                ("pn", "pnpair-validation", ["__fc_layer_0__", "y", "q"])]:
        layer = layers[name]
        assert (layer.type, layer.size, layer.active_type) == (type_, 1, "")
        assert [i.input_layer_name for i in layer.inputs] == inputs
        assert not any(i.input_parameter_name for i in layer.inputs)
        assert name in [n for sm in mc.sub_models if sm.name == "root" for n in sm.layer_names]
    assert list(mc.output_layer_names) == ["__cost_0__"]


def test_recurrent_group_agents_get_no_image_size_as_in_v0_10(tmp_path):
    # v0.10 made the in-link agents from name and size only; copying the in-link's
    # height/width came later (and the group stops the size inheritance anyway)
    conf = tmp_path / "conf.py"
    conf.write_text(textwrap.dedent("""\
        from paddle.trainer_config_helpers import *
        settings(batch_size=10)
        img = data_layer(name="img", size=12, height=3, width=4)
        def step(x):
            return fc_layer(input=x, size=12, name="step_fc")
        outputs(recurrent_group(step=step, input=img, name="rnn"))
        """))
    layers = {l.name: l for l in parse_config(str(conf)).model_config.layers}
    assert (layers["img"].height, layers["img"].width) == (3, 4)
    agent = layers["img@rnn"]
    assert agent.type == "scatter_agent" and agent.size == 12
    assert not agent.HasField("height") and not agent.HasField("width")
