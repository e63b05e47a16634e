"""demos/image_classification: a ResNet learns the generated images (class = pattern x
colour scheme) through `paddle train`; predict.py classifies PNG files with the saved
pass; data/process_cifar.py turns a CIFAR-10-python-laid-out tarball into the batches
the provider reads, and a pass trains on them (YAML twins: test_yaml_twins.py)."""
import io
import os
import pickle
import shutil
import tarfile

import numpy as np
import pytest

from demo_run import CLI, ROOT, TEST_ERROR, run

DEMO = os.path.join(ROOT, "demos", "image_classification")


@pytest.fixture
def work(tmp_path):
    path = str(tmp_path / "image_classification")
    shutil.copytree(DEMO, path, ignore=shutil.ignore_patterns("cifar_*_model", "cifar-out", "*.tar.gz", "__pycache__"))
    return path


def train(work, config_args, passes):
    log = run(CLI + ["train", "--config=resnet_cifar.py", "--save_dir=output", "--num_passes=%d" % passes,
                     "--config_args=" + config_args, "--log_period=0", "--dot_period=0"], work)
    return [(int(n), float(e)) for n, e in TEST_ERROR.findall(log)], log


@pytest.mark.slow  # a longer training: the whole suite (CI) runs it
def test_resnet_learns_generated_images_and_predicts_png_files(work):
    errors, log = train(work, "depth=8,num_samples=1000", 4)
    assert len(errors) == 4 and errors[-1][0] == 200, log[-2000:]
    assert errors[-1][1] < 0.5, errors  # chance is 0.9

    pngs = []
    for label in (0, 3, 6, 9):
        pngs.append("class%d.png" % label)
        run(["synthetic_images.py", pngs[-1], str(label)], work)
    out = run(["predict.py", "--config", "resnet_cifar.py", "--config_args=depth=8,num_samples=1000",
               "--model", "output/pass-00003"] + pngs, work).split("\n")
    rows = [line.split() for line in out if line.startswith("class")]
    assert [r[0] for r in rows] == pngs, out
    names = ["red_horizontal", "red_vertical", "red_diagonal", "red_checker", "red_rings",
             "yellow_horizontal", "yellow_vertical", "yellow_diagonal", "yellow_checker", "yellow_rings"]
    assert all(names[int(r[1])] == r[2] and 0.1 <= float(r[3]) <= 1.0 for r in rows), out
    assert sum(int(r[1]) == label for r, label in zip(rows, (0, 3, 6, 9))) >= 3, out


def write_cifar_tarball(path, rng):
    """A CIFAR-10 python tarball in the real layout: pickled dicts with 'data' (uint8 [n, 3072],
    each row R, G, B planes of 32x32), 'labels', 'filenames', 'batch_label', and batches.meta."""
    batches = {}
    with tarfile.open(path, "w:gz") as tar:
        def add(name, obj):
            data = pickle.dumps(obj, protocol=2)
            info = tarfile.TarInfo("cifar-10-batches-py/" + name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        for name, n in (("data_batch_1", 30), ("data_batch_2", 20), ("test_batch", 10)):
            images = rng.randint(0, 256, size=(n, 3072)).astype(np.uint8)
            labels = [int(v) for v in rng.randint(10, size=n)]
            batches[name] = (images, labels)
            add(name, {"batch_label": "fixture " + name, "labels": labels, "data": images,
                       "filenames": ["img_%d.png" % i for i in range(n)]})
        add("batches.meta", {"label_names": ["airplane", "automobile", "bird", "cat", "deer", "dog", "frog",
                                             "horse", "ship", "truck"], "num_cases_per_batch": 30, "num_vis": 3072})
    return batches


def test_process_cifar_reads_the_python_tarball_and_a_pass_trains_on_it(work):
    batches = write_cifar_tarball(os.path.join(work, "data", "cifar-10-python.tar.gz"), np.random.RandomState(0))
    out = run(["data/process_cifar.py", "data/cifar-10-python.tar.gz", "data/cifar-out"], work)
    assert "wrote 50 training and 10 test images" in out
    out_dir = os.path.join(work, "data", "cifar-out", "batches")
    with open(os.path.join(out_dir, "train.list")) as f:
        train_files = f.read().split()
    assert [os.path.basename(p) for p in train_files] == ["train_batch_000", "train_batch_001"]
    for path, name in zip(train_files, ("data_batch_1", "data_batch_2")):
        with open(path, "rb") as f:
            got = pickle.load(f)
        assert np.array_equal(got["images"], batches[name][0]) and got["labels"] == batches[name][1]
    with open(os.path.join(out_dir, "batches.meta"), "rb") as f:
        meta = pickle.load(f)
    train_images = np.concatenate([batches["data_batch_1"][0], batches["data_batch_2"][0]])
    assert np.allclose(meta["data_mean"], train_images.mean(axis=0), atol=1e-3)
    assert meta["label_names"][0] == "airplane"

    errors, log = train(work, "depth=8,dataset=cifar", 1)
    assert errors == [(10, errors[0][1])], log[-2000:]


def test_vgg_16_cifar_builds_small_vgg():
    code = ("from paddle.trainer.config_parser import parse_config\n"
            "c = parse_config('vgg_16_cifar.py', '')\n"
            "print(sum(l.type == 'exconv' for l in c.model_config.layers))")
    assert run(["-c", code], DEMO).split() == ["10"]  # small_vgg: 2 + 2 + 3 + 3 convolutions


def test_bad_config_args_are_config_errors():
    code = ("from paddle.trainer.config_parser import parse_config\n"
            "for a in ['depth=10', 'dataset=imagenet']:\n"
            "    try:\n"
            "        parse_config('resnet_cifar.py', a)\n"
            "    except Exception as e:\n"
            "        print(type(e).__name__, e)\n")
    out = run(["-c", code], DEMO).strip().split("\n")
    assert out[0] == "ConfigError resnet_cifar.py:15: depth must be 6n+2 (8, 14, 20, 32, 56, ...), got 10"
    assert out[1] == "ConfigError cifar_data.py:12: dataset must be 'synthetic' or 'cifar', got 'imagenet'"
