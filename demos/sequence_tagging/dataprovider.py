"""Generated chunking data for the sequence tagging demo (PyDataProvider2, v1 style).

Sentences are random sequences of chunks of three types, NP (0), VP (1) and
PP (2), separated now and then by an outside word:

    NP = [DET] ADJ* NOUN          VP = [AUX] VERB          PP = PREP
    O  = PUNCT

Each word class has its own words, except that some words are both a noun and a
verb (which one depends on the context) and adjectives can start a new NP right
after a noun, so a tagger needs the neighbouring words and the tag transitions.
Tags use the IOB scheme with v1's numbering: tag id = chunk_type * 2 + (0 for B,
1 for I); 6 is O.

File list entries name a split: ``train`` (seed 1) or ``test`` (seed 2); the
``args`` of define_py_data_sources2 may set ``train_size`` / ``test_size``
(sentences).
"""
import random

from paddle.trainer.PyDataProvider2 import *

NUM_CHUNK_TYPES = 3
NUM_LABELS = NUM_CHUNK_TYPES * 2 + 1
OUTSIDE = NUM_LABELS - 1

# word classes -> id ranges (id 0 is unused / unknown)
CLASSES = {"DET": (1, 6), "ADJ": (6, 26), "NOUN": (26, 66), "AMBIG": (66, 76), "AUX": (76, 81),
           "VERB": (81, 111), "PREP": (111, 121), "PUNCT": (121, 125)}
VOCAB_SIZE = 125


def _word(rng, cls):
    lo, hi = CLASSES[cls]
    return rng.randrange(lo, hi)


def _noun(rng):
    return _word(rng, "AMBIG" if rng.random() < 0.25 else "NOUN")


def _verb(rng):
    return _word(rng, "AMBIG" if rng.random() < 0.25 else "VERB")


def _chunk(rng, kind):
    """Words of one chunk and its type."""
    if kind == 0:
        words = ([_word(rng, "DET")] if rng.random() < 0.6 else [])
        words += [_word(rng, "ADJ") for _ in range(rng.choice([0, 0, 1, 2]))]
        return words + [_noun(rng)], 0
    if kind == 1:
        return ([_word(rng, "AUX")] if rng.random() < 0.3 else []) + [_verb(rng)], 1
    return [_word(rng, "PREP")], 2


def sentence(rng):
    """(word ids, IOB tag ids) of one generated sentence."""
    words, tags = [], []
    for _ in range(rng.randint(1, 6)):
        if rng.random() < 0.15:
            words.append(_word(rng, "PUNCT"))
            tags.append(OUTSIDE)
        kind = rng.choice([0, 0, 1, 2])
        w, t = _chunk(rng, kind)
        words += w
        tags += [t * 2] + [t * 2 + 1] * (len(w) - 1)
    return words, tags


def generate(split, size):
    rng = random.Random({"train": 1, "test": 2}.get(split, 3))
    return [sentence(rng) for _ in range(size)]


def on_init(settings, train_size=2000, test_size=500, **kwargs):
    settings.sizes = {"train": int(train_size), "test": int(test_size)}
    settings.input_types = {"word": integer_value_sequence(VOCAB_SIZE), "label": integer_value_sequence(NUM_LABELS)}


@provider(init_hook=on_init, cache=CacheType.CACHE_PASS_IN_MEM)
def process(settings, filename):
    split = filename.strip().split("/")[-1]
    for words, tags in generate(split, settings.sizes.get(split, 500)):
        yield {"word": words, "label": tags}
