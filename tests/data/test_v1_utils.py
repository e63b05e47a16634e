"""v1's image helpers: paddle.utils.image_util, preprocess_util and preprocess_img,
used the way v1's image classification demo (preprocess.py, image_provider.py,
prediction.py) uses them."""
import io
import os
import pickle

import numpy as np
import pytest

Image = pytest.importorskip("PIL.Image")

from paddle.utils import image_util, preprocess_util  # noqa: E402
from paddle.utils.image_util import (ImageTransformer, crop_img, decode_jpeg, flip, load_image,  # noqa: E402
                                     load_meta, oversample, preprocess_img, resize_image)
from paddle.utils.preprocess_img import DiskImage, ImageClassificationDatasetCreater  # noqa: E402

# One solid colour per class, so every pixel of a decoded sample tells its class.
CLASS_COLORS = {"bird": (250, 10, 10), "cat": (10, 250, 10), "dog": (10, 10, 250)}
# (file name, PIL mode, (width, height)) of each class's training images: mixed formats, modes and shapes.
TRAIN_FILES = [("a.png", "RGBA", (24, 16)), ("b.jpg", "RGB", (16, 16)), ("c.png", "P", (16, 30)),
               ("d.jpeg", "RGB", (20, 20))]
TEST_FILES = [("e.png", "RGB", (16, 16)), ("f.JPG", "RGB", (32, 16))]
SIZE = 8


def write_image(path, color, mode, size):
    img = Image.new("RGB", size, color)
    if mode != "RGB":
        img = img.convert(mode)
    img.save(str(path))


@pytest.fixture
def image_folder(tmp_path):
    """DATA/train/<class>/... and DATA/test/<class>/... plus a file and a hidden
    folder that the listing must skip."""
    for part, files in (("train", TRAIN_FILES), ("test", TEST_FILES)):
        for name, color in CLASS_COLORS.items():
            folder = tmp_path / part / name
            folder.mkdir(parents=True)
            for file_name, mode, size in files:
                write_image(folder / file_name, color, mode, size)
            (folder / "notes.txt").write_text("not an image")
            (folder / "backup.png~").write_bytes(b"")
        (tmp_path / part / ".hidden").mkdir()
    return tmp_path


def read_pickle(path):
    with open(str(path), "rb") as f:
        return pickle.load(f)


def class_of(chw):
    """The class whose colour the (JPEG-decoded) CHW image shows."""
    pixel = chw.reshape(chw.shape[0], -1).mean(axis=1)
    return min(CLASS_COLORS, key=lambda c: np.abs(pixel - CLASS_COLORS[c]).sum())


# ------------------------------------------------------------ dataset creation

def test_creater_writes_v1_batches_lists_labels_and_meta(image_folder):
    creater = ImageClassificationDatasetCreater(str(image_folder), SIZE, color=True)
    creater.num_per_batch = 6  # 2 of each of the 3 classes per training batch
    out = creater.create_batches()
    assert out == str(image_folder / "batches")
    names = sorted(os.listdir(out))
    assert names == ["batches.meta", "labels.pkl", "test.list", "test_batch_000",
                     "train.list", "train_batch_000", "train_batch_001"]

    labels = {"bird": 0, "cat": 1, "dog": 2}
    assert read_pickle(image_folder / "batches" / "labels.pkl") == labels
    train_list = (image_folder / "batches" / "train.list").read_text().split("\n")
    assert train_list == [os.path.join(out, "train_batch_000"), os.path.join(out, "train_batch_001")]

    seen = []
    for batch_path in train_list:
        batch = read_pickle(batch_path)
        assert sorted(batch) == ["images", "labels"]
        assert len(batch["images"]) == len(batch["labels"]) == 6
        # balanced by label: permute_by_key takes ceil(6 / 3) = 2 samples of each class a round
        assert sorted(batch["labels"]) == [0, 0, 1, 1, 2, 2]
        for jpeg, label in zip(batch["images"], batch["labels"]):
            assert isinstance(jpeg, bytes) and jpeg[:2] == b"\xff\xd8"  # JPEG bytes, as v1 stored them
            img = decode_jpeg(jpeg)
            assert img.ndim == 3 and img.shape[0] == 3 and min(img.shape[1:]) == SIZE
            assert labels[class_of(img)] == label
            seen.append(img.shape)
    # shorter edge scaled to SIZE, aspect kept: 24x16 -> 12x8 (W x H), 16x30 -> 8x15
    assert (3, 8, 12) in seen and (3, 15, 8) in seen

    test_batch = read_pickle((image_folder / "batches" / "test.list").read_text())
    assert sorted(test_batch["labels"]) == [0, 0, 1, 1, 2, 2]

    meta = read_pickle(image_folder / "batches" / "batches.meta")
    assert sorted(meta) == ["color", "data_mean", "image_size", "mean_image_size", "num_classes"]
    assert (meta["image_size"], meta["mean_image_size"], meta["num_classes"], meta["color"]) == (SIZE, SIZE, 3, True)
    assert meta["data_mean"].dtype == np.int32 and meta["data_mean"].shape == (3 * SIZE * SIZE,)
    # every class has as many training images: the mean is the mean of the class colours
    expected = np.mean(list(CLASS_COLORS.values()), axis=0)
    mean = meta["data_mean"].reshape(3, SIZE, SIZE)
    for channel in range(3):
        assert np.abs(mean[channel] - expected[channel]).max() <= 3


