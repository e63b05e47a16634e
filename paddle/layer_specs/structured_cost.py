"""StructuredCostLayers.cpp: costs over a structure (a tree of classes, a ranked
list, sampled negatives)."""
from .base import LayerSpec, proto_default

SPECS = [
    LayerSpec('hsigmoid', 'structured_cost', cost=True, inputs=(2, None), size=1, helpers={
        'hsigmoid': 'input:layers label:layer num_classes:int name:str bias_attr:bias_attr '
                    'param_attr:param_attr layer_attr:extra_attr'}),
    LayerSpec('lambda_cost', 'structured_cost', cost=True, inputs=2, size=1,
              defaults={'NDCG_num': proto_default('NDCG_num'),
                        'max_sort_size': proto_default('max_sort_size')},
              helpers={'lambda_cost': 'input:layer score:layer name:str NDCG_num:int '
                                      'max_sort_size:int layer_attr:extra_attr'}),
    LayerSpec('nce', 'structured_cost', cost=True, inputs=(2, None), size=1, quirks=['label_is_data'],
              defaults={'num_neg_samples': proto_default('num_neg_samples')},
              helpers={'nce_layer': 'input:layers label:layer num_classes:int act:act weight:layer '
                                    'num_neg_samples:int neg_distribution:any name:str '
                                    'bias_attr:bias_attr param_attr:param_attr layer_attr:extra_attr'}),
]
