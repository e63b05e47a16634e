"""Sequence reversal data, generated on the fly (works offline).

Each sample is a random token sequence of 3-10 ids from [2, vocab); the target
is the same sequence reversed. Ids 0 and 1 are <s> and <e>. A file-list entry
names the split and its size, e.g. "train:20000" or "test:500"; each split has
its own fixed seed, so train and test never share a generator stream.
"""
import numpy as np

from paddle.trainer.PyDataProvider2 import *

BOS, EOS = 0, 1
SEEDS = {"train": 1, "test": 2}


def samples(entry, vocab, min_len=3, max_len=10):
    split, count = entry.strip().split(":")
    rng = np.random.RandomState(SEEDS.get(split, 3))
    for i in range(int(count)):
        seq = list(rng.randint(2, vocab, rng.randint(min_len, max_len + 1)))
        yield i, seq


def hook(settings, vocab=24, generating=False, **kwargs):
    settings.vocab = vocab
    settings.generating = generating
    if generating:
        settings.input_types = {'source_words': integer_value_sequence(vocab),
                                'sent_id': integer_value(1 << 30)}
    else:
        settings.input_types = {'source_words': integer_value_sequence(vocab),
                                'target_words': integer_value_sequence(vocab),
                                'target_next_words': integer_value_sequence(vocab)}


@provider(init_hook=hook, pool_size=50000)
def process(settings, entry):
    for i, seq in samples(entry, settings.vocab):
        source = seq + [EOS]
        if settings.generating:
            yield {'source_words': source, 'sent_id': i}
        else:
            target = seq[::-1]
            yield {'source_words': source, 'target_words': [BOS] + target,
                   'target_next_words': target + [EOS]}
