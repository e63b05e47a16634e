"""Batches of the front end's data provider (SlotData) into engine Arguments."""
import numpy as np

from py_paddle import swig_paddle as api

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
