"""Image helpers for v1 image data providers and predictors.

Arrays follow v1's conventions: a colour image is a (channels, height, width)
ndarray ("CHW"), a grey image a (height, width) one; `oversample` alone works
on (height, width, channels) images, as the v1 predictor hands them over.
"""
import io
import pickle

import numpy as np
from PIL import Image

# v1's module had no __all__, so `from paddle.utils.image_util import *` also gave its imports
# Image and np (v1's ResNet image_list_provider.py uses them so).
__all__ = [
    "resize_image", "flip", "crop_img", "decode_jpeg", "preprocess_img", "load_meta",
    "load_image", "oversample", "ImageTransformer", "Image", "np",
]

# Pillow 9.1 moved the filters into Image.Resampling; older ones only have Image.LANCZOS.
_LANCZOS = getattr(getattr(Image, "Resampling", Image), "LANCZOS")


def resize_image(img, target_size):
    """Scales the PIL image `img` so that its shorter edge is `target_size` pixels."""
    scale = target_size / float(min(img.size))
    new_size = (int(round(img.size[0] * scale)), int(round(img.size[1] * scale)))
    return img.resize(new_size, _LANCZOS)


def flip(im):
    """Mirrors a CHW or HW image left to right."""
    return im[..., ::-1]


def crop_img(im, inner_size, color=True, test=True):
    """Cuts an inner_size x inner_size square out of a CHW (color) or HW image.

    An image smaller than inner_size is first centred on a zero canvas.  With
    test=True the square is the centre one; otherwise it is placed at random and
    mirrored with probability 1/2 (training-time augmentation).
    """
    im = np.asarray(im)
    height, width = im.shape[-2:]
    canvas_h, canvas_w = max(inner_size, height), max(inner_size, width)
    canvas = np.zeros(im.shape[:-2] + (canvas_h, canvas_w))
    top, left = (canvas_h - height) // 2, (canvas_w - width) // 2
    canvas[..., top:top + height, left:left + width] = im
    if test:
        top, left = (canvas_h - inner_size) // 2, (canvas_w - inner_size) // 2
    else:
        top = np.random.randint(0, canvas_h - inner_size + 1)
        left = np.random.randint(0, canvas_w - inner_size + 1)
    pic = canvas[..., top:top + inner_size, left:left + inner_size]
    if not test and np.random.randint(2) == 0:
        pic = flip(pic)
    return pic


def decode_jpeg(jpeg_string):
    """Decodes encoded image bytes (the 'images' entries of a v1 batch) to a CHW or HW array."""
    pixels = np.array(Image.open(io.BytesIO(jpeg_string)))
    if pixels.ndim == 3:
        pixels = pixels.transpose(2, 0, 1)
    return pixels


def preprocess_img(im, img_mean, crop_size, is_train, color=True):
    """Crops `im` (centre crop, or random crop and flip when is_train), subtracts
    `img_mean` and returns the result flattened."""
    pic = crop_img(np.asarray(im, dtype=np.float32), crop_size, color, test=not is_train)
    pic -= img_mean
    return pic.flatten()


def read_meta(path):
    """A batches.meta file as v1's np.load read it: an .npz archive, or a pickle, Python 3's
    or Python 2's (v1's preprocess_util wrote those with cPickle: their numpy arrays are
    read with encoding='latin1', as numpy documents); a bare .npy array is {'data_mean': it}."""
    with open(path, "rb") as f:
        head = f.read(6)
    if head.startswith(b"PK"):
        with np.load(path) as archive:
            return {k: archive[k] for k in archive.files}
    if head == b"\x93NUMPY":
        return {"data_mean": np.load(path)}
    with open(path, "rb") as f:
        try:
            return pickle.load(f)
        except UnicodeDecodeError:  # Python 2's str inside: the array bytes
            f.seek(0)
            return pickle.load(f, encoding="latin1")


def load_meta(meta_path, mean_img_size, crop_size, color=True):
    """Reads the mean image of a batches.meta file (read_meta) and returns its centre
    crop_size x crop_size part as float32 (CHW for color, HW otherwise)."""
    meta = read_meta(meta_path)
    if "data_mean" not in meta:
        raise KeyError("%s has no data_mean (it holds %s)" % (meta_path, ", ".join(sorted(map(str, meta)))))
    mean = np.asarray(meta["data_mean"])
    channels = 3 if color else 1
    assert mean.shape[0] == channels * mean_img_size * mean_img_size, (
        "mean image has %d values, not %d x %d x %d" % (mean.shape[0], channels, mean_img_size, mean_img_size))
    mean = mean.reshape((3, mean_img_size, mean_img_size) if color else (mean_img_size, mean_img_size))
    border = (mean_img_size - crop_size) // 2
    return mean[..., border:border + crop_size, border:border + crop_size].astype(np.float32)


def load_image(img_path, is_color=True):
    """Opens an image file as a PIL image, in RGB when is_color and in greyscale otherwise."""
    img = Image.open(img_path)
    img.load()
    wanted = "RGB" if is_color else "L"
    return img if img.mode == wanted else img.convert(wanted)


def oversample(img, crop_dims):
    """Ten crops of each HWK image in `img`: the four corners and the centre,
    then the same five mirrored.  Returns a (10 * len(img), h, w, K) float32 array."""
    crop_h, crop_w = crop_dims
    height, width = np.asarray(img[0]).shape[:2]
    corners = [(0, 0), (0, width - crop_w), (height - crop_h, 0), (height - crop_h, width - crop_w)]
    origins = corners + [((height - crop_h) // 2, (width - crop_w) // 2)]
    crops = []
    for im in img:
        im = np.asarray(im)
        five = [im[y:y + crop_h, x:x + crop_w, :] for y, x in origins]
        crops.extend(five)
        crops.extend(c[:, ::-1, :] for c in five)
    return np.array(crops, dtype=np.float32)


class ImageTransformer:
    """Turns a loaded image array into network input: an optional axis
    transpose (e.g. HWC -> CHW), channel reorder (e.g. RGB -> BGR) and mean
    subtraction, applied in that order by `transformer`."""

    def __init__(self, transpose=None, channel_swap=None, mean=None, is_color=True):
        self.is_color = is_color
        self.set_transpose(transpose)
        self.set_channel_swap(channel_swap)
        self.set_mean(mean)

    def set_transpose(self, order):
        if order is not None and self.is_color:
            assert len(order) == 3, "a colour image transpose needs 3 axes"
        self.transpose = order

    def set_channel_swap(self, order):
        if order is not None and self.is_color:
            assert len(order) == 3, "a colour channel order needs 3 entries"
        self.channel_swap = order

    def set_mean(self, mean):
        """mean: one value per channel (1-d), or a whole mean image."""
        if mean is not None:
            mean = np.asarray(mean)
            if mean.ndim == 1:
                mean = mean[:, np.newaxis, np.newaxis]  # broadcast over height and width
            elif self.is_color:
                assert mean.ndim == 3, "a colour mean image must be CHW"
        self.mean = mean

    def transformer(self, data):
        if self.transpose is not None:
            data = data.transpose(self.transpose)
        if self.channel_swap is not None:
            data = data[list(self.channel_swap), :, :]
        if self.mean is not None:
            # Out of place: `data` may be a view of the caller's array.
            data = data - self.mean
        return data
