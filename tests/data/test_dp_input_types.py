"""PyDataProvider2 user API: input types, @provider settings, args."""

import logging
import pickle

import pytest

import paddle.trainer.PyDataProvider2 as pdp
from paddle.trainer.PyDataProvider2 import (
    CacheType, DataType, InputType, SequenceType, deserialize_args, provider)


def test_enum_values_match_v1():
    assert (SequenceType.NO_SEQUENCE, SequenceType.SEQUENCE,
            SequenceType.SUB_SEQUENCE) == (0, 1, 2)
    assert (DataType.Dense, DataType.SparseNonValue, DataType.SparseValue,
            DataType.Index) == (0, 1, 2, 3)
    assert (CacheType.NO_CACHE, CacheType.CACHE_PASS_IN_MEM) == (0, 1)


@pytest.mark.parametrize("name, dim, seq, tp", [
    ("dense_vector", 7, 0, DataType.Dense),
    ("dense_vector_sequence", 7, 1, DataType.Dense),
    ("dense_vector_sub_sequence", 7, 2, DataType.Dense),
    ("sparse_binary_vector", 9, 0, DataType.SparseNonValue),
    ("sparse_binary_vector_sequence", 9, 1, DataType.SparseNonValue),
    ("sparse_binary_vector_sub_sequence", 9, 2, DataType.SparseNonValue),
    ("sparse_vector", 11, 0, DataType.SparseValue),
    ("sparse_vector_sequence", 11, 1, DataType.SparseValue),
    ("sparse_vector_sub_sequence", 11, 2, DataType.SparseValue),
    ("integer_value", 5, 0, DataType.Index),
    ("integer_value_sequence", 5, 1, DataType.Index),
    ("integer_value_sub_sequence", 5, 2, DataType.Index),
    ("integer_sequence", 5, 1, DataType.Index),
])
def test_constructors(name, dim, seq, tp):
    t = getattr(pdp, name)(dim)
    assert isinstance(t, InputType)
    assert (t.dim, t.seq_type, t.type) == (dim, seq, tp)


def test_old_slot_aliases_and_seq_type_argument():
    assert pdp.dense_slot(3) == pdp.dense_vector(3)
    assert pdp.sparse_non_value_slot(3) == pdp.sparse_binary_vector(3)
    assert pdp.sparse_value_slot(3) == pdp.sparse_vector(3)
    assert pdp.index_slot(3) == pdp.integer_value(3)
    assert pdp.dense_vector(4, SequenceType.SEQUENCE) == pdp.dense_vector_sequence(4)
    assert pdp.integer_value(4, seq_type=2) == pdp.integer_value_sub_sequence(4)
    assert pdp.dense_vector(3) != pdp.dense_vector(4)
    assert repr(pdp.sparse_vector_sub_sequence(10)) == "sparse_vector_sub_sequence(10)"
    # v1 constructor signature: InputType(dim, seq_type, type)
    t = InputType(12, 1, 3)
    assert t == pdp.integer_value_sequence(12)


def test_star_import_exposes_v1_names():
    ns = {}
    exec("from paddle.trainer.PyDataProvider2 import *", ns)
    for name in ("provider", "dense_vector", "integer_value_sequence",
                 "sparse_binary_vector", "CacheType", "SequenceType",
                 "DataType", "InputType", "deserialize_args", "index_slot",
                 "logging"):
        assert name in ns, name
    assert "np" not in ns


def _make(cls, **kwargs):
    kwargs.setdefault("file_list", ["a", "b"])
    kwargs.setdefault("is_train", True)
    return cls(**kwargs)


def test_settings_attributes():
    calc = lambda sample: 2  # noqa: E731

    @provider(input_types=[pdp.dense_vector(3), pdp.integer_value(2)],
              should_shuffle=False, pool_size=100, min_pool_size=10,
              can_over_batch_size=False, calc_batch_size=calc,
              cache=CacheType.CACHE_PASS_IN_MEM, check=True,
              check_fail_continue=True)
    def gen(settings, filename):
        yield [1.0, 2.0, 3.0], 1

    assert isinstance(gen, type)
    assert gen.__name__ == "gen"
    s = _make(gen, input_order=["x", "y"])
    assert s.input_types is None          # v1: only init_hook sets it
    assert s.slots == [pdp.dense_vector(3), pdp.integer_value(2)]
    assert s.should_shuffle is False
    assert (s.pool_size, s.min_pool_size) == (100, 10)
    assert s.can_over_batch_size is False
    assert s.calc_batch_size is calc
    assert s.cache == CacheType.CACHE_PASS_IN_MEM
    assert s.check is True and s.check_fail_continue is True
    assert s.file_list == ["a", "b"]
    assert s.input_order == ["x", "y"]
    assert isinstance(s.logger, logging.Logger)
    assert list(s.generator(s, "a")) == [([1.0, 2.0, 3.0], 1)]
    # users may hang their own attributes on settings
    s.dictionary = {"a": 1}
    assert s.dictionary["a"] == 1


