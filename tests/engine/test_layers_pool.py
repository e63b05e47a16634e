"""pool, spp and maxout (layers/PoolLayers.cpp): finite-difference checks and NumPy values."""
import numpy as np
import pytest

from netbuilder import (Net, _run_and_collect, assert_alone_equals_shared, forward_values, gradient_check, out_size,
                        rand, sum_cost_net_output)

B = 3


def np_pool(x, C, H, W, sy, sx, st_y, st_x, py, px, oh, ow, is_max):
    x = x.reshape(-1, C, H, W)
    out = np.zeros((x.shape[0], C, oh, ow))
    for i in range(oh):
        for j in range(ow):
            hs, ws = i * st_y - py, j * st_x - px
            he, we = min(hs + sy, H + py), min(ws + sx, W + px)
            size = (he - hs) * (we - ws)
            hs, ws, he, we = max(hs, 0), max(ws, 0), min(he, H), min(we, W)
            win = x[:, :, hs:he, ws:we]
            out[:, :, i, j] = win.max(axis=(2, 3)) if is_max else win.sum(axis=(2, 3)) / size
    return out.reshape(x.shape[0], -1)


POOLS = [  # C, H, W, size_y, size_x, stride_y, stride_x, pad_y, pad_x, ceil_mode
    (2, 6, 6, 2, 2, 2, 2, 0, 0, False),
    (3, 5, 7, 3, 3, 2, 2, 1, 1, True),
    (2, 7, 5, 3, 2, 2, 1, 0, 1, True),
    # every window inside the image (PoolLayers' vectorised CPU path): overlapping at stride 1,
    # and at stride 2 with the last image row and column left out
    (2, 5, 6, 3, 2, 1, 1, 0, 0, False),
    (3, 7, 7, 2, 2, 2, 2, 0, 0, False),
    # 2x2 windows at stride 2 inside the image (the AVX-512 path): 20 outputs a row (a full and a
    # partial 16-output chunk), and 16 with the last image row and column left out; with padding
    # they take the general path
    (1, 2, 40, 2, 2, 2, 2, 0, 0, False),
    (1, 5, 33, 2, 2, 2, 2, 0, 0, False),
    # 8 wide (four output rows to a register): 5 output rows, the last image row left out
    (3, 11, 8, 2, 2, 2, 2, 0, 0, False),
    (2, 6, 6, 2, 2, 2, 2, 1, 1, True),
]


