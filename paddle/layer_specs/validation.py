"""ValidationLayers.cpp: layers that only compute a statistic (raw API, no helper)."""
from .base import LayerSpec, proto_default

# their parser classes are the costs' (layers_cost.define_cost), which take a coeff
SPECS = [
    LayerSpec('auc-validation', 'validation', defaults={'coeff': proto_default('coeff')}),
    LayerSpec('pnpair-validation', 'validation', defaults={'coeff': proto_default('coeff')}),
]
