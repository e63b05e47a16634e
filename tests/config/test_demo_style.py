"""v1 demo-style configs run unmodified: get_config_arg, is_predict
switches, dictionaries read at config time (relative to the config's
directory, or to the working directory as v1 demos were run), and
define_py_data_sources2 with args."""

import os
import pickle
import textwrap

import pytest

from paddle.trainer.config_parser import parse_config

# in the style of v1 demo/quick_start/trainer_config.lstm.py
QUICK_START = '''
from paddle.trainer_config_helpers import *

dict_file = get_config_arg('dict_file', str, "./data/dict.txt")
word_dict = dict()
with open(dict_file, 'r') as f:
    for i, line in enumerate(f):
        w = line.strip().split()[0]
        word_dict[w] = i

is_predict = get_config_arg('is_predict', bool, False)
trn = 'data/train.list' if not is_predict else None
tst = 'data/test.list' if not is_predict else 'data/pred.list'
process = 'process' if not is_predict else 'process_predict'
define_py_data_sources2(train_list=trn,
                        test_list=tst,
                        module="dataprovider_emb",
                        obj=process,
                        args={"dictionary": word_dict})

batch_size = 128 if not is_predict else 1
settings(
    batch_size=batch_size,
    learning_rate=2e-3,
    learning_method=AdamOptimizer(),
    regularization=L2Regularization(8e-4),
    gradient_clipping_threshold=25)

bias_attr = ParamAttr(initial_std=0., l2_rate=0.)
data = data_layer(name="word", size=len(word_dict))
emb = embedding_layer(input=data, size=128)
lstm = simple_lstm(input=emb, size=128,
                   lstm_cell_attr=ExtraAttr(drop_rate=0.25))
lstm_max = pooling_layer(input=lstm, pooling_type=MaxPooling())
output = fc_layer(input=lstm_max, size=2,
                  act=SoftmaxActivation())
if is_predict:
    maxid = maxid_layer(output)
    outputs([maxid, output])
else:
    label = data_layer(name="label", size=2)
    cls = classification_cost(input=output, label=label)
    outputs(cls)
'''

# dictionary next to the config, found through __file__ (runs from anywhere)
SEQ_TAGGING = '''
import os
from paddle.trainer_config_helpers import *

here = os.path.dirname(__file__)
def load_dict(name):
    d = {}
    for i, line in enumerate(open(os.path.join(here, name))):
        d[line.strip()] = i
    return d

word_dict = load_dict('data/dict.txt')
label_dict = load_dict('data/labels.txt')
num_label_types = len(label_dict)
is_predict = get_config_arg('is_predict', bool, False)
batch_size = get_config_arg('batch_size', int, 10)
hidden = get_config_arg('hidden', int, 32)

define_py_data_sources2(
    train_list='data/train.list', test_list='data/test.list',
    module='dataprovider', obj='process',
    args={'dictionary': word_dict, 'labels': label_dict,
          'predict': is_predict})

settings(batch_size=batch_size, learning_rate=1e-3,
         learning_method=MomentumOptimizer(0.9))

word = data_layer(name='word', size=len(word_dict))
emb = embedding_layer(input=word, size=16)
h = fc_layer(input=emb, size=hidden, act=TanhActivation())
out = fc_layer(input=h, size=num_label_types, act=LinearActivation())
if not is_predict:
    label = data_layer(name='label', size=num_label_types)
    crf = crf_layer(input=out, label=label, size=num_label_types,
                    param_attr=ParamAttr(name='crfw'))
    outputs(crf)
else:
    outputs(crf_decoding_layer(input=out, size=num_label_types,
                               param_attr=ParamAttr(name='crfw')))
'''

WORDS = ['<unk>', 'the', 'a', 'movie', 'good', 'bad']


@pytest.fixture
def demo(tmp_path):
    d = tmp_path / 'demo'
    (d / 'data').mkdir(parents=True)
    (d / 'data' / 'dict.txt').write_text(''.join('%s\t%d\n' % (w, 10 - i)
                                                 for i, w in enumerate(WORDS)))
    (d / 'data' / 'labels.txt').write_text('B\nI\nO\n')
    (d / 'trainer_config.lstm.py').write_text(textwrap.dedent(QUICK_START))
    (d / 'tagging.py').write_text(textwrap.dedent(SEQ_TAGGING))
    return d


def _args(data_config):
    return pickle.loads(data_config.load_data_args.encode('latin-1'))


