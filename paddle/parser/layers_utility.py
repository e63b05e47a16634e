"""get_output and print layers (UtilityLayers.cpp in the engine)."""

from .errors import config_assert
from .registry import config_layer
from .layer_base import LayerBase
# moved to their engine families' modules; still importable from here
from .layers_image import DataNormLayer, PriorBoxLayer, RotateLayer  # noqa: F401
from .layers_prelu import ParameterReluLayer  # noqa: F401


@config_layer('get_output')
class GetOutputLayer(LayerBase):
    def __init__(self, name, size, inputs):
        LayerBase.__init__(self, name, 'get_output', size, inputs)
        config_assert(self.inputs[0].input_layer_argument,
                      'get_output needs arg_name')


@config_layer('print')
class PrintLayer(LayerBase):
    def __init__(self, name, inputs):
        LayerBase.__init__(self, name, 'print', 0, inputs)
