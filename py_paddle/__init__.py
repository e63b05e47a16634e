"""py_paddle: the engine API from Python (v1's `from py_paddle import swig_paddle`).

v1's Python-side conveniences (GradientMachine.createFromConfigProto / forwardTest /
getLayerOutputs, Trainer.create(proto), ...) are methods of the generated classes
themselves (swig/python_*.i); this package re-exports DataProviderConverter.
"""
import glob
import os
import pkgutil

import scipy_openblas32  # noqa: F401  loads libscipy_openblas.so for in-place builds

# Imported from a source checkout whose engine was installed rather than built in place (a
# notebook or `paddle` run from the repository root): the compiled module lives in the
# installed copy of this package, so look for submodules there too.
if not glob.glob(os.path.join(os.path.dirname(os.path.abspath(__file__)), "_swig_paddle*")):
    __path__ = pkgutil.extend_path(__path__, __name__)

from py_paddle import cpu_dispatch  # noqa: E402

cpu_dispatch.load()  # the engine built for this CPU, before the module binds to one
from py_paddle import swig_paddle  # noqa: E402
from py_paddle.util import (DataProviderConverter, DataProviderWrapperConverter,  # noqa: E402
                            loadParameterFile)

__all__ = ["swig_paddle", "DataProviderConverter", "DataProviderWrapperConverter", "loadParameterFile"]
