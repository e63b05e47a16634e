"""bilinear_interp and blockexpand (layers/ImageLayers.cpp), and a parsed v1 image config
using every image family: finite-difference checks and NumPy values."""
import numpy as np
import pytest

from netbuilder import Net, forward_values, gradient_check, rand, sum_cost_net_output
from py_paddle import swig_paddle as api

B = 3


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


@pytest.mark.parametrize("C,H,W", [(1, 2, 3), (3, 4, 2)])
def test_rotate_gradients_and_values(C, H, W):
    rng = np.random.RandomState(8)
    net = Net()
    x = net.data("x", C * H * W)
    r = net.layer("r", "rotate", C * H * W, [x], height=H, width=W)
    sum_cost_net_output(net, r, C * H * W)
    gm = net.build()
    slots = [rand(rng, B, C * H * W), rand(rng, B, C * H * W)]
    gradient_check(gm, slots, input_slots=[0], samples=20)
    want = np.rot90(slots[0].reshape(B, C, H, W), k=-1, axes=(2, 3)).reshape(B, -1)  # clockwise
    np.testing.assert_array_equal(forward_values(gm, slots, r), want)


def test_pad_gradients_and_values():
    rng = np.random.RandomState(9)
    C, H, W, pc, ph, pw = 2, 3, 4, (1, 0), (0, 2), (1, 1)
    out = (C + sum(pc)) * (H + sum(ph)) * (W + sum(pw))
    net = Net()
    x = net.data("x", C * H * W)
    conf = {"image_conf": {"channels": C, "img_size": W, "img_size_y": H}, "pad_c": list(pc),
            "pad_h": list(ph), "pad_w": list(pw)}
    p = net.layer_p("p", "pad", out, [(x, {"pad_conf": conf})])
    sum_cost_net_output(net, p, out)
    gm = net.build()
    slots = [rand(rng, B, C * H * W), rand(rng, B, out)]
    gradient_check(gm, slots, input_slots=[0], samples=20)
    want = np.pad(slots[0].reshape(B, C, H, W), ((0, 0), pc, ph, pw)).reshape(B, -1)
    np.testing.assert_array_equal(forward_values(gm, slots, p), want)
    for i in range(2):  # the padding stays zero from batch to batch
        np.testing.assert_array_equal(forward_values(gm, [s * (i + 2) for s in slots], p), want * (i + 2))


def priorbox_ref(fh, fw, ih, iw, min_sizes, max_sizes, ratios, variance):
    """SSD prior boxes in v1's order, from the definition."""
    all_ratios = list(ratios) + [1.0 / r for r in ratios] + [1.0]
    out = []

    def box(cx, cy, bw, bh):
        out.extend(np.clip([(cx - bw / 2) / iw, (cy - bh / 2) / ih, (cx + bw / 2) / iw, (cy + bh / 2) / ih], 0, 1))
        out.extend(variance)

    for h in range(fh):
        for w in range(fw):
            cx, cy = (w + 0.5) * iw / fw, (h + 0.5) * ih / fh
            for m in min_sizes:
                box(cx, cy, m, m)
                for mx in max_sizes:
                    side = np.floor(np.sqrt(m * mx))
                    box(cx, cy, side, side)
            for r in all_ratios:
                if abs(r - 1) > 1e-6:
                    box(cx, cy, min_sizes[-1] * np.sqrt(r), min_sizes[-1] / np.sqrt(r))
    return np.array(out)


def test_priorbox_from_a_v1_config():
    from paddle.trainer.config_parser import parse_config
    from paddle.proto import message_to_json

    def conf():
        from paddle.trainer_config_helpers import data_layer, img_conv_layer, priorbox_layer, outputs, settings
        settings(batch_size=2)
        img = data_layer(name="img", size=3 * 8 * 6, height=8, width=6)
        fmap = img_conv_layer(img, filter_size=3, num_filters=4, num_channels=3, stride=2, padding=1)
        outputs(priorbox_layer(fmap, img, aspect_ratio=[2.0], variance=[0.1, 0.1, 0.2, 0.2], min_size=[3],
                               max_size=[6]))

    mc = parse_config(conf, "").model_config
    gm = api.GradientMachine.createByConfigJson(message_to_json(mc), False, 1)
    name = mc.output_layer_names[0]
    got = forward_values(gm, [rand(np.random.RandomState(3), 2, 3 * 8 * 6)], name)
    want = priorbox_ref(4, 3, 8, 6, [3], [6], [2.0], [0.1, 0.1, 0.2, 0.2])
    assert got.shape == (1, want.size)
    np.testing.assert_allclose(got[0], want, rtol=1e-6, atol=1e-7)
