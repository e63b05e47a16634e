"""v1's leniency in the SWIG API, as v1 scripts rely on it: createDense with fewer values,
Vector.copyFromNumpyArray resizing, numpy.float32 for float arguments, ParameterOptimizer.update
with Parameter.getBufs()'s ParameterType-indexed list, and the names v0.10's py_paddle had
(ParameterTraverseCallback, py_paddle.loadParameterFile, DataProviderWrapperConverter,
util.loadGradientMachine)."""
import os
import shutil

import numpy as np
import pytest

import py_paddle
from paddle.trainer.config_parser import parse_config
from py_paddle import DataProviderConverter, swig_paddle as api, util

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEMO = os.path.join(ROOT, "demos", "mnist")


@pytest.fixture
def config(monkeypatch):
    monkeypatch.chdir(DEMO)
    api.initPaddle("--use_gpu=0", "--trainer_count=1")
    return parse_config("mlp.py", "")


def batch(n=8):
    from paddle.trainer.PyDataProvider2 import dense_vector, integer_value
    rng = np.random.RandomState(0)
    return DataProviderConverter([dense_vector(64), integer_value(10)])(
        [(rng.rand(64).astype(np.float32), int(i % 10)) for i in range(n)])


def test_create_dense_takes_fewer_values_than_its_size():
    m = api.Matrix.createDense([1, 2, 3], 2, 2)
    np.testing.assert_array_equal(m.copyToNumpyMat(), [[1, 2], [3, 0]])
    with pytest.raises(ValueError, match="5 values for a 2x2 matrix"):
        api.Matrix.createDense([1, 2, 3, 4, 5], 2, 2)


def test_vector_copy_from_numpy_array_resizes():
    v = api.Vector.create([1, 2])
    v.copyFromNumpyArray(np.arange(4, dtype=np.float32))
    assert len(v) == 4 and v.getData() == [0, 1, 2, 3]
    v.copyFromNumpyArray(np.array([7], dtype=np.float32))
    assert v.getData() == [7]


def test_float_arguments_take_numpy_float32():
    half = np.ones(4, np.float32).sum() / 8  # NumPy 2: a numpy.float32
    assert type(half) is np.float32
    v = api.Vector.create([1, 2])
    v[0] = half
    m = api.Matrix.createZero(2, 2)
    m.set(1, 1, half)
    assert v.getData() == [0.5, 2] and m.get(1, 1) == 0.5
    assert api.Vector.create(list(np.full(3, 0.25, np.float32))).getData() == [0.25] * 3
    iv = api.IVector.create([1, 2])
    iv[0] = np.int64(5)
    assert iv[0] == 5
    with pytest.raises(TypeError):
        iv[1] = 2.5  # an int argument still refuses a fraction


def test_parameter_optimizer_update_takes_get_bufs(config):
    """v1's api test flow: the machine has the optimizer's buffer types and the update
    callback passes param.getBufs() (indexed by ParameterType) to ParameterOptimizer.update."""
    opt = api.ParameterOptimizer.create(config.opt_config)
    types = list(opt.getParameterTypes())
    gm = api.GradientMachine.createFromConfigProto(config.model_config, api.CREATE_MODE_NORMAL, types)
    twin = api.GradientMachine.createFromConfigProto(config.model_config)
    updater = api.ParameterUpdater.createLocalUpdater(config.opt_config)
    updater.init(twin)
    for p in gm.getParameters():
        opt.init(p.getSize(), p.getConfig())

    def update(param):
        opt.update(list(param.getBufs()), param.getConfig())

    args = batch()
    for step in range(3):
        opt.startBatch(8 * (step + 1))
        updater.startBatch(8)
        gm.forwardBackward(args, api.Arguments.createArguments(0), api.PASS_TRAIN, update)
        twin.forwardBackward(args, api.Arguments.createArguments(0), api.PASS_TRAIN, updater.update)
        opt.finishBatch()
        updater.finishBatch(np.float32(0))
    for p, q in zip(gm.getParameters(), twin.getParameters()):
        np.testing.assert_array_equal(p.getBuf(api.PARAMETER_VALUE).copyToNumpyArray(),
                                      q.getBuf(api.PARAMETER_VALUE).copyToNumpyArray(), err_msg=p.getName())
    assert opt.needSpecialTraversal(p.getConfig()) is None
    seen = []
    api.ParameterTraverseCallback(lambda *a: seen.append(a)).apply([], p.getConfig(), api.NO_SPARSE_ID)
    assert len(seen) == 1


def test_v0_10_names(config, tmp_path):
    gm = api.GradientMachine.createFromConfigProto(config.model_config)
    gm.randParameters()
    gm.saveParameters(str(tmp_path))
    name = next(gm.getParameters()).getName()
    np.testing.assert_array_equal(py_paddle.loadParameterFile(str(tmp_path / name)),
                                  next(gm.getParameters()).getBuf(api.PARAMETER_VALUE).copyToNumpyArray())
    shutil.copy(os.path.join(DEMO, "mlp.py"), str(tmp_path / "mlp.py"))
    loaded = util.loadGradientMachine(str(tmp_path / "mlp.py"))
    np.testing.assert_array_equal(next(loaded.getParameters()).getBuf(api.PARAMETER_VALUE).copyToNumpyArray(),
                                  py_paddle.loadParameterFile(str(tmp_path / name)))


class DenseSlot(object):  # v1's PyDataProviderWrapper slots, as a v1 script builds the header
    def __init__(self, dim):
        self.dim = dim


class IndexSlot(DenseSlot):
    pass


class SparseNonValueSlot(DenseSlot):
    pass


class SparseValueSlot(DenseSlot):
    pass


def test_data_provider_wrapper_converter():
    conv = py_paddle.DataProviderWrapperConverter(False, [DenseSlot(3), IndexSlot(5), SparseNonValueSlot(6),
                                                          SparseValueSlot(6)])
    args = conv([[[1, 2, 3], 4, [0, 5], [(1, 0.5)]], [[4, 5, 6], 0, [], [(2, 2.0), (5, 1.0)]]])
    np.testing.assert_array_equal(args.getSlotValue(0).copyToNumpyMat(), [[1, 2, 3], [4, 5, 6]])
    assert args.getSlotIds(1).getData() == [4, 0]
    assert args.getSlotValue(2).getSparseRowCols(0) == [0, 5]
    assert args.getSlotValue(3).getSparseRowColsVal(1) == [(2, 2.0), (5, 1.0)]
    seq = util.DataProviderWrapperConverter(True, [IndexSlot(5)])([[[1, 2, 3]], [[4]]])
    assert seq.getSlotIds(0).getData() == [1, 2, 3, 4]
    assert seq.getSlotSequenceStartPositions(0).getData() == [0, 3, 4]
    with pytest.raises(TypeError, match="slot 0"):
        py_paddle.DataProviderWrapperConverter(False, ["dense"])
