"""Table-driven checks of helpers: the generated LayerConfig /
ParameterConfig compared semantically to protostr written from v1
(v0.10) semantics."""

import math

import pytest

from protocmp import assert_proto_equal

H = ('from paddle.trainer_config_helpers import *\n'
     'settings(batch_size=10)\n')

# (id, config body, layer name, expected LayerConfig text)
LAYER_CASES = [
    ('embedding', '''
w = data_layer(name='w', size=100)
e = embedding_layer(input=w, size=16)
outputs(e)''', '__embedding_0__', '''
name: "__embedding_0__" type: "mixed" size: 16 active_type: ""
inputs { input_layer_name: "w" input_parameter_name: "___embedding_0__.w0"
  proj_conf { type: "table" name: "___embedding_0__.w0" input_size: 100
              output_size: 16 } }'''),
    ('mixed_with', '''
a = data_layer(name='a', size=8)
b = data_layer(name='b', size=4)
with mixed_layer(size=4, act=SigmoidActivation(), bias_attr=True) as m:
    m += full_matrix_projection(input=a)
    m += identity_projection(input=b)
    m += dotmul_operator(a=b, b=b, scale=2)
outputs(m)''', '__mixed_0__', '''
name: "__mixed_0__" type: "mixed" size: 4 active_type: "sigmoid"
inputs { input_layer_name: "a" input_parameter_name: "___mixed_0__.w0"
  proj_conf { type: "fc" name: "___mixed_0__.w0" input_size: 8
              output_size: 4 } }
inputs { input_layer_name: "b"
  proj_conf { type: "identity" name: "___mixed_0__.w1" input_size: 4
              output_size: 4 } }
inputs { input_layer_name: "b" }
inputs { input_layer_name: "b" }
bias_parameter_name: "___mixed_0__.wbias"
operator_confs { type: "dot_mul" input_indices: 2 input_indices: 3
  input_sizes: 4 input_sizes: 4 output_size: 4 dotmul_scale: 2 }
bias_size: 4'''),
    ('context_trainable', '''
a = data_layer(name='a', size=5)
m = mixed_layer(input=context_projection(input=a, context_len=3,
                padding_attr=ParamAttr(initial_std=0.)), size=15)
outputs(m)''', '__mixed_0__', '''
name: "__mixed_0__" type: "mixed" size: 15 active_type: ""
inputs { input_layer_name: "a" input_parameter_name: "___mixed_0__.w0"
  proj_conf { type: "context" name: "___mixed_0__.w0" input_size: 5
    output_size: 15 context_start: -1 context_length: 3
    trainable_padding: true } }'''),
    ('pooling_sum', '''
a = data_layer(name='a', size=5)
outputs(pooling_layer(input=a, pooling_type=SumPooling(),
                      agg_level=AggregateLevel.EACH_SEQUENCE))''',
     '__seq_pooling_0__', '''
name: "__seq_pooling_0__" type: "average" size: 5 active_type: "linear"
inputs { input_layer_name: "a" } average_strategy: "sum"
trans_type: "seq" seq_pool_stride: -1'''),
    ('pooling_max', '''
a = data_layer(name='a', size=5)
outputs(pooling_layer(input=a))''', '__seq_pooling_0__', '''
name: "__seq_pooling_0__" type: "max" size: 5 active_type: "linear"
inputs { input_layer_name: "a" } trans_type: "non-seq"
seq_pool_stride: -1'''),
    ('first_seq_stride', '''
a = data_layer(name='a', size=30)
outputs(first_seq(input=a, stride=5))''', '__first_seq_0__', '''
name: "__first_seq_0__" type: "seqlastins" size: 30 active_type: "linear"
inputs { input_layer_name: "a" } select_first: true
trans_type: "non-seq" seq_pool_stride: 5'''),
    ('expand', '''
a = data_layer(name='a', size=5)
s = data_layer(name='s', size=3)
outputs(expand_layer(input=a, expand_as=s,
                     expand_level=ExpandLevel.FROM_SEQUENCE))''',
     '__expand_layer_0__', '''
name: "__expand_layer_0__" type: "expand" size: 5 active_type: ""
inputs { input_layer_name: "a" } inputs { input_layer_name: "s" }
trans_type: "seq"'''),
    ('concat', '''
a = data_layer(name='a', size=5)
b = data_layer(name='b', size=3)
outputs(concat_layer(input=[a, b]))''', '__concat_0__', '''
name: "__concat_0__" type: "concat" size: 8 active_type: ""
inputs { input_layer_name: "a" } inputs { input_layer_name: "b" }'''),
    ('concat2', '''
a = data_layer(name='a', size=5)
b = data_layer(name='b', size=3)
outputs(concat_layer(input=[identity_projection(a),
                            full_matrix_projection(b, size=2)]))''',
     '__concat_0__', '''
name: "__concat_0__" type: "concat2" size: 7 active_type: ""
inputs { input_layer_name: "a" proj_conf { type: "identity"
  name: "___concat_0__.w0" input_size: 5 output_size: 5 } }
inputs { input_layer_name: "b" input_parameter_name: "___concat_0__.w1"
  proj_conf { type: "fc" name: "___concat_0__.w1" input_size: 3
  output_size: 2 } }'''),
    ('addto', '''
a = data_layer(name='a', size=5)
b = data_layer(name='b', size=5)
outputs(addto_layer(input=[a, b], act=ReluActivation(), bias_attr=True))''',
     '__addto_0__', '''
name: "__addto_0__" type: "addto" size: 5 active_type: "relu"
inputs { input_layer_name: "a" } inputs { input_layer_name: "b" }
bias_parameter_name: "___addto_0__.wbias"'''),
    ('lstmemory', '''
a = data_layer(name='a', size=32)
outputs(lstmemory(input=a, reverse=True))''', '__lstmemory_0__', '''
name: "__lstmemory_0__" type: "lstmemory" size: 8 active_type: "tanh"
inputs { input_layer_name: "a" input_parameter_name: "___lstmemory_0__.w0" }
bias_parameter_name: "___lstmemory_0__.wbias" reversed: true
active_gate_type: "sigmoid" active_state_type: "tanh"'''),
    ('grumemory', '''
a = data_layer(name='a', size=12)
outputs(grumemory(input=a))''', '__gru_0__', '''
name: "__gru_0__" type: "gated_recurrent" size: 4 active_type: "tanh"
inputs { input_layer_name: "a" input_parameter_name: "___gru_0__.w0" }
bias_parameter_name: "___gru_0__.wbias" reversed: false
active_gate_type: "sigmoid"'''),
    ('conv', '''
img = data_layer(name='img', size=3 * 8 * 8)
outputs(img_conv_layer(input=img, filter_size=3, num_filters=4,
                       num_channels=3, stride=2, padding=1))''',
     '__conv_0__', '''
name: "__conv_0__" type: "exconv" size: 64 active_type: "relu"
inputs { input_layer_name: "img" input_parameter_name: "___conv_0__.w0"
  conv_conf { filter_size: 3 channels: 3 stride: 2 padding: 1 groups: 1
    filter_channels: 3 output_x: 4 img_size: 8 caffe_mode: true
    filter_size_y: 3 padding_y: 1 stride_y: 2 output_y: 4
    img_size_y: 8 } }
bias_parameter_name: "___conv_0__.wbias" num_filters: 4
shared_biases: true height: 4 width: 4'''),
    ('pool_avg', '''
img = data_layer(name='img', size=2 * 5 * 5)
outputs(img_pool_layer(input=img, pool_size=2, stride=2, num_channels=2,
                       pool_type=AvgPooling()))''', '__pool_0__', '''
name: "__pool_0__" type: "pool" size: 18 active_type: ""
inputs { input_layer_name: "img" pool_conf { pool_type: "avg-projection"
  channels: 2 size_x: 2 stride: 2 output_x: 3 img_size: 5 padding: 0
  size_y: 2 stride_y: 2 output_y: 3 img_size_y: 5 padding_y: 0 } }
height: 3 width: 3'''),
    ('cmrnorm', '''
img = data_layer(name='img', size=4 * 3 * 3)
outputs(img_cmrnorm_layer(input=img, size=5, num_channels=4))''',
     '__crmnorm_0__', '''
name: "__crmnorm_0__" type: "norm" size: 36 active_type: ""
inputs { input_layer_name: "img" norm_conf { norm_type: "cmrnorm-projection"
  channels: 4 size: 5 scale: 0.00256 pow: 0.75 output_x: 3 img_size: 3
  blocked: false output_y: 3 img_size_y: 3 } }
height: 3 width: 3'''),
    ('batch_norm_vector', '''
a = data_layer(name='a', size=6)
outputs(batch_norm_layer(input=a))''', '__batch_norm_0__', '''
name: "__batch_norm_0__" type: "batch_norm" size: 6 active_type: "relu"
inputs { input_layer_name: "a" input_parameter_name: "___batch_norm_0__.w0"
  image_conf { channels: 6 img_size: 1 img_size_y: 1 } }
inputs { input_layer_name: "a" input_parameter_name: "___batch_norm_0__.w1" }
inputs { input_layer_name: "a" input_parameter_name: "___batch_norm_0__.w2" }
bias_parameter_name: "___batch_norm_0__.wbias"
moving_average_fraction: 0.9'''),
    ('crf', '''
a = data_layer(name='a', size=5)
l = data_layer(name='l', size=5)
outputs(crf_layer(input=a, label=l))''', '__crf_layer_0__', '''
name: "__crf_layer_0__" type: "crf" size: 5 active_type: ""
inputs { input_layer_name: "a" input_parameter_name: "___crf_layer_0__.w0" }
inputs { input_layer_name: "l" } coeff: 1.0'''),
    ('slope_intercept', '''
a = data_layer(name='a', size=5)
outputs(slope_intercept_layer(input=a, slope=2, intercept=3))''',
     '__slope_intercept_layer_0__', '''
name: "__slope_intercept_layer_0__" type: "slope_intercept" size: 5
active_type: "" inputs { input_layer_name: "a" } slope: 2 intercept: 3'''),
    ('layer_math_sub', '''
a = data_layer(name='a', size=5)
outputs(layer_math.exp(a) - 1)''', '__slope_intercept_layer_0__', '''
name: "__slope_intercept_layer_0__" type: "slope_intercept" size: 5
active_type: "" inputs { input_layer_name: "__exp_0__" } slope: 1
intercept: -1'''),
    ('dropout', '''
a = data_layer(name='a', size=5)
outputs(dropout_layer(input=a, dropout_rate=0.5))''', '__dropout_0__', '''
name: "__dropout_0__" type: "addto" size: 5 active_type: ""
inputs { input_layer_name: "a" } drop_rate: 0.5'''),
    ('regression_weighted', '''
a = data_layer(name='a', size=5)
l = data_layer(name='l', size=5)
w = data_layer(name='w', size=1)
outputs(mse_cost(input=a, label=l, weight=w))''', '__mse_cost_0__', '''
name: "__mse_cost_0__" type: "square_error" size: 1 active_type: ""
inputs { input_layer_name: "a" } inputs { input_layer_name: "l" }
inputs { input_layer_name: "w" } coeff: 1.0'''),
]


