"""config_parser + helpers: naming, init, settings, data, inputs/outputs."""

import json
import math
import pickle

import pytest

from paddle.proto import message_to_json
from paddle.trainer.config_parser import parse_config

H = 'from paddle.trainer_config_helpers import *\n'


def params(conf):
    return {p.name: p for p in conf.model_config.parameters}


def layers(conf):
    return {l.name: l for l in conf.model_config.layers}


MLP = H + '''
settings(batch_size=128, learning_rate=0.1)
img = data_layer(name='pixel', size=784)
h1 = fc_layer(input=img, size=64)
h2 = fc_layer(input=h1, size=32, act=ReluActivation())
out = fc_layer(input=h2, size=10, act=SoftmaxActivation())
lbl = data_layer(name='label', size=10)
outputs(classification_cost(input=out, label=lbl))
'''


def test_auto_names_and_parameter_names(parse):
    conf = parse(MLP)
    names = [l.name for l in conf.model_config.layers]
    assert names == [
        'pixel', '__fc_layer_0__', '__fc_layer_1__', '__fc_layer_2__',
        'label', '__cost_0__'
    ]
    ps = params(conf)
    assert sorted(ps) == sorted([
        '___fc_layer_0__.w0', '___fc_layer_0__.wbias', '___fc_layer_1__.w0',
        '___fc_layer_1__.wbias', '___fc_layer_2__.w0', '___fc_layer_2__.wbias'
    ])
    l = layers(conf)
    assert l['__fc_layer_1__'].inputs[0].input_parameter_name == \
        '___fc_layer_1__.w0'
    assert l['__fc_layer_1__'].bias_parameter_name == '___fc_layer_1__.wbias'
    assert l['__fc_layer_1__'].active_type == 'relu'
    assert l['__fc_layer_0__'].active_type == 'tanh'
    assert list(ps['___fc_layer_0__.w0'].dims) == [784, 64]
    assert ps['___fc_layer_0__.w0'].size == 784 * 64


def test_name_counters_reset_between_parses(parse):
    a = parse(MLP)
    b = parse(MLP)
    assert [l.name for l in a.model_config.layers] == \
        [l.name for l in b.model_config.layers]
    assert a.model_config == b.model_config


def test_cost_layer_and_evaluator(parse):
    conf = parse(MLP)
    cost = layers(conf)['__cost_0__']
    assert cost.type == 'multi-class-cross-entropy'
    assert cost.size == 1
    assert cost.coeff == 1.0 and cost.HasField('coeff')
    assert [i.input_layer_name for i in cost.inputs] == \
        ['__fc_layer_2__', 'label']
    assert not cost.inputs[0].HasField('input_parameter_name')
    ev = conf.model_config.evaluators
    assert len(ev) == 1
    assert ev[0].name == 'classification_error_evaluator'
    assert ev[0].type == 'classification_error'
    assert list(ev[0].input_layers) == ['__fc_layer_2__', 'label']
    assert list(conf.model_config.sub_models[0].evaluator_names) == \
        ['classification_error_evaluator']
    assert list(conf.model_config.input_layer_names) == ['pixel', 'label']
    assert list(conf.model_config.output_layer_names) == ['__cost_0__']


def test_initial_smart_and_bias(parse):
    conf = parse(MLP)
    w = params(conf)['___fc_layer_0__.w0']
    assert w.initial_smart is True and w.HasField('initial_smart')
    assert w.initial_mean == 0.0
    assert math.isclose(w.initial_std, 1 / math.sqrt(784))
    assert w.initial_strategy == 0
    b = params(conf)['___fc_layer_0__.wbias']
    assert b.initial_smart is False and b.HasField('initial_smart')
    assert b.initial_std == 0.0 and b.initial_mean == 0.0
    assert list(b.dims) == [1, 64]
    for p in (w, b):
        for f in ('momentum', 'decay_rate', 'learning_rate',
                  'gradient_clipping_threshold', 'is_sparse', 'format'):
            assert not p.HasField(f), (p.name, f)


