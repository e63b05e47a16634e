"""v1's non-Python data sources, read as PyDataProvider2 providers:

* SimpleData (v1's SimpleDataProvider): the file list names text files whose lines are
  "label f_1 ... f_n", one space apart, n = feat_dim * (2 * context_len + 1); the model's first
  data layer gets the features (dense), the second the label (an id).
* ProtoData (v1's ProtoDataProvider, `type='proto'`): the file list names binary files (gzip
  when they end in .gz) of DataFormat.proto messages, each a varint32 byte count and the
  message: one DataHeader (the slots: VECTOR_DENSE, VECTOR_SPARSE_NON_VALUE,
  VECTOR_SPARSE_VALUE, INDEX, with their dims), then DataSamples. Slot i feeds the model's i-th
  data layer. A sample with is_beginning=false continues the sequence before it; when no
  sample does, every slot is a single value.
* ProtoData(type='proto_sequence') (v1's ProtoSequenceDataProvider): the same files, every
  sample a sequence of its own: a VECTOR_SPARSE_NON_VALUE slot's ids are a sequence of word
  ids (none: one ignored id, -1), a VECTOR_DENSE or INDEX slot a sequence of one.

`paddle.utils.show_pb FILE` prints such a file; `write_proto_data` writes one.
"""
import gzip
import os
import stat

from google.protobuf.message import DecodeError

from paddle.proto import get_message_class
from paddle.trainer import PyDataProvider2 as dp2

__all__ = ["provider_config", "read_proto_file", "write_proto_data", "simple", "proto"]

SOURCES = ("simple", "proto", "proto_sequence")  # DataConfig types, each read by the provider of its name


def provider_config(data_config):
    """The DataConfig of the provider that reads a v1 `simple`/`proto` source (a copy of
    type py2 naming this module), or None for other types."""
    kind = data_config.type
    if kind not in SOURCES:
        return None
    if not data_config.files:
        raise ValueError("%s: files (the file list) is empty" % ("SimpleData" if kind == "simple" else "ProtoData"))
    if len(data_config.constant_slots):
        raise ValueError("DataConfig %s: constant_slots are not supported; add the constant as a "
                         "data layer's value in a PyDataProvider2 provider" % data_config.type)
    out = type(data_config)()
    out.CopyFrom(data_config)
    out.type = "py2"
    out.load_data_module, out.load_data_object = __name__, kind
    args = {"feat_dim": data_config.feat_dim, "context_len": data_config.context_len}
    out.load_data_args = _pickled(args)
    return out


def _pickled(args):
    """load_data_args as deserialize_args reads them: the latin-1 spelling of a pickle."""
    import pickle
    return pickle.dumps(args, protocol=2).decode("latin-1")


def _data_layer_sizes(model_config, input_order):
    sizes = {l.name: l.size for l in model_config.layers if l.type == "data"} if model_config is not None else {}
    return [sizes.get(n) for n in input_order]


# -- SimpleData -------------------------------------------------------------------------------

def _simple_hook(settings, feat_dim=0, context_len=0, input_order=(), model_config=None, **_):
    dim = int(feat_dim) * (2 * int(context_len) + 1)
    if dim <= 0:
        raise ValueError("SimpleData needs feat_dim > 0 (got %r)" % feat_dim)
    if len(input_order) != 2:
        raise ValueError("SimpleData feeds two data layers (features, label); the model has %d: %s"
                         % (len(input_order), ", ".join(input_order)))
    label_size = _data_layer_sizes(model_config, input_order)[1] or 2 ** 31 - 1
    settings.dim = dim
    settings.input_types = [dp2.dense_vector(dim), dp2.integer_value(label_size)]


