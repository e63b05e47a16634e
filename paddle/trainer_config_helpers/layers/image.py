"""Image layers: conv, pool, spp, norms, batch_norm, block_expand, maxout,
bilinear_interp, pad, rotate, priorbox (ConvLayers.cpp, PoolLayers.cpp, NormLayers.cpp,
ImageLayers.cpp)."""

import paddle.parser as cp

from paddle.layer_specs import spec
from paddle.parser import ConfigError, Input, Layer

from ..activations import ReluActivation
from ..attrs import ParamAttr
from ..default_decorators import (wrap_act_default, wrap_bias_attr_default, wrap_name_default,
                                  wrap_param_attr_default)
from ..poolings import AvgPooling, CudnnAvgPooling, CudnnMaxPooling, MaxPooling
from ..layer_output import (DROPOUT, LayerOutput, LayerType, _bias, _check_layer_args, _check_param_attr,
                            _extra, _type_desc, layer_support)
from .projections import _pair


__all__ = [
    'img_conv_layer', 'img_pool_layer', 'spp_layer', 'img_cmrnorm_layer', 'batch_norm_layer',
    'block_expand_layer', 'maxout_layer', 'bilinear_interp_layer', 'pad_layer',
    'cross_channel_norm_layer', 'priorbox_layer', 'img_rnorm_layer', 'rotate_layer'
]

_BLOCK_EXPAND = spec('blockexpand').defaults  # shared with the parser's BlockExpand


def _img_channels(input, num_channels, helper):
    if num_channels is None:
        if input.num_filters is None:
            raise ConfigError(
                "%s: num_channels is required (input '%s' does not carry a "
                "channel count)" % (helper, input.name))
        return input.num_filters
    return num_channels


@wrap_name_default('conv')
@wrap_param_attr_default()
@wrap_bias_attr_default()
@wrap_act_default(act=ReluActivation())
@layer_support(DROPOUT)
def img_conv_layer(input, filter_size, num_filters, name=None,
                   num_channels=None, act=None, groups=1, stride=1,
                   padding=0, bias_attr=None, param_attr=None,
                   shared_biases=True, layer_attr=None, filter_size_y=None,
                   stride_y=None, padding_y=None, trans=False,
                   layer_type=None):
    """2-D convolution of images: ``y = act(conv(x, W) + b)``.

    Images are rows of ``C * H * W`` values, channel-major (``[C, H, W]``). The
    height and width come from the input layer (a data_layer with ``height`` and
    ``width``, or the output of another image layer); without them the image is
    taken to be square. Each of the ``num_filters`` filters spans
    ``num_channels / groups`` input channels over ``filter_size_y x filter_size``
    pixels (cross-correlation, as in caffe). Output size in each direction:
    ``out = (in + 2 * padding - filter) // stride + 1``; the output is
    ``num_filters * out_h * out_w`` wide and carries ``num_filters`` as its channel
    count. With ``trans=True`` it is the transposed convolution (a learned
    upsampling: ``in = (out - 1) * stride + filter - 2 * padding``). Creates an engine
    layer of type ``exconv`` (``cudnn_conv`` when the trainer runs on a GPU), or
    ``exconvt`` / ``cudnn_convt`` for ``trans``.

    Args:
        input (LayerOutput): the images.
        filter_size (int | tuple): filter width, or ``(x, y)``.
        num_filters (int): number of filters (output channels).
        name (str, optional): layer name; ``__conv_N__`` when omitted.
        num_channels (int, optional): input channels; taken from an image layer
            input, required for a data layer.
        act (BaseActivation, optional): activation, ``ReluActivation()`` when
            omitted.
        groups (int, default 1): split channels and filters into this many groups
            (each filter sees only its group's channels).
        stride (int | tuple, default 1): step, or ``(x, y)``.
        padding (int | tuple, default 0): zero padding on each side, or ``(x, y)``.
        bias_attr (ParameterAttribute | bool, optional): bias; False for none.
        param_attr (ParameterAttribute, optional): filter attributes;
            ``initial_smart`` gives std ``sqrt(2 / (filter_size^2 * num_channels))``.
        shared_biases (bool, default True): one bias per filter; False for one per
            output value.
        layer_attr (ExtraLayerAttribute, optional): extra settings (``drop_rate``,
            ``device``).
        filter_size_y (int, optional): filter height; ``filter_size`` when omitted.
        stride_y (int, optional): vertical step; ``stride`` when omitted.
        padding_y (int, optional): vertical padding; ``padding`` when omitted.
        trans (bool, default False): transposed convolution.
        layer_type (str, optional): force the engine type: ``exconv`` or
            ``cudnn_conv`` (``exconvt`` or ``cudnn_convt`` with ``trans``).

    Returns:
        LayerOutput: the feature maps, ``num_filters * out_h * out_w`` wide.

    Example:
        >>> img = data_layer(name='img', size=3 * 32 * 32, height=32, width=32)
        >>> conv = img_conv_layer(input=img, filter_size=3, num_filters=16,
        ...                       num_channels=3, padding=1)
        >>> conv.size, conv.num_filters
        (16384, 16)
    """
    _check_layer_args('img_conv_layer', locals())
    num_channels = _img_channels(input, num_channels, 'img_conv_layer')
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
    if layer_type:
        ok = ('exconvt', 'cudnn_convt') if trans else ('exconv',
                                                       'cudnn_conv')
        if layer_type not in ok:
            raise ConfigError('img_conv_layer: layer_type must be one of %s'
                              % ', '.join(ok))
        lt = layer_type
    else:
        lt = LayerType.CONVTRANS_LAYER if trans else LayerType.CONV_LAYER
    l = Layer(
        name=name,
        inputs=Input(
            input.name,
            conv=cp.Conv(
                filter_size=filter_size,
                padding=padding,
                stride=stride,
                channels=num_channels,
                groups=groups,
                filter_size_y=filter_size_y,
                padding_y=padding_y,
                stride_y=stride_y),
            **param_attr.attr),
        active_type=act.name,
        num_filters=num_filters,
        bias=_bias(bias_attr),
        shared_biases=shared_biases,
        type=lt,
        **_extra(layer_attr))
    return LayerOutput(name, lt, parents=[input], activation=act,
                       num_filters=num_filters, size=l.config.size)


