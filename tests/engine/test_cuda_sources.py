"""The CUDA kernels must keep compiling wherever nvcc exists, even without a GPU."""
import glob
import os
import shutil
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CU_FILES = sorted(glob.glob(os.path.join(ROOT, "layers", "**", "*.cu"), recursive=True)
                  + glob.glob(os.path.join(ROOT, "trainer", "*.cu")))
NVCC = shutil.which("nvcc")


def cublas_include():
    try:
        import nvidia
    except ImportError:
        nvidia = None
    for base in ([os.path.join(p, "cu13") for p in nvidia.__path__] if nvidia else []) + ["/usr/local/cuda"]:
        if os.path.exists(os.path.join(base, "include", "cublas_v2.h")):
            return os.path.join(base, "include")
    return None


def test_cuda_sources_exist():
    names = {os.path.basename(f) for f in CU_FILES}
    assert {"GpuRuntime.cu", "MathOps.cu", "Blas.cu", "Activation.cu", "Optimizers.cu"} <= names


@pytest.mark.skipif(NVCC is None, reason="nvcc not found: CUDA sources cannot be compile-checked")
@pytest.mark.parametrize("cu", CU_FILES, ids=lambda f: os.path.relpath(f, ROOT))
def test_cuda_source_compiles(cu, tmp_path):
    with open(cu) as f:
        needs_cublas = "cublas_v2.h" in f.read()
    inc = cublas_include()
    if needs_cublas and inc is None:
        pytest.skip("cuBLAS headers not installed (pip install nvidia-cublas)")
    cmd = [NVCC, "-std=c++17", "-O1", "-Xcompiler", "-fPIC", "-DWITH_CUDA=1", "--expt-relaxed-constexpr",
           "-gencode", "arch=compute_80,code=sm_80", "-c", cu, "-o", str(tmp_path / "out.o")]
    if inc:
        cmd[1:1] = ["-isystem", inc]
    p = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    assert p.returncode == 0, p.stderr[-4000:]
