"""v1's PaddleAPI.h surface, class by class (docs/swig_api.md lists where each name is tested)."""
import os

import numpy as np
import pytest

from paddle.trainer.config_parser import parse_config
from py_paddle import DataProviderConverter, swig_paddle as api
from py_paddle.util import loadParameterFile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEMO = os.path.join(ROOT, "demos", "mnist")


@pytest.fixture
def config(monkeypatch):
    monkeypatch.chdir(DEMO)
    api.initPaddle("--use_gpu=0", "--trainer_count=1")
    return parse_config("mlp.py", "")


@pytest.fixture
def gm(config):
    return api.GradientMachine.createFromConfigProto(config.model_config)


def digits_batch(n=8):
    rng = np.random.RandomState(0)
    return [(rng.rand(64).astype(np.float32), int(i % 10)) for i in range(n)]


def converter():
    from paddle.trainer.PyDataProvider2 import dense_vector, integer_value
    return DataProviderConverter([dense_vector(64), integer_value(10)])


# ---------------------------------------------------------------- module level
def test_enums_and_exception_classes():
    assert (api.PASS_TRAIN, api.PASS_TEST, api.PASS_GC, api.PASS_METRIC, api.PASS_METRIC_TRAIN,
            api.PASS_METRIC_TRAIN_WITH_NOERROR) == (0, 1, 2, 3, 4, 5)
    assert (api.SPARSE_NON_VALUE, api.SPARSE_VALUE, api.SPARSE_CSR, api.SPARSE_CSC) == (0, 1, 0, 1)
    assert api.NO_SPARSE_ID == 2 ** 64 - 1
    assert (api.CREATE_MODE_NORMAL, api.CREATE_MODE_SGD_SPARSE_CPU_TRAINING, api.CREATE_MODE_TESTING) == (0, 3, 4)
    assert api.NUM_PARAMETER_TYPES == 19 and api.PARAMETER_SECOND_MOMENTUM == 14
    assert issubclass(api.RangeError, IndexError) and issubclass(api.IOError, OSError)
    assert issubclass(api.UnsupportError, RuntimeError)
    assert api.isGpuVersion() in (True, False) and api.getTrainerCount() >= 1 and not api.isUsingGpu()


def test_engine_errors_arrive_as_v1_exception_classes(gm, tmp_path):
    with pytest.raises(api.RangeError, match="parameter 99 out of range"):
        gm.getParameter(99)
    with pytest.raises(api.IOError):
        gm.loadParameters(str(tmp_path / "missing"))
    with pytest.raises(api.UnsupportError, match="sparse matrix"):
        api.Matrix.createSparse(2, 3, 1).toNumpyMatInplace()
    with pytest.raises(api.UnsupportError, match="no parameter server"):
        api.ParameterUpdater.createRemoteUpdater(api.OptimizationConfig.createFromJson("{}"), 1, False)
    with pytest.raises(api.UnsupportError, match="no parameter server"):
        api.ParameterUpdater.createNewRemoteUpdater(api.OptimizationConfig.createFromJson("{}"), "etcd://x")
    with pytest.raises(ValueError, match=r"update\(None\)"):
        api.ParameterUpdater.createLocalUpdater("{}").update(None)


# ---------------------------------------------------------------- Matrix / Vector / IVector
def test_getdata_returns_lists():
    assert api.Matrix.createDense([1, 2, 3, 4], 2, 2, False).getData() == [1, 2, 3, 4]
    assert api.Vector.create([1.5, 2.5]).getData() == [1.5, 2.5]
    assert api.IVector.create([3, 4]).getData() == [3, 4]


