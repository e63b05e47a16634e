#!/usr/bin/env bash
# The engine under AddressSanitizer and UndefinedBehaviorSanitizer: builds it with
# PADDLE_SANITIZE=1 into build/asan (a directory of its own: the in-place build is left
# alone), then runs the engine, SWIG, distributed and fuzz smoke tests against that build
# (PADDLE_ENGINE_DIR, as tests/conftest.py reads it). Python is not built with ASan, so
# libasan is preloaded, with libstdc++ (ASan finds the real __cxa_throw only in a library
# loaded before it); leak checks are off (CPython keeps its objects until exit).
# Exits 1 when a sanitizer reports anything (reports: build/asan/reports), else 3 when a
# test fails (compare with the normal build: -O1 rounds differently from -O3), 2 when the
# build fails, else 0.
#   tools/sanitize.sh               build (only what is out of date), then test
#   tools/sanitize.sh --build-only  build only (.ci/run builds while the main tests run)
#   tools/sanitize.sh --no-build    test the build made before
# Cost (2 cores): a build from nothing ~6.5 min (-O1 -g; ConvLayers.cpp alone ~1.8 min), the
# tests ~5.5 min.
set -uo pipefail
cd "$(dirname "$0")/.."
out=build/asan
mode=${1:-all}
if [ "$mode" != "--no-build" ]; then
  PADDLE_SANITIZE=1 WITH_CUDA=0 python setup.py -q build_ext --build-temp "$out/tmp" --build-lib "$out/lib" || exit 2
  cp py_paddle/*.py "$out/lib/py_paddle/"
  [ "$mode" = "--build-only" ] && exit 0
fi
[ -e "$out/lib/py_paddle" ] || { echo "no sanitizer build in $out (run tools/sanitize.sh --build-only)"; exit 2; }
reports="$PWD/$out/reports"
rm -rf "$reports" && mkdir -p "$reports"

export PADDLE_ENGINE_DIR="$PWD/$out/lib"
export LD_PRELOAD="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libstdc++.so)"
# allocator_may_return_null: a huge requested size is std::bad_alloc (the engine names the
# layer), as without ASan; the reports go to files, so worker processes are covered too.
export ASAN_OPTIONS="detect_leaks=0:allocator_may_return_null=1:log_path=$reports/asan"
export UBSAN_OPTIONS="print_stacktrace=1:log_path=$reports/ubsan"

status=0
python -m pytest -q -p no:cacheprovider tests/engine -m "not slow" \
  -k "not cuda_source and not kernel_bodies and not loops_reversed and not fake_gpu" || status=3
python -m pytest -q -p no:cacheprovider tests/fuzz || status=3
# the SWIG API's call sequences and lifetimes, and the ranks under mpiexec (which pass the
# environment, so ASan, on to every rank)
# (less the two that compare this engine's bits with a `paddle train` of the normal build)
python -m pytest -q -p no:cacheprovider tests/swig tests/distributed -m "not slow" \
  -k "not equals_paddle_train" || status=3

# (A report file holding only "failed to allocate" warnings is a huge size refused as
# std::bad_alloc, as intended; errors say ERROR or "runtime error".)
found=$(grep -l -E "ERROR|runtime error" "$reports"/* 2>/dev/null)
if [ -n "$found" ]; then
  echo "sanitizer reports:"
  for f in $found; do echo "== $f"; head -40 "$f"; done
  exit 1
fi
[ $status = 0 ] && echo "no sanitizer reports" || echo "no sanitizer reports, but tests failed"
exit $status
