"""ValidationLayers.cpp: layers that only compute a statistic (raw API, no helper)."""
from .base import LayerSpec

SPECS = [
    LayerSpec('auc-validation', 'validation'),
    LayerSpec('pnpair-validation', 'validation'),
]
