"""Python-side helpers around the SWIG classes (v1's py_paddle/util.py role).

The layering is one-way: py_paddle uses the front end's data conversion and messages
(paddle.trainer.batch_conversion, paddle.proto), which never import py_paddle; only the
`paddle` command (paddle.trainer.cli) sits above both.
"""
import os
import struct

import numpy as np

from paddle.trainer.batch_conversion import convert_samples
from py_paddle import swig_paddle as api
from py_paddle.feed import slots_to_arguments
from py_paddle.v1_compat import DataProviderWrapperConverter, loadGradientMachine  # noqa: F401 (v1's names)

__all__ = ["DataProviderConverter", "DataProviderWrapperConverter", "loadGradientMachine", "loadParameterFile",
           "monkeypatches", "slots_to_arguments"]


class DataProviderConverter(object):
    """v1's converter: a list of samples (one entry per input type) -> Arguments."""

    def __init__(self, input_types):
        self.input_types = list(input_types)

    def convert(self, samples, argument=None):
        return slots_to_arguments(convert_samples(self.input_types, samples), argument)

    __call__ = convert


def loadParameterFile(fn):
    """v1's reader of one parameter file (a path or an open binary file) -> float32 array.

    A path is read by the engine's own reader (regular files only, header and size
    checked, NaN/inf refused, the file named in every error); an open binary file gets
    the same checks here.
    """
    if isinstance(fn, (str, bytes, os.PathLike)):
        return api.Vector.createFromParameterFile(os.fsdecode(fn)).copyToNumpyArray()
    name = "'%s'" % getattr(fn, "name", "<parameter stream>")
    header = fn.read(16)
    if len(header) != 16:
        raise api.IOError("%s is too short for a parameter header (%d bytes)" % (name, len(header)))
    version, value_size, count = struct.unpack("<iIQ", header)
    if version != 0 or value_size != 4:
        raise api.IOError("%s is not a v1 float32 parameter file (version %d, value size %d)"
                          % (name, version, value_size))
    data = np.frombuffer(fn.read(), dtype=np.float32)
    if data.size != count:
        raise api.IOError("%s says %d values but holds %d" % (name, count, data.size))
    bad = np.flatnonzero(~np.isfinite(data))
    if bad.size:
        raise api.IOError("%s: value %d is %s (a parameter must be finite)" % (name, bad[0], data[bad[0]]))
    return data.copy()


def monkeypatches():
    """v1 called this to add its Python conveniences to the SWIG classes; here they are
    part of the generated classes (swig/python_*.i), so there is nothing left to do."""
