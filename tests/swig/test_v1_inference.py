"""v0.10's inference scripts against a model trained here: GradientMachine.getLayerOutputs
gives, per layer, {'value', 'id', 'prob'} (image classification's prediction.py averages
output[name]['value'] over crops; ResNet's classify.py reads several layers' 'value'), and
v0.9 callers that used the bare matrix keep working."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from paddle.trainer.config_parser import parse_config
from paddle.trainer.PyDataProvider2 import dense_vector
from py_paddle import DataProviderConverter, swig_paddle as api

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

CONFIG = """\
    from paddle.trainer_config_helpers import *
    is_predict = get_config_arg("is_predict", bool, False)
    if not is_predict:
        define_py_data_sources2("train.list", None, module="provider", obj="process")
    settings(batch_size=8, learning_rate=0.01, learning_method=MomentumOptimizer(0.9))
    img = data_layer(name="image", size=3 * 8 * 8)
    conv = img_conv_layer(input=img, filter_size=3, num_channels=3, num_filters=4, padding=1,
                          act=ReluActivation(), name="conv")
    pool = img_pool_layer(input=conv, pool_size=2, stride=2, name="pool")
    out = fc_layer(input=pool, size=3, act=SoftmaxActivation(), name="output")
    if is_predict:
        outputs(out, maxid_layer(out, name="maxid"))
    else:
        outputs(classification_cost(input=out, label=data_layer(name="label", size=3)))
    """

PROVIDER = """\
    import numpy as np
    from paddle.trainer.PyDataProvider2 import *

    @provider(input_types=[dense_vector(3 * 8 * 8), integer_value(3)])
    def process(settings, filename):
        rng = np.random.RandomState(0)
        for i in range(48):
            label = i % 3
            img = rng.rand(3, 8, 8).astype('float32') * 0.2
            img[label] += 0.8
            yield img.reshape(-1), label
    """


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    work = tmp_path_factory.mktemp("v1_inference")
    (work / "conf.py").write_text(textwrap.dedent(CONFIG))
    (work / "provider.py").write_text(textwrap.dedent(PROVIDER))
    (work / "train.list").write_text("synthetic\n")
    env = dict(os.environ, PYTHONPATH=ROOT, OPENBLAS_NUM_THREADS="1")
    p = subprocess.run([sys.executable, "-c", "import sys; from paddle.trainer.cli import main; sys.exit(main())",
                        "train", "--config=conf.py", "--num_passes=3", "--save_dir=model", "--dot_period=0"],
                       cwd=str(work), env=env, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-3000:]
    return work


def load(work):
    api.initPaddle("--use_gpu=0")
    conf = parse_config(str(work / "conf.py"), "is_predict=1")
    gm = api.GradientMachine.createFromConfigProto(conf.model_config)
    gm.loadParameters(str(work / "model" / "pass-00002"))
    return gm


def images(label, n):
    rng = np.random.RandomState(label + 10)
    out = rng.rand(n, 3, 8, 8).astype("float32") * 0.2
    out[:, label] += 0.8
    return out.reshape(n, -1)


def test_prediction_py_flow_averages_crops_values(trained):
    """image classification's prediction.py: forwardTest on the crops of one image, then
    output[name]['value'].mean(0) is the image's class probabilities."""
    gm = load(trained)
    converter = DataProviderConverter([dense_vector(3 * 8 * 8)])
    for label in range(3):
        gm.forwardTest(converter([[crop] for crop in images(label, 4)]))
        output = gm.getLayerOutputs("output")
        probs = output["output"]["value"].mean(0)
        assert probs.shape == (3,) and abs(probs.sum() - 1) < 1e-5
        assert int(np.argmax(probs)) == label, probs
        assert output["output"]["id"] is None and output["output"]["prob"] is None


def test_classify_py_flow_reads_several_layers_and_the_max_id(trained):
    """ResNet's classify.py: getLayerOutputs(list of names), output[name]['value'] per layer;
    a max-id layer gives 'id' and, as 'prob', the probability of the id it chose (v1's `in`)."""
    gm = load(trained)
    converter = DataProviderConverter([dense_vector(3 * 8 * 8)])
    batch = np.concatenate([images(label, 2) for label in range(3)])
    gm.forwardTest(converter([[row] for row in batch]))
    output = gm.getLayerOutputs(["conv", "pool", "output", "maxid"])
    assert sorted(output) == ["conv", "maxid", "output", "pool"]
    assert sorted(output["conv"]) == ["id", "prob", "value"]
    assert output["conv"]["value"].shape == (6, 4 * 8 * 8)
    assert output["pool"]["value"].shape == (6, 4 * 4 * 4)
    assert output["maxid"]["id"].tolist() == [0, 0, 1, 1, 2, 2]
    np.testing.assert_allclose(output["maxid"]["prob"][:, 0], output["output"]["value"].max(1), rtol=1e-6)


def test_v0_9_callers_still_get_the_matrix(trained):
    gm = load(trained)
    converter = DataProviderConverter([dense_vector(3 * 8 * 8)])
    gm.forwardTest(converter([[row] for row in images(1, 3)]))
    out = gm.getLayerOutputs("output")["output"]
    value = out["value"]
    np.testing.assert_array_equal(np.asarray(out), value)
    assert out.shape == (3, 3) and out.argmax(1).tolist() == [1, 1, 1]
    np.testing.assert_array_equal(out[0], value[0])
    with pytest.raises(TypeError):
        gm.getLayerOutputs(3)