def test_sparse_matrix_fills_reads_and_feeds_a_layer(gm):
    rows, cols, vals = [0, 2, 2, 3], [1, 63, 5], [0.5, 2.0, -1.0]
    m = api.Matrix.createSparse(3, 64, 3, isNonVal=False)
    m.sparseCopyFrom(np.array(rows), np.array(cols), vals)  # numpy ids work too
    assert m.isSparse() and not m.isGpu() and (m.getHeight(), m.getWidth()) == (3, 64)
    assert m.getSparseValueType() == api.SPARSE_VALUE and m.getSparseFormat() == api.SPARSE_CSR
    assert m.getSparseRowCols(0) == [1, 63] and m.getSparseRowCols(1) == []
    assert m.getSparseRowColsVal(2) == [(5, -1.0)]
    with pytest.raises(api.RangeError):
        m.getSparseRowCols(3)
    binary = api.Matrix.createSparse(1, 4, 2)
    binary.sparseCopyFrom([0, 2], [0, 3])
    assert binary.getSparseValueType() == api.SPARSE_NON_VALUE and binary.getSparseRowColsVal(0) == [(0, 1.0), (3, 1.0)]
    with pytest.raises(ValueError, match="non-value"):
        binary.sparseCopyFrom([0, 1], [2], [1.0])
    with pytest.raises(api.UnsupportError, match="CSC"):
        api.Matrix.createSparse(1, 4, 2, True, True)
    # a sparse slot gives what the same rows dense give
    dense = np.zeros((3, 64), np.float32)
    dense[0, 1], dense[0, 63], dense[2, 5] = 0.5, 2.0, -1.0
    labels = api.IVector.create([1, 2, 3])
    outs = []
    for value in (m, api.Matrix.createDenseFromNumpy(dense)):
        args = api.Arguments.createArguments(2)
        args.setSlotValue(0, value)
        args.setSlotIds(1, labels)
        assert args.isSlotSparse(0) == value.isSparse()
        gm.forward(args, None, api.PASS_TEST)
        outs.append(gm.getLayerOutputs("__fc_layer_2__")["__fc_layer_2__"])
        if value.isSparse():
            assert args.getSlotValue(0).getSparseRowCols(0) == [1, 63]
    np.testing.assert_allclose(outs[0], outs[1], rtol=1e-6)


def test_vector_copy_from():
    a, b = api.Vector.create([1, 2, 3]), api.Vector.createZero(3)
    b.copyFrom(a)
    assert b.getData() == [1, 2, 3]
    with pytest.raises(api.RangeError):
        api.Vector.createZero(2).copyFrom(a)


# ---------------------------------------------------------------- Arguments
def test_arguments_slots_round_trip():
    args = api.Arguments.createArguments(1)
    for get, set_, make in [("getSlotGrad", "setSlotGrad", lambda: api.Matrix.createDense([1, 2], 1, 2, False)),
                            ("getSlotIn", "setSlotIn", lambda: api.Matrix.createDense([3, 4], 2, 1, False)),
                            ("getSlotSequenceDim", "setSlotSequenceDim", lambda: api.IVector.create([2, 3])),
                            ("getSlotIds", "setSlotIds", lambda: api.IVector.create([7])),
                            ("getSlotSequenceStartPositions", "setSlotSequenceStartPositions",
                             lambda: api.IVector.create([0, 1])),
                            ("getSlotSubSequenceStartPositions", "setSlotSubSequenceStartPositions",
                             lambda: api.IVector.create([0, 1]))]:
        assert getattr(args, get)(0) is None
        getattr(args, set_)(0, make())
        assert getattr(args, get)(0).getData() == make().getData(), get
        getattr(args, set_)(0, None)
        assert getattr(args, get)(0) is None
    args.setSlotFrameHeight(0, 5)
    args.setSlotFrameWidth(0, 6)
    assert (args.getSlotFrameHeight(), args.getSlotFrameWidth(0)) == (5, 6)
    with pytest.raises(api.RangeError):
        args.getSlotValue(1)
    out = api.Arguments.createArguments(1)
    out.setSlotValue(0, api.Matrix.createDense([1, 2, 3], 3, 1, False))
    assert out.sum() == out.sumCosts() == 6 and out.getBatchSize() == 3


# ---------------------------------------------------------------- configs
def test_config_objects_convert_to_and_from_protobuf(config, tmp_path):
    tc = api.TrainerConfig.createFromTrainerConfigFile("mlp.py")
    assert tc.toProto() == config
    again = api.TrainerConfig.createFromProtoString(config.SerializeToString())
    assert again.toProtoString() == config.SerializeToString()
    assert tc.getModelConfig().toProto() == config.model_config
    opt = tc.getOptimizationConfig()
    assert opt.toProto() == config.opt_config and opt.toProto().learning_method == "adam"
    assert api.OptimizationConfig.createFromProto(config.opt_config).toProto().batch_size == 32
    with pytest.raises(ValueError, match="no_such_field"):
        api.OptimizationConfig.createFromJson('{"no_such_field": 1}')