def _pool_type_name(pool_type, helper):
    if isinstance(pool_type, AvgPooling):
        return 'avg-projection'
    if isinstance(pool_type, MaxPooling):
        return 'max-projection'
    if isinstance(pool_type, (CudnnMaxPooling, CudnnAvgPooling)):
        return pool_type.name
    raise ConfigError('%s: pool_type must be MaxPooling() or AvgPooling(), '
                      'got %s' % (helper, _type_desc(pool_type)))


@wrap_name_default('pool')
@layer_support()
def img_pool_layer(input, pool_size, name=None, num_channels=None,
                   pool_type=None, stride=1, padding=0, layer_attr=None,
                   pool_size_y=None, stride_y=None, padding_y=None,
                   ceil_mode=spec('pool').defaults['ceil_mode'], start=None):
    """Max or average pooling over windows of each image channel.

    Images are rows of ``C * H * W`` values, channel-major (``[C, H, W]``). The
    height and width come from the input layer (a data_layer with ``height`` and
    ``width``, or the output of another image layer); without them the image is
    taken to be square. Each ``pool_size_y x pool_size`` window, moved by
    ``stride``, gives one output value per channel: its maximum, or its average
    (divided by the window clipped to the padded image, as caffe). Output size in
    each direction: ``ceil((in + 2 * padding - pool) / stride) + 1`` (v1's default;
    ``ceil_mode=False`` rounds down). The channel count is kept. Creates an engine
    layer of type ``pool``.

    Args:
        input (LayerOutput): the images.
        pool_size (int | tuple): window width, or ``(x, y)``.
        name (str, optional): layer name; ``__pool_N__`` when omitted.
        num_channels (int, optional): input channels; taken from an image layer
            input, required for a data layer.
        pool_type (BasePoolingType, optional): ``MaxPooling()`` (when omitted) or
            ``AvgPooling()`` (or the Cudnn variants).
        stride (int | tuple, default 1): step, or ``(x, y)``.
        padding (int | tuple, default 0): padding on each side, or ``(x, y)``.
        layer_attr (ExtraLayerAttribute, optional): extra settings (``device``).
        pool_size_y (int, optional): window height; ``pool_size`` when omitted.
        stride_y (int, optional): vertical step; ``stride`` when omitted.
        padding_y (int, optional): vertical padding; ``padding`` when omitted.
        ceil_mode (bool, default True): round the output size up (False: down).
        start (int, optional): b0 spelling, deprecated since v0.9; only None or 0
            is accepted (use ``padding``).

    Returns:
        LayerOutput: the pooled maps, ``C * out_h * out_w`` wide.

    Example:
        >>> img = data_layer(name='img', size=3 * 32 * 32, height=32, width=32)
        >>> conv = img_conv_layer(input=img, filter_size=3, num_filters=16,
        ...                       num_channels=3, padding=1)
        >>> pool = img_pool_layer(input=conv, pool_size=2, stride=2)
        >>> pool.size, pool.num_filters
        (4096, 16)
    """
    if start:
        raise ConfigError('img_pool_layer: start is deprecated in pooling '
                          '(v0.9+); use padding')
    _check_layer_args('img_pool_layer', locals())
    num_channels = _img_channels(input, num_channels, 'img_pool_layer')
    if pool_type is None:
        pool_type = MaxPooling()
    type_name = _pool_type_name(pool_type, 'img_pool_layer')
    pool_size, pool_size_y = _pair(pool_size, pool_size_y, 'pool_size')
    stride, stride_y = _pair(stride, stride_y, 'stride')
    padding, padding_y = _pair(padding, padding_y, 'padding')
    l = Layer(
        name=name,
        type=LayerType.POOL_LAYER,
        inputs=[
            Input(
                input.name,
                pool=cp.Pool(
                    pool_type=type_name,
                    channels=num_channels,
                    size_x=pool_size,
                    start=None,
                    stride=stride,
                    padding=padding,
                    size_y=pool_size_y,
                    stride_y=stride_y,
                    padding_y=padding_y))
        ],
        ceil_mode=ceil_mode,
        **_extra(layer_attr))
    return LayerOutput(name, LayerType.POOL_LAYER, parents=[input],
                       num_filters=num_channels, size=l.config.size)


