"""Element-wise and utility layers (ElementwiseLayers.cpp, UtilityLayers.cpp)."""

from paddle.parser import ConfigError, Input, Layer

from ..activations import LinearActivation
from ..default_decorators import (wrap_act_default, wrap_bias_attr_default, wrap_name_default,
                                  wrap_param_attr_default)
from ..layer_output import (DROPOUT, ERROR_CLIPPING, LayerOutput, LayerType, _b0_pair, _bias,
                            _check_input, _check_input_list, _extra, _positional, _size_arg,
                            layer_support)


__all__ = [
    'slope_intercept_layer', 'clip_layer', 'scaling_layer', 'power_layer', 'interpolation_layer',
    'out_prod_layer', 'conv_shift_layer', 'linear_comb_layer', 'convex_comb_layer',
    'tensor_layer', 'sampling_id_layer', 'maxid_layer', 'eos_layer', 'print_layer',
    'rotate_layer', 'get_output_layer'
]

@wrap_name_default("clip")
def clip_layer(input, min, max, name=None):
    """Clips every value of the input to [min, max]; the gradient passes inside."""
    _check_input(input, 'input', 'clip_layer')
    Layer(name=name, type=LayerType.CLIP_LAYER, inputs=[input.name], min=min, max=max)
    return LayerOutput(name, LayerType.CLIP_LAYER, [input], size=input.size)


@wrap_name_default()
@layer_support()
def slope_intercept_layer(input, name=None, slope=1.0, intercept=0.0,
                          layer_attr=None):
    """slope * x + intercept."""
    _check_input(input, 'input', 'slope_intercept_layer')
    Layer(
        name=name,
        type=LayerType.SLOPE_INTERCEPT_LAYER,
        slope=slope,
        intercept=intercept,
        inputs=[input.name],
        **_extra(layer_attr))
    return LayerOutput(name, LayerType.SLOPE_INTERCEPT_LAYER, [input],
                       size=input.size)


@wrap_name_default()
@layer_support()
def scaling_layer(input, weight, name=None, layer_attr=None):
    """weight (size 1, per sample) * input."""
    _check_input(input, 'input', 'scaling_layer')
    _check_input(weight, 'weight', 'scaling_layer')
    Layer(
        name=name,
        type=LayerType.SCALING_LAYER,
        inputs=[weight.name, input.name],
        **_extra(layer_attr))
    return LayerOutput(name, LayerType.SCALING_LAYER, parents=[weight, input],
                       size=input.size)


@wrap_name_default()
@layer_support()
def power_layer(input, weight, name=None, layer_attr=None):
    """input ** weight (weight of size 1, per sample)."""
    _check_input(input, 'input', 'power_layer')
    _check_input(weight, 'weight', 'power_layer')
    Layer(
        name=name,
        type=LayerType.POWER_LAYER,
        inputs=[weight.name, input.name],
        **_extra(layer_attr))
    return LayerOutput(name, LayerType.POWER_LAYER, parents=[weight, input],
                       size=input.size)


@wrap_name_default()
@layer_support()
def interpolation_layer(input, weight, name=None, layer_attr=None):
    """w * a + (1 - w) * b for input=[a, b]."""
    if not isinstance(input, (list, tuple)) or len(input) != 2:
        raise ConfigError('interpolation_layer: input must be [a, b]')
    a, b = input
    for what, l in (('input[0]', a), ('input[1]', b), ('weight', weight)):
        _check_input(l, what, 'interpolation_layer')
    Layer(
        name=name,
        type=LayerType.INTERPOLATION_LAYER,
        inputs=[weight.name, a.name, b.name],
        **_extra(layer_attr))
    return LayerOutput(name, LayerType.INTERPOLATION_LAYER,
                       parents=[weight, a, b], size=a.size)


@wrap_name_default()
@layer_support()
def out_prod_layer(input1, input2, name=None, layer_attr=None):
    _check_input(input1, 'input1', 'out_prod_layer')
    _check_input(input2, 'input2', 'out_prod_layer')
    l = Layer(
        name=name,
        type=LayerType.OUT_PROD_LAYER,
        inputs=[input1.name, input2.name],
        **_extra(layer_attr))
    return LayerOutput(name, LayerType.OUT_PROD_LAYER,
                       parents=[input1, input2], size=l.config.size)


@wrap_name_default()
@layer_support()
@_positional(2)
def conv_shift_layer(a=None, b=None, name=None, layer_attr=None,
                     input=None):
    """Circular convolution of a by the odd-sized kernel b
    (b0 spelling: conv_shift_layer(input=[a, b]))."""
    a, b = _b0_pair(a, b, input, 'conv_shift_layer')
    _check_input(a, 'a', 'conv_shift_layer')
    _check_input(b, 'b', 'conv_shift_layer')
    if b.size is not None and b.size % 2 != 1:
        raise ConfigError('conv_shift_layer: b must have an odd size, got %d'
                          % b.size)
    Layer(
        name=name,
        type=LayerType.CONV_SHIFT_LAYER,
        inputs=[a.name, b.name],
        **_extra(layer_attr))
    return LayerOutput(name, LayerType.CONV_SHIFT_LAYER, parents=[a, b],
                       size=a.size)