def test_param_attr_variants(parse):
    conf = parse(H + '''
settings(batch_size=10)
x = data_layer(name='x', size=16)
a = fc_layer(input=x, size=4, name='a',
             param_attr=ParamAttr(initial_std=0.5, learning_rate=2,
                                  l2_rate=1e-3, momentum=0.5),
             bias_attr=ParamAttr(initial_std=0.25, initial_mean=1.0))
b = fc_layer(input=x, size=4, name='b', bias_attr=False,
             param_attr=ParamAttr(initial_max=3.0, initial_min=-1.0))
c = fc_layer(input=x, size=4, name='c', param_attr=ParamAttr(name='shared'))
d = fc_layer(input=x, size=4, name='d', param_attr=ParamAttr(name='shared'),
             bias_attr=ParamAttr(name='c_bias'))
e = fc_layer(input=x, size=4, name='e', param_attr=ParamAttr(is_static=True,
             l1_rate=0.1))
f = fc_layer(input=x, size=4, name='f', param_attr=ParamAttr(
             sparse_update=True))
outputs(a, b, c, d, e, f)
''')
    ps = params(conf)
    wa = ps['_a.w0']
    assert (wa.initial_std, wa.initial_mean, wa.initial_strategy,
            wa.initial_smart) == (0.5, 0.0, 0, False)
    assert wa.learning_rate == 2.0 and wa.decay_rate == 1e-3
    assert wa.momentum == 0.5
    ba = ps['_a.wbias']
    assert (ba.initial_std, ba.initial_mean) == (0.25, 1.0)
    wb = ps['_b.w0']
    assert (wb.initial_mean, wb.initial_std, wb.initial_strategy) == \
        (1.0, 2.0, 1)
    assert '_b.wbias' not in ps
    assert not layers(conf)['b'].HasField('bias_parameter_name')
    assert 'shared' in ps and '_c.w0' not in ps and '_d.w0' not in ps
    assert layers(conf)['d'].inputs[0].input_parameter_name == 'shared'
    assert layers(conf)['d'].bias_parameter_name == 'c_bias'
    we = ps['_e.w0']
    assert we.is_static and not we.HasField('decay_rate_l1')
    wf = ps['_f.w0']
    assert wf.sparse_update and wf.sparse_remote_update
    assert conf.opt_config.use_sparse_remote_updater is True


def test_fc_list_input(parse):
    conf = parse(H + '''
settings(batch_size=10)
x = data_layer(name='x', size=8)
y = data_layer(name='y', size=3)
z = fc_layer(input=[x, y], size=5, name='z',
             param_attr=[ParamAttr(name='px'), ParamAttr(initial_std=0.1)])
outputs(z)
''')
    z = layers(conf)['z']
    assert [i.input_parameter_name for i in z.inputs] == ['px', '_z.w1']
    ps = params(conf)
    assert list(ps['px'].dims) == [8, 5] and list(ps['_z.w1'].dims) == [3, 5]


SETTINGS = H + '''
x = data_layer(name='x', size=4)
before = fc_layer(input=x, size=2, name='before')
settings(batch_size=64, learning_rate=0.01,
         learning_method=AdamOptimizer(beta1=0.8),
         regularization=L2Regularization(8e-4),
         model_average=ModelAverage(average_window=0.5),
         gradient_clipping_threshold=25,
         learning_rate_decay_a=0.1, learning_rate_decay_b=0.5,
         learning_rate_schedule='discexp')
after = fc_layer(input=x, size=2, name='after')
outputs(after, before)
'''


def test_settings_to_opt_config(parse):
    conf = parse(SETTINGS)
    o = conf.opt_config
    assert o.batch_size == 64 and o.learning_rate == 0.01
    assert o.algorithm == 'sgd'
    assert o.learning_method == 'adam'
    assert (o.adam_beta1, o.adam_beta2, o.adam_epsilon) == (0.8, 0.999, 1e-8)
    assert o.average_window == 0.5 and o.do_average_in_cpu is False
    assert not o.HasField('max_average_window')
    assert o.learning_rate_schedule == 'discexp'
    assert (o.learning_rate_decay_a, o.learning_rate_decay_b) == (0.1, 0.5)
    ps = params(conf)
    # defaults apply only to parameters created after settings()
    assert ps['_after.w0'].decay_rate == 8e-4
    assert ps['_after.w0'].gradient_clipping_threshold == 25
    assert ps['_after.wbias'].decay_rate == 8e-4
    assert not ps['_before.w0'].HasField('decay_rate')
    assert not ps['_before.w0'].HasField('gradient_clipping_threshold')


