"""CIFAR-10 image provider (PyDataProvider2, v1 style).

``dataset`` (in the ``args`` of ``define_py_data_sources2``) picks the data:
* ``synthetic`` (default, offline): generated images (synthetic_images.py); the
  file list entries name the split, ``train`` or ``test``; ``num_samples``
  overrides the training size (the test split gets a fifth of it).
* ``cifar``: the batches data/process_cifar.py wrote: each file list entry is a
  pickle ``{'images': uint8 [n, 3072] (CHW), 'labels': [n]}``, and ``meta``
  (batches.meta) holds the training mean image ``data_mean``.
A sample is the image minus the mean image (v1's preprocessing: no scaling),
mirrored at random while training.
"""
import functools
import pickle

import numpy as np

import paddle.utils.image_util as image_util
from paddle.trainer.PyDataProvider2 import *

import synthetic_images

IMG_SIZE = 32
NUM_CLASSES = 10


@functools.lru_cache(maxsize=None)
def synthetic_split(split, num_samples=0):
    """A synthetic split; num_samples > 0 sets the training size, the test split gets a fifth of it."""
    return synthetic_images.images(split, num_samples // (1 if split == 'train' else 5))


def mean_image(dataset, meta=None, num_samples=0):
    """float32 [3, 32, 32]: the mean of the training images."""
    if dataset == 'synthetic':
        return synthetic_split('train', num_samples)[0].mean(axis=0, dtype=np.float64).astype(np.float32)
    if dataset != 'cifar':
        raise ValueError("image_provider: dataset must be 'synthetic' or 'cifar', got %r" % (dataset,))
    return image_util.load_meta(meta, IMG_SIZE, IMG_SIZE, color=True)


def features(img, mean, is_train):
    """The network input (float32, flattened) of one uint8 CHW image, or of a flat
    [3072] one; a bigger image is centre-cropped."""
    chw = np.asarray(img, dtype=np.float32)
    if chw.ndim == 1:
        chw = chw.reshape(3, IMG_SIZE, IMG_SIZE)
    return image_util.preprocess_img(chw, mean, IMG_SIZE, is_train, color=True).astype(np.float32)


def hook(settings, is_train, dataset='synthetic', meta=None, num_samples=0, file_list=(), **kwargs):
    settings.dataset = dataset
    settings.synthetic_samples = int(num_samples)
    if dataset == 'synthetic':  # the samples of a pass: the start-up summary and pass 0's ETA show them
        settings.num_samples = sum(len(synthetic_split(e.strip(), settings.synthetic_samples)[1])
                                   for e in file_list if e.strip() in synthetic_images.SPLIT_SIZES)
    settings.is_train = is_train
    settings.img_mean = mean_image(dataset, meta, settings.synthetic_samples)
    settings.input_types = {'image': dense_vector(3 * IMG_SIZE * IMG_SIZE),
                            'label': integer_value(NUM_CLASSES)}


def read_batch(path):
    with open(path, 'rb') as f:
        batch = pickle.load(f)
    return np.asarray(batch['images'], dtype=np.uint8), batch['labels']


@provider(init_hook=hook, min_pool_size=0)
def processData(settings, file_name):
    if settings.dataset == 'synthetic':
        images, labels = synthetic_split(file_name.strip(), settings.synthetic_samples)
    else:
        images, labels = read_batch(file_name.strip())
    order = np.random.permutation(len(labels)) if settings.is_train else range(len(labels))
    for i in order:
        yield {'image': features(images[i], settings.img_mean, settings.is_train), 'label': int(labels[i])}