@wrap_name_default('spp')
@layer_support()
def spp_layer(input, name=None, num_channels=None, pool_type=None,
              pyramid_height=None, layer_attr=None):
    """Spatial pyramid pooling: a fixed-size vector from images of any size.

    For each level ``l = 0 .. pyramid_height - 1``, every channel is divided into
    ``2^l x 2^l`` bins and each bin pooled (max or average); the results are
    concatenated, giving ``C * (4^pyramid_height - 1) / 3`` values. Creates an
    engine layer of type ``spp``.

    Args:
        input (LayerOutput): the images.
        name (str, optional): layer name; ``__spp_N__`` when omitted.
        num_channels (int, optional): input channels; taken from an image layer
            input, required for a data layer.
        pool_type (BasePoolingType, optional): ``MaxPooling()`` (when omitted) or
            ``AvgPooling()``.
        pyramid_height (int): number of pyramid levels.
        layer_attr (ExtraLayerAttribute, optional): extra settings (``device``).

    Returns:
        LayerOutput: the pooled vector.

    Example:
        >>> img = data_layer(name='img', size=16 * 8 * 8, height=8, width=8)
        >>> spp_layer(input=img, num_channels=16, pyramid_height=2).size
        80
    """
    _check_layer_args('spp_layer', locals())
    num_channels = _img_channels(input, num_channels, 'spp_layer')
    if pool_type is None:
        pool_type = MaxPooling()
    type_name = _pool_type_name(pool_type, 'spp_layer')
    l = Layer(
        name=name,
        type=LayerType.SPP_LAYER,
        inputs=Input(
            input.name,
            spp=cp.SpatialPyramidPool(
                pool_type=type_name,
                channels=num_channels,
                pyramid_height=pyramid_height)),
        **_extra(layer_attr))
    return LayerOutput(name, LayerType.SPP_LAYER, parents=[input],
                       num_filters=num_channels, size=l.config.size)


