"""Parametric ReLU (PReluLayer.cpp in the engine)."""

from paddle.layer_specs import spec

from .errors import config_assert
from .registry import config_layer
from .layer_base import LayerBase


@config_layer('prelu')
class ParameterReluLayer(LayerBase):
    def __init__(self, name, inputs, partial_sum=spec('prelu').defaults['partial_sum'], **args):
        LayerBase.__init__(self, name, 'prelu', 0, inputs=inputs, **args)
        input_layer = self.get_input_layer(0)
        config_assert(input_layer.size % partial_sum == 0,
                      'input size %d is not a multiple of partial_sum %d' %
                      (input_layer.size, partial_sum))
        self.set_layer_size(input_layer.size)
        self.config.partial_sum = partial_sum
        self.create_input_parameter(0, input_layer.size // partial_sum)