# ---------------------------------------------------------------- Parameter
def test_parameter_surface(gm, tmp_path):
    p = gm.getParameter(1)
    assert p.getID() == 1 and p.getName() == "___fc_layer_0__.wbias" and len(p) == p.getSize() == 512
    assert p.getConfig().toProto().name == p.getName() and p.getConfig().toProto().size == 512
    assert p.getConfig().toProtoString() == p.getConfig().toProto().SerializeToString()
    path = str(tmp_path / "bias")
    p.getBuf(api.PARAMETER_VALUE).copyFromNumpyArray(np.arange(512, dtype=np.float32))
    assert p.save(path) is True
    np.testing.assert_array_equal(loadParameterFile(path), np.arange(512))
    with open(path, "rb") as f:
        np.testing.assert_array_equal(loadParameterFile(f), np.arange(512))
    p.getBuf(api.PARAMETER_VALUE).copyFromNumpyArray(np.zeros(512, dtype=np.float32))
    assert p.load(path) is True and p.getBuf(api.PARAMETER_VALUE)[5] == 5
    p.setValueUpdated()
    bufs = list(p.getBufs())
    assert len(bufs) == api.NUM_PARAMETER_TYPES
    assert bufs[api.PARAMETER_VALUE].getSize() == 512 and bufs[api.PARAMETER_GRADIENT] is not None
    assert bufs[api.PARAMETER_SECOND_MOMENTUM] is None
    with open(str(tmp_path / "short"), "wb") as f:
        f.write(b"\0" * 8)
    with pytest.raises(api.IOError, match="header"):
        loadParameterFile(str(tmp_path / "short"))


# ---------------------------------------------------------------- GradientMachine
def test_gradient_machine_factories(config, tmp_path):
    by_str = api.GradientMachine.createByConfigProtoStr(config.model_config.SerializeToString())
    by_model = api.GradientMachine.createByModelConfig(
        api.TrainerConfig.createFromProto(config).getModelConfig(), api.CREATE_MODE_TESTING, [api.PARAMETER_VALUE])
    by_proto = api.GradientMachine.createByModelConfig(config.model_config)
    for g in (by_str, by_model, by_proto):
        assert g.getParameterSize() == 6 and g.getNonStaticParameterSize() == 6
    by_str.saveParameters(str(tmp_path))
    with open(str(tmp_path / "mlp.py"), "w") as f:
        f.write(open("mlp.py").read())
    loaded = api.GradientMachine.loadFromConfigFile(str(tmp_path / "mlp.py"))  # model_dir: the config's dir
    for a, b in zip(by_str.getParameters(), loaded.getNonStaticParameters()):
        assert a.getName() == b.getName()
        assert a.getBuf(api.PARAMETER_VALUE).getData() == b.getBuf(api.PARAMETER_VALUE).getData()
    with pytest.raises(api.RangeError):
        by_str.getNonStaticParameter(6)


def test_gradient_machine_run_and_evaluate(gm):
    gm.start()
    batch = converter()(digits_batch())
    gm.prefetch(batch)
    seen = []
    out = api.Arguments.createArguments(0)
    gm.forwardBackward(batch, out, api.PASS_TRAIN, seen.append)
    assert [p.getName() for p in seen][-1] == "___fc_layer_0__.w0" and len(seen) == 6
    assert out.getSlotNum() == 1 and out.getSlotValue(0).getHeight() == 8
    gm.forward(batch, out, api.PASS_TRAIN)
    again = []
    gm.backward(lambda p: again.append(p.getName()))
    assert again == [p.getName() for p in seen]
    hidden = gm.getLayerOutput("__fc_layer_0__").getSlotValue(0)
    assert (hidden.getHeight(), hidden.getWidth()) == (8, 512)
    ev = gm.makeEvaluator()
    ev.start()
    gm.forward(batch, out, api.PASS_METRIC)
    gm.eval(ev)
    ev.finish()
    err = ev.getValue("classification_error_evaluator")
    predicted = gm.getLayerOutputs("__fc_layer_2__")["__fc_layer_2__"].argmax(1)
    assert err == pytest.approx(np.mean(predicted != np.arange(8) % 10))
    assert ev.toString() == repr(ev) == "classification_error_evaluator=%g " % err
    with pytest.raises(ValueError, match="no evaluator"):
        ev.getValue("nope")
    other = api.GradientMachine.createFromConfigProto(parse_config("mlp.py", "").model_config)
    with pytest.raises(ValueError, match="another GradientMachine"):
        other.eval(ev)
    gm.onPassEnd()
    gm.finish()


