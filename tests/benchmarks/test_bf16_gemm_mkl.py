"""benchmarks/bf16_gemm_mkl.py: it compiles against the in-place engine and MKL and prints one
row per product; without MKL it says how to get it instead of failing in the compiler."""
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "benchmarks", "bf16_gemm_mkl.py")
ENGINE = os.path.join(ROOT, "py_paddle", "libpaddle_engine.so")


def test_without_mkl_it_names_the_wheels(tmp_path):
    p = subprocess.run([sys.executable, SCRIPT, "--mkl", str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert p.returncode != 0
    if os.path.exists(ENGINE):
        assert "pip install mkl==2026.2.0 mkl-include==2026.2.0" in p.stderr
    else:
        assert "build the engine in place first" in p.stderr


def test_with_mkl_every_product_has_a_row():
    prefix = os.environ.get("PADDLE_TEST_MKL_PREFIX", sys.prefix)
    if not os.path.exists(os.path.join(prefix, "include", "mkl.h")) or not os.path.exists(ENGINE):
        pytest.skip("needs MKL (pip install mkl mkl-include, or PADDLE_TEST_MKL_PREFIX) and an in-place engine build")
    p = subprocess.run([sys.executable, SCRIPT, "--mkl", prefix], capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    rows = [line for line in p.stdout.splitlines() if line.startswith("| ") and "GMAC" not in line]
    assert len(rows) == 9
    for row in rows:
        cells = [c.strip() for c in row.strip("|").split("|")]
        ours, mkl, max_diff = float(cells[2]), float(cells[3]), float(cells[6])
        assert ours > 0 and mkl > 0
        assert max_diff < 1e-3  # the same bf16 inputs summed in fp32: orders differ, values do not
