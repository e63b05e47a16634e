"""Built-in PyDataProvider2 readers for common data, so a config needs no provider code:

    define_py_data_sources2(train_list='train.list', test_list='test.list',
                            module='paddle.trainer.readers', obj='csv',
                            args={'label_column': -1, 'header': True})

Every reader is a `@provider`; its `args` arrive as keyword arguments of its init hook, and
it feeds the model's data layers in order (features first, then the label): the first two
data layers, or those named by `args['slots']`. A model with one data layer (a prediction
config) gets the features only. The file list names the files (folders, for `image_folder`).

  csv           delimited text: feature columns (scaled, encoded as declared) and a class column
  image_folder  a folder per class of image files (PIL), as CHW float vectors in [0, 1]
  text          lines "LABEL<TAB>words ...": word ids from a vocabulary, and the class id
  synthetic     random samples shaped like the model's data layers (any model runs without data)

docs/readers.md describes the arguments.
"""
import atexit
import csv as _csv
import os
import re
import shutil
import tempfile
import zlib

import numpy as np

from paddle.trainer import PyDataProvider2 as dp2
from paddle.trainer import preprocessing
from paddle.trainer.PyDataProvider2 import CacheType, dense_vector, integer_value, provider

__all__ = ['csv', 'image_folder', 'text', 'synthetic', 'input_type', 'use_synthetic_data']


def _slot_names(slots=None, input_order=None, **_):
    """The data layers a reader feeds: `slots`, else the model's first two (features, label)."""
    names = list(slots or input_order or ['features', 'label'])
    if not 1 <= len(names) <= 2:
        raise ValueError("readers feed one or two data layers (features, label); the model has %d "
                         "(%s): name the two with args={'slots': [features, label]}"
                         % (len(names), ", ".join(names)))
    return names


def _bind_slots(settings, feature_type, label_type, **kwargs):
    """Declares dict input types: the features and the label under the names of the model's
    data layers; a single data layer gets the features."""
    names = _slot_names(**kwargs)
    settings.feature_slot = names[0]
    settings.label_slot = names[1] if len(names) == 2 else None
    settings.input_types = {names[0]: feature_type}
    if settings.label_slot is not None:
        settings.input_types[settings.label_slot] = label_type


def _sample(settings, features, label):
    sample = {settings.feature_slot: features}
    if settings.label_slot is not None:
        sample[settings.label_slot] = label
    return sample


# ---------------------------------------------------------------------------------- csv

def _csv_rows(path, delimiter):
    with open(path, newline='', encoding='utf-8') as f:
        for line_no, row in enumerate(_csv.reader(f, delimiter=delimiter), 1):
            if row and any(cell.strip() for cell in row):
                yield line_no, row


def _delimiter(path, delimiter):
    if delimiter is not None:
        return delimiter
    return '\t' if path.lower().endswith(('.tsv', '.tab')) else ','


def _is_number(text):
    try:
        float(text)
        return True
    except ValueError:
        return False


def _has_header(first, second, label_column):
    """A first row is a header when the label column is named, or when it has a word where
    the next row has a number (a string label column alone does not make a header)."""
    if isinstance(label_column, str):
        return True
    if second is None or len(second) != len(first):
        return not all(_is_number(c) for c in first)
    return any(not _is_number(a) and _is_number(b) for a, b in zip(first, second))


def _csv_table(file_list, delimiter, header):
    """(header names or None, [("file:line", cells)]) of the files; every file has the first
    one's header (when there is one) and width."""
    names, rows, width = None, [], None
    for path in file_list:
        lines = _csv_rows(path, _delimiter(path, delimiter))
        if header:
            line_no, row = next(lines, (0, None))
            if row is None:
                continue
            row = [c.strip() for c in row]
            if names is None:
                names = row
            elif row != names:
                raise ValueError("%s:%d: the header differs from %s's" % (path, line_no, file_list[0]))
        for line_no, row in lines:
            width = len(names) if names else width or len(row)
            if len(row) != width:
                raise ValueError("%s:%d: %d columns, expected %d" % (path, line_no, len(row), width))
            rows.append(("%s:%d" % (path, line_no), row))
    return names, rows


def _first_rows(path, delimiter):
    lines = _csv_rows(path, _delimiter(path, delimiter))
    first, second = next(lines, (0, None))[1], next(lines, (0, None))[1]
    return first, second


