"""LstmLayers.cpp: LSTM over a whole sequence, or one step."""
from .base import LayerSpec

SPECS = [
    LayerSpec('lstmemory', 'lstm', inputs=1, helpers={
        'lstmemory': 'input:layer name:str size:int reverse:bool act:act gate_act:act '
                     'state_act:act bias_attr:bias_attr param_attr:param_attr '
                     'layer_attr:extra_attr'}),
    LayerSpec('lstm_step', 'lstm', inputs=2, size='arg', helpers={
        'lstm_step_layer': 'input:layer state:layer size:int act:act name:str gate_act:act '
                           'state_act:act bias_attr:bias_attr layer_attr:extra_attr'}),
]
