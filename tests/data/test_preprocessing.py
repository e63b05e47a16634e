"""The readers' declarative preprocessing (paddle.trainer.preprocessing): statistics and
vocabularies fitted on the training list only and applied unchanged to the test list and to
predictions; categorical columns, string labels, missing values, text vocabularies; the YAML
form of a config gives what its Python form gives."""
import json

import numpy as np
import pytest

from paddle.trainer import preprocessing
from paddle.trainer.data_provider import DataProvider

from dp_testutil import data_config

MODULE = 'paddle.trainer.readers'


@pytest.fixture(autouse=True)
def fresh_registry():
    preprocessing._fitted.clear()
    preprocessing.load_saved([])
    yield
    preprocessing._fitted.clear()
    preprocessing.load_saved([])


def read(obj, names, args, files, is_train):
    dp = DataProvider(data_config(MODULE, obj, files=files, args=args, for_test=not is_train), names,
                      batch_size=1000, shuffle=False)
    try:
        return dp, list(dp.batches())[0]
    finally:
        dp.close()


def write(tmp_path, name, text):
    (tmp_path / name).write_text(text)
    (tmp_path / (name.rsplit('.', 1)[0] + '.list')).write_text(name + '\n')


def test_statistics_come_from_the_training_list_only(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, 'train.csv', 'a,b,c,y\n1,10,0,x\n3,20,99,y\n5,30,9,x\n')
    write(tmp_path, 'test.csv', 'a,b,c,y\n7,40,0,y\n')
    args = {'label_column': 'y', 'preprocess': {'columns': {'a': 'zscore', 'b': 'minmax', 'c': 'log'}}}
    dp, train = read('csv', ['x', 'label'], args, 'train.list', True)
    a = (np.array([1, 3, 5]) - 3) / np.std([1, 3, 5])
    np.testing.assert_allclose(train.slots[0].value[:, 0], a, rtol=1e-6)
    np.testing.assert_allclose(train.slots[0].value[:, 1], [0, .5, 1], rtol=1e-6)
    np.testing.assert_allclose(train.slots[0].value[:, 2], np.log1p([0, 99, 9]), rtol=1e-6)
    assert train.slots[1].ids.tolist() == [0, 1, 0]  # string labels, sorted: x=0, y=1
    test_dp, test = read('csv', ['x', 'label'], args, 'test.list', False)  # the same run's test provider
    assert test_dp.settings.num_samples == 1  # counted for the progress bar, not fitted
    np.testing.assert_allclose(test.slots[0].value[0], [(7 - 3) / np.std([1, 3, 5]), 1.5, 0], rtol=1e-6)
    assert test.slots[1].ids.tolist() == [1]
    assert [s['key'] for s in preprocessing.fitted_states()] == [dp.settings.fitted['key']]
    del dp  # the training run is over: its state is not applied (nor saved) by what comes after
    assert preprocessing.fitted_states() == []


def test_categories_chains_drop_and_label_order(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, 'train.csv', 'id,colour,size,kind,label\n1,red,1,a,lo\n2,blue,3,b,hi\n3,red,7,a,mid\n')
    write(tmp_path, 'test.csv', 'id,colour,size,kind,label\n9,green,1,c,lo\n')
    args = {'label_column': 'label', 'labels': ['lo', 'mid', 'hi'],
            'preprocess': {'columns': {'id': 'drop', 'colour': 'onehot', 'kind': 'id', 'size': ['log', 'minmax']}}}
    dp, train = read('csv', ['x', 'label'], args, 'train.list', True)
    assert dp.input_types[0].dim == 2 + 1 + 1 and dp.input_types[1].dim == 3
    logs = np.log1p([1, 3, 7])
    scaled = (logs - logs[0]) / (logs[2] - logs[0])
    np.testing.assert_allclose(train.slots[0].value, [[0, 1, scaled[0], 0], [1, 0, scaled[1], 1],
                                                      [0, 1, scaled[2], 0]], rtol=1e-6)
    assert train.slots[1].ids.tolist() == [0, 2, 1]  # the given label order
    _, test = read('csv', ['x', 'label'], args, 'test.list', False)
    # an unseen category: all zeros one-hot, one id past the vocabulary
    np.testing.assert_allclose(test.slots[0].value, [[0, 0, 0, 2]], atol=1e-7)


