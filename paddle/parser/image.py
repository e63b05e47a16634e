"""Image geometry: conv/pool/norm/... sub-configs and the size arithmetic v1 uses."""

import math

from paddle.layer_specs import spec

from .errors import config_assert
from .registry import Cfg, config_class, default
from .state import state

_BLOCK_EXPAND = spec('blockexpand').defaults  # shared with block_expand_layer


# image geometry


@config_class
class Conv(Cfg):
    def __init__(self,
                 filter_size,
                 channels,
                 padding=None,
                 stride=None,
                 groups=None,
                 filter_channels=None,
                 output_x=None,
                 img_size=None,
                 caffe_mode=True,
                 filter_size_y=None,
                 padding_y=None,
                 stride_y=None):
        self.add_keys(locals())
        if filter_size_y is None:
            self.filter_size_y = filter_size
        if padding_y is None:
            self.padding_y = padding
        if stride_y is None:
            self.stride_y = stride


@config_class
class BilinearInterp(Cfg):
    def __init__(self, out_size_x=None, out_size_y=None, channels=None):
        self.add_keys(locals())


@config_class
class Pool(Cfg):
    def __init__(self,
                 pool_type,
                 channels,
                 size_x,
                 size_y=None,
                 start=None,
                 stride=None,
                 stride_y=None,
                 padding=None,
                 padding_y=None):
        self.add_keys(locals())


@config_class
class SpatialPyramidPool(Cfg):
    def __init__(self, pool_type, pyramid_height, channels):
        self.add_keys(locals())


@config_class
class Pad(Cfg):
    def __init__(self, channels, pad_c, pad_h, pad_w):
        self.add_keys(locals())


@config_class
class Norm(Cfg):
    def __init__(self,
                 norm_type,
                 channels,
                 size,
                 scale,
                 pow,
                 output_x=None,
                 img_size=None,
                 blocked=None):
        self.add_keys(locals())


@config_class
class Image(Cfg):
    def __init__(self, channels, img_size=None):
        self.add_keys(locals())


@config_class
class BlockExpand(Cfg):
    def __init__(self,
                 channels,
                 padding_x=_BLOCK_EXPAND['padding_x'],
                 padding_y=_BLOCK_EXPAND['padding_y'],
                 stride_x=_BLOCK_EXPAND['stride_x'],
                 stride_y=_BLOCK_EXPAND['stride_y'],
                 block_x=_BLOCK_EXPAND['block_x'],
                 block_y=_BLOCK_EXPAND['block_y'],
                 img_size_x=0,
                 img_size_y=0,
                 output_x=0,
                 output_y=0):
        self.add_keys(locals())


@config_class
class MaxOut(Cfg):
    def __init__(self, channels, groups, img_size_x=0, img_size_y=0):
        self.add_keys(locals())


def cnn_output_size(img_size, filter_size, padding, stride, caffe_mode):
    output = (2 * padding + img_size - filter_size) / float(stride)
    if caffe_mode:
        return 1 + int(math.floor(output))
    return 1 + int(math.ceil(output))


def cnn_image_size(output_size, filter_size, padding, stride, caffe_mode):
    img_size = (output_size - 1) * stride + filter_size - 2 * padding
    if not caffe_mode:
        img_size = img_size + 1
    return img_size


def get_img_size(input_layer_name, channels):
    inp = state.layer_map[input_layer_name]
    config_assert(channels > 0,
                  'input %s: number of channels must be > 0, got %s' %
                  (input_layer_name, channels))
    config_assert(
        inp.size % channels == 0,
        "input layer '%s' has size %d, which is not a multiple of "
        "num_channels=%d" % (input_layer_name, inp.size, channels))
    img_pixels = inp.size // channels
    img_size = inp.width if inp.width > 0 else int(round(img_pixels**0.5))
    if img_size <= 0:
        img_size = 1
    img_size_y = inp.height if inp.height > 0 else img_pixels // img_size
    config_assert(
        img_size * img_size_y == img_pixels,
        "input layer '%s': image of %d pixels per channel (size %d / %d "
        "channels) is not %d x %d; give height/width to the data layer" %
        (input_layer_name, img_pixels, inp.size, channels, img_size,
         img_size_y))
    return img_size, img_size_y


def parse_image(image, input_layer_name, image_conf):
    image_conf.channels = image.channels
    image_conf.img_size, image_conf.img_size_y = get_img_size(
        input_layer_name, image_conf.channels)


def parse_bilinear(bilinear, input_layer_name, bilinear_conf):
    parse_image(bilinear, input_layer_name, bilinear_conf.image_conf)
    bilinear_conf.out_size_x = bilinear.out_size_x
    bilinear_conf.out_size_y = bilinear.out_size_y


def parse_pool(pool, input_layer_name, pool_conf, ceil_mode):
    pool_conf.pool_type = pool.pool_type
    config_assert(
        pool.pool_type in
        ['max-projection', 'avg-projection', 'cudnn-max-pool',
         'cudnn-avg-pool'], "pool type %s is not one of max-projection, "
        "avg-projection, cudnn-max-pool, cudnn-avg-pool" % pool.pool_type)
    pool_conf.channels = pool.channels
    pool_conf.size_x = pool.size_x
    pool_conf.stride = pool.stride
    pool_conf.size_y = default(pool.size_y, pool_conf.size_x)
    pool_conf.stride_y = default(pool.stride_y, pool_conf.stride)
    pool_conf.img_size, pool_conf.img_size_y = get_img_size(
        input_layer_name, pool.channels)
    config_assert(not pool.start, 'start is deprecated in pooling')
    if pool.padding is not None:
        pool_conf.padding = pool.padding
    pool_conf.padding_y = default(pool.padding_y, pool_conf.padding)
    pool_conf.output_x = cnn_output_size(pool_conf.img_size, pool_conf.size_x,
                                         pool_conf.padding, pool_conf.stride,
                                         not ceil_mode)
    pool_conf.output_y = cnn_output_size(
        pool_conf.img_size_y, pool_conf.size_y, pool_conf.padding_y,
        pool_conf.stride_y, not ceil_mode)


