"""exconv/cudnn_conv and exconvt/cudnn_convt (layers/ConvLayers.cpp): finite-difference checks,
NumPy forward references, transposed-conv adjointness and config errors."""
import numpy as np
import pytest

from netbuilder import (Net, _run_and_collect, assert_alone_equals_shared, forward_values, gradient_check, out_size,
                        rand, sum_cost_net_output)

B = 3


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
    """x [B, C*H*W]; w in v0.10's layout W[f, c, i, j] (filter, channel of its group, filter row,
    column): y[b, f, oy, ox] = sum_{c,i,j} W[f, c, i, j] x[b, g*C/groups + c, oy*sy-py+i, ox*sx-px+j]
    with g = f // (nf/groups), 0 outside the image."""
    oh, ow = out_size(H, fy, py, sy), out_size(W, fx, px, sx)
    xi = np.pad(x.reshape(-1, C, H, W).astype(np.float64), ((0, 0), (0, 0), (py, py), (px, px)))
    cg, mg = C // groups, nf // groups
    wf = w.reshape(nf, cg, fy, fx).astype(np.float64)
    out = np.zeros((x.shape[0], nf, oh, ow))
    for f in range(nf):
        g = f // mg
        for oy in range(oh):
            for ox in range(ow):
                patch = xi[:, g * cg:(g + 1) * cg, oy * sy:oy * sy + fy, ox * sx:ox * sx + fx]
                out[:, f, oy, ox] = (patch * wf[f]).sum(axis=(1, 2, 3))
    return out.reshape(x.shape[0], -1)


