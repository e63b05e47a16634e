"""NormLayers.cpp: batch norm, response normalisation, data normalisation."""
from .base import LayerSpec, proto_default

SPECS = [
    LayerSpec('batch_norm', 'norm',
              defaults={'moving_average_fraction': proto_default('moving_average_fraction')},
              helpers={'batch_norm_layer': 'input:layer act:act name:str num_channels:int '
                                           'bias_attr:bias_attr param_attr:param_attr '
                                           'layer_attr:extra_attr batch_norm_type:str '
                                           'moving_average_fraction:float use_global_stats:bool'}),
    LayerSpec('cudnn_batch_norm', 'norm', quirks=['engine_only']),
    LayerSpec('norm', 'norm', helpers={
        'img_cmrnorm_layer': 'input:layer size:int scale:float power:float name:str '
                             'num_channels:int layer_attr:extra_attr blocked:int',
        'img_rnorm_layer': 'input:layer size:int scale:float power:float name:str '
                           'num_channels:int layer_attr:extra_attr',
        'cross_channel_norm_layer': 'input:layer name:str param_attr:param_attr'}),
    LayerSpec('data_norm', 'norm', inputs=1, size='input', defaults={'data_norm_strategy': 'z-score'}),
]