@dp2.provider(init_hook=_simple_hook)
def simple(settings, filename):
    with open(filename) as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\r\n")
            if not line:
                continue
            pieces = line.split(" ")
            if len(pieces) != settings.dim + 1:
                raise ValueError("%s:%d: %d features, the config's SimpleData has feat_dim x (2 context_len + 1) "
                                 "= %d" % (filename, n, len(pieces) - 1, settings.dim))
            try:
                yield [float(v) for v in pieces[1:]], int(pieces[0])
            except ValueError as e:
                raise ValueError("%s:%d: %s" % (filename, n, e))


simple.wants_model_config = True


# -- ProtoData --------------------------------------------------------------------------------

def _messages():
    return get_message_class("DataHeader"), get_message_class("DataSample"), get_message_class("SlotDef")


def _varint(f):
    shift = result = 0
    while True:
        b = f.read(1)
        if not b:
            if shift:
                raise ValueError("the file ends inside a message size")
            return None
        result |= (b[0] & 0x7F) << shift
        if not b[0] & 0x80:
            return result
        shift += 7


def _open(path, mode):
    if "r" in mode:  # a FIFO would block, /dev/zero never end: only regular files are read
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            raise OSError("%s: not a regular file" % path)
        os.set_blocking(fd, True)
        f = os.fdopen(fd, mode)
        return gzip.GzipFile(fileobj=f, mode=mode) if path.endswith(".gz") else f
    return gzip.open(path, mode) if path.endswith(".gz") else open(path, mode)


def read_proto_file(path):
    """(DataHeader, iterator of DataSamples) of a v1 proto data file."""
    header_cls, sample_cls, _ = _messages()
    f = _open(path, "rb")

    def message(cls, what):
        size = _varint(f)
        if size is None:
            return None
        data = f.read(size)
        if len(data) != size:
            raise ValueError("%s: the file ends inside %s" % (path, what))
        m = cls()
        try:
            m.ParseFromString(data)
        except DecodeError as e:
            raise ValueError("%s: %s is damaged (%s)" % (path, what, e)) from None
        return m

    header = message(header_cls, "the header")
    if header is None:
        f.close()
        raise ValueError("%s: empty (no DataHeader)" % path)

    def samples():
        try:
            n = 0
            while True:
                s = message(sample_cls, "sample %d" % n)
                if s is None:
                    return
                yield s
                n += 1
        finally:
            f.close()

    return header, samples()


def write_proto_data(path, slot_defs, samples):
    """Writes a v1 proto data file: slot_defs [(SlotDef type name or number, dim)], samples
    DataSample messages (or dicts of their fields)."""
    header_cls, sample_cls, slot_cls = _messages()
    header = header_cls()
    for kind, dim in slot_defs:
        d = header.slot_defs.add()
        d.type = slot_cls.SlotType.Value(kind) if isinstance(kind, str) else kind
        d.dim = dim
    with _open(path, "wb") as f:
        for m in [header] + [s if not isinstance(s, dict) else _sample(sample_cls, s) for s in samples]:
            data = m.SerializeToString()
            size = len(data)
            while True:
                byte = size & 0x7F
                size >>= 7
                f.write(bytes([byte | (0x80 if size else 0)]))
                if not size:
                    break
            f.write(data)


def _sample(cls, fields):
    s = cls()
    for key, value in fields.items():
        if key in ("vector_slots", "var_id_slots", "subseq_slots"):
            for item in value:
                getattr(s, key).add(**item)
        elif key == "id_slots":
            s.id_slots.extend(value)
        else:
            setattr(s, key, value)
    return s


_TYPES = {0: (dp2.dense_vector, dp2.dense_vector_sequence),
          1: (dp2.sparse_binary_vector, dp2.sparse_binary_vector_sequence),
          2: (dp2.sparse_vector, dp2.sparse_vector_sequence),
          3: (dp2.integer_value, dp2.integer_value_sequence)}


