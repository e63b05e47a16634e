"""Text classification end to end through `paddle train` on a generated corpus:
bag-of-words logistic regression on a sparse_binary_vector slot (v1's quick_start
LR), and embedding -> average pooling over time -> fc softmax on an
integer_value_sequence slot; both with --trainer_count 1 and 2 (batches split by
samples / sequences)."""
import os
import re
import textwrap

import numpy as np
import pytest

from test_cli import paddle

VOCAB = 300

PROVIDER = '''
from paddle.trainer.PyDataProvider2 import *


def on_init(settings, kind, dict_size, **kwargs):
    settings.kind = kind
    word = sparse_binary_vector(dict_size) if kind == 'bow' else integer_value_sequence(dict_size)
    settings.input_types = {'word': word, 'label': integer_value(2)}


@provider(init_hook=on_init, cache=CacheType.CACHE_PASS_IN_MEM)
def process(settings, filename):
    with open(filename) as f:
        for line in f:
            label, text = line.rstrip('\\n').split('\\t')
            ids = [int(w) for w in text.split()]
            yield {'word': sorted(set(ids)) if settings.kind == 'bow' else ids, 'label': int(label)}
'''

CONFIG = '''
from paddle.trainer_config_helpers import *

kind = get_config_arg('kind', str, 'bow')
define_py_data_sources2(train_list='train.list', test_list='test.list', module='provider', obj='process',
                        args={'kind': kind, 'dict_size': %d})
settings(batch_size=32, learning_rate=2e-2, learning_method=AdamOptimizer())

word = data_layer(name='word', size=%d)
if kind == 'bow':
    predict = fc_layer(input=word, size=2, act=SoftmaxActivation())
else:
    emb = embedding_layer(input=word, size=16)
    avg = pooling_layer(input=emb, pooling_type=AvgPooling())
    predict = fc_layer(input=avg, size=2, act=SoftmaxActivation())
label = data_layer(name='label', size=2)
outputs(classification_cost(input=predict, label=label))
''' % (VOCAB, VOCAB)


def write_corpus(path, n, rng):
    """Class 0 and 1 each favour their own 20 words; the rest is shared noise.
    Lengths 1..25 (so single-word documents occur)."""
    cue = {0: np.arange(0, 20), 1: np.arange(20, 40)}
    with open(path, "w") as f:
        for _ in range(n):
            y = rng.randint(2)
            length = rng.randint(1, 26)
            words = [rng.choice(cue[y]) if rng.rand() < 0.3 else rng.randint(40, VOCAB) for _ in range(length)]
            if length == 1:
                words = [rng.choice(cue[y])]
            f.write("%d\t%s\n" % (y, " ".join(str(w) for w in words)))


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    d = tmp_path_factory.mktemp("textcls")
    rng = np.random.RandomState(0)
    write_corpus(str(d / "train.txt"), 1200, rng)
    write_corpus(str(d / "test.txt"), 300, rng)
    (d / "train.list").write_text("train.txt\n")
    (d / "test.list").write_text("test.txt\n")
    (d / "provider.py").write_text(textwrap.dedent(PROVIDER))
    (d / "conf.py").write_text(textwrap.dedent(CONFIG))
    return str(d)


TEST_LINE = re.compile(r"\]  Test samples=(\d+) cost=(\S+) Eval: classification_error_evaluator=(\S+)$", re.M)


@pytest.mark.parametrize("kind", ["bow", "seq"])
@pytest.mark.parametrize("trainer_count", [1, 2])
def test_text_classifier_trains(corpus, kind, trainer_count, tmp_path):
    code, _, err = paddle(["train", "--config=conf.py", "--config_args=kind=" + kind,
                           "--save_dir=" + str(tmp_path / "out"), "--num_passes=4", "--log_period=100",
                           "--seed=1", "--trainer_count=%d" % trainer_count], corpus)
    assert code == 0, err[-3000:]
    tests = TEST_LINE.findall(err)
    assert len(tests) == 4 and all(int(t[0]) == 300 for t in tests), err[-2000:]
    assert float(tests[-1][1]) < 0.3, tests  # chance: ln 2 = 0.69
    assert float(tests[-1][2]) <= 0.1, tests  # chance is 0.5
    saved = os.listdir(str(tmp_path / "out" / "pass-00003"))
    assert ("___fc_layer_0__.w0" in saved) if kind == "bow" else ("___embedding_0__.w0" in saved)
