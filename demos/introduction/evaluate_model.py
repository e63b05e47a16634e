"""Prints the w and b a saved pass learned (the line is y = 2x + 0.3).

    python evaluate_model.py [output/pass-00029]
"""
import os
import sys

import numpy as np


def load(path):
    """The values of a parameter file: a 16-byte header, then float32."""
    with open(path, 'rb') as f:
        f.read(16)
        return np.fromfile(f, dtype=np.float32)


def main(argv):
    model = argv[1] if len(argv) > 1 else 'output/pass-00029'
    w, b = load(os.path.join(model, 'w')), load(os.path.join(model, 'b'))
    print('w=%.6f, b=%.6f from %s' % (w[0], b[0], model))


if __name__ == '__main__':
    main(sys.argv)
