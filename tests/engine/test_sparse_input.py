"""Sparse input (CSR, sparse_binary_vector / sparse_vector slots) consumed without
densifying by fc and by the fc projection of mixed: gradient checks of the
parameters, values against the dense product, data checks, the Python feed."""
import numpy as np
import pytest

from netbuilder import Net, Seq, Sparse, forward_output, gradient_check, sum_cost_net_output
from py_paddle import swig_paddle as api

V = 11


def rand(rng, *shape):
    return rng.randn(*shape).astype(np.float32)


def random_sparse(rng, n, binary, empty_row=True, starts=None):
    rows, cols, vals = [0], [], []
    for i in range(n):
        k = 0 if (empty_row and i == 1) else rng.randint(1, 5)
        cols.extend(sorted(rng.choice(V, k, replace=False)))
        vals.extend(rng.randn(k))
        rows.append(len(cols))
    return Sparse(rows, cols, None if binary else vals, V, starts)


def param(gm, name, shape):
    return gm.getParameterByName(name).getBuf(0).copyToNumpyArray().reshape(shape)


@pytest.mark.parametrize("binary", [True, False], ids=["binary", "float"])
def test_fc_sparse_input(binary):
    rng = np.random.RandomState(1)
    net = Net()
    x = net.data("x", V)
    y = net.data("y", 2)
    f = net.fc("f", [(x, V), (y, 2)], 4, act="tanh")
    sum_cost_net_output(net, f, 4)
    gm = net.build()
    sp = random_sparse(rng, 6, binary)  # row 1 has no entries
    slots = [sp, rand(rng, 6, 2), rand(rng, 6, 4)]
    gradient_check(gm, slots, input_slots=[1], samples=V * 4)  # every weight: touched and untouched rows
    value, _, _ = forward_output(gm, slots, "f")
    want = np.tanh(sp.dense() @ param(gm, "_f.w0", (V, 4)) + slots[1] @ param(gm, "_f.w1", (2, 4))
                   + param(gm, "_f.wbias", (4,)))
    np.testing.assert_allclose(value, want, rtol=1e-5, atol=1e-6)
    # rows of the weight no sample names get no gradient
    gm.forwardBackward(__import__("netbuilder").make_args(slots), api.Arguments.createArguments(0), api.PASS_GC)
    g = gm.getParameterByName("_f.w0").getBuf(api.PARAMETER_GRADIENT).copyToNumpyArray().reshape(V, 4)
    unused = sorted(set(range(V)) - set(sp.cols.tolist()))
    assert np.all(g[unused] == 0)


@pytest.mark.parametrize("binary", [True, False], ids=["binary", "float"])
def test_mixed_fc_projection_sparse_input(binary):
    rng = np.random.RandomState(2)
    net = Net()
    x = net.data("x", V)
    m = net.mixed("m", 3, [(x, V, "fc", 3, {})], act="sigmoid", bias=True)
    sum_cost_net_output(net, m, 3)
    gm = net.build()
    sp = random_sparse(rng, 5, binary)
    slots = [sp, rand(rng, 5, 3)]
    gradient_check(gm, slots, samples=V * 3)
    value, _, _ = forward_output(gm, slots, "m")
    want = 1 / (1 + np.exp(-(sp.dense() @ param(gm, "_m.w0", (V, 3)) + param(gm, "_m.wbias", (3,)))))
    np.testing.assert_allclose(value, want, rtol=1e-5, atol=1e-6)


def test_sparse_sequence_input_then_pooling():
    """sparse_binary_vector_sequence: rows are tokens; the structure passes through fc."""
    rng = np.random.RandomState(3)
    net = Net()
    x = net.data("x", V)
    f = net.fc("f", [(x, V)], 3, act="tanh")
    p = net.layer("p", "average", 3, [f], trans_type="non-seq", average_strategy="sum")
    sum_cost_net_output(net, p, 3)
    gm = net.build()
    sp = random_sparse(rng, 7, True, starts=[0, 3, 4, 7])
    slots = [sp, rand(rng, 3, 3)]
    gradient_check(gm, slots, samples=15)
    value, _, _ = forward_output(gm, slots, "p")
    h = np.tanh(sp.dense() @ param(gm, "_f.w0", (V, 3)) + param(gm, "_f.wbias", (3,)))
    np.testing.assert_allclose(value, np.add.reduceat(h, [0, 3, 4]), rtol=1e-5, atol=1e-6)


def test_sparse_data_errors():
    net = Net()
    x = net.data("x", V)
    net.output(net.fc("f", [(x, V)], 2))
    gm = net.build()
    with pytest.raises(ValueError, match="sparse slot has width 12"):
        forward_output(gm, [Sparse([0, 1], [3], None, 12)], "f")
    with pytest.raises(ValueError, match="sample 1 has sparse id 11"):
        forward_output(gm, [Sparse([0, 1, 2], [3, 11], None, V)], "f")
    args = api.Arguments.createArguments(1)
    with pytest.raises(ValueError, match="2 values for 3 column ids"):
        args.setSlotSparseFromBuffers(0, np.array([0, 3], np.int32), np.array([1, 2, 3], np.int32),
                                      np.ones(2, np.float32), V)
    with pytest.raises(ValueError, match="do not fit|there are"):
        args.setSlotSparseFromBuffers(0, np.array([0, 4], np.int32), np.array([1, 2, 3], np.int32),
                                      np.zeros(0, np.float32), V)
    # ids or sparse input need a projection that reads them
    net = Net()
    x = net.data("x", V)
    net.output(net.mixed("m", 2, [(x, V, "trans_fc", 2, {})]))
    with pytest.raises(ValueError, match="dense input"):
        forward_output(net.build(), [Sparse([0, 1], [3], None, V)], "m")


def test_slots_to_arguments_feeds_sparse_slots():
    from paddle.trainer.PyDataProvider2 import sparse_binary_vector, sparse_vector, integer_value
    from py_paddle.util import DataProviderConverter
    conv = DataProviderConverter([sparse_binary_vector(V), sparse_vector(V), integer_value(3)])
    args = conv([[[1, 4], [(2, 0.5), (7, -1.0)], 0], [[], [(10, 2.0)], 2], [[9], [], 1]])
    assert args.isSlotSparse(0) and args.isSlotSparse(1) and not args.isSlotSparse(2)
    assert args.getBatchSize(0) == 3 and args.getBatchSize(1) == 3
    net = Net()
    a, b = net.data("a", V), net.data("b", V)
    net.data("label", 3)
    out = net.fc("f", [(a, V), (b, V)], 3, bias=False)
    net.output(out)
    gm = net.build()
    o = api.Arguments.createArguments(0)
    gm.forward(args, o, api.PASS_TEST)
    A = np.zeros((3, V), np.float32)
    A[0, [1, 4]] = 1
    A[2, 9] = 1
    B = np.zeros((3, V), np.float32)
    B[0, 2], B[0, 7], B[1, 10] = 0.5, -1.0, 2.0
    want = A @ param(gm, "_f.w0", (V, 3)) + B @ param(gm, "_f.w1", (V, 3))
    np.testing.assert_allclose(o.getSlotValue(0).copyToNumpyMat(), want, rtol=1e-5, atol=1e-6)
