"""Image layers: exconv/cudnn_conv, exconvt, pool, spp, maxout, batch_norm, norm (cmrnorm),
bilinear_interp, blockexpand. Finite-difference checks plus NumPy forward references."""
import numpy as np
import pytest

from netbuilder import Net, forward_values, gradient_check, make_args, sum_cost_net_output
from py_paddle import swig_paddle as api

B = 3


def rand(rng, *shape):
    return rng.randn(*shape).astype(np.float32)


def out_size(img, f, p, s, caffe=True):
    num = 2 * p + img - f
    return 1 + (num // s if caffe else -(-num // s))


def conv_conf(C, H, W, fy, fx, sy, sx, py, px, groups, nf, trans=False):
    if trans:  # image side is the output
        oh, ow = out_size(H, fy, py, sy), out_size(W, fx, px, sx)
        return {"filter_size": fx, "filter_size_y": fy, "channels": C, "stride": sx, "stride_y": sy,
                "padding": px, "padding_y": py, "groups": groups, "filter_channels": nf // groups,
                "output_x": ow, "output_y": oh, "img_size": W, "img_size_y": H, "caffe_mode": True}, (oh, ow)
    oh, ow = out_size(H, fy, py, sy), out_size(W, fx, px, sx)
    return {"filter_size": fx, "filter_size_y": fy, "channels": C, "stride": sx, "stride_y": sy, "padding": px,
            "padding_y": py, "groups": groups, "filter_channels": C // groups, "output_x": ow, "output_y": oh,
            "img_size": W, "img_size_y": H, "caffe_mode": True}, (oh, ow)


def np_conv(x, w, C, H, W, fy, fx, sy, sx, py, px, groups, nf):
    """x [B, C*H*W]; weight per group [K, M] with K = (C/g)*fy*fx, M = nf/g."""
    oh, ow = out_size(H, fy, py, sy), out_size(W, fx, px, sx)
    xi = np.pad(x.reshape(-1, C, H, W).astype(np.float64), ((0, 0), (0, 0), (py, py), (px, px)))
    cg, mg = C // groups, nf // groups
    K = cg * fy * fx
    wg = w.reshape(groups, K, mg)
    out = np.zeros((x.shape[0], nf, oh, ow))
    for g in range(groups):
        for oy in range(oh):
            for ox in range(ow):
                patch = xi[:, g * cg:(g + 1) * cg, oy * sy:oy * sy + fy, ox * sx:ox * sx + fx].reshape(x.shape[0], K)
                out[:, g * mg:(g + 1) * mg, oy, ox] = patch @ wg[g]
    return out.reshape(x.shape[0], -1)


CONVS = [  # C, H, W, fy, fx, sy, sx, py, px, groups, nf, shared_biases
    (2, 5, 5, 3, 3, 1, 1, 0, 0, 1, 3, True),
    (3, 6, 5, 3, 2, 2, 1, 1, 0, 1, 4, True),
    (4, 5, 6, 2, 3, 1, 2, 0, 1, 2, 6, False),
    (2, 7, 7, 3, 3, 2, 2, 1, 1, 1, 2, False),
    (2, 6, 7, 3, 3, 2, 1, 2, 1, 1, 3, True),  # stride-1 columns with padding (narrow-row path)
    (1, 3, 17, 3, 5, 1, 1, 1, 2, 1, 2, False),  # rows wider than 16 floats (generic path)
]


def conv_net(spec, type_="exconv", act="tanh"):
    C, H, W, fy, fx, sy, sx, py, px, groups, nf, shared = spec
    conf, (oh, ow) = conv_conf(C, H, W, fy, fx, sy, sx, py, px, groups, nf)
    size = nf * oh * ow
    net = Net()
    x = net.data("x", C * H * W)
    wsize = nf * (C // groups) * fy * fx
    c = net.layer_p("c", type_, size, [(x, {"conv_conf": conf})], params=[([wsize], {"std": 0.3})],
                    bias_dims=[nf, 1] if shared else [size, 1], act=act, num_filters=nf, shared_biases=shared)
    return net, c, size


@pytest.mark.parametrize("spec", CONVS)
def test_conv_gradients_and_values(spec):
    rng = np.random.RandomState(1)
    net, c, size = conv_net(spec)
    sum_cost_net_output(net, c, size)
    gm = net.build()
    C, H, W, fy, fx, sy, sx, py, px, groups, nf, shared = spec
    slots = [rand(rng, B, C * H * W), rand(rng, B, size)]
    gradient_check(gm, slots, input_slots=[0], samples=20, eps=1e-2)
    w = gm.getParameterByName("_c.w0").getBuf(0).copyToNumpyArray()
    b = gm.getParameterByName("_c.wbias").getBuf(0).copyToNumpyArray()
    want = np_conv(slots[0], w, C, H, W, fy, fx, sy, sx, py, px, groups, nf)
    want += np.repeat(b, size // nf) if shared else b
    np.testing.assert_allclose(forward_values(gm, slots, c), np.tanh(want), rtol=1e-4, atol=1e-5)


def test_cudnn_conv_is_the_cpu_conv_on_cpu():
    rng = np.random.RandomState(2)
    net, c, size = conv_net(CONVS[1], type_="cudnn_conv")
    sum_cost_net_output(net, c, size)
    gradient_check(net.build(), [rand(rng, B, 90), rand(rng, B, size)], input_slots=[0], eps=1e-2)


@pytest.mark.parametrize("groups,type_", [(1, "exconvt"), (2, "cudnn_convt")])
def test_conv_transpose_gradients_and_adjointness(groups, type_):
    rng = np.random.RandomState(3)
    C_in, nf, H, W = 4, 2, 7, 6  # convt: C_in channels at the small side, nf at the big side
    conf, (oh, ow) = conv_conf(C_in, H, W, 3, 3, 2, 2, 1, 1, groups, nf, trans=True)
    net = Net()
    x = net.data("x", C_in * oh * ow)
    size = nf * H * W
    wsize = C_in * (nf // groups) * 9
    c = net.layer_p("c", type_, size, [(x, {"conv_conf": conf})], params=[([wsize], {"std": 0.3})],
                    bias_dims=[nf, 1], act="", num_filters=nf, shared_biases=True)
    sum_cost_net_output(net, c, size)
    gm = net.build()
    slots = [rand(rng, B, C_in * oh * ow), rand(rng, B, size)]
    gradient_check(gm, slots, input_slots=[0], samples=20)
    # convt(x) is the adjoint of conv: <convt(x), z> == <x, conv(z)> with the same weights
    w = gm.getParameterByName("_c.w0").getBuf(0).copyToNumpyArray()
    b = gm.getParameterByName("_c.wbias").getBuf(0).copyToNumpyArray()
    y = forward_values(gm, slots, c) - np.repeat(b, H * W)
    z = rand(rng, B, size)
    # conv from nf channels (big image) to C_in channels: weight block per group is [K, M]
    # with K = (nf/g)*9 and M = C_in/g, exactly the convt weight
    cz = np_conv(z, w, nf, H, W, 3, 3, 2, 2, 1, 1, groups, C_in)
    np.testing.assert_allclose((y * z).sum(), (slots[0] * cz).sum(), rtol=1e-4)


def np_convt(x, w, C_in, oh, ow, nf, H, W, fy, fx, sy, sx, py, px, groups):
    """Transposed conv: x [B, C_in*oh*ow] -> [B, nf*H*W]; weight per group [K, M] with
    K = (nf/g)*fy*fx (image side) and M = C_in/g."""
    B = x.shape[0]
    xi = x.reshape(B, C_in, oh, ow).astype(np.float64)
    cg, mg = nf // groups, C_in // groups
    wg = w.reshape(groups, cg, fy, fx, mg)
    out = np.zeros((B, nf, H + 2 * py + sy + fy, W + 2 * px + sx + fx))
    for g in range(groups):
        for oy in range(oh):
            for ox in range(ow):
                # [B, cg, fy, fx] += sum_m w[c, ky, kx, m] * x[b, m, oy, ox]
                contrib = np.einsum("ckxm,bm->bckx", wg[g], xi[:, g * mg:(g + 1) * mg, oy, ox])
                out[:, g * cg:(g + 1) * cg, oy * sy:oy * sy + fy, ox * sx:ox * sx + fx] += contrib
    return out[:, :, py:py + H, px:px + W].reshape(B, -1)


@pytest.mark.parametrize("trans", [False, True])
def test_conv_with_two_inputs_and_unshared_bias(trans):
    """Several inputs are summed (the second adds to the first's output); one bias per output value."""
    rng = np.random.RandomState(14)
    nf = 4
    # C, H, W (the image side), fy, fx, sy, sx, py, px, groups: both give a 6x5 small side (conv)
    # or a 6x5 image (convt)
    specs = [(2, 6, 5, 3, 3, 1, 1, 1, 1, 1), (4, 12, 10, 2, 2, 2, 2, 0, 0, 2)] if not trans else \
            [(2, 6, 5, 3, 3, 1, 1, 1, 1, 1), (4, 6, 5, 2, 3, 2, 2, 0, 1, 2)]
    net = Net()
    inputs, params, smalls = [], [], []
    for i, (C, H, W, fy, fx, sy, sx, py, px, groups) in enumerate(specs):
        conf, (oh, ow) = conv_conf(C, H, W, fy, fx, sy, sx, py, px, groups, nf, trans)
        smalls.append((oh, ow))
        insize = C * oh * ow if trans else C * H * W
        inputs.append((net.data("x%d" % i, insize), {"conv_conf": conf}))
        params.append(([nf * C // groups * fy * fx], {"std": 0.3}))
    size = nf * 6 * 5 if trans else nf * smalls[0][0] * smalls[0][1]
    assert trans or smalls[0] == smalls[1] == (6, 5)
    c = net.layer_p("c", "exconvt" if trans else "exconv", size, inputs, params=params, bias_dims=[size, 1],
                    act="", num_filters=nf, shared_biases=False)
    sum_cost_net_output(net, c, size)
    gm = net.build()
    slots = [rand(rng, B, net.layers[i]["size"]) for i in range(len(specs))] + [rand(rng, B, size)]
    gradient_check(gm, slots, input_slots=[0, 1], samples=15, eps=1e-2)
    want = gm.getParameterByName("_c.wbias").getBuf(0).copyToNumpyArray().astype(np.float64)
    for i, (C, H, W, fy, fx, sy, sx, py, px, groups) in enumerate(specs):
        w = gm.getParameterByName("_c.w%d" % i).getBuf(0).copyToNumpyArray()
        if trans:
            want = want + np_convt(slots[i], w, C, smalls[i][0], smalls[i][1], nf, H, W, fy, fx, sy, sx, py, px,
                                   groups)
        else:
            want = want + np_conv(slots[i], w, C, H, W, fy, fx, sy, sx, py, px, groups, nf)
    np.testing.assert_allclose(forward_values(gm, slots, c), want, rtol=1e-4, atol=1e-5)


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


def bn_net(C, pix, fraction=0.9, use_global=None, act=""):
    net = Net()
    x = net.data("x", C * pix)
    ic = {"channels": C, "img_size": pix, "img_size_y": 1}
    fields = {"moving_average_fraction": fraction}
    if use_global is not None:
        fields["use_global_stats"] = use_global
    bn = net.layer_p("bn", "batch_norm", C * pix, [(x, {"image_conf": ic}), x, x],
                     params=[([1, C], {"mean": 1.0, "std": 0.2}),
                             ([1, C], {"std": 0.0, "is_static": True}),
                             ([1, C], {"std": 0.0, "mean": 1.0, "is_static": True})],
                     bias_dims=[1, C], act=act, **fields)
    return net, bn


@pytest.mark.parametrize("C,pix,act", [(3, 4, ""), (4, 1, "tanh"), (2, 7, "")])
def test_batch_norm_gradients_and_train_values(C, pix, act):
    rng = np.random.RandomState(7)
    net, bn = bn_net(C, pix, act=act)
    sum_cost_net_output(net, bn, C * pix)
    gm = net.build()
    slots = [rand(rng, 5, C * pix) * 2 + 1, rand(rng, 5, C * pix)]
    # The input gradient is small (the batch mean is subtracted), so a float32 cost needs a
    # larger step than the default to keep rounding out of the finite difference.
    gradient_check(gm, slots, input_slots=[0], samples=20, eps=1e-2)
    x = slots[0].reshape(5, C, pix).astype(np.float64)
    mu, var = x.mean((0, 2), keepdims=True), x.var((0, 2), keepdims=True)
    w = gm.getParameterByName("_bn.w0").getBuf(0).copyToNumpyArray().reshape(1, C, 1)
    b = gm.getParameterByName("_bn.wbias").getBuf(0).copyToNumpyArray().reshape(1, C, 1)
    want = (w * (x - mu) / np.sqrt(var + 1e-5) + b).reshape(5, -1)
    want = np.tanh(want) if act == "tanh" else want
    np.testing.assert_allclose(forward_values(gm, slots, bn), want, rtol=1e-4, atol=1e-5)


def test_batch_norm_moving_statistics_and_test_pass():
    rng = np.random.RandomState(8)
    C, pix, frac = 2, 3, 0.8
    net, bn = bn_net(C, pix, fraction=frac)
    net.output(bn)
    gm = net.build()
    xs = rand(rng, 6, C * pix) * 3 + 2
    x = xs.reshape(6, C, pix).astype(np.float64)
    mean_p, var_p = gm.getParameterByName("_bn.w1"), gm.getParameterByName("_bn.w2")
    m0 = mean_p.getBuf(0).copyToNumpyArray()
    v0 = var_p.getBuf(0).copyToNumpyArray()
    forward_values(gm, [xs], bn, api.PASS_TRAIN)
    m1 = mean_p.getBuf(0).copyToNumpyArray()
    v1 = var_p.getBuf(0).copyToNumpyArray()
    np.testing.assert_allclose(m1, m0 * frac + x.mean((0, 2)) * (1 - frac), rtol=1e-5)
    np.testing.assert_allclose(v1, v0 * frac + x.var((0, 2)) * (1 - frac), rtol=1e-5)
    # the gradient-check pass does not move the statistics
    forward_values(gm, [xs], bn)
    np.testing.assert_allclose(mean_p.getBuf(0).copyToNumpyArray(), m1)
    # testing uses the moving statistics
    w = gm.getParameterByName("_bn.w0").getBuf(0).copyToNumpyArray().reshape(1, C, 1)
    b = gm.getParameterByName("_bn.wbias").getBuf(0).copyToNumpyArray().reshape(1, C, 1)
    want = (w * (x - m1.reshape(1, C, 1)) / np.sqrt(v1.reshape(1, C, 1) + 1e-5) + b).reshape(6, -1)
    np.testing.assert_allclose(forward_values(gm, [xs], bn, api.PASS_TEST), want, rtol=1e-4, atol=1e-5)


def test_batch_norm_use_global_stats_gradients():
    rng = np.random.RandomState(9)
    net, bn = bn_net(3, 2, use_global=True)
    sum_cost_net_output(net, bn, 6)
    gm = net.build()
    gm.getParameterByName("_bn.w1").getBuf(0).copyFromNumpyArray(np.array([0.5, -0.2, 0.1], np.float32))
    gradient_check(gm, [rand(rng, 4, 6), rand(rng, 4, 6)], input_slots=[0])


def np_cmrnorm(x, C, pix, size, scale, power):
    x = x.reshape(-1, C, pix).astype(np.float64)
    d = np.ones_like(x)
    start = -((size - 1) // 2)
    for c in range(C):
        for s in range(start, start + size):
            if 0 <= c + s < C:
                d[:, c] += scale * x[:, c + s] ** 2
    return (x * d ** (-power)).reshape(x.shape[0], -1)


@pytest.mark.parametrize("C,size,H,W", [(5, 3, 3, 2), (4, 4, 3, 2), (2, 5, 3, 2), (4, 3, 5, 7)])
def test_cmrnorm_gradients_and_values(C, size, H, W):
    rng = np.random.RandomState(10)
    scale, power = 0.3, 0.75
    conf = {"norm_type": "cmrnorm-projection", "channels": C, "size": size, "scale": scale, "pow": power,
            "output_x": W, "img_size": W, "output_y": H, "img_size_y": H, "blocked": False}
    net = Net()
    x = net.data("x", C * H * W)
    n = net.layer_p("n", "norm", C * H * W, [(x, {"norm_conf": conf})])
    sum_cost_net_output(net, n, C * H * W)
    gm = net.build()
    slots = [rand(rng, B, C * H * W), rand(rng, B, C * H * W)]
    # a bigger image: a bigger float32 cost, whose differences need a bigger step
    gradient_check(gm, slots, input_slots=[0], samples=30, eps=1e-3 if H * W <= 16 else 1e-2)
    np.testing.assert_allclose(forward_values(gm, slots, n), np_cmrnorm(slots[0], C, H * W, size, scale, power),
                               rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("C,H,W,oh,ow", [(2, 3, 4, 5, 7), (3, 6, 5, 4, 2)])
def test_bilinear_interp_gradients_and_values(C, H, W, oh, ow):
    rng = np.random.RandomState(11)
    conf = {"image_conf": {"channels": C, "img_size": W, "img_size_y": H}, "out_size_x": ow, "out_size_y": oh}
    net = Net()
    x = net.data("x", C * H * W)
    b = net.layer_p("b", "bilinear_interp", C * oh * ow, [(x, {"bilinear_interp_conf": conf})])
    sum_cost_net_output(net, b, C * oh * ow)
    gm = net.build()
    slots = [rand(rng, B, C * H * W), rand(rng, B, C * oh * ow)]
    gradient_check(gm, slots, input_slots=[0], samples=30)
    got = forward_values(gm, slots, b).reshape(B, C, oh, ow)
    img = slots[0].reshape(B, C, H, W)
    np.testing.assert_allclose(got[:, :, 0, 0], img[:, :, 0, 0], rtol=1e-5)  # corners are aligned
    np.testing.assert_allclose(got[:, :, -1, -1], img[:, :, -1, -1], rtol=1e-5)
    ys, xs = np.linspace(0, H - 1, oh), np.linspace(0, W - 1, ow)
    from scipy.interpolate import RegularGridInterpolator
    for n in range(B):
        for c in range(C):
            f = RegularGridInterpolator((np.arange(H), np.arange(W)), img[n, c].astype(np.float64))
            grid = np.stack(np.meshgrid(ys, xs, indexing="ij"), -1)
            np.testing.assert_allclose(got[n, c], f(grid), rtol=1e-4, atol=1e-5)


BLOCKS = [  # C, H, W, block_y, block_x, stride_y, stride_x, pad_y, pad_x
    (2, 4, 4, 2, 3, 2, 2, 0, 1),
    (2, 5, 6, 3, 2, 1, 1, 1, 0),  # overlapping blocks: several values per input pixel
    (1, 7, 5, 2, 3, 3, 2, 1, 2),  # strides larger than the block in y
]


@pytest.mark.parametrize("spec", BLOCKS)
def test_blockexpand_gradients_and_values(spec):
    """blockexpand unfolds chunks of samples with image::im2colBatch/col2imBatch, as GPU convolutions do."""
    rng = np.random.RandomState(12)
    C, H, W, by, bx, sy, sx, py, px = spec
    conf = {"channels": C, "stride_x": sx, "stride_y": sy, "padding_x": px, "padding_y": py, "block_x": bx,
            "block_y": by, "output_x": 0, "output_y": 0, "img_size_x": W if H != W else 0,
            "img_size_y": H if H != W else 0}
    net = Net()
    x = net.data("x", C * H * W)
    e = net.layer_p("e", "blockexpand", C * bx * by, [(x, {"block_expand_conf": conf})])
    fc = net.fc("f", [(e, C * bx * by)], 3, act="tanh")
    sum_cost_net_output(net, fc, 3)
    gm = net.build()
    oh, ow = 1 + (H + 2 * py - by + sy - 1) // sy, 1 + (W + 2 * px - bx + sx - 1) // sx
    slots = [rand(rng, B, C * H * W), rand(rng, B * oh * ow, 3)]
    gradient_check(gm, slots, input_slots=[0], samples=30)
    got = forward_values(gm, slots, e)
    assert got.shape == (B * oh * ow, C * bx * by)
    img = np.pad(slots[0].reshape(B, C, H, W), ((0, 0), (0, 0), (py, py), (px, px)))
    for n in range(B):
        for i in range(oh):
            for j in range(ow):
                block = img[n, :, i * sy:i * sy + by, j * sx:j * sx + bx]
                want = np.zeros((C, by, bx), np.float32)
                want[:, :block.shape[1], :block.shape[2]] = block
                np.testing.assert_allclose(got[(n * oh + i) * ow + j], want.reshape(-1))
    starts = gm.getLayerOutput(e).getSlotSequenceStartPositions(0).copyToNumpyArray()
    np.testing.assert_array_equal(starts, np.arange(B + 1) * oh * ow)


def test_image_config_errors():
    net, c, size = conv_net(CONVS[0])
    net.layers[-1]["inputs"][0]["conv_conf"]["output_x"] = 7
    net.output(c)
    with pytest.raises(ValueError, match="output_x"):
        net.build()
    net = Net()
    x = net.data("x", 8)
    net.layer_p("p", "pool", 2, [(x, {"pool_conf": {"pool_type": "median", "channels": 2, "size_x": 2,
                                                   "output_x": 1, "img_size": 2}})])
    net.output("p")
    with pytest.raises(ValueError, match="pool_type 'median'"):
        net.build()


def test_parsed_v1_image_config_runs():
    from paddle.trainer.config_parser import parse_config
    from paddle.proto import message_to_json

    def conf():
        from paddle.trainer_config_helpers import (data_layer, img_conv_layer, img_pool_layer, batch_norm_layer,
                                                   img_cmrnorm_layer, maxout_layer, spp_layer, fc_layer,
                                                   bilinear_interp_layer, MaxPooling, AvgPooling, outputs,
                                                   settings, regression_cost, concat_layer, TanhActivation)
        settings(batch_size=4)  # smooth activations: relu/max kinks defeat finite differences
        img = data_layer(name="img", size=2 * 6 * 6)
        c = img_conv_layer(img, filter_size=3, num_filters=4, num_channels=2, padding=1, act=TanhActivation())
        p = img_pool_layer(c, pool_size=3, stride=2, pool_type=MaxPooling())
        bn = batch_norm_layer(p, act=TanhActivation())
        n = img_cmrnorm_layer(bn, size=3)
        ct = img_conv_layer(n, filter_size=3, num_filters=2, num_channels=4, stride=2, trans=True, act=TanhActivation())
        mo = maxout_layer(c, groups=2)
        s = spp_layer(mo, pyramid_height=2, pool_type=AvgPooling())
        bi = bilinear_interp_layer(ct, out_size_x=3, out_size_y=3)
        out = fc_layer(concat_layer([s, bi]), size=3)
        outputs(regression_cost(out, data_layer(name="y", size=3)))

    mc = parse_config(conf, "").model_config
    gm = api.GradientMachine.createByConfigJson(message_to_json(mc), False, 1)
    rng = np.random.RandomState(13)
    names = list(gm.getInputLayerNames())
    slots = {"img": rand(rng, 4, 72), "y": rand(rng, 4, 3)}
    gradient_check(gm, [slots[n] for n in names], input_slots=[names.index("img")], samples=8)