@wrap_name_default('crmnorm')
@layer_support()
def img_cmrnorm_layer(input, size, scale=0.0128, power=0.75, name=None,
                      num_channels=None, layer_attr=None, blocked=0):
    """Local response normalisation across channels (AlexNet's LRN).

    Each value is divided by a power of the sum of squares of the same pixel in
    ``size`` neighbouring channels: ``y = x * (1 + scale / size * sum x^2)^(-power)``
    (v1 divides ``scale`` by ``size``). Output of the input's shape. Creates an engine
    layer of type ``norm`` (``cmrnorm-projection``).

    Args:
        input (LayerOutput): the images.
        size (int): number of channels in the window.
        scale (float, default 0.0128): scale of the sum of squares.
        power (float, default 0.75): exponent.
        name (str, optional): layer name; ``__crmnorm_N__`` when omitted.
        num_channels (int, optional): input channels; taken from an image layer
            input, required for a data layer.
        layer_attr (ExtraLayerAttribute, optional): extra settings (``device``).
        blocked (int, default 0): b0 spelling, written to the config only.

    Returns:
        LayerOutput: the normalised images, of the input's width.

    Example:
        >>> img = data_layer(name='img', size=16 * 8 * 8, height=8, width=8)
        >>> img_cmrnorm_layer(input=img, size=5, num_channels=16).size
        1024
    """
    _check_layer_args('img_cmrnorm_layer', locals())
    num_channels = _img_channels(input, num_channels, 'img_cmrnorm_layer')
    l = Layer(
        name=name,
        type=LayerType.NORM_LAYER,
        inputs=Input(
            input.name,
            norm=cp.Norm(
                norm_type='cmrnorm-projection',
                channels=num_channels,
                size=size,
                scale=scale,
                pow=power,
                blocked=blocked)),
        **_extra(layer_attr))
    return LayerOutput(name, LayerType.NORM_LAYER, parents=[input],
                       num_filters=num_channels,
                       img_norm_type='cmrnorm-projection',
                       size=l.config.size)


@wrap_name_default('rnorm')
@layer_support()
def img_rnorm_layer(input, size, scale, power, name=None, num_channels=None,
                    layer_attr=None):
    """Response normalisation within each channel (b0 only; removed in b1).

    Writes a ``norm`` layer of type ``rnorm`` (the stored scale is
    ``scale / size^2``). This engine implements only the across-channel
    normalisation (img_cmrnorm_layer): a network with this layer parses, but the
    engine refuses to build it.

    Args:
        input (LayerOutput): the images.
        size (int): window size.
        scale (float): scale of the sum of squares.
        power (float): exponent.
        name (str, optional): layer name; ``__rnorm_N__`` when omitted.
        num_channels (int, optional): input channels; taken from an image layer
            input, required for a data layer.
        layer_attr (ExtraLayerAttribute, optional): extra settings (``device``).

    Returns:
        LayerOutput: the layer, of the input's width.

    Example:
        >>> img = data_layer(name='img', size=16 * 8 * 8, height=8, width=8)
        >>> img_rnorm_layer(input=img, size=5, scale=0.0001, power=0.75,
        ...                 num_channels=16).layer_type
        'norm'
    """
    _check_layer_args('img_rnorm_layer', locals())
    num_channels = _img_channels(input, num_channels, 'img_rnorm_layer')
    l = Layer(
        name=name,
        type=LayerType.NORM_LAYER,
        inputs=Input(
            input.name,
            norm=cp.Norm(norm_type='rnorm', channels=num_channels,
                         size=size, scale=scale, pow=power)),
        **_extra(layer_attr))
    return LayerOutput(name, LayerType.NORM_LAYER, parents=[input],
                       num_filters=num_channels, img_norm_type='rnorm',
                       size=l.config.size)


