"""Converters of the exportable layer types: converter(graph, layer) adds the layer's nodes.

Each one mirrors the engine's test-mode forward (layers/*.cpp, named in the comments).
"""
import numpy as np

from paddle.utils.export_onnx.errors import ExportError
from paddle.utils.export_onnx.graph import BATCH_NORM_EPS, _y, conv_filters_to_onnx


def _in_size(g, layer, i):
    return g.layers[layer.inputs[i].input_layer_name].size


def fc(g, layer):
    """FullyConnectedLayer: act(sum_i x_i . W_i + b), W_i of dims [in_i, size]."""
    terms = []
    for i, inp in enumerate(layer.inputs):
        w = g.param(layer, inp.input_parameter_name, _in_size(g, layer, i) * layer.size)
        weight = g.const(w.reshape(-1, layer.size), "w", key=(inp.input_parameter_name, "fc"))
        terms.append(g.op("MatMul", [g.rows(inp.input_layer_name), weight], layer.name + "/matmul"))
    g.finish(layer, g.add_bias(layer, g.sum(terms, layer.name + "/sum"), (layer.size,)))


def _pads(img, filt, pad, stride, out):
    """(begin, end) padding that gives `out` outputs: the engine pads the end further when
    its output-size rule rounded up (caffe_mode false)."""
    return pad, max(pad, (out - 1) * stride + filt - img - pad)


def exconv(g, layer):
    """ConvLayers exconv: act(sum over inputs of conv(x_i, W_i) + b), b per filter (shared_biases)
    or per output value."""
    terms, geom = [], None
    for inp in layer.inputs:
        c = inp.conv_conf
        fh, sy, py = _y(c, "filter_size_y", "filter_size"), _y(c, "stride_y", "stride"), _y(c, "padding_y", "padding")
        ih, oh = _y(c, "img_size_y", "img_size"), _y(c, "output_y", "output_x")
        groups = c.groups or 1
        channels = c.filter_channels or c.channels // groups
        w = g.param(layer, inp.input_parameter_name, layer.num_filters * channels * fh * c.filter_size)
        weight = conv_filters_to_onnx(w, layer.num_filters, channels, fh, c.filter_size, groups)
        (pt, pb), (pl, pr) = (_pads(ih, fh, py, sy, oh),
                              _pads(c.img_size, c.filter_size, c.padding, c.stride, c.output_x))
        x = g.image(inp.input_layer_name, c.channels, ih, c.img_size)
        terms.append(g.op("Conv", [x, g.const(weight, "w", key=(inp.input_parameter_name, "conv"))],
                          layer.name + "/conv", kernel_shape=[fh, c.filter_size], strides=[sy, c.stride],
                          pads=[pt, pl, pb, pr], group=groups))
        geom = geom or (layer.num_filters, oh, c.output_x)
    y = g.sum(terms, layer.name + "/sum")
    bias_shape = (1, layer.num_filters, 1, 1) if layer.shared_biases else (1,) + geom
    g.finish(layer, g.add_bias(layer, y, bias_shape), geom)


def _pool_scale(size, stride, pad, img, out):
    """Per output position along one axis: window length / the engine's divisor (the window
    clipped to the image plus its padding, PoolLayers.cpp `window`)."""
    start = np.arange(out) * stride - pad
    return size / (np.minimum(start + size, img + pad) - start).astype(np.float64)


