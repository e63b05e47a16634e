"""DataLayer.cpp: the network's inputs."""
from .base import LayerSpec

SPECS = [
    LayerSpec('data', 'data', inputs=0, size='arg',
              helpers={'data_layer': 'name:str size:int height:int width:int layer_attr:extra_attr'}),
]
