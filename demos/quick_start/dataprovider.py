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

With a ``dictionary`` arg (v1's data/dict.txt, see data/preprocess.py) the same
objects read v1's real-data files instead: one review per line, "label<TAB>words".
``process_predict`` reads unlabelled lines of words (v1's data/pred.txt); with
the generated corpus, words are the ids themselves ("5 1 7 2").
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


UNK_IDX = 0


def load_dictionary(path):
    """v1's dict.txt: "word<TAB>count" per line, most frequent first; line i is id i."""
    with open(path) as f:
        return {line.split()[0]: i for i, line in enumerate(f) if line.strip()}


def sources(dataset, is_predict, obj):
    """(vocabulary size, define_py_data_sources2 keyword arguments) for the
    generated corpus ('generated') or v1's Amazon reviews ('amazon')."""
    if dataset == "amazon":
        dictionary = load_dictionary("data/dict.txt")
        lists = (None, "data/pred.list") if is_predict else ("data/train.list", "data/test.list")
        args = {"dictionary": dictionary}
    else:
        dictionary, args = None, {}
        lists = (None, "pred.list") if is_predict else ("train.list", "test.list")
    return (len(dictionary) if dictionary else VOCAB_SIZE,
            dict(train_list=lists[0], test_list=lists[1], module="dataprovider",
                 obj=("process_predict_bow" if obj == "process_bow" else "process_predict") if is_predict else obj,
                 args=args))


def _init(settings, word_type, train_size=2000, test_size=500, dictionary=None, **kwargs):
    settings.sizes = {"train": int(train_size), "test": int(test_size)}
    settings.dictionary = dictionary
    size = len(dictionary) if dictionary else VOCAB_SIZE
    settings.input_types = {"word": word_type(size), "label": integer_value(2)}


def _split(filename):
    return filename.strip().split("/")[-1]


def word_ids(settings, words):
    if settings.dictionary is None:
        return [int(w) for w in words]
    return [settings.dictionary.get(w, UNK_IDX) for w in words]


def _samples(settings, filename):
    """(word ids, label) of a split of the generated corpus or of a real-data file."""
    if settings.dictionary is None:
        split = _split(filename)
        return generate(split, settings.sizes.get(split, 500))
    samples = []
    with open(filename) as f:
        for line in f:
            label, _, text = line.rstrip("\n").partition("\t")
            samples.append((word_ids(settings, text.split()), int(label)))
    return samples


@provider(init_hook=lambda settings, **kw: _init(settings, sparse_binary_vector, **kw),
          cache=CacheType.CACHE_PASS_IN_MEM)
def process_bow(settings, filename):
    for words, label in _samples(settings, filename):
        yield {"word": sorted(set(words)), "label": label}


@provider(init_hook=lambda settings, **kw: _init(settings, integer_value_sequence, **kw),
          cache=CacheType.CACHE_PASS_IN_MEM)
def process_emb(settings, filename):
    for words, label in _samples(settings, filename):
        yield {"word": words, "label": label}


def _init_predict(settings, word_type, dictionary=None, **kwargs):
    _init(settings, word_type, dictionary=dictionary)
    del settings.input_types["label"]


def _predict_lines(settings, filename):
    with open(filename) as f:
        return [word_ids(settings, line.split()) for line in f if line.strip()]


@provider(init_hook=lambda settings, **kw: _init_predict(settings, integer_value_sequence, **kw),
          should_shuffle=False)
def process_predict(settings, filename):
    """Unlabelled lines of words (v1's pred.txt), for --config_args=is_predict=1."""
    for words in _predict_lines(settings, filename):
        yield {"word": words}


@provider(init_hook=lambda settings, **kw: _init_predict(settings, sparse_binary_vector, **kw),
          should_shuffle=False)
def process_predict_bow(settings, filename):
    for words in _predict_lines(settings, filename):
        yield {"word": sorted(set(words))}
