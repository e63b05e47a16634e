"""Bulk conversion of samples into SlotData buffers (convert_samples)."""

import numpy as np
import pytest

from paddle.trainer.PyDataProvider2 import (
    DataError, DataType, SequenceType, dense_vector, dense_vector_sequence,
    dense_vector_sub_sequence, integer_value, integer_value_sequence,
    integer_value_sub_sequence, sparse_binary_vector,
    sparse_binary_vector_sequence, sparse_vector, sparse_vector_sequence)
from paddle.trainer.data_provider import SlotData, convert_samples


def one(input_type, values):
    """Converts a single-slot batch."""
    slots = convert_samples([input_type], [[v] for v in values])
    assert len(slots) == 1 and isinstance(slots[0], SlotData)
    return slots[0]


def test_dense_lists():
    s = one(dense_vector(3), [[1, 2, 3], [4.5, 5, 6]])
    assert s.value.dtype == np.float32 and s.value.flags.c_contiguous
    np.testing.assert_array_equal(s.value, [[1, 2, 3], [4.5, 5, 6]])
    assert s.ids is None and s.seq_starts is None and s.sub_seq_starts is None
    assert s.sparse_rows is None
    assert (s.dim, s.data_type, s.seq_type, s.rows) == (3, DataType.Dense, 0, 2)


def test_dense_numpy_samples_any_shape_and_dtype():
    a = np.arange(6, dtype=np.float64).reshape(2, 3)   # flattened like v0.10
    b = np.arange(6, 12, dtype=np.int16).reshape(3, 2)
    s = one(dense_vector(6), [a, b])
    assert s.value.dtype == np.float32 and s.value.flags.c_contiguous
    np.testing.assert_array_equal(s.value, np.arange(12).reshape(2, 6))


def test_dense_sequence_offsets_lists_and_arrays():
    seqs = [[[1, 1], [2, 2], [3, 3]], [], [[4, 4]]]
    s = one(dense_vector_sequence(2), seqs)
    np.testing.assert_array_equal(s.seq_starts, [0, 3, 3, 4])
    assert s.seq_starts.dtype == np.int32
    np.testing.assert_array_equal(s.value[:, 0], [1, 2, 3, 4])
    s2 = one(dense_vector_sequence(2), [np.array(x, dtype=np.float32).reshape(-1, 2)
                                        for x in seqs])
    np.testing.assert_array_equal(s2.value, s.value)
    np.testing.assert_array_equal(s2.seq_starts, s.seq_starts)
    assert s.num_sequences == 3


def test_index_and_index_sequence():
    s = one(integer_value(10), [3, 0, 9, np.int64(4)])
    assert s.ids.dtype == np.int32 and s.value is None
    np.testing.assert_array_equal(s.ids, [3, 0, 9, 4])
    q = one(integer_value_sequence(100), [[5, 6, 7], [8], [], [9, 10]])
    np.testing.assert_array_equal(q.ids, [5, 6, 7, 8, 9, 10])
    np.testing.assert_array_equal(q.seq_starts, [0, 3, 4, 4, 6])
    q2 = one(integer_value_sequence(100), [np.array([5, 6, 7]), np.array([8])])
    np.testing.assert_array_equal(q2.ids, [5, 6, 7, 8])
    np.testing.assert_array_equal(q2.seq_starts, [0, 3, 4])


def test_sub_sequence_offsets_are_in_rows():
    samples = [
        [[1, 2], [3]],          # 2 sub-sequences, 3 rows
        [[4], [5, 6, 7], []],   # 3 sub-sequences (one empty), 4 rows
        [[8]],
    ]
    s = one(integer_value_sub_sequence(10), samples)
    np.testing.assert_array_equal(s.ids, [1, 2, 3, 4, 5, 6, 7, 8])
    np.testing.assert_array_equal(s.seq_starts, [0, 3, 7, 8])
    np.testing.assert_array_equal(s.sub_seq_starts, [0, 2, 3, 4, 7, 7, 8])
    assert s.sub_seq_starts.dtype == np.int32
    # top-level offsets are a subset of the sub-sequence offsets
    assert set(s.seq_starts) <= set(s.sub_seq_starts)
    d = one(dense_vector_sub_sequence(2), [[[[1, 1]], [[2, 2], [3, 3]]]])
    np.testing.assert_array_equal(d.seq_starts, [0, 3])
    np.testing.assert_array_equal(d.sub_seq_starts, [0, 1, 3])
    assert d.value.shape == (3, 2)


def test_sparse_binary_csr():
    s = one(sparse_binary_vector(10), [[1, 5, 9], [], [0]])
    assert s.value is None and s.is_sparse
    np.testing.assert_array_equal(s.sparse_rows, [0, 3, 3, 4])
    np.testing.assert_array_equal(s.sparse_cols, [1, 5, 9, 0])
    assert s.sparse_rows.dtype == np.int32 and s.sparse_cols.dtype == np.int32
    assert s.sparse_values is None
    assert s.rows == 3


def test_sparse_value_csr():
    s = one(sparse_vector(8), [[(1, 0.5), (7, -2.0)], [(3, 1)]])
    np.testing.assert_array_equal(s.sparse_rows, [0, 2, 3])
    np.testing.assert_array_equal(s.sparse_cols, [1, 7, 3])
    assert s.sparse_values.dtype == np.float32
    np.testing.assert_array_equal(s.sparse_values, [0.5, -2.0, 1.0])


