"""DGC's local step (trainer/Dgc.h), without MPI, against a NumPy reference over several
steps: the momentum correction (u = m u + g), the error feedback (v += u, what is not sent
stays in v for later steps), the top-k selection of the largest |v| (ties: the lowest
indices) and the masking of what was sent out of u and v, at sparsities 0.5, 0.9 and 0.99."""
import math
import os
import shutil
import struct
import subprocess

import numpy as np
import pytest

from test_threads import HERE, ROOT, engine_library

STEPS = 6


@pytest.fixture(scope="module")
def dgc_step(tmp_path_factory):
    cxx, lib = shutil.which("g++"), engine_library()
    if not cxx or not lib:
        pytest.skip("needs g++ and the built engine library")
    import scipy_openblas32  # the engine library's OpenBLAS, found through the package at run time
    blas = scipy_openblas32.get_lib_dir()
    exe = str(tmp_path_factory.mktemp("dgc") / "dgc_step")
    subprocess.run([cxx, "-std=c++17", "-O1", "-I", ROOT, os.path.join(HERE, "cpp", "dgc_step.cpp"), lib,
                    "-L" + blas, "-l" + scipy_openblas32.get_library(), "-o", exe], check=True)
    env = dict(os.environ, LD_LIBRARY_PATH=os.pathsep.join([os.path.dirname(lib), blas]))

    def run(grads, momentum, sparsity, tmp):
        steps, n = grads.shape
        (tmp / "in").write_bytes(struct.pack("<qqdd", n, steps, momentum, sparsity) +
                                 grads.astype(np.float32).tobytes())
        subprocess.run([exe, str(tmp / "in"), str(tmp / "out")], env=env, check=True, timeout=60)
        data, pos, out = (tmp / "out").read_bytes(), 0, []
        for _ in range(steps):
            (k,) = struct.unpack_from("<q", data, pos)
            pos += 8
            pairs = np.frombuffer(data, dtype=np.int32, count=2 * k, offset=pos)
            pos += 8 * k
            u = np.frombuffer(data, dtype=np.float32, count=n, offset=pos)
            v = np.frombuffer(data, dtype=np.float32, count=n, offset=pos + 4 * n)
            pos += 8 * n
            out.append((pairs[0::2].copy(), pairs[1::2].copy().view(np.float32), u.copy(), v.copy()))
        return out
    return run


def reference(grads, momentum, sparsity):
    """Per step: (indices sent, values sent, u, v) as the DGC step defines them, in float32."""
    n = grads.shape[1]
    u, v = np.zeros(n, np.float32), np.zeros(n, np.float32)
    m = np.float32(momentum)
    k = min(n, max(1, int(math.ceil((1.0 - sparsity) * n))))
    out = []
    for g in grads.astype(np.float32):
        u = m * u + g                      # momentum correction
        v = v + u                          # error feedback: v keeps what was not sent
        order = np.lexsort((np.arange(n), -np.abs(v)))  # largest |v| first, ties by index
        sent = np.sort(order[:k])
        values = v[sent].copy()
        u[sent] = 0                        # momentum factor masking
        v[sent] = 0
        out.append((sent.astype(np.int32), values, u.copy(), v.copy()))
    return out


def gradients(n, seed, ties=False):
    rng = np.random.RandomState(seed)
    g = rng.randn(STEPS, n).astype(np.float32)
    if ties:  # magnitudes that repeat, so that the k-th largest |v| is shared by several entries
        g = np.round(g * 2) / 2
    return g


@pytest.mark.parametrize("sparsity", [0.5, 0.9, 0.99])
# (momentum 0.5: m u is exact in float32, so the engine's result is the same whether or not the compiler
# fuses m u + g into one FMA)
@pytest.mark.parametrize("momentum", [0.0, 0.5])
def test_dgc_step_matches_numpy(dgc_step, tmp_path, sparsity, momentum):
    grads = gradients(1000, seed=int(sparsity * 100) + int(momentum * 10))
    got, want = dgc_step(grads, momentum, sparsity, tmp_path), reference(grads, momentum, sparsity)
    k = min(1000, max(1, int(math.ceil((1.0 - sparsity) * 1000))))
    for step, ((ids, values, u, v), (ids_want, values_want, u_want, v_want)) in enumerate(zip(got, want)):
        assert len(ids) == k, step
        np.testing.assert_array_equal(ids, ids_want, err_msg="top-k indices, step %d" % step)
        np.testing.assert_array_equal(values, values_want, err_msg="sent values, step %d" % step)
        np.testing.assert_array_equal(u, u_want, err_msg="momentum u, step %d" % step)
        np.testing.assert_array_equal(v, v_want, err_msg="residual v, step %d" % step)
    # the residual carries what was not sent: over the steps, sent + left = every gradient
    # (without momentum, where nothing else is added)
    if momentum == 0:
        total = np.zeros(1000, np.float64)
        for ids, values, _, _ in got:
            np.add.at(total, ids, values)
        np.testing.assert_allclose(total + got[-1][3], grads.sum(axis=0), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("sparsity", [0.5, 0.9])
def test_ties_at_the_threshold_go_to_the_lowest_indices(dgc_step, tmp_path, sparsity):
    grads = gradients(200, seed=3, ties=True)
    for (ids, values, u, v), (ids_want, values_want, u_want, v_want) in zip(
            dgc_step(grads, 0.5, sparsity, tmp_path), reference(grads, 0.5, sparsity)):
        np.testing.assert_array_equal(ids, ids_want)
        np.testing.assert_array_equal(v, v_want)


def test_full_density_sends_everything(dgc_step, tmp_path):
    grads = gradients(50, seed=5)
    for (ids, values, u, v), g in zip(dgc_step(grads, 0.0, 0.0, tmp_path), grads):
        np.testing.assert_array_equal(ids, np.arange(50))
        np.testing.assert_array_equal(values, g)
        assert not u.any() and not v.any()
