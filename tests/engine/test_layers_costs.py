"""Cost layers beyond the basics: finite-difference checks (with and without the weight
input, and coeff) and per-sample values against NumPy."""
import numpy as np
import pytest

from netbuilder import Net, forward_values, gradient_check

B, IN, K = 6, 4, 5


def build(cost_type, pred_act, pred_size, label_size, weighted, coeff=1.0, **fields):
    net = Net()
    x = net.data("x", IN)
    label = net.data("label", label_size)
    p = net.fc("p", [(x, IN)], pred_size, act=pred_act)
    inputs = [p, label]
    if weighted:
        inputs.append(net.data("w", 1))
    net.output(net.layer("cost", cost_type, 1, inputs, coeff=coeff, **fields))
    return net


def selfnorm_ref(p, ids, alpha=0.2):
    s = p.sum(1)
    return -np.log(p[np.arange(len(ids)), ids]) + np.log(s) + alpha * np.log(s) ** 2


def bce_ref(p, y):
    return -(y * np.log(p) + (1 - y) * np.log(1 - p)).sum(1)


def huber_ref(x, ids):
    a = x[:, 0] * (2 * ids - 1)
    return np.where(a < -1, -4 * a, np.where(a < 1, (1 - a) ** 2, 0))


# type, prediction activation, prediction size, label kind, extra fields, reference(pred, label)
def smooth_l1_ref(x, y):
    d = np.abs(x - y)
    return np.where(d < 1, 0.5 * d * d, d - 0.5).sum(1)


CASES = [
    ("multi_class_cross_entropy_with_selfnorm", "exponential", K, "ids", {"softmax_selfnorm_alpha": 0.2},
     selfnorm_ref),
    ("multi_binary_label_cross_entropy", "sigmoid", K, "binary", {}, bce_ref),
    ("soft_binary_class_cross_entropy", "sigmoid", K, "soft", {}, bce_ref),
    ("huber", "", 1, "ids2", {}, huber_ref),
    ("smooth_l1", "", K, "dense", {}, smooth_l1_ref),
]


def labels(rng, kind):
    if kind == "ids":
        return rng.randint(0, K, B).astype(np.int32), K
    if kind == "ids2":
        return rng.randint(0, 2, B).astype(np.int32), 2
    if kind == "dense":  # differences both inside and outside smooth_l1's quadratic zone
        return (rng.randn(B, K) * 2).astype(np.float32), K
    if kind == "binary":
        return (rng.rand(B, K) > 0.5).astype(np.float32), K
    return rng.uniform(0, 1, (B, K)).astype(np.float32), K


