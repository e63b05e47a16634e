"""Projections and operators, the inputs of mixed_layer and concat_layer (Projections.cpp)."""

import paddle.parser as cp

from paddle.parser import ConfigError

from ..attrs import ParameterAttribute
from ..default_decorators import wrap_bias_attr_default, wrap_param_attr_default
from ..layer_output import LayerType, _check_input, _check_layer_args, _check_param_attr


__all__ = [
    'full_matrix_projection', 'trans_full_matrix_projection', 'table_projection',
    'identity_projection', 'dotmul_projection', 'scaling_projection', 'dotmul_operator',
    'context_projection', 'conv_projection', 'conv_operator'
]

def _proj(cls, input, helper, **kwargs):
    _check_input(input, 'input', helper)
    proj = cls(input_layer_name=input.name, **kwargs)
    proj.origin = input
    return proj


@wrap_param_attr_default()
def full_matrix_projection(input, size=0, param_attr=None):
    """Matrix product projection: ``p(x) = x W``, ``W`` of dims ``[input.size, size]``.

    An input of mixed_layer or concat_layer; applied to every row (every time step
    of a sequence). A mixed layer of one full_matrix_projection plus a bias is an
    fc_layer.

    Args:
        input (LayerOutput): the input layer.
        size (int, default 0): output width; 0 takes the mixed layer's size.
        param_attr (ParameterAttribute, optional): attributes of ``W``.

    Returns:
        Projection: the projection, to pass to mixed_layer / concat_layer.

    Example:
        >>> x = data_layer(name='x', size=16)
        >>> y = mixed_layer(size=4, input=[full_matrix_projection(input=x)])
        >>> y.size
        4
    """
    _check_param_attr(param_attr, 'full_matrix_projection')
    return _proj(cp.FullMatrixProjection, input, 'full_matrix_projection',
                 size=size, **param_attr.attr)


@wrap_param_attr_default()
def trans_full_matrix_projection(input, size=0, param_attr=None):
    """Transposed matrix projection: ``p(x) = x W^T``, ``W`` of dims ``[size, input.size]``.

    Same as full_matrix_projection with the weight stored transposed; use it to
    share one weight between a projection and its transpose (e.g. tied
    encoder/decoder weights), by giving both the same ``ParamAttr(name=...)``.

    Args:
        input (LayerOutput): the input layer.
        size (int, default 0): output width; 0 takes the mixed layer's size.
        param_attr (ParameterAttribute, optional): attributes of ``W``.

    Returns:
        Projection: the projection.

    Example:
        >>> x = data_layer(name='x', size=16)
        >>> enc = mixed_layer(size=4, input=[
        ...     full_matrix_projection(input=x, param_attr=ParamAttr(name='w'))])
        >>> dec = mixed_layer(size=16, input=[
        ...     trans_full_matrix_projection(input=enc, param_attr=ParamAttr(name='w'))])
        >>> dec.size
        16
    """
    _check_param_attr(param_attr, 'trans_full_matrix_projection')
    return _proj(cp.TransposedFullMatrixProjection, input,
                 'trans_full_matrix_projection', size=size,
                 **param_attr.attr)


@wrap_param_attr_default()
def table_projection(input, size=0, param_attr=None):
    """Table lookup projection: ``p(id) = W[id]``, ``W`` of dims ``[input.size, size]``.

    The input must hold integer ids (an integer id data slot, ``input.size`` being
    the number of ids); each id selects one row of the table. For an id sequence the
    result is a sequence of rows. embedding_layer is a mixed layer of this one
    projection.

    Args:
        input (LayerOutput): integer ids.
        size (int, default 0): row width; 0 takes the mixed layer's size.
        param_attr (ParameterAttribute, optional): attributes of the table.

    Returns:
        Projection: the projection.

    Example:
        >>> words = data_layer(name='words', size=5000)
        >>> emb = mixed_layer(size=64, input=[table_projection(input=words)])
        >>> emb.size
        64
    """
    _check_param_attr(param_attr, 'table_projection')
    return _proj(cp.TableProjection, input, 'table_projection', size=size,
                 **param_attr.attr)


