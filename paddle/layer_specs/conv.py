"""ConvLayers.cpp: image convolution and its transpose."""
from .base import LayerSpec

_CONV = ('input:layer filter_size:any num_filters:int name:str num_channels:int act:act groups:int '
         'stride:int padding:int bias_attr:bias_attr param_attr:param_attr shared_biases:bool '
         'layer_attr:extra_attr filter_size_y:any stride_y:any padding_y:any trans:bool layer_type:str')

SPECS = [
    LayerSpec('exconv', 'conv', helpers={'img_conv_layer': _CONV}),
    LayerSpec('cudnn_conv', 'conv'),
    LayerSpec('exconvt', 'conv'),
    LayerSpec('cudnn_convt', 'conv'),
    LayerSpec('conv', 'conv', quirks=['parser_only']),
    LayerSpec('convt', 'conv', quirks=['parser_only']),
]
