"""paddle.utils.dump_config: text / json / yaml, --whole, CLI."""

import json
import os
import subprocess
import sys

import pytest
import yaml

from paddle.utils.dump_config import dump_config, main

CONF = '''
from paddle.trainer_config_helpers import *
n = get_config_arg('n', int, 4)
settings(batch_size=16, learning_rate=0.5)
x = data_layer(name='x', size=n)
outputs(fc_layer(input=x, size=2, name='y'))
'''


def test_text_model_only(write_config):
    out = dump_config(write_config(CONF))
    assert out.startswith('type: "nn"\n')
    assert 'opt_config' not in out
    assert 'name: "_y.w0"\n  size: 8\n' in out


def test_config_args(write_config):
    out = dump_config(write_config(CONF), 'n=5')
    assert 'name: "_y.w0"\n  size: 10\n' in out


def test_whole(write_config):
    out = dump_config(write_config(CONF), whole=True)
    assert out.startswith('model_config {\n')
    assert 'opt_config {\n  batch_size: 16\n' in out
    assert 'save_dir: "./output/model"\nstart_pass: 0\n' in out


def test_json_and_yaml_agree(write_config):
    path = write_config(CONF)
    j = json.loads(dump_config(path, fmt='json', whole=True))
    y = yaml.safe_load(dump_config(path, fmt='yaml', whole=True))
    assert j == y
    assert j['opt_config']['learning_rate'] == 0.5
    assert j['model_config']['layers'][1]['inputs'][0][
        'input_parameter_name'] == '_y.w0'


def test_bad_format(write_config):
    with pytest.raises(ValueError):
        dump_config(write_config(CONF), fmt='xml')


def test_main_function(write_config, capsys):
    path = write_config(CONF)
    assert main([path, 'n=3', '--format=json']) == 0
    out = json.loads(capsys.readouterr().out)
    assert out['layers'][0]['size'] == 3  # a number, not the JSON mapping's string
    assert main([]) == 2


def test_module_cli(write_config):
    path = write_config(CONF)
    root = os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))
    r = subprocess.run(
        [sys.executable, '-m', 'paddle.utils.dump_config', path, '--whole'],
        cwd=root, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert 'batch_size: 16' in r.stdout
