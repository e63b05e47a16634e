"""Element-wise and utility layers (ElementwiseLayers.cpp, UtilityLayers.cpp)."""

from paddle.layer_specs import spec
from paddle.parser import ConfigError, Input, Layer

from ..activations import LinearActivation
from ..default_decorators import (wrap_act_default, wrap_bias_attr_default, wrap_name_default,
                                  wrap_param_attr_default)
from ..layer_output import (DROPOUT, ERROR_CLIPPING, LayerOutput, LayerType, _b0_pair, _bias, _check_input,
                            _check_input_list, _check_layer_args, _extra, _positional, _size_arg,
                            layer_support)


_SLOPE_INTERCEPT = spec('slope_intercept').defaults  # shared with the parser

__all__ = [
    'slope_intercept_layer', 'clip_layer', 'scaling_layer', 'power_layer', 'interpolation_layer',
    'out_prod_layer', 'conv_shift_layer', 'linear_comb_layer', 'convex_comb_layer',
    'tensor_layer', 'sampling_id_layer', 'maxid_layer', 'eos_layer', 'print_layer',
    'rotate_layer', 'get_output_layer'
]

@wrap_name_default("clip")
def clip_layer(input, min, max, name=None):
    """Clips every value to ``[min, max]``: ``y = min(max(x, min), max)``.

    The gradient passes where the input is inside the range and is 0 elsewhere.
    Output of the input's width and layout. Creates an engine layer of type ``clip``.

    Args:
        input (LayerOutput): the input.
        min (float): lower bound.
        max (float): upper bound.
        name (str, optional): layer name; ``__clip_N__`` when omitted.

    Returns:
        LayerOutput: the clipped layer, of the input's width.

    Example:
        >>> x = data_layer(name='x', size=10)
        >>> clip_layer(input=x, min=-1.0, max=1.0).size
        10
    """
    _check_layer_args('clip_layer', locals())
    Layer(name=name, type=LayerType.CLIP_LAYER, inputs=[input.name], min=min, max=max)
    return LayerOutput(name, LayerType.CLIP_LAYER, [input], size=input.size)


