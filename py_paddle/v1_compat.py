"""The rest of v1's py_paddle surface (v0.10's py_paddle/util.py and api/PaddleAPI.h) that
v1 scripts call:

* DataProviderWrapperConverter, v1's converter of PyDataProviderWrapper samples (slots
  DenseSlot / IndexSlot / SparseNonValueSlot / SparseValueSlot, by dim) to Arguments;
* loadGradientMachine(config_file, model_dir), util's name for
  GradientMachine.loadFromConfigFile.
"""
from paddle.trainer import PyDataProvider2 as dp2
from paddle.trainer.batch_conversion import convert_samples
from py_paddle.feed import slots_to_arguments

__all__ = ["DataProviderWrapperConverter", "loadGradientMachine"]


# v1's PyDataProviderWrapper slot classes (by name) -> PyDataProvider2 input types
_SLOTS = {
    "DenseSlot": (dp2.dense_vector, dp2.dense_vector_sequence),
    "IndexSlot": (dp2.integer_value, dp2.integer_value_sequence),
    "SparseNonValueSlot": (dp2.sparse_binary_vector, dp2.sparse_binary_vector_sequence),
    "SparseValueSlot": (dp2.sparse_vector, dp2.sparse_vector_sequence),
}


class DataProviderWrapperConverter(object):
    """v1's converter: samples as PyDataProviderWrapper yields them (one value per slot; with
    use_seq, one list of values per slot) -> Arguments. `header` lists the slots: v1's slot
    objects (DenseSlot(dim) ... by class name and .dim) or PyDataProvider2 input types."""

    def __init__(self, use_seq, header):
        self.use_seq = bool(use_seq)
        self.input_types = [self._input_type(slot, i) for i, slot in enumerate(header)]

    def _input_type(self, slot, i):
        if isinstance(slot, dp2.InputType):
            return slot
        kinds = _SLOTS.get(type(slot).__name__)
        if kinds is None or not hasattr(slot, "dim"):
            raise TypeError("DataProviderWrapperConverter: slot %d is %r; expected DenseSlot, IndexSlot, "
                            "SparseNonValueSlot or SparseValueSlot (with .dim) or a PyDataProvider2 input "
                            "type" % (i, slot))
        return kinds[1 if self.use_seq else 0](int(slot.dim))

    def convert(self, wrapper_data, argument=None):
        return slots_to_arguments(convert_samples(self.input_types, list(wrapper_data)), argument)

    __call__ = convert


def loadGradientMachine(config_filename, model_dir=None):
    """A GradientMachine of the config file with the parameters in model_dir (default: the
    config's directory)."""
    from py_paddle import swig_paddle as api
    return api.GradientMachine.loadFromConfigFile(config_filename, model_dir)
