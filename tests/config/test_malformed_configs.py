"""Table-driven malformed configs, Python and YAML: every one must raise a
ConfigError whose str() is ONE line 'FILE:LINE: message' naming the config
file and the offending line (never a bare traceback)."""

import os
import re
import subprocess
import sys
import textwrap

import pytest

from paddle.trainer.config_parser import ConfigError, parse_config

# ---------------------------------------------------------------------------
# YAML: a small valid model; line 7 is replaced by each bad entry below.

YAML_BASE = """\
settings:
  batch_size: 16
  learning_rate: 0.01
layers:
  - {type: data_layer, name: x, size: 10}
  - {type: data_layer, name: y, size: 2}
  - {type: fc_layer, name: h, input: x, size: 8, act: tanh}
  - {type: fc_layer, name: out, input: h, size: 2, act: softmax}
  - {type: classification_cost, name: cost, input: out, label: y}
outputs: [cost]
"""

E = '  - {type: %s}'  # entry on line 7
YAML_LINE7 = [
    ('fc_layer, name: h, input: x, sise: 8', r"unknown key 'sise' \(did you mean 'size'\?\)"),
    ('fc_layr, name: h, input: x, size: 8', r"unknown layer type str 'fc_layr' \(did you mean 'fc_layer'\?\)"),
    ('fc_layer, name: h, input: nosuch, size: 8', r"key 'input': 'nosuch' is not a layer defined above"),
    ('fc_layer, name: h, input: [x, nosuch], size: 8', r"'nosuch' is not a layer defined above"),
    ('fc_layer, name: h, input: x, size: abc', r"key 'size' must be an integer, got str 'abc'"),
    ('fc_layer, name: h, input: x, size: -3', r"size must be a positive integer, got -3"),
    ('fc_layer, name: h, input: x, size: 8.5', r"key 'size' must be an integer"),
    ('fc_layer, name: h, input: x, size: true', r"key 'size' must be an integer"),
    ('fc_layer, name: h, input: x, size: 8, act: relux', r"unknown activation 'relux' \(did you mean 'relu'\?\)"),
    ('fc_layer, name: h, input: x, size: 8, act: 3', r"key 'act' must be a activation name"),
    ('fc_layer, name: h, input: x, size: 8, act: Tanh', r"unknown activation 'Tanh'"),
    ('fc_layer, name: h, input: x, size: 8, act: {type: NoSuchActivation}', r"unknown type 'NoSuchActivation'"),
    ('fc_layer, name: h, input: x, size: 8, act: {type: ReluActivation, x: 1}', r"unknown key 'x'"),
    ('fc_layer, name: h, input: x, size: 8, param_attr: 0.1', r"key 'param_attr' must be a mapping of ParamAttr"),
    ('fc_layer, name: h, input: x, size: 8, param_attr: {initial_sd: 0.1}', r"unknown key 'initial_sd' \(did you mean 'initial_std'\?\)"),
    ('fc_layer, name: h, input: x, size: 8, param_attr: {initial_std: abc}', r"ParamAttr: give numbers"),
    ('fc_layer, name: h, input: x, size: 8, param_attr: {initial_max: 1, initial_min: 2}', r"initial_min \(2\) must be < initial_max"),
    ('fc_layer, name: h, input: x, size: 8, param_attr: {initial_std: 0.1, update_hooks: 3}', r"update_hooks' must be a mapping"),
    ('fc_layer, name: h, input: x, size: 8, param_attr: {is_static: maybe}', r"key 'is_static' must be true or false"),
    ('fc_layer, name: h, input: x, size: 8, param_attr: [{initial_std: 1}, {initial_std: 1}]', r"2 param_attr given for 1 inputs"),
    ('fc_layer, name: h, input: x, size: 8, bias_attr: maybe', r"key 'bias_attr' must be a mapping of ParamAttr arguments or a boolean"),
    ('fc_layer, name: h, input: x, size: 8, bias_attr: {l2: 0}', r"unknown key 'l2'"),
    ('fc_layer, name: h, input: x, size: 8, layer_attr: {drop_rate: 1.5}', r"drop_rate must be in \[0, 1\)"),
    ('fc_layer, name: h, input: x, size: 8, layer_attr: {droprate: 0.5}', r"unknown key 'droprate' \(did you mean 'drop_rate'\?\)"),
    ('fc_layer, name: h, input: x, size: 8, layer_attr: 0.5', r"must be a mapping of ExtraAttr arguments"),
    ('fc_layer, name: h, input: x', r"fc_layer 'h': missing required key 'size'"),
    ('fc_layer, name: 5, input: x, size: 8', r"key 'name' must be a string, got int 5"),
    ('fc_layer, name: x, input: x, size: 8', r"duplicate layer name 'x'"),
    ('fc_layer, name: h, input: x, size: 8, as: 5', r"'as' must be a name"),
    ('fc_layer, name: h, input: x, size: 8, size: 9', r"duplicate key 'size' \(first at line 7\)"),
    ('fc_layer, name: h, input: x, size: 8, 3: 4', r"keys must be names"),
    ('fc_layer, name: h, input: {size: 3}, size: 8', r"needs 'type' naming a helper"),
    ('fc_layer, name: h, input: {type: nosuch_projection}, size: 8', r"unknown type 'nosuch_projection'"),
    ('fc_layer, name: h, input: 5, size: 8', r"key 'input' must be a layer name"),
    ('fc_layer, name: h, input: x, size: 8, when: nosuch', r"when: unknown config arg 'nosuch'"),
    ('fc_layer, name: h, input: x, size: 8, when: 5', r"when: must be a config arg name"),
    ('fc_layer, name: h, input: x, size: "${nosuch}"', r"unknown config arg '\$\{nosuch\}'"),
    ('full_matrix_projection, input: x', r"full_matrix_projection is not a layer; use it inside an input: list"),
    ('mixed_layer, name: h, size: 8, input: [x]', r"wrap it in a projection such as full_matrix_projection"),
    ('mixed_layer, name: h, size: 8, input: [{type: full_matrix_projection, input: x, sise: 3}]', r"unknown key 'sise'"),
    ('mixed_layer, name: h, size: 8, input: [{type: full_matrix_projection, input: nosuch}]', r"'nosuch' is not a layer defined above"),
    ('mixed_layer, name: h, size: 8, input: [{type: table_projection, input: x, size: 9}]', r"mixed"),
    ('mixed_layer, name: h, input: []', r"mixed_layer 'h' has no inputs"),
    ('pooling_layer, name: h, input: x, pooling_type: maximum', r"unknown pooling type 'maximum'"),
    ('pooling_layer, name: h, input: x, agg_level: sometimes', r"key 'agg_level' must be one of"),
    ('pooling_layer, name: h, input: x, stride: fast', r"key 'stride' must be an integer"),
    ('img_conv_layer, name: h, input: x, filter_size: 3, num_filters: 4', r"img_conv_layer"),
    ('img_pool_layer, name: h, input: x, pool_size: 2', r"img_pool_layer"),
    ('simple_lstm, name: h, input: x, size: 8, reverse: maybe', r"key 'reverse' must be true or false"),
    ('simple_lstm, name: h, input: x, size: 8, lstm_cell_attr: {drop: 1}', r"unknown key 'drop'"),
    ('lstmemory, name: h, input: x', r"lstmemory"),
    ('concat_layer, name: h, input: x, act: 5', r"key 'act' must be a activation name"),
    ('cos_sim, name: h, a: x, b: nosuch', r"key 'b': 'nosuch' is not a layer"),
    ('cos_sim, name: h, a: x', r"missing required key 'b'"),
    ('expand_layer, name: h, input: x, expand_as: nosuch', r"key 'expand_as': 'nosuch' is not a layer"),
    ('trans_layer, name: h, input: x, layer_attr: {drop_rate: 0.5}', r"trans_layer does not support ExtraAttr\(drop_rate"),
    ('classification_cost, name: h, input: x, label: y', r"classification_cost"),
    ('data_layer, name: h', r"missing required key 'size'"),
    ('data_layer, name: h, size: 10, height: tall', r"key 'height' must be an integer"),
    ('dropout_layer, name: h, input: x, dropout_rate: high', r"key 'dropout_rate' must be a number"),
    ('embedding_layer, name: h, input: x, size: 8, param_attr: [1, 2]', r"must be a mapping of ParamAttr"),
    ('batch_norm_layer, name: h, input: x, moving_average_fraction: fast', r"key 'moving_average_fraction' must be a number"),
    ('recurrent_group, name: h, input: x, step: 3', r"step must be a mapping"),
    ('recurrent_group, name: h, input: x, step: {inputs: [a], outputs: a}', r"step: unknown key 'outputs' \(did you mean 'output'\?\)"),
    ('recurrent_group, name: h, input: x, step: {inputs: [a, b], output: a}', r"step receives 1 input\(s\) but declares 2"),
    ('recurrent_group, name: h, input: x, step: {inputs: [a], output: zz}', r"step output str 'zz' is not a layer of the step"),
    ('recurrent_group, name: h, input: x, step: {inputs: [a], layers: [{type: fc_layer, input: a, sise: 3}], output: a}', r"unknown key 'sise'"),
    ('recurrent_group, name: h, input: x, step: {inputs: [a], output: a}, reverse: 2', r"key 'reverse' must be true or false"),
    ('recurrent_group, name: h, input: [{type: StaticInput, input: x}], step: {inputs: [a], output: a}', r"needs at least one sequence in-link"),
    ('memory, name: h, size: 0', r"size must be a positive integer"),
    ('5', r"unknown layer type int 5"),
]
YAML_CASES = {}
for i, (frag, rx) in enumerate(YAML_LINE7):
    YAML_CASES['line7_%02d' % i] = (YAML_BASE.replace(
        '  - {type: fc_layer, name: h, input: x, size: 8, act: tanh}',
        E % frag), 7, rx)

