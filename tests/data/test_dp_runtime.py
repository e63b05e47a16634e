"""DataProvider runtime: file lists, ordering, shuffling, pools, batch sizes,
caching, checking, errors and the prefetch thread."""

import logging
import sys
import threading
import time
import types

import numpy as np
import pytest

from paddle.trainer.PyDataProvider2 import DataError
from paddle.trainer.data_provider import (Batch, DataProvider, SlotData,
                                          load_file_list)
from dp_testutil import data_config

# A provider whose samples identify themselves: file entry "name:count"
# yields count samples ([id as float], id) with id = 1000 * file + index.
COUNTING = '''
import sys
calls = []
opened = []
closed = []

def _samples(settings, filename):
    name, count = filename.split(":")
    opened.append(filename)
    try:
        for i in range(int(count)):
            calls.append(filename)
            uid = 1000 * int(name) + i
            yield [float(uid)], uid
    finally:
        closed.append(filename)

@provider(input_types=[dense_vector(1), integer_value(10 ** 6)],
          PARAMS)
def process(settings, filename):
    for s in _samples(settings, filename):
        yield s
'''


def counting(write, entries, params="", module="countprov"):
    write(module, COUNTING.replace("PARAMS", params), entries)
    return module


def make(module, batch_size=4, names=("x", "id"), obj="process", args=None,
         **kwargs):
    return DataProvider(data_config(module, obj, args=args), list(names),
                        batch_size, **kwargs)


def ids_of_pass(dp):
    out = []
    for batch in dp.batches():
        out.append(batch["id"].ids.tolist())
    return out


def flat(batches):
    return [i for b in batches for i in b]


# --- file lists -------------------------------------------------------------

def test_load_file_list_verbatim(tmp_path):
    p = tmp_path / "x.list"
    p.write_bytes(b"a.txt\n\n  spaced \nwin\r\nlast")
    assert load_file_list(str(p)) == ["a.txt", "", "  spaced ", "win", "last"]
    p.write_bytes(b"one\ntwo\n")
    assert load_file_list(str(p)) == ["one", "two"]
    p.write_bytes(b"")
    assert load_file_list(str(p)) == []


def test_file_list_is_read_relative_to_cwd(provider_dir):
    mod = counting(provider_dir, ["1:2", "2:1"])
    dp = make(mod, is_train=False)
    assert dp.file_list == ["1:2", "2:1"]
    assert dp.settings.file_list == ["1:2", "2:1"]
    dp.close()


# --- ordering and shuffling ---------------------------------------------------

def test_no_shuffle_reads_files_in_order_fifo(provider_dir):
    mod = counting(provider_dir, ["1:5", "2:3", "3:4"])
    with make(mod, batch_size=5, is_train=False) as dp:
        assert dp.shuffle is False
        batches = ids_of_pass(dp)
    assert batches == [[1000, 1001, 1002, 1003, 1004],
                       [2000, 2001, 2002, 3000, 3001],
                       [3002, 3003]]


def test_all_generators_opened_up_front(provider_dir):
    mod = counting(provider_dir, ["1:2", "2:2", "3:2"])
    with make(mod, batch_size=1, is_train=False) as dp:
        dp.next_batch()
        opened = sys.modules[mod].opened
        deadline = time.time() + 5
        while len(opened) < 3 and time.time() < deadline:
            time.sleep(0.01)
        assert sorted(opened) == ["1:2", "2:2", "3:2"]


def test_shuffle_default_follows_is_train(provider_dir):
    mod = counting(provider_dir, ["1:50"])
    with make(mod, is_train=True) as train, make(mod, is_train=False) as test:
        assert train.shuffle is True and test.shuffle is False
        assert flat(ids_of_pass(test)) == list(range(1000, 1050))
        shuffled = flat(ids_of_pass(train))
        assert sorted(shuffled) == list(range(1000, 1050))
        assert shuffled != list(range(1000, 1050))


def test_shuffle_override_and_for_test_default(provider_dir):
    mod = counting(provider_dir, ["1:20"], params="should_shuffle=True")
    cfg = data_config(mod, "process", for_test=True)
    with DataProvider(cfg, ["x", "id"], 4) as dp:
        assert dp.is_train is False
        assert dp.shuffle is True          # provider says so explicitly
        assert dp.settings.is_train is False
    with DataProvider(cfg, ["x", "id"], 4, shuffle=False) as dp:
        assert dp.shuffle is False
        assert flat(ids_of_pass(dp)) == list(range(1000, 1020))


