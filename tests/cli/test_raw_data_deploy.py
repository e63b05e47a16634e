"""Raw data through every way a trained model is served: a csv model with a categorical
column and missing values (paddle predict vs onnxruntime on raw strings and NaN), and a text
model (paddle predict on unlabelled lines from the training config vs RawPredictor on strings)."""
import json

import numpy as np
import pytest

from test_cli import paddle

CSV_CONFIG = """\
from paddle.trainer_config_helpers import *
define_py_data_sources2(train_list='train.list', test_list='train.list', module='paddle.trainer.readers', obj='csv',
                        args={'label_column': 'y',
                              'preprocess': {'columns': {'colour': 'onehot', 'size': 'id', 'x1': ['log', 'zscore'],
                                                         'x2': 'minmax'},
                                             'missing': {'*': 'median', 'colour': 'mode', 'size': 'small'}}})
settings(batch_size=8, learning_rate=0.05, learning_method=AdamOptimizer())
x = data_layer(name='x', size=6)
prob = fc_layer(input=fc_layer(input=x, size=8, act=TanhActivation()), size=2, act=SoftmaxActivation(), name='prob')
outputs(classification_cost(input=prob, label=data_layer(name='y', size=2)))
"""

TEXT_CONFIG = """\
from paddle.trainer_config_helpers import *
define_py_data_sources2(train_list='train.list', test_list='train.list', module='paddle.trainer.readers',
                        obj='text', args={'max_size': 6})
settings(batch_size=4, learning_rate=0.05, learning_method=AdamOptimizer())
words = data_layer(name='words', size=6)
avg = pooling_layer(input=embedding_layer(input=words, size=8), pooling_type=AvgPooling())
prob = fc_layer(input=avg, size=2, act=SoftmaxActivation(), name='prob')
outputs(classification_cost(input=prob, label=data_layer(name='label', size=2)))
"""


def train(folder, config, passes):
    (folder / 'conf.py').write_text(config)
    code, _, err = paddle(['train', '--config=conf.py', '--save_dir=out', '--num_passes=%d' % passes,
                           '--dot_period=0', '--seed=1'], str(folder))
    assert code == 0, err[-3000:]
    return str(folder / 'out' / ('pass-%05d' % (passes - 1)))


def predict_jsonl(folder, args):
    code, _, err = paddle(['predict', '--config=conf.py', '--format=jsonl', '--output=p.jsonl'] + args, str(folder))
    assert code == 0, err[-2000:]
    return [json.loads(line) for line in (folder / 'p.jsonl').read_text().splitlines()]


def test_categories_and_missing_values_in_onnx(tmp_path):
    ort = pytest.importorskip('onnxruntime')
    rng = np.random.RandomState(0)
    colours, sizes = ['red', 'green', 'blue'], ['small', 'big']
    lines = ['x1,colour,x2,size,y']
    for _ in range(48):
        c, s, x1 = rng.randint(3), rng.randint(2), rng.randint(1, 500)
        lines.append('%d,%s,%.3f,%s,%s' % (x1, colours[c], rng.rand() * 40, sizes[s], 'yes' if c == 0 else 'no'))
    (tmp_path / 'train.csv').write_text('\n'.join(lines) + '\n')
    (tmp_path / 'train.list').write_text('train.csv\n')
    new = [('7', 'red', '', 'big'), ('NA', 'green', '3.5', ''), ('40', '', '12', 'small'),
           ('900', 'purple', '1', 'huge')]  # missing cells, unseen categories
    (tmp_path / 'new.csv').write_text('x1,colour,x2,size\n' + ''.join(','.join(r) + '\n' for r in new))
    (tmp_path / 'new.list').write_text('new.csv\n')
    model = train(tmp_path, CSV_CONFIG, 2)
    rows = predict_jsonl(tmp_path, ['--model_dir=' + model, '--data_list=new.list'])
    assert [r['label'] for r in rows] == [['no', 'yes'][r['id']] for r in rows]

    code, out, err = paddle(['export_onnx', '--config=conf.py', '--model_dir=' + model, '--output=m.onnx'],
                            str(tmp_path))
    assert code == 0, err[-2000:]
    assert "inputs: x ['batch', 2], x.colour ['batch'], x.size ['batch']" in out
    session = ort.InferenceSession(str(tmp_path / 'm.onnx'))
    numbers = np.array([[float(r[0]) if r[0] not in ('', 'NA') else np.nan,
                         float(r[2]) if r[2] else np.nan] for r in new], np.float32)
    prob, ids, labels = session.run(['prob', 'id', 'label'], {
        'x': numbers, 'x.colour': np.array([r[1] for r in new], object),
        'x.size': np.array([r[3] for r in new], object)})
    np.testing.assert_allclose(prob, [r['prob'] for r in rows], rtol=1e-4, atol=1e-6)
    assert ids.tolist() == [r['id'] for r in rows] and list(labels) == [r['label'] for r in rows]


def test_text_model_predicts_unlabelled_lines_and_serves_raw_strings(tmp_path):
    config = TEXT_CONFIG.replace(
        "outputs(classification_cost(input=prob, label=data_layer(name='label', size=2)))",
        "if get_config_arg('is_predict', bool, False):\n    outputs(prob)\n"
        "else:\n    outputs(classification_cost(input=prob, label=data_layer(name='label', size=2)))")
    (tmp_path / 'train.txt').write_text(''.join('%s\t%s film %s\n' % (('pos', 'fine', 'truly' * (i % 3)) if i % 2
                                                                     else ('neg', 'bad', 'truly' * (i % 3)))
                                                for i in range(24)))
    (tmp_path / 'train.list').write_text('train.txt\n')
    (tmp_path / 'new.txt').write_text('a fine film\nBAD\nnever seen words\n')  # no labels
    (tmp_path / 'new.list').write_text('new.txt\n')
    model = train(tmp_path, config, 4)
    rows = predict_jsonl(tmp_path, ['--model_dir=' + model, '--data_list=new.list'])  # the training config
    assert [r['label'] for r in rows[:2]] == ['pos', 'neg']

    from py_paddle import swig_paddle as api
    from py_paddle.deploy import RawPredictor
    api.initPaddle('--use_gpu=0')
    for name, args in (('train.paddle', []), ('predict.paddle', ['--config_args=is_predict=1'])):
        code, _, err = paddle(['merge_model', '--config=conf.py', '--model_dir=' + model, '--output=' + name] + args,
                              str(tmp_path))
        assert code == 0, err[-2000:]
    with pytest.raises(ValueError, match=r"reads 2 data layers \(words, label\).*is_predict=1"):
        RawPredictor(str(tmp_path / 'train.paddle'))  # the training network also wants the label
    served = RawPredictor(str(tmp_path / 'predict.paddle')).predict(['a fine film', 'BAD', 'never seen words'])
    np.testing.assert_allclose(served['prob'], [r['prob'] for r in rows], rtol=1e-5, atol=1e-6)
    assert served['label'] == [r['label'] for r in rows]
