"""v1's seqToseq provider (PyDataProvider2): lines "source words<TAB>target words" of the
files preprocess.py writes, turned into ids with the src.dict / trg.dict dictionaries
(<s> = 0, <e> = 1, <unk> = 2). Training yields the source (<s> w... <e>), the decoder input
(<s> w...) and the next words (w... <e>), skipping pairs longer than 80 ids; generating
yields the source and the line number (sent_id), and needs no target column."""
from paddle.trainer.PyDataProvider2 import *

UNK_IDX = 2
START = "<s>"
END = "<e>"
MAX_IDS = 80


def read_dictionary(path):
    with open(path) as f:
        return {line.strip(): i for i, line in enumerate(f)}


def hook(settings, src_dict_path, trg_dict_path, is_generating, file_list, **kwargs):
    settings.job_mode = not is_generating  # v1's name: 1 trains, 0 generates
    settings.src_dict = read_dictionary(src_dict_path)
    settings.trg_dict = read_dictionary(trg_dict_path)
    settings.logger.info("src dict len : %d" % len(settings.src_dict))
    source = integer_value_sequence(len(settings.src_dict))
    if settings.job_mode:
        settings.logger.info("trg dict len : %d" % len(settings.trg_dict))
        target = integer_value_sequence(len(settings.trg_dict))
        settings.input_types = {'source_language_word': source, 'target_language_word': target,
                                'target_language_next_word': target}
    else:
        settings.input_types = {'source_language_word': source, 'sent_id': integer_value(1)}


def get_ids(words, dictionary):
    return [dictionary.get(w, UNK_IDX) for w in words]


@provider(init_hook=hook, pool_size=50000)
def process(settings, file_name):
    with open(file_name) as f:
        for line_count, line in enumerate(f):
            columns = line.rstrip('\n').split('\t')
            if settings.job_mode and len(columns) != 2:
                continue
            src_ids = ([settings.src_dict[START]] + get_ids(columns[0].split(), settings.src_dict)
                       + [settings.src_dict[END]])
            if not settings.job_mode:
                yield {'source_language_word': src_ids, 'sent_id': line_count}
                continue
            trg_ids = get_ids(columns[1].split(), settings.trg_dict)
            if len(src_ids) > MAX_IDS or len(trg_ids) > MAX_IDS:
                continue
            yield {'source_language_word': src_ids,
                   'target_language_word': [settings.trg_dict[START]] + trg_ids,
                   'target_language_next_word': trg_ids + [settings.trg_dict[END]]}
