"""Linear-chain CRF (crf, crf_decoding) and CTC (ctc, warp_ctc) layers on mixed-length
sequences without padding: finite-difference checks of the emissions and of the CRF
parameter, and brute-force NumPy references that enumerate every tag path / alignment."""
import itertools

import numpy as np
import pytest

from netbuilder import Net, Seq, forward_values, gradient_check, make_args, seq_of_lengths
from py_paddle import swig_paddle as api

C = 3
LENGTHS = [3, 1, 4, 2]


def crf_net(with_weight=False, coeff=1.0, decode_label=True, label_size=C):
    net = Net()
    x = net.data("x", C)
    y = net.data("y", label_size)
    inputs = [(x, {"input_parameter_name": net.param("crfw", [C + 2, C], std=0.5)}), y]
    if with_weight:
        inputs.append(net.data("w", 1))
    net.output(net.layer_p("crf", "crf", C, inputs, coeff=coeff))
    dec_in = [(x, {"input_parameter_name": "crfw"})] + ([y] if decode_label else [])
    net.layer_p("dec", "crf_decoding", C, dec_in)
    return net


def crf_slots(rng, lengths=LENGTHS, weights=False):
    x = seq_of_lengths(rng, lengths, C)
    x = x.with_data(x.data * 2)
    y = Seq(rng.randint(0, C, len(x.data)).astype(np.int32), x.starts)
    slots = [x, y]
    if weights:
        slots.append(rng.uniform(0.5, 2, (len(lengths), 1)).astype(np.float32))
    return slots


def path_score(x, s, p):
    a, b, w = p[:C], p[C:2 * C], p[2 * C:].reshape(C, C)
    sc = a[s[0]] + b[s[-1]] + sum(x[t, s[t]] for t in range(len(s)))
    return sc + sum(w[s[t - 1], s[t]] for t in range(1, len(s)))


def brute_crf(x, s, p):
    """-log P(s|x) and the best path, by enumerating every tag path."""
    paths = list(itertools.product(range(C), repeat=len(x)))
    scores = np.array([path_score(x, q, p) for q in paths], np.float64)
    m = scores.max()
    log_z = m + np.log(np.exp(scores - m).sum())
    return log_z - path_score(x, s, p), list(paths[int(np.argmax(scores))])


@pytest.mark.parametrize("with_weight", [False, True])
def test_crf_gradient_check(with_weight):
    rng = np.random.RandomState(3)
    gm = crf_net(with_weight, coeff=1.5).build()
    slots = crf_slots(rng, weights=with_weight)
    gradient_check(gm, slots, input_slots=[0], samples=15, grad_scale=1.5)


def test_crf_matches_brute_force_and_viterbi():
    rng = np.random.RandomState(5)
    gm = crf_net(decode_label=False).build()
    lengths = [1, 3, 4, 2, 1]
    slots = crf_slots(rng, lengths)
    cost = forward_values(gm, slots, "crf")[:, 0]
    p = gm.getParameterByName("crfw").getBuf(0).copyToNumpyArray().astype(np.float64)
    ids = gm.getLayerOutput("dec").getSlotIds(0).copyToNumpyArray()
    x, y = slots[0], slots[1]
    for k, (b, e) in enumerate(zip(x.starts[:-1], x.starts[1:])):
        want, best = brute_crf(x.data[b:e].astype(np.float64), y.data[b:e], p)
        assert cost[k] == pytest.approx(want, rel=1e-5, abs=1e-5)
        assert list(ids[b:e]) == best
    # With the label the decoder outputs a 0/1 error per token.
    gm2 = crf_net(decode_label=True).build()
    gm2.getParameterByName("crfw").getBuf(0).copyFromNumpyArray(p.astype(np.float32))
    err = forward_values(gm2, slots, "dec")[:, 0]
    np.testing.assert_array_equal(err, (ids != y.data).astype(np.float32))


def test_crf_long_sequence_large_scores_is_finite():
    rng = np.random.RandomState(0)
    gm = crf_net().build()
    x = Seq((rng.randn(400, C) * 60).astype(np.float32), [0, 400])
    y = Seq(rng.randint(0, C, 400).astype(np.int32), [0, 400])
    cost = forward_values(gm, [x, y], "crf")
    assert np.isfinite(cost).all() and cost[0, 0] >= 0
    gm.setNeedInputGradient(True)
    out = api.Arguments.createArguments(0)
    gm.forwardBackward(make_args([x, y]), out, api.PASS_GC)
    g = gm.getLayerOutput("x").getSlotGrad(0).copyToNumpyMat()
    assert np.isfinite(g).all()
    np.testing.assert_allclose(g.sum(1), 0, atol=1e-4)  # marginals sum to 1 minus the one-hot label