def test_defaults():
    @provider(input_types=[pdp.integer_value(2)])
    def gen(settings, filename):
        yield 1

    s = _make(gen)
    assert s.should_shuffle is None
    assert (s.pool_size, s.min_pool_size) == (-1, -1)
    assert s.can_over_batch_size is True
    assert s.calc_batch_size is None
    assert s.cache == CacheType.NO_CACHE
    assert s.check is False


@pytest.mark.parametrize("value, expected", [
    (True, True), (False, False), (None, None), ("t", True), ("True", True),
    ("on", True), ("1", True), (1, True), ("f", False), ("FALSE", False),
    ("off", False), ("0", False), (0, False), ("maybe", None),
])
def test_should_shuffle_strings(value, expected):
    @provider(input_types=[pdp.integer_value(2)], should_shuffle=value)
    def gen(settings, filename):
        yield 1

    assert _make(gen).should_shuffle is expected


def test_init_hook_gets_args_and_can_set_input_types():
    seen = {}

    def hook(settings, file_list, dict_size, is_train, **kwargs):
        seen.update(file_list=file_list, dict_size=dict_size,
                    is_train=is_train, kwargs=kwargs)
        settings.word_dict = {"w%d" % i: i for i in range(dict_size)}
        settings.input_types = [pdp.integer_value_sequence(dict_size),
                                pdp.integer_value(2)]

    @provider(init_hook=hook)
    def gen(settings, filename):
        yield [settings.word_dict["w1"]], 0

    s = gen(file_list=["f1"], is_train=False, input_order=["w", "l"],
            dict_size=4)
    assert seen["file_list"] == ["f1"]
    assert seen["dict_size"] == 4 and seen["is_train"] is False
    assert seen["kwargs"] == {"input_order": ["w", "l"]}
    assert s.slots == [pdp.integer_value_sequence(4), pdp.integer_value(2)]
    assert s.word_dict["w3"] == 3


def test_init_hook_input_types_override_decorator():
    def hook(settings, **kwargs):
        settings.input_types = {"x": pdp.dense_vector(5)}

    @provider(input_types={"x": pdp.dense_vector(2)}, init_hook=hook)
    def gen(settings, filename):
        yield [0.0] * 5

    assert _make(gen, input_order=["x"]).slots == [pdp.dense_vector(5)]


def test_dict_input_types_are_reordered_by_input_order():
    @provider(input_types={"label": pdp.integer_value(10),
                           "pixel": pdp.dense_vector(4),
                           "extra": pdp.dense_vector(9)})
    def gen(settings, filename):
        yield {}

    s = _make(gen, input_order=["pixel", "label"])
    assert s.slots == [pdp.dense_vector(4), pdp.integer_value(10)]
    assert s.slot_names == ["pixel", "label"]
    assert s.use_dynamic_order is True


def test_dict_input_types_missing_layer_is_an_error():
    @provider(input_types={"pixel": pdp.dense_vector(4)})
    def gen(settings, filename):
        yield {}

    with pytest.raises(ValueError, match="'label'"):
        _make(gen, input_order=["pixel", "label"])


def test_missing_input_types_is_an_error():
    @provider()
    def gen(settings, filename):
        yield 1

    with pytest.raises(ValueError, match="input_types"):
        _make(gen)


def test_non_input_type_is_an_error():
    @provider(input_types=[pdp.dense_vector(2), 7])
    def gen(settings, filename):
        yield 1

    with pytest.raises(ValueError, match="not an InputType"):
        _make(gen)


def test_deprecated_slots_kwarg():
    @provider(slots=[pdp.dense_vector(2)])
    def gen(settings, filename):
        yield [1.0, 2.0]

    assert _make(gen).slots == [pdp.dense_vector(2)]


def test_deserialize_args():
    args = {"dict_file": "d\u00e9.txt", "n": 3, "nested": [1, (2, 3)]}
    raw = pickle.dumps(args, protocol=0)
    assert deserialize_args(raw) == args
    assert deserialize_args(raw.decode("latin-1")) == args
    assert deserialize_args("") == {}
    assert deserialize_args(None) == {}
    assert deserialize_args({"a": 1}) == {"a": 1}