def identity_projection(input, offset=None, size=None):
    """Copies the input, or a slice of it; no parameters.

    Without ``offset``: ``p(x) = x``, and the mixed layer's width is ``input.size``.
    With ``offset``: ``p(x) = x[offset : offset + n]`` where ``n`` is the mixed
    layer's size (the slice's width), so the mixed layer needs a ``size``.

    Args:
        input (LayerOutput): the input layer.
        offset (int, optional): first column of the slice; omit for a plain copy.
        size (int, optional): width of the slice (with ``offset``); the mixed
            layer's size otherwise.

    Returns:
        Projection: the projection.

    Example:
        >>> x = data_layer(name='x', size=16)
        >>> mixed_layer(input=[identity_projection(input=x)]).size
        16
        >>> mixed_layer(size=4, input=[identity_projection(input=x, offset=8)]).size
        4
    """
    if offset is None:
        return _proj(cp.IdentityProjection, input, 'identity_projection')
    kwargs = {} if size is None else {'size': size}
    return _proj(cp.IdentityOffsetProjection, input, 'identity_projection',
                 offset=offset, **kwargs)


@wrap_param_attr_default()
def dotmul_projection(input, param_attr=None, scale=None):
    """Element-wise weighting: ``p(x) = x .* w``, ``w`` a learned row of ``input.size``.

    The output has the input's width; applied to every row. The v0.9 (b0) spelling
    ``dotmul_projection(input=[a, b], scale=s)`` is accepted and gives the
    parameter-free ``dotmul_operator(a, b, scale=s)`` instead.

    Args:
        input (LayerOutput | list of LayerOutput): the input; ``[a, b]`` for the b0
            operator form.
        param_attr (ParameterAttribute, optional): attributes of ``w``.
        scale (float, optional): only with the b0 form: the operator's scale
            (a ConfigError otherwise).

    Returns:
        Projection: the projection (an Operator in the b0 form).

    Example:
        >>> x = data_layer(name='x', size=16)
        >>> mixed_layer(input=[dotmul_projection(input=x)]).size
        16
    """
    if isinstance(input, (list, tuple)):
        if len(input) != 2:
            raise ConfigError('dotmul_projection: the b0 form takes input=[a, '
                              'b] (2 layers), got %d items' % len(input))
        return dotmul_operator(a=input[0], b=input[1],
                               scale=1 if scale is None else scale)
    if scale is not None:
        raise ConfigError('dotmul_projection: scale is only valid with '
                          'input=[a, b] (use dotmul_operator)')
    _check_layer_args('dotmul_projection', locals())
    _check_param_attr(param_attr, 'dotmul_projection')
    return _proj(cp.DotMulProjection, input, 'dotmul_projection',
                 size=input.size, **param_attr.attr)


@wrap_param_attr_default()
def scaling_projection(input, param_attr=None):
    """Scales the input by one learned scalar: ``p(x) = w * x``.

    The output has the input's width; the parameter has a single value.

    Args:
        input (LayerOutput): the input layer.
        param_attr (ParameterAttribute, optional): attributes of ``w``.

    Returns:
        Projection: the projection.

    Example:
        >>> x = data_layer(name='x', size=16)
        >>> mixed_layer(input=[scaling_projection(input=x)]).size
        16
    """
    _check_param_attr(param_attr, 'scaling_projection')
    return _proj(cp.ScalingProjection, input, 'scaling_projection',
                 **param_attr.attr)


def dotmul_operator(a=None, b=None, scale=1, **kwargs):
    """Element-wise product of two layers: ``o(a, b) = scale * a .* b``.

    An operator (an input of mixed_layer with no parameters of its own). ``a`` and
    ``b`` must have the same width, which is the output width (and the mixed layer's
    size). The b0 keyword spelling ``x=``, ``y=`` is accepted for ``a``, ``b``.

    Args:
        a (LayerOutput): the first factor.
        b (LayerOutput): the second factor, of ``a``'s width.
        scale (float, default 1): constant factor.
        **kwargs: ``x`` and ``y``, the b0 names of ``a`` and ``b``.

    Returns:
        Operator: the operator, to add to a mixed_layer.

    Example:
        >>> a = data_layer(name='a', size=8)
        >>> b = data_layer(name='b', size=8)
        >>> mixed_layer(input=[dotmul_operator(a=a, b=b, scale=0.5)]).size
        8
    """
    if 'x' in kwargs or 'y' in kwargs:
        a = kwargs.get('x', a)
        b = kwargs.get('y', b)
    _check_layer_args('dotmul_operator', locals())
    if a.size is not None and b.size is not None and a.size != b.size:
        raise ConfigError(
            "dotmul_operator: inputs '%s' (size %d) and '%s' (size %d) must "
            "have the same size" % (a.name, a.size, b.name, b.size))
    op = cp.DotMulOperator(input_layer_names=[a.name, b.name], scale=scale)
    op.origin = [a, b]
    return op


