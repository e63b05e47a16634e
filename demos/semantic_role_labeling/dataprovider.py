"""PyDataProvider2 provider of v1's db_lstm (semantic role labeling).

Reads v1's feature lines (see conll05.py): per sentence the words, the
predicate, the 5 words around it and the marks, each a sequence as long as the
sentence, then the IOB labels. A file list entry 'synthetic/train' or
'synthetic/test' is the offline data set, generated in memory.
"""
from paddle.trainer.PyDataProvider2 import *

import conll05

UNK_IDX = 0


def hook(settings, word_dict=None, label_dict=None, predicate_dict=None, synthetic_size=None, **kwargs):
    if word_dict is None:  # a config that cannot pass dictionaries (the YAML twin): the synthetic ones
        word_dict, predicate_dict, label_dict = [{w: i for i, w in enumerate(d)} for d in conll05.synthetic_dicts()]
    settings.word_dict, settings.label_dict, settings.predicate_dict = word_dict, label_dict, predicate_dict
    settings.synthetic_size = synthetic_size or {}
    words = integer_value_sequence(len(word_dict))
    settings.input_types = [words] * 6 + [integer_value_sequence(len(predicate_dict)), integer_value_sequence(2),
                                          integer_value_sequence(len(label_dict))]


def sample(settings, line, with_label=True):
    """The slots of one feature line (the labels last when with_label)."""
    fields = line.rstrip("\n").split("\t")
    sentence, predicate, ctx, marks = fields[0].split(), fields[1], fields[2:7], fields[7]
    n = len(sentence)
    slots = [[settings.word_dict.get(w, UNK_IDX) for w in sentence]]
    slots += [[settings.word_dict.get(w, UNK_IDX)] * n for w in ctx]
    slots += [[settings.predicate_dict.get(predicate, UNK_IDX)] * n, [int(m) for m in marks.split()]]
    if with_label:
        slots.append([settings.label_dict[l] for l in fields[8].split()])
    return slots


def feature_lines(settings, filename):
    split = filename.strip().split("/")[-1]
    if filename.startswith("synthetic/"):
        return [conll05.feature_line(*s) for s in conll05.synthetic(split, settings.synthetic_size.get(split, 500))]
    with open(filename) as f:
        return f.read().splitlines()


@provider(init_hook=hook, should_shuffle=True, cache=CacheType.CACHE_PASS_IN_MEM)
def process(settings, filename):
    for line in feature_lines(settings, filename):
        if line.strip():
            yield sample(settings, line)