@wrap_name_default('cross_channel_norm')
@wrap_param_attr_default()
def cross_channel_norm_layer(input, name=None, param_attr=None):
    """L2 normalisation of each pixel across channels, then a learned scale per
    channel (v0.10, SSD).

    Writes a ``norm`` layer of type ``cross-channel-norm`` with a ``[C, 1]`` scale
    parameter. This engine does not implement it yet: the network parses, but the
    engine refuses to build it.

    Args:
        input (LayerOutput): an image layer (it must carry a channel count).
        name (str, optional): layer name; ``__cross_channel_norm_N__`` when omitted.
        param_attr (ParameterAttribute, optional): attributes of the scales.

    Returns:
        LayerOutput: the layer, of the input's width.

    Example:
        >>> img = data_layer(name='img', size=3 * 8 * 8, height=8, width=8)
        >>> conv = img_conv_layer(input=img, filter_size=3, num_filters=4,
        ...                       num_channels=3, padding=1)
        >>> cross_channel_norm_layer(input=conv).size
        256
    """
    _check_layer_args('cross_channel_norm_layer', locals())
    _check_param_attr(param_attr, 'cross_channel_norm_layer')
    if input.num_filters is None:
        raise ConfigError("cross_channel_norm_layer: input '%s' does not "
                          "carry a channel count (use an image layer)" %
                          input.name)
    Layer(
        name=name,
        type=LayerType.NORM_LAYER,
        inputs=[
            Input(
                input.name,
                norm=cp.Norm(norm_type='cross-channel-norm',
                             channels=input.num_filters, size=input.size,
                             scale=0, pow=0, blocked=0),
                **param_attr.attr)
        ])
    return LayerOutput(name, LayerType.NORM_LAYER, parents=[input],
                       num_filters=input.num_filters, size=input.size)


