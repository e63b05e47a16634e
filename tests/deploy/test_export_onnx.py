"""`paddle export_onnx`: onnxruntime on the exported model computes what the engine computes.

Every layer type and activation the exporter claims gets a tiny config with random
parameters (saved as a pass directory, as training would): the ONNX model's outputs on
random input equal the engine's test-mode forward through the SWIG API within 1e-5.
"""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="the onnx package is not installed (pip install '.[onnx]' in the checkout)")
ort = pytest.importorskip("onnxruntime", reason="onnxruntime is not installed (pip install '.[onnx]' in the checkout)")

from paddle.trainer.PyDataProvider2 import dense_vector, integer_value  # noqa: E402
from paddle.trainer.config_parser import parse_config  # noqa: E402
from paddle.utils.export_onnx import ExportError, export_onnx  # noqa: E402
from paddle.utils.export_onnx.graph import COST_TYPES  # noqa: E402
from py_paddle import DataProviderConverter, swig_paddle as api  # noqa: E402
from py_paddle.deploy import merge_model  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HEADER = "from paddle.trainer_config_helpers import *\nsettings(batch_size=16, learning_rate=1e-3)\n"
TOL = 1e-5

class Network(object):
    """A config file with random parameters saved as a pass directory."""

    def __init__(self, path, config_args="", seed=0, scale=1.0, config_init=False):
        """Parameters uniform in [-scale, scale] (moving variances in [0.2, 1]), or with
        config_init the config's own initialisation (fan-in scaled, as training starts: then
        calibrate_batch_norm gives the batch norms their statistics)."""
        self.path, self.config_args = str(path), config_args
        self.model = parse_config(self.path, config_args).model_config
        self.gm = api.GradientMachine.createFromConfigProto(self.model)
        rng = np.random.RandomState(seed)
        variances = {layer.inputs[2].input_parameter_name for layer in self.model.layers
                     if layer.type == "batch_norm"}
        self.gm.randParameters()
        for p in [] if config_init else self.gm.getParameters():
            if p.getName() in variances:
                values = rng.uniform(0.2, 1.0, p.getSize())
            else:
                values = scale * rng.uniform(-1.0, 1.0, p.getSize())
            p.getBuf(api.PARAMETER_VALUE).copyFromNumpyArray(values.astype(np.float32))
        self.pass_dir = os.path.join(os.path.dirname(self.path), "pass-00000")
        os.makedirs(self.pass_dir, exist_ok=True)
        self.gm.saveParameters(self.pass_dir)

    def arguments(self, feeds):
        """Arguments of feeds {data layer: array} (every data layer of the config)."""
        layers = {layer.name: layer for layer in self.model.layers}
        slots = list(self.model.input_layer_names)
        types = [integer_value(layers[n].size) if feeds[n].dtype.kind == "i" else dense_vector(layers[n].size)
                 for n in slots]
        samples = [[feeds[n][k].tolist() if feeds[n].dtype.kind != "i" else int(feeds[n][k]) for n in slots]
                   for k in range(len(feeds[slots[0]]))]
        return DataProviderConverter(types)(samples)

    def engine(self, feeds, names):
        """The engine's test-mode outputs of layers `names` on `feeds`."""
        out = api.Arguments.createArguments(0)
        self.gm.forward(self.arguments(feeds), out, api.PASS_TEST)
        return self.gm.getLayerOutputs(names)

    def calibrate_batch_norm(self, feeds, steps=20):
        """Moving means/variances of the batch norms near `feeds`' statistics, as training leaves
        them (training-mode forwards update them by moving_average_fraction 0.9 per batch)."""
        out, args = api.Arguments.createArguments(0), self.arguments(feeds)
        if not any(layer.type == "batch_norm" for layer in self.model.layers):
            return
        for _ in range(steps):
            self.gm.forward(args, out, api.PASS_TRAIN)
        self.gm.saveParameters(self.pass_dir)

    def export(self, output_layers=None):
        path = os.path.join(os.path.dirname(self.path), "model.onnx")
        export_onnx(path, self.path, model_dir=self.pass_dir, config_args=self.config_args,
                    output_layers=output_layers)
        return path


def onnx_run(path, feeds):
    session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    wanted = {i.name for i in session.get_inputs()}
    names = [o.name for o in session.get_outputs()]
    return dict(zip(names, session.run(None, {k: v for k, v in feeds.items() if k in wanted})))