def _first_file_slots(file_list, input_order, types, readable):
    """(slot defs [(type, dim)], samples) of the first file's header, checked against the slot
    `types` the provider reads (`readable` words them) and the model's data layers."""
    if not file_list:
        raise ValueError("ProtoData: the file list is empty")
    header, samples = read_proto_file(file_list[0])
    defs = [(d.type, d.dim) for d in header.slot_defs]
    bad = [i for i, (t, _) in enumerate(defs) if t not in types]
    if bad:
        name = _messages()[2].SlotType.Name(defs[bad[0]][0])
        raise ValueError("%s: slot %d is %s; %s" % (file_list[0], bad[0], name, readable))
    if len(defs) != len(input_order):
        raise ValueError("%s: %d slots, the model has %d data layers (%s)" % (
            file_list[0], len(defs), len(input_order), ", ".join(input_order)))
    return defs, samples


def _samples(settings, filename):
    """The DataSamples of `filename`, whose header must match the first file's."""
    header, samples = read_proto_file(filename)
    if [(d.type, d.dim) for d in header.slot_defs] != settings.defs:
        raise ValueError("%s: its header's slots differ from the first file's" % filename)
    return samples


def _proto_hook(settings, file_list=(), input_order=(), **_):
    defs, samples = _first_file_slots(file_list, input_order, _TYPES,
                                      "ProtoData reads VECTOR_DENSE, VECTOR_SPARSE_NON_VALUE, "
                                      "VECTOR_SPARSE_VALUE and INDEX slots")
    settings.sequences = any(not s.is_beginning for s in samples)
    settings.defs = defs
    settings.input_types = [_TYPES[t][1 if settings.sequences else 0](dim) for t, dim in defs]


def _values(defs, sample, path, n):
    vectors, ids = iter(sample.vector_slots), iter(sample.id_slots)
    out = []
    try:
        for t, dim in defs:
            if t == 3:
                out.append(int(next(ids)))
                continue
            v = next(vectors)
            if t == 0:
                if len(v.values) != dim:
                    raise ValueError("%s: sample %d: a dense slot of %d values, its dim is %d"
                                     % (path, n, len(v.values), dim))
                out.append(list(v.values))
            elif t == 1:
                out.append(list(v.ids))
            else:
                out.append(list(zip(v.ids, v.values)))
    except StopIteration:
        raise ValueError("%s: sample %d has fewer slots than the header's %d" % (path, n, len(defs)))
    return out


@dp2.provider(init_hook=_proto_hook)
def proto(settings, filename):
    current = None
    for n, s in enumerate(_samples(settings, filename)):
        values = _values(settings.defs, s, filename, n)
        if not settings.sequences:
            yield values
            continue
        if s.is_beginning or current is None:
            if current is not None:
                yield current
            current = [[v] for v in values]
        else:
            for seq, v in zip(current, values):
                seq.append(v)
    if settings.sequences and current is not None:
        yield current


# -- ProtoData(type='proto_sequence') ---------------------------------------------------------

_SEQUENCE_TYPES = {0: dp2.dense_vector_sequence, 1: dp2.integer_value_sequence, 3: dp2.integer_value_sequence}


def _proto_sequence_hook(settings, file_list=(), input_order=(), **_):
    defs, samples = _first_file_slots(file_list, input_order, _SEQUENCE_TYPES,
                                      "proto_sequence reads VECTOR_DENSE, VECTOR_SPARSE_NON_VALUE and "
                                      "INDEX slots (as v1)")
    samples.close()
    settings.defs = defs
    settings.input_types = [_SEQUENCE_TYPES[t](dim) for t, dim in defs]


@dp2.provider(init_hook=_proto_sequence_hook)
def proto_sequence(settings, filename):
    for n, s in enumerate(_samples(settings, filename)):
        if not s.is_beginning:
            raise ValueError("%s: sample %d continues a sequence; proto_sequence takes every sample as a "
                             "sequence of its own (v1: iid data only)" % (filename, n))
        if len(s.subseq_slots):
            raise ValueError("%s: sample %d has sub-sequences, which proto_sequence does not read" % (filename, n))
        values = _values(settings.defs, s, filename, n)
        yield [(v or [-1]) if t == 1 else [v] for (t, _), v in zip(settings.defs, values)]
