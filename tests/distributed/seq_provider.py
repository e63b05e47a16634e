"""Random word sequences (lengths 1..12 over a 50-word vocabulary) with a label that
depends on the words; the same for a given file list entry every time."""
import random

from paddle.trainer.PyDataProvider2 import *


@provider(input_types={'words': integer_value_sequence(50), 'label': integer_value(2)})
def process(settings, filename):
    rng = random.Random(filename)
    for _ in range(96):
        words = [rng.randrange(50) for _ in range(rng.randint(1, 12))]
        yield words, int(sum(words) > 25 * len(words))
