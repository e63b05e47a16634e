"""Generated movie reviews whose label depends on word content and negation.

A review holds one or three opinions among filler words; an opinion is a
positive or negative word, flipped when a negator ("not", "never", "hardly")
comes right before it ("not good" is negative). The label is the majority
opinion (0 = neg, 1 = pos, as in labels.list), so a bag of words cannot read
it exactly but a model that sees neighbouring words can.
"""
import zlib

import numpy as np

POSITIVE = "good great excellent wonderful amazing brilliant enjoyable superb loved fun".split()
NEGATIVE = "bad awful terrible boring dull poor horrible weak hated mess".split()
NEGATORS = "not never hardly".split()
FILLER = ("the a movie film plot story acting actors director scene scenes script was is this it "
          "and but very really quite ending music characters cast i we of in").split()
VOCAB = FILLER + POSITIVE + NEGATIVE + NEGATORS
LABELS = ("neg", "pos")
SPLIT_SIZES = {"train": 4000, "test": 1000}


def review(rng):
    """(text, label) of one generated review."""
    words, score = [], 0
    for _ in range(1 if rng.rand() < 0.5 else 3):
        words += [FILLER[i] for i in rng.randint(len(FILLER), size=rng.randint(1, 5))]
        positive = rng.rand() < 0.5
        negated = rng.rand() < 0.4
        if negated:
            words.append(NEGATORS[rng.randint(len(NEGATORS))])
        pool = POSITIVE if positive else NEGATIVE
        words.append(pool[rng.randint(len(pool))])
        score += 1 if positive != negated else -1
    words += [FILLER[i] for i in rng.randint(len(FILLER), size=rng.randint(0, 4))]
    return " ".join(words), int(score > 0)


def reviews(split, count=None):
    """The reviews of a split ('train' or 'test'); the split name seeds them."""
    if split not in SPLIT_SIZES:
        raise ValueError("synthetic reviews: unknown split %r (expected train or test)" % (split,))
    rng = np.random.RandomState(zlib.crc32(split.encode()))
    return [review(rng) for _ in range(count or SPLIT_SIZES[split])]