@pytest.mark.parametrize('case', LAYER_CASES, ids=[c[0] for c in LAYER_CASES])
def test_layer(write_config, case):
    from test_helper_protostr import dump_whole
    _, body, lname, expected = case
    conf = dump_whole(write_config(H + body))  # via paddle dump_config
    layers = {l.name: l for l in conf.model_config.layers}
    assert lname in layers, sorted(layers)
    assert_proto_equal(layers[lname], expected)


# (id, config body, parameter name, expected ParameterConfig text)
PARAM_CASES = [
    ('embedding_smart', '''
w = data_layer(name='w', size=100)
outputs(embedding_layer(input=w, size=16))''', '___embedding_0__.w0', '''
name: "___embedding_0__.w0" size: 1600 initial_mean: 0 initial_std: 0.1
dims: 100 dims: 16 initial_strategy: 0 initial_smart: true'''),
    ('conv_init', '''
img = data_layer(name='img', size=3 * 8 * 8)
outputs(img_conv_layer(input=img, filter_size=3, num_filters=4,
                       num_channels=3))''', '___conv_0__.w0', '''
name: "___conv_0__.w0" size: 108 initial_mean: 0
initial_std: %r initial_strategy: 0 initial_smart: false''' %
     math.sqrt(2.0 / (9 * 3))),
    ('conv_bias', '''
img = data_layer(name='img', size=3 * 8 * 8)
outputs(img_conv_layer(input=img, filter_size=3, num_filters=4,
                       num_channels=3))''', '___conv_0__.wbias', '''
name: "___conv_0__.wbias" size: 4 initial_mean: 0 initial_std: 0
dims: 4 dims: 1 initial_strategy: 0 initial_smart: false'''),
    ('lstm_weight', '''
a = data_layer(name='a', size=32)
outputs(lstmemory(input=a))''', '___lstmemory_0__.w0', '''
name: "___lstmemory_0__.w0" size: 256 initial_mean: 0
initial_std: %r dims: 8 dims: 8 dims: 4 initial_strategy: 0
initial_smart: true''' % (1 / math.sqrt(8))),
    ('lstm_bias', '''
a = data_layer(name='a', size=32)
outputs(lstmemory(input=a))''', '___lstmemory_0__.wbias', '''
name: "___lstmemory_0__.wbias" size: 56 initial_mean: 0 initial_std: 0
dims: 1 dims: 56 initial_strategy: 0 initial_smart: false'''),
    ('gru_weight', '''
a = data_layer(name='a', size=12)
outputs(grumemory(input=a))''', '___gru_0__.w0', '''
name: "___gru_0__.w0" size: 48 initial_mean: 0 initial_std: 0.5
dims: 4 dims: 12 initial_strategy: 0 initial_smart: true'''),
    ('batch_norm_scale', '''
a = data_layer(name='a', size=6)
outputs(batch_norm_layer(input=a))''', '___batch_norm_0__.w0', '''
name: "___batch_norm_0__.w0" size: 6 initial_mean: 1 initial_std: 0
initial_strategy: 0 initial_smart: false'''),
    ('batch_norm_mean', '''
a = data_layer(name='a', size=6)
outputs(batch_norm_layer(input=a))''', '___batch_norm_0__.w1', '''
name: "___batch_norm_0__.w1" size: 6 initial_mean: 0 initial_std: 0
dims: 1 dims: 6 initial_strategy: 0 initial_smart: false is_static: true
is_shared: true'''),
    ('crf_transitions', '''
a = data_layer(name='a', size=5)
l = data_layer(name='l', size=5)
outputs(crf_layer(input=a, label=l))''', '___crf_layer_0__.w0', '''
name: "___crf_layer_0__.w0" size: 35 initial_mean: 0
initial_std: %r dims: 7 dims: 5 initial_strategy: 0
initial_smart: true''' % (1 / math.sqrt(7))),
    ('dotmul', '''
a = data_layer(name='a', size=5)
outputs(mixed_layer(input=dotmul_projection(a)))''', '___mixed_0__.w0', '''
name: "___mixed_0__.w0" size: 5 initial_mean: 0 initial_std: 1
dims: 1 dims: 5 initial_strategy: 0 initial_smart: true'''),
]


