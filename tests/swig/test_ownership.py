"""Who keeps memory alive across the API, and which objects may be shared by threads.

Each use-after-free repro runs in a subprocess: a crash there fails the test with its
signal instead of taking pytest down."""
import os
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

from paddle.trainer.config_parser import parse_config
from py_paddle import DataProviderConverter, swig_paddle as api

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEMO = os.path.join(ROOT, "demos", "mnist")


def run_isolated(code):
    """Runs `code` in a fresh interpreter; returns its stdout (fails on any crash)."""
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    if any(n.startswith("_swig_paddle") for n in os.listdir(os.path.join(ROOT, "py_paddle"))):
        env["PYTHONPATH"] = ROOT
    # glibc hands freed blocks straight back to the OS above this size: a dangling read faults
    env["MALLOC_MMAP_THRESHOLD_"] = "65536"
    p = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=DEMO, env=env, capture_output=True,
                       text=True, timeout=300)
    assert p.returncode == 0, "exit %d\n%s" % (p.returncode, p.stderr[-3000:])
    return p.stdout


def test_matrix_view_outlives_a_reallocating_copy():
    out = run_isolated("""
        import gc, numpy as np
        from py_paddle import swig_paddle as api
        m = api.Matrix.createZero(200, 200)
        m.set(3, 4, 7.0)
        view = m.toNumpyMatInplace()
        arr = np.asarray(m)
        m.copyFromNumpyMat(np.ones((2000, 2000), dtype=np.float32))  # reallocates
        gc.collect()
        junk = [np.full((2000, 200), 9, dtype=np.float32) for _ in range(8)]  # reuse the freed memory
        print(float(view[3, 4]), float(arr[3, 4]), view.shape, float(view.sum()))
        view2 = m.toNumpyMatInplace()  # a new view sees the new buffer
        print(view2.shape, float(view2[1999, 1999]))
    """)
    lines = out.splitlines()
    assert lines[0] == "7.0 7.0 (200, 200) 7.0"  # the old buffer, kept alive and untouched
    assert lines[1] == "(2000, 2000) 1.0"


def test_vector_views_outlive_a_reallocating_copy():
    out = run_isolated("""
        import gc, numpy as np
        from py_paddle import swig_paddle as api
        iv = api.IVector.createZero(50000)
        iv[7] = 42
        view = iv.toNumpyArrayInplace()
        iv.copyFromNumpyArray(np.arange(4000000, dtype=np.int32))  # reallocates
        gc.collect()
        junk = [np.full(1000000, -1, dtype=np.int32) for _ in range(8)]
        print(int(view[7]), int(view.sum()), len(view), iv[3999999])
        v = api.Vector.createZero(50000)
        v[7] = 2.5
        fview = v.toNumpyArrayInplace()
        del v
        gc.collect()
        junk = [np.full(1000000, -1, dtype=np.float32) for _ in range(8)]
        print(float(fview[7]), float(fview.sum()))
    """)
    assert out.splitlines() == ["42 42 50000 3999999", "2.5 2.5"]


def test_a_parameter_view_outlives_its_machine():
    out = run_isolated("""
        import gc, numpy as np
        from paddle.trainer.config_parser import parse_config
        from py_paddle import swig_paddle as api
        api.initPaddle("--use_gpu=0")
        gm = api.GradientMachine.createFromConfigProto(parse_config("mlp.py", "").model_config)
        want = gm.getParameter(0).getBuf(api.PARAMETER_VALUE).copyToNumpyArray()
        view = gm.getParameter(0).getBuf(api.PARAMETER_VALUE).toNumpyArrayInplace()
        del gm
        gc.collect()
        junk = [np.full(want.size, 1e6, dtype=np.float32) for _ in range(20)]
        print(bool(np.array_equal(view, want)))
    """)
    assert out.strip() == "True"


def test_arguments_keep_zero_copy_arrays_alive():
    out = run_isolated("""
        import gc, numpy as np
        from py_paddle import swig_paddle as api
        args = api.Arguments.createArguments(2)
        args.setSlotValue(0, api.Matrix.createCpuDenseFromNumpy(np.full((300, 300), 3, np.float32), copy=False))
        args.setSlotIds(1, api.IVector.createCpuVectorFromNumpy(np.arange(100000, dtype=np.int32), copy=False))
        gc.collect()
        junk = [np.full((300, 300), -1, dtype=np.float32) for _ in range(20)]
        junk += [np.full(100000, -1, dtype=np.int32) for _ in range(20)]
        value = args.getSlotValue(0)
        ids = args.getSlotIds(1)
        del args
        gc.collect()
        junk += [np.full((300, 300), -1, dtype=np.float32) for _ in range(20)]
        print(float(value.toNumpyMatInplace().sum()), int(ids.toNumpyArrayInplace().sum()))
    """)
    assert out.split()[:2] == [str(3.0 * 300 * 300), str(sum(range(100000)))]


