"""paddle.trainer.readers: the built-in csv / image_folder / text / synthetic providers, run
through the same DataProvider runtime as `paddle train`, with the args a config passes."""
import os

import numpy as np
import pytest

from paddle.trainer.data_provider import DataProvider
from paddle.trainer.PyDataProvider2 import DataType, SequenceType

from dp_testutil import data_config

MODULE = 'paddle.trainer.readers'


def batches(obj, names, args=None, files='data.list', batch_size=100, for_test=True):
    dp = DataProvider(data_config(MODULE, obj, files=files, args=args, for_test=for_test), names,
                      batch_size=batch_size, shuffle=False)
    try:
        return dp, list(dp.batches())
    finally:
        dp.close()


def test_csv_with_header_and_named_label_column(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rng = np.random.RandomState(0)
    x = rng.rand(7, 3).round(4)
    y = np.array([0, 2, 1, 2, 0, 1, 2])
    (tmp_path / 'a.csv').write_text('f1,label,f2,f3\n' + ''.join(
        '%s,%d,%s,%s\n' % (r[0], l, r[1], r[2]) for r, l in zip(x[:4], y[:4])))
    (tmp_path / 'b.csv').write_text('f1,label,f2,f3\n' + ''.join(
        '%s,%d,%s,%s\n' % (r[0], l, r[1], r[2]) for r, l in zip(x[4:], y[4:])))
    (tmp_path / 'data.list').write_text('a.csv\nb.csv\n')
    dp, bs = batches('csv', ['x', 'y'], {'label_column': 'label'})
    assert [(t.type, t.dim) for t in dp.input_types] == [(DataType.Dense, 3), (DataType.Index, 3)]
    (b,) = bs
    np.testing.assert_allclose(b.slots[0].value, x, rtol=1e-6)
    assert b.slots[1].ids.tolist() == y.tolist()


def test_tsv_without_header_label_last_and_prediction_model(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / 'd.tsv').write_text('0.5\t1.5\t4\n-1\t2\t1\n\n3\t0\t0\n')
    (tmp_path / 'data.list').write_text('d.tsv\n')
    dp, (b,) = batches('csv', ['pixel', 'label'])
    assert dp.input_types[1].dim == 5  # largest label + 1
    assert b.slots[0].value.tolist() == [[0.5, 1.5], [-1, 2], [3, 0]]
    assert b.slots[1].ids.tolist() == [4, 1, 0]
    # a model with only the feature layer (is_predict=1) gets the features only
    dp, (b,) = batches('csv', ['pixel'], {'num_classes': 10})
    assert len(b.slots) == 1 and b.slots[0].value.shape == (3, 2)


def test_csv_errors_name_file_and_line(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / 'd.csv').write_text('1,2,0\n1,2\n')
    (tmp_path / 'data.list').write_text('d.csv\n')
    with pytest.raises(Exception, match=r'd\.csv:2: 2 columns, expected 3'):
        batches('csv', ['x', 'y'])
    with pytest.raises(ValueError, match='one or two data layers'):
        batches('csv', ['a', 'b', 'c'])


def test_image_folder_by_class(tmp_path, monkeypatch):
    Image = pytest.importorskip('PIL.Image')
    monkeypatch.chdir(tmp_path)
    colours = {'cat': (255, 0, 0), 'dog': (0, 0, 255)}
    for name, rgb in colours.items():
        os.makedirs(tmp_path / 'train' / name)
        for i in range(2):
            Image.new('RGB', (10, 6), rgb).save(str(tmp_path / 'train' / name / ('%d.png' % i)))
    (tmp_path / 'train' / 'dog' / 'notes.txt').write_text('not an image')
    (tmp_path / 'data.list').write_text('train\n')
    dp, (b,) = batches('image_folder', ['image', 'label'], {'size': [4, 8]})
    assert dp.input_types[0].dim == 3 * 4 * 8 and dp.input_types[1].dim == 2
    assert b.slots[1].ids.tolist() == [0, 0, 1, 1]
    chw = b.slots[0].value.reshape(4, 3, 4, 8)
    np.testing.assert_allclose(chw[0].mean(axis=(1, 2)), [1, 0, 0], atol=1e-6)  # red, channel first
    np.testing.assert_allclose(chw[3].mean(axis=(1, 2)), [0, 0, 1], atol=1e-6)
    dp, (b,) = batches('image_folder', ['image', 'label'], {'size': 5, 'channels': 1})
    assert b.slots[0].value.shape == (4, 25)
    assert 0 < b.slots[0].value[0, 0] < 1  # grey level of pure red


def test_text_with_built_and_given_vocabulary(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / 'a.txt').write_text('pos\tGood movie good\nneg\tbad film\n')
    (tmp_path / 'b.txt').write_text('pos\tgood unseen\n')
    (tmp_path / 'data.list').write_text('a.txt\nb.txt\n')
    dp, (b,) = batches('text', ['words', 'label'], {'min_count': 2})
    vocab = dp.settings.vocab
    assert list(vocab) == ['good', '<unk>']  # frequent words only, then <unk>
    assert dp.input_types[0].seq_type == SequenceType.SEQUENCE and dp.input_types[0].dim == 2
    assert b.slots[0].ids.tolist() == [0, 1, 0, 1, 1, 0, 1]
    assert b.slots[0].seq_starts.tolist() == [0, 3, 5, 7]
    assert b.slots[1].ids.tolist() == [1, 0, 1]  # labels sorted: neg=0, pos=1

    (tmp_path / 'dict.txt').write_text('bad\nfilm\ngood\n')
    dp, (b,) = batches('text', ['words', 'label'], {'dictionary': 'dict.txt', 'labels': ['neg', 'pos']})
    assert dp.input_types[0].dim == 4
    assert b.slots[0].ids.tolist() == [2, 3, 2, 0, 1, 2, 3]
    (tmp_path / 'c.txt').write_text('meh\tgood\n')
    (tmp_path / 'data.list').write_text('c.txt\n')
    with pytest.raises(Exception, match=r"c\.txt:1: unknown label 'meh'"):
        batches('text', ['words', 'label'], {'dictionary': 'dict.txt', 'labels': ['neg', 'pos']})


def test_synthetic_follows_the_given_types(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / 'data.list').write_text('6\n4\n')
    types = {'img': ['dense_vector', 5], 'words': ['integer_value_sequence', 30],
             'tags': ['integer_value_sequence', 4], 'nested': ['dense_vector_sub_sequence', 2],
             'bag': ['sparse_binary_vector', 50], 'label': ['integer_value', 3]}
    names = list(types)
    dp, (b,) = batches('synthetic', names, {'input_types': types, 'seq_len': [2, 5]})
    img, words, tags, nested, bag, label = b.slots
    assert b.num_samples == 10 and img.value.shape == (10, 5)
    assert words.seq_starts.tolist() == tags.seq_starts.tolist()  # a sample's sequences share a length
    lengths = np.diff(words.seq_starts)
    assert lengths.min() >= 2 and lengths.max() <= 5
    assert words.ids.max() < 30 and tags.ids.max() < 4 and label.ids.max() < 3
    assert nested.sub_seq_starts is not None and nested.value.shape[1] == 2
    assert bag.sparse_cols.max() < 50
    # reproducible, and train differs from test
    _, (again,) = batches('synthetic', names, {'input_types': types, 'seq_len': [2, 5]})
    assert np.array_equal(again.slots[0].value, img.value)
    _, (train,) = batches('synthetic', names, {'input_types': types, 'seq_len': [2, 5]}, for_test=False)
    assert not np.array_equal(train.slots[0].value, img.value)


def test_synthetic_errors(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / 'data.list').write_text('3\n')
    with pytest.raises(ValueError, match="input_types"):
        batches('synthetic', ['x'])
    with pytest.raises(ValueError, match="no entry for data layer"):
        batches('synthetic', ['x', 'y'], {'input_types': {'x': ['dense_vector', 2]}})
    with pytest.raises(ValueError, match="expected \\[name, dim\\]"):
        batches('synthetic', ['x'], {'input_types': {'x': ['dense_vectr', 2]}})


def test_readers_from_a_config(tmp_path, monkeypatch):
    """define_py_data_sources2(module='paddle.trainer.readers', ...) in a config, as users write it."""
    from paddle.trainer.config_parser import parse_config
    monkeypatch.chdir(tmp_path)
    (tmp_path / 'd.csv').write_text('1,2,1\n3,4,0\n')
    (tmp_path / 'train.list').write_text('d.csv\n')
    (tmp_path / 'conf.py').write_text(
        "from paddle.trainer_config_helpers import *\n"
        "define_py_data_sources2('train.list', None, module='paddle.trainer.readers', obj='csv',\n"
        "                        args={'num_classes': 2})\n"
        "settings(batch_size=4)\n"
        "x = data_layer(name='x', size=2)\n"
        "outputs(classification_cost(input=fc_layer(input=x, size=2, act=SoftmaxActivation()),\n"
        "                            label=data_layer(name='y', size=2)))\n")
    conf = parse_config(str(tmp_path / 'conf.py'), '')
    dp = DataProvider.from_trainer_config(conf, for_test=False, shuffle=False)
    try:
        (b,) = list(dp.batches())
    finally:
        dp.close()
    assert b.slots[0].value.tolist() == [[1, 2], [3, 4]] and b.slots[1].ids.tolist() == [1, 0]