# ---------------------------------------------------------------- optimizers
def test_parameter_optimizer_on_buffers_equals_the_updater(config, gm):
    """v1's 2016 API: one ParameterOptimizer over (value, gradient, state...) vectors."""
    opt = api.ParameterOptimizer.create(config.opt_config)
    types = list(opt.getParameterTypes())
    assert types[:2] == [api.PARAMETER_VALUE, api.PARAMETER_GRADIENT]
    assert api.PARAMETER_MOMENTUM in types and api.PARAMETER_SECOND_MOMENTUM in types  # adam
    twin = api.GradientMachine.createFromConfigProto(config.model_config)
    updater = api.ParameterUpdater.createLocalUpdater(config.opt_config)
    updater.init(twin)
    batch = converter()(digits_batch())
    vecs = {}
    for step in range(3):
        for machine in (gm, twin):
            machine.forwardBackward(batch, api.Arguments.createArguments(0), api.PASS_TRAIN)
        opt.startBatch(8 * (step + 1))  # samples so far
        updater.startBatch(8)
        for p, q in zip(gm.getParameters(), twin.getParameters()):
            if p.getName() not in vecs:
                opt.init(p.getSize(), p.getConfig())
                vecs[p.getName()] = [p.getBuf(api.PARAMETER_VALUE), p.getBuf(api.PARAMETER_GRADIENT)] + [
                    api.Vector.createZero(p.getSize()) for _ in types[2:]]
            assert opt.needSpecialTraversal(p.getConfig()) is None
            opt.update(vecs[p.getName()], p.getConfig())
            updater.update(q)
        opt.finishBatch()
        updater.finishBatch(0)
    for p, q in zip(gm.getParameters(), twin.getParameters()):
        np.testing.assert_array_equal(p.getBuf(api.PARAMETER_VALUE).copyToNumpyArray(),
                                      q.getBuf(api.PARAMETER_VALUE).copyToNumpyArray(), err_msg=p.getName())
    with pytest.raises(ValueError, match="needs %d" % len(types)):
        opt.update(vecs[p.getName()][:2], p.getConfig())


# ---------------------------------------------------------------- Trainer
def test_trainer_from_the_command_line_flags_and_forward_output(monkeypatch):
    monkeypatch.chdir(DEMO)
    api.initPaddle("--use_gpu=0", "--config=mlp.py", "--config_args=is_predict=1")
    try:
        trainer = api.Trainer.createByCommandLine()
    finally:
        api.initPaddle("--config=")
    trainer.startTrain()
    trainer.startTrainPass()
    assert trainer.forwardOneBatch(32) is False
    out = trainer.getForwardOutput()
    assert len(out) == 1 and out[0]["value"].shape == (32, 10)
    np.testing.assert_allclose(out[0]["value"].sum(1), 1, rtol=1e-5)  # softmax of the predict config
    layer = trainer.getLayerOutput("__fc_layer_0__")
    assert layer.getSlotValue(0).getHeight() == 32 and layer.getSlotValue(0).getWidth() == 512
    trainer.finishTrainPass()
    trainer.finishTrain()
    api.initPaddle("--config=")
    with pytest.raises(api.IOError, match="--config"):
        api.Trainer.createByCommandLine()


def test_trainer_2016_batch_calls(config):
    """v1's first Trainer API: setBatchSize, prepareBatchData + finishTrainOneBatch,
    forwardOneBatch on the prepared batch, getNetworkOutput."""
    trainer = api.Trainer.create(config)
    trainer.setBatchSize(100)
    trainer.startTrain()
    trainer.startTrainPass()
    assert trainer.prepareBatchData() is False
    assert trainer.forwardOneBatch() is False
    net = trainer.getNetworkOutput()
    assert net.getSlotNum() == 1 and net.getSlotValue(0).getHeight() == 100  # the cost per sample
    batches = 1
    while not trainer.prepareBatchData(100):
        trainer.finishTrainOneBatch()
        batches += 1
    assert batches == 15  # 1437 samples in batches of 100
    with pytest.raises(api.UnsupportError, match="prepareBatchData"):
        trainer.finishTrainOneBatch()
    trainer.finishTrainPass()
    trainer.finishTrain()