def test_a_machine_keeps_its_zero_copy_inputs_until_the_next_forward():
    out = run_isolated("""
        import gc, numpy as np
        from paddle.trainer.config_parser import parse_config
        from py_paddle import swig_paddle as api
        api.initPaddle("--use_gpu=0")
        gm = api.GradientMachine.createFromConfigProto(parse_config("mlp.py", "").model_config)
        rng = np.random.RandomState(0)
        x, y = rng.rand(64, 64).astype(np.float32), (np.arange(64) % 10).astype(np.int32)

        def grads(copy):
            args = api.Arguments.createArguments(2)
            args.setSlotValue(0, api.Matrix.createCpuDenseFromNumpy(x.copy(), copy=copy))
            args.setSlotIds(1, api.IVector.createCpuVectorFromNumpy(y.copy(), copy=copy))
            gm.forward(args, api.Arguments.createArguments(0), api.PASS_TRAIN)
            del args
            gc.collect()
            junk = [np.full((64, 64), 1e6, dtype=np.float32) for _ in range(50)]
            gm.backward()  # reads the first layer's input
            p = gm.getParameter(0)
            return p.getBuf(api.PARAMETER_GRADIENT).copyToNumpyArray()

        print(bool(np.array_equal(grads(True), grads(False))))
    """)
    assert out.strip() == "True"


def test_numpy_views_of_a_copy_false_matrix_keep_the_array():
    out = run_isolated("""
        import gc, numpy as np
        from py_paddle import swig_paddle as api
        m = api.Matrix.createCpuDenseFromNumpy(np.full((400, 400), 5, np.float32), copy=False)
        view = m.toNumpyMatInplace()
        del m
        gc.collect()
        junk = [np.full((400, 400), -1, dtype=np.float32) for _ in range(20)]
        print(float(view.sum()))
    """)
    assert out.strip() == str(5.0 * 400 * 400)


# ---------------------------------------------------------------- threads
@pytest.fixture
def gm(monkeypatch):
    monkeypatch.chdir(DEMO)
    api.initPaddle("--use_gpu=0")
    return api.GradientMachine.createFromConfigProto(parse_config("mlp.py", "is_predict=1").model_config)


def digits_args(seed):
    from paddle.trainer.PyDataProvider2 import dense_vector
    rng = np.random.RandomState(seed)
    return DataProviderConverter([dense_vector(64)])([[rng.rand(64).astype(np.float32)] for _ in range(4)])


def test_gradient_machine_refuses_a_second_thread(gm):
    gm.forwardTest(digits_args(0))  # this thread now uses the machine
    errors = []

    def other():
        try:
            gm.forward(digits_args(1), api.Arguments.createArguments(0), api.PASS_TEST)
        except RuntimeError as e:
            errors.append(str(e))

    t = threading.Thread(target=other, name="worker-7")
    t.start()
    t.join()
    assert len(errors) == 1
    assert "not thread-safe" in errors[0] and "worker-7" in errors[0] and "MainThread" in errors[0]
    assert "Predictor" in errors[0]


def test_gradient_machine_passes_between_threads_that_take_turns(gm):
    want = gm.forwardTest(digits_args(0))[0]["value"]
    gm.releaseThread()  # handed over explicitly
    got = []
    t = threading.Thread(target=lambda: got.append(gm.forwardTest(digits_args(0))[0]["value"]))
    t.start()
    t.join()
    np.testing.assert_array_equal(got[0], want)
    # the worker has ended: the machine is free again for this thread
    np.testing.assert_array_equal(gm.forwardTest(digits_args(0))[0]["value"], want)


def test_gradient_machine_from_four_threads_is_never_silently_wrong(gm):
    want = [gm.forwardTest(digits_args(s))[0]["value"] for s in range(4)]
    gm.releaseThread()
    wrong, refused, right = [], [], []

    def work(k):
        for _ in range(30):
            try:
                got = gm.forwardTest(digits_args(k))[0]["value"]
            except RuntimeError:
                refused.append(k)
                continue
            (right if np.array_equal(got, want[k]) else wrong).append(k)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not wrong and right and refused
