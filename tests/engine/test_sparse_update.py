"""ParamAttr(sparse_update=True): only the rows a batch touched are updated,
with their L1/L2 decay caught up lazily and exactly."""
import json

import numpy as np
import pytest

from netbuilder import Net, make_args
from py_paddle import swig_paddle as api

VOCAB, DIM, BATCH = 50, 3, 6


def embedding_trainer(method, sparse, decay=0.0, l1=0.0, lr=0.1, threads=1):
    net = Net()
    ids = net.data("ids", VOCAB)
    y = net.data("y", 2)
    net.mixed("emb", DIM, [(ids, VOCAB, "table", DIM, {})])
    for p in net.params:
        if p["name"] == "_emb.w0":
            p.update(sparse_update=sparse, decay_rate=decay, decay_rate_l1=l1, initial_std=1.0)
    out = net.fc("out", [("emb", DIM)], 2, act="", std=0.5)
    net.output(net.layer("cost", "square_error", 1, [out, y], coeff=1.0))
    opt = {"batch_size": BATCH, "learning_method": method, "learning_rate": lr}
    return api.Trainer.create(json.dumps({"model_config": net.config(), "opt_config": opt}), False, threads, 1)


def table(trainer):
    return trainer.getGradientMachine().getParameterByName("_emb.w0").getBuf(0).copyToNumpyArray().reshape(VOCAB, DIM)


def batches(n, seed=0, low=0, high=VOCAB):
    rng = np.random.RandomState(seed)
    return [[rng.randint(low, high, BATCH).astype(np.int32), rng.randn(BATCH, 2).astype(np.float32)]
            for _ in range(n)]