def test_crf_bad_label_and_mismatch_are_data_errors():
    rng = np.random.RandomState(0)
    gm = crf_net(label_size=C + 1).build()  # the data layer itself would refuse ids >= C
    x, y = crf_slots(rng)
    bad = y.data.copy()
    bad[x.starts[1]] = C
    with pytest.raises(ValueError, match="sequence 1 token 0 has label 3"):
        forward_values(gm, [x, Seq(bad, x.starts)], "crf")
    with pytest.raises(ValueError, match="cut into sequences differently"):
        forward_values(gm, [x, Seq(y.data, [0, 2, 10])], "crf")


def test_crf_parameter_size_is_a_config_error():
    net = Net()
    x = net.data("x", C)
    y = net.data("y", C)
    net.output(net.layer_p("crf", "crf", C, [(x, {"input_parameter_name": net.param("crfw", [C, C])}), y]))
    with pytest.raises(ValueError, match="input_parameter_name of input 0"):
        net.build()


# ---------------------------------------------------------------- CTC

def ctc_alignments(T, label, blank):
    """All frame paths of length T that collapse to `label`."""
    out = []
    for path in itertools.product(range(K), repeat=T):
        coll, prev = [], None
        for c in path:
            if c != prev and c != blank:
                coll.append(c)
            prev = c
        if coll == list(label):
            out.append(path)
    return out


K = 3  # classes including the blank


def brute_ctc(logp, label, blank):
    paths = ctc_alignments(len(logp), label, blank)
    if not paths:
        return None
    lp = np.array([sum(logp[t, c] for t, c in enumerate(p)) for p in paths])
    m = lp.max()
    return -(m + np.log(np.exp(lp - m).sum()))


def ctc_net(kind, norm=False, blank=0):
    net = Net()
    x = net.data("x", K)
    y = net.data("y", K + 1)
    fields = {"norm_by_times": norm, "coeff": 1.0}
    if kind == "warp_ctc":
        fields["blank"] = blank
        net.output(net.layer("cost", "warp_ctc", K, [x, y], **fields))
    else:
        p = net.layer("p", "mixed", K, [], active_type="softmax")
        net.layers[-1]["inputs"] = [{"input_layer_name": x, "proj_conf": {"type": "identity", "name": "id",
                                                                           "input_size": K, "output_size": K}}]
        net.output(net.layer("cost", "ctc", K, [p, y], **fields))
    return net.build()


CTC_FRAMES = [4, 1, 3, 5, 2]
CTC_LABELS = [[0, 0], [1], [1, 0], [1, 1, 0], [1, 1]]  # label ids (never the blank); the last is too long


def ctc_slots(rng, labels, blank):
    x = seq_of_lengths(rng, CTC_FRAMES, K)
    ids = np.array([c if c < blank else c + 1 for lab in labels for c in lab], np.int32)
    starts = np.concatenate([[0], np.cumsum([len(l) for l in labels])]).astype(np.int32)
    return [x, Seq(ids, starts)]


@pytest.mark.parametrize("kind,blank", [("ctc", K - 1), ("warp_ctc", 0), ("warp_ctc", 1)])
@pytest.mark.parametrize("norm", [False, True])
def test_ctc_gradient_and_brute_force(kind, blank, norm):
    rng = np.random.RandomState(7)
    gm = ctc_net(kind, norm, blank)
    slots = ctc_slots(rng, CTC_LABELS, blank)
    gradient_check(gm, slots, input_slots=[0], samples=20)
    cost = forward_values(gm, slots, "cost")[:, 0]
    x, y = slots
    for k in range(len(CTC_FRAMES)):
        z = x.data[x.starts[k]:x.starts[k + 1]].astype(np.float64)
        logp = z - np.log(np.exp(z).sum(1, keepdims=True))
        want = brute_ctc(logp, y.data[y.starts[k]:y.starts[k + 1]], blank)
        if want is None:  # too short for its label: cost 0 (v1)
            assert cost[k] == 0
            continue
        if norm:
            want /= len(z)
        assert cost[k] == pytest.approx(want, rel=1e-4, abs=1e-5)


def test_ctc_label_out_of_range_is_data_error():
    rng = np.random.RandomState(0)
    gm = ctc_net("ctc")
    x, y = ctc_slots(rng, CTC_LABELS, K - 1)
    bad = y.data.copy()
    bad[0] = K - 1  # the blank
    with pytest.raises(ValueError, match="sequence 0 label 0 is 2"):
        forward_values(gm, [x, Seq(bad, y.starts)], "cost")
