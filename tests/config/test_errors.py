"""Malformed configs: one-line 'FILE:LINE: message' ConfigErrors that point
at the user's config line (never a traceback into the helpers)."""

import re
import subprocess
import sys
import os

import pytest

from paddle.trainer.config_parser import ConfigError, parse_config

H = 'from paddle.trainer_config_helpers import *\nsettings(batch_size=10)\n'

# (config body, expected line, regex the message must match)
CASES = {
    'unknown_input_raw': (H + '''x = data_layer(name='x', size=10)
Layer(name='y', type='fc', size=10, inputs=['nosuch'])
outputs(x)
''', 4, r"layer 'y' \(fc\): unknown input layer 'nosuch'"),
    'typo_kwarg': (H + '''x = data_layer(name='x', size=10)
y = fc_layer(input=x, sizee=10)
outputs(y)
''', 4, r"fc_layer\(\) got an unexpected keyword argument 'sizee' "
        r"\(did you mean 'size'\?\)"),
    'duplicate_name': (H + '''x = data_layer(name='x', size=10)
y = fc_layer(input=x, size=10, name='h')
z = fc_layer(input=y, size=10, name='h')
outputs(z)
''', 5, r"layer 'h' \(fc\): duplicate layer name 'h'"),
    'syntax_error': (H + '''x = data_layer(name='x', size=10
y = fc_layer(input=x, size=10)
outputs(y)
''', 3, r"syntax error"),
    'missing_outputs': (H + '''x = data_layer(name='x', size=10)
y = fc_layer(input=x, size=10)
''', 4, r"no outputs"),
    'shared_param_size_mismatch': (H + '''x = data_layer(name='x', size=10)
z = data_layer(name='z', size=20)
a = fc_layer(input=x, size=5, param_attr=ParamAttr(name='w'))
b = fc_layer(input=z, size=5, param_attr=ParamAttr(name='w'))
outputs(a, b)
''', 6, r"layer '__fc_layer_1__' \(fc\): shared parameter 'w' has size 50, "
        r"but this use needs size 100"),
    'wrong_type_act_class': (H + '''x = data_layer(name='x', size=10)
outputs(fc_layer(input=x, size=10, act=TanhActivation))
''', 4, r"fc_layer: act must be an activation object.*TanhActivation\(\)"),
    'wrong_type_input': (H + '''x = data_layer(name='x', size=10)
outputs(fc_layer(input='x', size=10))
''', 4, r"fc_layer: input must be a layer"),
    'bad_size': (H + '''x = data_layer(name='x', size=10)
outputs(fc_layer(input=x, size=-3))
''', 4, r"fc_layer: size must be a positive integer, got -3"),
    'undefined_name': (H + '''x = data_layer(name='x', size=10)
outputs(fc_layer(input=xx, size=10))
''', 4, r"name 'xx' is not defined"),
    'softmax_required': (H + '''x = data_layer(name='x', size=10)
lbl = data_layer(name='lbl', size=1)
outputs(classification_cost(input=fc_layer(input=x, size=3), label=lbl))
''', 5, r"classification_cost: input layer '__fc_layer_0__' must use "
        r"SoftmaxActivation\(\)"),
    'unknown_setting': ('''Settings(batch_size=3, learnig_rate=0.1)
''', 1, r"unknown setting 'learnig_rate'"),
    'bad_optimizer': ('''from paddle.trainer_config_helpers import *
settings(batch_size=3, learning_method='adam')
''', 2, r"learning_method must be an optimizer object"),
    'unknown_layer_type': ('''Layer(name='a', type='fancy', size=3)
''', 1, r"unknown layer type 'fancy'"),
    'too_many_positional': (H + '''x = data_layer(name='x', size=10)
outputs(fc_layer(x, 10, TanhActivation()))
''', 4, r"fc_layer\(\) takes 2 positional argument"),
    'unsupported_extra_attr': (H + '''x = data_layer(name='x', size=10)
outputs(trans_layer(input=x, layer_attr=ExtraAttr(drop_rate=0.5)))
''', 4, r"trans_layer does not support ExtraAttr\(drop_rate"),
}


@pytest.mark.parametrize('case', sorted(CASES))
def test_one_line_error(write_config, case):
    text, line, pattern = CASES[case]
    path = write_config(text)
    with pytest.raises(ConfigError) as info:
        parse_config(path, '')
    msg = str(info.value)
    assert '\n' not in msg
    assert msg.startswith('%s:%d: ' % (path, line)), msg
    assert re.search(pattern, msg), msg
    assert info.value.filename == path and info.value.lineno == line


def test_error_in_helper_called_from_user_function(write_config):
    path = write_config(H + '''
def block(inp):
    return fc_layer(input=inp, size=0)

x = data_layer(name='x', size=10)
outputs(block(x))
''')
    with pytest.raises(ConfigError) as info:
        parse_config(path, '')
    # innermost user frame: inside block()
    assert str(info.value).startswith('%s:5: ' % path)


def test_error_in_imported_config_points_at_that_file(write_config):
    common = write_config('''
from paddle.trainer_config_helpers import *
x = data_layer(name='x', size=10)
y = fc_layer(input=x, size=10, nme='q')
''', name='common.py')
    main = write_config('''
from paddle.trainer_config_helpers import *
Import('common.py')
''', name='main.py')
    with pytest.raises(ConfigError) as info:
        parse_config(main, '')
    assert str(info.value).startswith('%s:3: ' % common), str(info.value)


def test_bad_config_arg_value(write_config):
    path = write_config(H + '''n = get_config_arg('n', int, 3)
flag = get_config_arg('flag', bool, False)
''')
    with pytest.raises(ConfigError) as info:
        parse_config(path, 'n=abc')
    assert str(info.value).startswith(path + ':3: ')
    assert "config arg 'n'='abc' cannot be converted to int" in str(
        info.value)
    with pytest.raises(ConfigError) as info:
        parse_config(path, 'flag=maybe')
    assert str(info.value).startswith(path + ':4: ')


def test_missing_file():
    with pytest.raises(ConfigError) as info:
        parse_config('/nonexistent/conf.py', '')
    assert str(info.value).startswith('/nonexistent/conf.py: cannot read')


def test_serialize_without_batch_size(write_config):
    from paddle.trainer.config_parser import parse_config_and_serialize
    path = write_config('''from paddle.trainer_config_helpers import *
x = data_layer(name='x', size=10)
outputs(fc_layer(input=x, size=2))
''')
    with pytest.raises(ConfigError) as info:
        parse_config_and_serialize(path, '')
    assert 'batch_size' in str(info.value)
    assert str(info.value).startswith(path + ':')


def test_dump_config_cli_error_is_one_line(write_config):
    text, line, pattern = CASES['typo_kwarg']
    path = write_config(text)
    root = os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))
    r = subprocess.run(
        [sys.executable, '-m', 'paddle.utils.dump_config', path],
        cwd=root, capture_output=True, text=True)
    assert r.returncode == 1
    assert r.stdout == ''
    lines = r.stderr.strip().split('\n')
    assert len(lines) == 1 and lines[0].startswith('%s:%d: ' % (path, line))
