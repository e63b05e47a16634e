"""The structured costs of layers/CostLayers.cpp: hsigmoid, lambda_cost and nce. Finite-difference
checks (inputs and parameters), NumPy values and their config and data errors."""
import numpy as np
import pytest

from netbuilder import Net, forward_values, gradient_check, make_args, rand
from py_paddle import swig_paddle as api

B = 5


def hsigmoid_ref(xs, ws, b, ids, num_classes):
    """v1's hierarchical sigmoid, straight from the definition (float64)."""
    code_len = int(num_classes - 1).bit_length()
    out = []
    for r, label in enumerate(ids):
        code = int(label) + num_classes
        length = code.bit_length() - 1
        pre = np.zeros(code_len)
        cost = 0.0
        for j in range(length):
            node = (code >> (j + 1)) - 1
            v = (b[node] if b is not None else 0.0) + sum(w[node] @ x[r] for x, w in zip(xs, ws))
            pre[j] = np.clip(v, -40, 40)
            if (code >> j) & 1:
                cost -= pre[j]
        out.append(cost + np.log1p(np.exp(pre)).sum())
    return np.array(out)


@pytest.mark.parametrize("num_classes,bias,coeff", [(6, True, 1.0), (2, False, 1.0), (9, True, 0.5)])
def test_hsigmoid_gradients_and_values(num_classes, bias, coeff):
    rng = np.random.RandomState(3)
    net = Net()
    x0, x1 = net.data("x0", 4), net.data("x1", 3)
    label = net.data("label", num_classes)
    h = net.fc("h", [(x0, 4)], 5, act="tanh")
    nodes = num_classes - 1
    net.output(net.layer_p("cost", "hsigmoid", 1, [h, x1, label], params=[[nodes, 5], [nodes, 3]],
                           bias_dims=[1, nodes] if bias else None, num_classes=num_classes, coeff=coeff))
    gm = net.build()
    ids = rng.randint(0, num_classes, B).astype(np.int32)
    slots = [rand(rng, B, 4), rand(rng, B, 3), ids]
    gradient_check(gm, slots, input_slots=[0, 1], samples=15, grad_scale=coeff)
    hv = forward_values(gm, slots, "h")
    ws = [gm.getParameterByName("_cost.w%d" % i).getBuf(0).copyToNumpyArray().reshape(nodes, -1) for i in (0, 1)]
    b = gm.getParameterByName("_cost.wbias").getBuf(0).copyToNumpyArray() if bias else None
    got = forward_values(gm, slots, "cost")[:, 0]
    np.testing.assert_allclose(got, hsigmoid_ref([hv, slots[1]], ws, b, ids, num_classes), rtol=1e-4, atol=1e-4)


def test_hsigmoid_probabilities_sum_to_one():
    """exp(-cost) is a distribution over the classes once the constant log 2 per unused code
    position is removed (a complete tree: every class's path is a product of sigmoids)."""
    rng = np.random.RandomState(0)
    n = 7
    net = Net()
    x = net.data("x", 4)
    label = net.data("label", n)
    net.output(net.layer_p("cost", "hsigmoid", 1, [x, label], params=[[n - 1, 4]], bias_dims=[1, n - 1],
                           num_classes=n))
    gm = net.build()
    xv = rand(rng, 1, 4)
    code_len = (n - 1).bit_length()
    total = 0.0
    for c in range(n):
        cost = forward_values(gm, [xv, np.array([c], np.int32)], "cost")[0, 0]
        unused = code_len - ((c + n).bit_length() - 1)
        total += np.exp(-(cost - unused * np.log(2)))
    assert abs(total - 1) < 1e-4


def test_hsigmoid_bad_label_is_a_data_error():
    net = Net()
    x = net.data("x", 3)
    label = net.data("label", 10)  # the data layer allows ids < 10; hsigmoid only < 4
    net.output(net.layer_p("cost", "hsigmoid", 1, [x, label], params=[[3, 3]], num_classes=4))
    gm = net.build()
    with pytest.raises(ValueError, match="sample 1 has label 4"):
        forward_values(gm, [np.ones((2, 3), np.float32), np.array([0, 4], np.int32)], "cost")


