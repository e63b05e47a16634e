"""Generated 32x32 colour images whose class is a pattern and a colour scheme.

Five patterns (horizontal stripes, vertical stripes, diagonal stripes, a
checkerboard, concentric rings) in two colour schemes make ten classes. Period,
phase, colours and pixel noise vary at random, and every pattern looks the same
class when mirrored (training flips images). Images are uint8 CHW, like CIFAR-10's.
"""
import zlib

import numpy as np

PATTERNS = ("horizontal", "vertical", "diagonal", "checker", "rings")
SCHEMES = (((200, 40, 40), (30, 30, 120)), ((240, 220, 60), (20, 110, 20)))  # (foreground, background)
LABEL_NAMES = ["%s_%s" % (scheme, pattern) for scheme in ("red", "yellow") for pattern in PATTERNS]
SIZE = 32
SPLIT_SIZES = {"train": 5000, "test": 1000}
_Y, _X = np.mgrid[0:SIZE, 0:SIZE].astype(np.float32)


def _mask(pattern, period, phase, rng):
    y, x = _Y, _X
    if pattern == "diagonal":
        t = x + y if rng.rand() < 0.5 else x - y
    elif pattern == "rings":
        cy, cx = rng.uniform(10, 22, size=2)
        t = np.hypot(y - cy, x - cx)
    else:
        t = {"horizontal": y, "vertical": x, "checker": None}[pattern]
    if pattern == "checker":
        return (np.floor((x + phase) / period) + np.floor((y + phase) / period)) % 2
    return (np.floor((t + phase) / period) % 2).astype(np.float32)


def image(label, rng):
    """One uint8 [3, 32, 32] image of class `label`."""
    fg, bg = (np.array(c, np.float32) + rng.uniform(-30, 30, size=3) for c in SCHEMES[label // len(PATTERNS)])
    period = rng.uniform(3, 7)
    mask = _mask(PATTERNS[label % len(PATTERNS)], period, rng.uniform(0, 2 * period), rng)
    pixels = fg[:, None, None] * mask + bg[:, None, None] * (1 - mask) + rng.normal(0, 20, (3, SIZE, SIZE))
    return np.clip(pixels, 0, 255).astype(np.uint8)


def images(split, count=None):
    """(uint8 [n, 3, 32, 32], int labels [n]) of a split ('train' or 'test'), seeded by its name."""
    if split not in SPLIT_SIZES:
        raise ValueError("synthetic images: unknown split %r (expected train or test)" % (split,))
    rng = np.random.RandomState(zlib.crc32(split.encode()))
    labels = rng.randint(len(LABEL_NAMES), size=count or SPLIT_SIZES[split])
    return np.stack([image(int(c), rng) for c in labels]), labels


if __name__ == "__main__":
    # python synthetic_images.py OUT.png [CLASS]: writes one new image of CLASS (0..9) for predict.py
    import sys
    from PIL import Image
    label = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    pixels = image(label, np.random.RandomState(12345 + label))
    Image.fromarray(pixels.transpose(1, 2, 0)).save(sys.argv[1])
    print("%s: class %d %s" % (sys.argv[1], label, LABEL_NAMES[label]))
