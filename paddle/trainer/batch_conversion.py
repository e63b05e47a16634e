"""Bulk conversion of PyDataProvider2 samples into numpy buffers the engine copies
in one go (SlotData per input slot, Batch per batch), with the first bad sample named."""
import itertools

import numpy as np

from paddle.trainer.PyDataProvider2 import (DataError, DataType, InputType, SequenceType, _check_leaf,
                                            _describe)

__all__ = ['SlotData', 'Batch', 'convert_samples', 'IGNORED_ID']

IGNORED_ID = 0xffffffff  # v1's integer value meaning "no id"


# ---------------------------------------------------------------------------
# Converted data
# ---------------------------------------------------------------------------

class SlotData(object):
    """One input slot of a batch, ready to be copied into the engine.

    ``value``          float32 C-contiguous ``[rows, dim]`` (dense slots), else None
    ``ids``            int32 ``[rows]`` (integer slots), else None
    ``seq_starts``     int32 ``[num_sequences + 1]`` row offsets (sequence and
                       sub-sequence slots), else None
    ``sub_seq_starts`` int32 ``[num_sub_sequences + 1]`` row offsets
                       (sub-sequence slots), else None
    ``sparse_rows``    int32 CSR row offsets ``[rows + 1]`` (sparse slots)
    ``sparse_cols``    int32 column ids ``[nnz]`` (sparse slots)
    ``sparse_values``  float32 ``[nnz]`` (sparse_vector slots; None for
                       sparse_binary_vector, where every value is 1)
    ``dim``            the declared dimension (value range for integer slots)
    ``data_type`` / ``seq_type``  the DataType / SequenceType codes
    ``name``           the data layer name, when known

    A row is one time step of a sequence, or one sample otherwise.
    """
    __slots__ = ('value', 'ids', 'seq_starts', 'sub_seq_starts', 'sparse_rows',
                 'sparse_cols', 'sparse_values', 'dim', 'data_type', 'seq_type',
                 'name')

    def __init__(self, dim, data_type, seq_type=SequenceType.NO_SEQUENCE,
                 value=None, ids=None, seq_starts=None, sub_seq_starts=None,
                 sparse_rows=None, sparse_cols=None, sparse_values=None,
                 name=None):
        self.dim = dim
        self.data_type = data_type
        self.seq_type = seq_type
        self.value = value
        self.ids = ids
        self.seq_starts = seq_starts
        self.sub_seq_starts = sub_seq_starts
        self.sparse_rows = sparse_rows
        self.sparse_cols = sparse_cols
        self.sparse_values = sparse_values
        self.name = name

    @property
    def is_sparse(self):
        return self.sparse_rows is not None

    @property
    def rows(self):
        """Number of rows (time steps, or samples for non-sequence slots)."""
        if self.value is not None:
            return self.value.shape[0]
        if self.ids is not None:
            return self.ids.shape[0]
        if self.sparse_rows is not None:
            return self.sparse_rows.shape[0] - 1
        return 0

    @property
    def num_sequences(self):
        """Number of top-level sequences (samples), or rows without them."""
        if self.seq_starts is not None:
            return self.seq_starts.shape[0] - 1
        return self.rows

    def __repr__(self):
        parts = ["dim=%d" % self.dim, "rows=%d" % self.rows]
        if self.name is not None:
            parts.insert(0, repr(self.name))
        for field in ('value', 'ids', 'sparse_cols', 'sparse_values'):
            arr = getattr(self, field)
            if arr is not None:
                parts.append("%s=%s%s" % (field, arr.dtype, list(arr.shape)))
        if self.seq_starts is not None:
            parts.append("sequences=%d" % (self.seq_starts.shape[0] - 1))
        if self.sub_seq_starts is not None:
            parts.append("sub_sequences=%d" % (self.sub_seq_starts.shape[0] - 1))
        return "SlotData(%s)" % ", ".join(parts)


