"""paddle.trainer.input_inference: the input type of every data layer, read from the layers
that consume it; the `synthetic` reader uses it when a config names no input_types."""
import glob
import os

import pytest

from paddle.trainer.config_parser import parse_config
from paddle.trainer.data_provider import DataProvider
from paddle.trainer.input_inference import infer_input_types
from paddle.trainer.PyDataProvider2 import deserialize_args

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CONFIGS = sorted(glob.glob(os.path.join(ROOT, "configs", "*.py")) + glob.glob(os.path.join(ROOT, "configs", "*.yaml")))


def _dense(spec):
    """Sparse input is fed to the same layers as dense input: the two cannot be told apart."""
    name, dim = spec
    return [name.replace("sparse_binary_vector", "dense_vector").replace("sparse_vector", "dense_vector"), dim]


@pytest.mark.parametrize("config", CONFIGS, ids=os.path.basename)
def test_inferred_types_are_the_ones_each_config_declares(config):
    tc = parse_config(config, "")
    declared = deserialize_args(tc.data_config.load_data_args)["input_types"]
    inferred = infer_input_types(tc.model_config)
    assert list(inferred) == list(tc.model_config.input_layer_names)
    assert inferred == {name: _dense(list(spec)) for name, spec in declared.items()}


def _config(tmp_path, body):
    path = tmp_path / "conf.py"
    path.write_text("from paddle.trainer_config_helpers import *\nsettings(batch_size=4)\n" + body)
    return parse_config(str(path), "").model_config


def test_labels_sequences_and_nested_groups(tmp_path):
    model = _config(tmp_path, """
feats = data_layer(name='feats', size=6)
words = data_layer(name='words', size=20)
tags = data_layer(name='tags', size=3)
paras = data_layer(name='paras', size=20)
cls = data_layer(name='cls', size=5)
lstm = simple_lstm(input=embedding_layer(input=words, size=4), size=4)
out = fc_layer(input=[lstm, feats], size=3, act=SoftmaxActivation())
cost = classification_cost(input=out, label=tags)
def outer_step(sentence):
    def inner_step(word):
        return fc_layer(input=word, size=4)
    inner = recurrent_group(step=inner_step, input=embedding_layer(input=sentence, size=4))
    return last_seq(input=inner)
sentences = recurrent_group(step=outer_step, input=SubsequenceInput(paras))
h = hsigmoid(input=last_seq(input=sentences), label=cls, num_classes=5)
outputs(cost, h)
""")
    assert infer_input_types(model) == {
        "feats": ["dense_vector_sequence", 6],     # paired row by row with the word sequence
        "words": ["integer_value_sequence", 20],   # embedded, then an LSTM
        "tags": ["integer_value_sequence", 3],     # the label of a per-token cost
        "paras": ["integer_value_sub_sequence", 20],  # a nested in-link, embedded in the step
        "cls": ["integer_value", 5],               # hsigmoid's label
    }


def test_synthetic_reader_without_input_types_follows_the_model(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "train.list").write_text("5\n")
    tc = parse_config(os.path.join(ROOT, "configs", "crf_tagger.py"), "")
    tc.data_config.load_data_args = ""  # no args: the types come from the model
    tc.data_config.files = "train.list"
    with DataProvider.from_trainer_config(tc, for_test=False, shuffle=False) as dp:
        (batch,) = list(dp.batches())
    word, pos, chunk = batch.slots
    assert batch.num_samples == 5 and word.ids.max() < 5000 and chunk.ids.max() < 7
    assert word.seq_starts.tolist() == chunk.seq_starts.tolist()