def _csv_hook(settings, file_list, label_column=-1, num_classes=None, header=None, delimiter=None,
              labels=None, preprocess=None, is_train=True, **kwargs):
    if not file_list:
        raise ValueError("csv reader: the file list is empty")
    labelled = len(_slot_names(**kwargs)) > 1  # a prediction reads the features alone
    first, second = _first_rows(file_list[0], delimiter)
    if first is None:
        raise ValueError("csv reader: %s has no rows" % file_list[0])
    settings.delimiter = delimiter
    settings.header = _has_header(first, second, label_column) if header is None else bool(header)
    key = preprocessing.state_key('csv', dict(label_column=label_column, header=header, delimiter=delimiter,
                                              labels=labels, preprocess=preprocess))
    state = None if is_train else preprocessing.lookup('csv', key)
    if state is None:  # the training list (or, without a training run, this list) is what is fitted
        names, rows = _csv_table(file_list, delimiter, settings.header)
        if isinstance(label_column, str):
            if labelled and (not names or label_column not in names):
                raise ValueError("csv reader: label column %r is not in the header of %s"
                                 % (label_column, file_list[0]))
            label_index = names.index(label_column) if names and label_column in names else None
        else:
            label_index = None if label_column is None else label_column % len(names or first)
        state = preprocessing.fit_csv(key, names, label_index, rows, preprocess, labels)
        settings.num_samples = len(rows)  # a progress bar's total in the first pass
        if is_train:
            preprocessing.register(state, settings)
            dp2._get_logger().info("csv reader: fitted on %d training rows: %s", len(rows),
                                   preprocessing.describe_csv(state))
        elif preprocess:
            dp2._get_logger().warning("csv reader: no statistics from a training list in this process: the "
                                      "preprocessing block is fitted on %s itself", ", ".join(file_list))
    else:  # a progress bar's total in the first pass
        settings.num_samples = sum(max(sum(1 for _ in _csv_rows(path, _delimiter(path, delimiter)))
                                       - int(settings.header), 0) for path in file_list)
    settings.fitted = state
    settings.transform = preprocessing.CsvTransform(state)
    classes = int(num_classes) if num_classes is not None else preprocessing.num_classes(state)
    _bind_slots(settings, dense_vector(state['dim']), integer_value(classes), **kwargs)


