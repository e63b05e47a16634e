"""Errors that used to be unclear: each names the file and line, or the provider's file
list entry and sample, and says what is wrong."""
import os
import re
import sys
import time

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests", "cli"))

from test_cli import paddle  # noqa: E402

from paddle.parser import ConfigError  # noqa: E402
from paddle.trainer.PyDataProvider2 import DataError, integer_value, sparse_binary_vector, sparse_vector  # noqa: E402
from paddle.trainer.batch_conversion import convert_samples  # noqa: E402
from paddle.yaml_config.loader import load_string  # noqa: E402


# ---------------------------------------------------------------- YAML
@pytest.mark.parametrize("text,line", [
    ("".join("  " * i + "a:\n" for i in range(400)) + "  " * 400 + "1\n", 101),
    ("x: " + "[" * 600 + "]" * 600 + "\n", 1),
    ("x:\n" + "".join("  " * i + "- \n" for i in range(1, 300)) + "  " * 300 + "- 1\n", 102),
])
def test_deep_yaml_is_an_error_with_its_line(text, line):
    with pytest.raises(ConfigError) as e:
        load_string(text, "deep.yaml")
    assert str(e.value).startswith("deep.yaml:%d: " % line) and "nest" in str(e.value), str(e.value)


def test_a_large_plain_yaml_file_loads_and_aliases_alone_count():
    text = "a:\n" + "".join("  k%d: %d\n" % (i, i) for i in range(200001))
    start = time.time()
    assert len(load_string(text, "big.yaml")["a"]) == 200001
    assert time.time() - start < 30
    bomb = 'a: &a ["x","x","x","x","x","x","x","x","x"]\n' + "".join(
        "%s: &%s [%s]\n" % (n, n, ",".join(["*" + p] * 9)) for p, n in zip("abcdef", "bcdefg"))
    with pytest.raises(ConfigError, match=r"bomb\.yaml:\d+: YAML aliases expand to more than"):
        load_string(bomb, "bomb.yaml")
    merged = load_string("base: &b {x: 1, y: 2}\nd:\n  <<: *b\n  y: 3\nl: [*b, *b]\n", "m.yaml")
    assert merged["d"] == {"x": 1, "y": 3} and merged["l"] == [{"x": 1, "y": 2}] * 2


# ---------------------------------------------------------------- sample values
def test_true_is_not_an_integer_value():
    with pytest.raises(DataError, match=r"sample 2.*expected an integer in \[0, 5\), got bool True"):
        convert_samples([integer_value(5)], [[1], [0], [True], [3]])
    with pytest.raises(DataError, match="sample 1.*sparse id must be an integer, got bool"):
        convert_samples([sparse_binary_vector(5)], [[[1, 2]], [[0, True]]])
    with pytest.raises(DataError, match="sample 0.*sparse id must be an integer, got bool"):
        convert_samples([sparse_vector(5)], [[[(False, 0.5), (2, 1.0)]]])


def test_duplicate_sparse_ids_are_refused_with_the_sample():
    with pytest.raises(DataError, match="sample 1.*sparse ids are not unique: id 3 appears twice"):
        convert_samples([sparse_binary_vector(5)], [[[1, 3]], [[3, 0, 3]], [[2]]])
    with pytest.raises(DataError, match="sample 0.*sparse ids are not unique: id 4 appears twice"):
        convert_samples([sparse_vector(5)], [[[(4, 0.5), (1, 1.0), (4, 2.0)]]])
    slots = convert_samples([sparse_binary_vector(5)], [[[1, 3]], [[3, 1]], [[]]])  # the same id in two samples
    assert slots[0].sparse_cols.tolist() == [1, 3, 3, 1]


# ---------------------------------------------------------------- providers
CONFIG = """
from paddle.trainer_config_helpers import *
define_py_data_sources2(train_list='train.list', test_list=None, module='provider', obj='process')
settings(batch_size=4, learning_rate=0.01)
out = fc_layer(input=data_layer(name='x', size=4), size=2, act=SoftmaxActivation())
outputs(classification_cost(input=out, label=data_layer(name='y', size=2)))
"""
PROVIDER = """
import sys
from paddle.trainer.PyDataProvider2 import *

@provider(input_types=[dense_vector(4), integer_value(10)], should_shuffle=False)
def process(settings, filename):
    for i in range(12):
        if EXIT and filename == 'b' and i == 3:
            sys.exit(3)
        yield [0.5, -0.5, 1.0, float(i % 3)], (7 if (filename == 'b' and i == 5) else i % 2)
"""


def job(tmp_path, exit_):
    (tmp_path / "provider.py").write_text(PROVIDER.replace("EXIT", str(exit_)))
    (tmp_path / "conf.py").write_text(CONFIG)
    (tmp_path / "train.list").write_text("a\nb\n")
    return paddle(["train", "--config=conf.py", "--save_dir=out", "--num_passes=1", "--dot_period=0"],
                  str(tmp_path))


def test_a_provider_calling_sys_exit_is_named(tmp_path):
    code, _, err = job(tmp_path, True)
    assert code == 1 and "Traceback" not in err, err
    assert re.search(r"provider\.py:process, file list entry 1 'b', sample 3.*the provider called sys\.exit\(3\) at "
                     r"\S*provider\.py:9", err), err


def test_engine_errors_naming_a_batch_position_are_mapped_to_the_providers_sample(tmp_path, monkeypatch):
    from paddle.trainer.config_parser import parse_config
    from paddle.trainer.data_provider import DataProvider
    (tmp_path / "provider.py").write_text(PROVIDER.replace("EXIT", "False"))
    (tmp_path / "conf.py").write_text(CONFIG)
    (tmp_path / "train.list").write_text("a\nb\n")
    monkeypatch.chdir(tmp_path)
    with DataProvider.from_trainer_config(parse_config("conf.py", "")) as dp:
        batch = [b for b in dp.batches() if (1, 5) in b.origins][0]
        pos = batch.origins.index((1, 5))
        e = dp.batch_error(batch, "layer '__cost_0__': sample %d has label 7, outside [0, 2)" % pos)
        assert re.search(r"provider\.py:process, file list entry 1 'b', sample 5\b.*sample %d has label 7" % pos,
                         str(e)), str(e)
        e = dp.batch_error(batch, "layer 'crf': sequence %d token 0 has label 7, outside [0, 2)" % pos)
        assert "file list entry 1 'b', sample 5" in str(e)
        assert dp.batch_error(batch, "something else went wrong") is None


def test_a_label_out_of_range_is_named_by_the_providers_sample(tmp_path):
    code, _, err = job(tmp_path, False)
    assert code == 1 and "Traceback" not in err, err
    assert re.search(r"provider\.py:process, file list entry 1 'b', sample 5\b.*sample \d+ has label 7, outside "
                     r"\[0, 2\)", err), err
