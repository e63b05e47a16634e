"""Image layers: conv/convt, norm, data_norm, pool, spp, pad, batch_norm, block_expand,
maxout, bilinear_interp, rotate, priorbox (ConvLayers.cpp, PoolLayers.cpp, NormLayers.cpp,
ImageLayers.cpp)."""

from paddle.layer_specs import proto_default, spec

from .errors import as_int, config_assert
from .registry import config_layer
from .state import state
from .image import (parse_bilinear, parse_block_expand, parse_conv, parse_image, parse_maxout, parse_norm, parse_pool, parse_spp)
from .inputs import Input
from .layer_base import LayerBase


def _use_gpu_type(device_set):
    use_gpu = int(state.command_config_args.get('use_gpu', 0))
    parallel_nn = int(state.command_config_args.get('parallel_nn', 0))
    return use_gpu == 1 and (parallel_nn == 0 or device_set)


@config_layer('conv')
class ConvLayerBase(LayerBase):
    layer_type = 'conv'

    def __init__(self, name, inputs=[], bias=True, num_filters=None,
                 shared_biases=proto_default('shared_biases'), **xargs):
        LayerBase.__init__(self, name, self.layer_type, 0, inputs=inputs,
                           **xargs)
        if num_filters is not None:
            self.config.num_filters = num_filters
        if self.layer_type == 'cudnn_conv':
            config_assert(
                int(state.command_config_args.get('use_gpu', 0)),
                'cudnn_conv needs use_gpu=1')
        if (self.layer_type != 'exconv' and
                _use_gpu_type(self.config.device > -1)):
            self.config.type = 'cudnn_conv'
        else:
            self.config.type = 'exconv'
        if shared_biases is not None:
            self.config.shared_biases = shared_biases
        for input_index in range(len(self.inputs)):
            input_layer = self.get_input_layer(input_index)
            conv_conf = self.config.inputs[input_index].conv_conf
            parse_conv(self.inputs[input_index].conv, input_layer.name,
                       conv_conf, num_filters)
            psize = (self.config.num_filters * conv_conf.filter_channels *
                     conv_conf.filter_size * conv_conf.filter_size_y)
            self.create_input_parameter(input_index, psize)
            self.set_cnn_layer(name, conv_conf.output_y, conv_conf.output_x,
                               self.config.num_filters)
        psize = self.config.size
        if shared_biases:
            psize = self.config.num_filters
        self.create_bias_parameter(bias, psize, [psize, 1])


@config_layer('exconv')
class ExConvLayer(ConvLayerBase):
    layer_type = 'exconv'


@config_layer('cudnn_conv')
class CudnnConvLayer(ConvLayerBase):
    layer_type = 'cudnn_conv'


@config_layer('convt')
class ConvTransLayerBase(LayerBase):
    layer_type = 'convt'

    def __init__(self, name, inputs=[], bias=True, num_filters=None,
                 shared_biases=proto_default('shared_biases'), **xargs):
        LayerBase.__init__(self, name, self.layer_type, 0, inputs=inputs,
                           **xargs)
        if num_filters is not None:
            self.config.num_filters = num_filters
        if (self.layer_type != 'exconvt' and
                _use_gpu_type(self.config.device > -1)):
            self.config.type = 'cudnn_convt'
        else:
            self.config.type = 'exconvt'
        if shared_biases is not None:
            self.config.shared_biases = shared_biases
        for input_index in range(len(self.inputs)):
            input_layer = self.get_input_layer(input_index)
            conv_conf = self.config.inputs[input_index].conv_conf
            parse_conv(
                self.inputs[input_index].conv,
                input_layer.name,
                conv_conf,
                num_filters,
                trans=True)
            psize = (conv_conf.channels * conv_conf.filter_channels *
                     conv_conf.filter_size * conv_conf.filter_size_y)
            self.create_input_parameter(input_index, psize)
            self.set_cnn_layer(name, conv_conf.img_size_y, conv_conf.img_size,
                               self.config.num_filters)
        psize = self.config.size
        if shared_biases:
            psize = self.config.num_filters
        self.create_bias_parameter(bias, psize, [psize, 1])


@config_layer('exconvt')
class ExConvTransLayer(ConvTransLayerBase):
    layer_type = 'exconvt'


@config_layer('cudnn_convt')
class CudnnConvTransLayer(ConvTransLayerBase):
    layer_type = 'cudnn_convt'