@wrap_name_default()
@layer_support()
def slope_intercept_layer(input, name=None, slope=_SLOPE_INTERCEPT['slope'],
                          intercept=_SLOPE_INTERCEPT['intercept'], layer_attr=None):
    """Affine map with constant coefficients: ``y = slope * x + intercept``.

    No parameters; element-wise, so the output keeps the input's width and layout.
    ``layer * 2``, ``layer + 1`` and ``layer - 1`` in a config create this layer.
    Creates an engine layer of type ``slope_intercept``.

    Args:
        input (LayerOutput): the input.
        name (str, optional): layer name; ``__slope_intercept_layer_N__`` when omitted.
        slope (float, default 1.0): the factor.
        intercept (float, default 0.0): the constant added.
        layer_attr (ExtraLayerAttribute, optional): extra settings (``device``).

    Returns:
        LayerOutput: the layer, of the input's width.

    Example:
        >>> x = data_layer(name='x', size=10)
        >>> y = slope_intercept_layer(input=x, slope=2.0, intercept=-1.0)
        >>> y.size, y.layer_type
        (10, 'slope_intercept')
    """
    _check_layer_args('slope_intercept_layer', locals())
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
    """Scales each sample by its own factor: ``y = w * x``.

    ``weight`` has size 1: one factor per row (per sample, or per time step of a
    sequence), multiplying every value of that row of ``input``. Creates an engine
    layer of type ``scaling``.

    Args:
        input (LayerOutput): the values to scale.
        weight (LayerOutput): the factors (size 1).
        name (str, optional): layer name; ``__scaling_layer_N__`` when omitted.
        layer_attr (ExtraLayerAttribute, optional): extra settings (``device``).

    Returns:
        LayerOutput: the scaled layer, of ``input``'s width.

    Example:
        >>> x = data_layer(name='x', size=10)
        >>> w = data_layer(name='w', size=1)
        >>> scaling_layer(input=x, weight=w).size
        10
    """
    _check_layer_args('scaling_layer', locals())
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
    """Raises each value to a per-sample power: ``y = x ^ w``.

    ``weight`` has size 1: one exponent per row. Creates an engine layer of type
    ``power``.

    Args:
        input (LayerOutput): the bases.
        weight (LayerOutput): the exponents (size 1).
        name (str, optional): layer name; ``__power_layer_N__`` when omitted.
        layer_attr (ExtraLayerAttribute, optional): extra settings (``device``).

    Returns:
        LayerOutput: the layer, of ``input``'s width.

    Example:
        >>> x = data_layer(name='x', size=10)
        >>> w = data_layer(name='w', size=1)
        >>> power_layer(input=x, weight=w).layer_type
        'power'
    """
    _check_layer_args('power_layer', locals())
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
    """Per-sample interpolation of two layers: ``y = w * a + (1 - w) * b``.

    ``input`` is ``[a, b]`` (same width); ``weight`` has size 1, one ``w`` per row.
    Creates an engine layer of type ``interpolation``.

    Args:
        input (list of LayerOutput): the two layers ``[a, b]``.
        weight (LayerOutput): the interpolation weights (size 1).
        name (str, optional): layer name; ``__interpolation_layer_N__`` when omitted.
        layer_attr (ExtraLayerAttribute, optional): extra settings (``device``).

    Returns:
        LayerOutput: the interpolated layer, of ``a``'s width.

    Example:
        >>> a = data_layer(name='a', size=10)
        >>> b = data_layer(name='b', size=10)
        >>> w = data_layer(name='w', size=1)
        >>> interpolation_layer(input=[a, b], weight=w).size
        10
    """
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
    """Outer product of two vectors, per sample: ``y = vec(a b^T)``.

    For each row, the ``input1.size x input2.size`` matrix ``a_i * b_j``, flattened
    row by row. Creates an engine layer of type ``out_prod``.

    Args:
        input1 (LayerOutput): the first vectors ``a``.
        input2 (LayerOutput): the second vectors ``b``.
        name (str, optional): layer name; ``__out_prod_layer_N__`` when omitted.
        layer_attr (ExtraLayerAttribute, optional): extra settings (``device``).

    Returns:
        LayerOutput: the products, ``input1.size * input2.size`` wide.

    Example:
        >>> a = data_layer(name='a', size=10)
        >>> b = data_layer(name='b', size=4)
        >>> out_prod_layer(input1=a, input2=b).size
        40
    """
    _check_layer_args('out_prod_layer', locals())
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
    """Circular convolution of each row of ``a`` by the kernel in the same row of ``b``.

    ``y_i = sum_j a_{(i + j) mod N} * b_j`` for ``j = -(M-1)/2 .. (M-1)/2`` (``b``'s
    entries numbered from its centre; ``N = a.size``, ``M = b.size``, odd): a
    learned, per-sample shift (used by Neural Turing Machine style addressing). The
    b0 spelling ``conv_shift_layer(input=[a, b])`` is accepted. Creates an engine
    layer of type ``conv_shift``.

    Args:
        a (LayerOutput): the rows to shift.
        b (LayerOutput): the kernels, of odd width.
        name (str, optional): layer name; ``__conv_shift_layer_N__`` when omitted.
        layer_attr (ExtraLayerAttribute, optional): extra settings (``device``).
        input (list of LayerOutput, optional): b0 spelling ``[a, b]``.

    Returns:
        LayerOutput: the layer, of ``a``'s width.

    Example:
        >>> a = data_layer(name='a', size=10)
        >>> kernel = data_layer(name='kernel', size=3)
        >>> conv_shift_layer(a=a, b=kernel).size
        10
    """
    a, b = _b0_pair(a, b, input, 'conv_shift_layer')
    _check_layer_args('conv_shift_layer', locals())
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
    """Weighted sum of vectors, per sample: ``y = sum_i w_i v_i``.

    ``weights`` has ``N`` values per row and ``vectors`` holds ``N`` vectors of
    ``size`` side by side (``N * size`` values); the output is their combination,
    ``size`` wide. ``convex_comb_layer`` is the same helper (its v1 name), and the
    b0 spelling ``input=[weights, vectors]`` is accepted. Creates an engine layer of
    type ``convex_comb``.

    Args:
        weights (LayerOutput): the ``N`` weights.
        vectors (LayerOutput): the ``N * size`` values.
        size (int, optional): width of one vector; ``vectors.size / weights.size``
            when omitted.
        name (str, optional): layer name; ``__linear_comb_layer_N__`` when omitted.
        layer_attr (ExtraLayerAttribute, optional): extra settings (``device``).
        input (list of LayerOutput, optional): b0 spelling ``[weights, vectors]``.

    Returns:
        LayerOutput: the combination, ``size`` wide.

    Example:
        >>> w = data_layer(name='w', size=3)
        >>> v = data_layer(name='v', size=3 * 8)
        >>> linear_comb_layer(weights=w, vectors=v).size
        8
    """
    weights, vectors = _b0_pair(weights, vectors, input, 'linear_comb_layer')
    _check_layer_args('linear_comb_layer', locals())
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
    """Bilinear tensor product: ``y_k = act(a^T W_k b + bias_k)`` for ``k < size``.

    ``W`` has dims ``[a.size, b.size, size]``; each output is a bilinear form of the
    two inputs' rows. The b0 spelling ``input=[a, b]`` is accepted. Creates an engine
    layer of type ``tensor``.

    Args:
        a (LayerOutput): the left vectors.
        b (LayerOutput): the right vectors.
        size (int): output width.
        act (BaseActivation, optional): activation, ``LinearActivation()`` when
            omitted.
        name (str, optional): layer name; ``__tensor_layer_N__`` when omitted.
        param_attr (ParameterAttribute, optional): attributes of ``W``.
        bias_attr (ParameterAttribute | bool, optional): bias; False for none.
        layer_attr (ExtraLayerAttribute, optional): extra settings (``drop_rate``,
            ``error_clipping_threshold``, ``device``).
        input (list of LayerOutput, optional): b0 spelling ``[a, b]``.

    Returns:
        LayerOutput: the layer, ``size`` wide.

    Example:
        >>> a = data_layer(name='a', size=10)
        >>> b = data_layer(name='b', size=4)
        >>> tensor_layer(a=a, b=b, size=5).size
        5
    """
    a, b = _b0_pair(a, b, input, 'tensor_layer')
    size = _size_arg(size, 'tensor_layer')
    _check_layer_args('tensor_layer', locals())
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
    """Samples one id per row from the row's probability distribution.

    The input rows are probabilities (e.g. a softmax output); the output holds, as
    ids, a class drawn at random for each row. No gradient flows back. Creates an
    engine layer of type ``sampling_id``.

    Args:
        input (LayerOutput): the distributions.
        name (str, optional): layer name; ``__sampling_id_layer_N__`` when omitted.
        layer_attr (ExtraLayerAttribute, optional): extra settings (``device``).

    Returns:
        LayerOutput: the sampled ids.

    Example:
        >>> prob = fc_layer(input=data_layer(name='x', size=8), size=10,
        ...                 act=SoftmaxActivation())
        >>> sampling_id_layer(input=prob).layer_type
        'sampling_id'
    """
    _check_layer_args('sampling_id_layer', locals())
    l = Layer(name=name, type=LayerType.SAMPLING_ID_LAYER,
              inputs=[Input(input.name)], **_extra(layer_attr))
    return LayerOutput(name, LayerType.SAMPLING_ID_LAYER, input,
                       size=l.config.size)