@provider(init_hook=_csv_hook, cache=CacheType.CACHE_PASS_IN_MEM)
def csv(settings, path):
    r"""Built-in reader of delimited text files (CSV / TSV): one sample per row.

    Use it without provider code: ``define_py_data_sources2(..., module=
    'paddle.trainer.readers', obj='csv', args={...})``; the ``args`` are the keyword
    arguments below. Each row gives the feature columns (every column but the
    label's, through the preprocessing block) as a ``dense_vector`` and the label
    column as an ``integer_value`` class id. Blank rows are skipped; a row with the
    wrong number of columns, a non-number in a numeric column or an unknown label is
    an error naming ``file:line`` (and the column). The samples of the first pass
    stay in memory (CACHE_PASS_IN_MEM).

    The preprocessing block ``preprocess={'columns': ..., 'missing': ...,
    'na_values': [...]}``:

    - ``columns``: a transform for every feature column (one name), or a dict from
      column (header name or index; ``'*'`` for the others) to a transform or a
      chain of numeric steps (``['log', 'zscore']``). Transforms: ``none`` (as is,
      the default), ``zscore`` ((x - mean) / std), ``minmax`` ((x - min) /
      (max - min)), ``log`` (log(1 + x)), ``onehot`` (a 0/1 feature per category,
      sorted; unseen: all 0), ``id`` (the category's index; unseen: one past the
      last), ``drop`` (column not read). Word-valued columns must be onehot or id.
    - ``missing``: per column (or one for all) what a missing cell becomes:
      ``error`` (default), ``drop`` (the row), ``mean`` / ``median`` / ``mode`` of
      the training data, or a constant (a number, or one of a categorical column's
      categories).
    - ``na_values``: the cells meaning "missing" (default '', NA, N/A, NaN, nan,
      null, NULL, None, ?).

    Statistics, categories and label names are fitted once on the training list,
    applied unchanged to the test list, saved beside the parameters as
    preprocessing.json, and applied again by ``paddle predict``, RawPredictor and
    ``paddle export_onnx``. docs/readers.md has the full story.

    Args:
        file_list (list of str): the CSV files (the lines of the file list).
        **kwargs: the keyword arguments below (``args`` of define_py_data_sources2,
            and those the runtime adds).

    Keyword Args:
        label_column (int, str or None, default -1): the label's column: an index
            (negative from the end), a header name, or None (no label: prediction).
        num_classes (int, optional): the label's range; default: the number of
            labels (set it when the training data lacks the largest integer label).
        header (bool, optional): whether each file starts with a header row;
            default: detected (a named label column, or a word above a number).
        delimiter (str, optional): the separator; default tab for .tsv / .tab
            files, else comma.
        labels (list of str, optional): the class names in id order; default:
            integer labels keep their value, names are sorted.
        preprocess (dict, optional): the preprocessing block above.
        is_train (bool, default True): set by the runtime; a training reader fits the
            statistics / vocabulary and registers them (saved with the model), any
            other reader applies the saved or live training ones.
        input_order (list of str, optional): set by the runtime: the model's data
            layer names; the reader feeds the first two (features, label), or only
            the features when the model has one.
        slots (list of str, optional): the two data layers to feed, [features,
            label], when the model has others.

    Example:
        >>> with open('iris.csv', 'w') as f:
        ...     _ = f.write('length,width,species\n5.0,3.0,setosa\n7.0,2.0,virginica\n6.0,NA,setosa\n')
        >>> s = readers.csv(file_list=['iris.csv'], input_order=['x', 'label'], label_column='species',
        ...                 preprocess={'columns': {'length': 'minmax'}, 'missing': {'width': 0}})
        >>> s.input_types
        {'x': dense_vector(2), 'label': integer_value(2)}
        >>> list(s.generator(s, 'iris.csv'))
        [{'x': [0.0, 3.0], 'label': 0}, {'x': [1.0, 2.0], 'label': 1}, {'x': [0.5, 0.0], 'label': 0}]
    """
    rows = _csv_rows(path, _delimiter(path, settings.delimiter))
    names = None
    if settings.header:
        _, names = next(rows, (0, None))
        if names is None:
            return
        names = [c.strip() for c in names]
    transform, at, col = settings.transform, None, None
    for line_no, row in rows:
        where = "%s:%d" % (path, line_no)
        if at is None:
            width = len(names or row)
            at, col = transform.columns_of(names, width, where)
            if col is None and settings.label_slot is not None:
                raise ValueError("%s: no label column, which the model's data layer '%s' reads (a prediction "
                                 "config, or `paddle predict` on the prediction's layers, reads features only)"
                                 % (where, settings.label_slot))
        if len(row) != width:
            raise ValueError("%s: %d columns, expected %d" % (where, len(row), width))
        features = transform.features_of(row, at, where)
        if features is None:  # the missing-value policy drops the row
            continue
        label = transform.label_of(row[col], where) if settings.label_slot is not None else None
        yield _sample(settings, features, label)


# --------------------------------------------------------------------------- image_folder

IMAGE_EXTENSIONS = ('.png', '.jpg', '.jpeg', '.bmp', '.gif', '.ppm', '.pgm', '.tif', '.tiff', '.webp')


def _class_folders(root):
    if not os.path.isdir(root):
        raise ValueError("image_folder reader: %s is not a folder" % root)
    return sorted(d for d in os.listdir(root) if os.path.isdir(os.path.join(root, d)))


def _image_hook(settings, file_list, size=32, channels=3, classes=None, is_train=True, **kwargs):
    if not file_list:
        raise ValueError("image_folder reader: the file list is empty")
    key = preprocessing.state_key('image_folder', dict(size=size, channels=channels, classes=classes))
    state = None if is_train else preprocessing.lookup('image_folder', key)
    if state is None:  # the class names of the training list (a test list may lack a class)
        state = {'reader': 'image_folder', 'key': key,
                 'labels': list(classes) if classes else _class_folders(file_list[0])}
        if is_train:
            preprocessing.register(state, settings)
    settings.fitted = state
    settings.classes = state['labels']
    if not settings.classes:
        raise ValueError("image_folder reader: %s has no class folders" % file_list[0])
    settings.size = (size, size) if isinstance(size, int) else tuple(size)  # (height, width)
    if channels not in (1, 3):
        raise ValueError("image_folder reader: channels must be 1 or 3, got %r" % (channels,))
    settings.mode = 'L' if channels == 1 else 'RGB'
    dim = channels * settings.size[0] * settings.size[1]
    settings.num_samples = sum(  # a progress bar's total in the first pass
        len([f for f in os.listdir(os.path.join(root, name)) if f.lower().endswith(IMAGE_EXTENSIONS)])
        for root in file_list for name in settings.classes if os.path.isdir(os.path.join(root, name)))
    _bind_slots(settings, dense_vector(dim), integer_value(len(settings.classes)), **kwargs)


