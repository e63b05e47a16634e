"""Generated "word order" sentiment data for the quick_start demo (PyDataProvider2).

Every sentence holds exactly one word A (id 1) and one word B (id 2) among
distractor words (ids 3 .. VOCAB_SIZE-1); the label is 1 when A comes before B
and 0 otherwise. Both classes therefore have the same bag of words: a
bag-of-words model cannot beat chance (50%), while a sequence model can.

Two objects, as in v1's quick_start: ``process_bow`` yields the words as a
sparse_binary_vector (for trainer_config.lr.py) and ``process_emb`` as an
integer_value_sequence (for trainer_config.lstm.py / trainer_config.emb.py).
File list entries name a split: ``train`` (seed 1) or ``test`` (seed 2); the
``args`` of define_py_data_sources2 may set ``train_size`` / ``test_size``.
"""
import random

from paddle.trainer.PyDataProvider2 import *

VOCAB_SIZE = 50
WORD_A, WORD_B = 1, 2


def sentence(rng):
    """(word ids, label) of one generated sentence of 4..16 words."""
    n = rng.randint(4, 16)
    words = [rng.randrange(3, VOCAB_SIZE) for _ in range(n)]
    i, j = rng.sample(range(n), 2)
    words[i], words[j] = WORD_A, WORD_B
    return words, int(i < j)


def generate(split, size):
    rng = random.Random({"train": 1, "test": 2}.get(split, 3))
    return [sentence(rng) for _ in range(size)]


def _init(settings, word_type, train_size=2000, test_size=500, **kwargs):
    settings.sizes = {"train": int(train_size), "test": int(test_size)}
    settings.input_types = {"word": word_type(VOCAB_SIZE), "label": integer_value(2)}


def _split(filename):
    return filename.strip().split("/")[-1]


@provider(init_hook=lambda settings, **kw: _init(settings, sparse_binary_vector, **kw),
          cache=CacheType.CACHE_PASS_IN_MEM)
def process_bow(settings, filename):
    split = _split(filename)
    for words, label in generate(split, settings.sizes.get(split, 500)):
        yield {"word": sorted(set(words)), "label": label}


@provider(init_hook=lambda settings, **kw: _init(settings, integer_value_sequence, **kw),
          cache=CacheType.CACHE_PASS_IN_MEM)
def process_emb(settings, filename):
    split = _split(filename)
    for words, label in generate(split, settings.sizes.get(split, 500)):
        yield {"word": words, "label": label}
