"""The batches campaign: a PyDataProvider2 provider yields batches in which one sample
is damaged (wrong types, lengths, depths, out-of-range ids and sparse indices, NaN/inf,
empty and huge sequences, None) for dense, integer, sparse and sequence slots; the batch
goes through the data provider and one training step. A DataError naming the sample
(or the engine's non-finite guard naming the batch) is the clean outcome."""
import os
import pickle
import sys
import types

from fuzzlib.runner import Outcome, check_finite

# setup: (input types (name, PyDataProvider2 type expression), the network after the data layers)
SETUPS = {
    "dense": ([("x", "dense_vector(4)"), ("label", "integer_value(3)")],
              "out = fc_layer(input=x, size=3, act=SoftmaxActivation())\n"),
    "ids_seq": ([("x", "integer_value_sequence(10)"), ("label", "integer_value(3)")],
                "e = embedding_layer(input=x, size=4)\n"
                "out = fc_layer(input=pooling_layer(input=e, pooling_type=AvgPooling()), size=3, act=SoftmaxActivation())\n"),
    "sparse_binary": ([("x", "sparse_binary_vector(20)"), ("label", "integer_value(3)")],
                      "out = fc_layer(input=x, size=3, act=SoftmaxActivation())\n"),
    "sparse_float": ([("x", "sparse_float_vector(20)"), ("label", "integer_value(3)")],
                     "out = fc_layer(input=x, size=3, act=SoftmaxActivation())\n"),
    "dense_seq": ([("x", "dense_vector_sequence(3)"), ("label", "integer_value(3)")],
                  "out = fc_layer(input=last_seq(input=x), size=3, act=SoftmaxActivation())\n"),
    "ids_subseq": ([("x", "integer_value_sub_sequence(10)"), ("label", "integer_value(3)")],
                   "e = embedding_layer(input=x, size=4)\n"
                   "p = pooling_layer(input=e, agg_level=AggregateLevel.EACH_SEQUENCE, pooling_type=MaxPooling())\n"
                   "out = fc_layer(input=last_seq(input=p), size=3, act=SoftmaxActivation())\n"),
}
DIM = {"dense": 4, "ids_seq": 10, "sparse_binary": 20, "sparse_float": 20, "dense_seq": 3, "ids_subseq": 10}
NAN, INF = float("nan"), float("inf")


def _good_x(setup, rng):
    if setup == "dense":
        return [rng.random() for _ in range(4)]
    if setup == "ids_seq":
        return [rng.randrange(10) for _ in range(rng.randint(1, 4))]
    if setup == "sparse_binary":
        return sorted(rng.sample(range(20), 3))
    if setup == "sparse_float":
        return [(i, rng.random()) for i in sorted(rng.sample(range(20), 3))]
    if setup == "dense_seq":
        return [[rng.random() for _ in range(3)] for _ in range(rng.randint(1, 3))]
    return [[rng.randrange(10) for _ in range(rng.randint(1, 3))] for _ in range(rng.randint(1, 3))]


def _damaged_x(setup, rng):
    """A damaged value for the x slot of `setup`."""
    import numpy as np
    good = _good_x(setup, rng)
    common = [None, "abc", b"\x00\xff", {}, object(), 3.5, True, [], [[]], [None], np.zeros((2, 2)),
              float("nan"), [good], good * 1000 if setup != "dense" else good * 2, -1, 2 ** 70]
    specific = {
        "dense": [[0.1] * 3, [0.1] * 5, [NAN] * 4, [INF, 0, 0, -INF], ["a"] * 4, [[0.1] * 4], [0.1, None, 0, 0],
                  np.full(4, np.nan, np.float64), np.zeros(4, np.complex64), [1e39] * 4, [True] * 4],
        "ids_seq": [[-1], [10], [2 ** 31], [2 ** 63], [1.5], [NAN], [[1]], ["1"], [0] * 20000, [True], [None],
                    np.array([1, 2], np.float32), np.array([-5], np.int64)],
        "sparse_binary": [[-1], [20], [2 ** 33], [1.5], [[1]], [1, 1, 1], [19, 3, 0], ["3"], [NAN], list(range(25))],
        "sparse_float": [[(-1, 1.0)], [(20, 1.0)], [(1,)], [(1, "a")], [(1, NAN)], [(1, INF)], [(1, 2, 3)],
                         [1, 2], [(2 ** 40, 1.0)], [(1.5, 1.0)], [(None, 1.0)], [[(1, 1.0)]]],
        "dense_seq": [[[0.1] * 2], [[0.1] * 3, [0.1] * 4], [[NAN] * 3], [[INF] * 3], [[[0.1] * 3]], [0.1] * 3,
                      [[0.1] * 3] * 20000, [["a"] * 3], [None]],
        "ids_subseq": [[[]], [[1], []], [[-1]], [[10]], [1, 2], [[[1]]], [[1.5]], [[NAN]], [[1] * 20000],
                       [[None]], [[2 ** 40]]],
    }[setup]
    return rng.choice(common + specific * 2)


