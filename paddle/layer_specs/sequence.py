"""SequenceLayers.cpp: sequence pooling, first/last instance, expansion,
concatenation and reshaping."""
from .base import LayerSpec

_INSTANCE = 'input:layer name:str agg_level:level stride:int layer_attr:extra_attr'

SPECS = [
    LayerSpec('max', 'sequence', inputs=1, size='input', helpers={
        'pooling_layer': 'input:layer pooling_type:pooling name:str bias_attr:bias_attr '
                         'agg_level:level stride:int layer_attr:extra_attr'}),
    LayerSpec('average', 'sequence', inputs=1, size='input'),
    LayerSpec('seqlastins', 'sequence', inputs=1, size='input', helpers={'last_seq': _INSTANCE, 'first_seq': _INSTANCE}),
    # the parser's name for seqlastins with select_first: its rules are seqlastins'
    LayerSpec('seqfirstins', 'sequence', quirks=['parser_only']),
    LayerSpec('expand', 'sequence', inputs=2, size='input', helpers={
        'expand_layer': 'input:layer expand_as:layer name:str bias_attr:bias_attr '
                        'expand_level:level layer_attr:extra_attr'}),
    LayerSpec('seqconcat', 'sequence', inputs=2, helpers={
        'seq_concat_layer': 'a:layer b:layer act:act name:str layer_attr:extra_attr '
                            'bias_attr:bias_attr'}),
    LayerSpec('seqreshape', 'sequence', inputs=1, size='arg', helpers={
        'seq_reshape_layer': 'input:layer reshape_size:int act:act name:str '
                             'layer_attr:extra_attr bias_attr:bias_attr'}),
]