CONVS = [  # C, H, W, fy, fx, sy, sx, py, px, groups, nf, shared_biases
    (2, 5, 5, 3, 3, 1, 1, 0, 0, 1, 3, True),
    (3, 6, 5, 3, 2, 2, 1, 1, 0, 1, 4, True),
    (4, 5, 6, 2, 3, 1, 2, 0, 1, 2, 6, False),
    (2, 7, 7, 3, 3, 2, 2, 1, 1, 1, 2, False),
    (2, 6, 7, 3, 3, 2, 1, 2, 1, 1, 3, True),  # stride-1 columns with padding (narrow-row path)
    (1, 3, 17, 3, 5, 1, 1, 1, 2, 1, 2, False),  # rows wider than 16 floats (generic path)
    # the direct kernels (AVX-512 engine; K = C/groups*fh*fw <= 64 and stride-1 columns), whose
    # rows are 16-lane chunks, a row ending in at most 8 lanes sharing that chunk with the next
    # row's head (rows in pairs):
    (1, 5, 28, 5, 5, 1, 1, 0, 0, 1, 3, True),  # a row of LeNet's first conv (24 outputs): 16 + 8 lanes
    (1, 7, 28, 5, 5, 1, 1, 0, 0, 1, 1, True),  # 3 such rows: a pair (16 | 8 + 8 | 16 lanes), a last row alone
    (2, 3, 22, 3, 3, 1, 1, 1, 2, 1, 2, True),  # 24 padded outputs a row: masked chunks, pairs half off the image
    (1, 4, 7, 3, 3, 1, 1, 0, 1, 1, 2, True),  # 7 outputs a row: two rows in one 14-lane chunk
    (1, 3, 14, 2, 7, 1, 1, 0, 0, 1, 6, True),  # 7 taps a row: blocks of 3 + 4 taps (and of 3 + 3 filters)
    (1, 2, 20, 2, 3, 1, 1, 0, 1, 1, 2, False),  # padded columns, 16 + 4 lanes (masked), unshared bias
    (2, 1, 6, 1, 3, 1, 1, 0, 1, 1, 13, True),  # 13 filters: blocks of 7 + 6 forward, 4 + 4 + 5 backward
    (4, 6, 18, 3, 3, 2, 1, 1, 1, 2, 6, True),  # groups, row stride 2
    (8, 5, 6, 3, 3, 1, 1, 1, 1, 1, 3, True),  # K = 72 > 64: im2col + GEMM again
    (8, 7, 6, 3, 3, 2, 1, 2, 1, 1, 2, True),  # im2col of rows <= 8 two at a time: odd oh, rows off the image
    (8, 5, 10, 3, 3, 1, 1, 0, 0, 1, 2, True),  # rows of 8 inside the image (two whole halves a register), odd oh
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


def np_conv_weight_grad(x, gy, C, H, W, fy, fx, sy, sx, py, px, groups, nf):
    """The filter and shared-bias gradients of np_conv for output gradients gy [B, nf*oh*ow]."""
    oh, ow = out_size(H, fy, py, sy), out_size(W, fx, px, sx)
    xi = np.pad(x.reshape(-1, C, H, W).astype(np.float64), ((0, 0), (0, 0), (py, py), (px, px)))
    g = gy.reshape(-1, nf, oh, ow).astype(np.float64)
    cg, mg = C // groups, nf // groups
    gw = np.zeros((nf, cg, fy, fx))
    for f in range(nf):
        gr = f // mg
        for i in range(fy):
            for j in range(fx):
                patch = xi[:, gr * cg:(gr + 1) * cg, i:i + sy * (oh - 1) + 1:sy, j:j + sx * (ow - 1) + 1:sx]
                gw[f, :, i, j] = (patch * g[:, f][:, None]).sum(axis=(0, 2, 3))
    return gw.reshape(-1), g.sum(axis=(0, 2, 3))


@pytest.mark.parametrize("spec", [
    (1, 6, 28, 5, 5, 1, 1, 0, 0, 1, 20, True),  # LeNet's first conv on two rows
    (1, 28, 28, 5, 5, 1, 1, 0, 0, 1, 20, True),  # LeNet's first conv
    (1, 9, 28, 5, 5, 1, 1, 0, 0, 1, 5, True),  # odd rows: a last one alone in the weight gradient
    (2, 9, 22, 3, 3, 1, 1, 1, 2, 1, 7, True),  # padded pairs of 24-output rows; filter blocks 3 + 4
    (2, 7, 7, 3, 3, 2, 2, 1, 1, 1, 2, True)])  # a GEMM conv
def test_conv_with_relu_direct_and_gemm(spec):
    """relu (which the direct kernels apply as they store): values, and the gradients against NumPy
    (finite differences would cross relu's kink, and lose their digits on large outputs)."""
    rng = np.random.RandomState(3)
    net, c, size = conv_net(spec, act="relu")
    sum_cost_net_output(net, c, size)
    gm = net.build()
    C, H, W, fy, fx, sy, sx, py, px, groups, nf, shared = spec
    slots = [rand(rng, B, C * H * W), rand(rng, B, size)]
    got = _run_and_collect(gm, slots, [c])
    w = gm.getParameterByName("_c.w0").getBuf(0).copyToNumpyArray()
    b = gm.getParameterByName("_c.wbias").getBuf(0).copyToNumpyArray()
    y = np.maximum(np_conv(slots[0], w, C, H, W, fy, fx, sy, sx, py, px, groups, nf) + np.repeat(b, size // nf), 0)
    np.testing.assert_allclose(got["c.value"], y, rtol=1e-4, atol=1e-5)
    gy = 2 * (got["c.value"] - slots[1]) * (got["c.value"] > 0)  # square_error, then relu's derivative
    np.testing.assert_allclose(got["c.grad"], gy, rtol=1e-5, atol=1e-5)
    gw, gb = np_conv_weight_grad(slots[0], gy, C, H, W, fy, fx, sy, sx, py, px, groups, nf)
    np.testing.assert_allclose(got["_c.w0.grad"], gw, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(got["_c.wbias.grad"], gb, rtol=1e-4, atol=1e-4)
    slots[0][0, 0] = np.nan  # relu lets a NaN through, for the non-finite guard
    assert np.isnan(forward_values(gm, slots, c)[0]).any()


@pytest.mark.parametrize("spec", [CONVS[0], CONVS[5], CONVS[6], CONVS[2]])
def test_a_conv_that_alone_reads_a_layer_sets_its_gradient(spec):
    """A conv that is the only reader of a (non-data) layer writes that layer's whole gradient with
    its col2im (narrow rows, rows wider than 16, behind the direct kernels, groups), which then
    skips clearing it: the same gradients as with a second reader, in a second batch too."""
    C, H, W = spec[:3]
    results = []
    for second_reader in (False, True):
        net, c, size = conv_net(spec)
        x = net.layers[0]["name"]
        net.layers[0]["name"] = "x0"  # x becomes an fc layer over a data layer x0
        net.inputs[0] = "x0"
        net.layers.insert(1, {"name": x, "type": "fc", "size": C * H * W, "active_type": "tanh", "inputs": [
            {"input_layer_name": "x0", "input_parameter_name": net.param("_x.w0", [C * H * W, C * H * W], 0.3)}]})
        if second_reader:
            net.layer("unused", "slope_intercept", C * H * W, [x], slope=2.0, intercept=0.0)
        sum_cost_net_output(net, c, size)
        gm = net.build()
        batches = [[rand(np.random.RandomState(s), B, C * H * W), rand(np.random.RandomState(s + 1), B, size)]
                   for s in (1, 3)]
        results.append([_run_and_collect(gm, b, [x, c]) for b in batches])
    assert_alone_equals_shared(results)


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
    gradient_check(gm, slots, input_slots=[0], samples=20, eps=1e-2)
    # convt(x) is the adjoint of conv: <convt(x), z> == <x, conv(z)> with the same weights
    w = gm.getParameterByName("_c.w0").getBuf(0).copyToNumpyArray()
    b = gm.getParameterByName("_c.wbias").getBuf(0).copyToNumpyArray()
    y = forward_values(gm, slots, c) - np.repeat(b, H * W)
    z = rand(rng, B, size)
    # conv from nf channels (big image) to C_in channels: its weight W[C_in][nf/g][3][3] is
    # exactly the convt weight
    cz = np_conv(z, w, nf, H, W, 3, 3, 2, 2, 1, 1, groups, C_in)
    np.testing.assert_allclose((y * z).sum(), (slots[0] * cz).sum(), rtol=1e-4)


def np_convt(x, w, C_in, oh, ow, nf, H, W, fy, fx, sy, sx, py, px, groups):
    """Transposed conv: x [B, C_in*oh*ow] -> [B, nf*H*W]; w in v0.10's layout W[m, c, i, j]
    (input channel m, output channel c of m's group, filter row, column):
    y[b, g*nf/groups + c, oy*sy-py+i, ox*sx-px+j] += W[m, c, i, j] x[b, m, oy, ox], g = m // (C_in/groups)."""
    B = x.shape[0]
    xi = x.reshape(B, C_in, oh, ow).astype(np.float64)
    cg, mg = nf // groups, C_in // groups
    wf = w.reshape(C_in, cg, fy, fx).astype(np.float64)
    out = np.zeros((B, nf, H + 2 * py + sy + fy, W + 2 * px + sx + fx))
    for m in range(C_in):
        g = m // mg
        for oy in range(oh):
            for ox in range(ow):
                out[:, g * cg:(g + 1) * cg, oy * sy:oy * sy + fy, ox * sx:ox * sx + fx] += \
                    wf[m][None] * xi[:, m, oy, ox][:, None, None, None]
    return out[:, :, py:py + H, px:px + W].reshape(B, -1)


@pytest.mark.parametrize("trans, reverse", [(False, False), (False, True), (True, False)])
def test_conv_with_two_inputs_and_unshared_bias(trans, reverse):
    """Several inputs are summed (the second adds to the first's output); one bias per output value."""
    rng = np.random.RandomState(14)
    nf = 4
    # C, H, W (the image side), fy, fx, sy, sx, py, px, groups: both give a 6x5 small side (conv)
    # or a 6x5 image (convt); a conv's first input takes the direct kernels (where the engine has
    # them), the second im2col + GEMM, or the reverse
    specs = [(2, 6, 5, 3, 3, 1, 1, 1, 1, 1), (4, 12, 10, 2, 2, 2, 2, 0, 0, 2)] if not trans else \
            [(2, 6, 5, 3, 3, 1, 1, 1, 1, 1), (4, 6, 5, 2, 3, 2, 2, 0, 1, 2)]
    if reverse:
        specs = specs[::-1]
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
