#!/usr/bin/env bash
# The GPU code paths on a machine without a GPU: builds the engine in place with
# PADDLE_FAKE_GPU=1 (engine/FakeGpu.cpp: GPU entry points run on the CPU, and device
# memory is mprotect'ed except inside kernels and copies), then runs the engine tests on
# that "GPU" (PADDLE_TEST_USE_GPU=1) and the digits demo with --use_gpu=1. Any host-side
# read or write of device data crashes with a segmentation fault at that point.
# Afterwards rebuild the normal engine: python setup.py build_ext --inplace
set -euo pipefail
cd "$(dirname "$0")/.."
export PADDLE_FAKE_GPU=1
python setup.py -q build_ext --inplace -t build/fake
PADDLE_TEST_USE_GPU=1 python -m pytest -q -p no:cacheprovider tests/engine \
  -k "not cuda_source and not kernel_bodies and not loops_reversed"
python -m pytest -q -p no:cacheprovider tests/engine/test_gpu.py tests/cli/test_gpu_demos.py -k "not lenet"
