"""Engine tests. Layer tests follow the engine's files:
test_layers_fc.py (FullyConnectedLayer.cpp: selective_fc; fc in test_gradient_check.py),
test_layers_costs.py + test_layers_costs_structured.py (CostLayers.cpp), test_layers_crf_ctc.py
(CRFLayers.cpp, CTCLayers.cpp), test_layers_conv.py and test_conv_layout.py (ConvLayers.cpp; v0.10's
filter layout), test_layers_pool.py (PoolLayers.cpp), test_layers_norm.py (NormLayers.cpp), test_layers_image.py (ImageLayers.cpp),
test_layers_elementwise.py (ElementwiseLayers.cpp, PReluLayer.cpp), test_layers_mixed.py (MixedLayer.cpp,
Projections.cpp), test_layers_sequence.py (SequenceLayers.cpp), test_recurrent_layers.py
(LstmLayers.cpp, GruLayers.cpp, RecurrentLayers.cpp), test_layers_utility.py (UtilityLayers.cpp), test_recurrent_group.py,
test_recurrent_group_nested.py and test_generation.py (trainer/RecurrentGroup*.cpp), test_optimizers.py (trainer/Optimizers.cpp),
test_evaluators.py (trainer/Evaluator.cpp), test_trainer.py (trainer/Trainer.cpp); test_layer_registry.py: every type the parser emits has one."""
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)  # netbuilder

import netbuilder  # noqa: E402


def pytest_collection_modifyitems(config, items):
    if netbuilder.ON_GPU and netbuilder.GPU_COUNT == 0:
        skip = pytest.mark.skip(reason="PADDLE_TEST_USE_GPU=1 but no GPU is visible (%s)" % (
            "engine built without CUDA" if not netbuilder.api.isGpuVersion() else "no CUDA device"))
        for item in items:
            item.add_marker(skip)
