"""Python-side helpers around the SWIG classes (v1's py_paddle/util.py role).

The layering is one-way: py_paddle uses the front end's data conversion and messages
(paddle.trainer.batch_conversion, paddle.proto), which never import py_paddle; only the
`paddle` command (paddle.trainer.cli) sits above both.
"""
from paddle.trainer.batch_conversion import convert_samples
from py_paddle import training_api
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
    """v1's reader of one parameter file (a path or an open binary file) -> float32 array."""
    return training_api.load_parameter_file(fn)


def monkeypatches():
    """Adds v1's Python conveniences to the SWIG classes (see py_paddle.training_api), and
    v1's merged-model files to createFromMergedModel (py_paddle.v1_merged_model)."""
    from py_paddle import v1_compat, v1_merged_model
    training_api.install()
    v1_merged_model.install()
    v1_compat.install()
