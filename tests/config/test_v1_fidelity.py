"""v1 configs that used to fail here: each written the way v1's documentation and demos do."""
import textwrap

from paddle.trainer.config_parser import parse_config


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
