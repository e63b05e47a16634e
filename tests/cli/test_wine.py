"""Your own data, end to end: scikit-learn's wine data as a raw CSV (unscaled features,
proline ~1000, string class names) trained through the csv reader's preprocessing block,
then string labels predicted for UNLABELLED rows by `paddle predict` on the training
config, by a merged model through the Predictor (RawPredictor) and by onnxruntime, all
agreeing."""
import csv
import json
import os
import re

import numpy as np
import pytest

from test_cli import paddle

CONFIG = """\
from paddle.trainer_config_helpers import *

is_predict = get_config_arg('is_predict', bool, False)
define_py_data_sources2(train_list=None if is_predict else 'train.list', test_list='test.list',
                        module='paddle.trainer.readers', obj='csv',
                        args={'label_column': 'species',
                              'preprocess': %(preprocess)s})
settings(batch_size=10, learning_rate=0.01, learning_method=AdamOptimizer())
features = data_layer(name='features', size=13)
hidden = fc_layer(input=features, size=16, act=TanhActivation())
prob = fc_layer(input=hidden, size=3, act=SoftmaxActivation(), name='prob')
if is_predict:
    outputs(prob)
else:
    outputs(classification_cost(input=prob, label=data_layer(name='species', size=3)))
"""
PREPROCESS = "{'columns': {'proline': ['log', 'zscore'], '*': 'zscore'}}"


def write_wine(folder):
    """train.csv (130 rows) and test.csv (48) with a header and the class names in the last
    column 'species'; new.csv: the test rows without that column. Returns the test labels."""
    from sklearn.datasets import load_wine
    wine = load_wine()
    order = np.random.RandomState(0).permutation(len(wine.target))
    names = [n.replace('/', '_') for n in wine.feature_names]

    def write(name, rows, labelled=True):
        with open(os.path.join(folder, name), 'w', newline='') as f:
            w = csv.writer(f)
            w.writerow(names + (['species'] if labelled else []))
            for i in rows:
                w.writerow(['%g' % v for v in wine.data[i]] + ([wine.target_names[wine.target[i]]] if labelled else []))
        with open(os.path.join(folder, name.replace('.csv', '.list')), 'w') as f:
            f.write(name + '\n')

    write('train.csv', order[:130])
    write('test.csv', order[130:])
    write('new.csv', order[130:], labelled=False)
    return [str(wine.target_names[wine.target[i]]) for i in order[130:]]


@pytest.fixture(scope='module')
def trained(tmp_path_factory):
    folder = tmp_path_factory.mktemp('wine')
    labels = write_wine(str(folder))
    (folder / 'wine.py').write_text(CONFIG % {'preprocess': PREPROCESS})
    code, _, err = paddle(['train', '--config=wine.py', '--save_dir=out', '--num_passes=15', '--dot_period=0',
                           '--seed=1'], str(folder))
    assert code == 0, err[-3000:]
    return folder, labels, err


def test_trains_from_raw_csv_to_90_percent(trained):
    folder, _, log = trained
    errors = [float(line.rsplit('=', 1)[1]) for line in log.splitlines() if ' Test samples=48 ' in line]
    assert len(errors) == 15 and 1 - errors[-1] >= 0.9, log[-2000:]
    assert ("csv reader: fitted on 130 training rows: 13 features from 13 columns (log+zscore 1, zscore 12); "
            "classes class_0, class_1, class_2") in log
    state = json.loads((folder / 'out' / 'pass-00014' / 'preprocessing.json').read_text())['states'][0]
    assert state['label']['names'] == ['class_0', 'class_1', 'class_2']
    proline = [f for f in state['features'] if f['name'] == 'proline'][0]
    assert [s['op'] for s in proline['steps']] == ['log', 'zscore']
    rows = list(csv.reader(open(str(folder / 'train.csv'))))[1:]  # the statistics are the training list's
    assert np.isclose(proline['steps'][1]['mean'], np.log1p([float(r[12]) for r in rows]).mean())