def test_quick_start_train_from_demo_dir(demo, monkeypatch):
    monkeypatch.chdir(demo)  # v1 demos are run from their directory
    conf = parse_config('trainer_config.lstm.py', '')
    mc = conf.model_config
    assert mc.layers[0].name == 'word' and mc.layers[0].size == len(WORDS)
    assert list(mc.input_layer_names) == ['word', 'label']
    assert list(mc.output_layer_names) == ['__cost_0__']
    assert conf.opt_config.batch_size == 128
    assert conf.data_config.files == 'data/train.list'
    assert conf.data_config.load_data_object == 'process'
    assert _args(conf.data_config) == {
        'dictionary': {w: i for i, w in enumerate(WORDS)}}
    assert _args(conf.test_data_config) == _args(conf.data_config)


def test_quick_start_predict_switch(demo, monkeypatch):
    monkeypatch.chdir(demo)
    conf = parse_config('trainer_config.lstm.py', 'is_predict=1')
    mc = conf.model_config
    assert list(mc.input_layer_names) == ['word']
    assert list(mc.output_layer_names) == ['__maxid_layer_0__',
                                           '__fc_layer_0__']
    assert conf.opt_config.batch_size == 1
    assert not conf.HasField('data_config')
    assert conf.test_data_config.load_data_object == 'process_predict'
    assert conf.test_data_config.files == 'data/pred.list'
    assert all(l.type != 'data' or l.name != 'label' for l in mc.layers)


def test_quick_start_dict_file_config_arg(demo, tmp_path, monkeypatch):
    other = tmp_path / 'words.txt'
    other.write_text('x 1\ny 2\n')
    monkeypatch.chdir(demo)
    conf = parse_config('trainer_config.lstm.py', 'dict_file=%s' % other)
    assert conf.model_config.layers[0].size == 2


def test_dict_relative_to_config_dir_from_any_cwd(demo, tmp_path,
                                                   monkeypatch):
    elsewhere = tmp_path / 'elsewhere'
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    path = str(demo / 'tagging.py')
    conf = parse_config(path, 'batch_size=7,hidden=5')
    mc = conf.model_config
    assert conf.opt_config.batch_size == 7
    sizes = {l.name: l.size for l in mc.layers}
    assert sizes['word'] == len(WORDS) and sizes['__fc_layer_0__'] == 5
    assert list(mc.output_layer_names) == ['__crf_layer_0__']
    args = _args(conf.data_config)
    assert args['labels'] == {'B': 0, 'I': 1, 'O': 2}
    assert args['predict'] is False
    pred = parse_config(path, 'is_predict=true')
    assert list(pred.model_config.output_layer_names) == \
        ['__crf_decoding_layer_0__']
    assert _args(pred.data_config)['predict'] is True
    # relative path: also fine (config dir is the path's dirname)
    monkeypatch.chdir(demo)
    assert parse_config('tagging.py').model_config == parse_config(
        path).model_config


def test_missing_dict_file_is_a_one_line_error(demo, tmp_path, monkeypatch):
    from paddle.trainer.config_parser import ConfigError
    monkeypatch.chdir(tmp_path)  # ./data/dict.txt is not here
    with pytest.raises(ConfigError) as e:
        parse_config(str(demo / 'trainer_config.lstm.py'))
    msg = str(e.value)
    assert '\n' not in msg
    assert msg.startswith('%s:6: ' % (demo / 'trainer_config.lstm.py'))
    assert 'No such file' in msg


def test_python2_demo_syntax(tmp_path):
    pytest.importorskip('lib2to3')
    p = tmp_path / 'py2.py'
    p.write_text(textwrap.dedent('''
        from paddle.trainer_config_helpers import *
        n = get_config_arg('n', int, 4)
        print "building with", n
        settings(batch_size=n)
        x = data_layer(name='x', size=n)
        outputs(fc_layer(input=x, size=xrange(3)[-1]))
    '''))
    conf = parse_config(str(p), 'n=6')
    assert conf.opt_config.batch_size == 6
    assert conf.model_config.layers[1].size == 2


def test_yaml_twin_with_config_args(tmp_path):
    """The YAML front end reads the same --config_args."""
    p = tmp_path / 'c.yaml'
    p.write_text(textwrap.dedent('''
        config_args: {hidden: 8, is_predict: false, tag: w}
        settings: {batch_size: 4}
        layers:
          - {type: data_layer, name: "${tag}ord", size: 10}
          - {type: fc_layer, name: h, input: word, size: "${hidden}"}
          - {type: data_layer, name: label, size: 8, when: not is_predict}
          - {type: mse_cost, name: cost, input: h, label: label,
             when: not is_predict}
        outputs:
          - {when: is_predict, layers: h}
          - {when: not is_predict, layers: cost}
    '''))
    conf = parse_config(str(p), 'hidden=3,is_predict=1,unused=5')
    mc = conf.model_config
    assert [l.name for l in mc.layers] == ['word', 'h']
    assert mc.layers[1].size == 3
    assert list(mc.output_layer_names) == ['h']
    conf = parse_config(str(p))
    assert list(conf.model_config.output_layer_names) == ['cost']
