"""Data for the linear regression demo (PyDataProvider2, v1 style).

Points (x, y) on the line y = 2x + 0.3, with x uniform in [0, 1) and a little
Gaussian noise on y (``noise`` in the ``args`` of ``define_py_data_sources2``,
default 0.05). Each file list entry names a split (``train`` / ``test``): the
split seeds the generator, so passes see the same points and the test points
differ from the training points.
"""
import zlib

import numpy as np

from paddle.trainer.PyDataProvider2 import *

TRUE_W, TRUE_B = 2.0, 0.3


def on_init(settings, num_samples=2000, noise=0.05, **kwargs):
    if int(num_samples) <= 0:
        raise ValueError("introduction dataprovider: num_samples must be positive, got %r" % (num_samples,))
    settings.num_samples = int(num_samples)
    settings.noise = float(noise)


def points(split, num_samples, noise):
    """(x, y) float32 arrays of one split; the split name picks the seed."""
    rng = np.random.RandomState(zlib.crc32(split.encode()))
    x = rng.rand(num_samples).astype(np.float32)
    y = (TRUE_W * x + TRUE_B + noise * rng.randn(num_samples)).astype(np.float32)
    return x, y


@provider(input_types={'x': dense_vector(1), 'y': dense_vector(1)}, init_hook=on_init,
          cache=CacheType.CACHE_PASS_IN_MEM)
def process(settings, split):
    x, y = points(split.strip(), settings.num_samples, settings.noise)
    for xi, yi in zip(x, y):
        yield {'x': [xi], 'y': [yi]}
