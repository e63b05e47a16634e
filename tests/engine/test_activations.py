"""The CPU activations (ActivationFunctors.h: vecExp / vecTanh, no libm call per element)
against NumPy in float64, over a dense sweep that reaches saturation, overflow and NaN.
The LSTM / GRU cells apply the same functors; their gradient checks are in
test_recurrent_layers.py."""
import numpy as np
import pytest

from netbuilder import Net, forward_values

WIDTH = 1000


def sweep():
    """Every 1/2048 over [-120, 120] (dense near 0 and across saturation), small
    magnitudes down to 1e-30 of both signs, and the special values."""
    dense = np.arange(-120 * 2048, 120 * 2048 + 1, dtype=np.float64) / 2048
    small = np.logspace(-30, 0, 20000)
    special = [np.nan, np.inf, -np.inf, 0.0, -0.0, 88.72, 88.73, -87.3, -103.9, -104.5, 1e30, -1e30]
    x = np.concatenate([dense, small, -small, special]).astype(np.float32)
    pad = (-len(x)) % WIDTH
    return np.concatenate([x, np.zeros(pad, np.float32)]).reshape(-1, WIDTH)


def activated(act, x):
    net = Net()
    net.data("x", WIDTH)
    net.output(net.layer("y", "addto", WIDTH, ["x"], active_type=act))
    return forward_values(net.build(use_gpu=False), [x], "y")


def sigmoid_v1(x):  # v1 clips the argument of exp to +-40
    return 1.0 / (1.0 + np.exp(-np.clip(x, -40.0, 40.0)))


def stanh_v1(x):  # the scaled argument is a float product in the engine
    return 1.7159 * np.tanh((np.float32(2.0 / 3.0) * x).astype(np.float64))


def ulp32(v):
    """The float32 unit in the last place of the float64 values v (computed in float64: the
    engine flushes denormals to zero in this process, so NumPy's float32 arithmetic would too)."""
    exponent = np.frexp(np.abs(v))[1]
    return np.where(v == 0, 2.0 ** -149, np.ldexp(1.0, np.maximum(exponent - 24, -149)))


REFERENCES = {"tanh": (np.tanh, 2), "sigmoid": (sigmoid_v1, 3), "exponential": (np.exp, 2),
              "stanh": (stanh_v1, 4)}


@pytest.mark.parametrize("act", sorted(REFERENCES))
def test_activation_within_a_few_ulp_of_float64(act):
    ref, ulps = REFERENCES[act]
    x = sweep()
    got = activated(act, x)
    with np.errstate(over="ignore", invalid="ignore"):
        want = ref(x.astype(np.float64))
    nan = np.isnan(x)
    assert np.isnan(got[nan]).all()  # NaN passes through (the non-finite guard must see it)
    assert not np.isnan(got[~nan]).any()
    with np.errstate(over="ignore"):
        want32 = want[~nan].astype(np.float32)
    inf = np.isinf(want32)
    np.testing.assert_array_equal(got[~nan][inf], want32[inf])  # exp overflows to inf exactly
    g, w = got[~nan][~inf].astype(np.float64), want[~nan][~inf]
    err = np.abs(g - w) / ulp32(w)
    err[(np.abs(w) < 2.0 ** -126) & (g == 0)] = 0  # the engine flushes denormal results to zero (FTZ)
    worst = np.argmax(err)
    assert err[worst] <= ulps, "%s(%r) = %r, want %r (%.2f ulp)" % (act, x[~nan][~inf][worst], g[worst], w[worst],
                                                                   err[worst])


def test_saturation_is_exact():
    def act_row(act, values):
        x = np.zeros((1, WIDTH), np.float32)
        x[0, :len(values)] = values
        return activated(act, x)[0, :len(values)]
    big = [9.5, 20, 1e30, np.inf]
    np.testing.assert_array_equal(act_row("tanh", big + [-v for v in big]), [1] * 4 + [-1] * 4)
    np.testing.assert_array_equal(act_row("sigmoid", big[1:] + [40, 100]), [1] * 5)
    np.testing.assert_array_equal(act_row("exponential", [-200, -1e30, -np.inf]), [0, 0, 0])
    np.testing.assert_array_equal(act_row("tanh", [0.0]), [0])


def test_softmax_matches_numpy():
    rng = np.random.RandomState(3)
    x = (rng.randn(64, WIDTH) * 8).astype(np.float32)
    got = activated("softmax", x)
    z = (x - x.max(axis=1, keepdims=True)).astype(np.float64)  # the engine subtracts in float32 too
    want = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-30)


@pytest.mark.parametrize("act,ref", [("reciprocal", lambda x: 1.0 / x), ("sqrt", np.sqrt),
                                     ("softsign", lambda x: x / (1.0 + np.abs(x)))])
def test_v1_elementwise_activations_match_numpy(act, ref):
    """sqrt, reciprocal and softsign (v1's active types) on positive and negative values."""
    x = np.linspace(-4.0, 4.0, WIDTH, dtype=np.float32).reshape(1, WIDTH)
    x = np.where(x == 0, np.float32(0.25), x)
    got = activated(act, x)
    with np.errstate(invalid="ignore"):
        want = ref(x.astype(np.float64))
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    ok = ~np.isnan(want)
    np.testing.assert_allclose(got[ok], want[ok], rtol=3e-7, atol=0)
