"""GruLayers.cpp: gated recurrent units (a whole sequence, or one step)."""
from .base import HelperSpec, LayerSpec, proto_default

_GATE = {'active_gate_type': proto_default('active_gate_type')}
_ATTRS = 'bias_attr:bias_attr param_attr:param_attr layer_attr:extra_attr'

SPECS = [
    LayerSpec('gru_step', 'gru', inputs=2, size='arg', defaults=_GATE, helpers={
        'gru_step_layer': 'input:layer output_mem:layer size:int act:act name:str gate_act:act '
                          + _ATTRS}),
    LayerSpec('gated_recurrent', 'gru', inputs=1, defaults=dict(_GATE, reverse=proto_default('reversed')), helpers={
        'grumemory': 'input:layer size:int name:str reverse:bool act:act gate_act:act ' + _ATTRS}),
]

# builds a GRU step out of mixed layers rather than one gru_step
HELPERS = [
    HelperSpec('gru_step_naive_layer', 'input:layer output_mem:layer size:int name:str act:act '
                                       'gate_act:act ' + _ATTRS, family='gru'),
]