def test_hsigmoid_config_errors_name_the_field():
    net = Net()
    x = net.data("x", 3)
    label = net.data("label", 4)
    net.output(net.layer_p("cost", "hsigmoid", 1, [x, label], params=[[2, 3]], num_classes=4))
    with pytest.raises(ValueError, match="needs a weight of 3x3"):
        net.build()
    net = Net()
    x = net.data("x", 3)
    label = net.data("label", 4)
    net.output(net.layer_p("cost", "hsigmoid", 1, [x, label], params=[[1, 3]], num_classes=1))
    with pytest.raises(ValueError, match="num_classes must be >= 2"):
        net.build()


def ndcg_ref(s, l, k):
    order = np.argsort(-s, kind="stable")[:k]
    disc = 1 / np.log(np.arange(k) + 2.0)
    dcg = ((2.0 ** l[order] - 1) * disc).sum()
    best = ((2.0 ** np.sort(l)[::-1][:k] - 1) * disc).sum()
    return dcg / best


def lambda_surrogate(s, l, k, max_sort):
    """The smooth function whose gradient LambdaRank's lambdas are (labels sorted descending)."""
    n = len(s)
    sort_size = n if max_sort == -1 else min(max_sort, n)
    order = np.argsort(-l, kind="stable")
    best = ((2.0 ** l[order][:k] - 1) / np.log(np.arange(k) + 2.0)).sum()
    total = 0.0
    for i in range(sort_size):
        for j in range(i + 1, n):
            a, c = order[i], order[j]
            if j < sort_size:
                dif = (2.0 ** l[a] - 2.0 ** l[c]) * (1 / np.log(i + 2) - 1 / np.log(j + 2))
            else:
                dif = (2.0 ** l[a] - 2.0 ** l[c]) / np.log(i + 2)
            total += abs(dif) / best * np.log1p(np.exp(s[c] - s[a]))
    return total


@pytest.mark.parametrize("ndcg_num,max_sort,coeff", [(3, -1, 1.0), (2, 4, 0.5)])
def test_lambda_cost_values_and_lambdas(ndcg_num, max_sort, coeff):
    rng = np.random.RandomState(5)
    starts = np.array([0, 6, 10, 17], np.int32)
    n = starts[-1]
    net = Net()
    s = net.data("s", 1)
    lab = net.data("rel", 1)
    net.output(net.layer("cost", "lambda_cost", 1, [s, lab], NDCG_num=ndcg_num, max_sort_size=max_sort,
                         coeff=coeff))
    gm = net.build()
    gm.setNeedInputGradient(True)
    scores = rng.permutation(n).astype(np.float32).reshape(n, 1) * 0.3  # no ties
    # distinct relevance labels within each list, so the label sort is unique
    rel = np.concatenate([rng.permutation(starts[q + 1] - starts[q]) % 4 + rng.rand(starts[q + 1] - starts[q])
                          for q in range(3)]).astype(np.float32).reshape(n, 1)
    args = make_args([scores, rel])
    args.setSlotSequenceStartPositionsFromBuffer(0, starts)
    out = api.Arguments.createArguments(0)
    gm.forwardBackward(args, out, api.PASS_GC)
    got = gm.getLayerOutput("cost").getSlotValue(0).copyToNumpyMat()[:, 0]
    grad = gm.getLayerOutput("s").getSlotGrad(0).copyToNumpyMat()[:, 0]
    eps = 1e-3
    for q in range(3):
        b, e = starts[q], starts[q + 1]
        sq, lq = scores[b:e, 0].astype(np.float64), rel[b:e, 0].astype(np.float64)
        np.testing.assert_allclose(got[b:e], ndcg_ref(sq, lq, ndcg_num), rtol=1e-5)
        for k in range(e - b):  # finite differences of the surrogate
            up, down = sq.copy(), sq.copy()
            up[k] += eps
            down[k] -= eps
            num = (lambda_surrogate(up, lq, ndcg_num, max_sort) - lambda_surrogate(down, lq, ndcg_num, max_sort)) / (
                2 * eps)
            assert abs(coeff * num - grad[b + k]) < 1e-4 + 1e-3 * abs(num), (q, k, num, grad[b + k])


def lambda_cost_net(ndcg_num):
    """scores s and relevances rel (both sequences of width 1) -> lambda_cost."""
    net = Net()
    s = net.data("s", 1)
    lab = net.data("rel", 1)
    net.output(net.layer("cost", "lambda_cost", 1, [s, lab], NDCG_num=ndcg_num, max_sort_size=-1))
    return net