def load_image(path, size, mode):
    """The image at `path` resized to size (height, width), as a CHW float32 vector in [0, 1]."""
    from PIL import Image
    with Image.open(path) as img:
        img = img.convert(mode).resize((size[1], size[0]), Image.BILINEAR)
        pixels = np.asarray(img, dtype=np.float32) / 255.0
    if pixels.ndim == 2:
        pixels = pixels[None]
    else:
        pixels = pixels.transpose(2, 0, 1)
    return pixels.reshape(-1)


@provider(init_hook=_image_hook)
def image_folder(settings, root):
    """Built-in reader of images sorted into a folder per class.

    Each file list entry is a folder holding one sub-folder per class
    (``train/cat/*.png``, ``train/dog/*.jpg``, ...). Every image file (png, jpg,
    jpeg, bmp, gif, ppm, pgm, tif, tiff, webp; read with Pillow) is converted to RGB
    or grey, resized (bilinear) and yielded as a ``dense_vector`` of
    channels * height * width floats in [0, 1], channel-major (C, H, W), with its
    class index as an ``integer_value``. Declare the data layer with its geometry,
    e.g. ``data_layer(name='image', size=3 * 32 * 32, height=32, width=32)``. The
    class names are saved with the model like the csv reader's labels.

    Args:
        file_list (list of str): the folders (the lines of the file list).
        **kwargs: the keyword arguments below (``args`` of define_py_data_sources2,
            and those the runtime adds).

    Keyword Args:
        size (int or pair of int, default 32): the output height and width, or
            [height, width].
        channels (int, default 3): 3 (RGB) or 1 (grey).
        classes (list of str, optional): the class sub-folders in label order;
            default: the first folder's sub-folders, sorted.
        is_train (bool, default True): set by the runtime; a training reader fits the
            statistics / vocabulary and registers them (saved with the model), any
            other reader applies the saved or live training ones.
        input_order (list of str, optional): set by the runtime: the model's data
            layer names; the reader feeds the first two (features, label), or only
            the features when the model has one.
        slots (list of str, optional): the two data layers to feed, [features,
            label], when the model has others.

    Example:
        >>> import os
        >>> from PIL import Image
        >>> for name in ('cat', 'dog'):
        ...     os.makedirs(os.path.join('pets', name))
        ...     Image.new('RGB', (8, 8), (255, 0, 0)).save(os.path.join('pets', name, 'a.png'))
        >>> s = readers.image_folder(file_list=['pets'], input_order=['image', 'label'], size=4)
        >>> s.input_types, [(x['image'][:2].tolist(), x['label']) for x in s.generator(s, 'pets')]
        ({'image': dense_vector(48), 'label': integer_value(2)}, [([1.0, 1.0], 0), ([1.0, 1.0], 1)])
    """
    for label, name in enumerate(settings.classes):
        folder = os.path.join(root, name)
        if not os.path.isdir(folder):
            continue
        for f in sorted(os.listdir(folder)):
            if f.lower().endswith(IMAGE_EXTENSIONS):
                yield _sample(settings, load_image(os.path.join(folder, f), settings.size, settings.mode), label)


# ----------------------------------------------------------------------------------- text

UNK = '<unk>'


def _text_lines(path, delimiter, labelled=True):
    """(line number, label, words) of each non-empty line; an unlabelled line (no delimiter)
    has the label None, allowed when `labelled` is False (a prediction reads text only)."""
    with open(path, encoding='utf-8') as f:
        for line_no, line in enumerate(f, 1):
            line = line.rstrip('\n')
            if not line.strip():
                continue
            if delimiter not in line:
                if labelled:
                    raise ValueError("%s:%d: expected LABEL%sTEXT" % (path, line_no, repr(delimiter)[1:-1]))
                yield line_no, None, line.split()
                continue
            label, words = line.split(delimiter, 1)
            yield line_no, label.strip(), words.split()


