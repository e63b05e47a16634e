"""MixedLayer.cpp: sums of projections and operators, concatenation, addition; the
projections and operators themselves (Projections.cpp) are its inputs."""
from .base import HelperSpec, LayerSpec

_PROJ = 'input:layer size:int param_attr:param_attr'
_CONV = ('filter_size:any num_filters:int num_channels:int stride:int padding:int '
         'filter_size_y:any stride_y:any padding_y:any')

SPECS = [
    LayerSpec('mixed', 'mixed', helpers={
        'mixed_layer': 'size:int input:objects name:str act:act bias_attr:bias_attr '
                       'layer_attr:extra_attr',
        'embedding_layer': 'input:layer size:int name:str param_attr:param_attr '
                           'layer_attr:extra_attr'}),
    LayerSpec('concat2', 'mixed'),
    LayerSpec('addto', 'mixed', inputs=(1, None), helpers={
        'addto_layer': 'input:layers act:act name:str bias_attr:bias_attr layer_attr:extra_attr'}),
    LayerSpec('concat', 'mixed', helpers={
        'concat_layer': 'input:objects act:act name:str layer_attr:extra_attr bias_attr:bias_attr'}),
]

# inputs of mixed_layer, not layers of their own
PROJECTIONS = [HelperSpec(n, a, family='mixed') for n, a in [
    ('full_matrix_projection', _PROJ),
    ('trans_full_matrix_projection', _PROJ),
    ('table_projection', _PROJ),
    ('identity_projection', 'input:layer offset:int size:int'),
    ('dotmul_projection', 'input:layer param_attr:param_attr scale:float'),
    ('scaling_projection', 'input:layer param_attr:param_attr'),
    ('dotmul_operator', 'a:layer b:layer scale:float'),
    ('context_projection', 'input:layer context_len:int context_start:int padding_attr:param_attr'),
    ('conv_projection', 'input:layer ' + _CONV + ' groups:int param_attr:param_attr trans:bool'),
    ('conv_operator', 'img:layer filter:layer ' + _CONV + ' trans:bool input:layers'),
]]
