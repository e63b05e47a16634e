"""Building v1 batch files from a dataset on disk.

A v1 batch is a pickled dict mapping each slot name (e.g. 'images', 'labels')
to a list with one entry per sample; train.list / test.list name the batch
files, one a line, and labels.pkl pickles the label-name -> label-id dict.
`DatasetCreater` drives the whole job; subclasses such as
`paddle.utils.preprocess_img.ImageClassificationDatasetCreater` say how to read
the samples and what the meta file holds.
"""
import collections
import math
import os
import pickle
import random

__all__ = [
    "save_file", "save_list", "exclude_pattern", "list_dirs", "list_images", "list_files",
    "get_label_set_from_dir", "Label", "Dataset", "DataBatcher", "DatasetCreater",
]


def save_file(data, filename):
    """Pickles `data` into `filename`."""
    with open(filename, "wb") as f:
        pickle.dump(data, f, protocol=pickle.HIGHEST_PROTOCOL)


def save_list(l, outfile):
    """Writes the strings of `l` to `outfile`, one a line."""
    with open(outfile, "w") as f:
        f.write("\n".join(l))


def exclude_pattern(f):
    """True for names that listings skip: hidden files and editor backups (*~)."""
    return f.startswith(".") or f.endswith("~")


def list_dirs(path):
    """The sub-directories of `path` (joined to it), hidden ones left out."""
    return [os.path.join(path, d) for d in sorted(os.listdir(path))
            if os.path.isdir(os.path.join(path, d)) and not exclude_pattern(d)]


def list_files(path):
    """The plain files in `path` (joined to it), hidden and backup files left out."""
    return [os.path.join(path, f) for f in sorted(os.listdir(path))
            if os.path.isfile(os.path.join(path, f)) and not exclude_pattern(f)]


def list_images(path, exts=frozenset(["jpg", "png", "bmp", "jpeg"])):
    """The files in `path` whose extension (any case) is one of `exts`."""
    return [f for f in list_files(path) if os.path.splitext(f)[1][1:].lower() in exts]


def get_label_set_from_dir(path):
    """Maps each sub-directory name of `path` (one class each) to a label id,
    numbering the names in sorted order from 0."""
    names = sorted(os.path.basename(d) for d in list_dirs(path))
    return {name: i for i, name in enumerate(names)}


class Label:
    """A class label slot: its id and its name."""

    def __init__(self, label, name):
        self.label = label
        self.name = name

    def convert_to_paddle_format(self):
        return int(self.label)

    def __hash__(self):
        return hash(self.label)


class Dataset:
    """A list of samples, each a tuple with one object per slot; every slot
    object has convert_to_paddle_format().  `keys` names the slots in order."""

    def __init__(self, data, keys):
        self.data = data
        self.keys = keys

    def check_valid(self):
        for sample in self.data:
            assert len(sample) == len(self.keys), "a sample has %d slots, not %d" % (len(sample), len(self.keys))

    def permute(self, key_id, num_per_batch):
        """Shuffles the samples: at random when key_id is None, otherwise so that
        every batch holds about as many samples of each value of slot key_id."""
        if key_id is None:
            self.uniform_permute()
        else:
            self.permute_by_key(key_id, num_per_batch)

    def uniform_permute(self):
        random.shuffle(self.data)

    def permute_by_key(self, key_id, num_per_batch):
        """Interleaves the samples grouped by the `.label` of slot key_id: each
        round takes up to ceil(num_per_batch / number of groups) shuffled
        samples from every group in turn, until all are taken."""
        groups = collections.OrderedDict()
        for sample in self.data:
            groups.setdefault(sample[key_id].label, []).append(sample)
        if not groups:
            return
        for members in groups.values():
            random.shuffle(members)
        per_group = int(math.ceil(num_per_batch / float(len(groups))))
        if per_group < 2:
            raise Exception("The number of data in a batch is too small: %d samples for %d groups"
                            % (num_per_batch, len(groups)))
        largest = max(len(members) for members in groups.values())
        permuted = []
        for start in range(0, largest, per_group):
            for members in groups.values():
                permuted.extend(members[start:start + per_group])
        self.data = permuted


