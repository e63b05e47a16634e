"""get_output, print, data_norm, prelu, rotate and priorbox layers."""

from .errors import as_int, config_assert
from .registry import config_layer
from .layer_base import LayerBase


@config_layer('get_output')
class GetOutputLayer(LayerBase):
    def __init__(self, name, size, inputs):
        LayerBase.__init__(self, name, 'get_output', size, inputs)
        config_assert(self.inputs[0].input_layer_argument,
                      'get_output needs arg_name')


@config_layer('data_norm')
class DataNormLayer(LayerBase):
    def __init__(self, name, inputs, data_norm_strategy='z-score',
                 device=None):
        LayerBase.__init__(self, name, 'data_norm', 0, inputs=inputs,
                           device=device)
        self.config.data_norm_strategy = data_norm_strategy
        input_layer = self.get_input_layer(0)
        self.set_layer_size(input_layer.size)
        self.inputs[0].is_static = True
        self.create_input_parameter(0, 5 * input_layer.size,
                                    [5, input_layer.size])


@config_layer('prelu')
class ParameterReluLayer(LayerBase):
    def __init__(self, name, inputs, partial_sum=1, **args):
        LayerBase.__init__(self, name, 'prelu', 0, inputs=inputs, **args)
        input_layer = self.get_input_layer(0)
        config_assert(input_layer.size % partial_sum == 0,
                      'input size %d is not a multiple of partial_sum %d' %
                      (input_layer.size, partial_sum))
        self.set_layer_size(input_layer.size)
        self.config.partial_sum = partial_sum
        self.create_input_parameter(0, input_layer.size // partial_sum)


@config_layer('print')
class PrintLayer(LayerBase):
    def __init__(self, name, inputs):
        LayerBase.__init__(self, name, 'print', 0, inputs)


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