class Batch(object):
    """A batch: ``slots`` (list of :class:`SlotData` in input_layer_names
    order), ``num_samples`` (samples in the batch), ``size`` (the batch size
    as counted by ``calc_batch_size``; equals num_samples without it) and
    ``names`` (the data layer names).  ``batch[i]`` / ``batch['name']``
    index the slots.  ``origins``: each sample's (file list index, sample
    index in that entry), when a provider made the batch."""
    __slots__ = ('slots', 'num_samples', 'size', 'names', 'origins')

    def __init__(self, slots, num_samples, size=None, names=None, origins=None):
        self.slots = slots
        self.origins = origins
        self.num_samples = num_samples
        self.size = num_samples if size is None else size
        self.names = list(names) if names is not None else [
            s.name for s in slots]

    def __getitem__(self, key):
        if isinstance(key, str):
            try:
                return self.slots[self.names.index(key)]
            except ValueError:
                raise KeyError("no slot named %r (slots: %s)" %
                               (key, ", ".join(map(repr, self.names))))
        return self.slots[key]

    def __repr__(self):
        return "Batch(num_samples=%d, size=%d, slots=%r)" % (
            self.num_samples, self.size, self.slots)


# ---------------------------------------------------------------------------
# Bulk conversion
# ---------------------------------------------------------------------------

class _SlotError(Exception):
    """Bad value in a batch: ``pos`` is the sample position in the batch."""

    def __init__(self, pos, slot, detail):
        Exception.__init__(self, detail)
        self.pos = pos
        self.slot = slot
        self.detail = detail


_EMPTY_I32 = np.zeros(0, dtype=np.int32)


def _offsets(lengths):
    out = np.zeros(len(lengths) + 1, dtype=np.int32)
    if len(lengths):
        np.cumsum(lengths, out=out[1:])
    return out


def _seq_len(value):
    """len() of a value that is a sequence of steps, else None."""
    if isinstance(value, (str, bytes, dict)):
        return None
    if isinstance(value, np.ndarray) and value.ndim == 0:
        return None
    try:
        return len(value)
    except TypeError:
        return None


def _flatten(column, seq_type, slot):
    """Flattens a slot's per-sample values into rows.

    Returns ``(rows, seq_starts, sub_seq_starts, first_subs)``; rows is a
    list (or an ndarray when every sample was one); first_subs[i] is the
    index of sample i's first sub-sequence (sub-sequence slots only)."""
    if seq_type == SequenceType.NO_SEQUENCE:
        return column, None, None, None
    if seq_type == SequenceType.SEQUENCE:
        lens = [_seq_len(x) for x in column]
        if None in lens:
            pos = lens.index(None)
            raise _SlotError(pos, slot, "expected a sequence, got %s" %
                             _describe(column[pos]))
        starts = _offsets(lens)
        if column and all(isinstance(x, np.ndarray) for x in column):
            try:
                return np.concatenate(column, axis=0), starts, None, None
            except ValueError:
                pass
        return (list(itertools.chain.from_iterable(column)), starts, None,
                None)
    if seq_type == SequenceType.SUB_SEQUENCE:
        sub_lens = []
        totals = []
        counts = []
        for pos, sample in enumerate(column):
            count = _seq_len(sample)
            if count is None:
                raise _SlotError(pos, slot,
                                 "expected a sequence of sub-sequences, got %s" %
                                 _describe(sample))
            total = 0
            for k, sub in enumerate(sample):
                n = _seq_len(sub)
                if n is None:
                    raise _SlotError(pos, slot,
                                     "sub-sequence %d: expected a sequence, got %s"
                                     % (k, _describe(sub)))
                sub_lens.append(n)
                total += n
            totals.append(total)
            counts.append(count)
        rows = list(itertools.chain.from_iterable(
            itertools.chain.from_iterable(column)))
        return rows, _offsets(totals), _offsets(sub_lens), _offsets(counts)
    raise _SlotError(0, slot, "unsupported sequence type %r" % (seq_type,))


class _BadRows(Exception):
    """Raised by the fast paths when rows need a per-row diagnosis; ``row``
    is set when the offending row is already known."""

    def __init__(self, row=None, detail=None):
        Exception.__init__(self, detail)
        self.row = row
        self.detail = detail


