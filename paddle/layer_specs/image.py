"""ImageLayers.cpp: image geometry (resize, block expansion, rotation, padding,
prior boxes)."""
from .base import LayerSpec

SPECS = [
    LayerSpec('bilinear_interp', 'image', helpers={
        'bilinear_interp_layer': 'input:layer out_size_x:int out_size_y:int name:str '
                                 'layer_attr:extra_attr'}),
    # 0: block and stride unset (the parser then refuses them), no padding
    LayerSpec('blockexpand', 'image', defaults=dict.fromkeys(
        ['block_x', 'block_y', 'stride_x', 'stride_y', 'padding_x', 'padding_y'], 0), helpers={
        'block_expand_layer': 'input:layer block_x:int block_y:int stride_x:int stride_y:int '
                              'padding_x:int padding_y:int num_channels:int name:str '
                              'layer_attr:extra_attr channel:int'}),
    LayerSpec('rotate', 'image', inputs=1, size='input', helpers={
        'rotate_layer': 'input:layer height:int width:int name:str layer_attr:extra_attr'}),
    LayerSpec('pad', 'image', helpers={
        'pad_layer': 'input:layer pad_c:any pad_h:any pad_w:any name:str layer_attr:extra_attr'}),
    LayerSpec('priorbox', 'image', inputs=2, helpers={
        'priorbox_layer': 'input:layer image:layer aspect_ratio:any variance:any min_size:any '
                          'max_size:any name:str'}),
]