def test_shuffle_is_deterministic_for_a_seed(provider_dir):
    mod = counting(provider_dir, ["1:30", "2:30", "3:30"])

    def run(seed):
        with make(mod, batch_size=7, is_train=True, seed=seed) as dp:
            return [ids_of_pass(dp) for _ in range(2)]

    a, b, c = run(5), run(5), run(6)
    assert a == b
    assert a != c
    assert a[0] != a[1]                       # passes differ from each other
    for passes in (a, c):
        for batches in passes:
            assert sorted(flat(batches)) == sorted(
                1000 * f + i for f in (1, 2, 3) for i in range(30))
            assert [len(x) for x in batches] == [7] * 12 + [6]


def test_shuffle_draws_from_several_files(provider_dir):
    # With several files open, samples of different files interleave.
    mod = counting(provider_dir, ["1:40", "2:40"], params="min_pool_size=0")
    with make(mod, batch_size=8, is_train=True, seed=3) as dp:
        first = ids_of_pass(dp)[0]
    assert {i // 1000 for i in first} == {1, 2}


# --- pools ------------------------------------------------------------------

def test_min_pool_size_zero_batches_come_from_a_sliding_window(provider_dir):
    # need = max(batch_size, 0): each batch is a permutation of the next
    # batch_size samples read.
    mod = counting(provider_dir, ["1:40"], params="min_pool_size=0")
    with make(mod, batch_size=8, is_train=True, seed=11) as dp:
        batches = ids_of_pass(dp)
    assert len(batches) == 5
    for j, b in enumerate(batches):
        assert sorted(b) == list(range(1000 + 8 * j, 1008 + 8 * j))
    assert flat(batches) != list(range(1000, 1040))


def test_pool_size_bounds_what_a_batch_can_contain(provider_dir):
    # pool_size=12, min_pool_size=-1 -> a batch is drawn from a pool filled to
    # 12 samples: batch j only holds samples among the first 12 + 4 j read.
    mod = counting(provider_dir, ["1:60"], params="pool_size=12")
    with make(mod, batch_size=4, is_train=True, seed=2) as dp:
        batches = ids_of_pass(dp)
    assert sorted(flat(batches)) == list(range(1000, 1060))
    for j, b in enumerate(batches):
        assert max(b) - 1000 < 12 + 4 * j
    assert any(max(b) - 1000 >= 4 * (j + 1) for j, b in enumerate(batches))


def test_default_pool_loads_whole_pass_before_first_batch(provider_dir):
    mod = counting(provider_dir, ["1:30", "2:30"])
    with make(mod, batch_size=4, is_train=True, seed=4) as dp:
        first = dp.next_batch()
        assert len(sys.modules[mod].calls) == 60
        assert first.num_samples == 4
    # ...so the first batch can hold any sample of the pass
    seen = set()
    for seed in range(1, 6):
        with make(mod, batch_size=4, is_train=True, seed=seed) as dp:
            seen.update(dp.next_batch()["id"].ids.tolist())
    assert max(i % 1000 for i in seen) > 8


def test_pool_size_smaller_than_batch_size_still_fills_batches(provider_dir):
    mod = counting(provider_dir, ["1:20"], params="pool_size=3")
    with make(mod, batch_size=8, is_train=True) as dp:
        assert [len(b) for b in ids_of_pass(dp)] == [8, 8, 4]


# --- batch sizes ----------------------------------------------------------------

WEIGHTED = '''
@provider(input_types=[integer_value_sequence(100)], should_shuffle=False,
          calc_batch_size=lambda sample: len(sample[0]), PARAMS)
def process(settings, filename):
    for n in [3, 1, 4, 1, 5, 9, 2, 6]:
        yield list(range(n))
'''


def test_calc_batch_size_can_over(provider_dir):
    provider_dir("weighted", WEIGHTED.replace("PARAMS", "can_over_batch_size=True"),
                 ["f"])
    with make("weighted", batch_size=5, names=["w"]) as dp:
        sizes = [(b.num_samples, b.size, b["w"].rows) for b in dp.batches()]
    # 3+1+4 -> 8 >= 5; 1+5 -> 6; 9; 2+6 -> 8
    assert sizes == [(3, 8, 8), (2, 6, 6), (1, 9, 9), (2, 8, 8)]


def test_calc_batch_size_cannot_over(provider_dir):
    provider_dir("weighted2", WEIGHTED.replace("PARAMS", "can_over_batch_size=False"),
                 ["f"])
    with make("weighted2", batch_size=5, names=["w"]) as dp:
        sizes = [(b.num_samples, b.size) for b in dp.batches()]
    # 3+1 (4 would overflow); 4+1; 5; 9 (alone, larger than the batch); 2; 6
    assert sizes == [(2, 4), (2, 5), (1, 5), (1, 9), (1, 2), (1, 6)]
    assert all(size <= 5 or n == 1 for n, size in sizes)


def test_bad_calc_batch_size_result(provider_dir):
    provider_dir("weighted3", '''
@provider(input_types=[integer_value(3)], calc_batch_size=lambda s: "x")
def process(settings, filename):
    yield 1
''', ["f"])
    with make("weighted3", names=["w"]) as dp:
        with pytest.raises(DataError, match="calc_batch_size"):
            list(dp.batches())


# --- caching ------------------------------------------------------------------

def test_cache_pass_in_mem_replays_from_memory(provider_dir):
    mod = counting(provider_dir, ["1:10", "2:5"],
                   params="cache=CacheType.CACHE_PASS_IN_MEM")
    calls = None
    with make(mod, batch_size=4, is_train=False) as dp:
        p0 = ids_of_pass(dp)
        calls = list(sys.modules[mod].calls)
        p1 = ids_of_pass(dp)
        p2 = ids_of_pass(dp)
        assert sys.modules[mod].calls == calls      # generator not rerun
    assert len(calls) == 15
    assert p0 == p1 == p2
    assert flat(p0) == list(range(1000, 1010)) + list(range(2000, 2005))


def test_cache_with_shuffle_reshuffles_each_pass(provider_dir):
    mod = counting(provider_dir, ["1:40"],
                   params="cache=CacheType.CACHE_PASS_IN_MEM")
    with make(mod, batch_size=8, is_train=True, seed=9) as dp:
        passes = [flat(ids_of_pass(dp)) for _ in range(3)]
        assert len(sys.modules[mod].calls) == 40
    assert all(sorted(p) == list(range(1000, 1040)) for p in passes)
    assert passes[1] != passes[2]


def test_no_cache_reruns_generators(provider_dir):
    mod = counting(provider_dir, ["1:6"])
    with make(mod, batch_size=4, is_train=False) as dp:
        ids_of_pass(dp)
        ids_of_pass(dp)
    assert len(sys.modules[mod].calls) == 12


def test_abandoned_first_pass_is_not_cached(provider_dir):
    mod = counting(provider_dir, ["1:40"],
                   params="cache=CacheType.CACHE_PASS_IN_MEM, min_pool_size=0")
    with make(mod, batch_size=2, is_train=False, prefetch=1) as dp:
        dp.reset()
        dp.next_batch()
        dp.reset()                                   # abandon pass 0
        assert flat(ids_of_pass(dp)) == list(range(1000, 1040))
        n = len(sys.modules[mod].calls)
        assert flat(ids_of_pass(dp)) == list(range(1000, 1040))
        assert len(sys.modules[mod].calls) == n      # replayed from memory


# --- check ---------------------------------------------------------------------

CHECKED = '''
@provider(input_types={'x': dense_vector(2), 'l': integer_value(3)},
          should_shuffle=False, PARAMS)
def process(settings, filename):
    yield {'x': [1.0, 2.0], 'l': 0}
    yield {'x': [1.0, 2.0], 'l': 3}          # id out of range
    yield {'x': [1.0], 'l': 1}               # wrong dense length
    yield {'x': [3.0, 4.0], 'l': 2}
'''


def test_check_raises_data_error(provider_dir):
    provider_dir("checked", CHECKED.replace("PARAMS", "check=True"), ["f.txt"])
    with make("checked", names=["x", "l"]) as dp:
        with pytest.raises(DataError) as info:
            list(dp.batches())
    e = info.value
    assert (e.file_entry, e.sample_index, e.slot_name) == ("f.txt", 1, "l")
    assert "3 out of range [0, 3)" in str(e)


NON_FINITE = '''
from paddle.trainer.PyDataProvider2 import *

@provider(input_types={'x': dense_vector(2), 'v': sparse_vector(4)}, check=True)
def process(settings, filename):
    yield {'x': [1.0, 2.0], 'v': [(0, 1.0)]}
    yield BAD_SAMPLE
'''


@pytest.mark.parametrize("name, bad_sample, slot, message", [
    ("nan", "{'x': [1.0, float('nan')], 'v': [(1, 1.0)]}", "x", "dense value 1 is nan (not finite)"),
    ("inf", "{'x': [1.0, float('-inf')], 'v': [(1, 1.0)]}", "x", "dense value 1 is -inf (not finite)"),
    ("sparse", "{'x': [1.0, 2.0], 'v': [(3, float('inf'))]}", "v", "sparse value of id 3 is inf (not finite)")])
def test_check_refuses_non_finite_values(provider_dir, name, bad_sample, slot, message):
    provider_dir("nonfinite_" + name, NON_FINITE.replace("BAD_SAMPLE", bad_sample), ["f.txt"])
    with make("nonfinite_" + name, names=["x", "v"]) as dp:
        with pytest.raises(DataError) as info:
            list(dp.batches())
    e = info.value
    assert (e.file_entry, e.sample_index, e.slot_name) == ("f.txt", 1, slot)
    assert message in str(e)


def test_check_fail_continue_drops_bad_samples(provider_dir):
    provider_dir("checked2", CHECKED.replace(
        "PARAMS", "check=True, check_fail_continue=True"), ["f.txt"])
    records = []
    handler = logging.Handler()
    handler.emit = records.append
    logger = logging.getLogger("paddle.data_provider")
    logger.addHandler(handler)
    try:
        with make("checked2", names=["x", "l"]) as dp:
            batches = list(dp.batches())
    finally:
        logger.removeHandler(handler)
    assert len(batches) == 1 and batches[0].num_samples == 2
    np.testing.assert_array_equal(batches[0]["l"].ids, [0, 2])
    np.testing.assert_array_equal(batches[0]["x"].value, [[1, 2], [3, 4]])
    warnings = [r.getMessage() for r in records if r.levelno == logging.WARNING]
    assert len(warnings) == 2
    assert "sample 1" in warnings[0] and "sample 2" in warnings[1]


def test_without_check_conversion_still_rejects_bad_data(provider_dir):
    provider_dir("checked3", CHECKED.replace("PARAMS", "check=False"), ["f.txt"])
    with make("checked3", names=["x", "l"]) as dp:
        with pytest.raises(DataError) as info:
            list(dp.batches())
    assert info.value.sample_index == 1 and info.value.slot_name == "l"


def test_check_rejects_duplicate_sparse_ids(provider_dir):
    provider_dir("checked4", '''
@provider(input_types=[sparse_binary_vector(10)], check=True)
def process(settings, filename):
    yield [1, 2]
    yield [3, 3]
''', ["f"])
    with make("checked4", names=["s"], is_train=False) as dp:
        with pytest.raises(DataError, match="not unique") as info:
            list(dp.batches())
    assert info.value.sample_index == 1


# --- dict vs list input types, single slots ---------------------------------------

def test_dict_and_list_input_types_give_identical_batches(provider_dir):
    provider_dir("as_dict", '''
@provider(input_types={'label': integer_value(4), 'words': integer_value_sequence(50),
                       'feat': dense_vector(2)}, should_shuffle=False)
def process(settings, filename):
    for i in range(7):
        yield {'feat': [i, -i], 'label': i % 4, 'words': list(range(i))}
''', ["f"])
    provider_dir("as_list", '''
@provider(input_types=[dense_vector(2), integer_value_sequence(50), integer_value(4)],
          should_shuffle=False)
def process(settings, filename):
    for i in range(7):
        yield [i, -i], list(range(i)), i % 4
''', ["f"])
    names = ["feat", "words", "label"]
    with make("as_dict", batch_size=3, names=names) as a, \
            make("as_list", batch_size=3, names=names) as b:
        ba, bb = list(a.batches()), list(b.batches())
    assert len(ba) == len(bb) == 3
    for x, y in zip(ba, bb):
        assert x.names == y.names == names
        np.testing.assert_array_equal(x["feat"].value, y["feat"].value)
        np.testing.assert_array_equal(x["words"].ids, y["words"].ids)
        np.testing.assert_array_equal(x["words"].seq_starts, y["words"].seq_starts)
        np.testing.assert_array_equal(x["label"].ids, y["label"].ids)
    np.testing.assert_array_equal(ba[1]["words"].seq_starts, [0, 3, 7, 12])


def test_dict_missing_key_is_a_data_error(provider_dir):
    provider_dir("missing_key", '''
@provider(input_types={'a': integer_value(4), 'b': integer_value(4)})
def process(settings, filename):
    yield {'a': 1, 'b': 2}
    yield {'a': 1}
''', ["f"])
    with make("missing_key", names=["a", "b"]) as dp:
        with pytest.raises(DataError, match="'b'") as info:
            list(dp.batches())
    assert info.value.sample_index == 1


def test_dict_sample_with_list_input_types_is_a_data_error(provider_dir):
    provider_dir("dict_vs_list", '''
@provider(input_types=[integer_value(4), integer_value(4)])
def process(settings, filename):
    yield {'a': 1, 'b': 2}
''', ["f"])
    with make("dict_vs_list", names=["a", "b"]) as dp:
        with pytest.raises(DataError, match="dict"):
            list(dp.batches())


def test_single_slot_bare_values(provider_dir):
    provider_dir("single", '''
import numpy as np
@provider(input_types=[dense_vector(3)], should_shuffle=False)
def process(settings, filename):
    yield [1.0, 2.0, 3.0]
    yield np.array([4, 5, 6], dtype=np.float32)
''', ["f"])
    with make("single", names=["x"]) as dp:
        (batch,) = list(dp.batches())
    np.testing.assert_array_equal(batch["x"].value, [[1, 2, 3], [4, 5, 6]])


def test_args_reach_init_hook_and_generator(provider_dir):
    provider_dir("with_args", '''
def hook(settings, offset, file_list, **kwargs):
    settings.offset = offset
    settings.seen_kwargs = sorted(kwargs)

@provider(input_types=[integer_value(100)], init_hook=hook, should_shuffle=False)
def process(settings, filename):
    yield settings.offset + len(filename)
''', ["abc"])
    with make("with_args", names=["v"], args={"offset": 10}) as dp:
        (batch,) = list(dp.batches())
        assert dp.settings.seen_kwargs == ["input_order", "is_train"]
        assert dp.settings.input_order == ["v"]
    assert batch["v"].ids.tolist() == [13]


# --- data errors ------------------------------------------------------------------

def test_data_error_names_provider_file_entry_sample_and_slot(provider_dir):
    provider_dir("badprov", '''
@provider(input_types={'pixel': dense_vector(4), 'label': integer_value(10)},
          should_shuffle=False)
def process(settings, filename):
    for i in range(20):
        pixels = [0.5] * (4 if (filename, i) != ("part-2", 13) else 3)
        yield {'pixel': pixels, 'label': i % 10}
''', ["part-1", "part-2"])
    with make("badprov", batch_size=8, names=["pixel", "label"]) as dp:
        got = 0
        with pytest.raises(DataError) as info:
            for batch in dp.batches():
                got += batch.num_samples
    msg = str(info.value)
    assert "badprov.py" in msg and "process" in msg
    assert "'part-2'" in msg and "entry 1" in msg
    assert "sample 13" in msg
    assert "'pixel'" in msg and "dense_vector(4)" in msg
    assert "4 numbers, got 3" in msg
    assert got == 32                 # the good batches before it were delivered


def test_wrong_slot_count_is_a_data_error(provider_dir):
    provider_dir("slotcount", '''
@provider(input_types=[dense_vector(1), integer_value(2)])
def process(settings, filename):
    yield [1.0], 1
    yield [1.0], 1, 0
''', ["f"])
    with make("slotcount", names=["x", "y"]) as dp:
        with pytest.raises(DataError, match="3 slot values, expected 2") as info:
            list(dp.batches())
    assert info.value.sample_index == 1


def test_wrong_type_is_a_data_error(provider_dir):
    provider_dir("wrongtype", '''
@provider(input_types=[dense_vector(2), integer_value(5)], should_shuffle=False)
def process(settings, filename):
    yield [1.0, 2.0], 1
    yield [1.0, 2.0], "two"
''', ["f"])
    with make("wrongtype", names=["x", "y"]) as dp:
        with pytest.raises(DataError, match="integer") as info:
            list(dp.batches())
    assert (info.value.sample_index, info.value.slot_index) == (1, 1)


# --- configuration errors ------------------------------------------------------------

def test_input_type_count_must_match_data_layers(provider_dir):
    mod = counting(provider_dir, ["1:1"])
    with pytest.raises(ValueError, match="2 input types"):
        make(mod, names=["x", "id", "extra"])


def test_object_must_be_a_provider(provider_dir):
    provider_dir("notprov", "def process(settings, filename):\n    yield 1\n", ["f"])
    with pytest.raises(TypeError, match="@provider"):
        make("notprov", names=["x"])


def test_unknown_module(provider_dir):
    provider_dir("dummy", "", ["f"])
    with pytest.raises(ImportError, match="no_such_provider_module"):
        make("no_such_provider_module", names=["x"])


def test_from_trainer_config(provider_dir):
    mod = counting(provider_dir, ["1:9"])
    tc = types.SimpleNamespace(
        data_config=data_config(mod, "process"),
        test_data_config=data_config(mod, "process", for_test=True),
        model_config=types.SimpleNamespace(input_layer_names=["x", "id"]),
        opt_config=types.SimpleNamespace(batch_size=4),
        config_file="")
    with DataProvider.from_trainer_config(tc, for_test=True) as dp:
        assert (dp.batch_size, dp.is_train, dp.shuffle) == (4, False, False)
        assert [len(b) for b in ids_of_pass(dp)] == [4, 4, 1]


# --- the prefetch thread ---------------------------------------------------------------

RAISING = '''
@provider(input_types=[integer_value(100)], should_shuffle=False, min_pool_size=0)
def process(settings, filename):
    for i in range(10):
        if i == 7:
            raise KeyError("boom in generator")
        yield i
'''


def test_generator_exception_is_reraised_in_consumer(provider_dir, deadline):
    deadline(20)
    provider_dir("raising", RAISING, ["f"])
    with make("raising", batch_size=3, names=["v"]) as dp:
        seen = []
        with pytest.raises(KeyError, match="boom in generator") as info:
            for batch in dp.batches():
                seen.extend(batch["v"].ids.tolist())
        assert seen == [0, 1, 2, 3, 4, 5]
        notes = " ".join(getattr(info.value, "__notes__", []))
        assert "entry 0 'f'" in notes and "after 7 samples" in notes
        # the provider is usable again: the next pass fails the same way
        with pytest.raises(KeyError):
            list(dp.batches())


def test_exception_when_opening_generator(provider_dir, deadline):
    deadline(20)
    provider_dir("raising_open", '''
@provider(input_types=[integer_value(100)])
def process(settings, filename):
    raise RuntimeError("not a generator, fails at once")
''', ["f"])
    with make("raising_open", names=["v"]) as dp:
        with pytest.raises(RuntimeError, match="fails at once"):
            dp.next_batch()


def test_queue_is_bounded(provider_dir, deadline):
    deadline(20)
    mod = counting(provider_dir, ["1:100000"], params="min_pool_size=0")
    with make(mod, batch_size=10, is_train=False, prefetch=2) as dp:
        assert dp.next_batch().num_samples == 10
        time.sleep(0.3)
        read = len(sys.modules[mod].calls)
        # one batch consumed, 2 queued, one being built and one sample ahead
        assert read <= 10 * 5 + 1, read


def test_reset_mid_pass_restarts_and_stops_old_thread(provider_dir, deadline):
    deadline(30)
    mod = counting(provider_dir, ["1:100000"], params="min_pool_size=0")
    before = threading.active_count()
    with make(mod, batch_size=10, is_train=False) as dp:
        for _ in range(3):
            dp.reset()
            first = dp.next_batch()
            assert first["id"].ids.tolist() == list(range(1000, 1010))
            assert dp.next_batch()["id"].ids[0] == 1010
        assert threading.active_count() <= before + 1
    deadline_t = time.time() + 5
    while threading.active_count() > before and time.time() < deadline_t:
        time.sleep(0.01)
    assert threading.active_count() == before
    # generators of abandoned passes were closed (their finally ran)
    assert len(sys.modules[mod].closed) == 3


def test_break_out_of_pass_then_new_pass(provider_dir, deadline):
    deadline(30)
    mod = counting(provider_dir, ["1:50"], params="min_pool_size=0")
    with make(mod, batch_size=10, is_train=False) as dp:
        for batch in dp.batches():
            break
        assert flat(ids_of_pass(dp)) == list(range(1000, 1050))
        assert dp.pass_id == 1


def test_next_batch_protocol(provider_dir):
    mod = counting(provider_dir, ["1:5"])
    with make(mod, batch_size=4, is_train=False) as dp:
        b = dp.next_batch()                 # starts pass 0 implicitly
        assert isinstance(b, Batch) and isinstance(b.slots[0], SlotData)
        assert dp.next_batch().num_samples == 1
        assert dp.next_batch() is None
        assert dp.next_batch() is None      # stays at end of pass
        dp.reset()
        assert dp.next_batch().num_samples == 4
        assert dp.pass_id == 1


def test_reset_then_batches_uses_the_started_pass(provider_dir):
    mod = counting(provider_dir, ["1:8"])
    with make(mod, batch_size=4, is_train=False) as dp:
        dp.reset()
        assert len(list(dp.batches())) == 2
        assert dp.pass_id == 0


def test_close_is_clean_and_final(provider_dir, deadline):
    deadline(20)
    mod = counting(provider_dir, ["1:100000"], params="min_pool_size=0")
    dp = make(mod, batch_size=10, is_train=False)
    dp.next_batch()
    dp.close()
    dp.close()
    with pytest.raises(RuntimeError, match="closed"):
        dp.reset()


@pytest.mark.parametrize("kind", ["py", "multi"])  # simple, proto, proto_sequence: v1_data_sources
def test_v1_data_sources_we_do_not_read_say_what_to_use(kind):
    from paddle.proto.DataConfig_pb2 import DataConfig
    with pytest.raises(ValueError, match="DataConfig type '%s' is not supported: .*define_py_data_sources2" % kind):
        DataProvider(DataConfig(type=kind), ["x"], batch_size=2)


def test_py_data_provider_wrapper_import_says_what_to_use():
    import importlib
    with pytest.raises(ImportError, match="PyDataProvider2.*define_py_data_sources2"):
        importlib.import_module("paddle.trainer.PyDataProviderWrapper")


# --- the pass size, for a progress bar -----------------------------------------

def test_expected_samples_from_the_files_read(provider_dir):
    """Unshuffled files read in order: their mean times the entries; then the last pass."""
    mod = counting(provider_dir, ["1:4", "2:8", "3:6", "4:6"], params="min_pool_size=0")
    with make(mod, batch_size=2, is_train=False, prefetch=1) as dp:
        assert dp.expected_samples() is None  # nothing read yet
        batches = dp.batches()
        next(batches)
        for _ in range(1000):  # the loader reaches the end of the first file soon after
            if dp._run.files_done:
                break
            time.sleep(0.01)
        assert dp.expected_samples() == 4 * 4  # the first file held 4
        assert sum(1 for _ in batches) == 11
        assert dp.expected_samples() == 24  # the pass just read


def test_expected_samples_with_the_default_pool_and_shuffling(provider_dir):
    """The default pool reads every file before the first batch: the count is exact."""
    mod = counting(provider_dir, ["1:4", "2:8", "3:5"])
    with make(mod, batch_size=2, is_train=True) as dp:
        assert dp.shuffle
        batches = dp.batches()
        next(batches)
        assert dp.expected_samples() == 17


def test_expected_samples_declared_by_the_provider_or_unknown(provider_dir):
    src = COUNTING.replace("PARAMS", "init_hook=hook").replace(
        "@provider", "def hook(settings, file_list, **kwargs):\n    settings.num_samples = 99\n\n@provider")
    provider_dir("declared", src, ["1:3"])
    with make("declared") as dp:
        assert dp.expected_samples() == 99  # before any pass
    mod = counting(provider_dir, ["1:3"], params="calc_batch_size=lambda s: 2", module="weighted")
    with make(mod) as dp:
        list(dp.batches())
        assert dp.expected_samples() is None  # batch sizes are not samples