@wrap_name_default()
@layer_support()
@_positional(2)
def linear_comb_layer(weights=None, vectors=None, size=None, name=None,
                      layer_attr=None, input=None):
    """out = sum_i weights[i] * vectors[i*size:(i+1)*size]
    (b0 spelling: convex_comb_layer(input=[weights, vectors], size))."""
    weights, vectors = _b0_pair(weights, vectors, input, 'linear_comb_layer')
    _check_input(weights, 'weights', 'linear_comb_layer')
    _check_input(vectors, 'vectors', 'linear_comb_layer')
    if size is None:
        size = vectors.size // weights.size
    Layer(
        name=name,
        type=LayerType.LINEAR_COMBINATION_LAYER,
        size=size,
        inputs=[Input(weights.name), Input(vectors.name)],
        **_extra(layer_attr))
    return LayerOutput(name, LayerType.LINEAR_COMBINATION_LAYER,
                       [weights, vectors], size=size)


convex_comb_layer = linear_comb_layer


@wrap_name_default()
@wrap_param_attr_default()
@wrap_bias_attr_default()
@wrap_act_default(act=LinearActivation())
@layer_support(ERROR_CLIPPING, DROPOUT)
@_positional(3)
def tensor_layer(a=None, b=None, size=None, act=None, name=None,
                 param_attr=None, bias_attr=None, layer_attr=None,
                 input=None):
    """y_k = a^T W_k b (+ bias) (b0 spelling: tensor_layer(input=[a, b],
    size))."""
    a, b = _b0_pair(a, b, input, 'tensor_layer')
    size = _size_arg(size, 'tensor_layer')
    _check_input(a, 'a', 'tensor_layer')
    _check_input(b, 'b', 'tensor_layer')
    Layer(
        name=name,
        size=size,
        type=LayerType.TENSOR_LAYER,
        active_type=act.name,
        bias=_bias(bias_attr),
        inputs=[Input(a.name, **param_attr.attr), Input(b.name)],
        **_extra(layer_attr))
    return LayerOutput(name, LayerType.TENSOR_LAYER, parents=[a, b],
                       activation=act, size=size)


@wrap_name_default()
@layer_support()
def sampling_id_layer(input, name=None, layer_attr=None):
    _check_input(input, 'input', 'sampling_id_layer')
    l = Layer(name=name, type=LayerType.SAMPLING_ID_LAYER,
              inputs=[Input(input.name)], **_extra(layer_attr))
    return LayerOutput(name, LayerType.SAMPLING_ID_LAYER, input,
                       size=l.config.size)


@wrap_name_default()
@layer_support()
def maxid_layer(input, name=None, layer_attr=None):
    """Index of the max of each row (outputs ids)."""
    _check_input(input, 'input', 'maxid_layer')
    l = Layer(name=name, type='maxid', inputs=[input.name],
              **_extra(layer_attr))
    return LayerOutput(name, LayerType.MAXID_LAYER, parents=[input],
                       size=l.config.size)


@wrap_name_default()
@layer_support()
def eos_layer(input, eos_id, name=None, layer_attr=None):
    _check_input(input, 'input', 'eos_layer')
    l = Layer(name=name, type=LayerType.EOSID_LAYER, eos_id=eos_id,
              inputs=[input.name], **_extra(layer_attr))
    return LayerOutput(name, LayerType.EOSID_LAYER, parents=[input],
                       size=l.config.size)


@wrap_name_default('print')
def print_layer(input, name=None):
    """Logs its inputs' values (not part of the outputs)."""
    inputs = _check_input_list(input, 'print_layer')
    Layer(name=name, type=LayerType.PRINT_LAYER,
          inputs=[l.name for l in inputs])


@wrap_name_default()
@layer_support()
def rotate_layer(input, height, width, name=None, layer_attr=None):
    _check_input(input, 'input', 'rotate_layer')
    l = Layer(name=name, height=height, width=width,
              type=LayerType.ROTATE_LAYER, inputs=[input.name],
              **_extra(layer_attr))
    return LayerOutput(name, LayerType.ROTATE_LAYER, parents=[input],
                       size=l.config.size)


@wrap_name_default()
@layer_support()
def get_output_layer(input, arg_name, name=None, layer_attr=None):
    """Expose the secondary output `arg_name` (e.g. 'state') of input."""
    _check_input(input, 'input', 'get_output_layer')
    if arg_name not in input.outputs:
        raise ConfigError("get_output_layer: layer '%s' has no output '%s' "
                          "(it has: %s)" % (input.name, arg_name,
                                            ', '.join(input.outputs)))
    Layer(
        name=name,
        type=LayerType.GET_OUTPUT_LAYER,
        inputs=[Input(input.name, input_layer_argument=arg_name)],
        size=input.size,
        **_extra(layer_attr))
    return LayerOutput(name, LayerType.GET_OUTPUT_LAYER, parents=[input],
                       size=input.size)