def test_second_run_keeps_batches_unless_overwrite(image_folder):
    creater = ImageClassificationDatasetCreater(str(image_folder), SIZE)
    creater.num_per_batch = 100
    creater.create_batches()
    batch = image_folder / "batches" / "train_batch_000"
    os.utime(str(batch), (1, 1))
    creater.create_batches()
    assert os.stat(str(batch)).st_mtime == 1  # train.list exists: nothing rewritten
    creater.overwrite = True  # what v1's preprocess.py sets
    creater.create_batches()
    assert os.stat(str(batch)).st_mtime > 1


def test_grey_batches_and_list_files(image_folder, tmp_path):
    # v1's preprocess.py: custom list names; here from "path label" list files instead of folders
    for part in ("train", "test"):
        lines = ["%s %s" % (p, name) for name in sorted(CLASS_COLORS)
                 for p in preprocess_util.list_images(str(image_folder / part / name))]
        (image_folder / ("%s_files.txt" % part)).write_text("\n".join(lines) + "\n")
    creater = ImageClassificationDatasetCreater(str(image_folder), SIZE, color=False)
    creater.from_list = True
    creater.train_dir_name, creater.test_dir_name = "train_files.txt", "test_files.txt"
    creater.train_list_name, creater.test_list_name = "train.txt", "test.txt"
    creater.num_per_batch = 1000
    creater.create_batches()
    batch = read_pickle(image_folder / "batches" / "train_batch_000")
    assert sorted(batch["labels"]) == [0] * 4 + [1] * 4 + [2] * 4
    img = decode_jpeg(batch["images"][0])
    assert img.ndim == 2 and min(img.shape) == SIZE  # greyscale: HW
    meta = read_pickle(image_folder / "batches" / "batches.meta")
    assert meta["color"] is False and meta["data_mean"].shape == (SIZE * SIZE,)
    assert read_pickle(image_folder / "batches" / "labels.pkl") == {"bird": 0, "cat": 1, "dog": 2}
    assert (image_folder / "batches" / "train.txt").exists()


def test_disk_image_reads_once_and_converts(tmp_path):
    write_image(tmp_path / "x.png", (1, 2, 3), "RGBA", (10, 20))
    img = DiskImage(str(tmp_path / "x.png"), 5)
    arr = img.convert_to_array()
    assert arr.shape == (3, 10, 5) and arr.dtype == np.uint8  # CHW, RGBA turned to RGB
    assert (arr[:, 0, 0] == [1, 2, 3]).all()
    first = img.img
    assert Image.open(io.BytesIO(img.convert_to_paddle_format())).format == "JPEG"
    assert img.img is first
    grey = DiskImage(str(tmp_path / "x.png"), 5, color=False).convert_to_array()
    assert grey.shape == (10, 5)


# ------------------------------------------------------ v1's provider and predictor