@pytest.mark.parametrize('method,expect', [
    ('MomentumOptimizer(momentum=0.9)', {'learning_method': 'momentum'}),
    ('MomentumOptimizer(0.9, sparse=True)',
     {'learning_method': 'sparse_momentum'}),
    ('AdaGradOptimizer()', {'learning_method': 'adagrad'}),
    ('AdamaxOptimizer(beta1=0.8, beta2=0.9)',
     {'learning_method': 'adamax', 'adam_beta1': 0.8, 'adam_beta2': 0.9}),
    ('RMSPropOptimizer(rho=0.9, epsilon=1e-5)',
     {'learning_method': 'rmsprop', 'ada_rou': 0.9, 'ada_epsilon': 1e-5}),
    ('DecayedAdaGradOptimizer(rho=0.8)',
     {'learning_method': 'decayed_adagrad', 'ada_rou': 0.8}),
    ('AdaDeltaOptimizer(rho=0.7, epsilon=1e-4)',
     {'learning_method': 'adadelta', 'ada_rou': 0.7, 'ada_epsilon': 1e-4}),
])
def test_learning_methods(parse, method, expect):
    conf = parse(H + '''
settings(batch_size=8, learning_method=%s, is_async=True)
x = data_layer(name='x', size=4)
outputs(fc_layer(input=x, size=2))
''' % method)
    o = conf.opt_config
    for k, v in expect.items():
        assert getattr(o, k) == pytest.approx(v) if isinstance(
            v, float) else getattr(o, k) == v
    assert o.algorithm == 'async_sgd'
    assert o.learning_rate == 1e-3
    w = params(conf)['___fc_layer_0__.w0']
    if 'momentum=0.9' in method or '(0.9' in method:
        assert w.momentum == 0.9
    else:
        assert not w.HasField('momentum')


def test_raw_settings_and_defaults(parse):
    conf = parse('''
Settings(batch_size=5, learning_rate=0.5, algorithm='sgd', save_dir='out',
         start_pass=2)
default_momentum(0.3)
default_initial_std(0.2)
default_initial_smart(False)
Layer(name='x', type='data', size=3)
Layer(name='y', type='fc', size=2, inputs=['x'], bias=Bias(initial_std=0.))
Inputs('x')
Outputs('y')
''')
    assert conf.save_dir == 'out' and conf.start_pass == 2
    assert conf.opt_config.batch_size == 5
    p = params(conf)['_y.w0']
    assert p.momentum == 0.3 and p.initial_std == 0.2
    assert p.initial_smart is False
    assert params(conf)['_y.wbias'].momentum == 0.3


def test_define_py_data_sources2(parse, tmp_path):
    conf = parse(H + '''
settings(batch_size=10)
define_py_data_sources2(train_list='train.list', test_list='test.list',
                        module='prov', obj=('process', 'process_test'),
                        args={'dictionary': {'a': 1}, 'n': 3})
x = data_layer(name='x', size=4)
outputs(fc_layer(input=x, size=2))
''')
    for dc, files, obj, for_test in ((conf.data_config, 'train.list',
                                      'process', False),
                                     (conf.test_data_config, 'test.list',
                                      'process_test', True)):
        assert dc.type == 'py2'
        assert dc.files == files
        assert dc.load_data_module == 'prov'
        assert dc.load_data_object == obj
        assert dc.for_test is for_test and dc.HasField('for_test')
        assert dc.async_load_data is False and dc.HasField('async_load_data')
        assert dc.data_ratio == 1 and dc.is_main_data is True
        assert dc.HasField('usage_ratio') and dc.usage_ratio == 1.0
        args = pickle.loads(dc.load_data_args.encode('latin-1'))
        assert args == {'dictionary': {'a': 1}, 'n': 3}


def test_define_py_data_sources2_no_test_and_no_args(parse):
    conf = parse(H + '''
settings(batch_size=10)
define_py_data_sources2('tr.list', None, module=('m1', 'm2'), obj='p')
x = data_layer(name='x', size=4)
outputs(fc_layer(input=x, size=2))
''')
    assert conf.data_config.load_data_module == 'm1'
    assert conf.data_config.load_data_args == ''
    assert not conf.HasField('test_data_config')


def test_outputs_dfs_order_and_inputs(parse):
    src = H + '''
settings(batch_size=10)
lbl = data_layer(name='label', size=1)
b = data_layer(name='b', size=3)
a = data_layer(name='a', size=3)
h = fc_layer(input=[a, b], size=2, act=SoftmaxActivation())
c1 = classification_cost(input=h, label=lbl)
c2 = mse_cost(input=fc_layer(input=b, size=1), label=lbl)
%s
'''
    conf = parse(src % 'outputs(c1, c2)')
    assert list(conf.model_config.input_layer_names) == ['a', 'b', 'label']
    assert list(conf.model_config.output_layer_names) == \
        ['__cost_0__', '__mse_cost_0__']
    conf = parse(src % 'inputs(lbl, b, a)\noutputs(c2, c1)')
    assert list(conf.model_config.input_layer_names) == ['label', 'b', 'a']
    assert list(conf.model_config.output_layer_names) == \
        ['__mse_cost_0__', '__cost_0__']
    root = conf.model_config.sub_models[0]
    assert root.name == 'root' and not root.is_recurrent_layer_group
    assert list(root.input_layer_names) == ['label', 'b', 'a']