def test_lambda_cost_needs_sequences_and_long_enough_lists():
    net = lambda_cost_net(3)
    gm = net.build()
    x = np.ones((4, 1), np.float32)
    with pytest.raises(ValueError, match="must be a sequence"):
        gm.forward(make_args([x, x]), api.Arguments.createArguments(0), api.PASS_TEST)
    args = make_args([x, x])
    args.setSlotSequenceStartPositionsFromBuffer(0, np.array([0, 2, 4], np.int32))
    with pytest.raises(ValueError, match="sequence 0 has 2 items, fewer than NDCG_num = 3"):
        gm.forward(args, api.Arguments.createArguments(0), api.PASS_TEST)
    net.layers[-1]["max_sort_size"] = 2
    with pytest.raises(ValueError, match="max_sort_size"):
        net.build()


def test_lambda_cost_needs_a_relevant_item_in_each_list():
    gm = lambda_cost_net(2).build()
    scores = np.arange(9, dtype=np.float32).reshape(9, 1)
    rel = np.array([1, 0, 2, 0, 0, 0, 0, 0, 0], np.float32).reshape(9, 1)
    args = make_args([scores, rel])
    args.setSlotSequenceStartPositionsFromBuffer(0, np.array([0, 3, 6, 9], np.int32))
    with pytest.raises(ValueError, match="sequence 1 has no positive relevance label"):
        gm.forward(args, api.Arguments.createArguments(0), api.PASS_TEST)


def _nce_net(num_classes, num_neg, dist=None, weighted=False, coeff=1.0):
    net = Net()
    x0, x1 = net.data("x0", 4), net.data("x1", 3)
    label = net.data("label", num_classes)
    h = net.fc("h", [(x0, 4)], 5, act="tanh")
    inputs = [h, x1, label]
    if weighted:
        inputs.append(net.data("w", 1))
    fields = {"num_classes": num_classes, "num_neg_samples": num_neg, "coeff": coeff}
    if dist is not None:
        fields["neg_sampling_dist"] = list(dist)
    net.output(net.layer_p("cost", "nce", 1, inputs, params=[[num_classes, 5], [num_classes, 3]],
                           bias_dims=[1, num_classes], act="sigmoid", **fields))
    return net


@pytest.mark.parametrize("dist,weighted,coeff", [(None, False, 1.0), ([0.1, 0.2, 0.3, 0.15, 0.25], True, 0.5)])
def test_nce_gradients(dist, weighted, coeff):
    rng = np.random.RandomState(11)
    gm = _nce_net(5, 3, dist, weighted, coeff).build()
    slots = [rand(rng, B, 4), rand(rng, B, 3), rng.randint(0, 5, B).astype(np.int32)]
    if weighted:
        slots.append(rng.uniform(0.5, 2, (B, 1)).astype(np.float32))
    gradient_check(gm, slots, input_slots=[0, 1], samples=15, grad_scale=coeff)


def test_nce_values_with_a_deterministic_noise_distribution():
    rng = np.random.RandomState(12)
    n, k = 4, 2
    dist = [0.0, 0.0, 1.0, 0.0]  # every noise sample is class 2
    gm = _nce_net(n, k, dist).build()
    slots = [rand(rng, B, 4), rand(rng, B, 3), rng.randint(0, n, B).astype(np.int32)]
    hv = forward_values(gm, slots, "h")
    w0 = gm.getParameterByName("_cost.w0").getBuf(0).copyToNumpyArray().reshape(n, 5)
    w1 = gm.getParameterByName("_cost.w1").getBuf(0).copyToNumpyArray().reshape(n, 3)
    b = gm.getParameterByName("_cost.wbias").getBuf(0).copyToNumpyArray()
    o = 1 / (1 + np.exp(-(hv @ w0.T + slots[1] @ w1.T + b)))  # [B, n]
    q = k * np.array(dist)
    lab = slots[2]
    p_lab = o[np.arange(B), lab]
    want = -np.log(p_lab / (p_lab + q[lab])) - k * np.log(q[2] / (o[:, 2] + q[2]))
    got = forward_values(gm, slots, "cost", api.PASS_TEST)[:, 0]
    np.testing.assert_allclose(got, want, rtol=1e-5)


def test_nce_config_errors():
    net = _nce_net(5, 3, dist=[0.5, 0.5])
    with pytest.raises(ValueError, match="neg_sampling_dist has 2 values, expected num_classes = 5"):
        net.build()
