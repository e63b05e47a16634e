"""Sentiment data provider (PyDataProvider2, v1 style).

``dataset`` (in the ``args`` of ``define_py_data_sources2``) picks the data:
* ``synthetic`` (default, offline): generated reviews (synthetic_reviews.py);
  file list entries name the split, ``train`` or ``test``; ``num_samples`` sets
  the number of training reviews (the test split gets a fifth of it).
* ``imdb``: the files preprocess.py wrote, one review a line,
  ``<label>\\t\\t<space-separated tokens>``; ``dict_file`` is its dict.txt.
Words missing from the dictionary are dropped, and so are reviews left empty (as in v1).
"""
from paddle.trainer.PyDataProvider2 import *

import synthetic_reviews


def load_dict(dataset, dict_file=None):
    """{word: id}: the synthetic vocabulary, or the first column of dict.txt."""
    if dataset == 'synthetic':
        return {w: i for i, w in enumerate(synthetic_reviews.VOCAB)}
    if dataset != 'imdb':
        raise ValueError("sentiment dataprovider: dataset must be 'synthetic' or 'imdb', got %r" % (dataset,))
    try:
        with open(dict_file) as f:
            return {line.split('\t')[0]: i for i, line in enumerate(f)}
    except IOError as e:
        raise IOError("%s (run data/get_data.sh first for dataset=imdb)" % e)


def word_ids(word_dict, tokens):
    return [word_dict[w] for w in tokens if w in word_dict]


def synthetic_count(split, num_samples):
    """Reviews in a synthetic split: num_samples for train, a fifth of it for test, 0: the default size."""
    return num_samples // (1 if split == 'train' else 5) or synthetic_reviews.SPLIT_SIZES.get(split, 0)


def hook(settings, dataset='synthetic', dict_file=None, num_samples=0, file_list=(), **kwargs):
    settings.dataset = dataset
    settings.word_dict = load_dict(dataset, dict_file)
    settings.synthetic_samples = int(num_samples)  # synthetic training reviews (test: a fifth); 0: 4000
    if dataset == 'synthetic':  # the samples of a pass: the start-up summary and pass 0's ETA show them
        settings.num_samples = sum(synthetic_count(e.strip(), settings.synthetic_samples) for e in file_list)
    settings.input_types = {'word': integer_value_sequence(len(settings.word_dict)),
                            'label': integer_value(2)}
    settings.logger.info('dict len : %d' % len(settings.word_dict))


def labelled_texts(settings, file_name):
    if settings.dataset == 'synthetic':
        split = file_name.strip()
        for text, label in synthetic_reviews.reviews(split, synthetic_count(split, settings.synthetic_samples)):
            yield label, text
        return
    with open(file_name) as f:
        for line_no, line in enumerate(f, 1):
            label, sep, text = line.rstrip('\n').partition('\t\t')
            if not sep or label not in ('0', '1'):
                raise ValueError("%s:%d: expected '<0 or 1>\\t\\t<tokens>'" % (file_name, line_no))
            yield int(label), text


@provider(init_hook=hook, cache=CacheType.CACHE_PASS_IN_MEM)
def process(settings, file_name):
    for label, text in labelled_texts(settings, file_name):
        ids = word_ids(settings.word_dict, text.split())
        if ids:
            yield {'word': ids, 'label': label}
