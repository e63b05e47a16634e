"""CTCLayers.cpp: connectionist temporal classification costs."""
from .base import LayerSpec, proto_default

SPECS = [
    LayerSpec('ctc', 'ctc', cost=True, inputs=2, size='arg',
              defaults={'norm_by_times': proto_default('norm_by_times')}, helpers={
        'ctc_layer': 'input:layer label:layer size:int name:str norm_by_times:bool '
                     'layer_attr:extra_attr'}),
    LayerSpec('warp_ctc', 'ctc', cost=True, inputs=2, size='arg',
              defaults={'blank': proto_default('blank'),
                        'norm_by_times': proto_default('norm_by_times')},
              helpers={'warp_ctc_layer': 'input:layer label:layer size:int name:str blank:int '
                                         'norm_by_times:bool layer_attr:extra_attr'}),
]