@wrap_bias_attr_default(['padding_attr'])
def context_projection(input, context_len, context_start=None,
                       padding_attr=False):
    """Concatenates the features of ``context_len`` neighbouring time steps.

    For step ``t`` of a sequence, the output is ``[x[t+s], x[t+s+1], ...,
    x[t+s+context_len-1]]`` with ``s = context_start``, so its width is
    ``input.size * context_len``. The input must be a sequence; the window never
    crosses into another sequence. Positions before the start or past the end read
    padding: trainable, zero-initialised rows when ``padding_attr`` is omitted, True
    or a ParamAttr (v1's default), or zeros with ``padding_attr=False``. Often used
    for a text convolution (context_projection followed by an fc).

    Args:
        input (LayerOutput): a sequence.
        context_len (int): window length.
        context_start (int, optional): offset of the window's first step relative
            to ``t``; ``-(context_len - 1) // 2`` (a centred window) when omitted.
        padding_attr (ParameterAttribute | bool, optional): the padding's
            attributes (trainable), or False for fixed zeros.

    Returns:
        Projection: the projection, of width ``input.size * context_len``.

    Example:
        >>> emb = embedding_layer(input=data_layer(name='w', size=1000), size=32)
        >>> ctx = mixed_layer(input=[context_projection(input=emb, context_len=3)])
        >>> ctx.size
        96
    """
    _check_layer_args('context_projection', locals())
    context_start = -(context_len - 1) // 2 if context_start is None \
        else context_start
    extra = dict()
    trainable = isinstance(padding_attr, ParameterAttribute)
    if trainable:
        extra = padding_attr.attr
    return _proj(cp.ContextProjection, input, 'context_projection',
                 context_start=context_start, context_length=context_len,
                 trainable_padding=trainable, **extra)


def _pair(v, vy, what):
    if isinstance(v, (list, tuple)):
        if len(v) != 2:
            raise ConfigError('%s must be a number or an (x, y) pair' % what)
        return v[0], v[1]
    return v, (v if vy is None else vy)


def _num_channels(input, num_channels, helper):
    if num_channels is None:
        if input.num_filters is not None:
            return input.num_filters
        if input.size is not None and input.layer_type == LayerType.DATA:
            return 1
        raise ConfigError('%s: num_channels is required for input %s' %
                          (helper, input.name))
    return num_channels


@wrap_param_attr_default()
def conv_projection(input,
                    filter_size,
                    num_filters,
                    num_channels=None,
                    stride=1,
                    padding=0,
                    filter_size_y=None,
                    stride_y=None,
                    padding_y=None,
                    groups=1,
                    param_attr=None,
                    trans=False):
    """Image convolution as a projection (an input of mixed_layer or concat_layer).

    Computes the same convolution as img_conv_layer (cross-correlation of
    ``[num_channels, H, W]`` images with ``num_filters`` filters of
    ``[num_channels / groups, filter_size_y, filter_size]``) but leaves bias and
    activation to the enclosing layer, whose bias then has one value per filter.
    The output width is ``num_filters * out_h * out_w``, with
    ``out = (in + 2 * padding - filter) // stride + 1`` in each direction. With
    ``trans=True`` it is the transposed convolution (the gradient of a convolution,
    upsampling).

    Args:
        input (LayerOutput): an image layer (a data layer with height/width, or an
            image layer's output).
        filter_size (int | tuple): filter width, or ``(x, y)``.
        num_filters (int): output channels.
        num_channels (int, optional): input channels; taken from the input (1 for
            a data layer) when omitted.
        stride (int | tuple, default 1): step, or ``(x, y)``.
        padding (int | tuple, default 0): zero padding on each side, or ``(x, y)``.
        filter_size_y (int, optional): filter height; ``filter_size`` when omitted.
        stride_y (int, optional): vertical step; ``stride`` when omitted.
        padding_y (int, optional): vertical padding; ``padding`` when omitted.
        groups (int, default 1): filter groups (channels split into groups).
        param_attr (ParameterAttribute, optional): filter attributes;
            ``initial_smart`` gives std ``sqrt(2 / (filter_size^2 * num_channels))``.
        trans (bool, default False): transposed convolution.

    Returns:
        Projection: the projection.

    Example:
        >>> img = data_layer(name='img', size=3 * 8 * 8, height=8, width=8)
        >>> proj = conv_projection(input=img, filter_size=3, num_filters=4,
        ...                        num_channels=3, padding=1)
        >>> concat_layer(input=[proj]).size
        256
    """
    _check_layer_args('conv_projection', locals())
    num_channels = _num_channels(input, num_channels, 'conv_projection')
    filter_size, filter_size_y = _pair(filter_size, filter_size_y,
                                       'filter_size')
    stride, stride_y = _pair(stride, stride_y, 'stride')
    padding, padding_y = _pair(padding, padding_y, 'padding')
    if param_attr.attr.get('initial_smart'):
        init_w = (2.0 / (filter_size**2 * num_channels))**0.5
        param_attr.attr['initial_mean'] = 0.0
        param_attr.attr['initial_std'] = init_w
        param_attr.attr['initial_strategy'] = 0
        param_attr.attr['initial_smart'] = False
    cls = cp.ConvTransProjection if trans else cp.ConvProjection
    proj = cls(
        input_layer_name=input.name,
        num_filters=num_filters,
        conv_conf=cp.Conv(
            filter_size=filter_size,
            padding=padding,
            stride=stride,
            channels=num_channels,
            filter_size_y=filter_size_y,
            padding_y=padding_y,
            stride_y=stride_y,
            groups=groups),
        **param_attr.attr)
    proj.origin = input
    return proj


