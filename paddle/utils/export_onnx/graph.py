"""The ONNX graph of a v1 ModelConfig: one converter per supported layer type.

Every tensor between layers is the engine's row layout, [batch, layer size] (float32);
convolution, pooling and image batch norm view it as [batch, C, H, W] and keep that
view until a layer needs the rows again, so a conv-pool-conv chain has no reshapes.
Each converter writes exactly what the engine's forward computes in test mode.
"""
import numpy as np

from paddle.layer_specs import cost_types
from paddle.utils.export_onnx.errors import ExportError

# Cost layers (training only, never exported): the types their specs mark as costs.
COST_TYPES = cost_types()

EXP_CLIP = 40.0  # the engine clips exp() arguments of sigmoid and softrelu (engine/ActivationFunctors.h)
STANH_A, STANH_B = 1.7159, 2.0 / 3.0
BATCH_NORM_EPS = 1e-5  # layers/NormLayers.cpp kEps


def conv_filters_to_onnx(values, num_filters, filter_channels, fh, fw, groups):
    """The engine's conv weight as ONNX Conv's W [num_filters, filter_channels, fh, fw].

    The one place that knows the engine's conv weight layout: v0.10's, per group
    [num_filters/groups][filter_channels*fh*fw] with the group blocks one after the other,
    which is ONNX's order as it is."""
    return values.reshape(num_filters, filter_channels, fh, fw)


def _y(conf, field, x_field):
    """An image message's y-side field, which defaults to its x-side value (v1's .proto)."""
    return getattr(conf, field) if conf.HasField(field) else getattr(conf, x_field)


class _Image(object):
    """A [batch, C, H, W] view of a layer's rows."""

    def __init__(self, tensor, channels, height, width):
        self.tensor, self.shape = tensor, (channels, height, width)


class GraphBuilder(object):
    """Collects nodes and initializers for the layers an export needs.

    model: a ModelConfig message; parameter(name) -> float32 array of that parameter's values.
    """

    def __init__(self, model, parameter):
        from onnx import helper, numpy_helper, TensorProto
        self._helper, self._numpy_helper, self._tp = helper, numpy_helper, TensorProto
        self.layers = {layer.name: layer for layer in model.layers}
        self._parameter = parameter
        self.nodes, self.initializers, self.inputs = [], [], []
        self._rows = {}    # layer name -> its [batch, size] tensor
        self._images = {}  # layer name -> _Image
        self._consts = {}  # cache key -> initializer name
        self._count = 0
        self.uses_ml = False  # nodes of the ai.onnx.ml domain (the readers' preprocessing)

    # ---- graph primitives
    def _fresh(self, hint):
        self._count += 1
        return "%s:%d" % (hint, self._count)

    def op(self, op_type, inputs, hint, **attrs):
        out = self._fresh(hint)
        self.nodes.append(self._helper.make_node(op_type, list(inputs), [out], **attrs))
        return out

    def const(self, array, hint, key=None):
        """An initializer holding `array` (shared by `key`, e.g. a parameter used twice)."""
        if key is not None and key in self._consts:
            return self._consts[key]
        name = self._fresh(hint)
        self.initializers.append(self._numpy_helper.from_array(np.ascontiguousarray(array), name))
        if key is not None:
            self._consts[key] = name
        return name

    def param(self, layer, name, size):
        """Values of parameter `name` for `layer`, checked to hold `size` values."""
        values = np.asarray(self._parameter(name), dtype=np.float32).ravel()
        if values.size != size:
            raise ExportError("layer '%s': parameter '%s' has %d values, expected %d"
                              % (layer.name, name, values.size, size))
        return values

    # ---- layer outputs in the two views
    def rows(self, name):
        """Layer `name`'s output as [batch, size]."""
        if name not in self._rows:
            image = self._images[name]
            self._rows[name] = self.op("Reshape", [image.tensor, self.shape_const(-1, self.layers[name].size)],
                                       name + "/rows")
        return self._rows[name]

    def image(self, name, channels, height, width):
        """Layer `name`'s output as [batch, channels, height, width]."""
        image = self._images.get(name)
        if image is None or image.shape != (channels, height, width):
            size = self.layers[name].size
            if channels * height * width != size:
                raise ExportError("layer '%s' (size %d) is read as a %dx%dx%d image"
                                  % (name, size, channels, height, width))
            tensor = self.op("Reshape", [self.rows(name), self.shape_const(-1, channels, height, width)],
                             name + "/image")
            image = _Image(tensor, channels, height, width)
            self._images.setdefault(name, image)
        return image.tensor

    def shape_const(self, *dims):
        return self.const(np.array(dims, dtype=np.int64), "shape", key=("shape",) + dims)

    def set_rows(self, name, tensor):
        """Records `tensor` ([batch, size]) as layer `name`'s output."""
        self._rows[name] = tensor

    def add_input(self, layer, ids):
        """A data layer: a graph input of float32 rows, or of int64 ids (one per sample)."""
        if ids:
            info = self._helper.make_tensor_value_info(layer.name, self._tp.INT64, ["batch"])
        else:
            info = self._helper.make_tensor_value_info(layer.name, self._tp.FLOAT, ["batch", layer.size])
        self.inputs.append(info)
        self._rows[layer.name] = layer.name

    # ---- what follows every layer: activation, then v1's test-time dropout scaling
    def finish(self, layer, tensor, image_shape=None):
        """Records the layer's output: `tensor` ([batch, C, H, W] when image_shape is given,
        else [batch, size]) through the layer's activation and test-time dropout."""
        if layer.active_type == "softmax" and image_shape is not None:  # row-wise over the whole layer
            tensor = self.op("Reshape", [tensor, self.shape_const(-1, layer.size)], layer.name + "/rows")
            image_shape = None
        tensor = ACTIVATIONS[layer.active_type](self, tensor, layer.name)
        if layer.drop_rate > 0:  # v1 dropout is not inverted: testing scales by (1 - p)
            tensor = self.op("Mul", [tensor, self.const(np.float32(1.0 - layer.drop_rate), "keep")],
                             layer.name + "/dropout")
        if image_shape is None:
            self._rows[layer.name] = tensor
        else:
            self._images[layer.name] = _Image(tensor, *image_shape)

    def sum(self, terms, hint):
        return terms[0] if len(terms) == 1 else self.op("Sum", terms, hint)

    def add_bias(self, layer, tensor, shape):
        """tensor + the layer's bias (if any), the bias reshaped to `shape` for broadcasting."""
        if not layer.bias_parameter_name:
            return tensor
        bias = self.param(layer, layer.bias_parameter_name, int(np.prod(shape)))
        return self.op("Add", [tensor, self.const(bias.reshape(shape), "bias", key=(layer.bias_parameter_name,
                                                                                       shape))], layer.name + "/bias")


