"""FullyConnectedLayer.cpp: fc and selective fc."""
from .base import LayerSpec, proto_default

SPECS = [
    LayerSpec('fc', 'fully_connected', size='arg', helpers={
        'fc_layer': 'input:layers size:int act:act name:str param_attr:param_attr '
                    'bias_attr:bias_attr layer_attr:extra_attr'}),
    LayerSpec('selective_fc', 'fully_connected', size='arg',
              defaults={'pass_generation': proto_default('selective_fc_pass_generation'),
                        'has_selected_colums': proto_default('has_selected_colums'),
                        'mul_ratio': proto_default('selective_fc_full_mul_ratio')},
              helpers={
        'selective_fc_layer': 'input:layers size:int select:layer act:act name:str '
                              'pass_generation:bool has_selected_colums:bool mul_ratio:float '
                              'param_attr:param_attr bias_attr:bias_attr layer_attr:extra_attr'}),
]
