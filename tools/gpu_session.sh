#!/usr/bin/env bash
# The CUDA path checked end to end in one call on a lent GPU machine (no network
# there): run tools/fetch_gpu_wheels.sh here first, then through the device tool
#     run(command="bash tools/gpu_session.sh", carry=[".whl"])
# It installs the carried wheels, builds the engine WITH_CUDA=1 in place, runs
# the GPU tests, the engine suite with CPU/GPU parity, the gradient-check suite
# on the GPU and the GPU benchmarks against PyTorch. Logs land in $OUT.
set -uo pipefail
OUT=${OUT:-/tmp/gpu-session}
mkdir -p "$OUT"
cd "$(dirname "$0")/.."
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site PATH=/tmp/site/bin:$PATH PYTHONUNBUFFERED=1
nvidia-smi | tee "$OUT/nvidia-smi.txt"

step() {  # step NAME COMMAND...: runs it, keeps its log, reports its status
  local name=$1
  shift
  echo "== $name: $*"
  "$@" >"$OUT/$name.log" 2>&1
  local rc=$?
  echo "== $name: exit $rc"
  tail -5 "$OUT/$name.log"
}

step build env WITH_CUDA=1 PADDLE_BUILD_JOBS=16 python3 setup.py build_ext --inplace -t build/gpu
python3 -c "from py_paddle import swig_paddle as a; print('CUDA build:', a.isGpuVersion(), 'GPUs:', a.getGpuCount())"
step gpu_tests python3 -m pytest -q -rs tests/engine/test_gpu.py tests/cli/test_gpu_demos.py
step parity python3 -m pytest -q -x tests/engine -p no:cacheprovider
step gradcheck_on_gpu env PADDLE_TEST_USE_GPU=1 python3 -m pytest -q tests/engine -p no:cacheprovider
step bench python3 benchmarks/run.py --device gpu --bench mlp,lenet,lstm_text --threads 1 --json "$OUT/bench_gpu.json"
