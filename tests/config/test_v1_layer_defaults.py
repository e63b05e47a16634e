"""v1 (v0.10) configs, written as v1 users wrote them: the LayerConfig fields v1's parser
filled in by default (sequence layers' 'linear' activation, the image height/width a layer
inherits from its first input) and the size checks v1 did not make at parse time."""
import textwrap

import numpy as np
import pytest

from paddle.parser import state
from paddle.trainer.config_parser import ConfigError, parse_config


def _parse(tmp_path, body, name="conf.py"):
    conf = tmp_path / name
    conf.write_text("from paddle.trainer_config_helpers import *\nsettings(batch_size=4)\n" +
                    textwrap.dedent(body))
    return parse_config(str(conf)), str(conf)


SEQ_CONF = """\
words = data_layer(name="words", size=6)
pooled_max = pooling_layer(input=words, name="pmax")
pooled_avg = pooling_layer(input=words, pooling_type=AvgPooling(), name="pavg")
pooled_sum = pooling_layer(input=words, pooling_type=SumPooling(), name="psum")
first = first_seq(input=words, name="first")
last = last_seq(input=words, name="last")
reshaped = seq_reshape_layer(input=words, reshape_size=3, name="rs")
tanh_rs = seq_reshape_layer(input=words, reshape_size=2, act=TanhActivation(), name="rs_tanh")
both = seq_concat_layer(a=words, b=words, name="cat")
outputs(pooled_max, pooled_avg, pooled_sum, first, last, reshaped, tanh_rs, both)
"""


def test_sequence_layers_write_linear_as_v1_did(tmp_path):
    layers = {l.name: l for l in _parse(tmp_path, SEQ_CONF)[0].model_config.layers}
    for name in ("pmax", "pavg", "psum", "first", "last", "rs"):
        assert layers[name].HasField("active_type") and layers[name].active_type == "linear", name
    assert layers["rs_tanh"].active_type == "tanh"  # v1 dropped this act (docs/v1_differences.md)
    assert layers["cat"].active_type == ""  # seq_concat_layer passed its act (identity = '')


def test_raw_sequence_layers_default_to_linear_and_keep_a_given_act(tmp_path):
    conf = tmp_path / "raw.py"
    conf.write_text(textwrap.dedent("""\
        from paddle.trainer.config_parser import *
        Settings(batch_size=4)
        Inputs("x")
        Layer(name="x", type="data", size=4)
        Layer(name="m", type="max", inputs=["x"])
        Layer(name="a", type="average", inputs=["x"], active_type="tanh")
        Layer(name="l", type="seqlastins", inputs=["x"])
        Outputs("m", "a", "l")
        """))
    layers = {l.name: l for l in parse_config(str(conf)).model_config.layers}
    assert [layers[n].active_type for n in "mal"] == ["linear", "tanh", "linear"]


def test_the_engine_runs_linear_sequence_layers_as_the_identity(tmp_path):
    api = pytest.importorskip("py_paddle.swig_paddle")
    from py_paddle import DataProviderConverter
    from paddle.trainer.PyDataProvider2 import dense_vector_sequence
    conf, _ = _parse(tmp_path, SEQ_CONF)
    api.initPaddle("--use_gpu=0")
    gm = api.GradientMachine.createFromConfigProto(conf.model_config)
    rng = np.random.RandomState(3)
    seqs = [rng.randn(n, 6).astype("float32") for n in (3, 1, 4)]
    res = gm.forwardTest(DataProviderConverter([dense_vector_sequence(6)])([[s.tolist()] for s in seqs]))
    values = [r["value"] for r in res]  # in outputs(...) order
    np.testing.assert_allclose(values[0], [s.max(0) for s in seqs], rtol=1e-6)
    np.testing.assert_allclose(values[1], [s.mean(0) for s in seqs], rtol=1e-5)
    np.testing.assert_allclose(values[2], [s.sum(0) for s in seqs], rtol=1e-5)
    np.testing.assert_allclose(values[3], [s[0] for s in seqs], rtol=1e-6)
    np.testing.assert_allclose(values[4], [s[-1] for s in seqs], rtol=1e-6)
    np.testing.assert_allclose(values[5], np.concatenate(seqs).reshape(-1, 3), rtol=1e-6)
    np.testing.assert_allclose(values[6], np.tanh(np.concatenate(seqs).reshape(-1, 2)), rtol=1e-5)