@wrap_name_default()
@layer_support()
def maxid_layer(input, name=None, layer_attr=None):
    """The index of each row's largest value.

    The output holds the arg-max of each row as ids (and the maximum as its value);
    beam_search uses it to pick the next word. No gradient flows back. Creates an
    engine layer of type ``maxid``.

    Args:
        input (LayerOutput): the scores.
        name (str, optional): layer name; ``__maxid_layer_N__`` when omitted.
        layer_attr (ExtraLayerAttribute, optional): extra settings (``device``).

    Returns:
        LayerOutput: the ids.

    Example:
        >>> prob = fc_layer(input=data_layer(name='x', size=8), size=10,
        ...                 act=SoftmaxActivation())
        >>> maxid_layer(input=prob).layer_type
        'maxid'
    """
    _check_layer_args('maxid_layer', locals())
    l = Layer(name=name, type='maxid', inputs=[input.name],
              **_extra(layer_attr))
    return LayerOutput(name, LayerType.MAXID_LAYER, parents=[input],
                       size=l.config.size)


@wrap_name_default()
@layer_support()
def eos_layer(input, eos_id, name=None, layer_attr=None):
    """Flags end-of-sequence ids: 1 where the input id equals ``eos_id``, else 0.

    The input holds ids (e.g. a maxid_layer); a generating group (beam_search) ends
    a path when its eos layer fires. Creates an engine layer of type ``eos_id``.

    Args:
        input (LayerOutput): the ids.
        eos_id (int): the end-of-sequence id.
        name (str, optional): layer name; ``__eos_layer_N__`` when omitted.
        layer_attr (ExtraLayerAttribute, optional): extra settings (``device``).

    Returns:
        LayerOutput: the flags.

    Example:
        >>> ids = maxid_layer(input=data_layer(name='scores', size=10))
        >>> eos_layer(input=ids, eos_id=1).layer_type
        'eos_id'
    """
    _check_layer_args('eos_layer', locals())
    l = Layer(name=name, type=LayerType.EOSID_LAYER, eos_id=eos_id,
              inputs=[input.name], **_extra(layer_attr))
    return LayerOutput(name, LayerType.EOSID_LAYER, parents=[input],
                       size=l.config.size)


