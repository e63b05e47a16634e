"""gradient_check (netbuilder) fails where backward is wrong: a machine whose reported
gradients are corrupted after the real backward (one parameter scaled, one entry with the
wrong sign, an input gradient scaled), and a cost coefficient the check is not told of.
The same machines uncorrupted pass, so the failures come from the comparison."""
import re

import numpy as np
import pytest

from netbuilder import Net, api, gradient_check

BATCH, IN, OUT = 6, 5, 4


class CorruptedBackward(object):
    """A GradientMachine whose backward reports wrong gradients: after the engine's
    forwardBackward, rewrites the named parameter's gradient buffer (or the named input
    layer's gradient) with corrupt(gradient) in the engine, where gradient_check reads it."""

    def __init__(self, gm, corrupt, parameter=None, input_layer=None):
        self._gm, self._corrupt = gm, corrupt
        self._parameter, self._input_layer = parameter, input_layer

    def __getattr__(self, name):
        if name == "config_json":  # no GPU parity check: it would meet the corruption first
            raise AttributeError(name)
        return getattr(self._gm, name)

    def forwardBackward(self, in_args, out_args, pass_type):
        self._gm.forwardBackward(in_args, out_args, pass_type)
        if self._parameter is not None:
            buf = self._gm.getParameterByName(self._parameter).getBuf(api.PARAMETER_GRADIENT)
            buf.copyFromNumpyArray(self._corrupt(buf.copyToNumpyArray().copy()).astype(np.float32))
        if self._input_layer is not None:
            grad = self._gm.getLayerOutput(self._input_layer).getSlotGrad(0)
            grad.copyFromNumpyMat(self._corrupt(grad.copyToNumpyMat().copy()).astype(np.float32))


def regression(coeff=1.0, seed=11):
    """x -> fc(tanh) -> square error against y; the machine and its slots."""
    rng = np.random.RandomState(seed)
    net = Net()
    x = net.data("x", IN)
    y = net.data("y", OUT)
    h = net.fc("h", [(x, IN)], OUT, act="tanh")
    net.output(net.layer("cost", "square_error", 1, [h, y], coeff=coeff))
    slots = [rng.randn(BATCH, IN).astype(np.float32), rng.randn(BATCH, OUT).astype(np.float32)]
    return net.build(), slots


def _numbers(message):
    """(numeric, backward) of gradient_check's message."""
    m = re.search(r"numeric (\S+) vs backward (\S+)", message)
    return float(m.group(1)), float(m.group(2))


def test_an_unchanged_backward_through_the_wrapper_passes():
    gm, slots = regression()
    worst = gradient_check(CorruptedBackward(gm, lambda g: g, "_h.w0", "x"), slots,
                           input_slots=[0], samples=None)
    assert 0 <= worst < 1e-2


def test_a_parameter_gradient_scaled_by_1_1_fails():
    gm, slots = regression()
    with pytest.raises(AssertionError, match=r"^_h\.w0\[\d+\]: ") as err:
        gradient_check(CorruptedBackward(gm, lambda g: g * 1.1, "_h.w0"), slots)
    numeric, backward = _numbers(str(err.value))
    assert backward == pytest.approx(1.1 * numeric, rel=5e-3)


def test_the_bias_gradient_scaled_by_1_1_fails_though_the_weights_are_right():
    gm, slots = regression()
    gradient_check(gm, slots)  # the weights come first and are right
    with pytest.raises(AssertionError, match=r"^_h\.wbias\[\d\]: "):
        gradient_check(CorruptedBackward(gm, lambda g: g * 1.1, "_h.wbias"), slots)


@pytest.mark.parametrize("parameter, size", [("_h.wbias", OUT), ("_h.w0", IN * OUT)])
def test_one_entry_with_the_wrong_sign_fails(parameter, size):
    """The entry with the largest gradient flipped; samples=None checks every entry, so the
    one wrong entry among IN * OUT weights is found too."""
    gm, slots = regression()
    flipped = []

    def flip_largest(g):
        j = int(np.argmax(np.abs(g)))
        flipped.append(j)
        g[j] = -g[j]
        return g

    with pytest.raises(AssertionError) as err:
        gradient_check(CorruptedBackward(gm, flip_largest, parameter), slots, samples=None)
    assert len(flipped) == 1 and str(err.value).startswith("%s[%d]: " % (parameter, flipped[0]))
    numeric, backward = _numbers(str(err.value))
    assert backward == pytest.approx(-numeric, rel=5e-3) and abs(numeric) > 1e-2
    assert 0 <= flipped[0] < size


def test_a_wrong_input_gradient_fails():
    gm, slots = regression()
    gradient_check(gm, slots, input_slots=[0])
    with pytest.raises(AssertionError, match=r"^input x\[\d+\]: "):
        gradient_check(CorruptedBackward(gm, lambda g: g * 1.1, input_layer="x"), slots, input_slots=[0])
    # the parameters alone are right: without the input slot the same machine passes
    gradient_check(CorruptedBackward(gm, lambda g: g * 1.1, input_layer="x"), slots)


def test_a_cost_coefficient_the_check_is_not_told_of_fails():
    """v1's coeff scales the gradient, not the cost: backward is half the finite difference
    of the cost unless grad_scale says so."""
    gm, slots = regression(coeff=0.5)
    gradient_check(gm, slots, input_slots=[0], grad_scale=0.5)
    with pytest.raises(AssertionError) as err:
        gradient_check(gm, slots, input_slots=[0])
    numeric, backward = _numbers(str(err.value))
    assert backward == pytest.approx(0.5 * numeric, rel=5e-3)


def test_a_difference_within_the_tolerance_passes_and_one_beyond_it_fails():
    """rtol is what decides: a 1% error passes the default rtol 2e-2, and fails rtol 5e-3."""
    gm, slots = regression()
    gradient_check(gm, slots, samples=None, rtol=5e-3, atol=0)  # finite differences are that close
    wrong_by_1_percent = CorruptedBackward(gm, lambda g: g * 1.01, "_h.w0")
    assert gradient_check(wrong_by_1_percent, slots, samples=None) > 2e-3
    with pytest.raises(AssertionError, match=r"^_h\.w0\["):
        gradient_check(wrong_by_1_percent, slots, samples=None, rtol=5e-3, atol=0)
