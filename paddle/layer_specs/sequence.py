"""SequenceLayers.cpp: sequence pooling, first/last instance, expansion,
concatenation and reshaping."""
from .base import LayerSpec, proto_default

_TRANS = {'trans_type': proto_default('trans_type')}  # 'non-seq': one output row per sequence
_INSTANCE = 'input:layer name:str agg_level:level stride:int layer_attr:extra_attr'

SPECS = [
    LayerSpec('max', 'sequence', inputs=1, size='input', defaults=_TRANS, helpers={
        'pooling_layer': 'input:layer pooling_type:pooling name:str bias_attr:bias_attr '
                         'agg_level:level stride:int layer_attr:extra_attr'}),
    LayerSpec('average', 'sequence', inputs=1, size='input',
              defaults=dict(_TRANS, average_strategy=proto_default('average_strategy'))),
    LayerSpec('seqlastins', 'sequence', inputs=1, size='input', defaults=_TRANS,
              helpers={'last_seq': _INSTANCE, 'first_seq': _INSTANCE}),
    # the parser's name for seqlastins with select_first: its rules are seqlastins'
    LayerSpec('seqfirstins', 'sequence', quirks=['parser_only']),
    LayerSpec('expand', 'sequence', inputs=2, size='input', defaults=_TRANS, helpers={
        'expand_layer': 'input:layer expand_as:layer name:str bias_attr:bias_attr '
                        'expand_level:level layer_attr:extra_attr'}),
    LayerSpec('seqconcat', 'sequence', inputs=2, helpers={
        'seq_concat_layer': 'a:layer b:layer act:act name:str layer_attr:extra_attr '
                            'bias_attr:bias_attr'}),
    LayerSpec('seqreshape', 'sequence', inputs=1, size='arg', helpers={
        'seq_reshape_layer': 'input:layer reshape_size:int act:act name:str '
                             'layer_attr:extra_attr bias_attr:bias_attr'}),
]