@wrap_name_default('print')
def print_layer(input, name=None):
    """Prints its inputs at every forward pass (for debugging).

    Writes each input's values (and ids and sequence starts) to stderr, as v1's
    PrintLayer. It computes nothing and is not part of the outputs. Creates an
    engine layer of type ``print``.

    Args:
        input (LayerOutput | list of LayerOutput): the layers to print.
        name (str, optional): layer name; ``__print_N__`` when omitted.

    Returns:
        None: (as in v1) there is no layer to connect further.

    Example:
        >>> x = data_layer(name='x', size=4)
        >>> print_layer(input=x) is None
        True
    """
    inputs = _check_input_list(input, 'print_layer')
    Layer(name=name, type=LayerType.PRINT_LAYER,
          inputs=[l.name for l in inputs])


@wrap_name_default()
@layer_support()
def rotate_layer(input, height, width, name=None, layer_attr=None):
    """Rotates each channel of an image 90 degrees clockwise.

    Each row holds channels of ``height x width`` values; each becomes a
    ``width x height`` image with ``out[j][height - 1 - i] = in[i][j]``. Creates an
    engine layer of type ``rotate``.

    Args:
        input (LayerOutput): the images.
        height (int): image height.
        width (int): image width.
        name (str, optional): layer name; ``__rotate_layer_N__`` when omitted.
        layer_attr (ExtraLayerAttribute, optional): extra settings (``device``).

    Returns:
        LayerOutput: the rotated images, of the input's width.

    Example:
        >>> img = data_layer(name='img', size=3 * 4)
        >>> rotate_layer(input=img, height=3, width=4).size
        12
    """
    _check_layer_args('rotate_layer', locals())
    l = Layer(name=name, height=height, width=width,
              type=LayerType.ROTATE_LAYER, inputs=[input.name],
              **_extra(layer_attr))
    return LayerOutput(name, LayerType.ROTATE_LAYER, parents=[input],
                       size=l.config.size)


@wrap_name_default()
@layer_support()
def get_output_layer(input, arg_name, name=None, layer_attr=None):
    """Exposes a secondary output of a layer (such as lstm_step_layer's ``state``) as
    a layer.

    Its value is the named output of ``input``; gradients flow back into it.
    ``input.outputs`` lists the names a layer has. Creates an engine layer of type
    ``get_output``.

    Args:
        input (LayerOutput): the layer.
        arg_name (str): the output's name, one of ``input.outputs``.
        name (str, optional): layer name; ``__get_output_layer_N__`` when omitted.
        layer_attr (ExtraLayerAttribute, optional): extra settings (``device``).

    Returns:
        LayerOutput: the output, of ``input``'s width.

    Example:
        >>> gates = data_layer(name='gates', size=4 * 16)
        >>> cell = data_layer(name='prev_cell', size=16)
        >>> step = lstm_step_layer(input=gates, state=cell)
        >>> get_output_layer(input=step, arg_name='state').size
        16
    """
    _check_layer_args('get_output_layer', locals())
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