def test_provider_flow_load_meta_decode_preprocess(image_folder):
    """image_provider.py: load_meta in the init hook, then decode_jpeg and preprocess_img per sample."""
    creater = ImageClassificationDatasetCreater(str(image_folder), SIZE)
    creater.create_batches()
    meta_path = str(image_folder / "batches" / "batches.meta")
    crop = 6
    img_mean = load_meta(meta_path, SIZE, crop, color=True)
    full_mean = read_pickle(meta_path)["data_mean"].reshape(3, SIZE, SIZE)
    assert img_mean.shape == (3, crop, crop) and img_mean.dtype == np.float32
    assert (img_mean == full_mean[:, 1:7, 1:7]).all()  # the centre of the mean image
    batch = read_pickle(image_folder / "batches" / "test_batch_000")
    for jpeg in batch["images"]:
        img = decode_jpeg(jpeg)
        feature = preprocess_img(img, img_mean, crop, is_train=False, color=True)
        assert feature.shape == (3 * crop * crop,)
        expected = crop_img(img.astype(np.float32), crop, test=True) - img_mean
        assert np.allclose(feature, expected.flatten())
        train_feature = preprocess_img(img, img_mean, crop, is_train=True)
        assert train_feature.shape == (3 * crop * crop,)


def test_predictor_flow_oversample_and_transformer(tmp_path):
    """prediction.py: load_image, resize_image, oversample, then transpose and mean per crop."""
    write_image(tmp_path / "x.png", (30, 60, 90), "RGBA", (20, 10))
    image = load_image(str(tmp_path / "x.png"))
    assert image.mode == "RGB"
    image = np.array(resize_image(image, 8))
    assert image.shape == (8, 16, 3)
    crops = oversample(image[np.newaxis].astype(np.float32), (6, 6))
    assert crops.shape == (10, 6, 6, 3) and crops.dtype == np.float32
    transformer = ImageTransformer(is_color=True)
    transformer.set_transpose((2, 0, 1))
    transformer.set_mean(np.full((3, 6, 6), 10.0))
    out = transformer.transformer(crops[0])
    assert out.shape == (3, 6, 6)
    assert np.allclose(out[:, 2, 2], [20, 50, 80], atol=2)
    assert np.allclose(crops[0][2, 2], [30, 60, 90], atol=2)  # the input is not modified


# ------------------------------------------------------------------ image_util

def test_resize_image_scales_the_shorter_edge():
    assert resize_image(Image.new("RGB", (40, 20)), 10).size == (20, 10)
    assert resize_image(Image.new("L", (15, 45)), 30).size == (30, 90)


def test_flip_mirrors_the_width_axis():
    chw = np.arange(24).reshape(2, 3, 4)
    assert (flip(chw) == chw[:, :, ::-1]).all()
    hw = np.arange(6).reshape(2, 3)
    assert (flip(hw) == [[2, 1, 0], [5, 4, 3]]).all()


def test_crop_img_centre_padding_and_random():
    im = np.arange(3 * 5 * 7, dtype=np.float32).reshape(3, 5, 7)
    assert (crop_img(im, 3) == im[:, 1:4, 2:5]).all()
    grey = np.arange(35).reshape(5, 7)
    assert (crop_img(grey, 3, color=False) == grey[1:4, 2:5]).all()
    # smaller than the crop: centred on zeros
    padded = crop_img(np.ones((3, 2, 2)), 4)
    assert padded.shape == (3, 4, 4) and padded.sum() == 12 and (padded[:, 1:3, 1:3] == 1).all()
    np.random.seed(3)
    for _ in range(20):
        pic = crop_img(im, 3, test=False)
        windows = [im[:, y:y + 3, x:x + 3] for y in range(3) for x in range(5)]
        assert any((pic == w).all() or (pic == w[:, :, ::-1]).all() for w in windows)


def test_decode_jpeg_and_preprocess_subtracts_the_mean():
    buf = io.BytesIO()
    pixels = np.random.RandomState(0).randint(0, 255, (4, 6, 3)).astype(np.uint8)
    Image.fromarray(pixels).save(buf, "png")  # lossless, so the decode is exact
    chw = decode_jpeg(buf.getvalue())
    assert (chw == pixels.transpose(2, 0, 1)).all()
    mean = np.full((3, 4, 4), 100, dtype=np.float32)
    out = preprocess_img(chw, mean, 4, is_train=False)
    assert np.allclose(out, (chw[:, :, 1:5].astype(np.float32) - 100).flatten())


def test_load_meta_crops_the_centre_of_a_larger_mean(tmp_path):
    mean = np.arange(3 * 8 * 8, dtype=np.int32)
    preprocess_util.save_file({"data_mean": mean}, str(tmp_path / "meta"))
    cropped = load_meta(str(tmp_path / "meta"), 8, 4)
    assert (cropped == mean.reshape(3, 8, 8)[:, 2:6, 2:6]).all() and cropped.dtype == np.float32
    preprocess_util.save_file({"data_mean": np.arange(64)}, str(tmp_path / "grey"))
    assert (load_meta(str(tmp_path / "grey"), 8, 4, color=False) == np.arange(64).reshape(8, 8)[2:6, 2:6]).all()
    with pytest.raises(AssertionError):
        load_meta(str(tmp_path / "grey"), 8, 4, color=True)