@pytest.mark.parametrize('case', PARAM_CASES, ids=[c[0] for c in PARAM_CASES])
def test_parameter(write_config, case):
    from test_helper_protostr import dump_whole
    _, body, pname, expected = case
    conf = dump_whole(write_config(H + body))  # via paddle dump_config
    params = {p.name: p for p in conf.model_config.parameters}
    assert pname in params, sorted(params)
    assert_proto_equal(params[pname], expected)


def test_recurrent_group_structure(parse):
    conf = parse(H + '''
x = data_layer(name='x', size=12)
enc = data_layer(name='enc', size=6)
def step(y, s):
    mem = memory(name='rnn', size=4)
    return fc_layer(input=[y, mem, s], size=4, name='rnn')
r = recurrent_group(step=step, input=[x, StaticInput(enc)], reverse=True)
outputs(last_seq(input=r))
''')
    mc = conf.model_config
    assert mc.type == 'recurrent_nn'
    names = [l.name for l in mc.layers]
    assert names == [
        'x', 'enc', '__recurrent_group_0__', 'x@__recurrent_group_0__',
        '__enc_memory__+delay1@__recurrent_group_0__',
        '__enc_memory__@__recurrent_group_0__',
        'rnn+delay1@__recurrent_group_0__', 'rnn@__recurrent_group_0__',
        'rnn', '__last_seq_0__'
    ]
    types = {l.name: l.type for l in mc.layers}
    assert types['__recurrent_group_0__'] == 'recurrent_layer_group'
    assert types['x@__recurrent_group_0__'] == 'scatter_agent'
    assert types['rnn+delay1@__recurrent_group_0__'] == 'agent'
    assert types['rnn'] == 'gather_agent'
    sub = mc.sub_models[1]
    assert_proto_equal(sub, '''
name: "__recurrent_group_0__"
layer_names: "x@__recurrent_group_0__"
layer_names: "__enc_memory__+delay1@__recurrent_group_0__"
layer_names: "__enc_memory__@__recurrent_group_0__"
layer_names: "rnn+delay1@__recurrent_group_0__"
layer_names: "rnn@__recurrent_group_0__"
is_recurrent_layer_group: true reversed: true
memories { layer_name: "__enc_memory__@__recurrent_group_0__"
  link_name: "__enc_memory__+delay1@__recurrent_group_0__"
  boot_layer_name: "enc" is_sequence: false }
memories { layer_name: "rnn@__recurrent_group_0__"
  link_name: "rnn+delay1@__recurrent_group_0__" is_sequence: false }
in_links { layer_name: "x" link_name: "x@__recurrent_group_0__"
  has_subseq: false }
out_links { layer_name: "rnn@__recurrent_group_0__" link_name: "rnn"
  has_subseq: false }
target_inlinkid: -1
''')
    params = [p.name for p in mc.parameters]
    assert params[:4] == [
        '_rnn@__recurrent_group_0__.w0', '_rnn@__recurrent_group_0__.w1',
        '_rnn@__recurrent_group_0__.w2', '_rnn@__recurrent_group_0__.wbias'
    ]
    assert list(mc.sub_models[0].layer_names) == [
        'x', 'enc', '__recurrent_group_0__', 'rnn', '__last_seq_0__'
    ]