def random_feeds(model, batch=6, seed=1, positive=False):
    """Random input for every data layer: ids for layers named 'ids*' or 'label', else dense values."""
    rng = np.random.RandomState(seed)
    feeds = {}
    for layer in model.layers:
        if layer.type != "data":
            continue
        if layer.name.startswith("ids") or layer.name == "label":
            feeds[layer.name] = rng.randint(0, layer.size, batch).astype(np.int64)
        else:
            low = 0.1 if positive else -1.0
            feeds[layer.name] = rng.uniform(low, 1.0, (batch, layer.size)).astype(np.float32)
    return feeds


def write_config(tmp_path, body, name="conf.py"):
    path = tmp_path / name
    path.write_text(HEADER + textwrap.dedent(body))
    return path


def check_parity(tmp_path, body, positive=False, batch=6, scale=1.0, config_args="", types=()):
    """Exports the config `body` and compares onnxruntime with the engine; returns the outputs.
    `types`: layer types the parsed config must contain."""
    net = Network(write_config(tmp_path, body), config_args, scale=scale)
    assert set(types) <= {layer.type for layer in net.model.layers}
    path = net.export()
    feeds = random_feeds(net.model, batch, positive=positive)
    got = onnx_run(path, feeds)
    want = net.engine(feeds, list(got))
    assert got, "the model has no outputs"
    for name, value in got.items():
        assert value.shape == want[name].shape, name
        np.testing.assert_allclose(value, want[name], rtol=TOL, atol=TOL, err_msg=name)
    return got


ACTIVATIONS = ["Linear", "Sigmoid", "Tanh", "Relu", "BRelu", "SoftRelu", "STanh", "Abs", "Square", "Exp",
               "Softmax"]
# weights x30: pre-activations far past brelu's bound (24) and the exp clip (40) of sigmoid/softrelu
CLIPPED = ["Sigmoid", "SoftRelu", "BRelu"]


@pytest.mark.parametrize("act,scale", [(a, 1.0) for a in ACTIVATIONS] + [(a, 30.0) for a in CLIPPED])
def test_fc_with_each_activation(tmp_path, act, scale):
    got = check_parity(tmp_path, """
        x = data_layer(name='x', size=7)
        y = fc_layer(input=x, size=40, act=%sActivation())
        outputs(y)
    """ % act, scale=scale)
    if act == "BRelu" and scale > 1:
        assert (got["__fc_layer_0__"] == 24).any()


def test_log_activation(tmp_path):
    check_parity(tmp_path, """
        x = data_layer(name='x', size=7)
        y = mixed_layer(input=[identity_projection(x)], size=7, act=LogActivation())
        outputs(y)
    """, positive=True)


def test_fc_with_several_inputs_and_without_bias(tmp_path):
    check_parity(tmp_path, """
        a = data_layer(name='a', size=5)
        b = data_layer(name='b', size=3)
        y = fc_layer(input=[a, b], size=4, act=TanhActivation())
        z = fc_layer(input=[y, a], size=6, bias_attr=False)
        outputs(y, z)
    """)


def test_mixed_with_every_projection_and_the_dotmul_operator(tmp_path):
    check_parity(tmp_path, """
        a = data_layer(name='a', size=6)
        b = data_layer(name='b', size=6)
        ids = data_layer(name='ids', size=11)
        y = mixed_layer(size=6, bias_attr=True, act=SigmoidActivation(), input=[
            full_matrix_projection(a), trans_full_matrix_projection(b), identity_projection(a),
            dotmul_projection(b), scaling_projection(a), table_projection(ids),
            dotmul_operator(a, b, scale=0.5)])
        part = mixed_layer(size=3, input=[identity_projection(a, offset=2, size=3)])
        outputs(y, part)
    """)
    model = parse_config(str(tmp_path / "conf.py")).model_config
    kinds = {inp.proj_conf.type for layer in model.layers for inp in layer.inputs if inp.HasField("proj_conf")}
    assert kinds == {"fc", "trans_fc", "identity", "identity_offset", "dot_mul", "scaling", "table"}
    assert [op.type for layer in model.layers for op in layer.operator_confs] == ["dot_mul"]