def _clipped(op_type):
    def act(g, x, hint):
        lo, hi = g.const(np.float32(-EXP_CLIP), "lo", ("f", -EXP_CLIP)), g.const(np.float32(EXP_CLIP), "hi",
                                                                                  ("f", EXP_CLIP))
        return g.op(op_type, [g.op("Clip", [x, lo, hi], hint + "/clip")], hint + "/" + op_type)
    return act


def _simple(op_type):
    return lambda g, x, hint: g.op(op_type, [x], hint + "/" + op_type)


def _brelu(g, x, hint):
    return g.op("Clip", [x, g.const(np.float32(0), "lo", ("f", 0.0)), g.const(np.float32(24), "hi", ("f", 24.0))],
                hint + "/brelu")


def _stanh(g, x, hint):
    inner = g.op("Mul", [x, g.const(np.float32(STANH_B), "stanh_b", ("f", STANH_B))], hint + "/stanh")
    return g.op("Mul", [g.op("Tanh", [inner], hint + "/tanh"), g.const(np.float32(STANH_A), "stanh_a",
                                                                        ("f", STANH_A))], hint + "/stanh")


# v1 activation name -> converter(graph, tensor, hint) -> tensor; exact forms of ActivationFunctors.h
ACTIVATIONS = {
    "": lambda g, x, hint: x,
    "linear": lambda g, x, hint: x,
    "sigmoid": _clipped("Sigmoid"),
    "softrelu": _clipped("Softplus"),
    "tanh": _simple("Tanh"),
    "relu": _simple("Relu"),
    "brelu": _brelu,
    "stanh": _stanh,
    "abs": _simple("Abs"),
    "square": lambda g, x, hint: g.op("Mul", [x, x], hint + "/square"),
    "exponential": _simple("Exp"),
    "log": _simple("Log"),
    "softmax": lambda g, x, hint: g.op("Softmax", [x], hint + "/softmax", axis=-1),
}


def needed_layers(layers, outputs):
    """Names of the layers the `outputs` depend on (`layers`: {name: LayerConfig})."""
    needed, stack = set(), list(outputs)
    while stack:
        name = stack.pop()
        if name not in needed:
            needed.add(name)
            stack.extend(inp.input_layer_name for inp in layers[name].inputs)
    return needed
