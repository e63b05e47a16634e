"""PoolLayers.cpp: image pooling, spatial pyramid pooling, maxout."""
from .base import LayerSpec

SPECS = [
    LayerSpec('pool', 'pool', defaults={'ceil_mode': True}, helpers={
        'img_pool_layer': 'input:layer pool_size:int name:str num_channels:int pool_type:pooling '
                          'stride:int padding:int layer_attr:extra_attr pool_size_y:int '
                          'stride_y:int padding_y:int ceil_mode:bool start:any'}),
    LayerSpec('spp', 'pool', helpers={
        'spp_layer': 'input:layer name:str num_channels:int pool_type:pooling pyramid_height:int '
                     'layer_attr:extra_attr'}),
    LayerSpec('maxout', 'pool', helpers={
        'maxout_layer': 'input:layer groups:int num_channels:int name:str layer_attr:extra_attr'}),
]
