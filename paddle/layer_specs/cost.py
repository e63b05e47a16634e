"""CostLayers.cpp: costs comparing a prediction with a label, one value per sample."""
from .base import LayerSpec

_LABELLED = 'input:layer label:layer name:str coeff:float weight:layer layer_attr:extra_attr'

SPECS = [
    LayerSpec('multi-class-cross-entropy', 'cost', cost=True, size=1, helpers={
        'classification_cost': 'input:layer label:layer weight:layer name:str evaluator:callable '
                               'layer_attr:extra_attr top_k:int coeff:float',
        'cross_entropy': _LABELLED}),
    LayerSpec('square_error', 'cost', cost=True, size=1, helpers={
        'mse_cost': 'input:layer label:layer weight:layer name:str coeff:float layer_attr:extra_attr',
        'regression_cost': 'input:layer label:layer weight:layer name:str coeff:float '
                           'layer_attr:extra_attr'}),
    LayerSpec('smooth_l1', 'cost', cost=True, size=1, helpers={'smooth_l1_cost': _LABELLED}),
    LayerSpec('multi_class_cross_entropy_with_selfnorm', 'cost', cost=True,
              defaults={'softmax_selfnorm_alpha': 0.1}, helpers={
                  'cross_entropy_with_selfnorm': 'input:layer label:layer name:str coeff:float '
                                                 'softmax_selfnorm_alpha:float layer_attr:extra_attr'}),
    LayerSpec('multi_binary_label_cross_entropy', 'cost', cost=True, size=1,
              helpers={'multi_binary_label_cross_entropy': _LABELLED}),
    LayerSpec('soft_binary_class_cross_entropy', 'cost', cost=True, size=1),
    LayerSpec('huber', 'cost', cost=True, size=1, helpers={'huber_cost': _LABELLED}),
    LayerSpec('rank-cost', 'cost', cost=True, size=1, helpers={
        'rank_cost': 'left:layer right:layer label:layer weight:layer name:str coeff:float '
                     'layer_attr:extra_attr'}),
    LayerSpec('sum_cost', 'cost', cost=True, size=1,
              helpers={'sum_cost': 'input:layer name:str layer_attr:extra_attr'}),
]
