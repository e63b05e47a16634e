"""Python-side helpers around the SWIG classes (v1's py_paddle/util.py role).

The layering is one-way: py_paddle uses the front end's data conversion and messages
(paddle.trainer.batch_conversion, paddle.proto), which never import py_paddle; only the
`paddle` command (paddle.trainer.cli) sits above both.
"""
import numpy as np

from paddle.trainer.batch_conversion import convert_samples
from py_paddle import swig_paddle as api
from py_paddle import training_api

_EMPTY_F32 = np.zeros(0, dtype=np.float32)


def slots_to_arguments(slots, arguments=None):
    """Copies a list of SlotData (see paddle.trainer.data_provider) into an Arguments.

    One bulk copy per buffer; the arrays are not referenced afterwards.
    """
    args = arguments if arguments is not None else api.Arguments.createArguments(len(slots))
    if args.getSlotNum() != len(slots):
        args.resize(len(slots))
    for i, slot in enumerate(slots):
        if getattr(slot, "sparse_rows", None) is not None:
            values = slot.sparse_values
            args.setSlotSparseFromBuffers(
                i, np.ascontiguousarray(slot.sparse_rows, dtype=np.int32),
                np.ascontiguousarray(slot.sparse_cols, dtype=np.int32),
                _EMPTY_F32 if values is None else np.ascontiguousarray(values, dtype=np.float32),
                int(slot.dim))
        if slot.value is not None:
            args.setSlotValueFromBuffer(i, np.ascontiguousarray(slot.value, dtype=np.float32))
        if slot.ids is not None:
            args.setSlotIdsFromBuffer(i, np.ascontiguousarray(slot.ids, dtype=np.int32))
        if slot.seq_starts is not None:
            args.setSlotSequenceStartPositionsFromBuffer(i, np.ascontiguousarray(slot.seq_starts, dtype=np.int32))
        if getattr(slot, "sub_seq_starts", None) is not None:
            args.setSlotSubSequenceStartPositionsFromBuffer(
                i, np.ascontiguousarray(slot.sub_seq_starts, dtype=np.int32))
    return args


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
    """Adds v1's Python conveniences to the SWIG classes (see py_paddle.training_api)."""
    training_api.install()
