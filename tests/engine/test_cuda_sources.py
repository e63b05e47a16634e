"""The CUDA code must keep compiling wherever nvcc exists, even without a GPU.

In CUDA builds setup.py compiles the .cu kernels and every engine .cpp with
nvcc (the PD_HD loop bodies of engine/math/Kernel.h become kernels). Here each
one goes through nvcc's front end and device code generation (-ptx), with calls
from device code to host-only functions as errors.
"""
import glob
import os
import re
import shutil
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _setup_list(name):
    """A tuple of source paths that setup.py assigns to `name`."""
    import ast
    tree = ast.parse(open(os.path.join(ROOT, "setup.py")).read())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == name for t in node.targets):
            return set(ast.literal_eval(node.value))
    raise AssertionError("setup.py has no %s" % name)


# setup.py sends every engine .cpp to nvcc except the MPI ones and the host-only CPU kernels
NOT_NVCC = _setup_list("MPI_SOURCES") | _setup_list("HOST_ONLY_SOURCES")
ENGINE_DIRS = ("engine", "layers", "trainer")  # setup.py's engine sources, all sent to nvcc in CUDA builds
CU_FILES = sorted(f for d in ENGINE_DIRS for f in glob.glob(os.path.join(ROOT, d, "**", "*.cu"), recursive=True))
ENGINE_CPP = sorted(f for d in ENGINE_DIRS for f in glob.glob(os.path.join(ROOT, d, "**", "*.cpp"), recursive=True)
                    if os.path.relpath(f, ROOT) not in NOT_NVCC)
NVCC = shutil.which("nvcc")


def rel(path):
    return os.path.relpath(path, ROOT)


def cublas_include():
    try:
        import nvidia
    except ImportError:
        nvidia = None
    for base in ([os.path.join(p, "cu13") for p in nvidia.__path__] if nvidia else []) + ["/usr/local/cuda"]:
        if os.path.exists(os.path.join(base, "include", "cublas_v2.h")):
            return os.path.join(base, "include")
    return None


def nccl_include():
    """nccl.h as setup.py's find_nccl finds it: NCCL_HOME, the nvidia-nccl-cu13 wheel, CUDA, the system."""
    try:
        import nvidia
    except ImportError:
        nvidia = None
    bases = [os.environ.get("NCCL_HOME")] + ([os.path.join(p, "nccl") for p in nvidia.__path__] if nvidia else [])
    for base in filter(None, bases + ["/usr/local/cuda", "/usr/local", "/usr"]):
        if os.path.exists(os.path.join(base, "include", "nccl.h")):
            return os.path.join(base, "include")
    return None


def test_cuda_sources_exist():
    names = {os.path.basename(f) for f in CU_FILES}
    assert {"GpuRuntime.cu", "MathOps.cu", "Blas.cu", "Activation.cu"} <= names


# nvcc over every engine source takes about 40 s of CPU: CI's whole suite runs it, the fast subset not
@pytest.mark.slow
@pytest.mark.skipif(NVCC is None, reason="nvcc not found: CUDA sources cannot be compile-checked")
@pytest.mark.parametrize("src", CU_FILES + ENGINE_CPP, ids=rel)
def test_cuda_source_compiles(src, tmp_path):
    with open(src) as f:
        needs_cublas = "cublas_v2.h" in f.read()
    inc = cublas_include()
    if needs_cublas and inc is None:
        pytest.skip("cuBLAS headers not installed (pip install nvidia-cublas)")
    import nlohmann_json
    import scipy_openblas32
    cmd = [NVCC, "-std=c++17", "-DWITH_CUDA=1", "--extended-lambda", "--expt-relaxed-constexpr",
           "--default-stream", "per-thread", "-Werror", "cross-execution-space-call",
           "-I", ROOT, "-I", scipy_openblas32.get_include_dir(),
           "-I", str(nlohmann_json.get_include()), "-arch=sm_80", "-ptx",
           "-x", "cu", src, "-o", str(tmp_path / "out.ptx")]
    if inc:
        cmd[1:1] = ["-isystem", inc]
    p = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    assert p.returncode == 0, p.stderr[-4000:]


@pytest.mark.slow
@pytest.mark.skipif(NVCC is None, reason="nvcc not found: CUDA sources cannot be compile-checked")
def test_nccl_source_compiles_with_nccl(tmp_path):
    """trainer/GpuCollective.cpp as a CUDA build WITH_NCCL compiles it (the test above compiles
    it without NCCL), against the nccl.h that setup.py would use."""
    inc = nccl_include()
    if not inc:
        pytest.skip("nccl.h not found (pip install nvidia-nccl-cu13, or set NCCL_HOME)")
    import nlohmann_json
    cmd = [NVCC, "-std=c++17", "-DWITH_CUDA=1", "-DWITH_NCCL=1", "-isystem", inc, "--extended-lambda",
           "--default-stream", "per-thread", "-I", ROOT, "-I", str(nlohmann_json.get_include()), "-arch=sm_80",
           "-c", "-x", "cu", os.path.join(ROOT, "trainer", "GpuCollective.cpp"), "-o", str(tmp_path / "nccl.o")]
    p = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    assert p.returncode == 0, p.stderr[-4000:]
    undefined = subprocess.run(["nm", "-u", str(tmp_path / "nccl.o")], capture_output=True, text=True).stdout
    assert "ncclReduce" in undefined and "ncclBroadcast" in undefined and "ncclCommInitAll" in undefined
    assert "ncclSend" in undefined and "ncclRecv" in undefined  # the bf16 gradients travel point to point


LAMBDA = re.compile(r"\[=\]\s*PD_HD\s*\(")
MEMBER = re.compile(r"(?<![.>:\w])(this\b|[A-Za-z]\w*_)(?![\w(])")


def kernel_bodies(text):
    """The bodies of the PD_HD lambdas in a source text, with their line numbers."""
    for m in LAMBDA.finditer(text):
        start = text.index("{", m.end())
        depth, i = 0, start
        while True:
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            if depth == 0:
                break
            i += 1
        yield text.count("\n", 0, m.start()) + 1, text[start:i + 1]


@pytest.mark.parametrize("src", ENGINE_CPP + [os.path.join(ROOT, "engine", "math", "Kernel.h")], ids=rel)
def test_kernel_bodies_capture_no_members(src):
    """A PD_HD body that names a member (members end in '_') captures `this`, a host
    pointer: it works on the CPU and faults on the GPU. Copy the member to a local."""
    with open(src) as f:
        text = re.sub(r"//[^\n]*", "", f.read())
    bad = ["line %d: %s" % (line, sorted(set(MEMBER.findall(body))))
           for line, body in kernel_bodies(text) if MEMBER.search(body)]
    assert not bad, "kernel bodies that capture this: " + "; ".join(bad)