# other line-7 shapes
YAML_CASES['entry_is_string'] = (YAML_BASE.replace(
    '  - {type: fc_layer, name: h, input: x, size: 8, act: tanh}',
    '  - fc_layer'), 7, r"layers\[2\] must be a mapping with a type: key")
YAML_CASES['entry_is_list'] = (YAML_BASE.replace(
    '  - {type: fc_layer, name: h, input: x, size: 8, act: tanh}',
    '  - [1, 2]'), 7, r"layers\[2\] must be a mapping")
YAML_CASES['entry_without_type'] = (YAML_BASE.replace(
    '  - {type: fc_layer, name: h, input: x, size: 8, act: tanh}',
    '  - {name: h, input: x, size: 8}'), 7, r"missing key 'type'")


def _with(old, new, text=YAML_BASE):
    assert old in text
    return text.replace(old, new)


YAML_CASES.update({
    'top_unknown_key': (_with('outputs: [cost]', 'output: [cost]'), 10,
                        r"unknown top-level key 'output' \(did you mean 'outputs'\?\)"),
    'top_missing_outputs': (_with('outputs: [cost]\n', ''), 1,
                            r"missing top-level key 'outputs'"),
    'top_missing_layers': ('settings: {batch_size: 3}\noutputs: [a]\n', 1,
                           r"missing top-level key 'layers'"),
    'top_is_list': ('- a\n- b\n', 1, r"must be a mapping with keys"),
    'top_is_scalar': ('hello\n', 1, r"must be a mapping with keys"),
    'empty_file': ('', 1, r"empty YAML config"),
    'syntax_unclosed_flow': (_with('act: tanh}', 'act: tanh'), 8, r"YAML syntax error"),
    'syntax_bad_indent': (_with('  learning_rate: 0.01', ' learning_rate: 0.01'), 3, r"YAML syntax error"),
    'syntax_tab': (_with('  learning_rate: 0.01', '\tlearning_rate: 0.01'), 3, r"YAML syntax error.*'\\t'"),
    'undefined_alias': (_with('outputs: [cost]', 'outputs: *nosuch'), 10, r"found undefined alias"),
    'python_tag': (_with('  batch_size: 16', '  batch_size: !!python/object:os.system 16'), 2, r"could not determine a constructor"),
    'tag_on_mapping': (_with('  - {type: fc_layer, name: h', '  - !layer {type: fc_layer, name: h'), 7, r"YAML tag '!layer' is not allowed"),
    'tag_on_sequence': (_with('outputs: [cost]', 'outputs: !!set [cost]'), 10, r"YAML tag 'tag:yaml.org,2002:set' is not allowed"),
    'alias_bomb': ('b0: &b0 [x, x, x, x, x, x, x, x, x, x]\n' + ''.join(
        'b%d: &b%d [%s]\n' % (i, i, ', '.join(['*b%d' % (i - 1)] * 10)) for i in range(1, 9)) + YAML_BASE,
        1, r"YAML aliases expand to more than 200000 values"),
    'duplicate_top_key': (YAML_BASE + 'outputs: [out]\n', 11, r"duplicate key 'outputs' \(first at line 10\)"),
    'outputs_dangling': (_with('outputs: [cost]', 'outputs: [cost, nosuch]'), 10, r"outputs: 'nosuch' is not a layer defined in layers"),
    'outputs_dangling_block': (_with('outputs: [cost]', 'outputs:\n  - cost\n  - nosuch'), 12, r"'nosuch' is not a layer"),
    'outputs_number': (_with('outputs: [cost]', 'outputs: 5'), 10, r"outputs must be a layer name or a list"),
    'outputs_item_number': (_with('outputs: [cost]', 'outputs:\n  - 5'), 11, r"outputs\[0\] must be a layer name"),
    'outputs_group_bad_key': (_with('outputs: [cost]', 'outputs:\n  - {if: a, layers: [cost]}'), 11, r"unknown key 'if'"),
    'outputs_group_no_layers': (_with('outputs: [cost]', 'outputs:\n  - {when: true}'), 11, r"missing key 'layers'"),
    'outputs_empty': (_with('outputs: [cost]', 'outputs: []'), 10, r"no output layer selected"),
    'inputs_dangling': (_with('outputs: [cost]', 'inputs: [x, z]\noutputs: [cost]'), 10, r"inputs: 'z' is not a layer"),
    'settings_batch_size': (_with('batch_size: 16', 'batch_size: abc'), 2, r"key 'batch_size' must be an integer"),
    'settings_unknown': (_with('learning_rate: 0.01', 'learning_rat: 0.01'), 3, r"settings: unknown key 'learning_rat' \(did you mean 'learning_rate'\?\)"),
    'settings_optimizer': (_with('learning_rate: 0.01', 'learning_method: adamm'), 3, r"unknown optimizer 'adamm' \(did you mean 'adam'\?\)"),
    'settings_optimizer_arg': (_with('learning_rate: 0.01', 'learning_method: {type: adam, beta: 0.9}'), 3, r"unknown key 'beta'"),
    'settings_regularization': (_with('learning_rate: 0.01', 'regularization: {type: L1}'), 3, r"unknown type 'L1'"),
    'settings_regularization_str': (_with('learning_rate: 0.01', 'regularization: lots'), 3, r"unknown regularization 'lots'"),
    'settings_lr_str': (_with('learning_rate: 0.01', 'learning_rate: fast'), 3, r"key 'learning_rate' must be a number"),
    'settings_not_mapping': (_with('settings:\n  batch_size: 16\n  learning_rate: 0.01', 'settings: 16\n\n'), 1, r"settings must be a mapping"),
    'settings_missing_batch': (_with('  batch_size: 16\n', ''), 1, r"settings: missing required key 'batch_size'"),
    'settings_model_average': (_with('learning_rate: 0.01', 'model_average: {type: ModelAverage}'), 3, r"missing required key 'average_window'"),
    'data_unknown_key': (YAML_BASE + 'data: {train: a, test_list: b, module: m, obj: o}\n', 11, r"data: unknown key 'train'"),
    'data_missing_module': (YAML_BASE + 'data:\n  train_list: a\n  test_list: b\n  obj: o\n', 11, r"data: missing required key 'module'"),
    'data_not_mapping': (YAML_BASE + 'data: [a, b]\n', 11, r"data must be a mapping"),
    'data_bad_module': (YAML_BASE + 'data: {train_list: a, test_list: b, module: 3, obj: o}\n', 11, r"module and obj must be names"),
    'layers_bad_block': (_with('layers:\n', 'layers: 5\n'), 5, r"YAML syntax error: mapping values are not allowed"),
    'layers_not_list': ('settings: {batch_size: 3}\nlayers: 5\noutputs: [a]\n', 2, r"layers must be a list of entries"),
    'config_args_not_mapping': ('config_args: [a]\n' + YAML_BASE, 1, r"config_args must be a mapping"),
    'config_args_list_default': ('config_args:\n  a: [1]\n' + YAML_BASE, 2, r"config_args: 'a' must have a scalar default"),
    'evaluator_unknown': (_with('outputs: [cost]', 'evaluators:\n  - {type: classification_eror_evaluator, input: out, label: y}\noutputs: [cost]'), 11, r"unknown evaluator type .*did you mean 'classification_error_evaluator'"),
    'evaluator_dangling': (_with('outputs: [cost]', 'evaluators:\n  - {type: classification_error_evaluator, input: outt, label: y}\noutputs: [cost]'), 11, r"'outt' is not a layer defined above \(did you mean 'out'\?\)"),
    'evaluator_missing_label': (_with('outputs: [cost]', 'evaluators:\n  - {type: chunk_evaluator, input: out, label: y}\noutputs: [cost]'), 11, r"missing required keys 'chunk_scheme', 'num_chunk_types'"),
    'evaluators_not_list': (_with('outputs: [cost]', 'evaluators: {type: sum_evaluator}\noutputs: [cost]'), 10, r"evaluators must be a list"),
    'block_style_line_of_key': (_with(
        '  - {type: fc_layer, name: h, input: x, size: 8, act: tanh}',
        '  - type: fc_layer\n    name: h\n    input: x\n    size: 8\n    act: tanhh'),
        11, r"unknown activation 'tanhh' \(did you mean 'tanh'\?\)"),
    'block_style_dangling': (_with(
        '  - {type: fc_layer, name: h, input: x, size: 8, act: tanh}',
        '  - type: fc_layer\n    name: h\n    input:\n      - x\n      - xx\n    size: 8'),
        11, r"'xx' is not a layer defined above \(did you mean 'x'\?\)"),
    'block_style_helper_error': (_with(
        '  - {type: fc_layer, name: h, input: x, size: 8, act: tanh}',
        '  - type: fc_layer\n    name: h\n    input: x\n    size: 0'),
        7, r"fc_layer: size must be a positive integer, got 0"),
    'use_before_definition': (_with(
        '  - {type: data_layer, name: x, size: 10}',
        '  - {type: fc_layer, name: early, input: h, size: 3}\n  - {type: data_layer, name: x, size: 10}'),
        5, r"'h' is not a layer defined above"),
})