def test_missing_value_policies(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, 'train.csv', 'a,b,c,y\n1,,u,0\n2,5,,1\nNA,7,u,0\n10,9,v,1\n')
    args = {'label_column': 'y', 'preprocess': {'columns': {'c': 'onehot'},
                                                'missing': {'a': 'median', 'b': -1, 'c': 'mode'}}}
    _, b = read('csv', ['x', 'label'], args, 'train.list', True)
    np.testing.assert_allclose(b.slots[0].value, [[1, -1, 1, 0], [2, 5, 1, 0], [2, 7, 1, 0], [10, 9, 0, 1]])
    args['preprocess']['missing'] = {'*': 'mean', 'c': 'drop'}
    _, b = read('csv', ['x', 'label'], args, 'train.list', True)
    np.testing.assert_allclose(b.slots[0].value, [[1, 7, 1, 0], [13 / 3., 7, 1, 0], [10, 9, 0, 1]], rtol=1e-6)
    with pytest.raises(ValueError, match=r"train\.csv:2: column 'b': missing value '' \(set preprocess.missing"):
        read('csv', ['x', 'label'], {'label_column': 'y', 'preprocess': {'columns': {'c': 'onehot'}}},
             'train.list', True)


def test_configuration_errors_name_the_column(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, 'train.csv', 'a,b,y\n1,x,0\n2,y,1\n')
    with pytest.raises(ValueError, match=r"train\.csv:2: column 'b': 'x' is not a number \(a category\?"):
        read('csv', ['x', 'label'], {'label_column': 'y', 'preprocess': {'columns': {'*': 'zscore'}}},
             'train.list', True)
    with pytest.raises(ValueError, match=r"column 'a': unknown transform 'zscor'"):
        read('csv', ['x', 'label'], {'label_column': 'y', 'preprocess': {'columns': {'a': 'zscor'}}},
             'train.list', True)
    with pytest.raises(ValueError, match=r"columns 'nope' are not in the data"):
        read('csv', ['x', 'label'], {'label_column': 'y', 'preprocess': {'columns': {'nope': 'zscore'}}},
             'train.list', True)
    with pytest.raises(ValueError, match=r"column 'b': the fill value 'meen' is not one of its categories \(x, y\)"):
        read('csv', ['x', 'label'], {'label_column': 'y', 'preprocess': {'columns': {'b': 'onehot'},
                                                                         'missing': {'b': 'meen'}}},
             'train.list', True)
    with pytest.raises(ValueError, match=r"unknown key\(s\) colums"):
        read('csv', ['x', 'label'], {'label_column': 'y', 'preprocess': {'colums': {}}}, 'train.list', True)


def test_a_saved_state_reads_unlabelled_rows_by_name(tmp_path, monkeypatch):
    """What `paddle predict` does: the model's saved state, rows without the label column
    (and with the columns in another order), read for a model with one data layer."""
    monkeypatch.chdir(tmp_path)
    write(tmp_path, 'train.csv', 'a,b,y\n1,10,cat\n3,30,dog\n')
    args = {'label_column': 'y', 'preprocess': {'columns': {'*': 'zscore'}}}
    dp, train = read('csv', ['x', 'label'], args, 'train.list', True)
    preprocessing.save(str(tmp_path), [dp.settings.fitted])
    preprocessing._fitted.clear()  # another process: only the saved file
    preprocessing.load_saved(preprocessing.read(str(tmp_path)))
    write(tmp_path, 'new.csv', 'b,a\n30,3\n10,1\n')
    dp, new = read('csv', ['x'], args, 'new.list', False)
    np.testing.assert_allclose(new.slots[0].value, train.slots[0].value[::-1], rtol=1e-6)
    assert preprocessing.label_names(dp.settings.fitted) == ['cat', 'dog']
    write(tmp_path, 'bare.csv', '3,30\n')  # no header, no label column: the features by position
    _, bare = read('csv', ['x'], dict(args, header=False), 'bare.list', False)
    np.testing.assert_allclose(bare.slots[0].value, train.slots[0].value[1:], rtol=1e-6)


