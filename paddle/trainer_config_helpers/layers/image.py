"""Image layers: conv, pool, spp, norms, batch_norm, block_expand, maxout,
bilinear_interp, pad, priorbox (ConvLayers.cpp, PoolLayers.cpp, NormLayers.cpp, ImageLayers.cpp)."""

import paddle.parser as cp

from paddle.parser import ConfigError, Input, Layer

from ..activations import ReluActivation
from ..attrs import ParamAttr
from ..default_decorators import (wrap_act_default, wrap_bias_attr_default, wrap_name_default,
                                  wrap_param_attr_default)
from ..poolings import AvgPooling, CudnnAvgPooling, CudnnMaxPooling, MaxPooling
from ..layer_output import (DROPOUT, LayerOutput, LayerType, _bias, _check_input,
                            _check_param_attr, _extra, _type_desc, layer_support)
from .projections import _pair


__all__ = [
    'img_conv_layer', 'img_pool_layer', 'spp_layer', 'img_cmrnorm_layer', 'batch_norm_layer',
    'block_expand_layer', 'maxout_layer', 'bilinear_interp_layer', 'pad_layer',
    'cross_channel_norm_layer', 'priorbox_layer', 'img_rnorm_layer'
]

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
    """2-D convolution (type exconv, or cudnn_conv with use_gpu=1)."""
    _check_input(input, 'input', 'img_conv_layer')
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
                   ceil_mode=True, start=None):
    """Max/average pooling over image windows. (`start` is the b0/b1
    spelling; like v0.9+ only start=None/0 is accepted.)"""
    if start:
        raise ConfigError('img_pool_layer: start is deprecated in pooling '
                          '(v0.9+); use padding')
    _check_input(input, 'input', 'img_pool_layer')
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
    """Spatial pyramid pooling."""
    _check_input(input, 'input', 'spp_layer')
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
    """Local response normalisation across channels (`blocked` is the b0
    spelling; it is written to norm_conf)."""
    _check_input(input, 'input', 'img_cmrnorm_layer')
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
    """b0 only (removed in b1): response normalisation within a channel,
    norm type 'rnorm' (stored scale = scale / size**2)."""
    _check_input(input, 'input', 'img_rnorm_layer')
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
    """v0.10 (SSD): L2-normalise each pixel across channels, then scale
    each channel by a learned weight (dims [C, 1])."""
    _check_input(input, 'input', 'cross_channel_norm_layer')
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
    """v0.10 (SSD): prior boxes for each position of the feature map
    `input` over the data layer `image` (which must have height/width).
    Output: 2 * (H*W of input) * num_filters values, num_filters =
    (2*len(aspect_ratio) + 1 + len(max_size)) * 4 (boxes, then
    variances)."""
    _check_input(input, 'input', 'priorbox_layer')
    _check_input(image, 'image', 'priorbox_layer')
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
                     batch_norm_type=None, moving_average_fraction=0.9,
                     use_global_stats=None):
    """Batch normalisation (per channel for images)."""
    _check_input(input, 'input', 'batch_norm_layer')
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
def block_expand_layer(input, block_x=0, block_y=0, stride_x=0, stride_y=0,
                       padding_x=0, padding_y=0, num_channels=None,
                       name=None, layer_attr=None, channel=None):
    """im2col: image -> sequence of block_x*block_y*C vectors.
    (`channel` is the b0 spelling of num_channels.)"""
    _check_input(input, 'input', 'block_expand_layer')
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
    _check_input(input, 'input', 'maxout_layer')
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
    _check_input(input, 'input', 'bilinear_interp_layer')
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
    """Zero padding of channels/height/width (each a [before, after])."""
    _check_input(input, 'input', 'pad_layer')
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