def test_network_names(parse):
    conf = parse(H + '''
w = data_layer(name='w', size=50)
e = embedding_layer(input=w, size=8)
a = simple_lstm(input=e, size=4)
b = bidirectional_lstm(input=e, size=3)
c = simple_gru(input=e, size=2)
d = sequence_conv_pool(input=e, context_len=3, hidden_size=6)
img = data_layer(name='img', size=3 * 8 * 8)
f = simple_img_conv_pool(input=img, filter_size=3, num_filters=2,
                         num_channel=3, pool_size=2, pool_stride=2)
outputs(a, b, c, d, f)
''')
    names = [l.name for l in conf.model_config.layers]
    for n in ['lstm_transform___lstm_0__', '__lstm_0__',
              '__bidirectional_lstm_0___fw', '__bidirectional_lstm_0___bw',
              '__bidirectional_lstm_0___fw_last',
              '__bidirectional_lstm_0___bw_last', '__bidirectional_lstm_0__',
              '__simple_gru_0___transform',
              '__simple_gru_0___recurrent_group',
              '__simple_gru_0__@__simple_gru_0___recurrent_group',
              '__simple_gru_0__',
              '__sequence_conv_pooling_0___conv_proj',
              '__sequence_conv_pooling_0___conv_fc',
              '__sequence_conv_pooling_0__', '__conv_pool_0___conv',
              '__conv_pool_0___pool']:
        assert n in names, n
    layers = {l.name: l for l in conf.model_config.layers}
    assert layers['__bidirectional_lstm_0___bw'].reversed is True
    assert layers['__bidirectional_lstm_0__'].size == 6
    assert layers['__conv_pool_0___pool'].size == 2 * 3 * 3