# ---------------------------------------------------------------------------
# Python: line 5 replaced by each bad statement below.

PY_BASE = """\
from paddle.trainer_config_helpers import *
settings(batch_size=16, learning_rate=0.01)
x = data_layer(name='x', size=10)
y = data_layer(name='y', size=2)
h = fc_layer(input=x, size=8, act=TanhActivation())
out = fc_layer(input=h, size=2, act=SoftmaxActivation())
cost = classification_cost(input=out, label=y)
outputs(cost)
"""

PY_LINE5 = [
    ("h = fc_layer(input=x, sise=8)", r"unexpected keyword argument 'sise' \(did you mean 'size'\?\)"),
    ("h = fc_layer(input=x, size=8, act=TanhActivation)", r"act must be an activation object"),
    ("h = fc_layer(input=xx, size=8)", r"name 'xx' is not defined"),
    ("h = fc_layer(input='x', size=8)", r"input must be a layer"),
    ("h = fc_layer(input=x, size=-1)", r"size must be a positive integer"),
    ("h = fc_layer(input=x, size='8')", r"size must be a positive integer"),
    ("h = fc_lyer(input=x, size=8)", r"name 'fc_lyer' is not defined"),
    ("h = fc_layer(input=x, size=8, param_attr=0.1)", r"param_attr must be a ParamAttr"),
    ("h = fc_layer(input=x, size=8, param_attr=ParamAttr(initial_sd=0.1))", r"unexpected keyword argument 'initial_sd'"),
    ("h = fc_layer(input=x, size=8, layer_attr=ExtraAttr(drop_rate=2))", r"drop_rate must be in"),
    ("h = fc_layer(input=x, size=8, name='x')", r"duplicate layer name 'x'"),
    ("h = fc_layer(input=[], size=8)", r"non-empty list of layers"),
    ("h = fc_layer(input=x, size=8, param_attr=[ParamAttr(), ParamAttr()])", r"2 param_attr given for 1 inputs"),
    ("h = fc_layer(x, 8, TanhActivation())", r"takes 2 positional argument"),
    ("h = mixed_layer(size=8, input=[x])", r"wrap it in a projection"),
    ("h = mixed_layer(size=8, input=[full_matrix_projection(input=x, sise=3)])", r"unexpected keyword argument 'sise'"),
    ("h = img_conv_layer(input=x, filter_size=3, num_filters=4)", r"img_conv_layer"),
    ("h = img_pool_layer(input=x, pool_size=2)", r"img_pool_layer"),
    ("h = trans_layer(input=x, layer_attr=ExtraAttr(drop_rate=0.5))", r"trans_layer does not support ExtraAttr"),
    ("h = lstmemory(input=x)", r"lstmemory"),
    ("h = cos_sim(a=x, b=nosuch)", r"name 'nosuch' is not defined"),
    ("h = classification_cost(input=x, label=y)", r"classification_cost"),
    ("h = recurrent_group(step=3, input=x)", r"step must be a function"),
    ("h = memory(name='m', size=0)", r"size must be a positive integer"),
    ("h = embedding_layer(input=x)", r"missing 1 required positional argument: 'size'"),
    ("h = data_layer(name='z')", r"missing 1 required positional argument: 'size'"),
    ("h = data_layer(name='z', size=None)", r"size is required"),
    ("h = crf_layer(input=x, label=nosuch)", r"name 'nosuch' is not defined"),
    ("h = pooling_layer(input=x, pooling_type='max')", r"pooling"),
    ("h = 1 / 0", r"ZeroDivisionError: division by zero"),
    ("h = [][1]", r"IndexError: list index out of range"),
    ("h = {}['k']", r"KeyError: 'k'"),
    ("import nosuchmodule_xyz", r"No module named 'nosuchmodule_xyz'"),
    ("assert False, 'boom'", r"check failed: boom"),
    ("raise ValueError('bad value')", r"ValueError: bad value"),
    ("n = get_config_arg('n', int, 'abc')", r"cannot be converted to int"),
    ("Layer(name='hh', type='fc', size=8, inputs=['nosuch'])", r"unknown input layer 'nosuch'"),
    ("Layer(name='hh', type='fancy', size=3)", r"unknown layer type 'fancy'"),
    ("define_py_data_sources2('a', 'b', module=3, obj='p')", r"module and obj must be names"),
    ("define_py_data_sources2([1, [2]], None, module='p', obj='p')", r"file list entries must be file names \(strings\), got int 1"),
    ("outputs(5)", r"outputs: expected layers"),
    ("settings(batch_size=0)", r"batch_size must be a positive integer"),
    ("settings(batch_size=10, learning_method='adam')", r"learning_method must be an optimizer object"),
    ("settings(batch_size=10, regularizaton=1)", r"unexpected keyword argument 'regularizaton' \(did you mean 'regularization'\?\)"),
    ("Import('nosuch_file.py')", r"Import: cannot read config file"),
    ("h = fc_layer(input=x, size=8", r"syntax error"),
    ("h = fc_layer(input=x, size=8))", r"syntax error"),
    ("    h = 3", r"syntax error"),
    ("h = x.nosuch_attr", r"AttributeError"),
    ("h = fc_layer(input=x, size=8, bias_attr=ParamAttr(initial_max=0, initial_min=1))", r"initial_min \(1\) must be < initial_max"),
    ("h = simple_lstm(input=x, size=8, reverse=True, mat_param_attr=3)", r"param_attr"),
    ("h = seq_concat_layer(a=x, b=[y])", r"seq_concat_layer"),
    # values the trainer would fail on, or train nonsense with, refused at parse time
    ("settings(batch_size=10, learning_rate=float('nan'))", r"settings: learning_rate must be a finite number, got nan"),
    ("settings(batch_size=10, learning_rate=-0.1)", r"settings: learning_rate must be in \[0, inf\), got -0.1"),
    ("settings(batch_size=2.5)", r"settings: batch_size must be an integer, got 2.5"),
    ("settings(batch_size=True)", r"settings: batch_size must be an integer, got True"),
    ("settings(batch_size=10, learning_rate_schedule='expo')", r"unknown learning_rate_schedule 'expo'"),
    ("settings(batch_size=10, learning_rate_schedule='manual', learning_rate_args='100:x')", r"segment '100:x' is not 'bound:rate'"),
    ("settings(batch_size=10, learning_method=MomentumOptimizer(momentum=-0.5))", r"momentum must be in \[0, 1\]"),
    ("settings(batch_size=10, learning_method=AdamOptimizer(beta2=1.0))", r"adam_beta2 must be in \[0, 1\)"),
    ("settings(batch_size=10, learning_method=AdaDeltaOptimizer(epsilon=0))", r"ada_epsilon must be in \(0, inf\)"),
    ("settings(batch_size=10, regularization=L2Regularization(float('inf')))", r"must be a finite number, got inf"),
    ("settings(batch_size=10, model_average=ModelAverage(average_window=0))", r"average_window must be in \(0, inf\)"),
    ("settings(batch_size=10, gradient_clipping_threshold=-1)", r"gradient_clipping_threshold must be in \[0, inf\)"),
    ("h = fc_layer(input=x, size=8, bias_attr='x')", r"bias_attr must be a ParamAttr\(...\), True or False, got 'x'"),
    ("h = fc_layer(input=x, size=True)", r"size must be a positive integer, got True"),
    ("h = fc_layer(input=x, size=8, param_attr=ParamAttr(is_static='no'))", r"is_static must be True or False, got 'no'"),
    ("h = fc_layer(input=x, size=8, param_attr=ParamAttr(initial_std=float('inf')))", r"initial_std must be a finite number"),
    ("h = fc_layer(input=x, size=8, param_attr=ParamAttr(initial_std=-1))", r"initial_std must be in \[0, inf\)"),
    ("h = fc_layer(input=x, size=8, param_attr=ParamAttr(l2_rate='big'))", r"ParamAttr: l2_rate must be a number, got 'big'"),
    ("h = fc_layer(input=x, size=8, param_attr=ParamAttr(learning_rate=-2))", r"learning_rate must be in \[0, inf\)"),
    ("h = fc_layer(input=x, size=8, param_attr=ParamAttr(name='../../evil'))", r"parameter name '../../evil' is not allowed"),
    ("h = fc_layer(input=x, size=8, param_attr=ParamAttr(name='a/b'))", r"parameter name 'a/b' is not allowed"),
]
PY_CASES = {}
for i, (stmt, rx) in enumerate(PY_LINE5):
    PY_CASES['line5_%02d' % i] = (PY_BASE.replace(
        "h = fc_layer(input=x, size=8, act=TanhActivation())", stmt), 5, rx)
