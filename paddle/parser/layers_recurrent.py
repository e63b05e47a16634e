"""Recurrent layers: lstmemory, gated_recurrent, recurrent and their step layers
(RecurrentLayers.cpp)."""

from paddle.layer_specs import spec

from .errors import config_assert
from .registry import config_layer
from .layer_base import LayerBase

# defaults: each type's spec (paddle/layer_specs); the helpers call `reversed` `reverse`
_RECURRENT, _LSTM, _LSTM_STEP = spec('recurrent').defaults, spec('lstmemory').defaults, spec('lstm_step').defaults
_GRU, _GRU_STEP = spec('gated_recurrent').defaults, spec('gru_step').defaults


@config_layer('recurrent')
class RecurrentLayer(LayerBase):
    def __init__(self, name, inputs, reversed=_RECURRENT['reverse'], bias=True, **xargs):
        LayerBase.__init__(self, name, 'recurrent', 0, inputs, **xargs)
        size = self.get_input_layer(0).size
        self.set_layer_size(size)
        self.config.reversed = reversed
        self.create_input_parameter(0, size * size, [size, size])
        self.create_bias_parameter(bias, self.config.size)


@config_layer('lstmemory')
class LstmLayer(LayerBase):
    def __init__(self,
                 name,
                 inputs,
                 reversed=_LSTM['reverse'],
                 active_gate_type=_LSTM['active_gate_type'],
                 active_state_type=_LSTM['active_state_type'],
                 bias=True,
                 **xargs):
        LayerBase.__init__(self, name, 'lstmemory', 0, inputs, **xargs)
        input_layer = self.get_input_layer(0)
        config_assert(
            input_layer.size % 4 == 0,
            "input '%s' has size %d, which is not 4 * hidden size (the input "
            "of lstmemory must be the 4*size gate projection)" %
            (input_layer.name, input_layer.size))
        size = input_layer.size // 4
        self.set_layer_size(size)
        self.config.reversed = reversed
        self.config.active_gate_type = active_gate_type
        self.config.active_state_type = active_state_type
        self.create_input_parameter(0, size * size * 4, [size, size, 4])
        self.create_bias_parameter(bias, size * 7)


@config_layer('lstm_step')
class LstmStepLayer(LayerBase):
    def __init__(self,
                 name,
                 size,
                 inputs,
                 active_gate_type=_LSTM_STEP['active_gate_type'],
                 active_state_type=_LSTM_STEP['active_state_type'],
                 bias=True,
                 **xargs):
        LayerBase.__init__(self, name, 'lstm_step', size, inputs, **xargs)
        a, b = self.get_input_layer(0), self.get_input_layer(1)
        config_assert(a.size == 4 * size,
                      "input '%s' has size %d, expected 4 * size = %d" %
                      (a.name, a.size, 4 * size))
        config_assert(b.size == size,
                      "state '%s' has size %d, expected size = %d" %
                      (b.name, b.size, size))
        self.config.active_gate_type = active_gate_type
        self.config.active_state_type = active_state_type
        self.create_bias_parameter(bias, size * 3)


@config_layer('gated_recurrent')
class GatedRecurrentLayer(LayerBase):
    def __init__(self,
                 name,
                 inputs,
                 reversed=_GRU['reverse'],
                 active_gate_type=_GRU['active_gate_type'],
                 bias=True,
                 **xargs):
        LayerBase.__init__(self, name, 'gated_recurrent', 0, inputs, **xargs)
        input_layer = self.get_input_layer(0)
        config_assert(
            input_layer.size % 3 == 0,
            "input '%s' has size %d, which is not 3 * hidden size (the input "
            "of grumemory must be the 3*size projection)" %
            (input_layer.name, input_layer.size))
        size = input_layer.size // 3
        self.set_layer_size(size)
        self.config.reversed = reversed
        self.config.active_gate_type = active_gate_type
        self.create_input_parameter(0, size * size * 3, [size, size * 3])
        self.create_bias_parameter(bias, size * 3)


@config_layer('gru_step')
class GruStepLayer(LayerBase):
    def __init__(self,
                 name,
                 size,
                 inputs,
                 active_gate_type=_GRU_STEP['active_gate_type'],
                 bias=True,
                 **xargs):
        LayerBase.__init__(self, name, 'gru_step', size, inputs, **xargs)
        a, b = self.get_input_layer(0), self.get_input_layer(1)
        config_assert(a.size == 3 * size,
                      "input '%s' has size %d, expected 3 * size = %d" %
                      (a.name, a.size, 3 * size))
        config_assert(b.size == size,
                      "output memory '%s' has size %d, expected %d" %
                      (b.name, b.size, size))
        self.config.active_gate_type = active_gate_type
        self.create_input_parameter(0, size * size * 3, [size, size * 3])
        self.create_bias_parameter(bias, size * 3)