def test_embedding_concat_addto_and_dropout(tmp_path):
    got = check_parity(tmp_path, """
        ids = data_layer(name='ids', size=20)
        x = data_layer(name='x', size=4)
        emb = embedding_layer(input=ids, size=4)
        both = concat_layer(input=[emb, x])
        summed = addto_layer(input=[emb, x], bias_attr=True, act=ReluActivation())
        dropped = dropout_layer(input=summed, dropout_rate=0.3)
        outputs(both, dropped)
    """)
    assert len(got) == 2


def test_concat_of_projections(tmp_path):
    model = check_parity(tmp_path, """
        a = data_layer(name='a', size=5)
        ids = data_layer(name='ids', size=7)
        y = concat_layer(input=[full_matrix_projection(a, size=3), identity_projection(a),
                                table_projection(ids, size=2)], bias_attr=True, act=TanhActivation())
        outputs(y)
    """)
    assert list(model.values())[0].shape == (6, 10)


@pytest.mark.parametrize("conv", [
    "filter_size=3, num_filters=4, num_channels=2, stride=1, padding=1",
    "filter_size=3, num_filters=6, num_channels=4, groups=2, stride=2, padding=1",
    "filter_size=[3, 2], num_filters=3, num_channels=2, stride=[1, 2], padding=[1, 0], shared_biases=False",
])
def test_img_conv(tmp_path, conv):
    check_parity(tmp_path, """
        img = data_layer(name='img', size=%d, height=7, width=6)
        y = img_conv_layer(input=img, act=ReluActivation(), %s)
        outputs(y)
    """ % ((4 if "num_channels=4" in conv else 2) * 42, conv))


@pytest.mark.parametrize("pool", [
    "pool_size=2, stride=2, pool_type=MaxPooling()",
    "pool_size=3, stride=2, padding=1, pool_type=MaxPooling()",
    "pool_size=3, stride=2, padding=1, pool_type=AvgPooling()",
    "pool_size=2, stride=2, pool_type=AvgPooling()",
    "pool_size=3, pool_size_y=2, stride=2, stride_y=3, padding=1, padding_y=0, pool_type=AvgPooling()",
])
def test_img_pool(tmp_path, pool):
    # 7x7 images: most of these windows hang past the image, where v1's ceil rule and
    # its average divisor (window clipped to image + padding) matter
    check_parity(tmp_path, """
        img = data_layer(name='img', size=98, height=7, width=7)
        y = img_pool_layer(input=img, num_channels=2, %s)
        outputs(y)
    """ % pool)


# the parser writes the cudnn_ types for use_gpu=1 (batch norm from cuDNN 4.0.7 on): the same layers
GPU_ARGS = "use_gpu=1,cudnn_version=5000"


@pytest.mark.parametrize("config_args,types", [("", ["batch_norm"]), (GPU_ARGS, ["cudnn_batch_norm"])])
def test_batch_norm_of_images_and_of_vectors(tmp_path, config_args, types):
    check_parity(tmp_path, config_args=config_args, types=types, body="""
        img = data_layer(name='img', size=3 * 16, height=4, width=4)
        x = data_layer(name='x', size=5)
        a = batch_norm_layer(input=img, num_channels=3, act=ReluActivation())
        b = batch_norm_layer(input=x, bias_attr=False)
        outputs(a, b)
    """)


@pytest.mark.parametrize("config_args,types", [("", ["exconv", "batch_norm"]),
                                               (GPU_ARGS, ["cudnn_conv", "cudnn_batch_norm"])])
def test_conv_batch_norm_pool_chain(tmp_path, config_args, types):
    check_parity(tmp_path, config_args=config_args, types=types, body="""
        img = data_layer(name='img', size=3 * 64, height=8, width=8)
        c = img_conv_layer(input=img, filter_size=3, num_filters=4, num_channels=3, padding=1,
                           act=LinearActivation(), bias_attr=False)
        b = batch_norm_layer(input=c, act=ReluActivation())
        p = img_pool_layer(input=b, pool_size=2, stride=2, pool_type=MaxPooling())
        y = fc_layer(input=p, size=3, act=SoftmaxActivation())
        outputs(y)
    """)


def test_softmax_of_an_image_layer_is_row_wise(tmp_path):
    check_parity(tmp_path, """
        img = data_layer(name='img', size=2 * 16, height=4, width=4)
        b = batch_norm_layer(input=img, num_channels=2, act=SoftmaxActivation())
        p = img_pool_layer(input=b, pool_size=2, stride=2, pool_type=AvgPooling())
        outputs(b, p)
    """)