def _text_hook(settings, file_list, dictionary=None, min_count=1, max_size=None, oov_token=UNK, labels=None,
               delimiter='\t', lowercase=True, is_train=True, **kwargs):
    settings.delimiter = delimiter
    key = preprocessing.state_key('text', dict(dictionary=dictionary, min_count=min_count, max_size=max_size,
                                               oov_token=oov_token, labels=labels, delimiter=delimiter,
                                               lowercase=lowercase))
    state = None if is_train else preprocessing.lookup('text', key)
    labelled = len(_slot_names(**kwargs)) > 1
    if state is None:  # fitted on the training list (or, without a training run, on this list)
        lines = [item for path in file_list for item in _text_lines(path, delimiter, labelled)]
        settings.num_samples = len(lines)  # a progress bar's total in the first pass
        words = None
        if dictionary is not None:  # one word per line (the first field); id = line number
            with open(dictionary, encoding='utf-8') as f:
                words = [line.split()[0] for line in f if line.strip()]
        state = preprocessing.fit_text(
            key, ([w.lower() for w in ws] if lowercase else ws for _, _, ws in lines),
            [label for _, label, _ in lines if label is not None], words, min_count, max_size, oov_token,
            labels, lowercase)
        if is_train:
            preprocessing.register(state, settings)
    else:  # a progress bar's total in the first pass
        settings.num_samples = sum(1 for path in file_list for _ in _text_lines(path, delimiter, labelled))
    settings.fitted = state
    settings.transform = preprocessing.TextTransform(state)
    settings.vocab = settings.transform.vocab
    settings.labels = {x: i for i, x in enumerate(state['labels'])}
    _bind_slots(settings, dp2.integer_value_sequence(len(settings.vocab)),
                integer_value(max(len(settings.labels), 1)), **kwargs)


@provider(init_hook=_text_hook, cache=CacheType.CACHE_PASS_IN_MEM)
def text(settings, path):
    r"""Built-in reader of labelled text: one sample per line ``LABEL<TAB>word word ...``.

    The words become an ``integer_value_sequence`` of vocabulary ids (words outside
    the vocabulary map to the OOV token, ``<unk>``) and the label a class id. The
    vocabulary is built from the training list (most frequent words first, ties in
    alphabetical order, the OOV token last) unless a dictionary file is given; its
    size is the words data layer's size. Vocabulary and labels are fitted on the
    training list and saved with the model, like the csv reader's preprocessing.
    Blank lines are skipped; a model with one data layer (a prediction) also reads
    lines without a label. The first pass stays in memory (CACHE_PASS_IN_MEM).

    Args:
        file_list (list of str): the text files (the lines of the file list).
        **kwargs: the keyword arguments below (``args`` of define_py_data_sources2,
            and those the runtime adds).

    Keyword Args:
        dictionary (str, optional): a vocabulary file, one word per line (its first
            field); a word's id is its line number.
        min_count (int, default 1): for a built vocabulary, keep words seen at least
            this often.
        max_size (int, optional): at most this many ids, the OOV token included.
        oov_token (str, default '<unk>'): the token of unknown words.
        labels (list of str, optional): the label names in id order; default:
            integer labels keep their value, names are sorted.
        delimiter (str, default tab): separates the label from the words.
        lowercase (bool, default True): lower-case the words.
        is_train (bool, default True): set by the runtime; a training reader fits the
            statistics / vocabulary and registers them (saved with the model), any
            other reader applies the saved or live training ones.
        input_order (list of str, optional): set by the runtime: the model's data
            layer names; the reader feeds the first two (features, label), or only
            the features when the model has one.
        slots (list of str, optional): the two data layers to feed, [features,
            label], when the model has others.

    Example:
        >>> with open('reviews.txt', 'w') as f:
        ...     _ = f.write('pos\tA good movie\nneg\ta bad movie\n')
        >>> s = readers.text(file_list=['reviews.txt'], input_order=['words', 'label'])
        >>> s.input_types, s.vocab
        ({'words': integer_value_sequence(5), 'label': integer_value(2)}, {'a': 0, 'movie': 1, 'bad': 2, 'good': 3, '<unk>': 4})
        >>> list(s.generator(s, 'reviews.txt'))
        [{'words': [0, 3, 1], 'label': 1}, {'words': [0, 2, 1], 'label': 0}]
    """
    labelled = settings.label_slot is not None
    for line_no, label, words in _text_lines(path, settings.delimiter, labelled):
        if labelled and label not in settings.labels:
            raise ValueError("%s:%d: unknown label %r (labels: %s)" % (
                path, line_no, label, ", ".join(settings.labels)))
        yield _sample(settings, settings.transform.ids_of(words), settings.labels.get(label))


