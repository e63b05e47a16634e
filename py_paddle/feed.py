"""Batches of the front end's data provider (SlotData) into engine Arguments."""
from py_paddle import swig_paddle as api


def slots_to_arguments(slots, arguments=None):
    """Copies a list of SlotData (see paddle.trainer.data_provider) into an Arguments
    (a new one, or `arguments` resized to fit): Arguments.setFromSlots.

    One bulk copy per buffer; the arrays are not referenced afterwards.
    """
    args = arguments if arguments is not None else api.Arguments.createArguments(len(slots))
    args.setFromSlots(slots)
    return args
