"""py_paddle: the engine API from Python (v1's `from py_paddle import swig_paddle`).

Importing it adds v1's Python-side conveniences to the SWIG classes:
GradientMachine.createFromConfigProto / forwardTest / getLayerOutputs,
and re-exports DataProviderConverter.
"""
import scipy_openblas32  # noqa: F401  loads libscipy_openblas.so for in-place builds

from py_paddle import swig_paddle
from py_paddle.util import DataProviderConverter, monkeypatches

monkeypatches()

__all__ = ["swig_paddle", "DataProviderConverter"]
