"""RecurrentLayers.cpp: the plain full-matrix recurrent layer."""
from .base import LayerSpec, proto_default

SPECS = [
    LayerSpec('recurrent', 'recurrent', inputs=1, size='input',
              defaults={'reverse': proto_default('reversed')}, helpers={
        'recurrent_layer': 'input:layer act:act bias_attr:bias_attr param_attr:param_attr '
                           'name:str reverse:bool layer_attr:extra_attr'}),
]
