"""`from paddle.trainer.PyDataProvider2 import *` gives a v1 (v0.10) provider every public
name v1's module had, with v1's meaning; a provider written against them runs."""
import pickle
import sys

import numpy as np
import pytest

# Every public name of v1's module (it had no __all__, so its imports came along too).
V1_NAMES = """
SequenceType DataType CacheType InputType
dense_slot sparse_non_value_slot sparse_value_slot index_slot
dense_vector sparse_binary_vector sparse_vector integer_value dense_array
dense_vector_sequence dense_vector_sub_sequence sparse_binary_vector_sequence
sparse_binary_vector_sub_sequence sparse_vector_sequence sparse_vector_sub_sequence
integer_value_sequence integer_value_sub_sequence integer_sequence
SingleSlotWrapper InputOrderWrapper CheckWrapper CheckInputTypeWrapper
provider deserialize_args
cPickle logging collections functools itertools
""".split()


def _star():
    namespace = {}
    exec("from paddle.trainer.PyDataProvider2 import *", namespace)
    return namespace


def test_star_import_has_every_v1_name():
    ns = _star()
    assert [n for n in V1_NAMES if n not in ns] == []


def test_v1_constants_and_input_types():
    ns = _star()
    assert (ns["SequenceType"].NO_SEQUENCE, ns["SequenceType"].SEQUENCE, ns["SequenceType"].SUB_SEQUENCE) == (0, 1, 2)
    d = ns["DataType"]
    assert (d.Dense, d.SparseNonValue, d.SparseValue, d.Index) == (0, 1, 2, 3)
    assert (ns["CacheType"].NO_CACHE, ns["CacheType"].CACHE_PASS_IN_MEM) == (0, 1)
    cases = {
        "dense_vector_sub_sequence": (7, 2, d.Dense),
        "sparse_binary_vector_sequence": (7, 1, d.SparseNonValue),
        "sparse_vector_sub_sequence": (7, 2, d.SparseValue),
        "integer_value_sub_sequence": (7, 2, d.Index),
        "integer_sequence": (7, 1, d.Index),
    }
    for name, (dim, seq, tp) in cases.items():
        t = ns[name](7)
        assert (t.dim, t.seq_type, t.type) == (dim, seq, tp), name
    t = ns["InputType"](5, 1, d.SparseValue)  # v1 providers built these by hand too
    assert t == ns["sparse_value_slot"](5, ns["SequenceType"].SEQUENCE)
    assert ns["cPickle"].loads(ns["cPickle"].dumps({"a": 1})) == {"a": 1}
    assert ns["deserialize_args"](pickle.dumps({"dict": 3}, protocol=0)) == {"dict": 3}


def test_v1_generator_wrappers():
    ns = _star()
    gen = lambda settings, filename: iter([3, {"b": 2, "a": 1}])  # noqa: E731
    assert list(ns["SingleSlotWrapper"](gen)(None, "f")) == [[3], {"b": 2, "a": 1}]
    ordered = ns["InputOrderWrapper"](lambda s, f: iter([{"b": 2, "a": 1}, [5, 6]]), ["a", "b", "c"])
    assert list(ordered(None, "f")) == [[1, 2, None], [5, 6]]
    import logging
    log = logging.getLogger("test_v1_provider_names")
    types_ = [ns["dense_vector"](2), ns["integer_value"](3)]
    good, bad = [[0.5, 1.0], 2], [[0.5], 7]
    check = ns["CheckWrapper"](lambda s, f: iter([good, bad, good]), types_, True, log)
    assert list(check(None, "f")) == [good, good]
    strict = ns["CheckWrapper"](lambda s, f: iter([bad]), types_, False, log)
    with pytest.raises(ValueError):
        list(strict(None, "f"))
    mixed = ns["CheckInputTypeWrapper"](lambda s, f: iter([{"x": 1}]), types_, log)
    with pytest.raises(ValueError, match="dict"):
        list(mixed(None, "f"))


V1_PROVIDER = '''\
from paddle.trainer.PyDataProvider2 import *


def hook(settings, file_list, dictionary, **kwargs):
    settings.dictionary = dictionary
    settings.input_types = [integer_value_sub_sequence(len(dictionary)),
                            dense_slot(2, SequenceType.NO_SEQUENCE),
                            sparse_non_value_slot(4),
                            index_slot(2)]
    settings.logger.info("dictionary has %d words" % len(dictionary))


@provider(init_hook=hook, cache=CacheType.CACHE_PASS_IN_MEM, check=True)
def process(settings, filename):
    for line in open(filename):
        words, label = line.strip().split("\\t")
        ids = [settings.dictionary[w] for w in words.split()]
        yield [[ids[:2], ids[2:]], [float(len(ids)), 1.0], [0, 3], int(label)]
'''


def test_a_v1_provider_runs(tmp_path, monkeypatch):
    from paddle.trainer.data_provider import DataProvider
    import types
    monkeypatch.chdir(tmp_path)
    (tmp_path / "v1prov.py").write_text(V1_PROVIDER)
    (tmp_path / "part-0").write_text("a b c\t1\nb c a d\t0\n")
    (tmp_path / "train.list").write_text("part-0\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop("v1prov", None)
    args = pickle.dumps({"dictionary": {"a": 0, "b": 1, "c": 2, "d": 3}}, protocol=0).decode("latin-1")
    dc = types.SimpleNamespace(type="py2", files="train.list", load_data_module="v1prov",
                               load_data_object="process", load_data_args=args, for_test=True)
    dp = DataProvider(dc, ["words", "len", "feats", "label"], batch_size=2, shuffle=False)
    try:
        (batch, ) = list(dp.batches())
    finally:
        sys.modules.pop("v1prov", None)
    words = batch.slots[0]
    assert words.ids.tolist() == [0, 1, 2, 1, 2, 0, 3]
    assert words.seq_starts.tolist() == [0, 3, 7]
    assert words.sub_seq_starts.tolist() == [0, 2, 3, 5, 7]
    np.testing.assert_allclose(batch.slots[1].value, [[3, 1], [4, 1]])
    assert batch.slots[3].ids.tolist() == [1, 0]