def test_load_image_colour_and_grey(tmp_path):
    write_image(tmp_path / "g.png", (5, 5, 5), "L", (4, 3))
    assert load_image(str(tmp_path / "g.png")).mode == "RGB"
    assert load_image(str(tmp_path / "g.png"), is_color=False).mode == "L"


def test_oversample_gives_corners_centre_and_mirrors():
    im = np.arange(5 * 7 * 2, dtype=np.float32).reshape(5, 7, 2)
    crops = oversample([im, im + 1], (3, 4))
    assert crops.shape == (20, 3, 4, 2)
    expected = [im[0:3, 0:4], im[0:3, 3:7], im[2:5, 0:4], im[2:5, 3:7], im[1:4, 1:5]]
    for i, e in enumerate(expected):
        assert (crops[i] == e).all()
        assert (crops[5 + i] == e[:, ::-1]).all()
    assert (crops[10:] == crops[:10] + 1).all()


def test_image_transformer_steps_and_checks():
    hwc = np.arange(2 * 3 * 3, dtype=np.float64).reshape(2, 3, 3)
    t = ImageTransformer(transpose=(2, 0, 1), channel_swap=(2, 1, 0), mean=np.array([1.0, 2.0, 3.0]))
    out = t.transformer(hwc)
    chw = hwc.transpose(2, 0, 1)
    assert out.shape == (3, 2, 3)
    assert (out == chw[[2, 1, 0]] - np.array([1.0, 2.0, 3.0])[:, None, None]).all()
    assert (ImageTransformer().transformer(chw) == chw).all()
    with pytest.raises(AssertionError):
        ImageTransformer(transpose=(1, 0))
    with pytest.raises(AssertionError):
        ImageTransformer(channel_swap=(0, 1))
    with pytest.raises(AssertionError):
        ImageTransformer(mean=np.zeros((4, 4)))
    grey = ImageTransformer(transpose=(1, 0), mean=np.zeros((3, 2)), is_color=False)
    assert grey.transformer(np.ones((2, 3))).shape == (3, 2)


# ------------------------------------------------------------- preprocess_util

def test_listing_helpers(image_folder, tmp_path):
    cat = str(image_folder / "train" / "cat")
    assert preprocess_util.exclude_pattern(".x") and preprocess_util.exclude_pattern("x~")
    assert not preprocess_util.exclude_pattern("x.png")
    assert [os.path.basename(p) for p in preprocess_util.list_images(cat)] == ["a.png", "b.jpg", "c.png", "d.jpeg"]
    assert [os.path.basename(p) for p in preprocess_util.list_files(cat)] == [
        "a.png", "b.jpg", "c.png", "d.jpeg", "notes.txt"]
    assert preprocess_util.list_dirs(str(image_folder / "train")) == [
        os.path.join(str(image_folder / "train"), n) for n in ("bird", "cat", "dog")]
    assert preprocess_util.get_label_set_from_dir(str(image_folder / "test")) == {"bird": 0, "cat": 1, "dog": 2}
    preprocess_util.save_list(["a", "b"], str(tmp_path / "l.txt"))
    assert (tmp_path / "l.txt").read_text() == "a\nb"


class Slot:
    def __init__(self, value):
        self.label = value

    def convert_to_paddle_format(self):
        return self.label


def test_permute_by_key_balances_and_keeps_every_sample():
    data = [(Slot(i), preprocess_util.Label(label=c, name=str(c))) for i, c in enumerate([0] * 6 + [1] * 3)]
    ds = preprocess_util.Dataset(list(data), ["x", "y"])
    ds.permute(1, 4)  # 2 of each label a round, then the rest of label 0
    assert [s[1].label for s in ds.data] == [0, 0, 1, 1, 0, 0, 1, 0, 0]
    assert sorted(s[0].label for s in ds.data) == list(range(9))
    with pytest.raises(Exception, match="too small"):
        ds.permute(1, 2)
    ds.permute(None, 4)
    assert sorted(s[0].label for s in ds.data) == list(range(9))
    assert preprocess_util.Label(label=3, name="c").convert_to_paddle_format() == 3
    assert hash(preprocess_util.Label(label=3, name="c")) == hash(3)