def test_unlabelled_rows_get_the_same_names_everywhere(trained, tmp_path):
    ort = pytest.importorskip('onnxruntime')
    folder, labels, _ = trained
    model = str(folder / 'out' / 'pass-00014')
    code, out, err = paddle(['predict', '--config=wine.py', '--model_dir=' + model, '--data_list=new.list',
                             '--format=jsonl', '--output=' + str(tmp_path / 'p.jsonl')], str(folder))
    assert code == 0, err[-2000:]
    assert "writing prob (what the cost layers score, not their cost)" in err and "'label'" in err
    rows = [json.loads(line) for line in (tmp_path / 'p.jsonl').read_text().splitlines()]
    assert [sorted(r) for r in rows[:1]] == [['id', 'label', 'prob']]
    by_predict = [r['label'] for r in rows]
    assert np.mean(np.array(by_predict) == np.array(labels)) >= 0.9

    merged = str(tmp_path / 'wine.paddle')
    code, _, err = paddle(['merge_model', '--config=wine.py', '--config_args=is_predict=1', '--model_dir=' + model,
                           '--output=' + merged], str(folder))
    assert code == 0, err[-2000:]
    from py_paddle import swig_paddle as api
    from py_paddle.deploy import RawPredictor
    api.initPaddle('--use_gpu=0')
    raw = list(csv.reader(open(str(folder / 'new.csv'))))
    served = RawPredictor(merged).predict(raw[1:])
    assert served['label'] == by_predict
    np.testing.assert_allclose(served['prob'], [r['prob'] for r in rows], rtol=1e-5, atol=1e-6)
    as_dicts = RawPredictor(merged).predict([dict(zip(raw[0], r)) for r in raw[1:3]])
    assert as_dicts['label'] == by_predict[:2]
    # the merged file still serves the C++ Predictor (the trailer is skipped) and `paddle predict`
    code, _, err = paddle(['predict', '--config=wine.py', '--config_args=is_predict=1', '--model_file=' + merged,
                           '--data_list=new.list', '--format=jsonl', '--output=' + str(tmp_path / 'm.jsonl')],
                          str(folder))
    assert code == 0, err[-2000:]
    assert (tmp_path / 'm.jsonl').read_text() == (tmp_path / 'p.jsonl').read_text()

    onnx_file = str(tmp_path / 'wine.onnx')
    code, out, err = paddle(['export_onnx', '--model_file=' + merged, '--output=' + onnx_file], str(folder))
    assert code == 0, err[-2000:]
    session = ort.InferenceSession(onnx_file)
    prob, ids, names = session.run(['prob', 'id', 'label'], {'features': np.array(raw[1:], np.float32)})
    assert list(names) == by_predict and ids.tolist() == [r['id'] for r in rows]
    np.testing.assert_allclose(prob, served['prob'], rtol=1e-4, atol=1e-6)


def test_predict_on_a_training_config_writes_probabilities_not_costs(trained, tmp_path):
    folder, labels, _ = trained
    model = str(folder / 'out' / 'pass-00014')
    out_file = tmp_path / 'p.txt'
    code, out, err = paddle(['predict', '--config=wine.py', '--model_dir=' + model, '--output=' + str(out_file)],
                            str(folder))  # the test list, labels and all
    assert code == 0, err[-2000:]
    assert 'wrote prob, id, label of 48 samples' in out
    rows = [line.split(';') for line in out_file.read_text().splitlines()]
    probs = np.array([[float(v) for v in r[0].split()] for r in rows])
    assert probs.shape == (48, 3) and np.allclose(probs.sum(1), 1, atol=1e-5)
    assert [int(r[1]) for r in rows] == probs.argmax(1).tolist() and [r[2] for r in rows] == labels
    # --output_layers still writes anything, the cost included
    code, _, err = paddle(['predict', '--config=wine.py', '--model_dir=' + model, '--output_layers=__cost_0__',
                           '--format=npy', '--output=' + str(tmp_path / 'c.npy')], str(folder))
    assert code == 0, err[-2000:]
    assert np.load(str(tmp_path / 'c.npy')).shape == (48, 1)


def test_a_model_saved_without_preprocessing_is_said_so(trained, tmp_path):
    """Unlabelled rows with a training config whose pass lacks preprocessing.json: the reader
    fits on the rows it is given and says so, rather than failing or staying silent."""
    folder, _, _ = trained
    model = tmp_path / 'pass'
    model.mkdir()
    for f in os.listdir(str(folder / 'out' / 'pass-00014')):
        if f.startswith('_'):
            (model / f).write_bytes((folder / 'out' / 'pass-00014' / f).read_bytes())
    code, _, err = paddle(['predict', '--config=wine.py', '--model_dir=' + str(model), '--data_list=new.list',
                           '--output=' + str(tmp_path / 'p.txt')], str(folder))
    assert code == 0, err[-2000:]
    assert 'fitted on new.csv itself' in err


def test_job_test_applies_the_saved_preprocessing_not_one_fitted_on_the_test_list(tmp_path):
    """`paddle train --job=test` on a saved pass reads the test list through the statistics fitted
    on the training list (saved in the pass), so it reproduces the training run's own test."""
    from wine_csv import ZSCORE, write_wine
    write_wine(str(tmp_path), preprocess=ZSCORE)
    code, _, log = paddle(['train', '--config=wine.py', '--save_dir=out', '--num_passes=2', '--dot_period=0'],
                          str(tmp_path))
    assert code == 0, log[-2000:]
    trained = re.findall(r' Test samples=38 cost=(\S+) Eval: (.*)', log)[-1]  # pass 1's
    code, _, log = paddle(['train', '--config=wine.py', '--job=test', '--init_model_path=out/pass-00001'],
                          str(tmp_path))
    assert code == 0, log[-2000:]
    assert 'fitted on' not in log  # neither on the test list nor anew
    assert re.search(r' Pass=pass-00001 samples=38 AvgCost=(\S+) Eval: (.*)', log).groups() == trained