def _damaged_label(rng):
    return rng.choice([-1, 3, 2 ** 31, 1.5, NAN, None, "1", [1], [], True, 2 ** 64])


def damaged_samples(setup, rng):
    """8 samples, one (or, sometimes, the whole sample) damaged."""
    samples = [[_good_x(setup, rng), rng.randrange(3)] for _ in range(8)]
    k = rng.randrange(8)
    what = rng.randrange(10)
    if what < 7:
        samples[k][0] = _damaged_x(setup, rng)
    elif what < 9:
        samples[k][1] = _damaged_label(rng)
    else:
        samples[k] = rng.choice([None, [], [samples[k][0]], samples[k] + [1], "sample", {"y": 1}, 5])
    return samples


# --------------------------------------------------------------------------- running
PROVIDER = '''from paddle.trainer.PyDataProvider2 import *
import pickle


@provider(input_types=[%s], should_shuffle=False)
def process(settings, filename):
    with open(filename, "rb") as f:
        for sample in pickle.load(f):
            yield sample
'''


def _write_provider(tmp, setup):
    module = "fuzz_provider_" + setup
    path = os.path.join(tmp, module + ".py")
    if not os.path.exists(path):
        with open(path + ".tmp", "w") as f:
            f.write(PROVIDER % ", ".join(t for _, t in SETUPS[setup][0]))
        os.rename(path + ".tmp", path)
    return module


def _config_text(setup):
    inputs, net = SETUPS[setup]
    lines = ["from paddle.trainer_config_helpers import *", "settings(batch_size=4, learning_rate=0.01)"]
    lines += ["%s = data_layer(name='%s', size=%d)" % (n, n, DIM[setup] if n == "x" else 3) for n, _ in inputs]
    return "\n".join(lines) + "\n" + net + "outputs(classification_cost(input=out, label=label))\n"


def run_case(case, work):
    import random
    from paddle.proto import message_to_json
    from paddle.trainer.config_parser import parse_config
    from paddle.trainer.data_provider import DataProvider
    from py_paddle import swig_paddle as api
    from py_paddle.util import slots_to_arguments
    setup = case["setup"]
    rng = random.Random(case["seed_value"])
    samples = damaged_samples(setup, rng)
    data = os.path.join(work, "samples.pkl")
    with open(data, "wb") as f:
        pickle.dump(samples, f)
    with open(os.path.join(work, "files.list"), "w") as f:
        f.write(data + "\n")
    config = os.path.join(work, "net.py")
    with open(config, "w") as f:
        f.write(_config_text(setup))
    conf = parse_config(config, "")
    if case["tmp"] not in sys.path:
        sys.path.insert(0, case["tmp"])
    dc = types.SimpleNamespace(type="py2", files=os.path.join(work, "files.list"), load_data_args="",
                               load_data_module=_write_provider(case["tmp"], setup), load_data_object="process",
                               for_test=False)
    trainer = api.Trainer.create(message_to_json(conf), False, 1, 1)
    trainer.startTrainPass(0)
    try:
        with DataProvider(dc, list(conf.model_config.input_layer_names), 4, seed=1, prefetch=1) as provider:
            for batch in provider.batches():
                trainer.trainOneDataBatch(batch.num_samples, slots_to_arguments(batch.slots))
    except ValueError as e:  # DataError is a ValueError: it must say which sample (or batch) it means
        if "sample" in str(e) or "batch" in str(e):
            raise
        if "layer '" in str(e):  # a layer refused the batch (e.g. an empty sequence): not the sample's place
            raise Outcome("engine", "%s: %s" % (type(e).__name__, e))
        raise Outcome("unlocated", "%s: %s" % (type(e).__name__, e))
    trainer.finishTrainPass()
    check_finite(trainer)
    return {"outcome": "ok"}
