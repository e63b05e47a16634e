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
    """The sequence level of an input slot (the ``seq_type`` of an InputType).

    - ``NO_SEQUENCE`` (0): one value per sample;
    - ``SEQUENCE`` (1): a sample is a list of time steps, each one value
      (a sentence as a list of word ids);
    - ``SUB_SEQUENCE`` (2): a sample is a list of sub-sequences, each a list of
      time steps (a paragraph as a list of sentences), for the nested-sequence
      layers and recurrent groups.

    Sequences may not be empty (the engine refuses a batch holding one).

    Example:
        >>> integer_value_sequence(100).seq_type == SequenceType.SEQUENCE
        True
        >>> dense_vector(4, seq_type=SequenceType.SUB_SEQUENCE)
        dense_vector_sub_sequence(4)
    """
    NO_SEQUENCE = 0
    SEQUENCE = 1
    SUB_SEQUENCE = 2


class DataType(object):
    """The kind of value of an input slot (the ``type`` of an InputType).

    - ``Dense`` (0): a vector of ``dim`` floats;
    - ``SparseNonValue`` (1): a 0/1 vector of size ``dim``, given as its non-zero ids;
    - ``SparseValue`` (2): a float vector of size ``dim``, given as (id, value) pairs;
    - ``Index`` (3): one integer id in [0, dim[ (a label, a word id).

    Example:
        >>> sparse_binary_vector(1000).type == DataType.SparseNonValue
        True
        >>> integer_value(10).type == DataType.Index
        True
    """
    Dense = 0
    SparseNonValue = 1
    SparseValue = 2
    Index = 3