def test_data_batcher_splits_and_names_batches(tmp_path):
    train = preprocess_util.Dataset([(Slot(i),) for i in range(5)], ["x"])
    test = preprocess_util.Dataset([(Slot(9),)], ["x"])
    batcher = preprocess_util.DataBatcher(train, test, {"only": 0})
    batcher.num_per_batch = 2
    batcher.create_batches_and_list(str(tmp_path), "train.list", "test.list", "labels.pkl")
    train_list = (tmp_path / "train.list").read_text().split("\n")
    assert [os.path.basename(p) for p in train_list] == ["train_batch_000", "train_batch_001", "train_batch_002"]
    assert [read_pickle(p) for p in train_list] == [{"x": [0, 1]}, {"x": [2, 3]}, {"x": [4]}]
    assert read_pickle((tmp_path / "test.list").read_text()) == {"x": [9]}
    assert read_pickle(tmp_path / "labels.pkl") == {"only": 0}
    with pytest.raises(AssertionError):
        preprocess_util.DataBatcher(train, preprocess_util.Dataset([], ["y"]), {})
    with pytest.raises(NotImplementedError):
        preprocess_util.DatasetCreater(str(tmp_path)).create_dataset(str(tmp_path))


def test_module_names_match_v1():
    for name in ("resize_image", "flip", "crop_img", "decode_jpeg", "preprocess_img", "load_meta",
                 "load_image", "oversample", "ImageTransformer"):
        assert callable(getattr(image_util, name))
    for name in ("save_file", "save_list", "exclude_pattern", "list_dirs", "list_images", "list_files",
                 "get_label_set_from_dir", "Label", "Dataset", "DataBatcher", "DatasetCreater"):
        assert callable(getattr(preprocess_util, name))
    for name in ("set_transpose", "set_channel_swap", "set_mean", "transformer"):
        assert callable(getattr(ImageTransformer, name))


def _python2_meta(values):
    """A batches.meta as v1's Python 2 preprocess_util wrote it: cPickle (protocol 2) of
    {'data_mean': a float32 array}, whose bytes are a Python 2 str (SHORT_BINSTRING)."""
    import struct
    data = np.asarray(values, "<f4").tobytes()
    binstring = (b"U" + bytes([len(data)]) + data) if len(data) < 256 else (b"T" + struct.pack("<i", len(data)) + data)
    return (b"\x80\x02}U\tdata_mean" + b"cnumpy.core.multiarray\n_reconstruct\ncnumpy\nndarray\nK\x00\x85U\x01b\x87R"
            + b"(K\x01K" + bytes([len(values)]) + b"\x85cnumpy\ndtype\nU\x02f4K\x00K\x01\x87R"
            + b"(K\x03U\x01<NNNJ\xff\xff\xff\xffJ\xff\xff\xff\xffK\x00tb\x89" + binstring + b"tbs.")


def test_load_meta_reads_what_v1_wrote(tmp_path):
    """v1 read the meta with np.load: Python 2 pickles (numpy arrays inside need latin1) and
    .npz archives; a bare .npy array is the mean itself."""
    mean = np.linspace(-1, 1, 3 * 4 * 4).astype(np.float32)
    (tmp_path / "py2.meta").write_bytes(_python2_meta(list(mean)))
    np.testing.assert_array_equal(load_meta(str(tmp_path / "py2.meta"), 4, 2), mean.reshape(3, 4, 4)[:, 1:3, 1:3])
    np.savez(str(tmp_path / "mean.npz"), data_mean=mean)
    np.testing.assert_array_equal(load_meta(str(tmp_path / "mean.npz"), 4, 4), mean.reshape(3, 4, 4))
    np.save(str(tmp_path / "mean.npy"), mean)
    np.testing.assert_array_equal(load_meta(str(tmp_path / "mean.npy"), 4, 4), mean.reshape(3, 4, 4))
    np.savez(str(tmp_path / "other.npz"), label_names=np.arange(3))
    with pytest.raises(KeyError, match="has no data_mean"):
        load_meta(str(tmp_path / "other.npz"), 4, 4)


def test_star_import_brings_image_and_numpy():
    """v1's ResNet image_list_provider.py: from paddle.utils.image_util import *, then Image.open
    and np.array."""
    scope = {}
    exec("from paddle.utils.image_util import *", scope)
    assert scope["Image"].open is Image.open and scope["np"] is np
    assert "load_meta" in scope and "oversample" in scope