def test_beam_search_generator(parse):
    conf = parse(H + '''
enc = data_layer(name='enc', size=6)
def step(ctx, word):
    return fc_layer(input=[ctx, word], size=20, act=SoftmaxActivation(),
                    name='out')
gen = beam_search(step=step, input=[StaticInput(enc),
                  GeneratedInput(size=20, embedding_name='emb',
                                 embedding_size=4)],
                  bos_id=0, eos_id=1, beam_size=3, max_length=7)
outputs(gen)
''')
    mc = conf.model_config
    sub = mc.sub_models[1]
    assert sub.generator.max_num_frames == 7
    assert sub.generator.beam_size == 3
    assert sub.generator.num_results_per_sample == 3
    assert sub.generator.eos_layer_name == \
        '____beam_search_0___eos_layer__@__beam_search_0__'
    mem = [m for m in sub.memories
           if m.link_name.startswith('__beam_search_predict__')][0]
    assert mem.boot_with_const_id == 0
    types = {l.name: l.type for l in mc.layers}
    assert types['__beam_search_predict__'] == 'data'
    assert 'emb' in [p.name for p in mc.parameters]


ERROR_CASES = [
    ('''a = data_layer(name='a', size=30)
outputs(lstmemory(input=a))''', 4, r"lstmemory: input 'a' has size 30"),
    ('''img = data_layer(name='img', size=3 * 8 * 8)
outputs(img_conv_layer(input=img, filter_size=3, num_filters=4))''', 4,
     r'img_conv_layer: num_channels is required'),
    ('''img = data_layer(name='img', size=100)
outputs(img_conv_layer(input=img, filter_size=3, num_filters=4,
                       num_channels=3))''', 4,
     r"not a multiple of num_channels=3"),
    ('''a = data_layer(name='a', size=5)
outputs(mixed_layer(input=[a]))''', 4,
     r"mixed_layer: input 'a' is a layer; wrap it in a projection"),
    ('''a = data_layer(name='a', size=5)
def step(x):
    return fc_layer(input=[x, memory(name='nothere', size=5)], size=5)
outputs(recurrent_group(step=step, input=a))''', 6,
     r"memory refers to layer 'nothere'"),
    ('''a = data_layer(name='a', size=5)
outputs(bidirectional_lstm(input=a, size=3, fwd_act=TanhActivation(),
                           siz=3))''', 4,
     r"bidirectional_lstm\(\) got an unexpected keyword argument 'siz'"),
]


@pytest.mark.parametrize('body,line,pattern', ERROR_CASES)
def test_helper_errors(write_config, body, line, pattern):
    import re
    from paddle.trainer.config_parser import ConfigError, parse_config
    path = write_config(H + body)
    with pytest.raises(ConfigError) as info:
        parse_config(path, '')
    msg = str(info.value)
    assert '\n' not in msg
    assert msg.startswith('%s:%d: ' % (path, line)), msg
    assert re.search(pattern, msg), msg


def test_gpu_config_arg_selects_cudnn(parse):
    body = H + '''
img = data_layer(name='img', size=3 * 8 * 8)
c = img_conv_layer(input=img, filter_size=3, num_filters=4, num_channels=3)
outputs(batch_norm_layer(input=c))
'''
    cpu = parse(body)
    gpu = parse(body, 'use_gpu=1,cudnn_version=5000')
    assert [l.type for l in cpu.model_config.layers][1:] == \
        ['exconv', 'batch_norm']
    assert [l.type for l in gpu.model_config.layers][1:] == \
        ['cudnn_conv', 'cudnn_batch_norm']
    p = {x.name: x for x in gpu.model_config.parameters}
    assert not p['___batch_norm_0__.w1'].is_shared
