"""Classifies new reviews with a saved pass, through py_paddle.swig_paddle.

    python predict.py --model output/pass-00009 "not a good movie" "a brilliant film"
    python predict.py --model output/pass-00009 -i review.txt --config_args=dataset=imdb

prints one line per review: "<neg|pos> <probability of pos> <review>". The reviews are
tokenized as preprocess.py tokenizes IMDB; words outside the dictionary are dropped.
"""
import argparse

import numpy as np

from paddle.trainer.PyDataProvider2 import integer_value_sequence
from paddle.trainer.config_parser import parse_config
from py_paddle import DataProviderConverter, swig_paddle as api

import dataprovider
from preprocess import LABELS, tokenize


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--model', required=True, help='a saved pass directory')
    ap.add_argument('--config', default='trainer_config.py')
    ap.add_argument('--config_args', default='', help='the ones training used (dataset, net, sizes)')
    ap.add_argument('-i', '--input', help='a file of reviews, one a line')
    ap.add_argument('review', nargs='*')
    args = ap.parse_args(argv)
    reviews = list(args.review)
    if args.input:
        with open(args.input) as f:
            reviews += [line.strip() for line in f if line.strip()]
    if not reviews:
        ap.error('give a review (or -i FILE)')

    conf_args = dict(kv.split('=', 1) for kv in args.config_args.split(',') if kv)
    dataset = conf_args.get('dataset', 'synthetic')
    word_dict = dataprovider.load_dict(dataset, 'data/pre-imdb/dict.txt' if dataset == 'imdb' else None)

    api.initPaddle('--use_gpu=0')
    conf = parse_config(args.config, ','.join(filter(None, [args.config_args, 'is_predict=1'])))
    gm = api.GradientMachine.createFromConfigProto(conf.model_config)
    gm.loadParameters(args.model)
    convert = DataProviderConverter([integer_value_sequence(len(word_dict))])
    for text in reviews:
        ids = dataprovider.word_ids(word_dict, tokenize(text))
        if not ids:
            print('? no known word: %s' % text)
            continue
        prob = np.asarray(gm.forwardTest(convert([[ids]]))[0]['value'])[0]
        print('%s %.4f %s' % (LABELS[int(prob.argmax())], prob[1], text))


if __name__ == '__main__':
    main()
