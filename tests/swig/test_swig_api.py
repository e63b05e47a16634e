"""The py_paddle API as v1 scripts use it (docs/engine_api.md example), and NumPy interop."""
import os
import subprocess
import sys

import numpy as np
import pytest

from py_paddle import DataProviderConverter, swig_paddle as api

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEMO = os.path.join(ROOT, "demos", "mnist")


def test_matrix_numpy_views_and_copies():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    m = api.Matrix.createCpuDenseFromNumpy(a, copy=False)
    view = m.toNumpyMatInplace()
    view[1, 2] = -5
    assert a[1, 2] == -5 and m.get(1, 2) == -5  # aliasing both ways
    c = api.Matrix.createDenseFromNumpy(a)  # copies
    a[0, 0] = 100
    assert c.get(0, 0) == 0
    np.testing.assert_array_equal(c.copyToNumpyMat()[1:], a[1:])
    assert (m.getHeight(), m.getWidth()) == (3, 4)
    with pytest.raises(IndexError):
        m.get(3, 0)
    with pytest.raises(TypeError, match="float32"):
        api.Matrix._createDenseFromNumpyRaw(np.zeros((2, 2)), True, False)


def test_vectors():
    v = api.IVector.create([3, 1, 2])
    assert len(v) == 3 and v[0] == 3 and list(v.copyToNumpyArray()) == [3, 1, 2]
    f = api.Vector.createVectorFromNumpy(np.array([1.5, 2.5], dtype=np.float32), useGpu=False)
    f[1] = 7
    assert f.getData() == pytest.approx([1.5, 7.0])


def test_readme_prediction_example(tmp_path):
    out = str(tmp_path / "model")
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    if any(n.startswith("_swig_paddle") for n in os.listdir(os.path.join(ROOT, "py_paddle"))):
        env["PYTHONPATH"] = ROOT
    subprocess.run([sys.executable, "-c", "import sys; from paddle.trainer.cli import main; sys.exit(main())",
                    "train", "--config=mlp.py", "--save_dir=" + out, "--num_passes=2", "--dot_period=0"],
                   cwd=DEMO, env=env, check=True, capture_output=True)
    from paddle.trainer.PyDataProvider2 import dense_vector
    from paddle.trainer.config_parser import parse_config

    api.initPaddle("--use_gpu=0")
    old = os.getcwd()
    os.chdir(DEMO)
    try:
        conf = parse_config("mlp.py", "is_predict=1")
    finally:
        os.chdir(old)
    gm = api.GradientMachine.createFromConfigProto(conf.model_config)
    gm.loadParameters(os.path.join(out, "pass-00001"))
    convert = DataProviderConverter([dense_vector(64)])
    from sklearn.datasets import load_digits
    digits = load_digits()
    x = digits.data[:50] / 16.0
    prob = gm.forwardTest(convert([[row] for row in x]))[0]["value"]
    assert prob.shape == (50, 10)
    np.testing.assert_allclose(prob.sum(1), 1, rtol=1e-5)
    assert (prob.argmax(1) == digits.target[:50]).mean() > 0.8
    outs = gm.getLayerOutputs("__fc_layer_2__")
    np.testing.assert_allclose(outs["__fc_layer_2__"], prob)
    params = {p.getName(): len(p) for p in gm.getParameters()}
    assert params["___fc_layer_0__.w0"] == 64 * 512