PY_CASES.update({
    'missing_outputs': (PY_BASE.replace('outputs(cost)\n', ''), 7, r"no outputs"),
    'outputs_non_layer': (PY_BASE.replace('outputs(cost)', 'outputs(cost, 3)'), 8, r"outputs: expected layers"),
    'helper_in_function': (PY_BASE.replace(
        "h = fc_layer(input=x, size=8, act=TanhActivation())",
        "def f(a):\n    return fc_layer(input=a, size=-8)\nh = f(x)"), 6, r"size must be a positive integer"),
})

ALL = [('yaml', k, v) for k, v in sorted(YAML_CASES.items())] + \
      [('py', k, v) for k, v in sorted(PY_CASES.items())]


def test_there_are_over_a_hundred_cases():
    assert len(ALL) >= 100
    assert len(YAML_CASES) >= 50 and len(PY_CASES) >= 50


def test_bases_are_valid(tmp_path):
    for ext, text in (('yaml', YAML_BASE), ('py', PY_BASE)):
        p = tmp_path / ('ok.' + ext)
        p.write_text(text)
        conf = parse_config(str(p))
        assert len(conf.model_config.layers) == 5


@pytest.mark.parametrize('ext,name,case', ALL, ids=['%s-%s' % (e, n)
                                                    for e, n, _ in ALL])