@pytest.mark.parametrize("method", ["momentum", "adagrad", "rmsprop", "decayed_adagrad"])
def test_sparse_rows_match_dense_update(method):
    lr = 0.01 if method == "momentum" else 0.1  # plain SGD on summed gradients diverges at 0.1
    dense, sparse = embedding_trainer(method, False, lr=lr), embedding_trainer(method, True, lr=lr)
    for t in (dense, sparse):
        t.startTrainPass(0)
        for b in batches(8, high=20):  # rows 20.. are never touched
            t.trainOneDataBatch(BATCH, make_args(b))
    if method == "momentum":  # plain SGD: untouched rows are bit-identical to their initial value
        fresh = embedding_trainer(method, True, lr=lr)
        np.testing.assert_array_equal(table(sparse)[20:], table(fresh)[20:])
    assert np.isfinite(table(dense)).all()
    np.testing.assert_allclose(table(sparse), table(dense), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("l2,l1", [(0.3, 0.0), (0.0, 0.05), (0.2, 0.02)])
def test_lazy_decay_is_exact(l2, l1):
    """Decay of untouched rows, caught up lazily, equals decaying every row every step."""
    lr = 0.1
    t = embedding_trainer("momentum", True, decay=l2, l1=l1, lr=lr)
    gm = t.getGradientMachine()
    w = table(t).astype(np.float64)
    out_w = gm.getParameterByName("_out.w0").getBuf(0).copyToNumpyArray().reshape(DIM, 2).astype(np.float64)
    out_b = gm.getParameterByName("_out.wbias").getBuf(0).copyToNumpyArray().astype(np.float64)
    t.startTrainPass(0)
    for ids, y in batches(10, seed=3, high=25):
        # reference: SGD on the touched rows, then every row decays (v1 post-step decay)
        pred = w[ids] @ out_w + out_b
        g_out = 2 * (pred - y)
        g_emb = np.zeros_like(w)
        np.add.at(g_emb, ids, g_out @ out_w.T)
        out_w -= lr * (w[ids].T @ g_out)
        out_b -= lr * g_out.sum(0)
        w = w - lr * g_emb
        w = np.sign(w) * np.maximum(np.abs(w) - lr * l1, 0)
        w = w / (1 + lr * l2)
        t.trainOneDataBatch(BATCH, make_args([ids, y]))
    t.startTestPeriod()  # catches the untouched rows up
    t.finishTestPeriod()
    np.testing.assert_allclose(table(t), w, rtol=2e-4, atol=1e-5)


def test_sparse_gradient_reads_like_the_dense_one():
    """getBuf(PARAMETER_GRADIENT) of a table whose gradient is kept as compact rows."""
    grads = []
    for sparse in (False, True):
        net = Net()
        ids = net.data("ids", VOCAB)
        net.mixed("emb", DIM, [(ids, VOCAB, "table", DIM, {})])
        net.params[-1].update(sparse_update=sparse, initial_std=1.0)
        y = net.data("y", DIM)
        net.output(net.layer("cost", "square_error", 1, ["emb", y], coeff=1.0))
        gm = api.GradientMachine.createByConfigJson(json.dumps(net.config()), False, 1)
        out = api.Arguments.createArguments(0)
        ids_, _ = batches(1, seed=2)[0]
        gm.forward(make_args([ids_, np.ones((BATCH, DIM), np.float32)]), out, api.PASS_TRAIN)
        gm.backward()
        grads.append(gm.getParameterByName("_emb.w0").getBuf(api.PARAMETER_GRADIENT).copyToNumpyArray())
    assert np.abs(grads[0]).sum() > 0
    np.testing.assert_array_equal(grads[1], grads[0])


def test_sparse_update_rejected_with_adam():
    t = embedding_trainer("adam", True)
    t.startTrainPass(0)
    with pytest.raises(ValueError, match="does not support sparse_update"):
        t.trainOneDataBatch(BATCH, make_args(batches(1)[0]))


def test_large_table_updates_only_touched_rows():
    vocab, dim = 1000000, 64
    net = Net()
    ids = net.data("ids", vocab)
    net.mixed("emb", dim, [(ids, vocab, "table", dim, {})])
    net.params[-1]["sparse_update"] = True
    y = net.data("y", dim)
    net.output(net.layer("cost", "square_error", 1, ["emb", y], coeff=1.0))
    opt = {"batch_size": 512, "learning_method": "adagrad", "learning_rate": 0.05}
    t = api.Trainer.create(json.dumps({"model_config": net.config(), "opt_config": opt}), False, 1, 1)
    p = t.getGradientMachine().getParameterByName("_emb.w0")
    before = p.getBuf(0).copyToNumpyArray().reshape(vocab, dim)
    rng = np.random.RandomState(0)
    touched = rng.randint(0, vocab, 512).astype(np.int32)
    t.startTrainPass(0)
    t.trainOneDataBatch(512, make_args([touched, rng.randn(512, dim).astype(np.float32)]))
    after = p.getBuf(0).toNumpyArrayInplace().reshape(vocab, dim)
    changed = np.flatnonzero(np.any(after != before, axis=1))
    assert set(changed) == set(touched)
    assert not p.getBuf(api.PARAMETER_GRADIENT).toNumpyArrayInplace().any()


def train(trainer, data):
    trainer.startTrainPass(0)
    for b in data:
        trainer.trainOneDataBatch(BATCH, make_args(b))
    trainer.startTestPeriod()  # catches every row up
    trainer.finishTestPeriod()
    return table(trainer)


@pytest.mark.parametrize("method,l2,l1", [("momentum", 0.3, 0.0), ("momentum", 0.2, 0.02), ("adagrad", 0.3, 0.01),
                                          ("rmsprop", 0.2, 0.0)])
def test_two_threads_match_one_with_lazy_decay(method, l2, l1):
    """Rows that only the second thread's replica reads catch up on their decay first,
    exactly as when one thread reads them."""
    data = batches(10, seed=7, high=25)
    one = train(embedding_trainer(method, True, decay=l2, l1=l1, lr=0.05), data)
    two = train(embedding_trainer(method, True, decay=l2, l1=l1, lr=0.05, threads=2), data)
    assert not np.array_equal(one, train(embedding_trainer(method, True, lr=0.05), data))  # the decay matters
    np.testing.assert_allclose(two, one, rtol=1e-5, atol=1e-6)
    again = train(embedding_trainer(method, True, decay=l2, l1=l1, lr=0.05, threads=2), data)
    np.testing.assert_array_equal(again, two)  # bit for bit run to run


def test_sparse_adagrad_keeps_one_accumulator(tmp_path):
    """A sparse_update table keeps only its AdaGrad sum (no sum1, no rate buffer)."""
    t = embedding_trainer("adagrad", True, decay=0.1)
    t.startTrainPass(0)
    t.trainOneDataBatch(BATCH, make_args(batches(1)[0]))
    t.saveOptimizerState(str(tmp_path))
    saved = {f.name for f in tmp_path.iterdir() if f.name.startswith("_emb.w0.")}
    assert saved == {"_emb.w0.gradient_squaresum"}
    dense = {f.name for f in tmp_path.iterdir() if f.name.startswith("_out.w0.")}
    assert "_out.w0.gradient_squaresum1" in dense and "_out.w0.learning_rate" in dense


@pytest.mark.parametrize("method", ["adagrad", "rmsprop"])
def test_resume_state_file_is_byte_identical(tmp_path, method):
    for d in ("full", "half", "resumed"):
        (tmp_path / d).mkdir()
    data = batches(8, seed=9, high=30)
    full = embedding_trainer(method, True, decay=0.1, lr=0.05)
    full.startTrainPass(0)
    for b in data:
        full.trainOneDataBatch(BATCH, make_args(b))
    full.saveOptimizerState(str(tmp_path / "full"))
    first = embedding_trainer(method, True, decay=0.1, lr=0.05)
    first.startTrainPass(0)
    for b in data[:4]:
        first.trainOneDataBatch(BATCH, make_args(b))
    first.saveParameters(str(tmp_path / "half"))
    first.saveOptimizerState(str(tmp_path / "half"))
    resumed = embedding_trainer(method, True, decay=0.1, lr=0.05)
    resumed.loadParameters(str(tmp_path / "half"))
    resumed.loadOptimizerState(str(tmp_path / "half"))
    resumed.startTrainPass(0)
    for b in data[4:]:
        resumed.trainOneDataBatch(BATCH, make_args(b))
    resumed.saveOptimizerState(str(tmp_path / "resumed"))
    full_state = (tmp_path / "full" / "updater.json").read_bytes()
    assert (tmp_path / "resumed" / "updater.json").read_bytes() == full_state
    names = [sorted(f.name for f in (tmp_path / d).iterdir()) for d in ("resumed", "full")]
    assert names[0] == names[1]


def test_sparse_adagrad_resumes_state_saved_in_the_dense_layout(tmp_path):
    """State with v1's two accumulators (sum0 + sum1, and a rate) for a table is folded into one."""
    data = batches(6, seed=4, high=30)
    first = embedding_trainer("adagrad", True, decay=0.1, lr=0.05)
    first.startTrainPass(0)
    for b in data[:3]:
        first.trainOneDataBatch(BATCH, make_args(b))
    first.saveParameters(str(tmp_path))
    first.saveOptimizerState(str(tmp_path))
    tables = []
    for split in (False, True):
        if split:  # the sum as two halves (exact in binary), plus a rate file, listed in updater.json
            path = tmp_path / "_emb.w0.gradient_squaresum"
            raw = path.read_bytes()
            half = (np.frombuffer(raw[16:], np.float32) / 2).astype(np.float32)
            path.write_bytes(raw[:16] + half.tobytes())
            (tmp_path / "_emb.w0.gradient_squaresum1").write_bytes(raw[:16] + half.tobytes())
            (tmp_path / "_emb.w0.learning_rate").write_bytes(raw[:16] + np.ones_like(half).tobytes())
            state = json.loads((tmp_path / "updater.json").read_text())
            state["buffers"]["_emb.w0"] += ["gradient_squaresum1", "learning_rate"]
            (tmp_path / "updater.json").write_text(json.dumps(state))
        t = embedding_trainer("adagrad", True, decay=0.1, lr=0.05)
        t.loadParameters(str(tmp_path))
        t.loadOptimizerState(str(tmp_path))
        tables.append(train(t, data[3:]))
    np.testing.assert_array_equal(tables[1], tables[0])


def test_resume_with_sparse_rows_matches_uninterrupted(tmp_path):
    data = batches(12, seed=5, high=30)
    full = embedding_trainer("rmsprop", True, decay=0.1, lr=0.05)
    full.startTrainPass(0)
    for b in data:
        full.trainOneDataBatch(BATCH, make_args(b))
    first = embedding_trainer("rmsprop", True, decay=0.1, lr=0.05)
    first.startTrainPass(0)
    for b in data[:6]:
        first.trainOneDataBatch(BATCH, make_args(b))
    first.saveParameters(str(tmp_path))
    first.saveOptimizerState(str(tmp_path))
    resumed = embedding_trainer("rmsprop", True, decay=0.1, lr=0.05)
    resumed.loadParameters(str(tmp_path))
    resumed.loadOptimizerState(str(tmp_path))
    resumed.startTrainPass(1)
    for b in data[6:]:
        resumed.trainOneDataBatch(BATCH, make_args(b))
    for t in (full, resumed):
        t.startTestPeriod()
        t.finishTestPeriod()
    # Saving catches every row up at once where the uninterrupted run catches up lazily: the
    # same decay in another rounding order (1.7e-5 apart at -O1); a lost decay step is ~5e-3.
    np.testing.assert_allclose(table(resumed), table(full), rtol=1e-4, atol=1e-5)


SPARSE_CTR = """
from paddle.trainer_config_helpers import *
settings(batch_size=64, learning_rate=0.05, learning_method=AdaGradOptimizer(), regularization=L2Regularization(1e-2))
x = data_layer(name='x', size=5000)
h = fc_layer(input=x, size=64, act=TanhActivation(), param_attr=ParamAttr(name='table', sparse_update=True))
out = fc_layer(input=h, size=2, act=SoftmaxActivation())
outputs(classification_cost(input=out, label=data_layer(name='label', size=2)))
"""
# Trains 6 batches of sparse input (ids from a 5000-row table) and saves the table.
SPARSE_RUNNER = r"""
import sys
import numpy as np
from paddle.proto import message_to_json
from paddle.trainer.config_parser import parse_config
from py_paddle import swig_paddle as api

conf = parse_config(sys.argv[1], "")
trainer = api.Trainer.create(message_to_json(conf), False, 1, 1)
trainer.startTrainPass(0)
rng = np.random.RandomState(0)
for _ in range(6):
    counts = rng.randint(10, 40, 64)
    a = api.Arguments.createArguments(2)
    a.setSlotSparseFromBuffers(0, np.concatenate([[0], np.cumsum(counts)]).astype(np.int32),
                               rng.randint(0, 5000, int(counts.sum())).astype(np.int32), np.zeros(0, np.float32), 5000)
    a.setSlotIdsFromBuffer(1, rng.randint(0, 2, 64).astype(np.int32))
    trainer.trainOneDataBatch(64, a)
trainer.startTestPeriod()  # every row catches up its lazy decay
trainer.finishTestPeriod()
np.save(sys.argv[2], trainer.getGradientMachine().getParameterByName("table").getBuf(0).copyToNumpyArray())
"""


def test_sparse_rows_split_over_threads_keep_their_bits(tmp_path):
    """The touched rows' update and catch-up, sparseMul (by sample rows) and sparseTransMulAdd
    (by columns) split over 2 threads: the same bits run to run, and what one thread trains
    (the same bits today: every element adds in the same order; close, should a dense layer's
    kernel split its sums)."""
    import os
    import subprocess
    import sys
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    (tmp_path / "ctr.py").write_text(SPARSE_CTR)

    def run(threads, tag, **env):
        clean = {k: v for k, v in os.environ.items() if k not in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS")}
        out = tmp_path / (tag + ".npy")
        subprocess.run([sys.executable, "-c", SPARSE_RUNNER, str(tmp_path / "ctr.py"), str(out)], check=True,
                       timeout=300, env=dict(clean, PADDLE_THREADS=str(threads),
                                             PYTHONPATH=os.pathsep.join([root] + sys.path), **env))
        return np.load(str(out))

    split = run(2, "split", PADDLE_PARALLEL_ALL="1")  # every loop the pool can split, however small
    np.testing.assert_array_equal(split, run(2, "again", PADDLE_PARALLEL_ALL="1"))
    np.testing.assert_allclose(split, run(1, "serial"), rtol=1e-5, atol=1e-6)


def test_a_table_buffer_outlives_its_trainer():
    """A sparse table's rows are reserved by its parameter: a buffer taken from it keeps it alive."""
    import gc
    trainer = embedding_trainer("adagrad", True)
    buf = trainer.getGradientMachine().getParameterByName("_emb.w0").getBuf(0)
    before = buf.copyToNumpyArray().copy()
    del trainer
    gc.collect()
    np.testing.assert_array_equal(buf.copyToNumpyArray(), before)