class CacheType(object):
    """How a provider's samples are kept between passes (``@provider(cache=...)``).

    - ``NO_CACHE`` (0, the default): every pass runs the generator again over the
      file list;
    - ``CACHE_PASS_IN_MEM`` (1): the first pass runs the generator and keeps every
      sample in memory; later passes replay them (shuffled again when shuffling is
      on) without calling the generator. For data that fits in memory and is slow
      to read or parse.

    Example:
        >>> @provider(input_types=[integer_value(3)], cache=CacheType.CACHE_PASS_IN_MEM)
        ... def process(settings, filename):
        ...     yield [1]
        >>> process(file_list=['a']).cache == CacheType.CACHE_PASS_IN_MEM
        True
    """
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
    """Declares one input slot of a provider: its dimension, sequence level and
    data type.

    Write it with the constructors (dense_vector(784), integer_value(10),
    sparse_binary_vector_sequence(30000), ...) rather than by hand. Each slot feeds
    the data layer of the same name (input_types given as a dict) or at the same
    position (a list); the data layer's size should be ``dim``. Two InputTypes are
    equal when all three fields are; the repr is the constructor call.

    Args:
        dim (int): the vector size for dense and sparse slots; the number of
            distinct ids (ids are 0..dim-1) for integer slots.
        seq_type (int): a SequenceType value.
        tp (int): a DataType value (stored as ``type``).

    Example:
        >>> t = InputType(3, SequenceType.SEQUENCE, DataType.Dense)
        >>> t, t == dense_vector_sequence(3), t.dim
        (dense_vector_sequence(3), True, 3)
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
    """A dense float slot (alias dense_vector; dense_array in v0.10).

    Each value is ``dim`` numbers: a list, a tuple or a numpy array of any shape
    holding ``dim`` elements (an image as a C x H x W array is fine). It is
    converted to float32; with ``check=True`` a wrong size or a NaN / inf is a
    DataError.

    Args:
        dim (int): the number of values (the data layer's size).
        seq_type (int, default SequenceType.NO_SEQUENCE): the sequence level; a
            sequence value is a list of such vectors.

    Returns:
        InputType: the slot declaration.

    Example:
        >>> dense_vector(784)
        dense_vector(784)
        >>> dense_slot(2, seq_type=SequenceType.SEQUENCE) == dense_vector_sequence(2)
        True
    """
    return InputType(dim, seq_type, DataType.Dense)


def sparse_non_value_slot(dim, seq_type=SequenceType.NO_SEQUENCE):
    """A sparse binary slot (alias sparse_binary_vector): a 0/1 vector of size
    ``dim`` given as the list of the ids that are 1.

    Ids are ints in [0, dim[ and, with ``check=True``, must be unique. An empty
    list is an all-zero vector. Bag-of-words features are the usual use.

    Args:
        dim (int): the vector size (the data layer's size).
        seq_type (int, default SequenceType.NO_SEQUENCE): the sequence level.

    Returns:
        InputType: the slot declaration.

    Example:
        >>> @provider(input_types={'words': sparse_binary_vector(10000)})
        ... def process(settings, filename):
        ...     yield {'words': [3, 17, 256]}
        >>> s = process(file_list=['a'])
        >>> s.slots, list(s.generator(s, 'a'))
        ([sparse_binary_vector(10000)], [{'words': [3, 17, 256]}])
    """
    return InputType(dim, seq_type, DataType.SparseNonValue)


def sparse_value_slot(dim, seq_type=SequenceType.NO_SEQUENCE):
    """A sparse float slot (alias sparse_vector): a vector of size ``dim`` given as
    a list of ``(id, value)`` pairs; ids not listed are 0.

    Ids are ints in [0, dim[ (unique with ``check=True``), values finite numbers.

    Args:
        dim (int): the vector size (the data layer's size).
        seq_type (int, default SequenceType.NO_SEQUENCE): the sequence level.

    Returns:
        InputType: the slot declaration.

    Example:
        >>> t = sparse_value_slot(5)
        >>> t, t.type == DataType.SparseValue
        (sparse_vector(5), True)
    """
    return InputType(dim, seq_type, DataType.SparseValue)


def index_slot(value_range, seq_type=SequenceType.NO_SEQUENCE):
    """An integer slot (alias integer_value): one id in [0, value_range[ per time
    step, e.g. a class label or a word id.

    Feeds label inputs of the cost layers and the ids of embedding_layer /
    table_projection (whose data layer has size value_range).

    Args:
        value_range (int): the number of distinct ids.
        seq_type (int, default SequenceType.NO_SEQUENCE): the sequence level.

    Returns:
        InputType: the slot declaration.

    Example:
        >>> index_slot(10), integer_value(10).dim
        (integer_value(10), 10)
    """
    return InputType(value_range, seq_type, DataType.Index)


dense_vector = dense_slot
sparse_binary_vector = sparse_non_value_slot
sparse_vector = sparse_value_slot
integer_value = index_slot
# v0.10 name for dense input whose samples are multi-dimensional arrays.
dense_array = dense_slot


def dense_vector_sequence(dim):
    """A sequence of dense vectors: a sample is a list of time steps, each ``dim``
    numbers (e.g. the frames of an utterance).

    Same as the non-sequence constructor with ``seq_type=SequenceType.SEQUENCE``. Every
    sequence needs at least one time step.

    Args:
        dim (int): the size of each vector.

    Returns:
        InputType: the slot declaration.

    Example:
        >>> @provider(input_types=[dense_vector_sequence(2)])
        ... def process(settings, filename):
        ...     yield [[0.1, 0.2], [0.3, 0.4], [0.5, 0.6]]
        >>> s = process(file_list=['a'])
        >>> s.slots[0].seq_type == SequenceType.SEQUENCE, next(s.generator(s, 'a'))
        (True, [[0.1, 0.2], [0.3, 0.4], [0.5, 0.6]])
    """
    return dense_vector(dim, seq_type=SequenceType.SEQUENCE)


def dense_vector_sub_sequence(dim):
    """A sequence of sequences of dense vectors: a sample is a list of
    sub-sequences, each a list of ``dim``-number vectors.

    Same as the non-sequence constructor with ``seq_type=SequenceType.SUB_SEQUENCE``. Every
    sequence needs at least one time step.

    Args:
        dim (int): the size of each vector.

    Returns:
        InputType: the slot declaration.

    Example:
        >>> @provider(input_types=[dense_vector_sub_sequence(2)])
        ... def process(settings, filename):
        ...     yield [[[1, 2]], [[3, 4], [5, 6]]]
        >>> s = process(file_list=['a'])
        >>> s.slots[0].seq_type == SequenceType.SUB_SEQUENCE, next(s.generator(s, 'a'))
        (True, [[[1, 2]], [[3, 4], [5, 6]]])
    """
    return dense_vector(dim, seq_type=SequenceType.SUB_SEQUENCE)


def sparse_binary_vector_sequence(dim):
    """A sequence of sparse binary vectors: a sample is a list of time steps, each
    the list of ids that are 1 (ids in [0, dim[).

    Same as the non-sequence constructor with ``seq_type=SequenceType.SEQUENCE``. Every
    sequence needs at least one time step.

    Args:
        dim (int): the vector size.

    Returns:
        InputType: the slot declaration.

    Example:
        >>> @provider(input_types=[sparse_binary_vector_sequence(10)])
        ... def process(settings, filename):
        ...     yield [[1, 5], [2], [7, 8, 9]]
        >>> s = process(file_list=['a'])
        >>> s.slots[0].seq_type == SequenceType.SEQUENCE, next(s.generator(s, 'a'))
        (True, [[1, 5], [2], [7, 8, 9]])
    """
    return sparse_binary_vector(dim, seq_type=SequenceType.SEQUENCE)


def sparse_binary_vector_sub_sequence(dim):
    """A sequence of sequences of sparse binary vectors: a sample is a list of
    sub-sequences, each a list of id lists.

    Same as the non-sequence constructor with ``seq_type=SequenceType.SUB_SEQUENCE``. Every
    sequence needs at least one time step.

    Args:
        dim (int): the vector size.

    Returns:
        InputType: the slot declaration.

    Example:
        >>> @provider(input_types=[sparse_binary_vector_sub_sequence(10)])
        ... def process(settings, filename):
        ...     yield [[[1, 5], [2]], [[7]]]
        >>> s = process(file_list=['a'])
        >>> s.slots[0].seq_type == SequenceType.SUB_SEQUENCE, next(s.generator(s, 'a'))
        (True, [[[1, 5], [2]], [[7]]])
    """
    return sparse_binary_vector(dim, seq_type=SequenceType.SUB_SEQUENCE)


def sparse_vector_sequence(dim):
    """A sequence of sparse float vectors: a sample is a list of time steps, each
    a list of ``(id, value)`` pairs.

    Same as the non-sequence constructor with ``seq_type=SequenceType.SEQUENCE``. Every
    sequence needs at least one time step.

    Args:
        dim (int): the vector size.

    Returns:
        InputType: the slot declaration.

    Example:
        >>> @provider(input_types=[sparse_vector_sequence(10)])
        ... def process(settings, filename):
        ...     yield [[(1, 0.5)], [(2, 1.0), (9, -1.0)]]
        >>> s = process(file_list=['a'])
        >>> s.slots[0].seq_type == SequenceType.SEQUENCE, next(s.generator(s, 'a'))
        (True, [[(1, 0.5)], [(2, 1.0), (9, -1.0)]])
    """
    return sparse_vector(dim, seq_type=SequenceType.SEQUENCE)


def sparse_vector_sub_sequence(dim):
    """A sequence of sequences of sparse float vectors: a sample is a list of
    sub-sequences, each a list of ``(id, value)`` pair lists.

    Same as the non-sequence constructor with ``seq_type=SequenceType.SUB_SEQUENCE``. Every
    sequence needs at least one time step.

    Args:
        dim (int): the vector size.

    Returns:
        InputType: the slot declaration.

    Example:
        >>> @provider(input_types=[sparse_vector_sub_sequence(10)])
        ... def process(settings, filename):
        ...     yield [[[(1, 0.5)]], [[(2, 1.0)], [(3, 2.0)]]]
        >>> s = process(file_list=['a'])
        >>> s.slots[0].seq_type == SequenceType.SUB_SEQUENCE, next(s.generator(s, 'a'))
        (True, [[[(1, 0.5)]], [[(2, 1.0)], [(3, 2.0)]]])
    """
    return sparse_vector(dim, seq_type=SequenceType.SUB_SEQUENCE)


def integer_value_sequence(value_range):
    """A sequence of ids (alias integer_sequence): a sample is a list of ints in
    [0, value_range[, e.g. the word ids of a sentence fed to embedding_layer.

    Same as the non-sequence constructor with ``seq_type=SequenceType.SEQUENCE``. Every
    sequence needs at least one time step.

    Args:
        value_range (int): the number of distinct ids.

    Returns:
        InputType: the slot declaration.

    Example:
        >>> @provider(input_types=[integer_value_sequence(100)])
        ... def process(settings, filename):
        ...     yield [4, 8, 15, 16]
        >>> s = process(file_list=['a'])
        >>> s.slots[0].seq_type == SequenceType.SEQUENCE, next(s.generator(s, 'a'))
        (True, [4, 8, 15, 16])
    """
    return integer_value(value_range, seq_type=SequenceType.SEQUENCE)


def integer_value_sub_sequence(value_range):
    """A sequence of sequences of ids: a sample is a list of sub-sequences, each a
    list of ints in [0, value_range[ (a paragraph as sentences of word ids).

    Same as the non-sequence constructor with ``seq_type=SequenceType.SUB_SEQUENCE``. Every
    sequence needs at least one time step.

    Args:
        value_range (int): the number of distinct ids.

    Returns:
        InputType: the slot declaration.

    Example:
        >>> @provider(input_types=[integer_value_sub_sequence(100)])
        ... def process(settings, filename):
        ...     yield [[4, 8], [15, 16, 23]]
        >>> s = process(file_list=['a'])
        >>> s.slots[0].seq_type == SequenceType.SUB_SEQUENCE, next(s.generator(s, 'a'))
        (True, [[4, 8], [15, 16, 23]])
    """
    return integer_value(value_range, seq_type=SequenceType.SUB_SEQUENCE)


integer_sequence = integer_value_sequence