@config_layer('norm')
class NormLayer(LayerBase):
    def __init__(self, name, inputs, **xargs):
        LayerBase.__init__(self, name, 'norm', 0, inputs=inputs, **xargs)
        for input_index in range(len(self.inputs)):
            input_layer = self.get_input_layer(input_index)
            norm_conf = self.config.inputs[input_index].norm_conf
            parse_norm(self.inputs[input_index].norm, input_layer.name,
                       norm_conf)
            self.set_cnn_layer(name, norm_conf.output_y, norm_conf.output_x,
                               norm_conf.channels)
            if norm_conf.norm_type == 'cross-channel-norm':
                self.create_input_parameter(0, norm_conf.channels,
                                            [norm_conf.channels, 1])


@config_layer('pool')
class PoolLayer(LayerBase):
    def __init__(self, name, inputs, ceil_mode=spec('pool').defaults['ceil_mode'], **xargs):
        LayerBase.__init__(self, name, 'pool', 0, inputs=inputs, **xargs)
        for input_index in range(len(self.inputs)):
            input_layer = self.get_input_layer(input_index)
            pool_conf = self.config.inputs[input_index].pool_conf
            parse_pool(self.inputs[input_index].pool, input_layer.name,
                       pool_conf, ceil_mode)
            self.set_cnn_layer(name, pool_conf.output_y, pool_conf.output_x,
                               pool_conf.channels)


@config_layer('spp')
class SpatialPyramidPoolLayer(LayerBase):
    def __init__(self, name, inputs, **xargs):
        LayerBase.__init__(self, name, 'spp', 0, inputs=inputs, **xargs)
        for input_index in range(len(self.inputs)):
            input_layer = self.get_input_layer(input_index)
            spp_conf = self.config.inputs[input_index].spp_conf
            parse_spp(self.inputs[input_index].spp, input_layer.name,
                      spp_conf)
            output_x = (pow(4, spp_conf.pyramid_height) - 1) // (4 - 1)
            self.set_cnn_layer(name, 1, output_x,
                               spp_conf.image_conf.channels)


@config_layer('pad')
class PadLayer(LayerBase):
    def __init__(self, name, inputs, **xargs):
        LayerBase.__init__(self, name, 'pad', 0, inputs=inputs, **xargs)
        pad = self.inputs[0].pad
        self.config.inputs[0].pad_conf.pad_c.extend(pad.pad_c)
        self.config.inputs[0].pad_conf.pad_h.extend(pad.pad_h)
        self.config.inputs[0].pad_conf.pad_w.extend(pad.pad_w)
        input_layer = self.get_input_layer(0)
        image_conf = self.config.inputs[0].pad_conf.image_conf
        parse_image(pad, input_layer.name, image_conf)
        out_ch = pad.channels + pad.pad_c[0] + pad.pad_c[1]
        out_h = image_conf.img_size_y + pad.pad_h[0] + pad.pad_h[1]
        out_w = image_conf.img_size + pad.pad_w[0] + pad.pad_w[1]
        self.set_cnn_layer(name, out_h, out_w, out_ch)


_BATCH_NORM = spec('batch_norm').defaults  # shared with batch_norm_layer


@config_layer('batch_norm')
class BatchNormLayer(LayerBase):
    def __init__(self,
                 name,
                 inputs,
                 bias=True,
                 use_global_stats=True,
                 moving_average_fraction=_BATCH_NORM['moving_average_fraction'],
                 batch_norm_type=None,
                 **xargs):
        if inputs is None:
            inputs = []
        elif not isinstance(inputs, list):
            inputs = [inputs]
        config_assert(len(inputs) == 1, 'batch_norm needs exactly one input')
        use_gpu = bool(int(state.command_config_args.get('use_gpu', 0)))
        is_shared = not use_gpu
        for i in range(2):
            inputs.append(
                Input(
                    inputs[0].input_layer_name,
                    initial_std=0.0,
                    initial_mean=0.0,
                    is_static=True,
                    is_shared=is_shared,
                    make_layer_name_in_submodel=False))
        parallel_nn = bool(int(state.command_config_args.get('parallel_nn', 0)))
        cudnn_version = int(state.command_config_args.get('cudnn_version', 0))
        device = xargs.get('device')
        use_cudnn = (use_gpu and batch_norm_type != 'batch_norm' and
                     ((not parallel_nn) or (device is not None and
                                            device > -1)) and
                     cudnn_version >= 4007)
        layer_type = 'cudnn_batch_norm' if use_cudnn else 'batch_norm'
        LayerBase.__init__(self, name, layer_type, 0, inputs=inputs, **xargs)
        if use_global_stats is not None:
            self.config.use_global_stats = use_global_stats
        if moving_average_fraction is not None:
            self.config.moving_average_fraction = moving_average_fraction
        input_layer = self.get_input_layer(0)
        image_conf = self.config.inputs[0].image_conf
        parse_image(self.inputs[0].image, input_layer.name, image_conf)
        if input_layer.width != 0 or input_layer.height != 0:
            self.set_cnn_layer(name, image_conf.img_size_y,
                               image_conf.img_size, image_conf.channels)
        else:
            self.set_layer_size(input_layer.size)
        psize = image_conf.channels
        dims = [1, psize]
        self.create_input_parameter(0, psize)
        self.create_input_parameter(1, psize, dims)
        self.create_input_parameter(2, psize, dims)
        self.create_bias_parameter(bias, psize)