@pytest.mark.parametrize("weighted,coeff", [(False, 1.0), (True, 0.5)])
@pytest.mark.parametrize("type_,act,size,kind,fields,ref", CASES, ids=[c[0] for c in CASES])
def test_cost_gradients_and_values(type_, act, size, kind, fields, ref, weighted, coeff):
    rng = np.random.RandomState(1)
    lab, lab_size = labels(rng, kind)
    net = build(type_, act, size, lab_size, weighted, coeff, **fields)
    gm = net.build()
    xs = (rng.randn(B, IN) * (2.0 if type_ == "huber" else 1.0)).astype(np.float32)
    slots = [xs, lab]
    if weighted:
        slots.append(rng.uniform(0.5, 2, (B, 1)).astype(np.float32))
    gradient_check(gm, slots, input_slots=[0], grad_scale=coeff)
    pred = forward_values(gm, slots, "p").astype(np.float64)
    want = ref(pred, lab)
    if weighted:
        want = want * slots[2][:, 0]
    np.testing.assert_allclose(forward_values(gm, slots, "cost")[:, 0], want, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("weighted", [False, True])
def test_rank_cost_gradients_and_values(weighted):
    rng = np.random.RandomState(2)
    net = Net()
    x = net.data("x", IN)
    lab = net.data("label", 1)
    left = net.fc("left", [(x, IN)], 1, act="tanh")
    right = net.fc("right", [(x, IN)], 1)
    inputs = [left, right, lab]
    if weighted:
        inputs.append(net.data("w", 1))
    net.output(net.layer("cost", "rank-cost", 1, inputs, coeff=1.0))
    gm = net.build()
    slots = [rng.randn(B, IN).astype(np.float32), rng.randint(0, 2, (B, 1)).astype(np.float32)]
    if weighted:
        slots.append(rng.uniform(0.5, 2, (B, 1)).astype(np.float32))
    gradient_check(gm, slots, input_slots=[0])
    o = (forward_values(gm, slots, "left") - forward_values(gm, slots, "right"))[:, 0].astype(np.float64)
    want = np.log1p(np.exp(o)) - slots[1][:, 0] * o
    if weighted:
        want *= slots[2][:, 0]
    np.testing.assert_allclose(forward_values(gm, slots, "cost")[:, 0], want, rtol=1e-4, atol=1e-6)


def test_sum_cost_gradients_and_values():
    rng = np.random.RandomState(3)
    net = Net()
    x = net.data("x", IN)
    h = net.fc("h", [(x, IN)], 3, act="tanh")
    net.output(net.layer("cost", "sum_cost", 1, [h], coeff=1.0))
    gm = net.build()
    slots = [rng.randn(B, IN).astype(np.float32)]
    gradient_check(gm, slots, input_slots=[0])
    np.testing.assert_allclose(forward_values(gm, slots, "cost")[:, 0], forward_values(gm, slots, "h").sum(1),
                               rtol=1e-5)


def test_binary_cross_entropy_rejects_non_probabilities():
    net = build("multi_binary_label_cross_entropy", "", K, K, False)
    gm = net.build()
    with pytest.raises(ValueError, match="sample"):
        forward_values(gm, [np.full((2, IN), 5, np.float32), np.zeros((2, K), np.float32)], "cost")


def test_label_and_score_checks_name_the_first_bad_sample():
    def cost_of(type_, pred_size, label_size, pred, label):
        net = Net()
        p = net.data("p", pred_size)
        lab = net.data("label", label_size)
        net.output(net.layer("cost", type_, 1, [p, lab], coeff=1.0))
        return forward_values(net.build(), [pred, label], "cost")

    probs = np.full((3, K), 1.0 / K, np.float32)
    with pytest.raises(ValueError, match=r"sample 1 has label 7, outside \[0, 5\)"):
        cost_of("multi-class-cross-entropy", K, 10, probs, np.array([0, 7, 9], np.int32))
    with pytest.raises(ValueError, match=r"sample 2 has label 3, outside \[0, 2\)"):
        cost_of("huber", 1, 4, probs[:, :1], np.array([0, 1, 3], np.int32))
    scores = probs.copy()
    scores[1] = -scores[1]
    with pytest.raises(ValueError, match="sample 1 has a non-positive score sum"):
        cost_of("multi_class_cross_entropy_with_selfnorm", K, K, scores, np.array([0, 1, 2], np.int32))


def test_label_slot_declared_with_size_one_is_checked_by_the_cost():
    """v1 configs declare label slots as data_layer(size=1): the data layer takes any id and
    the cost layer, which knows the number of classes, checks it."""
    net = Net()
    x = net.data("x", IN)
    label = net.data("label", 1)
    p = net.fc("p", [(x, IN)], K, act="softmax")
    net.output(net.layer("cost", "multi-class-cross-entropy", 1, [p, label]))
    gm = net.build()
    rng = np.random.RandomState(2)
    slots = [rng.randn(B, IN).astype(np.float32), np.array([4, 0, 3, 1, 2, 4], np.int32)]
    gradient_check(gm, slots, samples=10)
    with pytest.raises(ValueError, match="layer 'cost': sample 2 has label 5, outside"):
        gradient_check(gm, [slots[0], np.array([4, 0, 5, 1, 2, 4], np.int32)], samples=1)


def _multi_label_sparse(rng):
    """Each sample's 1-labels as sparse columns (sample 2 has none)."""
    from netbuilder import Sparse
    rows, cols = [0], []
    for i in range(B):
        k = 0 if i == 2 else rng.randint(1, 4)
        cols.extend(sorted(rng.choice(K, k, replace=False)))
        rows.append(len(cols))
    return Sparse(rows, cols, None, K)


@pytest.mark.parametrize("kind", ["sparse_binary", "ids"])
@pytest.mark.parametrize("weighted,coeff", [(False, 1.0), (True, 0.5)])
def test_multi_binary_label_cross_entropy_takes_sparse_and_integer_labels(kind, weighted, coeff):
    """v1's usual multi-label inputs: a sparse_binary_vector of the labels that are 1, or an
    integer_value (one-hot); the same costs and gradients as the dense 0/1 rows."""
    rng = np.random.RandomState(4)
    if kind == "ids":
        lab = rng.randint(0, K, B).astype(np.int32)
        dense = np.eye(K, dtype=np.float32)[lab]
    else:
        lab = _multi_label_sparse(rng)
        dense = lab.dense()
    gm = build("multi_binary_label_cross_entropy", "sigmoid", K, K, weighted, coeff).build()
    slots = [rng.randn(B, IN).astype(np.float32), lab]
    if weighted:
        slots.append(rng.uniform(0.5, 2, (B, 1)).astype(np.float32))
    gradient_check(gm, slots, input_slots=[0], grad_scale=coeff)
    want = bce_ref(forward_values(gm, slots, "p").astype(np.float64), dense)
    if weighted:
        want = want * slots[2][:, 0]
    np.testing.assert_allclose(forward_values(gm, slots, "cost")[:, 0], want, rtol=1e-4, atol=1e-5)
    dense_slots = [slots[0], dense] + slots[2:]
    np.testing.assert_allclose(forward_values(gm, slots, "cost"), forward_values(gm, dense_slots, "cost"),
                               rtol=1e-6)


def test_multi_binary_label_cross_entropy_checks_label_ids():
    from netbuilder import Sparse
    gm = build("multi_binary_label_cross_entropy", "sigmoid", K, K, False).build()
    x = np.zeros((3, IN), np.float32)
    with pytest.raises(ValueError, match=r"sample 1 has label 5, outside \[0, 5\)"):
        forward_values(gm, [x, np.array([0, 5, 1], np.int32)], "cost")
    with pytest.raises(ValueError, match="sparse slot has width 10"):  # the data layer checks columns
        forward_values(gm, [x, Sparse([0, 1, 1, 2], [3, 9], None, 10)], "cost")
    soft = build("soft_binary_class_cross_entropy", "sigmoid", K, K, False).build()
    with pytest.raises(ValueError, match="must be a dense vector"):
        forward_values(soft, [x, np.array([0, 1, 1], np.int32)], "cost")


@pytest.mark.parametrize("weighted", [False, True])
def test_rank_cost_takes_an_ids_label(weighted):
    """v1 falls back to the label's ids when it has no value: the ids are the 0/1 labels."""
    rng = np.random.RandomState(5)
    net = Net()
    x = net.data("x", IN)
    lab = net.data("label", 2)  # integer_value(2): the data layer's size is the id range
    left = net.fc("left", [(x, IN)], 1, act="tanh")
    right = net.fc("right", [(x, IN)], 1)
    inputs = [left, right, lab]
    if weighted:
        inputs.append(net.data("w", 1))
    net.output(net.layer("cost", "rank-cost", 1, inputs, coeff=1.0))
    gm = net.build()
    ids = rng.randint(0, 2, B).astype(np.int32)
    slots = [rng.randn(B, IN).astype(np.float32), ids]
    if weighted:
        slots.append(rng.uniform(0.5, 2, (B, 1)).astype(np.float32))
    gradient_check(gm, slots, input_slots=[0])
    o = (forward_values(gm, slots, "left") - forward_values(gm, slots, "right"))[:, 0].astype(np.float64)
    want = np.log1p(np.exp(o)) - ids * o
    if weighted:
        want *= slots[2][:, 0]
    np.testing.assert_allclose(forward_values(gm, slots, "cost")[:, 0], want, rtol=1e-4, atol=1e-6)