@wrap_name_default('priorbox')
def priorbox_layer(input, image, aspect_ratio, variance, min_size,
                   max_size=[], name=None):
    """SSD prior (default) boxes for every position of a feature map (v0.10).

    For each cell of the feature map ``input`` and each prior (one per
    ``min_size``, one per ``max_size`` and two per aspect ratio, ratio ``r`` and
    ``1 / r``), it outputs the box ``[xmin, ymin, xmax, ymax]`` relative to the
    ``image`` (in ``[0, 1]``), then the 4 ``variance`` values. ``image`` must be a
    data layer with height and width. No parameters, no gradient. Creates an engine
    layer of type ``priorbox``.

    Args:
        input (LayerOutput): the feature map (an image layer).
        image (LayerOutput): the input image data layer.
        aspect_ratio (list of float): aspect ratios besides 1.
        variance (list of float): the 4 variances written with each box.
        min_size (list of int): minimum box sizes, in pixels.
        max_size (list of int, default []): maximum box sizes, in pixels.
        name (str, optional): layer name; ``__priorbox_N__`` when omitted.

    Returns:
        LayerOutput: the boxes, ``2 * H * W * num_filters`` wide, with
        ``num_filters = (2 * len(aspect_ratio) + 1 + len(max_size)) * 4``.

    Example:
        >>> img = data_layer(name='img', size=3 * 32 * 32, height=32, width=32)
        >>> feat = img_conv_layer(input=img, filter_size=3, num_filters=8,
        ...                       num_channels=3, stride=4)
        >>> boxes = priorbox_layer(input=feat, image=img, aspect_ratio=[2.0],
        ...                        variance=[0.1, 0.1, 0.2, 0.2], min_size=[8])
        >>> boxes.num_filters
        12
    """
    _check_layer_args('priorbox_layer', locals())
    if input.num_filters is None or input.size is None:
        raise ConfigError("priorbox_layer: input '%s' does not carry a "
                          "channel count (use an image layer)" % input.name)
    num_filters = (len(aspect_ratio) * 2 + 1 + len(max_size)) * 4
    size = (input.size // input.num_filters) * num_filters * 2
    Layer(
        name=name,
        type=LayerType.PRIORBOX_LAYER,
        inputs=[input.name, image.name],
        size=size,
        min_size=min_size,
        max_size=max_size,
        aspect_ratio=aspect_ratio,
        variance=variance)
    return LayerOutput(name, LayerType.PRIORBOX_LAYER,
                       parents=[input, image], num_filters=num_filters,
                       size=size)


@wrap_bias_attr_default()
@wrap_param_attr_default(
    default_factory=lambda _: ParamAttr(initial_mean=1.0, initial_std=0.))
@wrap_act_default(act=ReluActivation())
@wrap_name_default('batch_norm')
@layer_support(DROPOUT)
def batch_norm_layer(input, act=None, name=None, num_channels=None,
                     bias_attr=None, param_attr=None, layer_attr=None,
                     batch_norm_type=None,
                     moving_average_fraction=spec('batch_norm').defaults['moving_average_fraction'],
                     use_global_stats=None):
    """Batch normalisation: ``y = act(w * (x - mean) / sqrt(var + 1e-5) + b)``.

    For images the statistics are per channel (over the samples and pixels of the
    batch), otherwise per column. Training uses the batch's statistics and updates
    moving averages ``m = m * moving_average_fraction + batch * (1 - fraction)``;
    testing (or ``use_global_stats=True``) uses the moving averages. ``w`` starts at
    1 and ``b`` at 0. The output has the input's shape and channel count. Creates an
    engine layer of type ``batch_norm``, or ``cudnn_batch_norm`` when the config
    is parsed with ``use_gpu=1`` and ``cudnn_version`` >= 4007 (unless
    ``batch_norm_type='batch_norm'``).

    Args:
        input (LayerOutput): the input (often a conv or fc layer with a linear
            activation).
        act (BaseActivation, optional): activation, ``ReluActivation()`` when
            omitted.
        name (str, optional): layer name; ``__batch_norm_N__`` when omitted.
        num_channels (int, optional): channels; the input's channel count, or its
            width for a non-image input.
        bias_attr (ParameterAttribute | bool, optional): attributes of ``b``.
        param_attr (ParameterAttribute, optional): attributes of ``w`` (initial
            mean 1, std 0 by default).
        layer_attr (ExtraLayerAttribute, optional): extra settings (``drop_rate``,
            ``device``).
        batch_norm_type (str, optional): ``'batch_norm'`` forces the plain layer;
            None or ``'cudnn_batch_norm'`` lets the parse settings choose.
        moving_average_fraction (float, default 0.9): weight of the old value in
            the moving averages.
        use_global_stats (bool, optional): use the moving averages also in
            training; by default, batch statistics in training and moving averages
            in testing.

    Returns:
        LayerOutput: the normalised layer, of the input's width.

    Example:
        >>> img = data_layer(name='img', size=3 * 8 * 8, height=8, width=8)
        >>> conv = img_conv_layer(input=img, filter_size=3, num_filters=4,
        ...                       num_channels=3, padding=1, act=LinearActivation())
        >>> bn = batch_norm_layer(input=conv)
        >>> bn.size, bn.num_filters
        (256, 4)
    """
    _check_layer_args('batch_norm_layer', locals())
    if num_channels is None:
        num_channels = input.num_filters if input.num_filters is not None \
            else input.size
    if batch_norm_type not in (None, 'batch_norm', 'cudnn_batch_norm'):
        raise ConfigError("batch_norm_layer: batch_norm_type must be None, "
                          "'batch_norm' or 'cudnn_batch_norm'")
    l = Layer(
        name=name,
        inputs=Input(input.name, image=cp.Image(channels=num_channels),
                     **param_attr.attr),
        active_type=act.name,
        type=LayerType.BATCH_NORM_LAYER,
        batch_norm_type=batch_norm_type,
        bias=_bias(bias_attr),
        moving_average_fraction=moving_average_fraction,
        use_global_stats=use_global_stats,
        **_extra(layer_attr))
    return LayerOutput(name=name, layer_type=LayerType.BATCH_NORM_LAYER,
                       parents=[input], activation=act,
                       num_filters=num_channels, size=l.config.size)


@wrap_name_default()
@layer_support()
def block_expand_layer(input, block_x=_BLOCK_EXPAND['block_x'], block_y=_BLOCK_EXPAND['block_y'],
                       stride_x=_BLOCK_EXPAND['stride_x'], stride_y=_BLOCK_EXPAND['stride_y'],
                       padding_x=_BLOCK_EXPAND['padding_x'], padding_y=_BLOCK_EXPAND['padding_y'], num_channels=None,
                       name=None, layer_attr=None, channel=None):
    """Turns each image into a sequence of blocks (im2col).

    A ``block_y x block_x`` window moves over the image by ``stride_y`` /
    ``stride_x`` (with zero padding); each position becomes one time step holding
    the block's ``C * block_y * block_x`` values (channel-major). The output is a
    sequence of ``out_h * out_w`` steps per image, with
    ``out = ceil((in + 2 * padding - block) / stride) + 1`` (as v1), so image
    features can feed sequence layers (e.g. an RNN for OCR). Creates an engine layer
    of type ``blockexpand``.

    Args:
        input (LayerOutput): the images.
        block_x (int, default 0): block width; must be given (positive).
        block_y (int, default 0): block height; must be given (positive).
        stride_x (int, default 0): horizontal step; must be given (positive).
        stride_y (int, default 0): vertical step; must be given (positive).
        padding_x (int, default 0): horizontal padding.
        padding_y (int, default 0): vertical padding.
        num_channels (int, optional): input channels; taken from an image layer
            input, required for a data layer.
        name (str, optional): layer name; ``__block_expand_layer_N__`` when omitted.
        layer_attr (ExtraLayerAttribute, optional): extra settings (``device``).
        channel (int, optional): b0 spelling of ``num_channels``.

    Returns:
        LayerOutput: the sequence of blocks, ``C * block_y * block_x`` wide.

    Example:
        >>> img = data_layer(name='img', size=1 * 8 * 8, height=8, width=8)
        >>> blocks = block_expand_layer(input=img, num_channels=1, block_x=4,
        ...                             block_y=4, stride_x=4, stride_y=4)
        >>> blocks.size
        16
    """
    _check_layer_args('block_expand_layer', locals())
    if channel and num_channels is None:
        num_channels = channel
    num_channels = _img_channels(input, num_channels, 'block_expand_layer')
    l = Layer(
        name=name,
        inputs=Input(
            input.name,
            block_expand=cp.BlockExpand(
                channels=num_channels,
                block_x=block_x,
                block_y=block_y,
                stride_x=stride_x,
                stride_y=stride_y,
                padding_x=padding_x,
                padding_y=padding_y)),
        type=LayerType.BLOCK_EXPAND,
        **_extra(layer_attr))
    return LayerOutput(name, LayerType.BLOCK_EXPAND, parents=[input],
                       size=l.config.size)


@wrap_name_default()
@layer_support()
def maxout_layer(input, groups, num_channels=None, name=None,
                 layer_attr=None):
    """Maxout over channels: the maximum of each group of ``groups`` consecutive
    channels.

    Output channel ``k`` at each pixel is ``max(x[k * groups], ...,
    x[k * groups + groups - 1])``, so the output has ``C / groups`` channels of the
    same height and width. Creates an engine layer of type ``maxout``.

    Args:
        input (LayerOutput): the images.
        groups (int): channels per group; must divide the channel count.
        num_channels (int, optional): input channels; taken from an image layer
            input, required for a data layer.
        name (str, optional): layer name; ``__maxout_layer_N__`` when omitted.
        layer_attr (ExtraLayerAttribute, optional): extra settings (``device``).

    Returns:
        LayerOutput: the maxout maps, ``C / groups * H * W`` wide.

    Example:
        >>> img = data_layer(name='img', size=16 * 8 * 8, height=8, width=8)
        >>> out = maxout_layer(input=img, groups=4, num_channels=16)
        >>> out.size, out.num_filters
        (256, 4)
    """
    _check_layer_args('maxout_layer', locals())
    num_channels = _img_channels(input, num_channels, 'maxout_layer')
    l = Layer(
        name=name,
        inputs=Input(input.name,
                     maxout=cp.MaxOut(channels=num_channels, groups=groups)),
        type=LayerType.MAXOUT,
        **_extra(layer_attr))
    return LayerOutput(name, LayerType.MAXOUT, parents=[input],
                       num_filters=num_channels // groups,
                       size=l.config.size)


@wrap_name_default()
@layer_support()
def bilinear_interp_layer(input, out_size_x=None, out_size_y=None,
                          name=None, layer_attr=None):
    """Resizes every channel with bilinear interpolation.

    Each channel becomes ``out_size_y x out_size_x`` (corners aligned: the ratio is
    ``(in - 1) / (out - 1)``); the channel count is kept. The input must be an image
    layer carrying a channel count. Creates an engine layer of type
    ``bilinear_interp``.

    Args:
        input (LayerOutput): an image layer.
        out_size_x (int): output width.
        out_size_y (int): output height.
        name (str, optional): layer name; ``__bilinear_interp_layer_N__`` when
            omitted.
        layer_attr (ExtraLayerAttribute, optional): extra settings (``device``).

    Returns:
        LayerOutput: the resized images, ``C * out_size_y * out_size_x`` wide.

    Example:
        >>> img = data_layer(name='img', size=3 * 8 * 8, height=8, width=8)
        >>> conv = img_conv_layer(input=img, filter_size=3, num_filters=4,
        ...                       num_channels=3, padding=1)
        >>> bilinear_interp_layer(input=conv, out_size_x=16, out_size_y=16).size
        1024
    """
    _check_layer_args('bilinear_interp_layer', locals())
    num_channels = _img_channels(input, None, 'bilinear_interp_layer')
    l = Layer(
        name=name,
        inputs=Input(
            input.name,
            bilinear_interp=cp.BilinearInterp(
                out_size_x=out_size_x,
                out_size_y=out_size_y,
                channels=num_channels)),
        type=LayerType.BILINEAR_INTERP_LAYER,
        **_extra(layer_attr))
    return LayerOutput(name, LayerType.BILINEAR_INTERP_LAYER,
                       parents=[input], num_filters=num_channels,
                       size=l.config.size)


@wrap_name_default('pad')
@layer_support()
def pad_layer(input, pad_c=None, pad_h=None, pad_w=None, name=None,
              layer_attr=None):
    """Zero-pads images along channels, height and width.

    Each of ``pad_c``, ``pad_h``, ``pad_w`` is a ``[before, after]`` pair of counts
    of zero channels / rows / columns added. The output has
    ``C + pad_c[0] + pad_c[1]`` channels of ``(H + pad_h[0] + pad_h[1]) x
    (W + pad_w[0] + pad_w[1])``. The input must be an image layer carrying a channel
    count. Creates an engine layer of type ``pad``.

    Args:
        input (LayerOutput): an image layer.
        pad_c (list of int, optional): ``[before, after]`` channels; none when omitted.
        pad_h (list of int, optional): ``[before, after]`` rows; none when omitted.
        pad_w (list of int, optional): ``[before, after]`` columns; none when omitted.
        name (str, optional): layer name; ``__pad_N__`` when omitted.
        layer_attr (ExtraLayerAttribute, optional): extra settings (``device``).

    Returns:
        LayerOutput: the padded images.

    Example:
        >>> img = data_layer(name='img', size=3 * 8 * 8, height=8, width=8)
        >>> conv = img_conv_layer(input=img, filter_size=3, num_filters=4,
        ...                       num_channels=3, padding=1)
        >>> padded = pad_layer(input=conv, pad_c=[1, 1], pad_h=[1, 1], pad_w=[1, 1])
        >>> padded.num_filters, padded.size
        (6, 600)
    """
    _check_layer_args('pad_layer', locals())
    pads = []
    for what, p in (('pad_c', pad_c), ('pad_h', pad_h), ('pad_w', pad_w)):
        if p is None:
            p = [0, 0]
        if not isinstance(p, (list, tuple)) or len(p) != 2:
            raise ConfigError('pad_layer: %s must be a [before, after] pair'
                              % what)
        pads.append(list(p))
    num_channels = _img_channels(input, None, 'pad_layer')
    l = Layer(
        name=name,
        type=LayerType.PAD_LAYER,
        inputs=Input(input.name,
                     pad=cp.Pad(channels=num_channels, pad_c=pads[0],
                                pad_h=pads[1], pad_w=pads[2])),
        **_extra(layer_attr))
    return LayerOutput(name, LayerType.PAD_LAYER, parents=[input],
                       num_filters=num_channels + pads[0][0] + pads[0][1],
                       size=l.config.size)


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