def parse_spp(spp, input_layer_name, spp_conf):
    parse_image(spp, input_layer_name, spp_conf.image_conf)
    spp_conf.pool_type = spp.pool_type
    config_assert(spp.pool_type in ['max-projection', 'avg-projection'],
                  'spp pool type %s is not max-projection or avg-projection'
                  % spp.pool_type)
    spp_conf.pyramid_height = spp.pyramid_height


def parse_norm(norm, input_layer_name, norm_conf):
    norm_conf.norm_type = norm.norm_type
    config_assert(
        norm.norm_type in ['rnorm', 'cmrnorm-projection',
                           'cross-channel-norm'],
        'norm type %s is not one of rnorm, cmrnorm-projection, '
        'cross-channel-norm' % norm.norm_type)
    norm_conf.channels = norm.channels
    norm_conf.size = norm.size
    norm_conf.scale = norm.scale
    norm_conf.pow = norm.pow
    norm_conf.blocked = bool(norm.blocked)
    norm_conf.img_size, norm_conf.img_size_y = get_img_size(
        input_layer_name, norm.channels)
    norm_conf.output_x = norm_conf.img_size
    norm_conf.output_y = norm_conf.img_size_y
    if norm.norm_type in ['cmrnorm-projection']:
        norm_conf.scale /= norm.size
    else:
        norm_conf.scale /= norm.size**2


def parse_conv(conv, input_layer_name, conv_conf, num_filters, trans=False):
    conv_conf.filter_size = conv.filter_size
    conv_conf.filter_size_y = conv.filter_size_y
    conv_conf.channels = conv.channels
    conv_conf.padding = conv.padding
    conv_conf.padding_y = conv.padding_y
    conv_conf.stride = conv.stride
    conv_conf.stride_y = conv.stride_y
    conv_conf.groups = conv.groups
    conv_conf.caffe_mode = conv.caffe_mode
    config_assert(conv.groups > 0 and conv.channels % conv.groups == 0,
                  'num_channels=%d is not divisible by groups=%d' %
                  (conv.channels, conv.groups))
    if not trans:
        conv_conf.filter_channels = conv.channels // conv.groups
        conv_conf.img_size, conv_conf.img_size_y = get_img_size(
            input_layer_name, conv.channels)
        conv_conf.output_x = cnn_output_size(
            conv_conf.img_size, conv_conf.filter_size, conv_conf.padding,
            conv_conf.stride, conv_conf.caffe_mode)
        conv_conf.output_y = cnn_output_size(
            conv_conf.img_size_y, conv_conf.filter_size_y,
            conv_conf.padding_y, conv_conf.stride_y, conv_conf.caffe_mode)
        config_assert(
            conv_conf.output_x > 0 and conv_conf.output_y > 0,
            'convolution of a %dx%d image with a %dx%d filter (padding %d, '
            'stride %d) has no output' %
            (conv_conf.img_size, conv_conf.img_size_y, conv_conf.filter_size,
             conv_conf.filter_size_y, conv_conf.padding, conv_conf.stride))
    else:
        conv_conf.filter_channels = num_filters // conv.groups
        conv_conf.output_x, conv_conf.output_y = get_img_size(
            input_layer_name, conv.channels)
        conv_conf.img_size = cnn_image_size(
            conv_conf.output_x, conv_conf.filter_size, conv_conf.padding,
            conv_conf.stride, conv_conf.caffe_mode)
        conv_conf.img_size_y = cnn_image_size(
            conv_conf.output_y, conv_conf.filter_size_y, conv_conf.padding_y,
            conv_conf.stride_y, conv_conf.caffe_mode)


def parse_block_expand(block_expand, input_layer_name, block_expand_conf):
    block_expand_conf.channels = block_expand.channels
    block_expand_conf.stride_x = block_expand.stride_x
    block_expand_conf.stride_y = block_expand.stride_y
    block_expand_conf.padding_x = block_expand.padding_x
    block_expand_conf.padding_y = block_expand.padding_y
    block_expand_conf.block_x = block_expand.block_x
    block_expand_conf.block_y = block_expand.block_y
    block_expand_conf.img_size_x = block_expand.img_size_x
    block_expand_conf.img_size_y = block_expand.img_size_y
    if block_expand_conf.img_size_x == 0:
        block_expand_conf.output_x = 0
    else:
        block_expand_conf.output_x = cnn_output_size(
            block_expand.img_size_x, block_expand.block_x,
            block_expand.padding_x, block_expand.stride_x, False)
    if block_expand_conf.img_size_y == 0:
        block_expand_conf.output_y = 0
    else:
        block_expand_conf.output_y = cnn_output_size(
            block_expand.img_size_y, block_expand.block_y,
            block_expand.padding_y, block_expand.stride_y, False)


def parse_maxout(maxout, input_layer_name, maxout_conf):
    parse_image(maxout, input_layer_name, maxout_conf.image_conf)
    maxout_conf.groups = maxout.groups


# ---------------------------------------------------------------------------