# ------------------------------------------------------------------------------ synthetic

_TYPE_SPEC = re.compile(r'^(dense_vector|sparse_binary_vector|sparse_vector|integer_value)'
                        r'(_sequence|_sub_sequence)?$')


def input_type(spec):
    """An InputType from a plain description, ``[constructor name, dim]``, that
    pickles and writes in YAML (the form the synthetic reader's ``input_types``
    take).

    Args:
        spec (list, tuple or InputType): ``[name, dim]`` where name is one of
            dense_vector, sparse_binary_vector, sparse_vector, integer_value, each
            optionally with ``_sequence`` or ``_sub_sequence``; an InputType is
            returned as is.

    Returns:
        InputType: the declared type.

    Raises:
        ValueError: spec is not such a pair.

    Example:
        >>> readers.input_type(['integer_value_sequence', 10000])
        integer_value_sequence(10000)
        >>> readers.input_type(('sparse_vector_sub_sequence', 50)).dim
        50
    """
    if isinstance(spec, dp2.InputType):
        return spec
    if not (isinstance(spec, (list, tuple)) and len(spec) == 2 and isinstance(spec[0], str)
            and _TYPE_SPEC.match(spec[0])):
        raise ValueError("input type %r: expected [name, dim] with a PyDataProvider2 type name such as "
                         "dense_vector, integer_value_sequence, sparse_binary_vector" % (spec,))
    return getattr(dp2, spec[0])(int(spec[1]))


def _synthetic_hook(settings, file_list, input_types=None, input_order=None, model_config=None,
                    seq_len=(2, 12), sub_seq_len=(1, 4), seed=None, is_train=True, **_):
    specs = {}
    if model_config is not None:  # what the model's layers need; `input_types` entries win
        from paddle.trainer.input_inference import infer_input_types
        specs.update(infer_input_types(model_config))
    specs.update(input_types or {})
    if not specs:
        raise ValueError("synthetic reader: args={'input_types': {data layer: [type name, dim]}} "
                         "is required when the model is not known")
    types = {name: input_type(spec) for name, spec in specs.items()}
    missing = [n for n in (input_order or []) if n not in types]
    if missing:
        raise ValueError("synthetic reader: input_types has no entry for data layer(s) %s" % ", ".join(missing))
    settings.input_types = types
    settings.seq_len, settings.sub_seq_len = tuple(seq_len), tuple(sub_seq_len)
    settings.seed = (0 if seed is None else int(seed)) * 2 + (0 if is_train else 1)  # train != test
    settings.num_samples = sum(_sample_count(entry) for entry in file_list)


def _sample_count(entry):
    try:
        return int(entry.split(':')[-1])
    except ValueError:
        raise ValueError("synthetic reader: a file list entry is a number of samples, got %r" % entry)


def _random_leaf(rng, tp):
    if tp.type == dp2.DataType.Dense:
        return rng.standard_normal(tp.dim).astype(np.float32)
    if tp.type == dp2.DataType.Index:
        return int(rng.randint(tp.dim))
    ids = sorted(set(rng.randint(tp.dim, size=rng.randint(1, min(tp.dim, 8) + 1)).tolist()))
    if tp.type == dp2.DataType.SparseNonValue:
        return ids
    return [(i, float(rng.rand())) for i in ids]


