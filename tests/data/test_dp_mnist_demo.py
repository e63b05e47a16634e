"""The MNIST demo provider (demos/mnist/mnist_provider.py)."""

import gzip
import os
import sys

import numpy as np
import pytest

from paddle.trainer.data_provider import DataProvider
from dp_testutil import data_config

DEMO_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "demos", "mnist")
NAMES = ["pixel", "label"]


@pytest.fixture
def demo_cwd(monkeypatch):
    monkeypatch.chdir(DEMO_DIR)
    sys.modules.pop("mnist_provider", None)
    yield DEMO_DIR
    sys.modules.pop("mnist_provider", None)
    if DEMO_DIR in sys.path:
        sys.path.remove(DEMO_DIR)


def run_pass(list_file, args, is_train=False, batch_size=128):
    cfg = data_config("mnist_provider", "process", files=list_file, args=args)
    with DataProvider(cfg, NAMES, batch_size, is_train=is_train) as dp:
        batches = list(dp.batches())
        return dp, batches


def stack(batches):
    return (np.concatenate([b["pixel"].value for b in batches]),
            np.concatenate([b["label"].ids for b in batches]))


def test_digits_split_sizes_and_values(demo_cwd):
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split
    digits = load_digits()
    x_train, x_test, y_train, y_test = train_test_split(
        digits.data / 16.0, digits.target, test_size=0.2, random_state=0)

    dp, batches = run_pass("test.list", {"dataset": "digits"})
    assert dp.input_types[0].dim == 64 and dp.input_types[1].dim == 10
    x, y = stack(batches)
    assert x.shape == (360, 64) and x.dtype == np.float32
    np.testing.assert_allclose(x, x_test, rtol=1e-6)     # test: not shuffled
    np.testing.assert_array_equal(y, y_test)

    dp, batches = run_pass("train.list", None, is_train=True)  # digits default
    assert dp.shuffle is True
    x, y = stack(batches)
    assert x.shape == (1437, 64)
    assert [b.num_samples for b in batches] == [128] * 11 + [29]
    assert 0.0 <= x.min() and x.max() <= 1.0 and x.max() == 1.0
    assert sorted(y.tolist()) == sorted(y_train.tolist())
    assert set(y.tolist()) == set(range(10))


def write_idx(prefix, images, labels, compress=False):
    n, rows, cols = images.shape
    img = (2051).to_bytes(4, "big") + n.to_bytes(4, "big") + \
        rows.to_bytes(4, "big") + cols.to_bytes(4, "big") + images.tobytes()
    lab = (2049).to_bytes(4, "big") + n.to_bytes(4, "big") + labels.tobytes()
    for suffix, data in (("-images-idx3-ubyte", img), ("-labels-idx1-ubyte", lab)):
        if compress:
            with gzip.open(prefix + suffix + ".gz", "wb") as f:
                f.write(data)
        else:
            with open(prefix + suffix, "wb") as f:
                f.write(data)


@pytest.mark.parametrize("compress", [False, True])
def test_real_mnist_path(demo_cwd, tmp_path, compress):
    rng = np.random.default_rng(0)
    images = rng.integers(0, 256, (7, 28, 28), dtype=np.uint8)
    labels = rng.integers(0, 10, 7, dtype=np.uint8)
    write_idx(str(tmp_path / "t10k"), images, labels, compress)
    lst = tmp_path / "mnist_test.list"
    lst.write_text(str(tmp_path / "t10k") + "\n")
    dp, batches = run_pass(str(lst), {"dataset": "mnist"}, batch_size=4)
    assert dp.input_types[0].dim == 784
    x, y = stack(batches)
    assert x.shape == (7, 784)
    np.testing.assert_allclose(x, images.reshape(7, 784) / 255.0, rtol=1e-6)
    np.testing.assert_array_equal(y, labels)


def test_missing_mnist_files_explain_how_to_get_them(demo_cwd, tmp_path):
    lst = tmp_path / "x.list"
    lst.write_text(str(tmp_path / "train") + "\n")
    with pytest.raises(IOError, match="get_mnist_data.sh"):
        run_pass(str(lst), {"dataset": "mnist"})


def test_bad_dataset_and_bad_entry(demo_cwd, tmp_path):
    with pytest.raises(ValueError, match="dataset"):
        run_pass("train.list", {"dataset": "cifar"})
    lst = tmp_path / "x.list"
    lst.write_text("data/validation\n")
    with pytest.raises(ValueError, match="split"):
        run_pass(str(lst), {"dataset": "digits"})


def test_demo_file_lists():
    with open(os.path.join(DEMO_DIR, "train.list")) as f:
        assert f.read().split() == ["data/train"]
    with open(os.path.join(DEMO_DIR, "test.list")) as f:
        assert f.read().split() == ["data/t10k"]
