"""CRFLayers.cpp: linear-chain CRF cost and Viterbi decoding."""
from .base import LayerSpec, proto_default

SPECS = [
    LayerSpec('crf', 'crf', cost=True, inputs=(2, 3), size='arg',
              defaults={'coeff': proto_default('coeff')}, helpers={
        'crf_layer': 'input:layer label:layer size:int weight:layer param_attr:param_attr '
                     'name:str coeff:float layer_attr:extra_attr'}),
    LayerSpec('crf_decoding', 'crf', inputs=(0, 2), size='arg', helpers={
        'crf_decoding_layer': 'input:layer size:int label:layer param_attr:param_attr name:str '
                              'layer_attr:extra_attr'}),
]