@pytest.mark.parametrize("ptype", ["max-projection", "avg-projection", "cudnn-max-pool", "cudnn-avg-pool"])
@pytest.mark.parametrize("spec", POOLS)
def test_pool_gradients_and_values(ptype, spec):
    rng = np.random.RandomState(4)
    C, H, W, sy, sx, st_y, st_x, py, px, ceil = spec
    oh, ow = out_size(H, sy, py, st_y, not ceil), out_size(W, sx, px, st_x, not ceil)
    conf = {"pool_type": ptype, "channels": C, "size_x": sx, "size_y": sy, "stride": st_x, "stride_y": st_y,
            "padding": px, "padding_y": py, "output_x": ow, "output_y": oh, "img_size": W, "img_size_y": H}
    net = Net()
    x = net.data("x", C * H * W)
    p = net.layer_p("p", "pool", C * oh * ow, [(x, {"pool_conf": conf})])
    sum_cost_net_output(net, p, C * oh * ow)
    gm = net.build()
    slots = [rand(rng, B, C * H * W), rand(rng, B, C * oh * ow)]
    gradient_check(gm, slots, input_slots=[0], samples=30)
    want = np_pool(slots[0], C, H, W, sy, sx, st_y, st_x, py, px, oh, ow, "max" in ptype)
    np.testing.assert_allclose(forward_values(gm, slots, p), want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("is_max", [True, False])
@pytest.mark.parametrize("H, W", [(4, 36), (8, 8), (5, 25), (14, 8)])
def test_pool_2x2_ties_send_the_gradient_to_the_first_maximum(is_max, H, W):
    # inputs from {0, 1, 2}: most windows hold ties, which the finite differences cannot check;
    # the maximum (and its gradient) is the window's first in row-major order
    rng = np.random.RandomState(7)
    C, oh, ow = 3, H // 2, W // 2
    conf = {"pool_type": "max-projection" if is_max else "avg-projection", "channels": C, "size_x": 2,
            "size_y": 2, "stride": 2, "stride_y": 2, "padding": 0, "padding_y": 0, "output_x": ow,
            "output_y": oh, "img_size": W, "img_size_y": H}
    net = Net()
    x = net.data("x", C * H * W)
    p = net.layer_p("p", "pool", C * oh * ow, [(x, {"pool_conf": conf})])
    sum_cost_net_output(net, p, C * oh * ow)
    gm = net.build()
    slots = [rng.randint(0, 3, (B, C * H * W)).astype(np.float32), rand(rng, B, C * oh * ow)]
    got = _run_and_collect(gm, slots, ["x", "p"])
    win = slots[0].reshape(B, C, H, W)[:, :, :2 * oh, :2 * ow].reshape(B, C, oh, 2, ow, 2)
    win = win.transpose(0, 1, 2, 4, 3, 5).reshape(B, C, oh, ow, 4)  # each window in row-major order
    gy = got["p.grad"].reshape(B, C, oh, ow)
    want = np.zeros((B, C, oh, ow, 4), np.float32)
    if is_max:
        np.testing.assert_array_equal(got["p.value"].reshape(B, C, oh, ow), win.max(-1))
        np.put_along_axis(want, win.argmax(-1)[..., None], gy[..., None], axis=-1)
    else:
        np.testing.assert_allclose(got["p.value"].reshape(B, C, oh, ow), win.mean(-1), rtol=1e-6)
        want[:] = (gy / 4)[..., None]
    gx = np.zeros((B, C, H, W), np.float32)
    gx[:, :, :2 * oh, :2 * ow] = want.reshape(B, C, oh, ow, 2, 2).transpose(0, 1, 2, 4, 3, 5).reshape(
        B, C, 2 * oh, 2 * ow)
    np.testing.assert_array_equal(got["x.grad"], gx.reshape(B, -1))


@pytest.mark.parametrize("ptype", ["max-projection", "avg-projection"])
def test_spp_gradients_and_values(ptype):
    rng = np.random.RandomState(5)
    C, H, W, levels = 2, 5, 6, 3
    conf = {"image_conf": {"channels": C, "img_size": W, "img_size_y": H}, "pool_type": ptype,
            "pyramid_height": levels}
    size = C * (4 ** levels - 1) // 3
    net = Net()
    x = net.data("x", C * H * W)
    s = net.layer_p("s", "spp", size, [(x, {"spp_conf": conf})])
    sum_cost_net_output(net, s, size)
    gm = net.build()
    slots = [rand(rng, B, C * H * W), rand(rng, B, size)]
    gradient_check(gm, slots, input_slots=[0], samples=30)
    got = forward_values(gm, slots, s)
    whole = slots[0].reshape(B, C, -1)
    np.testing.assert_allclose(got[:, :C], whole.max(2) if ptype.startswith("max") else whole.mean(2),
                               rtol=1e-5, atol=1e-6)
    if True:  # level 1: 2x2 bins, window ceil(img/2), padding (window*2 - img + 1)/2 (v1 rule)
        sh, sw = -(-H // 2), -(-W // 2)
        ph, pw = (sh * 2 - H + 1) // 2, (sw * 2 - W + 1) // 2
        want = np_pool(slots[0], C, H, W, sh, sw, sh, sw, ph, pw, 2, 2, ptype.startswith("max"))
        np.testing.assert_allclose(got[:, C:C * 5], want, rtol=1e-5)


def test_maxout_gradients_and_values():
    rng = np.random.RandomState(6)
    C, H, W, groups = 6, 3, 2, 3
    net = Net()
    x = net.data("x", C * H * W)
    m = net.layer_p("m", "maxout", C * H * W // groups,
                    [(x, {"maxout_conf": {"image_conf": {"channels": C, "img_size": W, "img_size_y": H},
                                          "groups": groups}})])
    sum_cost_net_output(net, m, C * H * W // groups)
    gm = net.build()
    slots = [rand(rng, B, C * H * W), rand(rng, B, C * H * W // groups)]
    gradient_check(gm, slots, input_slots=[0], samples=30)
    want = slots[0].reshape(B, C // groups, groups, H * W).max(2).reshape(B, -1)
    np.testing.assert_allclose(forward_values(gm, slots, m), want)


@pytest.mark.parametrize("act", ["relu", "tanh", ""])
@pytest.mark.parametrize("ptype", ["max-projection", "avg-projection"])
@pytest.mark.parametrize("H, W", [(8, 8), (12, 8), (4, 24), (5, 10)])
def test_a_pool_that_alone_reads_a_conv_sets_its_gradient(act, ptype, H, W):
    # Where a 2x2 pool tiles the image and is the conv's only reader, it sets the conv's whole
    # output gradient (the conv skips clearing it) and a max pool applies a relu's derivative too
    # (the conv skips that pass). The same net with a second, unused reader of the conv keeps the
    # usual clear-add-multiply order: both must give the same gradients, also in a second batch,
    # where a place the pool failed to set would still hold the first batch's gradient. (5 rows
    # are not tiled: that net keeps the usual order too.) The smooth nets pass finite differences.
    from test_layers_conv import conv_conf

    C, nf = 2, 3
    conf, (oh, ow) = conv_conf(C, H, W, 3, 3, 1, 1, 1, 1, 1, nf)
    psize = nf * (oh // 2) * (ow // 2)
    pool = {"pool_type": ptype, "channels": nf, "size_x": 2, "size_y": 2, "stride": 2, "stride_y": 2,
            "padding": 0, "padding_y": 0, "output_x": ow // 2, "output_y": oh // 2, "img_size": ow,
            "img_size_y": oh}
    results = []
    for second_reader in (False, True):
        net = Net()
        x = net.data("x", C * H * W)
        c = net.layer_p("c", "exconv", nf * oh * ow, [(x, {"conv_conf": conf})], params=[([nf * C * 9], {"std": 0.3})],
                        bias_dims=[nf, 1], act=act, num_filters=nf, shared_biases=True)
        p = net.layer_p("p", "pool", psize, [(c, {"pool_conf": pool})])
        if second_reader:
            net.layer_p("unused", "pool", psize, [(c, {"pool_conf": pool})])
        sum_cost_net_output(net, p, psize)
        gm = net.build()
        batches = [[rand(np.random.RandomState(s), B, C * H * W), rand(np.random.RandomState(s + 1), B, psize)]
                   for s in (1, 3)]
        results.append([_run_and_collect(gm, b, ["c"]) for b in batches])
        if not second_reader and act != "relu" and ptype.startswith("avg"):  # (max and relu: kinks)
            gradient_check(gm, batches[0], input_slots=[0], samples=20, eps=1e-2)
    assert_alone_equals_shared(results)