def test_sparse_sequences_rows_are_timesteps():
    s = one(sparse_binary_vector_sequence(6), [[[1], [2, 3]], [[5]]])
    np.testing.assert_array_equal(s.seq_starts, [0, 2, 3])
    np.testing.assert_array_equal(s.sparse_rows, [0, 1, 3, 4])
    np.testing.assert_array_equal(s.sparse_cols, [1, 2, 3, 5])
    v = one(sparse_vector_sequence(6), [[[(0, 1.5)]], [[], [(4, 2.5)]]])
    np.testing.assert_array_equal(v.seq_starts, [0, 1, 3])
    np.testing.assert_array_equal(v.sparse_rows, [0, 1, 1, 2])
    np.testing.assert_array_equal(v.sparse_values, [1.5, 2.5])


def test_all_empty_sparse_batch():
    s = one(sparse_vector(4), [[], []])
    np.testing.assert_array_equal(s.sparse_rows, [0, 0, 0])
    assert s.sparse_cols.size == 0 and s.sparse_values.size == 0


def test_multi_slot_order_and_names():
    slots = convert_samples(
        [dense_vector(2), integer_value(3)],
        [([0.0, 1.0], 2), [[2.0, 3.0], 0]], slot_names=["x", "y"])
    assert [s.name for s in slots] == ["x", "y"]
    np.testing.assert_array_equal(slots[0].value, [[0, 1], [2, 3]])
    np.testing.assert_array_equal(slots[1].ids, [2, 0])


def test_empty_batch():
    slots = convert_samples([dense_vector(3), integer_value(2)], [])
    assert slots[0].value.shape == (0, 3) and slots[1].ids.shape == (0,)


# --- errors ----------------------------------------------------------------

def err(input_types, samples, names=None):
    with pytest.raises(DataError) as info:
        convert_samples(input_types, samples, slot_names=names)
    return info.value


def test_wrong_dense_length_names_sample_and_slot():
    e = err([integer_value(2), dense_vector(3)],
            [(0, [1, 2, 3]), (1, [1, 2, 3]), (0, [1, 2])], names=["l", "x"])
    assert e.sample_index == 2 and e.slot_index == 1 and e.slot_name == "x"
    msg = str(e)
    assert "sample 2" in msg and "'x'" in msg and "dense_vector(3)" in msg
    assert "3 numbers, got 2" in msg


def test_dense_numpy_wrong_size():
    e = err([dense_vector(4)], [[np.zeros(4)], [np.zeros(5)]])
    assert e.sample_index == 1 and "got 5" in str(e)


def test_dense_non_numeric():
    e = err([dense_vector(2)], [[[1.0, 2.0]], [["a", "b"]]])
    assert e.sample_index == 1 and e.slot_index == 0


def test_id_out_of_range():
    e = err([integer_value(5)], [[1], [4], [5]])
    assert e.sample_index == 2
    assert "5 out of range [0, 5)" in str(e)
    e = err([integer_value(5)], [[1], [-2]])
    assert e.sample_index == 1 and "-2" in str(e)


def test_ignored_id_passes_as_minus_one():
    """v1's integer slots take 0xffffffff (or -1) as "no id"; table lookups skip it."""
    slots = convert_samples([integer_value(5)], [[1], [0xffffffff], [-1], [4]])
    np.testing.assert_array_equal(slots[0].ids, [1, -1, -1, 4])


def test_id_wrong_type():
    e = err([integer_value(5)], [[1], [2.5]])
    assert e.sample_index == 1 and "integer" in str(e)
    e = err([integer_value(5)], [[1], ["3"]])
    assert e.sample_index == 1


def test_sequence_id_error_names_timestep():
    e = err([integer_value_sequence(4)], [[[0, 1]], [[2, 3, 4]]])
    assert e.sample_index == 1 and "timestep 2" in str(e)


def test_sequence_slot_given_scalar():
    e = err([integer_value_sequence(4)], [[[0, 1]], [3]])
    assert e.sample_index == 1 and "expected a sequence" in str(e)


def test_sub_sequence_error_location():
    e = err([integer_value_sub_sequence(4)], [[[[0], [1, 9]]]])
    assert e.sample_index == 0 and "sub-sequence 1, timestep 1" in str(e)
    e = err([integer_value_sub_sequence(4)],
            [[[[0], [1]]], [[[], [], [1, 2], [3, 0, 7]]]])
    assert e.sample_index == 1 and "sub-sequence 3, timestep 2" in str(e)


def test_sparse_errors():
    e = err([sparse_binary_vector(4)], [[[0, 1]], [[3, 4]]])
    assert e.sample_index == 1 and "sparse id 4 out of range" in str(e)
    e = err([sparse_vector(4)], [[[(0, 1.0)]], [[(1.5, 1.0)]]])
    assert e.sample_index == 1 and "integer" in str(e)
    e = err([sparse_vector(4)], [[[(0, 1.0)]], [[(1, 1.0, 3)]]])
    assert e.sample_index == 1 and "pair" in str(e)


def test_slot_count_mismatch():
    e = err([dense_vector(1), integer_value(2)], [([1.0], 1), ([1.0],)])
    assert e.sample_index == 1 and "2 slot values" in str(e)
