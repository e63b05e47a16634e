"""GPU-only engine behaviour: the zero-copy CUDA array bridge, the device memory
pool's steady state and training parity with the CPU. Every layer's CPU/GPU parity
is checked inside netbuilder.gradient_check; the whole gradient-check suite runs on
the GPU with PADDLE_TEST_USE_GPU=1. Without a usable GPU these tests skip."""
import os

import numpy as np
import pytest

from netbuilder import GPU_COUNT, Net, make_args
from py_paddle import swig_paddle as api

pytestmark = pytest.mark.skipif(
    GPU_COUNT == 0, reason="no GPU: " + ("the engine was built without CUDA" if not api.isGpuVersion()
                                         else "no CUDA device is visible"))


def cuda_library():
    """cupy when installed, else PyTorch's CUDA tensors (both speak __cuda_array_interface__)."""
    try:
        import cupy
        return lambda a: cupy.asarray(a), lambda x: cupy.asnumpy(x)
    except ImportError:
        pass
    torch = pytest.importorskip("torch", reason="neither cupy nor torch is installed")
    if not torch.cuda.is_available():
        pytest.skip("torch has no CUDA")
    return lambda a: torch.as_tensor(a, device="cuda"), lambda x: x.cpu().numpy()


def test_matrix_is_a_cuda_array_without_copies():
    to_gpu, to_host = cuda_library()
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    m = api.Matrix.createGpuDenseFromNumpy(a)
    view = to_gpu(m)  # zero-copy: shares the engine's memory
    np.testing.assert_array_equal(to_host(view), a)
    view[1, 2] = -5
    assert m.copyToNumpyMat()[1, 2] == -5


def test_matrix_and_vectors_built_from_cuda_arrays():
    to_gpu, to_host = cuda_library()
    a = to_gpu(np.random.RandomState(0).randn(5, 3).astype(np.float32))
    aliased = api.Matrix.createFromCudaArray(a, copy=False)
    copied = api.Matrix.createFromCudaArray(a)
    a[0, 0] = 42
    assert aliased.copyToNumpyMat()[0, 0] == 42
    assert copied.copyToNumpyMat()[0, 0] != 42
    ids = api.IVector.createFromCudaArray(to_gpu(np.array([3, 1, 2], dtype=np.int32)))
    assert list(ids.copyToNumpyArray()) == [3, 1, 2]
    with pytest.raises(TypeError):
        api.Vector.createFromCudaArray(to_gpu(np.zeros(3, dtype=np.float64)))


def mlp(gpu):
    net = Net()
    net.classifier(20, 64, 5, act="relu")
    return net.build(seed=3, use_gpu=gpu)


def sgd_steps(gm, batches, lr=0.1):
    """Plain SGD through the parameter buffers; returns the costs."""
    costs = []
    for slots in batches:
        out = api.Arguments.createArguments(0)
        gm.forwardBackward(make_args(slots), out, api.PASS_TRAIN)
        costs.append(out.sum())
        for p in gm.getParameters():
            v = p.getBuf(api.PARAMETER_VALUE)
            g = p.getBuf(api.PARAMETER_GRADIENT).copyToNumpyArray()
            v.copyFromNumpyArray(v.copyToNumpyArray() - lr * g)
            p.getBuf(api.PARAMETER_GRADIENT).copyFromNumpyArray(np.zeros_like(g))
    return costs


def batches(n, rows=32):
    rng = np.random.RandomState(7)
    return [[rng.randn(rows, 20).astype(np.float32), rng.randint(0, 5, rows).astype(np.int32)] for _ in range(n)]


def test_gpu_training_follows_the_cpu():
    cpu, gpu = mlp(False), mlp(True)
    for p, q in zip(cpu.getParameters(), gpu.getParameters()):
        q.getBuf(api.PARAMETER_VALUE).copyFromNumpyArray(p.getBuf(api.PARAMETER_VALUE).copyToNumpyArray())
    data = batches(20)
    np.testing.assert_allclose(sgd_steps(gpu, data), sgd_steps(cpu, data), rtol=1e-3)


@pytest.mark.skipif(os.environ.get("PADDLE_FAKE_GPU") == "1", reason="the stand-in GPU of a PADDLE_FAKE_GPU build "
                    "has no pool: every buffer gets its own pages, so that use after free faults")
def test_memory_pool_makes_no_cudamalloc_in_steady_state():
    gm = mlp(True)
    data = batches(12)
    out = api.Arguments.createArguments(0)
    for slots in data[:4]:  # warm-up: the pool fills
        gm.forwardBackward(make_args(slots), out, api.PASS_TRAIN)
    mallocs, held, peak = api.getGpuMemoryStats()
    for slots in data[4:]:
        gm.forwardBackward(make_args(slots), out, api.PASS_TRAIN)
    assert api.getGpuMemoryStats()[0] == mallocs
    assert 0 < held <= peak