def _dense_rows(rows, nrows, dim):
    if nrows == 0:
        return np.zeros((0, dim), dtype=np.float32)
    arr = rows if isinstance(rows, np.ndarray) else None
    if arr is None:
        try:
            arr = np.asarray(rows)
        except (ValueError, TypeError):   # ragged: rows of different shapes
            arr = None
    if (arr is not None and arr.dtype.kind in 'biuf' and arr.ndim >= 1 and
            arr.shape[0] == nrows and
            (arr.ndim == 1 and dim == 1 or
             arr.ndim >= 2 and int(np.prod(arr.shape[1:])) == dim)):
        return np.ascontiguousarray(arr.reshape(nrows, dim), dtype=np.float32)
    # Slow path, one row at a time: rows that are arrays of different shapes
    # but the right size, or a bad row to report.
    out = np.empty((nrows, dim), dtype=np.float32)
    for r, row in enumerate(rows):
        try:
            a = np.asarray(row)
        except (ValueError, TypeError):
            raise _BadRows(r)
        if a.dtype.kind not in 'biuf' or a.size != dim:
            raise _BadRows(r)
        out[r] = a.reshape(dim)
    return out


def _has_bool(values):
    """Whether a list holds a bool (numpy would take True as 1)."""
    types = set(map(type, values))
    return bool in types or np.bool_ in types


def _index_rows(rows, nrows, dim):
    if nrows == 0:
        return _EMPTY_I32
    if isinstance(rows, np.ndarray):
        arr = rows
    elif _has_bool(rows):
        raise _BadRows()  # the per-row diagnosis names it
    else:
        try:
            arr = np.asarray(rows)
        except (ValueError, TypeError):
            raise _BadRows()
    if arr.ndim != 1 or arr.shape[0] != nrows or arr.dtype.kind not in 'iu':
        raise _BadRows()
    bad = (arr < 0) | (arr >= dim)
    if bad.any():
        # v1's "ignored" id: 0xffffffff (or -1), e.g. a rare word; table lookups skip it
        ignored = (arr == IGNORED_ID) | (arr == -1)
        bad &= ~ignored
        if bad.any():
            row = int(np.argmax(bad))
            raise _BadRows(row, "integer value %d out of range [0, %d) (0xffffffff or -1: ignored)" %
                           (int(arr[row]), dim))
        return np.where(ignored, -1, arr).astype(np.int32)
    return arr.astype(np.int32)


def _sparse_rows(rows, nrows, dim, with_values):
    if nrows == 0:
        return _offsets([]), _EMPTY_I32, (np.zeros(0, np.float32)
                                          if with_values else None)
    lens = [_seq_len(r) for r in rows]
    if None in lens:
        raise _BadRows(lens.index(None))
    offsets = _offsets(lens)
    nnz = int(offsets[-1])
    if nnz == 0:
        return offsets, _EMPTY_I32, (np.zeros(0, np.float32)
                                     if with_values else None)
    flat = list(itertools.chain.from_iterable(rows))
    try:
        arr = np.asarray(flat)
    except (ValueError, TypeError):
        raise _BadRows()
    if with_values:
        if arr.ndim != 2 or arr.shape != (nnz, 2) or arr.dtype.kind not in 'iuf':
            raise _BadRows()
        ids = arr[:, 0]
        values = arr[:, 1].astype(np.float32)
        if ids.dtype.kind == 'f':
            nonint = ids != np.floor(ids)
            if nonint.any():
                k = int(np.argmax(nonint))
                raise _BadRows(int(np.searchsorted(offsets, k, 'right')) - 1,
                               "sparse id must be an integer, got %r" %
                               (float(ids[k]),))
        if _has_bool([pair[0] for pair in flat]):
            raise _BadRows()
    else:
        if arr.ndim != 1 or arr.shape[0] != nnz or arr.dtype.kind not in 'iu' or _has_bool(flat):
            raise _BadRows()
        ids = arr
        values = None
    bad = (ids < 0) | (ids >= dim)
    if bad.any():
        k = int(np.argmax(bad))
        raise _BadRows(int(np.searchsorted(offsets, k, 'right')) - 1,
                       "sparse id %d out of range [0, %d)" % (int(ids[k]), dim))
    # an id twice in one row: the engine would count it twice (or keep one of two values)
    row_of = np.repeat(np.arange(nrows), lens)
    order = np.lexsort((ids, row_of))
    same = (ids[order][1:] == ids[order][:-1]) & (row_of[order][1:] == row_of[order][:-1])
    if same.any():
        k = order[int(np.argmax(same))]
        raise _BadRows(int(row_of[k]), "sparse ids are not unique: id %d appears twice" % int(ids[k]))
    return offsets, ids.astype(np.int32), values