def test_outputs_finds_cost_behind_given_layer(parse):
    conf = parse(H + '''
settings(batch_size=10)
x = data_layer(name='x', size=3)
y = data_layer(name='y', size=3)
c = mse_cost(input=x, label=y)
outputs(c)
''')
    assert list(conf.model_config.output_layer_names) == ['__mse_cost_0__']
    layer = conf.model_config.layers[-1]
    assert layer.type == 'square_error' and layer.coeff == 1.0


def test_regression_cost_alias(parse):
    conf = parse(H + '''
settings(batch_size=10)
x = data_layer(name='x', size=3)
y = data_layer(name='y', size=3)
outputs(regression_cost(input=x, label=y))
''')
    assert conf.model_config.layers[-1].name == '__mse_cost_0__'


@pytest.mark.parametrize('args,expect', [
    ('', "5 True 'abc' 0.5"),
    ('n=7,flag=0,s=xyz,f=2.5', "7 False 'xyz' 2.5"),
    ('flag=true', "5 True 'abc' 0.5"),
    ('flag=', "5 True 'abc' 0.5"),
])
def test_get_config_arg(parse, args, expect):
    conf = parse(H + '''
n = get_config_arg('n', int, 5)
flag = get_config_arg('flag', bool, True)
s = get_config_arg('s', str, 'abc')
f = get_config_arg('f', float, 0.5)
settings(batch_size=n)
x = data_layer(name='x', size=3)
outputs(fc_layer(input=x, size=2, name='%r %r %r %r' % (n, flag, s, f)))
''', args)
    assert conf.model_config.layers[-1].name == expect


def test_get_config_arg_missing_none(parse):
    conf = parse(H + '''
v = get_config_arg('missing', str)
settings(batch_size=1)
x = data_layer(name='x', size=3)
outputs(fc_layer(input=x, size=2, name=v))
''')
    assert conf.model_config.layers[-1].name == 'None'


def test_parse_callable():
    def config():
        from paddle.trainer_config_helpers import (settings, data_layer,
                                                   fc_layer, outputs)
        settings(batch_size=3)
        outputs(fc_layer(input=data_layer(name='x', size=2), size=2))

    conf = parse_config(config, '')
    assert conf.opt_config.batch_size == 3
    assert conf.model_config.layers[1].name == '__fc_layer_0__'


def test_import_other_config(write_config):
    write_config('''
from paddle.trainer_config_helpers import *
shared = data_layer(name='shared_input', size=6)
''', name='common.py')
    main = write_config('''
from paddle.trainer_config_helpers import *
Import('common.py')
settings(batch_size=3)
x = data_layer(name='x', size=6)
outputs(fc_layer(input=x, size=2))
''', name='main.py')
    conf = parse_config(main, '')
    assert conf.model_config.layers[0].name == 'shared_input'
    assert conf.config_files[0].endswith('common.py')


def test_json_contract(parse):
    conf = parse(MLP)
    d = json.loads(message_to_json(conf))
    mc = d['model_config']
    assert mc['type'] == 'nn'
    fc = mc['layers'][1]
    assert fc['name'] == '__fc_layer_0__' and fc['active_type'] == 'tanh'
    assert fc['inputs'][0]['input_parameter_name'] == '___fc_layer_0__.w0'
    assert int(fc['size']) == 64
    p = mc['parameters'][0]
    assert p['initial_smart'] is True and [int(v) for v in p['dims']] == \
        [784, 64]
    assert d['opt_config']['batch_size'] == 128
    assert mc['evaluators'][0]['type'] == 'classification_error'
    assert d['save_dir'] == './output/model'


def test_python2_style_config(parse):
    conf = parse(H + '''
settings(batch_size=10)
print "legacy config"
x = data_layer(name='x', size=8)
outputs(fc_layer(input=x, size=8 / 2))
''')
    assert conf.model_config.layers[-1].size == 4
