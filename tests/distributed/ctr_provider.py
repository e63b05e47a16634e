"""Samples of 3..15 active ids out of 200, clicked when most ids are even; the same for a
given file list entry every time."""
import random

from paddle.trainer.PyDataProvider2 import *


@provider(input_types={'features': sparse_binary_vector(200), 'label': integer_value(2)})
def process(settings, filename):
    rng = random.Random(filename)
    for _ in range(96):
        ids = sorted(set(rng.randrange(200) for _ in range(rng.randint(3, 15))))
        yield ids, int(2 * sum(1 for i in ids if i % 2 == 0) > len(ids))