def _locate(row, seq_starts, sub_seq_starts, first_subs):
    """Maps a flat row to (sample position, description of the step).
    Searching with side='right' skips empty sequences starting at the row."""
    if seq_starts is None:
        return row, ""
    pos = int(np.searchsorted(seq_starts, row, 'right')) - 1
    if sub_seq_starts is None:
        return pos, "timestep %d: " % (row - int(seq_starts[pos]))
    sub = int(np.searchsorted(sub_seq_starts, row, 'right')) - 1
    return pos, "sub-sequence %d, timestep %d: " % (
        sub - int(first_subs[pos]), row - int(sub_seq_starts[sub]))


def _convert_slot(input_type, column, slot, name=None):
    rows, seq_starts, sub_seq_starts, first_subs = _flatten(
        column, input_type.seq_type, slot)
    nrows = rows.shape[0] if isinstance(rows, np.ndarray) else len(rows)
    dim = input_type.dim
    tp = input_type.type
    out = SlotData(dim, tp, input_type.seq_type, seq_starts=seq_starts,
                   sub_seq_starts=sub_seq_starts, name=name)
    try:
        if tp == DataType.Dense:
            out.value = _dense_rows(rows, nrows, dim)
        elif tp == DataType.Index:
            out.ids = _index_rows(rows, nrows, dim)
        elif tp in (DataType.SparseNonValue, DataType.SparseValue):
            (out.sparse_rows, out.sparse_cols,
             out.sparse_values) = _sparse_rows(rows, nrows, dim,
                                               tp == DataType.SparseValue)
        else:
            raise _SlotError(0, slot, "unsupported input type %r" % (input_type,))
    except _BadRows as bad:
        row, detail = bad.row, bad.detail
        if row is None or detail is None:
            for r in range(nrows) if row is None else [row]:
                err = _check_leaf(input_type, rows[r])
                if err is not None:
                    row, detail = r, err
                    break
        if row is None:
            row, detail = 0, ("could not convert the values to a %r batch" %
                              (input_type,))
        elif detail is None:
            detail = "bad value %s" % _describe(rows[row])
        pos, step = _locate(row, seq_starts, sub_seq_starts, first_subs)
        raise _SlotError(pos, slot, step + detail)
    return out


def _convert(input_types, samples, names=None):
    nslots = len(input_types)
    for pos, sample in enumerate(samples):
        n = _seq_len(sample)
        if n != nslots:
            raise _SlotError(pos, None,
                             "expected a list of %d slot values, got %s" %
                             (nslots, _describe(sample)))
    slots = []
    first_error = None
    for i, tp in enumerate(input_types):
        column = [sample[i] for sample in samples]
        try:
            slots.append(_convert_slot(tp, column, i,
                                       names[i] if names is not None else None))
        except _SlotError as err:
            # Report the earliest bad sample, whichever slot it is in.
            if first_error is None or err.pos < first_error.pos:
                first_error = err
    if first_error is not None:
        raise first_error
    return slots


def convert_samples(input_types, samples, slot_names=None):
    """Converts a list of samples into a list of :class:`SlotData`.

    ``input_types`` is a list of :class:`InputType`; each sample is a list or
    tuple holding one value per slot in that order (PyDataProvider2 formats:
    dense list/ndarray, integer, sparse id list, (id, value) pairs, nested
    lists for sequences).  Raises :class:`DataError` naming the sample index
    and slot on bad input."""
    if isinstance(input_types, InputType):
        input_types = [input_types]
    input_types = list(input_types)
    try:
        return _convert(input_types, list(samples), slot_names)
    except _SlotError as err:
        raise _slot_error_to_data_error(err, input_types, slot_names)


def _slot_error_to_data_error(err, input_types, names):
    slot = err.slot
    return DataError(
        err.detail, sample_index=err.pos, slot_index=slot,
        slot_name=names[slot] if (names is not None and slot is not None) else None,
        input_type=input_types[slot] if slot is not None else None)