@config_layer('blockexpand')
class BlockExpandLayer(LayerBase):
    def __init__(self, name, inputs, **xargs):
        LayerBase.__init__(self, name, 'blockexpand', 0, inputs=inputs,
                           **xargs)
        for input_index in range(len(self.inputs)):
            input_layer = self.get_input_layer(input_index)
            parse_block_expand(
                self.inputs[input_index].block_expand, input_layer.name,
                self.config.inputs[input_index].block_expand_conf)
            c = self.config.inputs[input_index].block_expand_conf
            self.set_layer_size(c.block_x * c.block_y * c.channels)


@config_layer('maxout')
class MaxOutLayer(LayerBase):
    def __init__(self, name, inputs, **xargs):
        LayerBase.__init__(self, name, 'maxout', 0, inputs=inputs, **xargs)
        input_layer = self.get_input_layer(0)
        maxout_conf = self.config.inputs[0].maxout_conf
        parse_maxout(self.inputs[0].maxout, input_layer.name, maxout_conf)
        config_assert(
            maxout_conf.image_conf.channels % maxout_conf.groups == 0,
            'num_channels %d is not divisible by groups %d' %
            (maxout_conf.image_conf.channels, maxout_conf.groups))
        out_channels = maxout_conf.image_conf.channels // maxout_conf.groups
        self.set_cnn_layer(name, maxout_conf.image_conf.img_size_y,
                           maxout_conf.image_conf.img_size, out_channels)


@config_layer('bilinear_interp')
class BilinearInterpLayer(LayerBase):
    def __init__(self, name, inputs, **xargs):
        LayerBase.__init__(self, name, 'bilinear_interp', 0, inputs=inputs,
                           **xargs)
        input_layer = self.get_input_layer(0)
        conf = self.config.inputs[0].bilinear_interp_conf
        parse_bilinear(self.inputs[0].bilinear_interp, input_layer.name, conf)
        self.set_cnn_layer(name, conf.out_size_y, conf.out_size_x,
                           conf.image_conf.channels)


@config_layer('data_norm')
class DataNormLayer(LayerBase):
    def __init__(self, name, inputs, data_norm_strategy=spec('data_norm').defaults['data_norm_strategy'],
                 device=None):
        LayerBase.__init__(self, name, 'data_norm', 0, inputs=inputs,
                           device=device)
        self.config.data_norm_strategy = data_norm_strategy
        input_layer = self.get_input_layer(0)
        self.set_layer_size(input_layer.size)
        self.inputs[0].is_static = True
        self.create_input_parameter(0, 5 * input_layer.size,
                                    [5, input_layer.size])


@config_layer('rotate')
class RotateLayer(LayerBase):
    def __init__(self, name, inputs, height, width, device=None):
        LayerBase.__init__(self, name, 'rotate', 0, inputs=inputs,
                           device=device)
        self.set_layer_height_width(height, width)
        self.set_layer_size(self.get_input_layer(0).size)


@config_layer('priorbox')
class PriorBoxLayer(LayerBase):
    def __init__(self, name, inputs, size, min_size, max_size, aspect_ratio,
                 variance, device=None):
        LayerBase.__init__(self, name, 'priorbox', 0, inputs=inputs,
                           device=device)
        image = self.get_input_layer(1)
        config_assert(image.type == 'data', "priorbox: the second input "
                      "'%s' must be a data layer" % image.name)
        config_assert(image.width > 0 and image.height > 0,
                      "priorbox: data layer '%s' must set height and width"
                      % image.name)
        config_assert(len(variance) == 4,
                      'priorbox: variance must have 4 values, got %d' %
                      len(variance))
        conf = self.config.inputs[0].priorbox_conf
        conf.min_size.extend(min_size)
        conf.max_size.extend(max_size)
        conf.aspect_ratio.extend(aspect_ratio)
        conf.variance.extend(variance)
        self.config.size = as_int(size, 'priorbox size')