@provider(init_hook=_synthetic_hook, should_shuffle=False)
def synthetic(settings, entry):
    """Built-in reader of random samples shaped like the model's data layers, to try
    or time any config without data.

    Each file list entry is a number of samples (``'256'``; the text after the last
    ':' counts, so ``'train:256'`` works too). Without ``input_types`` the types
    come from the model (the runtime passes its ModelConfig): ids where an
    embedding or a cost's label reads the layer, sequences where a recurrent or
    sequence layer reads it, dense values otherwise; sparse inputs must be given
    by hand. Dense values are standard normal, ids and sparse ids uniform; the
    sequences of one sample share their length (as a tagger's words and tags
    must). The data is the same on every run and differs between the training
    and test lists. ``paddle train --data=synthetic`` uses it (use_synthetic_data).

    Args:
        file_list (list of str): sample counts (the lines of the file list).
        **kwargs: the keyword arguments below (``args`` of define_py_data_sources2,
            and those the runtime adds).

    Keyword Args:
        input_types (dict, optional): data layer name -> ``[type name, dim]`` (see
            input_type) or InputType; entries override the inferred ones.
        seq_len (pair of int, default (2, 12)): the range of sequence lengths.
        sub_seq_len (pair of int, default (1, 4)): the range of sub-sequence lengths.
        seed (int, default 0): the random seed.
        model_config (ModelConfig, optional): set by the runtime; the types are
            inferred from it.
        is_train (bool, default True): set by the runtime; test data differs.
        input_order (list of str, optional): set by the runtime: the model's data
            layer names, each of which needs a type.

    Example:
        >>> s = readers.synthetic(file_list=['3'], input_order=['words', 'tags'], input_types={
        ...     'words': ['integer_value_sequence', 10], 'tags': ['integer_value_sequence', 4]})
        >>> samples = list(s.generator(s, '3'))
        >>> len(samples), all(len(x['words']) == len(x['tags']) for x in samples)
        (3, True)
        >>> all(0 <= i < 4 for x in samples for i in x['tags'])
        True
    """
    count = _sample_count(entry)
    rng = np.random.RandomState((settings.seed * 7919 + zlib.crc32(entry.encode())) % (2 ** 31))
    for _ in range(count):
        length = rng.randint(settings.seq_len[0], settings.seq_len[1] + 1)
        subs = [rng.randint(settings.sub_seq_len[0], settings.sub_seq_len[1] + 1) for _ in range(length)]
        sample = {}
        for name, tp in settings.input_types.items():
            if tp.seq_type == dp2.SequenceType.NO_SEQUENCE:
                sample[name] = _random_leaf(rng, tp)
            elif tp.seq_type == dp2.SequenceType.SEQUENCE:
                sample[name] = [_random_leaf(rng, tp) for _ in range(length)]
            else:
                sample[name] = [[_random_leaf(rng, tp) for _ in range(n)] for n in subs]
        yield sample


synthetic.wants_model_config = True  # DataProvider hands it the ModelConfig: types come from the layers


def use_synthetic_data(trainer_config, spec):
    r"""Replaces a TrainerConfig's data sources by the synthetic reader: what
    ``paddle train --data=synthetic[:N]`` does.

    The training source gets N random samples per pass (default 256), the test
    source N/4 (at least 1), shaped like the model's data layers. The file lists are
    written to a temporary folder removed when the process exits.

    Args:
        trainer_config (TrainerConfig): the parsed config; its data_config and
            test_data_config are overwritten.
        spec (str): ``'synthetic'`` or ``'synthetic:N'`` with N > 0.

    Raises:
        ValueError: spec is neither.

    Example:
        >>> from paddle.proto.TrainerConfig_pb2 import TrainerConfig
        >>> cfg = TrainerConfig()
        >>> readers.use_synthetic_data(cfg, 'synthetic:100')
        >>> cfg.data_config.load_data_object, open(cfg.test_data_config.files).read()
        ('synthetic', '25\n')
    """
    kind, _, count = spec.partition(":")
    if kind != "synthetic" or (count and not (count.isdigit() and int(count) > 0)):
        raise ValueError("--data=%s: expected config, synthetic or synthetic:N (N > 0 samples per pass)" % spec)
    count = int(count or 256)
    folder = tempfile.mkdtemp(prefix="paddle-synthetic-")  # the file lists: one entry, the count
    atexit.register(shutil.rmtree, folder, True)
    for name, samples in (("data_config", count), ("test_data_config", max(count // 4, 1))):
        dc = getattr(trainer_config, name)
        dc.Clear()
        dc.type, dc.for_test = "py2", name == "test_data_config"
        dc.load_data_module, dc.load_data_object = __name__, "synthetic"
        dc.files = os.path.join(folder, name + ".list")
        with open(dc.files, "w") as f:
            f.write("%d\n" % samples)
