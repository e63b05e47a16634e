"""LstmLayers.cpp: LSTM over a whole sequence, or one step."""
from .base import LayerSpec, proto_default

_GATES = {'active_gate_type': proto_default('active_gate_type'),
          'active_state_type': proto_default('active_state_type')}

SPECS = [
    LayerSpec('lstmemory', 'lstm', inputs=1, defaults=dict(_GATES, reverse=proto_default('reversed')), helpers={
        'lstmemory': 'input:layer name:str size:int reverse:bool act:act gate_act:act '
                     'state_act:act bias_attr:bias_attr param_attr:param_attr '
                     'layer_attr:extra_attr'}),
    LayerSpec('lstm_step', 'lstm', inputs=2, size='arg', defaults=_GATES, helpers={
        'lstm_step_layer': 'input:layer state:layer size:int act:act name:str gate_act:act '
                           'state_act:act bias_attr:bias_attr layer_attr:extra_attr'}),
]
