"""selective_fc (layers/FullyConnectedLayer.cpp; fc itself is in test_gradient_check.py), and fc's products
in the column blocks of engine/math/MathOps.cpp: finite-difference checks and NumPy values."""
import numpy as np
import pytest

from netbuilder import Net, _run_and_collect, forward_values, gradient_check, rand, sum_cost_net_output

B = 5


@pytest.mark.parametrize("select,act", [(False, "tanh"), (True, "tanh"), (True, "softmax"), (False, "softmax")])
def test_selective_fc_gradients_and_values(select, act):
    rng = np.random.RandomState(7)
    size = 6
    net = Net()
    x0, x1 = net.data("x0", 4), net.data("x1", 3)
    inputs = [x0, x1]
    if select:
        inputs.append(net.data("sel", size))
    y = net.layer_p("y", "selective_fc", size, inputs, params=[[size, 4], [size, 3]], bias_dims=[1, size],
                    act=act, has_selected_colums=select)
    sum_cost_net_output(net, y, size)
    gm = net.build()
    slots = [rand(rng, B, 4), rand(rng, B, 3)]
    mask = None
    if select:
        mask = (rng.rand(B, size) > 0.5).astype(np.float32)
        mask[:, 0] = 1  # every row selects something
        slots.append(mask)
    slots.append(rand(rng, B, size))
    gradient_check(gm, slots, input_slots=[0, 1], samples=15)
    w0 = gm.getParameterByName("_y.w0").getBuf(0).copyToNumpyArray().reshape(size, 4)
    w1 = gm.getParameterByName("_y.w1").getBuf(0).copyToNumpyArray().reshape(size, 3)
    b = gm.getParameterByName("_y.wbias").getBuf(0).copyToNumpyArray()
    pre = slots[0] @ w0.T + slots[1] @ w1.T + b
    if act == "tanh":
        want = np.tanh(pre)
        if select:
            want = want * mask
    else:
        e = np.exp(pre - pre.max(1, keepdims=True))
        if select:
            e = e * mask
        want = e / e.sum(1, keepdims=True)
    np.testing.assert_allclose(forward_values(gm, slots, y), want, rtol=1e-5, atol=1e-6)


def test_selective_fc_weight_layout_is_checked():
    net = Net()
    x = net.data("x", 4)
    net.output(net.layer_p("y", "selective_fc", 6, [x], params=[[4, 6]], has_selected_colums=False))
    with pytest.raises(ValueError, match=r"dims \[6, 4\]"):
        net.build()


@pytest.mark.parametrize("rows, size_in, size_out", [(20, 300, 600), (300, 100, 64), (7, 5, 4)])
def test_fc_products_in_small_blocks_match_numpy(rows, size_in, size_out):
    """Products whose A side is short go to OpenBLAS in column blocks small enough for its unpacked
    kernels (engine/math/MathOps.cpp): 20 x 300 times 300 x 600 in four blocks of columns, the
    300-row product by rows and then in two blocks of 32 columns; the 7-row one whole."""
    rng = np.random.RandomState(5)
    net = Net()
    x = net.data("x", size_in)
    h = net.fc("h", [(x, size_in)], size_out, act="")
    sum_cost_net_output(net, h, size_out)
    gm = net.build()
    slots = [rand(rng, rows, size_in), rand(rng, rows, size_out)]
    got = _run_and_collect(gm, slots, ["x", h])
    w = gm.getParameterByName("_h.w0").getBuf(0).copyToNumpyArray().reshape(size_in, size_out).astype(np.float64)
    b = gm.getParameterByName("_h.wbias").getBuf(0).copyToNumpyArray().astype(np.float64)
    x64 = slots[0].astype(np.float64)
    y = x64 @ w + b
    np.testing.assert_allclose(got["h.value"], y, rtol=1e-4, atol=1e-4)
    gy = 2 * (got["h.value"].astype(np.float64) - slots[1])  # square_error
    np.testing.assert_allclose(got["x.grad"], gy @ w.T, rtol=1e-4, atol=1e-3)
    np.testing.assert_allclose(got["_h.w0.grad"].reshape(size_in, size_out), x64.T @ gy, rtol=1e-4, atol=1e-3)
