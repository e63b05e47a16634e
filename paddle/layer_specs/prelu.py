"""PReluLayer.cpp: parametric ReLU (raw API, no helper)."""
from .base import LayerSpec

SPECS = [
    LayerSpec('prelu', 'prelu', inputs=1, size='input', defaults={'partial_sum': 1}),
]