def test_numpy_copies_in_and_the_gpu_factories():
    m = api.Matrix.createZero(2, 3)
    m.copyFromNumpyMat(np.arange(8, dtype=np.float32).reshape(4, 2))  # takes the array's shape
    m.set(3, 1, -1)
    assert (m.getHeight(), m.getWidth()) == (4, 2) and m.copyToNumpyMat()[3].tolist() == [6, -1]
    v = api.Vector.createCpuVectorFromNumpy(np.ones(3, np.float32), copy=False)
    v.toNumpyArrayInplace()[1] = 5
    assert v.getData() == [1, 5, 1] and not v.isGpu()
    iv = api.IVector.createZero(3)
    iv.copyFromNumpyArray(np.array([4, 5, 6], np.int32))
    iv[0] = 9
    assert iv.toNumpyArrayInplace().tolist() == [9, 5, 6] and not iv.isGpu()
    assert api.IVector.createVectorFromNumpy(np.array([1, 2], np.int32)).getData() == [1, 2]
    assert api.IVector.createCpuVectorFromNumpy(np.array([3], np.int32)).getData() == [3]
    # Ids arrive as int64 or whole floats from numpy; what int32 cannot hold exactly is refused, not truncated.
    assert api.IVector.createVectorFromNumpy(np.array([[7, 8]], np.int64)).getData() == [7, 8]
    assert api.IVector.createVectorFromNumpy(np.array([7.0, -2.0])).getData() == [7, -2]
    for bad, message in ((np.array([1.0, 2.5]), "element 1 is 2.5"), (np.array([np.nan]), "element 0 is nan"),
                         (np.array([0, 2 ** 31], np.int64), "element 1 is 2147483648")):
        with pytest.raises(ValueError, match="an IVector holds int32 values: " + message):
            api.IVector.createVectorFromNumpy(bad)
    if not api.isGpuVersion():  # a CPU build says so clearly
        for make in (lambda: api.Matrix.createGpuDenseFromNumpy(np.zeros((1, 1), np.float32)),
                     lambda: api.Vector.createGpuVectorFromNumpy(np.zeros(1, np.float32)),
                     lambda: api.IVector.createGpuVectorFromNumpy(np.zeros(1, np.int32)),
                     lambda: api.setUseGpu(True)):
            with pytest.raises(api.UnsupportError, match="CUDA"):
                make()


def test_resize_rand_parameters_and_the_pass_calls(config, gm):
    args = api.Arguments.createArguments(0)
    args.resize(3)
    assert args.getSlotNum() == 3
    before = gm.getParameter(0).getBuf(api.PARAMETER_VALUE).copyToNumpyArray()
    gm.randParameters()
    after = gm.getParameter(0).getBuf(api.PARAMETER_VALUE).copyToNumpyArray()
    assert not np.array_equal(before, after) and 0 < after.std() < 1
    opt = api.ParameterOptimizer.create(config.opt_config)
    opt.startPass()
    opt.startBatch(8)
    opt.finishBatch()
    opt.finishPass()


def test_model_average_through_the_updater(config):
    """ParameterUpdater.apply / restore swap the averaged weights in and out; the local
    updater's getParametersRemote leaves the values alone."""
    config.opt_config.average_window = 0.5
    gm = api.GradientMachine.createFromConfigProto(config.model_config)
    updater = api.ParameterUpdater.createLocalUpdater(config.opt_config)
    updater.init(gm)
    batch = converter()(digits_batch())
    updater.startPass()
    for _ in range(3):
        updater.startBatch(8)
        gm.forwardBackward(batch, api.Arguments.createArguments(0), api.PASS_TRAIN)
        for p in gm.getParameters():
            updater.update(p)
        updater.finishBatch(0)
    bias = gm.getParameter(1).getBuf(api.PARAMETER_VALUE)
    trained = bias.copyToNumpyArray()
    updater.getParametersRemote(True, True)
    np.testing.assert_array_equal(bias.copyToNumpyArray(), trained)
    updater.apply()
    averaged = bias.copyToNumpyArray()
    assert not np.array_equal(averaged, trained)
    updater.restore()
    np.testing.assert_array_equal(bias.copyToNumpyArray(), trained)
    updater.finishPass()


def test_trainer_data_batches_and_test_period(config):
    trainer = api.Trainer.create(config)
    batch = converter()(digits_batch(16))
    trainer.startTrainPass()
    trainer.trainOneDataBatch(16, batch)
    trainer.finishTrainPass()
    assert trainer.getPassSamples() == 16
    trainer.startTestPeriod()
    trainer.testOneDataBatch(16, batch)
    trainer.finishTestPeriod()
    assert trainer.getTestSamples() == 16 and "classification_error_evaluator=" in trainer.getTestEval()
