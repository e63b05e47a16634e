"""The rest of v1's py_paddle surface (v0.10's py_paddle/util.py and api/PaddleAPI.h) that
v1 scripts call:

* ParameterOptimizer.update also takes v1's list indexed by ParameterType (what
  Parameter.getBufs() yields, None where a parameter has no such buffer);
* ParameterTraverseCallback, the type of needSpecialTraversal's answer (None here: these
  update rules need no traversal outside update());
* DataProviderWrapperConverter, v1's converter of PyDataProviderWrapper samples (slots
  DenseSlot / IndexSlot / SparseNonValueSlot / SparseValueSlot, by dim) to Arguments;
* loadGradientMachine(config_file, model_dir), util's name for
  GradientMachine.loadFromConfigFile.
"""
from paddle.trainer import PyDataProvider2 as dp2
from paddle.trainer.batch_conversion import convert_samples
from py_paddle.feed import slots_to_arguments

__all__ = ["DataProviderWrapperConverter", "ParameterTraverseCallback", "loadGradientMachine", "install"]


class ParameterTraverseCallback(object):
    """v1's callback for optimizers that visit parameters outside update() (v1's
    needSpecialTraversal); apply(vecs, config, sparseId) calls `fn` with the same.

    ``ParameterOptimizer.needSpecialTraversal`` returns None here (no update rule needs
    a traversal), so v1 scripts that test its answer skip the traversal; the class is
    there for scripts that name it. Thread safety: it holds no state of its own; as safe
    as ``fn``.

    Args:
        fn (callable, default None): called as fn(vecs, config, sparseId); None does nothing.

    Example:
        >>> seen = []
        >>> callback = swig_paddle.ParameterTraverseCallback(lambda vecs, config, row: seen.append(row))
        >>> callback.apply([], None, 3)
        >>> seen
        [3]
    """

    def __init__(self, fn=None):
        self.fn = fn

    def apply(self, vecs, config, sparseId=None):
        """Calls ``fn(vecs, config, sparseId)`` (nothing without fn).

        Args:
            vecs (list of Vector): a parameter's buffers.
            config (ParameterConfig): its config.
            sparseId (int, default None): a row, or None for the whole parameter.
        """
        if self.fn is not None:
            self.fn(vecs, config, sparseId)


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


def _state(optimizer, value, kind):
    """An optimizer state buffer (momentum ...) the parameter lacks: v1's machine had one for
    every type the optimizer named; this one is the optimizer's, kept per parameter."""
    from py_paddle import swig_paddle as api
    if value is None:
        return None
    states = optimizer.__dict__.setdefault("_v1_states", {})
    key = (value.devicePointer() if value.isGpu() else value.dataPointer(), kind)
    if key not in states:
        states[key] = api.Vector.createZero(len(value), value.isGpu())
    return states[key]


def install():
    from py_paddle import swig_paddle as api
    opt = api.ParameterOptimizer
    raw_update = opt.update

    def update(self, vecs, conf, sparseId=api.NO_SPARSE_ID):
        """Applies one update step to a parameter's buffers, in place.

        Args:
            vecs (list of Vector): the buffers in ``getParameterTypes()`` order, or v1's
                list indexed by ParameterType (``list(parameter.getBufs())``, None for
                absent buffers: state buffers the parameter lacks are then kept by the
                optimizer).
            conf (ParameterConfig): the parameter's config (learning rate, decay, ...),
                the one given to ``init``.
            sparseId (int, default NO_SPARSE_ID): NO_SPARSE_ID updates the whole
                parameter; a row id updates only that row.
        """
        vecs = list(vecs)
        types = list(self.getParameterTypes())
        if len(vecs) == api.NUM_PARAMETER_TYPES and len(types) != len(vecs):
            vecs = [vecs[t] if vecs[t] is not None or t in (api.PARAMETER_VALUE, api.PARAMETER_GRADIENT)
                    else _state(self, vecs[api.PARAMETER_VALUE], t) for t in types]
        return raw_update(self, vecs, conf, sparseId)

    opt.update = update
    api.ParameterTraverseCallback = ParameterTraverseCallback
