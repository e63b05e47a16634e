"""PyDataProvider2's input types: what a provider declares for each data layer.

Part of the PyDataProvider2 API (``from paddle.trainer.PyDataProvider2 import *``
exports every name here); kept in its own module so that each file stays readable.
"""

__all__ = [
    'SequenceType', 'DataType', 'CacheType', 'InputType',
    'dense_slot', 'sparse_non_value_slot', 'sparse_value_slot', 'index_slot',
    'dense_vector', 'sparse_binary_vector', 'sparse_vector', 'integer_value',
    'dense_array',
    'dense_vector_sequence', 'dense_vector_sub_sequence',
    'sparse_binary_vector_sequence', 'sparse_binary_vector_sub_sequence',
    'sparse_vector_sequence', 'sparse_vector_sub_sequence',
    'integer_value_sequence', 'integer_value_sub_sequence', 'integer_sequence',
]

class SequenceType(object):
    NO_SEQUENCE = 0
    SEQUENCE = 1
    SUB_SEQUENCE = 2


class DataType(object):
    Dense = 0
    SparseNonValue = 1
    SparseValue = 2
    Index = 3


class CacheType(object):
    # Every pass runs the Python generators again.
    NO_CACHE = 0
    # The first pass runs the generators and keeps every sample in memory;
    # later passes replay the samples from memory.
    CACHE_PASS_IN_MEM = 1


_TYPE_BASENAMES = {
    DataType.Dense: "dense_vector",
    DataType.SparseNonValue: "sparse_binary_vector",
    DataType.SparseValue: "sparse_vector",
    DataType.Index: "integer_value",
}
_SEQ_SUFFIXES = {
    SequenceType.NO_SEQUENCE: "",
    SequenceType.SEQUENCE: "_sequence",
    SequenceType.SUB_SEQUENCE: "_sub_sequence",
}


class InputType(object):
    """Declares one input slot: its dimension, sequence level and data type.

    ``dim`` is the vector size for dense/sparse slots and the value range
    (number of distinct ids) for integer slots.
    """
    __slots__ = ['dim', 'seq_type', 'type']

    def __init__(self, dim, seq_type, tp):
        self.dim = dim
        self.seq_type = seq_type
        self.type = tp

    def __repr__(self):
        base = _TYPE_BASENAMES.get(self.type, "InputType[type=%r]" % (self.type,))
        suffix = _SEQ_SUFFIXES.get(self.seq_type,
                                   "[seq_type=%r]" % (self.seq_type,))
        return "%s%s(%r)" % (base, suffix, self.dim)

    def __eq__(self, other):
        return (isinstance(other, InputType) and self.dim == other.dim and
                self.seq_type == other.seq_type and self.type == other.type)

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return hash((self.dim, self.seq_type, self.type))


def dense_slot(dim, seq_type=SequenceType.NO_SEQUENCE):
    """A dense float vector of size ``dim`` (a list of numbers or a numpy
    array holding ``dim`` values, of any shape)."""
    return InputType(dim, seq_type, DataType.Dense)


def sparse_non_value_slot(dim, seq_type=SequenceType.NO_SEQUENCE):
    """A sparse 0/1 vector of size ``dim``, given as the list of its
    non-zero ids."""
    return InputType(dim, seq_type, DataType.SparseNonValue)


def sparse_value_slot(dim, seq_type=SequenceType.NO_SEQUENCE):
    """A sparse float vector of size ``dim``, given as a list of
    ``(id, value)`` pairs."""
    return InputType(dim, seq_type, DataType.SparseValue)


def index_slot(value_range, seq_type=SequenceType.NO_SEQUENCE):
    """An integer in ``[0, value_range)`` (class label, word id ...)."""
    return InputType(value_range, seq_type, DataType.Index)


dense_vector = dense_slot
sparse_binary_vector = sparse_non_value_slot
sparse_vector = sparse_value_slot
integer_value = index_slot
# v0.10 name for dense input whose samples are multi-dimensional arrays.
dense_array = dense_slot


def dense_vector_sequence(dim):
    return dense_vector(dim, seq_type=SequenceType.SEQUENCE)


def dense_vector_sub_sequence(dim):
    return dense_vector(dim, seq_type=SequenceType.SUB_SEQUENCE)


def sparse_binary_vector_sequence(dim):
    return sparse_binary_vector(dim, seq_type=SequenceType.SEQUENCE)


def sparse_binary_vector_sub_sequence(dim):
    return sparse_binary_vector(dim, seq_type=SequenceType.SUB_SEQUENCE)


def sparse_vector_sequence(dim):
    return sparse_vector(dim, seq_type=SequenceType.SEQUENCE)


def sparse_vector_sub_sequence(dim):
    return sparse_vector(dim, seq_type=SequenceType.SUB_SEQUENCE)


def integer_value_sequence(value_range):
    return integer_value(value_range, seq_type=SequenceType.SEQUENCE)


def integer_value_sub_sequence(value_range):
    return integer_value(value_range, seq_type=SequenceType.SUB_SEQUENCE)


integer_sequence = integer_value_sequence
