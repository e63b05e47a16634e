"""Writes the digits data set (demos/mnist's `digits`: the same split and scaling as
its provider) as flat files the Java and C++ examples read without Python:

    int32 rows, int32 cols, float32 pixels[rows * cols], int32 labels[rows]

little-endian, row by row. Usage: python prepare_data.py [OUTPUT_DIR] (default: data).
"""
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "mnist"))
from mnist_provider import load_digits_split  # noqa: E402


def write_split(path, images, labels):
    images = np.ascontiguousarray(images, dtype="<f4")
    with open(path, "wb") as f:
        f.write(np.array(images.shape, dtype="<i4").tobytes())
        f.write(images.tobytes())
        f.write(np.asarray(labels, dtype="<i4").tobytes())


def read_split(path):
    """(images float32 [rows, cols], labels int32 [rows]) of a file write_split wrote."""
    raw = np.fromfile(path, dtype=np.uint8)
    rows, cols = np.frombuffer(raw[:8], dtype="<i4")
    images = np.frombuffer(raw[8:8 + 4 * rows * cols], dtype="<f4").reshape(rows, cols)
    return images, np.frombuffer(raw[8 + 4 * rows * cols:], dtype="<i4")


def main(out_dir):
    os.makedirs(out_dir, exist_ok=True)
    for split, name in (("train", "digits_train.bin"), ("test", "digits_test.bin")):
        images, labels = load_digits_split(split)
        write_split(os.path.join(out_dir, name), images, labels)
        print("wrote %s: %d images of %d pixels" % (os.path.join(out_dir, name), *images.shape))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "data")