def cost_config(tmp_path):
    return write_config(tmp_path, """
        x = data_layer(name='x', size=8)
        label = data_layer(name='label', size=3)
        h = fc_layer(input=x, size=5, act=ReluActivation(), name='hidden')
        prob = fc_layer(input=h, size=3, act=SoftmaxActivation(), name='prob')
        outputs(classification_cost(input=prob, label=label))
    """)


def test_cost_layers_are_dropped_and_output_layers_chosen(tmp_path):
    net = Network(cost_config(tmp_path))
    feeds = random_feeds(net.model)
    model = onnx.load(net.export())
    assert [i.name for i in model.graph.input] == ["x"]  # the label belongs to the cost
    assert [o.name for o in model.graph.output] == ["prob"]
    got = onnx_run(net.export(output_layers=["hidden", "prob"]), feeds)
    want = net.engine(feeds, ["hidden", "prob"])
    assert sorted(got) == ["hidden", "prob"]
    for name in got:
        np.testing.assert_allclose(got[name], want[name], rtol=TOL, atol=TOL)
    with pytest.raises(ExportError, match="'__cost_0__' is a cost layer"):
        net.export(output_layers=["__cost_0__"])
    with pytest.raises(ExportError, match="no layer 'nope'"):
        net.export(output_layers=["nope"])


def run_python(args, cwd):
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    if any(n.startswith("_swig_paddle") for n in os.listdir(os.path.join(ROOT, "py_paddle"))):
        env["PYTHONPATH"] = ROOT  # in-place developer build
    return subprocess.run([sys.executable] + args, cwd=str(cwd), env=env, capture_output=True, text=True, timeout=600)


def paddle(args, cwd):
    return run_python(["-c", "import sys; from paddle.trainer.cli import main; sys.exit(main())"] + args, cwd)


def test_unsupported_layer_is_one_line_naming_it(tmp_path):
    path = write_config(tmp_path, """
        words = data_layer(name='words', size=30)
        emb = embedding_layer(input=words, size=8)
        proj = fc_layer(input=emb, size=16, act=LinearActivation())
        lstm = lstmemory(input=proj, name='lstm1')
        last = last_seq(input=lstm)
        outputs(fc_layer(input=last, size=2, act=SoftmaxActivation()))
    """)
    Network(path)
    p = paddle(["export_onnx", "--config=conf.py", "--model_dir=pass-00000", "--output=m.onnx"], tmp_path)
    assert p.returncode == 1, p.stderr
    assert "Traceback" not in p.stderr and len(p.stderr.strip().splitlines()) == 1, p.stderr
    assert "layer 'lstm1' (lstmemory) has no ONNX form; supported: data, addto, batch_norm" in p.stderr
    assert p.stderr.startswith("paddle export_onnx: error: conf.py:7: ")  # the config line that made it
    assert not (tmp_path / "m.onnx").exists()


def test_command_line_and_merged_model_give_the_same_model(tmp_path):
    path = write_config(tmp_path, """
        is_predict = get_config_arg('is_predict', bool, False)
        x = data_layer(name='x', size=8)
        h = fc_layer(input=x, size=5, act=TanhActivation())
        prob = fc_layer(input=h, size=3, act=SoftmaxActivation())
        if is_predict:
            outputs(prob)
        else:
            outputs(classification_cost(input=prob, label=data_layer(name='label', size=3)))
    """)
    net = Network(path, "is_predict=1")
    merged = str(tmp_path / "model.paddle")
    merge_model(str(path), net.pass_dir, merged, "is_predict=1")
    p = paddle(["export_onnx", "--config=conf.py", "--config_args=is_predict=1", "--model_dir=pass-00000",
                "--output=from_dir.onnx"], tmp_path)
    assert p.returncode == 0, p.stderr
    assert "wrote from_dir.onnx (opset 17; inputs: x ['batch', 8]; outputs: __fc_layer_1__ ['batch', 3])" in p.stdout
    p = run_python(["-m", "paddle.utils.export_onnx", "--model_file=model.paddle", "--output=from_merged.onnx"],
                   tmp_path)
    assert p.returncode == 0, p.stderr
    from_dir, from_merged = (open(str(tmp_path / f), "rb").read() for f in ("from_dir.onnx", "from_merged.onnx"))
    assert from_dir == from_merged
    feeds = random_feeds(net.model)
    got = onnx_run(str(tmp_path / "from_merged.onnx"), feeds)
    np.testing.assert_allclose(got["__fc_layer_1__"], net.engine(feeds, ["__fc_layer_1__"])["__fc_layer_1__"],
                               rtol=TOL, atol=TOL)


