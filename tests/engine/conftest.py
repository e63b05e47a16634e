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