class DataBatcher:
    """Writes the training and test Datasets as batch files plus their lists."""

    def __init__(self, train_data, test_data, label_set):
        assert train_data.keys == test_data.keys, "training and test data have different slots"
        self.train_data = train_data
        self.test_data = test_data
        self.label_set = label_set
        self.num_per_batch = 5000

    def create_batches_and_list(self, output_path, train_list_name, test_list_name, label_set_name):
        """Writes train_batch_NNN / test_batch_NNN, the two batch lists and the label set."""
        train_list = self.create_batches(self.train_data, output_path, "train_", self.num_per_batch)
        test_list = self.create_batches(self.test_data, output_path, "test_", self.num_per_batch)
        save_list(train_list, os.path.join(output_path, train_list_name))
        save_list(test_list, os.path.join(output_path, test_list_name))
        save_file(self.label_set, os.path.join(output_path, label_set_name))

    def create_batches(self, data, output_path, prefix="", num_data_per_batch=5000):
        """Writes `data` as pickled batches of num_data_per_batch samples named
        PREFIXbatch_NNN in output_path; returns their paths."""
        data.check_valid()
        batch_names = []
        for batch_id, start in enumerate(range(0, len(data.data), num_data_per_batch)):
            batch = {key: [] for key in data.keys}
            for sample in data.data[start:start + num_data_per_batch]:
                for key, slot in zip(data.keys, sample):
                    batch[key].append(slot.convert_to_paddle_format())
            name = os.path.join(output_path, "%sbatch_%03d" % (prefix, batch_id))
            save_file(batch, name)
            batch_names.append(name)
        return batch_names


class DatasetCreater(object):
    """Base of the dataset creators.  Subclasses set `keys` (the slot names)
    and implement create_dataset_from_dir (and/or create_dataset_from_list)
    and create_meta_file.  The settings below are plain attributes that
    callers may change before create_batches()."""

    def __init__(self, data_path):
        self.data_path = data_path
        self.train_dir_name = "train"  # data_path/train and data_path/test hold the samples
        self.test_dir_name = "test"
        self.batch_dir_name = "batches"  # everything is written to data_path/batches
        self.num_per_batch = 50000
        self.meta_filename = "batches.meta"
        self.train_list_name = "train.list"
        self.test_list_name = "test.list"
        self.label_set_name = "labels.pkl"
        self.output_path = os.path.join(self.data_path, self.batch_dir_name)  # informational
        self.overwrite = False  # False: keep batches already there (the train list marks them)
        self.permutate_key = "labels"  # the slot balanced across batches; None shuffles freely
        self.from_list = False  # True: train/test are list files of "path label" lines

    # Hooks of v1's base class, which subclasses define (see
    # preprocess_img.ImageClassificationDatasetCreater).
    def create_meta_file(self, data):
        """Writes the meta file computed from the training Dataset `data`."""
        raise NotImplementedError("%s does not define create_meta_file" % type(self).__name__)

    def create_dataset(self, path):
        """Returns (Dataset, label set) for the samples under `path`."""
        if self.from_list:
            return self.create_dataset_from_list(path)
        return self.create_dataset_from_dir(path)

    def create_dataset_from_list(self, path):
        raise NotImplementedError("%s does not read list files" % type(self).__name__)

    def create_dataset_from_dir(self, path):
        raise NotImplementedError("%s does not read directories" % type(self).__name__)

    def create_batches(self):
        """Writes the batches, lists, label set and meta file; returns the output directory."""
        out_path = os.path.join(self.data_path, self.batch_dir_name)
        if not os.path.exists(out_path):
            os.makedirs(out_path)
        if self.overwrite or not os.path.exists(os.path.join(out_path, self.train_list_name)):
            train_data, train_label_set = self.create_dataset(os.path.join(self.data_path, self.train_dir_name))
            test_data, test_label_set = self.create_dataset(os.path.join(self.data_path, self.test_dir_name))
            assert train_label_set == test_label_set, (
                "training and test data have different classes: %s vs %s"
                % (sorted(train_label_set), sorted(test_label_set)))
            key_id = None if self.permutate_key is None else self.keys.index(self.permutate_key)
            train_data.permute(key_id, self.num_per_batch)
            batcher = DataBatcher(train_data, test_data, train_label_set)
            batcher.num_per_batch = self.num_per_batch
            batcher.create_batches_and_list(out_path, self.train_list_name, self.test_list_name,
                                            self.label_set_name)
            self.num_classes = len(train_label_set)
            self.create_meta_file(train_data)
        return out_path