def test_text_vocabulary_from_the_training_list(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, 'train.txt', 'pos\tgood good good great fun\nneg\tbad bad dull fun\nneg\tbad\n')
    write(tmp_path, 'test.txt', 'pos\tgreat unheard\n')
    args = {'max_size': 3, 'oov_token': '<oov>'}
    dp, train = read('text', ['words', 'label'], args, 'train.list', True)
    assert list(dp.settings.vocab) == ['bad', 'good', '<oov>']  # the 2 most frequent, then the OOV token
    assert dp.input_types[0].dim == 3
    _, test = read('text', ['words', 'label'], args, 'test.list', False)
    assert test.slots[0].ids.tolist() == [2, 2] and test.slots[1].ids.tolist() == [1]
    write(tmp_path, 'new.txt', 'good stuff\n')  # a prediction reads text without a label
    _, new = read('text', ['words'], args, 'new.list', False)
    assert new.slots[0].ids.tolist() == [1, 2]


def test_yaml_and_python_forms_give_the_same_data(tmp_path, monkeypatch):
    from paddle.trainer.config_parser import parse_config
    monkeypatch.chdir(tmp_path)
    write(tmp_path, 'train.csv', 'a,b,colour,y\n1,100,red,cat\n2,,blue,dog\n4,900,red,cat\n')
    write(tmp_path, 'test.csv', 'a,b,colour,y\n3,500,blue,dog\n')
    (tmp_path / 'conf.py').write_text(
        "from paddle.trainer_config_helpers import *\n"
        "define_py_data_sources2(train_list='train.list', test_list='test.list',\n"
        "    module='paddle.trainer.readers', obj='csv',\n"
        "    args={'label_column': 'y', 'preprocess': {'columns': {'b': ['log', 'zscore'], 'colour': 'onehot',\n"
        "                                                          '*': 'minmax'},\n"
        "                                              'missing': {'*': 'median'}}})\n"
        "settings(batch_size=2)\n"
        "x = data_layer(name='x', size=4)\n"
        "outputs(classification_cost(input=fc_layer(input=x, size=2, act=SoftmaxActivation()),\n"
        "                            label=data_layer(name='y', size=2)))\n")
    (tmp_path / 'conf.yaml').write_text(
        "settings: {batch_size: 2}\n"
        "data:\n"
        "  train_list: train.list\n"
        "  test_list: test.list\n"
        "  module: paddle.trainer.readers\n"
        "  obj: csv\n"
        "  args:\n"
        "    label_column: y\n"
        "    preprocess:\n"
        "      columns: {b: [log, zscore], colour: onehot, '*': minmax}\n"
        "      missing: {'*': median}\n"
        "layers:\n"
        "  - {type: data_layer, name: x, size: 4}\n"
        "  - {type: fc_layer, name: p, input: x, size: 2, act: softmax}\n"
        "  - {type: data_layer, name: y, size: 2}\n"
        "  - {type: classification_cost, name: cost, input: p, label: y}\n"
        "outputs: [cost]\n")
    results = []
    for conf in ('conf.py', 'conf.yaml'):
        tc = parse_config(conf)
        got, providers = [], []
        for for_test in (False, True):  # as `paddle train` does: the test source while the training one lives
            providers.append(DataProvider.from_trainer_config(tc, for_test=for_test, shuffle=False))
            got.append([s.value if s.value is not None else s.ids for s in list(providers[-1].batches())[0].slots])
        results.append((tc.data_config.load_data_args, got, json.dumps(preprocessing.fitted_states())))
        for dp in providers:
            dp.close()
    (py_args, py_data, py_state), (yaml_args, yaml_data, yaml_state) = results
    assert py_args == yaml_args and py_state == yaml_state
    for a, b in zip(sum(py_data, []), sum(yaml_data, [])):
        np.testing.assert_array_equal(a, b)
    assert py_data[1][0].shape == (1, 4) and py_data[1][1].tolist() == [1]


def test_image_folder_test_list_keeps_the_training_classes(tmp_path, monkeypatch):
    Image = pytest.importorskip('PIL.Image')
    monkeypatch.chdir(tmp_path)
    for split, names in (('train', ('cat', 'dog')), ('test', ('dog',))):
        for name in names:
            (tmp_path / split / name).mkdir(parents=True)
            Image.new('RGB', (4, 4), (9, 9, 9)).save(str(tmp_path / split / name / '0.png'))
        (tmp_path / (split + '.list')).write_text(split + '\n')
    dp, train = read('image_folder', ['image', 'label'], {'size': 4}, 'train.list', True)
    assert train.slots[1].ids.tolist() == [0, 1]
    dp, test = read('image_folder', ['image', 'label'], {'size': 4}, 'test.list', False)
    assert test.slots[1].ids.tolist() == [1] and preprocessing.label_names(dp.settings.fitted) == ['cat', 'dog']
