"""CostLayers.cpp: costs comparing a prediction with a label, one value per sample."""
from .base import LayerSpec, proto_default

# every cost's coeff (its parser class takes one even where no helper does)
_COEFF = {'coeff': proto_default('coeff')}
_LABELLED = 'input:layer label:layer name:str coeff:float weight:layer layer_attr:extra_attr'

SPECS = [
    LayerSpec('multi-class-cross-entropy', 'cost', cost=True, size=1, defaults=_COEFF, helpers={
        'classification_cost': 'input:layer label:layer weight:layer name:str evaluator:callable '
                               'layer_attr:extra_attr top_k:int coeff:float',
        'cross_entropy': _LABELLED}),
    LayerSpec('square_error', 'cost', cost=True, size=1, defaults=_COEFF, helpers={
        'mse_cost': 'input:layer label:layer weight:layer name:str coeff:float layer_attr:extra_attr',
        'regression_cost': 'input:layer label:layer weight:layer name:str coeff:float '
                           'layer_attr:extra_attr'}),
    LayerSpec('smooth_l1', 'cost', cost=True, size=1, defaults=_COEFF, helpers={'smooth_l1_cost': _LABELLED}),
    LayerSpec('multi_class_cross_entropy_with_selfnorm', 'cost', cost=True,
              defaults=dict(_COEFF, softmax_selfnorm_alpha=proto_default('softmax_selfnorm_alpha')),
              helpers={
                  'cross_entropy_with_selfnorm': 'input:layer label:layer name:str coeff:float '
                                                 'softmax_selfnorm_alpha:float layer_attr:extra_attr'}),
    LayerSpec('multi_binary_label_cross_entropy', 'cost', cost=True, size=1, defaults=_COEFF,
              helpers={'multi_binary_label_cross_entropy': _LABELLED}),
    LayerSpec('soft_binary_class_cross_entropy', 'cost', cost=True, size=1, defaults=_COEFF),
    LayerSpec('huber', 'cost', cost=True, size=1, defaults=_COEFF, helpers={'huber_cost': _LABELLED}),
    LayerSpec('rank-cost', 'cost', cost=True, size=1, defaults=_COEFF, helpers={
        'rank_cost': 'left:layer right:layer label:layer weight:layer name:str coeff:float '
                     'layer_attr:extra_attr'}),
    LayerSpec('sum_cost', 'cost', cost=True, size=1, defaults=_COEFF,
              helpers={'sum_cost': 'input:layer name:str layer_attr:extra_attr'}),
]