def pool(g, layer):
    """PoolLayers pool: max over the window clipped to the image, or its sum divided by
    the window clipped to image + padding. ONNX pools with explicit end padding that gives
    the engine's output size (its ceil rule included); a max pool's padding never wins,
    and an average pool is corrected by a constant map where a window hangs past the padding."""
    c = layer.inputs[0].pool_conf
    sy, sx = _y(c, "size_y", "size_x"), c.size_x
    ty, tx = _y(c, "stride_y", "stride"), c.stride
    py, px = _y(c, "padding_y", "padding"), c.padding
    ih, iw = _y(c, "img_size_y", "img_size"), c.img_size
    oh, ow = _y(c, "output_y", "output_x"), c.output_x
    if (oh - 1) * ty - py >= ih or (ow - 1) * tx - px >= iw:
        raise ExportError("layer '%s' (pool): its last window lies wholly in the padding (the engine outputs 0 "
                          "there), which has no ONNX form" % layer.name)
    pt, pb = _pads(ih, sy, py, ty, oh)
    pl, pr = _pads(iw, sx, px, tx, ow)
    x = g.image(layer.inputs[0].input_layer_name, c.channels, ih, iw)
    attrs = dict(kernel_shape=[sy, sx], strides=[ty, tx], pads=[pt, pl, pb, pr])
    if c.pool_type in ("max-projection", "cudnn-max-pool"):
        y = g.op("MaxPool", [x], layer.name + "/maxpool", **attrs)
    elif c.pool_type in ("avg-projection", "cudnn-avg-pool", "cudnn-avg-incl-pad-pool"):
        y = g.op("AveragePool", [x], layer.name + "/avgpool", count_include_pad=1, **attrs)
        scale = np.outer(_pool_scale(sy, ty, py, ih, oh), _pool_scale(sx, tx, px, iw, ow)).astype(np.float32)
        if not np.all(scale == 1):
            y = g.op("Mul", [y, g.const(scale.reshape(1, 1, oh, ow), "pool_scale")], layer.name + "/divisor")
    else:
        raise ExportError("layer '%s': pool_type '%s' has no ONNX form" % (layer.name, c.pool_type))
    g.finish(layer, y, (c.channels, oh, ow))


def batch_norm(g, layer):
    """NormLayers batch_norm in test mode: w * (x - moving mean) / sqrt(max(moving var, 0) + eps) + b,
    per channel."""
    if layer.HasField("use_global_stats") and not layer.use_global_stats:
        raise ExportError("layer '%s' (batch_norm) has use_global_stats=False: it normalises with each batch's "
                          "own statistics, which has no fixed inference form" % layer.name)
    inp = layer.inputs[0]
    if inp.HasField("image_conf"):
        ic = inp.image_conf
        shape = (ic.channels, _y(ic, "img_size_y", "img_size"), ic.img_size)
        x = g.image(inp.input_layer_name, *shape)
    else:
        shape, x = None, g.rows(inp.input_layer_name)
    channels = shape[0] if shape else layer.size
    scale = g.param(layer, inp.input_parameter_name, channels)
    mean = g.param(layer, layer.inputs[1].input_parameter_name, channels)
    var = np.maximum(g.param(layer, layer.inputs[2].input_parameter_name, channels), 0)
    bias = (g.param(layer, layer.bias_parameter_name, channels) if layer.bias_parameter_name
            else np.zeros(channels, np.float32))
    consts = [g.const(v, hint) for v, hint in ((scale, "scale"), (bias, "bias"), (mean, "mean"), (var, "var"))]
    y = g.op("BatchNormalization", [x] + consts, layer.name + "/batch_norm", epsilon=BATCH_NORM_EPS)
    g.finish(layer, y, shape)


