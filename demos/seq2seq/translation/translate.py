"""Translates sentences with a saved pass and beam search, through py_paddle.swig_paddle.
From demos/seq2seq:

    python translation/translate.py --model translation/model/pass-00003 "le chat noir mange la souris ."
    python translation/translate.py --config_args=dataset=wmt14 --model M "un texte en français ."

Builds translation/gen.conf's network (with the config_args training used), loads the pass
and runs its beam_search group on each sentence (tokenized like the corpus: words split by
spaces; unknown words become <unk>). Prints, per sentence, "<sentence>" and then one line
per result, best first: "<rank><TAB><log probability><TAB><translation>".
"""
import argparse
import os
import sys

DEMO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, DEMO)

from paddle.trainer.PyDataProvider2 import integer_value_sequence  # noqa: E402
from paddle.trainer.config_parser import parse_config  # noqa: E402
from py_paddle import DataProviderConverter, swig_paddle as api  # noqa: E402

import dataprovider  # noqa: E402  (demos/seq2seq/dataprovider.py: v1's id mapping)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--model', required=True, help='a saved pass directory')
    ap.add_argument('--config_args', default='', help='the ones training used (dataset, width)')
    ap.add_argument('--beam_size', type=int, default=3)
    ap.add_argument('sentence', nargs='+')
    args = ap.parse_args(argv)
    dataset = dict(kv.split('=', 1) for kv in args.config_args.split(',') if kv).get('dataset', 'toy')
    data_dir = os.path.join('data', 'pre-' + dataset)

    api.initPaddle('--use_gpu=0')
    conf = parse_config(os.path.join('translation', 'gen.conf'), args.config_args)
    gm = api.GradientMachine.createFromConfigProto(conf.model_config)
    gm.loadParameters(args.model)
    src_dict = dataprovider.read_dictionary(os.path.join(data_dir, 'src.dict'))
    with open(os.path.join(data_dir, 'trg.dict')) as f:
        trg_words = [line.strip() for line in f]
    generator = gm.asSequenceGenerator(trg_words, beam_size=args.beam_size)
    convert = DataProviderConverter([integer_value_sequence(len(src_dict))])
    for sentence in args.sentence:
        ids = ([src_dict[dataprovider.START]] + dataprovider.get_ids(sentence.split(), src_dict)
               + [src_dict[dataprovider.END]])
        results = generator.generateSequence(convert([[ids]]))
        print(sentence)
        for i in range(results.getSize()):
            words = [w for w in results.getSentence(i, True).split() if w != dataprovider.END]
            print('%d\t%.4f\t%s' % (i, results.getScore(i), ' '.join(words)))


if __name__ == '__main__':
    main()
