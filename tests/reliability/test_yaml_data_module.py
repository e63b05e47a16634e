"""A YAML config is data, but its `data: module:` is imported and run: a module that
resolves outside the config's folder (and is not one of paddle's own readers) is refused
at parse time with FILE:LINE, unless PADDLE_YAML_ANY_MODULE=1 allows it."""
import os
import textwrap

import pytest

from paddle.trainer.config_parser import ConfigError, parse_config

YAML = textwrap.dedent("""\
    settings: {batch_size: 4, learning_rate: 0.01}
    data: {train_list: train.list, test_list: null, module: %s, obj: %s}
    layers:
      - {type: data_layer, name: x, size: 4}
      - {type: fc_layer, name: out, input: x, size: 2, act: softmax}
    outputs: [out]
""")


def write(tmp_path, module, obj="process"):
    path = tmp_path / "conf.yaml"
    path.write_text(YAML % (module, obj))
    return str(path)


@pytest.mark.parametrize("module", ["os", "subprocess", "json.decoder"])
def test_a_module_from_outside_the_config_folder_is_refused(tmp_path, module):
    with pytest.raises(ConfigError) as e:
        parse_config(write(tmp_path, module, "system"), "")
    text = str(e.value)
    assert text.startswith(str(tmp_path / "conf.yaml") + ":2: "), text
    assert "outside the config's folder" in text and "PADDLE_YAML_ANY_MODULE=1" in text


def test_a_provider_beside_the_config_and_paddles_readers_are_accepted(tmp_path):
    (tmp_path / "my_provider.py").write_text("def process(settings, filename):\n    yield [0.0] * 4\n")
    parse_config(write(tmp_path, "my_provider"), "")
    parse_config(write(tmp_path, "paddle.trainer.readers", "synthetic"), "")
    parse_config(write(tmp_path, "not_written_yet"), "")  # not found: the error comes when training


def test_the_environment_allows_any_module(tmp_path, monkeypatch):
    monkeypatch.setenv("PADDLE_YAML_ANY_MODULE", "1")
    parse_config(write(tmp_path, "os", "system"), "")