def test_malformed_config_gives_one_line_error(tmp_path, monkeypatch, ext,
                                               name, case):
    text, line, rx = case
    monkeypatch.chdir(tmp_path)
    path = str(tmp_path / ('bad_%s.%s' % (name, ext)))
    with open(path, 'w') as f:
        f.write(text)
    try:
        parse_config(path)
    except ConfigError as e:
        msg = str(e)
    except BaseException as e:  # pragma: no cover - the failure we test for
        pytest.fail('%s escaped as %s: %s' % (name, type(e).__name__, e))
    else:
        pytest.fail('%s: no error raised' % name)
    assert '\n' not in msg
    assert 'Traceback' not in msg
    prefix = '%s:%d: ' % (path, line)
    assert msg.startswith(prefix), (msg, prefix)
    assert re.search(rx, msg[len(prefix):]), msg


@pytest.mark.parametrize('ext,name', [('yaml', 'line7_00'),
                                      ('py', 'line5_00')])
def test_cli_prints_one_line(tmp_path, ext, name):
    text, line, _ = (YAML_CASES if ext == 'yaml' else PY_CASES)[name]
    path = tmp_path / ('bad.' + ext)
    path.write_text(text)
    import paddle
    env = dict(os.environ)
    env['PYTHONPATH'] = os.path.dirname(os.path.dirname(
        os.path.abspath(paddle.__file__)))
    r = subprocess.run([sys.executable, '-m', 'paddle.utils.dump_config',
                        str(path)], capture_output=True, text=True,
                       cwd=str(tmp_path), env=env)
    assert r.returncode == 1
    assert r.stdout == ''
    lines = r.stderr.strip().split('\n')
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith('%s:%d: ' % (path, line))
