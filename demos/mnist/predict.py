"""Classifies digit images (PNG, JPEG, ...) with a saved pass, through py_paddle.swig_paddle.

    python predict.py --config light_mnist.py --model mnist_light_model/pass-00009 digit.png
    python predict.py --config vgg_16_mnist.py --model mnist_vgg_model/pass-00009 --test 0 1 2

An image is read as grayscale, scaled to 28x28 and its pixels to [0, 1], as MNIST's are
(a white digit on black: invert a scan of dark ink on paper first). `--test N ...` takes
the N-th images of the config's test split instead and prints their labels too. Prints one
line per image: "<file or test:N> <digit> <probability>" (+ " label=<digit>" for --test).
"""
import argparse

import numpy as np
from PIL import Image

from paddle.trainer.PyDataProvider2 import dense_vector
from paddle.trainer.config_parser import parse_config
from py_paddle import DataProviderConverter, swig_paddle as api

import mnist_provider

SIDE = 28


def read_image(path):
    """float32 [784] in [0, 1]: the image as 28x28 grayscale."""
    img = Image.open(path).convert('L').resize((SIDE, SIDE), Image.BILINEAR)
    return np.asarray(img, dtype=np.float32).reshape(-1) / np.float32(255.0)


def test_images(dataset, indexes):
    """(name, pixels, label) of the given images of the dataset's test split."""
    if dataset == 'mnist':
        images, labels = mnist_provider.load_mnist('data/t10k')
    else:
        images, labels = mnist_provider.load_mnist5k_split('test')
    return [('test:%d' % i, images[i], int(labels[i])) for i in indexes]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--model', required=True, help='a saved pass directory')
    ap.add_argument('--config', default='light_mnist.py', help='lenet.py, light_mnist.py or vgg_16_mnist.py')
    ap.add_argument('--config_args', default='', help='the ones training used (dataset, num_filters)')
    ap.add_argument('--test', type=int, nargs='+', metavar='N', help="classify the test split's N-th images")
    ap.add_argument('image', nargs='*')
    args = ap.parse_args(argv)
    if not args.image and not args.test:
        ap.error('give image files or --test N')
    conf_args = dict(kv.split('=', 1) for kv in args.config_args.split(',') if kv)
    if conf_args.get('dataset') == 'digits':
        ap.error('predict.py classifies 28x28 images: train on dataset=mnist5k or mnist')

    api.initPaddle('--use_gpu=0')
    conf = parse_config(args.config, ','.join(filter(None, [args.config_args, 'is_predict=1'])))
    gm = api.GradientMachine.createFromConfigProto(conf.model_config)
    gm.loadParameters(args.model)
    convert = DataProviderConverter([dense_vector(SIDE * SIDE)])

    samples = [(path, read_image(path), None) for path in args.image]
    samples += test_images(conf_args.get('dataset', 'mnist5k'), args.test or [])
    prob = np.asarray(gm.forwardTest(convert([[pixels] for _, pixels, _ in samples]))[0]['value'])
    for (name, _, label), row in zip(samples, prob):
        best = int(row.argmax())
        print('%s %d %.4f%s' % (name, best, row[best], '' if label is None else ' label=%d' % label))


if __name__ == '__main__':
    main()
