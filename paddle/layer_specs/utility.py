"""UtilityLayers.cpp: a named output of another layer, and printing."""
from .base import LayerSpec

SPECS = [
    LayerSpec('get_output', 'utility', inputs=1, helpers={
        'get_output_layer': 'input:layer arg_name:str name:str layer_attr:extra_attr'}),
    LayerSpec('print', 'utility', helpers={'print_layer': 'input:layers name:str'}),
]
