"""Random word sequences with a tag per word (IOB over one chunk type: 0=B, 1=I, 2=O),
a label and a query id per sequence; the same for a given file list entry every time."""
import random

from paddle.trainer.PyDataProvider2 import *


@provider(input_types={'words': integer_value_sequence(50), 'tags': integer_value_sequence(3),
                       'label': integer_value(2), 'query': integer_value(4)})
def process(settings, filename):
    rng = random.Random(filename)
    for _ in range(96):
        words = [rng.randrange(50) for _ in range(rng.randint(1, 12))]
        tags = [2 if w < 20 else (0 if i == 0 or words[i - 1] < 20 else 1) for i, w in enumerate(words)]
        yield words, tags, int(sum(words) > 25 * len(words)), rng.randrange(4)
