"""Classifies image files (PNG, JPEG, ...) with a saved pass, through py_paddle.swig_paddle.

    python predict.py --model cifar_vgg_model/pass-00299 airplane.png
    python predict.py --config resnet_cifar.py --config_args=depth=20,dataset=cifar --model M x.jpg

An image's shorter edge is scaled to 32 pixels and its centre 32x32 square is
classified, as in training (minus the training mean image). Prints one line per
image: "<file> <class id> <class name> <probability>".
"""
import argparse
import pickle

import numpy as np

import paddle.utils.image_util as image_util
from paddle.trainer.PyDataProvider2 import dense_vector
from paddle.trainer.config_parser import parse_config
from py_paddle import DataProviderConverter, swig_paddle as api

import image_provider
import synthetic_images
from cifar_data import BATCHES_DIR


def label_names(dataset):
    if dataset == 'synthetic':
        return synthetic_images.LABEL_NAMES
    with open(BATCHES_DIR + 'batches.meta', 'rb') as f:
        return pickle.load(f)['label_names'] or [str(i) for i in range(image_provider.NUM_CLASSES)]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--model', required=True, help='a saved pass directory')
    ap.add_argument('--config', default='vgg_16_cifar.py')
    ap.add_argument('--config_args', default='', help='the ones training used (dataset, num_samples, depth)')
    ap.add_argument('image', nargs='+')
    args = ap.parse_args(argv)
    conf_args = dict(kv.split('=', 1) for kv in args.config_args.split(',') if kv)
    dataset = conf_args.get('dataset', 'synthetic')
    mean = image_provider.mean_image(dataset, BATCHES_DIR + 'batches.meta', int(conf_args.get('num_samples', 0)))
    names = label_names(dataset)

    api.initPaddle('--use_gpu=0')
    conf = parse_config(args.config, ','.join(filter(None, [args.config_args, 'is_predict=1'])))
    gm = api.GradientMachine.createFromConfigProto(conf.model_config)
    gm.loadParameters(args.model)
    convert = DataProviderConverter([dense_vector(3 * image_provider.IMG_SIZE ** 2)])
    for path in args.image:
        img = image_util.resize_image(image_util.load_image(path), image_provider.IMG_SIZE)
        chw = np.asarray(img, dtype=np.uint8).transpose(2, 0, 1)
        prob = np.asarray(gm.forwardTest(convert([[image_provider.features(chw, mean, False)]]))[0]['value'])[0]
        best = int(prob.argmax())
        print('%s %d %s %.4f' % (path, best, names[best], prob[best]))


if __name__ == '__main__':
    main()