def test_missing_parameter_file_and_bad_flags(tmp_path):
    path = cost_config(tmp_path)
    os.makedirs(str(tmp_path / "empty"))
    p = paddle(["export_onnx", "--config=conf.py", "--model_dir=empty", "--output=m.onnx"], tmp_path)
    assert p.returncode == 1 and "Traceback" not in p.stderr
    assert "empty has no file for parameter _hidden.w0" in p.stderr, p.stderr
    with pytest.raises(ExportError, match="either --model_dir"):
        export_onnx(str(tmp_path / "m.onnx"), str(path))
    with pytest.raises(ExportError, match="--model_file holds its own config"):
        export_onnx(str(tmp_path / "m.onnx"), str(path), model_file=str(tmp_path / "m.paddle"))


DEMO = os.path.join(ROOT, "demos", "mnist")


def demo_parity(tmp_path, config, config_args="is_predict=1", batch=8):
    """Parity of every layer of a shipped config (not only its output, which a saturated
    softmax could make equal by accident); returns the outputs."""
    conf = tmp_path / os.path.basename(config)
    conf.write_text(open(config).read())
    net = Network(conf, config_args, config_init=True)
    feeds = random_feeds(net.model, batch)
    net.calibrate_batch_norm(feeds)
    layers = [layer.name for layer in net.model.layers if layer.type not in ("data",) + tuple(COST_TYPES)]
    path = net.export(output_layers=layers)
    got = onnx_run(path, feeds)
    want = net.engine(feeds, list(got))
    assert sorted(got) == sorted(layers)
    for name in got:
        # 1e-5 of the layer's scale: float32 rounding differs between the two engines'
        # summation orders, and twenty layers deep it adds up to a few 1e-5 on values of size 3
        scale = max(1.0, float(np.abs(want[name]).max()))
        np.testing.assert_allclose(got[name], want[name], rtol=TOL, atol=TOL * scale, err_msg=name)
    return got


def test_digits_mlp_demo(tmp_path):
    got = demo_parity(tmp_path, os.path.join(DEMO, "mlp.py"))
    assert got["__fc_layer_2__"].shape == (8, 10)


def test_lenet_demo(tmp_path):
    got = demo_parity(tmp_path, os.path.join(DEMO, "lenet.py"))
    assert got["output"].shape == (8, 10)


def test_resnet_cifar_config(tmp_path):
    got = demo_parity(tmp_path, os.path.join(ROOT, "configs", "resnet_cifar.py"), config_args="", batch=3)
    assert got["output"].shape == (3, 10)


def test_ignored_id_reads_a_zero_row(tmp_path):
    """v1's ignored id -1 (0xffffffff from CoNLL-style providers) embeds as zeros in both."""
    net = Network(write_config(tmp_path, """
        ids = data_layer(name='ids', size=9)
        emb = embedding_layer(input=ids, size=3)
        outputs(emb)
    """))
    ids = np.array([4, -1, 0, 8], np.int32)
    args = api.Arguments.createArguments(1)
    args.setSlotIdsFromBuffer(0, ids)
    out = api.Arguments.createArguments(0)
    net.gm.forward(args, out, api.PASS_TEST)
    want = out.getSlotValue(0).copyToNumpyMat()
    got = onnx_run(net.export(), {"ids": ids.astype(np.int64)})["__embedding_0__"]
    assert not want[1].any()
    np.testing.assert_array_equal(got, want)


def test_pool_window_wholly_in_the_padding_is_refused(tmp_path):
    # 2x2 images, 2x2 windows, stride 3, padding 1: v1's ceil rule gives 2 outputs a side,
    # the last starting past the image, where the engine outputs 0 and ONNX has no form
    net = Network(write_config(tmp_path, """
        img = data_layer(name='img', size=8, height=2, width=2)
        y = img_pool_layer(input=img, num_channels=2, pool_size=2, stride=3, padding=1, pool_type=MaxPooling())
        outputs(y)
    """))
    assert net.model.layers[1].inputs[0].pool_conf.output_x == 2
    with pytest.raises(ExportError, match="layer '__pool_0__' \\(pool\\): its last window lies wholly in the padding"):
        net.export()
