"""Image classification batches from a folder of images sorted by class.

    DATA/train/<class name>/*.jpg|png|bmp|jpeg
    DATA/test/<class name>/...

`ImageClassificationDatasetCreater(DATA, size, color).create_batches()` writes
DATA/batches/: train_batch_NNN and test_batch_NNN (pickled dicts whose
'images' are JPEG bytes of the images scaled to a shorter edge of `size` and
whose 'labels' are class ids), train.list, test.list, labels.pkl and
batches.meta (the mean of the centre size x size crops of the training images,
read back by paddle.utils.image_util.load_meta).
"""
import io
import logging
import os
import random

import numpy as np
from PIL import Image

from paddle.utils import preprocess_util
from paddle.utils.image_util import crop_img, resize_image

__all__ = ["resize_image", "DiskImage", "ImageClassificationDatasetCreater"]

LOG = logging.getLogger(__name__)


class DiskImage:
    """An image file read (once, on first use) and scaled to a shorter edge
    of target_size.  color=True reads it as RGB, False as greyscale, None keeps
    its own mode (turning modes JPEG cannot hold, like RGBA or palette, into RGB)."""

    def __init__(self, path, target_size, color=None):
        self.path = path
        self.target_size = target_size
        self.color = color
        self.img = None

    def read_image(self):
        if self.img is None:
            LOG.debug("reading: %s", self.path)
            img = Image.open(self.path)
            if self.color is not None:
                wanted = "RGB" if self.color else "L"
            else:
                wanted = img.mode if img.mode in ("RGB", "L") else "RGB"
            if img.mode != wanted:
                img = img.convert(wanted)
            self.img = resize_image(img, self.target_size)

    def convert_to_array(self):
        """The scaled image as a CHW (colour) or HW (grey) uint8 array."""
        self.read_image()
        pixels = np.array(self.img)
        if pixels.ndim == 3:
            pixels = pixels.transpose(2, 0, 1)
        return pixels

    def convert_to_paddle_format(self):
        """The scaled image JPEG-encoded: the 'images' entry of a batch."""
        self.read_image()
        buf = io.BytesIO()
        self.img.save(buf, "jpeg")
        return buf.getvalue()


class ImageClassificationDatasetCreater(preprocess_util.DatasetCreater):
    """Batches of (image, label) samples; see the module docstring."""

    def __init__(self, data_path, target_size, color=True):
        preprocess_util.DatasetCreater.__init__(self, data_path)
        self.target_size = target_size
        self.color = color
        self.keys = ["images", "labels"]
        self.permutate_key = "labels"

    def create_meta_file(self, data):
        """Writes batches.meta: the int32 mean image (flattened CHW or HW) of the
        training Dataset `data` with the image size, class count and colour flag."""
        size = self.target_size
        mean_img = np.zeros((3, size, size) if self.color else (size, size))
        for image, _ in data.data:
            mean_img += crop_img(image.convert_to_array(), size, self.color)
        mean_img /= max(len(data.data), 1)
        preprocess_util.save_file({
            "data_mean": mean_img.astype("int32").flatten(),
            "image_size": size,
            "mean_image_size": size,
            "num_classes": self.num_classes,
            "color": self.color,
        }, os.path.join(self.data_path, self.batch_dir_name, self.meta_filename))

    def _sample(self, image_path, label_id, label_name):
        return (DiskImage(image_path, self.target_size, self.color),
                preprocess_util.Label(label=label_id, name=label_name))

    def create_dataset_from_list(self, path):
        """`path` is a text file of "image_path label_name" lines; label ids
        number the label names in sorted order."""
        with open(path) as f:
            entries = [line.split() for line in f if line.strip()]
        label_set = {name: i for i, name in enumerate(sorted({e[1] for e in entries}))}
        data = [self._sample(e[0], label_set[e[1]], e[1]) for e in entries]
        return preprocess_util.Dataset(data, self.keys), label_set

    def create_dataset_from_dir(self, path):
        """Each sub-directory of `path` holds the images of the class it names."""
        label_set = preprocess_util.get_label_set_from_dir(path)
        data = [self._sample(image_path, label_id, name)
                for name, label_id in sorted(label_set.items())
                for image_path in preprocess_util.list_images(os.path.join(path, name))]
        random.shuffle(data)
        return preprocess_util.Dataset(data, self.keys), label_set
