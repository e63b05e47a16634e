"""Element-wise layers (ElementwiseLayers.cpp): scaling, clipping, products, similarity,
combinations, repetition, maxid and sampling."""

from paddle.layer_specs import spec
from paddle.parser import ConfigError, Input, Layer, config_assert

from ..activations import LinearActivation
from ..default_decorators import (wrap_act_default, wrap_bias_attr_default, wrap_name_default,
                                  wrap_param_attr_default)
from ..layer_output import (DROPOUT, ERROR_CLIPPING, LayerOutput, LayerType, _b0_pair, _bias, _check_input,
                            _check_layer_args, _extra, _positional, _size_arg, layer_support)
# moved to their engine families' modules; still importable from here
from .image import rotate_layer  # noqa: F401
from .utility import get_output_layer, print_layer  # noqa: F401


_SLOPE_INTERCEPT = spec('slope_intercept').defaults  # shared with the parser

__all__ = [
    'slope_intercept_layer', 'clip_layer', 'scaling_layer', 'power_layer', 'interpolation_layer',
    'out_prod_layer', 'conv_shift_layer', 'linear_comb_layer', 'convex_comb_layer',
    'tensor_layer', 'sampling_id_layer', 'maxid_layer', 'trans_layer', 'cos_sim',
    'sum_to_one_norm_layer', 'repeat_layer'
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
def cos_sim(a, b, scale=spec('cos').defaults['scale'], size=1, name=None, layer_attr=None):
    """Cosine similarity, scaled: ``y = scale * <a, b> / (|a| |b|)``.

    With ``size`` 1, ``a`` and ``b`` have the same width and the output is one value
    per row (engine type ``cos``). With ``size`` > 1, ``b`` holds ``size`` vectors of
    ``a``'s width side by side, and output ``k`` is the cosine of ``a`` with the k-th
    (engine type ``cos_vm``); ``size`` must then be ``b.size / a.size``.

    Args:
        a (LayerOutput): the first input.
        b (LayerOutput): the second input (``size`` vectors of ``a.size``).
        scale (float, default 1): factor applied to the cosine.
        size (int, default 1): number of vectors in ``b``, the output width.
        name (str, optional): layer name; ``__cos_sim_N__`` when omitted.
        layer_attr (ExtraLayerAttribute, optional): extra settings (``device``).

    Returns:
        LayerOutput: the similarities, of width ``size``.

    Example:
        >>> q = data_layer(name='query', size=32)
        >>> d = data_layer(name='doc', size=32)
        >>> cos_sim(a=q, b=d, scale=5).size
        1
        >>> three = data_layer(name='three_docs', size=96)
        >>> cos_sim(a=q, b=three, size=3).size
        3
    """
    _check_layer_args('cos_sim', locals())
    if size == 1:
        Layer(
            name=name,
            type=LayerType.COSINE_SIM,
            cos_scale=scale,
            inputs=[a.name, b.name],
            **_extra(layer_attr))
    else:
        if a.size is not None and b.size is not None:
            config_assert(size == b.size // a.size,
                          'cos_sim: size must be b.size / a.size = %d' %
                          (b.size // a.size))
        Layer(
            name=name,
            type=LayerType.COSINE_SIM_VEC,
            size=size,
            cos_scale=scale,
            inputs=[a.name, b.name],
            **_extra(layer_attr))
    return LayerOutput(name, LayerType.COSINE_SIM, parents=[a, b], size=size)


@wrap_name_default()
@layer_support()
def trans_layer(input, name=None, layer_attr=None):
    """Transpose of the whole batch matrix: a ``[batch, n]`` input gives ``[n, batch]``.

    The output's rows are the input's columns, so its width is the batch size, not
    ``input.size`` (the returned LayerOutput still reports ``input.size``, as in v1).
    Mostly used together with layers that read a matrix from a batch. Creates an
    engine layer of type ``trans``.

    Args:
        input (LayerOutput): the matrix to transpose.
        name (str, optional): layer name; ``__trans_layer_N__`` when omitted.
        layer_attr (ExtraLayerAttribute, optional): extra settings (``device``).

    Returns:
        LayerOutput: the transposed layer.

    Example:
        >>> x = data_layer(name='x', size=16)
        >>> trans_layer(input=x).layer_type
        'trans'
    """
    _check_layer_args('trans_layer', locals())
    Layer(
        name=name,
        type=LayerType.TRANS_LAYER,
        inputs=[input.name],
        **_extra(layer_attr))
    return LayerOutput(name, LayerType.TRANS_LAYER, [input], size=input.size)


@wrap_name_default()
@layer_support()
def sum_to_one_norm_layer(input, name=None, layer_attr=None):
    """Normalises each row to sum to one: ``y_i = x_i / sum_j x_j``.

    Meant for non-negative inputs (a distribution of unnormalised weights). The
    output has the input's width and sequence layout. Creates an engine layer of type
    ``sum_to_one_norm``.

    Args:
        input (LayerOutput): the input.
        name (str, optional): layer name; ``__sum_to_one_norm_layer_N__`` when omitted.
        layer_attr (ExtraLayerAttribute, optional): extra settings (``device``).

    Returns:
        LayerOutput: the normalised layer, of width ``input.size``.

    Example:
        >>> x = data_layer(name='x', size=8)
        >>> sum_to_one_norm_layer(input=x).size
        8
    """
    _check_layer_args('sum_to_one_norm_layer', locals())
    Layer(
        name=name,
        type=LayerType.SUM_TO_ONE_NORM_LAYER,
        inputs=[input.name],
        **_extra(layer_attr))
    return LayerOutput(
        name, LayerType.SUM_TO_ONE_NORM_LAYER, [input], size=input.size)


@wrap_name_default()
@layer_support()
def repeat_layer(input, num_repeats, name=None, layer_attr=None):
    """Tiles each row ``num_repeats`` times: ``y = [x, x, ..., x]``.

    The output width is ``input.size * num_repeats``; rows (and sequences) are kept.
    layer_math uses it to broadcast a size-1 layer. Creates an engine layer of type
    ``featmap_expand``.

    Args:
        input (LayerOutput): the input.
        num_repeats (int): number of copies.
        name (str, optional): layer name; ``__repeat_layer_N__`` when omitted.
        layer_attr (ExtraLayerAttribute, optional): extra settings (``device``).

    Returns:
        LayerOutput: the tiled layer, ``input.size * num_repeats`` wide.

    Example:
        >>> x = data_layer(name='x', size=4)
        >>> repeat_layer(input=x, num_repeats=3).size
        12
    """
    _check_layer_args('repeat_layer', locals())
    l = Layer(
        inputs=[input.name],
        name=name,
        num_filters=num_repeats,
        type=LayerType.FEATURE_MAP_EXPAND_LAYER,
        **_extra(layer_attr))
    return LayerOutput(name, LayerType.FEATURE_MAP_EXPAND_LAYER,
                       parents=[input], size=l.config.size)