def _projection(g, layer, i):
    """Projections.cpp: the [batch, output_size] term of input i's projection."""
    inp = layer.inputs[i]
    p, name = inp.proj_conf, inp.input_layer_name
    in_size, out_size = _in_size(g, layer, i), p.output_size
    if p.type == "fc":
        w = g.param(layer, inp.input_parameter_name, in_size * out_size).reshape(in_size, out_size)
        return g.op("MatMul", [g.rows(name), g.const(w, "w", key=(inp.input_parameter_name, "fc"))],
                    layer.name + "/matmul")
    if p.type == "trans_fc":
        w = g.param(layer, inp.input_parameter_name, in_size * out_size).reshape(out_size, in_size)
        return g.op("MatMul", [g.rows(name), g.const(w.T, "w", key=(inp.input_parameter_name, "trans_fc"))],
                    layer.name + "/matmul")
    if p.type == "identity":
        return g.rows(name)
    if p.type == "identity_offset":
        return g.op("Slice", [g.rows(name), g.const(np.array([p.offset], np.int64), "start"),
                              g.const(np.array([p.offset + out_size], np.int64), "end"),
                              g.const(np.array([1], np.int64), "axis", key=("axis", 1))], layer.name + "/slice")
    if p.type == "dot_mul":
        w = g.param(layer, inp.input_parameter_name, out_size)
        return g.op("Mul", [g.rows(name), g.const(w, "w", key=(inp.input_parameter_name, "dot_mul"))],
                    layer.name + "/dotmul")
    if p.type == "scaling":
        w = g.param(layer, inp.input_parameter_name, 1)
        return g.op("Mul", [g.rows(name), g.const(w, "w", key=(inp.input_parameter_name, "scaling"))],
                    layer.name + "/scaling")
    if p.type == "table":
        # id -1 (v1's ignored id) reads a zero row: the row appended at the end, which
        # Gather's negative index -1 picks
        w = g.param(layer, inp.input_parameter_name, in_size * out_size).reshape(in_size, out_size)
        table = np.vstack([w, np.zeros((1, out_size), np.float32)])
        return g.op("Gather", [g.const(table, "table", key=(inp.input_parameter_name, "table")), g.rows(name)],
                    layer.name + "/gather", axis=0)
    raise ExportError("layer '%s' (%s): input '%s' has a %s projection, which has no ONNX form; supported: %s"
                      % (layer.name, layer.type, name, p.type, ", ".join(PROJECTIONS)))


PROJECTIONS = ("fc", "trans_fc", "identity", "identity_offset", "dot_mul", "scaling", "table")


def ids_inputs(layer):
    """Indices of the inputs that `layer` reads as integer ids."""
    if layer.type not in ("mixed", "concat2"):
        return []
    return [i for i, inp in enumerate(layer.inputs) if inp.HasField("proj_conf") and inp.proj_conf.type == "table"]


def mixed(g, layer):
    """MixedLayer mixed: act(sum of projections and operators + bias)."""
    if layer.shared_biases and layer.bias_parameter_name:
        raise ExportError("layer '%s' (mixed) has shared biases (conv projections), which have no ONNX form here"
                          % layer.name)
    terms = [_projection(g, layer, i) for i, inp in enumerate(layer.inputs) if inp.HasField("proj_conf")]
    for op in layer.operator_confs:
        if op.type != "dot_mul":
            raise ExportError("layer '%s' (mixed) has a %s operator, which has no ONNX form; supported: dot_mul"
                              % (layer.name, op.type))
        a, b = (g.rows(layer.inputs[k].input_layer_name) for k in op.input_indices)
        terms.append(g.op("Mul", [g.op("Mul", [a, b], layer.name + "/dotmul"),
                                  g.const(np.float32(op.dotmul_scale), "scale")], layer.name + "/scale"))
    g.finish(layer, g.add_bias(layer, g.sum(terms, layer.name + "/sum"), (layer.size,)))


def concat2(g, layer):
    """MixedLayer concat2: act([proj_0(x_0) | proj_1(x_1) | ...] + bias)."""
    terms = [_projection(g, layer, i) for i in range(len(layer.inputs))]
    y = terms[0] if len(terms) == 1 else g.op("Concat", terms, layer.name + "/concat", axis=1)
    g.finish(layer, g.add_bias(layer, y, (layer.size,)))


def concat(g, layer):
    """MixedLayer concat: act([x_0 | x_1 | ...])."""
    terms = [g.rows(inp.input_layer_name) for inp in layer.inputs]
    y = terms[0] if len(terms) == 1 else g.op("Concat", terms, layer.name + "/concat", axis=1)
    g.finish(layer, y)


def addto(g, layer):
    """MixedLayer addto: act(x_0 + x_1 + ... + bias) (dropout_layer is an addto with drop_rate)."""
    terms = [g.rows(inp.input_layer_name) for inp in layer.inputs]
    g.finish(layer, g.add_bias(layer, g.sum(terms, layer.name + "/sum"), (layer.size,)))


CONVERTERS = {
    "fc": fc,
    "exconv": exconv, "cudnn_conv": exconv,
    "pool": pool,
    "batch_norm": batch_norm, "cudnn_batch_norm": batch_norm,
    "mixed": mixed, "concat2": concat2, "concat": concat, "addto": addto,
}