def conv_operator(img=None,
                  filter=None,
                  filter_size=None,
                  num_filters=None,
                  num_channels=None,
                  stride=1,
                  padding=0,
                  filter_size_y=None,
                  stride_y=None,
                  padding_y=None,
                  trans=False,
                  input=None):
    """Convolution of an image by filters that another layer computes, per sample.

    An operator of mixed_layer: each sample's image ``img`` (``[num_channels, H, W]``)
    is convolved with that sample's own filters, read from the ``filter`` layer
    (``num_filters * num_channels * filter_size_y * filter_size`` values). There are
    no parameters. Output width ``num_filters * out_h * out_w``, as for
    conv_projection. ``trans=True`` gives the transposed convolution.

    Args:
        img (LayerOutput): the image layer.
        filter (LayerOutput): the per-sample filters.
        filter_size (int | tuple): filter width, or ``(x, y)``.
        num_filters (int): output channels.
        num_channels (int, optional): input channels; ``img``'s channel count when
            omitted.
        stride (int | tuple, default 1): step, or ``(x, y)``.
        padding (int | tuple, default 0): zero padding, or ``(x, y)``.
        filter_size_y (int, optional): filter height; ``filter_size`` when omitted.
        stride_y (int, optional): vertical step; ``stride`` when omitted.
        padding_y (int, optional): vertical padding; ``padding`` when omitted.
        trans (bool, default False): transposed convolution.
        input (list of LayerOutput, optional): the b0 spelling ``[img, filter]``.

    Returns:
        Operator: the operator, to add to a mixed_layer.

    Example:
        >>> img = data_layer(name='img', size=8 * 8, height=8, width=8)
        >>> filt = data_layer(name='filter', size=2 * 3 * 3)
        >>> op = conv_operator(img=img, filter=filt, filter_size=3, num_filters=2,
        ...                    num_channels=1)
        >>> mixed_layer(input=[op]).size
        72
    """
    if input is not None:
        if not isinstance(input, (list, tuple)) or len(input) != 2:
            raise ConfigError('conv_operator: input must be [img, filter]')
        img, filter = input
    if filter_size is None:
        raise ConfigError('conv_operator: filter_size is required')
    if num_filters is None:
        raise ConfigError('conv_operator: num_filters is required')
    _check_layer_args('conv_operator', locals())
    filter_size, filter_size_y = _pair(filter_size, filter_size_y,
                                       'filter_size')
    stride, stride_y = _pair(stride, stride_y, 'stride')
    padding, padding_y = _pair(padding, padding_y, 'padding')
    if num_channels is None:
        num_channels = img.num_filters
    cls = cp.ConvTransOperator if trans else cp.ConvOperator
    op = cls(
        input_layer_names=[img.name, filter.name],
        num_filters=num_filters,
        conv_conf=cp.Conv(
            filter_size=filter_size,
            padding=padding,
            stride=stride,
            channels=num_channels,
            filter_size_y=filter_size_y,
            padding_y=padding_y,
            stride_y=stride_y,
            groups=1))
    op.origin = [img, filter]
    return op
