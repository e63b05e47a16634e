"""ElementwiseLayers.cpp: per-row arithmetic with no sequence structure."""
from .base import LayerSpec, proto_default

_ONE = 'input:layer name:str layer_attr:extra_attr'
_WEIGHTED = 'input:layer weight:layer name:str layer_attr:extra_attr'
_COMB = 'weights:layer vectors:layer size:int name:str layer_attr:extra_attr input:layers'

SPECS = [
    LayerSpec('slope_intercept', 'elementwise', inputs=1, size='input',
              defaults={'slope': proto_default('slope'), 'intercept': proto_default('intercept')},
              helpers={'slope_intercept_layer': 'input:layer name:str slope:float intercept:float '
                                                'layer_attr:extra_attr'}),
    LayerSpec('clip', 'elementwise', inputs=1, size='input',
              helpers={'clip_layer': 'input:layer min:float max:float name:str'}),
    LayerSpec('scaling', 'elementwise', inputs=2, size='input:1',
              quirks=['weight_first', 'size_from_input_1'], helpers={'scaling_layer': _WEIGHTED}),
    LayerSpec('power', 'elementwise', inputs=2, size='input:1',
              quirks=['weight_first', 'size_from_input_1'], helpers={'power_layer': _WEIGHTED}),
    LayerSpec('interpolation', 'elementwise', inputs=3, helpers={
        'interpolation_layer': 'input:layers weight:layer name:str layer_attr:extra_attr'}),
    LayerSpec('cos', 'elementwise', inputs=2, size=1,
              defaults={'scale': proto_default('cos_scale')},
              helpers={'cos_sim': 'a:layer b:layer scale:float size:int name:str '
                                  'layer_attr:extra_attr'}),
    LayerSpec('cos_vm', 'elementwise', inputs=2, defaults={'scale': proto_default('cos_scale')}),
    LayerSpec('sum_to_one_norm', 'elementwise', inputs=1, size='input',
              helpers={'sum_to_one_norm_layer': _ONE}),
    LayerSpec('trans', 'elementwise', inputs=1, size='input', helpers={'trans_layer': _ONE}),
    LayerSpec('out_prod', 'elementwise', inputs=2, helpers={
        'out_prod_layer': 'input1:layer input2:layer name:str layer_attr:extra_attr'}),
    LayerSpec('tensor', 'elementwise', inputs=2, size='arg', helpers={
        'tensor_layer': 'a:layer b:layer size:int act:act name:str param_attr:param_attr '
                        'bias_attr:bias_attr layer_attr:extra_attr input:layers'}),
    LayerSpec('convex_comb', 'elementwise', inputs=2, helpers={
        'convex_comb_layer': _COMB, 'linear_comb_layer': _COMB}),
    LayerSpec('linear_comb', 'elementwise', quirks=['engine_only']),
    LayerSpec('conv_shift', 'elementwise', inputs=2, size='input', helpers={
        'conv_shift_layer': 'a:layer b:layer name:str layer_attr:extra_attr input:layers'}),
    LayerSpec('featmap_expand', 'elementwise', inputs=1, helpers={
        'repeat_layer': 'input:layer num_repeats:int name:str layer_attr:extra_attr'}),
    LayerSpec('maxid', 'elementwise', inputs=1, size='input', helpers={'maxid_layer': _ONE}),
    LayerSpec('sampling_id', 'elementwise', inputs=1, size='input',
              helpers={'sampling_id_layer': _ONE}),
]
