"""Turns the CIFAR-10 python tarball into the batches image_provider.py reads.

    python data/process_cifar.py data/cifar-10-python.tar.gz data/cifar-out

reads cifar-10-batches-py/{data_batch_1..5, test_batch, batches.meta} from the
tarball (or an extracted folder) and writes under OUT/batches/:
  train_batch_000 .. 004, test_batch_000   pickles {'images': uint8 [n, 3072] CHW, 'labels': [n]}
  batches.meta                              {'data_mean': float32 [3072] mean training image,
                                             'label_names': CIFAR-10's class names}
  train.list, test.list                     the batch files, one a line
"""
import os
import pickle
import sys
import tarfile

import numpy as np

TRAIN_BATCHES = ["data_batch_%d" % i for i in range(1, 6)]
TEST_BATCHES = ["test_batch"]


def _members(source):
    """{base name: unpickled object} of the cifar-10-batches-py files in source."""
    wanted = set(TRAIN_BATCHES + TEST_BATCHES + ["batches.meta"])
    found = {}
    if os.path.isdir(source):
        for name in wanted & set(os.listdir(source)):
            with open(os.path.join(source, name), "rb") as f:
                found[name] = pickle.load(f, encoding="latin1")
    else:
        with tarfile.open(source) as tar:
            for info in tar:
                name = os.path.basename(info.name)
                if info.isfile() and name in wanted:
                    found[name] = pickle.load(tar.extractfile(info), encoding="latin1")
    missing = [n for n in TRAIN_BATCHES + TEST_BATCHES if n not in found]
    if len(missing) == len(TRAIN_BATCHES + TEST_BATCHES):
        raise ValueError("%s holds no CIFAR-10 python batches (cifar-10-batches-py/data_batch_1, ...)" % source)
    return found


def _images(batch, name):
    images = np.asarray(batch["data"], dtype=np.uint8)
    if images.ndim != 2 or images.shape[1] != 3 * 32 * 32 or len(batch["labels"]) != len(images):
        raise ValueError("%s: expected 'data' uint8 [n, 3072] and n 'labels', got %s and %d"
                         % (name, images.shape, len(batch["labels"])))
    return images, [int(label) for label in batch["labels"]]


def process(source, out_dir):
    """Writes the batches, the mean and the lists; returns (train, test) image counts."""
    found = _members(source)
    batches_dir = os.path.join(out_dir, "batches")
    os.makedirs(batches_dir, exist_ok=True)
    total, count = np.zeros(3 * 32 * 32), {"train": 0, "test": 0}
    for split, names in (("train", TRAIN_BATCHES), ("test", TEST_BATCHES)):
        paths = []
        for name in (n for n in names if n in found):
            images, labels = _images(found[name], name)
            if split == "train":
                total += images.sum(axis=0, dtype=np.float64)
            path = os.path.abspath(os.path.join(batches_dir, "%s_batch_%03d" % (split, len(paths))))
            with open(path, "wb") as f:
                pickle.dump({"images": images, "labels": labels}, f, protocol=2)
            paths.append(path)
            count[split] += len(labels)
        with open(os.path.join(batches_dir, "%s.list" % split), "w") as f:
            f.writelines(p + "\n" for p in paths)
    if not count["train"]:
        raise ValueError("%s: no training batch (data_batch_*)" % source)
    meta = {"data_mean": (total / count["train"]).astype(np.float32),
            "label_names": found.get("batches.meta", {}).get("label_names")}
    with open(os.path.join(batches_dir, "batches.meta"), "wb") as f:
        pickle.dump(meta, f, protocol=2)
    return count["train"], count["test"]


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: python process_cifar.py cifar-10-python.tar.gz OUT_DIR")
    print("wrote %d training and %d test images" % process(sys.argv[1], sys.argv[2]))
