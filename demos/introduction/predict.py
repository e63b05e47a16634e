"""Predicts y for new x values with a saved pass, through py_paddle.swig_paddle.

    python predict.py --model output/pass-00029 0.5 1.0 3
prints one line "x=<x> y=<prediction>" per value.
"""
import argparse

import numpy as np

from paddle.trainer.PyDataProvider2 import dense_vector
from paddle.trainer.config_parser import parse_config
from py_paddle import DataProviderConverter, swig_paddle as api


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--model', default='output/pass-00029', help='a saved pass directory')
    ap.add_argument('--config', default='trainer_config.py')
    ap.add_argument('x', type=float, nargs='+')
    args = ap.parse_args(argv)

    api.initPaddle('--use_gpu=0')
    conf = parse_config(args.config, 'is_predict=1')
    gm = api.GradientMachine.createFromConfigProto(conf.model_config)
    gm.loadParameters(args.model)
    convert = DataProviderConverter([dense_vector(1)])
    y = gm.forwardTest(convert([[[x]] for x in args.x]))[0]['value']
    for x, yi in zip(args.x, np.asarray(y)[:, 0]):
        print('x=%g y=%.6f' % (x, yi))


if __name__ == '__main__':
    main()
