"""Convolution weights in v0.10's layout: a conv filter is W[f][c][i][j] (filter, channel of
its group, filter row, filter column), a transposed conv's W[m][c][i][j] (input channel, output
channel of its group, row, column). exconv, the conv projection and the conv operator compute
the same on the same weights; parameter files written in that layout give the explicit-loop
NumPy convolution; paddle.utils.convert_conv_weights converts files of earlier versions."""
import json
import os
import struct

import numpy as np
import pytest

from netbuilder import Net, forward_values, gradient_check, make_args, out_size, rand
from py_paddle import swig_paddle as api


def loop_conv(x, w, C, H, W, fy, fx, sy, sx, py, px, groups, nf):
    """y[b, f, oy, ox] = sum_{c,i,j} W[f, c, i, j] x[b, g*C/groups + c, oy*sy-py+i, ox*sx-px+j],
    g = f // (nf/groups); x [B, C*H*W] -> [B, nf*oh*ow] (float64)."""
    oh, ow = out_size(H, fy, py, sy), out_size(W, fx, px, sx)
    cg, mg = C // groups, nf // groups
    xi, wf = x.reshape(-1, C, H, W).astype(np.float64), w.reshape(nf, cg, fy, fx)
    y = np.zeros((x.shape[0], nf, oh, ow))
    for f in range(nf):
        for c in range(cg):
            for i in range(fy):
                for j in range(fx):
                    for oy in range(oh):
                        for ox in range(ow):
                            r, s = oy * sy - py + i, ox * sx - px + j
                            if 0 <= r < H and 0 <= s < W:
                                y[:, f, oy, ox] += wf[f, c, i, j] * xi[:, f // mg * cg + c, r, s]
    return y.reshape(x.shape[0], -1)


def loop_convt(x, w, C, oh, ow, nf, H, W, fy, fx, sy, sx, py, px, groups):
    """y[b, g*nf/groups + c, oy*sy-py+i, ox*sx-px+j] += W[m, c, i, j] x[b, m, oy, ox],
    g = m // (C/groups); x [B, C*oh*ow] -> [B, nf*H*W] (float64)."""
    cg, mg = nf // groups, C // groups
    xi, wf = x.reshape(-1, C, oh, ow).astype(np.float64), w.reshape(C, cg, fy, fx)
    y = np.zeros((x.shape[0], nf, H, W))
    for m in range(C):
        for c in range(cg):
            for i in range(fy):
                for j in range(fx):
                    for oy in range(oh):
                        for ox in range(ow):
                            r, s = oy * sy - py + i, ox * sx - px + j
                            if 0 <= r < H and 0 <= s < W:
                                y[:, m // mg * cg + c, r, s] += wf[m, c, i, j] * xi[:, m, oy, ox]
    return y.reshape(x.shape[0], -1)


def conv_conf(C, H, W, fy, fx, sy, sx, py, px, groups, filter_channels):
    """conv_conf with the image side H x W (conv input, convt output)."""
    return {"filter_size": fx, "filter_size_y": fy, "channels": C, "stride": sx, "stride_y": sy,
            "padding": px, "padding_y": py, "groups": groups, "filter_channels": filter_channels,
            "output_x": out_size(W, fx, px, sx), "output_y": out_size(H, fy, py, sy), "img_size": W,
            "img_size_y": H, "caffe_mode": True}


def write_parameter(path, values):
    """A v1 parameter file: int32 version 0, uint32 value size 4, uint64 count, float32 values."""
    values = np.asarray(values, np.float32).reshape(-1)
    with open(path, "wb") as f:
        f.write(struct.pack("<iIQ", 0, 4, values.size) + values.tobytes())


def set_value(gm, name, values):
    gm.getParameterByName(name).getBuf(api.PARAMETER_VALUE).copyFromNumpyArray(
        np.asarray(values, np.float32).reshape(-1))


# C, H, W, fy, fx, sy, sx, py, px: non-square filters, strides and paddings, so a swapped
# axis changes the result
GEOM = (4, 6, 5, 3, 2, 2, 1, 1, 0)


def conv_sizes(trans, groups, nf):
    """(conv_conf, input size, output size, weight size) of GEOM with nf filters."""
    C, H, W, fy, fx, sy, sx, py, px = GEOM
    conf = conv_conf(C, H, W, fy, fx, sy, sx, py, px, groups, (nf if trans else C) // groups)
    small = conf["output_y"] * conf["output_x"]
    wsize = nf * C // groups * fy * fx
    return (conf, C * small, nf * H * W, wsize) if trans else (conf, C * H * W, nf * small, wsize)


def reference(trans, x, w, groups, nf):
    C, H, W, fy, fx, sy, sx, py, px = GEOM
    if trans:
        oh, ow = out_size(H, fy, py, sy), out_size(W, fx, px, sx)
        return loop_convt(x, w, C, oh, ow, nf, H, W, fy, fx, sy, sx, py, px, groups)
    return loop_conv(x, w, C, H, W, fy, fx, sy, sx, py, px, groups, nf)


@pytest.mark.parametrize("trans", [False, True], ids=["conv", "convt"])
@pytest.mark.parametrize("groups", [1, 2])
def test_conv_layer_projection_and_operator_agree(trans, groups):
    """exconv(t), a conv(t) projection in a mixed_layer and a conv(t) operator given the same
    filters as every sample's filter row: same output, same input gradients, same filter
    gradient; the projection's and operator's gradients also pass the numeric check."""
    nf, B = 6, 3
    conf, in_size, size, wsize = conv_sizes(trans, groups, nf)
    kind = "convt" if trans else "conv"
    net = Net()
    xs = [net.data(n, in_size) for n in ("x1", "x2", "x3")]
    filt = net.data("f", wsize)
    target = net.data("t", size)
    net.layer_p("c", "ex" + kind, size, [(xs[0], {"conv_conf": conf})], params=[[wsize]], num_filters=nf)
    net.layers.append({"name": "m", "type": "mixed", "size": size, "active_type": "",
                       "inputs": [{"input_layer_name": xs[1], "input_parameter_name": net.param("_m.w0", [wsize]),
                                   "proj_conf": {"type": kind, "name": "_m.w0", "input_size": in_size,
                                                 "output_size": size, "num_filters": nf, "conv_conf": conf}}]})
    net.mixed("o", size, [], ops=[(kind, [xs[2], filt], [in_size, wsize], size,
                                   {"num_filters": nf, "conv_conf": conf})])
    for name in ("c", "m", "o"):
        net.output(net.layer("cost_" + name, "square_error", 1, [name, target], coeff=1.0))
    gm = net.build()
    rng = np.random.RandomState(groups)
    w = rand(rng, wsize)
    set_value(gm, "_c.w0", w)
    set_value(gm, "_m.w0", w)
    x = rand(rng, B, in_size)
    slots = [x, x, x, np.tile(w, (B, 1)), rand(rng, B, size)]
    gm.setNeedInputGradient(True)
    gm.forwardBackward(make_args(slots), api.Arguments.createArguments(0), api.PASS_GC)

    out = {n: gm.getLayerOutput(n).getSlotValue(0).copyToNumpyMat() for n in ("c", "m", "o")}
    np.testing.assert_allclose(out["c"], reference(trans, x, w, groups, nf), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(out["m"], out["c"], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(out["o"], out["c"], rtol=1e-5, atol=1e-5)
    gx = [gm.getLayerOutput(n).getSlotGrad(0).copyToNumpyMat() for n in xs]
    assert np.abs(gx[0]).max() > 0
    np.testing.assert_allclose(gx[1], gx[0], rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(gx[2], gx[0], rtol=1e-4, atol=1e-4)
    gw = {n: gm.getParameterByName(n).getBuf(api.PARAMETER_GRADIENT).copyToNumpyArray() for n in ("_c.w0", "_m.w0")}
    gf = gm.getLayerOutput("f").getSlotGrad(0).copyToNumpyMat().sum(axis=0)
    assert np.abs(gw["_c.w0"]).max() > 0
    np.testing.assert_allclose(gw["_m.w0"], gw["_c.w0"], rtol=1e-4, atol=1e-3)
    np.testing.assert_allclose(gf, gw["_c.w0"], rtol=1e-4, atol=1e-3)
    gradient_check(gm, slots, input_slots=[1, 2, 3], samples=10, eps=1e-2)


@pytest.mark.parametrize("trans", [False, True], ids=["exconv", "exconvt"])
@pytest.mark.parametrize("groups", [1, 2])
def test_v010_weight_file_gives_the_reference_convolution(tmp_path, trans, groups):
    """Parameter files written in v0.10's layout (and a shared bias) load into exconv/exconvt
    and give the explicit-loop convolution."""
    nf, B = 6, 2
    conf, in_size, size, wsize = conv_sizes(trans, groups, nf)
    net = Net()
    x = net.data("x", in_size)
    net.layer_p("c", "exconvt" if trans else "exconv", size, [(x, {"conv_conf": conf})], params=[[wsize]],
                bias_dims=[nf, 1], num_filters=nf, shared_biases=True)
    net.output("c")
    gm = net.build()
    rng = np.random.RandomState(10 + groups)
    w, b = rand(rng, wsize), rand(rng, nf)
    write_parameter(tmp_path / "_c.w0", w)
    write_parameter(tmp_path / "_c.wbias", b)
    gm.loadParameters(str(tmp_path))
    xv = rand(rng, B, in_size)
    want = reference(trans, xv, w, groups, nf) + np.repeat(b, size // nf)
    np.testing.assert_allclose(forward_values(gm, [xv], "c"), want, rtol=1e-4, atol=1e-4)


CONFIG = """
from paddle.trainer_config_helpers import *
settings(batch_size=2)
img = data_layer(name='img', size=4 * 6 * 5, height=6, width=5)
c = img_conv_layer(img, filter_size=2, filter_size_y=3, num_filters=6, num_channels=4, groups=2,
                   stride=1, stride_y=2, padding=0, padding_y=1, act=LinearActivation(), name='c')
ct = img_conv_layer(c, filter_size=3, num_filters=2, num_channels=6, stride=2, padding=1, trans=True,
                    act=LinearActivation(), bias_attr=False, name='ct')
p = mixed_layer(input=conv_projection(img, filter_size=3, num_filters=2, num_channels=4, padding=1), name='p')
outputs(ct, p)
"""


def test_convert_conv_weights(tmp_path, capsys):
    """A model saved in the earlier [K][M] block layout converts to v0.10's: conv and convt
    filters and their optimizer state are transposed, everything else is copied as it is,
    and the converted model computes the reference convolution."""
    from paddle.proto import message_to_json
    from paddle.trainer.config_parser import parse_config
    from paddle.utils.convert_conv_weights import main

    config = tmp_path / "conf.py"
    config.write_text(CONFIG)
    mc = parse_config(str(config), "").model_config
    sizes = {p.name: p.size for p in mc.parameters}
    # v0.10 filters, and the same filters in the earlier layout: per group [K][M] = [M][K]^T
    blocks = {"_c.w0": (2, 2 * 3 * 2, 3), "_ct.w0": (1, 2 * 3 * 3, 6)}  # name: (groups, K, M)
    rng = np.random.RandomState(5)
    new = {n: rand(rng, sizes[n]) for n in sizes}
    old = dict(new)
    for n, (g, K, M) in blocks.items():
        old[n] = new[n].reshape(g, M, K).transpose(0, 2, 1).reshape(-1)
        assert not np.array_equal(old[n], new[n])
    model = tmp_path / "pass-00003"
    os.makedirs(model / "optimizer")
    for n in sizes:
        write_parameter(model / n, old[n])
        write_parameter(model / "optimizer" / (n + ".momentum"), old[n] * 2)
    (model / "optimizer" / "updater.json").write_text(json.dumps({"updates": 7}))
    (model / "done").write_text("")

    out = tmp_path / "converted"
    assert main(["--config=%s" % config, "--model_dir=%s" % model, "--output_dir=%s" % out]) == 0
    printed = capsys.readouterr().out
    for n in sizes:
        want = new[n] if n in blocks else old[n]
        assert (out / n).read_bytes() == (model / n).read_bytes()[:16] + want.tobytes(), n
        assert (out / "optimizer" / (n + ".momentum")).read_bytes()[16:] == (want * 2).tobytes(), n
        assert (n in blocks) == ("converted %s\n" % (out / n) in printed)
    assert (out / "optimizer" / "updater.json").read_text() == json.dumps({"updates": 7})
    assert (out / "done").exists()

    gm = api.GradientMachine.createByConfigJson(message_to_json(mc), False, 1)
    gm.loadParameters(str(out))
    x = rand(rng, 2, 4 * 6 * 5)
    want = loop_conv(x, new["_c.w0"], 4, 6, 5, 3, 2, 2, 1, 1, 0, 2, 6) + np.repeat(new["_c.wbias"], 3 * 4)
    np.testing.assert_allclose(forward_values(gm, [x], "c"), want, rtol=1e-4, atol=1e-4)

    # converting twice would scramble the filters: the output directory must be new
    assert main(["--config=%s" % config, "--model_dir=%s" % model, "--output_dir=%s" % out]) == 1
    assert "exists" in capsys.readouterr().err
    write_parameter(model / "_ct.w0", old["_ct.w0"][:-1])
    assert main(["--config=%s" % config, "--model_dir=%s" % model, "--output_dir=%s" % (tmp_path / "x")]) == 1
    assert "_ct.w0 holds 107 values" in capsys.readouterr().err


def test_parsed_convt_projection_and_operator_config_runs():
    """conv_projection(trans=True) / conv_operator(trans=True) as the config helpers write them
    (types "convt", v1's parameter size) build and pass the gradient check."""
    from paddle.proto import message_to_json
    from paddle.trainer.config_parser import parse_config

    def conf():
        from paddle.trainer_config_helpers import (data_layer, mixed_layer, conv_projection, conv_operator,
                                                   fc_layer, outputs, settings, regression_cost)
        settings(batch_size=3)
        img = data_layer(name="img", size=2 * 3 * 3, height=3, width=3)
        filt = fc_layer(input=data_layer(name="z", size=3), size=2 * 3 * 3 * 3)
        m = mixed_layer(input=[conv_projection(img, filter_size=3, num_filters=3, num_channels=2, stride=2,
                                               padding=1, trans=True)], bias_attr=True)
        op = mixed_layer(input=[conv_operator(img, filt, filter_size=3, num_filters=3, num_channels=2, stride=2,
                                              padding=1, trans=True)])
        y = data_layer(name="y", size=3 * 5 * 5)
        outputs(regression_cost(m, y), regression_cost(op, y))

    mc = parse_config(conf, "").model_config
    assert sorted(p.proj_conf.type for l in mc.layers for p in l.inputs if p.HasField("proj_conf")) == ["convt"]
    assert [o.type for l in mc.layers for o in l.operator_confs] == ["convt"]
    gm = api.GradientMachine.createByConfigJson(message_to_json(mc), False, 1)
    rng = np.random.RandomState(7)
    names = list(gm.getInputLayerNames())
    slots = {"img": rand(rng, 3, 18), "z": rand(rng, 3, 3), "y": rand(rng, 3, 75)}
    gradient_check(gm, [slots[n] for n in names], input_slots=[names.index("img")], eps=1e-2, samples=8)