IMAGE_CONF = """\
img = data_layer(name="img", size=2 * 4 * 8, height=4, width=8)
summed = addto_layer(input=[img, img], name="sum")      # inherits 4 x 8
hidden = fc_layer(input=img, size=64, name="fc")       # fc never inherits
blocks = block_expand_layer(input=img, num_channels=2, block_x=2, block_y=2,
                            stride_x=2, stride_y=2, name="blocks")
conv = img_conv_layer(input=summed, num_channels=2, filter_size=3, padding=1,
                      num_filters=3, act=LinearActivation(), name="conv")
outputs(conv, hidden, blocks)
"""


def test_layers_inherit_the_image_size_of_their_first_input_as_in_v1(tmp_path):
    layers = {l.name: l for l in _parse(tmp_path, IMAGE_CONF)[0].model_config.layers}
    assert (layers["sum"].height, layers["sum"].width) == (4, 8)
    assert (layers["blocks"].height, layers["blocks"].width) == (4, 8)  # v1 copied the input's
    assert not layers["fc"].HasField("height") and not layers["fc"].HasField("width")
    # the conv after addto reads the 4 x 8 geometry (without it: a square guess, 5 x 6)
    cc = layers["conv"].inputs[0].conv_conf
    assert (cc.img_size, cc.img_size_y, cc.output_x, cc.output_y) == (8, 4, 8, 4)
    assert layers["conv"].size == 3 * 4 * 8


def test_no_image_size_is_inherited_after_a_recurrent_group(tmp_path):
    conf, _ = _parse(tmp_path, """\
        img = data_layer(name="img", size=16, height=4, width=4)
        before = addto_layer(input=img, name="before")
        def step(x):
            return fc_layer(input=x, size=16, name="step_fc")
        rnn = recurrent_group(step=step, input=img, name="rnn")
        after = addto_layer(input=img, name="after")
        outputs(before, rnn, after)
        """)
    layers = {l.name: l for l in conf.model_config.layers}
    assert (layers["before"].height, layers["before"].width) == (4, 4)
    assert not layers["after"].HasField("height")


@pytest.mark.parametrize("body,line,layer,text", [
    ("""\
     x = data_layer(name="x", size=10)
     y = data_layer(name="y", size=3)
     outputs(regression_cost(input=x, label=y))
     """, 5, "__regression_cost_0__|__mse_cost_0__", "input 'x' has size 10 but label 'y' has size 3"),
    ("""\
     feats = data_layer(name="list_feature", size=100)
     scores = data_layer(name="list_scores", size=1)
     outputs(lambda_cost(input=feats, score=scores))
     """, 5, "__lambda_cost_0__", "input 'list_feature' has size 100"),
    ("""\
     a = data_layer(name="a", size=5)
     b = data_layer(name="b", size=4)
     outputs(addto_layer(input=[a, b]))
     """, 5, "__addto_0__", "input 'b' has size 4 but input 'a' has size 5"),
])
def test_size_mismatches_v1_parsed_are_warnings_naming_the_line_and_layer(tmp_path, body, line, layer, text):
    import re
    conf, path = _parse(tmp_path, body)
    assert conf.model_config.layers  # parsed, as in v1
    (warning, ) = state.config_warnings
    assert warning.startswith("%s:%d: layer '" % (path, line)), warning
    assert re.search("layer '(%s)'" % layer, warning) and text in warning, warning


def test_a_size_mismatch_still_stops_the_engine(tmp_path):
    api = pytest.importorskip("py_paddle.swig_paddle")
    conf, _ = _parse(tmp_path, """\
        x = data_layer(name="x", size=10)
        y = data_layer(name="y", size=3)
        outputs(mse_cost(input=x, label=y))
        """)
    api.initPaddle("--use_gpu=0")
    with pytest.raises(ValueError, match="size"):
        api.GradientMachine.createFromConfigProto(conf.model_config)


def test_v1_parse_time_checks_still_fail(tmp_path):
    """Checks v1 made at parse time stay errors: lambda_cost's score must have size 1."""
    with pytest.raises(ConfigError, match="score must have size 1"):
        _parse(tmp_path, """\
            feats = data_layer(name="f", size=1)
            scores = data_layer(name="s", size=2)
            outputs(lambda_cost(input=feats, score=scores))
            """)
