"""A protostr test per helper of the v0.10 catalogue (table-driven).

Each case is a config body (after `from paddle.trainer_config_helpers
import *` and `settings(batch_size=10)`) and the expected protostr of the
parts it exercises, written as a TrainerConfig text fragment from v1's
documented semantics (v0.10 unless a case is about a b0/b1 spelling):

- `model_config { layers/parameters/evaluators/sub_models { name: ... } }`:
  the entry of that name in the dump must equal it (every field, floats
  with tolerance);
- `model_config { input_layer_names ... output_layer_names ... }`: equal;
- `opt_config { ... }`, `data_config { ... }`, `test_data_config { ... }`:
  the whole message must equal it.

The config goes through paddle.utils.dump_config (text format, --whole)
and the text is parsed back, so this checks what `paddle dump_config`
prints. tests/config/test_helper_coverage.py checks that every helper of
the reference catalogue appears in a case here or in test_helpers.py.
"""

import pytest
from google.protobuf import text_format

from paddle.proto.TrainerConfig_pb2 import TrainerConfig
from protocmp import diff

H = ('from paddle.trainer_config_helpers import *\n'
     'settings(batch_size=10)\n')

NAMED = ('layers', 'parameters', 'evaluators', 'sub_models')
WHOLE = ('opt_config', 'data_config', 'test_data_config')


def dump_whole(path, config_args=''):
    """TrainerConfig parsed back from `paddle dump_config PATH --whole`."""
    from paddle.utils.dump_config import dump_config
    text = dump_config(path, config_args, whole=True, fmt='text')
    return text_format.Parse(text, TrainerConfig())


def compare_fragment(actual, expected_text):
    """Differences between a TrainerConfig and an expected fragment."""
    expected = text_format.Merge(expected_text, TrainerConfig())
    out = []
    em, am = expected.model_config, actual.model_config
    for field in NAMED:
        have = {x.name: x for x in getattr(am, field)}
        for want in getattr(em, field):
            if want.name not in have:
                out.append('%s %r missing (have %s)' %
                           (field, want.name, sorted(have)))
                continue
            out.extend('%s[%s].%s' % (field, want.name, d)
                       for d in diff(have[want.name], want))
    for field in ('input_layer_names', 'output_layer_names'):
        want = list(getattr(em, field))
        if want and want != list(getattr(am, field)):
            out.append('%s: %r vs %r' % (field, list(getattr(am, field)),
                                         want))
    for field in WHOLE:
        if expected.HasField(field):
            out.extend('%s.%s' % (field, d) for d in diff(
                getattr(actual, field), getattr(expected, field)))
    return out


# (id, config body, expected TrainerConfig fragment)
CASES = [
    ('activations',
     '''
a = data_layer(name='a', size=4)
fc_layer(input=a, size=2, act=TanhActivation(), bias_attr=False, name='tanh')
fc_layer(input=a, size=2, act=SigmoidActivation(), bias_attr=False, name='sigmoid')
fc_layer(input=a, size=2, act=SoftmaxActivation(), bias_attr=False, name='softmax')
fc_layer(input=a, size=1, act=SequenceSoftmaxActivation(), bias_attr=False, name='sequencesoftmax')
fc_layer(input=a, size=2, act=IdentityActivation(), bias_attr=False, name='identity')
fc_layer(input=a, size=2, act=LinearActivation(), bias_attr=False, name='linear')
fc_layer(input=a, size=2, act=ReluActivation(), bias_attr=False, name='relu')
fc_layer(input=a, size=2, act=BReluActivation(), bias_attr=False, name='brelu')
fc_layer(input=a, size=2, act=SoftReluActivation(), bias_attr=False, name='softrelu')
fc_layer(input=a, size=2, act=STanhActivation(), bias_attr=False, name='stanh')
fc_layer(input=a, size=2, act=AbsActivation(), bias_attr=False, name='abs')
fc_layer(input=a, size=2, act=SquareActivation(), bias_attr=False, name='square')
fc_layer(input=a, size=2, act=ExpActivation(), bias_attr=False, name='exp')
fc_layer(input=a, size=2, act=LogActivation(), bias_attr=False, name='log')
outputs(a)''',
     '''
model_config { layers { name: "tanh" type: "fc" size: 2 active_type: "tanh"
inputs { input_layer_name: "a" input_parameter_name: "_tanh.w0" } } }
model_config { layers { name: "sigmoid" type: "fc" size: 2 active_type:
"sigmoid" inputs { input_layer_name: "a" input_parameter_name: "_sigmoid.w0"
} } }
model_config { layers { name: "softmax" type: "fc" size: 2 active_type:
"softmax" inputs { input_layer_name: "a" input_parameter_name: "_softmax.w0"
} } }
model_config { layers { name: "sequencesoftmax" type: "fc" size: 1
active_type: "sequence_softmax" inputs { input_layer_name: "a"
input_parameter_name: "_sequencesoftmax.w0" } } }
model_config { layers { name: "identity" type: "fc" size: 2 active_type: ""
inputs { input_layer_name: "a" input_parameter_name: "_identity.w0" } } }
model_config { layers { name: "linear" type: "fc" size: 2 active_type: ""
inputs { input_layer_name: "a" input_parameter_name: "_linear.w0" } } }
model_config { layers { name: "relu" type: "fc" size: 2 active_type: "relu"
inputs { input_layer_name: "a" input_parameter_name: "_relu.w0" } } }
model_config { layers { name: "brelu" type: "fc" size: 2 active_type:
"brelu" inputs { input_layer_name: "a" input_parameter_name: "_brelu.w0" } }
}
model_config { layers { name: "softrelu" type: "fc" size: 2 active_type:
"softrelu" inputs { input_layer_name: "a" input_parameter_name:
"_softrelu.w0" } } }
model_config { layers { name: "stanh" type: "fc" size: 2 active_type:
"stanh" inputs { input_layer_name: "a" input_parameter_name: "_stanh.w0" } }
}
model_config { layers { name: "abs" type: "fc" size: 2 active_type: "abs"
inputs { input_layer_name: "a" input_parameter_name: "_abs.w0" } } }
model_config { layers { name: "square" type: "fc" size: 2 active_type:
"square" inputs { input_layer_name: "a" input_parameter_name: "_square.w0" }
} }
model_config { layers { name: "exp" type: "fc" size: 2 active_type:
"exponential" inputs { input_layer_name: "a" input_parameter_name: "_exp.w0"
} } }
model_config { layers { name: "log" type: "fc" size: 2 active_type: "log"
inputs { input_layer_name: "a" input_parameter_name: "_log.w0" } } }'''),
    ('fc_layer',
     '''
a = data_layer(name='a', size=4)
b = data_layer(name='b', size=6)
outputs(fc_layer(input=[a, b], size=3, param_attr=[ParamAttr(name='wa'), ParamAttr(initial_std=0.5)]))''',
     '''
model_config { layers { name: "__fc_layer_0__" type: "fc" size: 3
active_type: "tanh" inputs { input_layer_name: "a" input_parameter_name:
"wa" } inputs { input_layer_name: "b" input_parameter_name:
"___fc_layer_0__.w1" } bias_parameter_name: "___fc_layer_0__.wbias" } }
model_config { parameters { name: "wa" size: 12 initial_mean: 0.0
initial_std: 0.5 dims: 4 dims: 3 initial_strategy: 0 initial_smart: true } }
model_config { parameters { name: "___fc_layer_0__.w1" size: 18
initial_mean: 0.0 initial_std: 0.5 dims: 6 dims: 3 initial_strategy: 0
initial_smart: false } }
model_config { parameters { name: "___fc_layer_0__.wbias" size: 3
initial_mean: 0.0 initial_std: 0.0 dims: 1 dims: 3 initial_strategy: 0
initial_smart: false } }'''),
    ('extra_attr',
     '''
a = data_layer(name='a', size=4)
outputs(fc_layer(input=a, size=2, bias_attr=False, name='f',
        layer_attr=ExtraAttr(drop_rate=0.5, error_clipping_threshold=10.,
                             device=-1)))''',
     '''
model_config { layers { name: "f" type: "fc" size: 2 active_type: "tanh"
inputs { input_layer_name: "a" input_parameter_name: "_f.w0" }
drop_rate: 0.5 device: -1 error_clipping_threshold: 10 } }'''),
    ('poolings_seq',
     '''
a = data_layer(name='a', size=4)
pooling_layer(input=a, pooling_type=AvgPooling(), name='avg')
pooling_layer(input=a, pooling_type=SquareRootNPooling(), name='sqrtn')
pooling_layer(input=a, pooling_type=MaxPooling(), name='max')
outputs(a)''',
     '''
model_config { layers { name: "avg" type: "average" size: 4 active_type: "linear"
inputs { input_layer_name: "a" } average_strategy: "average" trans_type:
"non-seq" seq_pool_stride: -1 } }
model_config { layers { name: "sqrtn" type: "average" size: 4 active_type:
"linear" inputs { input_layer_name: "a" } average_strategy: "squarerootn"
trans_type: "non-seq" seq_pool_stride: -1 } }
model_config { layers { name: "max" type: "max" size: 4 active_type: "linear"
inputs { input_layer_name: "a" } trans_type: "non-seq" seq_pool_stride: -1 }
}'''),
    ('poolings_cudnn',
     '''
img = data_layer(name='img', size=2 * 4 * 4)
img_pool_layer(input=img, pool_size=2, stride=2, num_channels=2, pool_type=CudnnMaxPooling(), name='cmax')
img_pool_layer(input=img, pool_size=3, stride=1, padding=1, num_channels=2, pool_type=CudnnAvgPooling(), name='cavg')
outputs(img)''',
     '''
model_config { layers { name: "cmax" type: "pool" size: 8 active_type: ""
inputs { input_layer_name: "img" pool_conf { pool_type: "cudnn-max-pool"
channels: 2 size_x: 2 stride: 2 output_x: 2 img_size: 4 padding: 0 size_y: 2
stride_y: 2 output_y: 2 img_size_y: 4 padding_y: 0 } } height: 2 width: 2 }
}
model_config { layers { name: "cavg" type: "pool" size: 32 active_type: ""
inputs { input_layer_name: "img" pool_conf { pool_type: "cudnn-avg-pool"
channels: 2 size_x: 3 stride: 1 output_x: 4 img_size: 4 padding: 1 size_y: 3
stride_y: 1 output_y: 4 img_size_y: 4 padding_y: 1 } } height: 4 width: 4 }
}'''),
    ('trans_layer',
     '''
a = data_layer(name='a', size=4)
outputs(trans_layer(input=a))''',
     '''
model_config { layers { name: "__trans_layer_0__" type: "trans" size: 4
active_type: "" inputs { input_layer_name: "a" } } }'''),
    ('scaling_power_interp',
     '''
a = data_layer(name='a', size=4)
b = data_layer(name='b', size=4)
w = data_layer(name='w', size=1)
scaling_layer(input=a, weight=w, name='sc')
power_layer(input=a, weight=w, name='pw')
interpolation_layer(input=[a, b], weight=w, name='ip')
outputs(a)''',
     '''
model_config { layers { name: "sc" type: "scaling" size: 4 active_type: ""
inputs { input_layer_name: "w" } inputs { input_layer_name: "a" } } }
model_config { layers { name: "pw" type: "power" size: 4 active_type: ""
inputs { input_layer_name: "w" } inputs { input_layer_name: "a" } } }
model_config { layers { name: "ip" type: "interpolation" size: 4
active_type: "" inputs { input_layer_name: "w" } inputs { input_layer_name:
"a" } inputs { input_layer_name: "b" } } }'''),
    ('sum_to_one_norm',
     '''
a = data_layer(name='a', size=4)
outputs(sum_to_one_norm_layer(input=a))''',
     '''
model_config { layers { name: "__sum_to_one_norm_layer_0__" type:
"sum_to_one_norm" size: 4 active_type: "" inputs { input_layer_name: "a" } }
}'''),
    ('cos_sim',
     '''
a = data_layer(name='a', size=4)
b = data_layer(name='b', size=8)
cos_sim(a, a, name='c1')
cos_sim(a, b, size=2, scale=5, name='c2')
outputs(a)''',
     '''
model_config { layers { name: "c1" type: "cos" size: 1 active_type: ""
inputs { input_layer_name: "a" } inputs { input_layer_name: "a" } cos_scale:
1.0 } }
model_config { layers { name: "c2" type: "cos_vm" size: 2 active_type: ""
inputs { input_layer_name: "a" } inputs { input_layer_name: "b" } cos_scale:
5.0 } }'''),
    ('ntm_b1',
     '''
a = data_layer(name='a', size=6)
b = data_layer(name='b', size=3)
w = data_layer(name='w', size=2)
v = data_layer(name='v', size=12)
conv_shift_layer(a, b, name='cs')
tensor_layer(a, b, size=4, name='t')
linear_comb_layer(weights=w, vectors=v, size=6, name='lc')
out_prod_layer(input1=a, input2=b, name='op')
outputs(a)''',
     '''
model_config { layers { name: "cs" type: "conv_shift" size: 6 active_type:
"" inputs { input_layer_name: "a" } inputs { input_layer_name: "b" } } }
model_config { layers { name: "t" type: "tensor" size: 4 active_type: ""
inputs { input_layer_name: "a" input_parameter_name: "_t.w0" } inputs {
input_layer_name: "b" } bias_parameter_name: "_t.wbias" } }
model_config { parameters { name: "_t.w0" size: 72 initial_mean: 0.0
initial_std: 0.4082482904638631 dims: 6 dims: 3 dims: 4 initial_strategy: 0
initial_smart: true } }
model_config { parameters { name: "_t.wbias" size: 4 initial_mean: 0.0
initial_std: 0.0 dims: 1 dims: 4 initial_strategy: 0 initial_smart: false }
}
model_config { layers { name: "lc" type: "convex_comb" size: 6 active_type:
"" inputs { input_layer_name: "w" } inputs { input_layer_name: "v" } } }
model_config { layers { name: "op" type: "out_prod" size: 18 active_type: ""
inputs { input_layer_name: "a" } inputs { input_layer_name: "b" } } }'''),
    ('b0_spellings',
     '''
a = data_layer(name='a', size=6)
b = data_layer(name='b', size=3)
w = data_layer(name='w', size=2)
v = data_layer(name='v', size=12)
conv_shift_layer(input=[a, b], name='cs')
tensor_layer(input=[a, b], size=4, name='t', bias_attr=False)
convex_comb_layer(input=[w, v], size=6, name='cc')
mixed_layer(input=dotmul_projection(input=[b, b], scale=3), name='dm')
outputs(a)''',
     '''
model_config { layers { name: "cs" type: "conv_shift" size: 6 active_type:
"" inputs { input_layer_name: "a" } inputs { input_layer_name: "b" } } }
model_config { layers { name: "t" type: "tensor" size: 4 active_type: ""
inputs { input_layer_name: "a" input_parameter_name: "_t.w0" } inputs {
input_layer_name: "b" } } }
model_config { layers { name: "cc" type: "convex_comb" size: 6 active_type:
"" inputs { input_layer_name: "w" } inputs { input_layer_name: "v" } } }
model_config { layers { name: "dm" type: "mixed" size: 3 active_type: ""
inputs { input_layer_name: "b" } inputs { input_layer_name: "b" }
operator_confs { type: "dot_mul" input_indices: 0 input_indices: 1
input_sizes: 3 input_sizes: 3 output_size: 3 dotmul_scale: 3.0 } } }'''),
    ('selective_fc',
     '''
a = data_layer(name='a', size=6)
s = data_layer(name='s', size=4)
outputs(selective_fc_layer(input=a, select=s, size=4, act=SigmoidActivation(), bias_attr=False))''',
     '''
model_config { layers { name: "__selective_fc_layer_0__" type:
"selective_fc" size: 4 active_type: "sigmoid" inputs { input_layer_name: "a"
input_parameter_name: "___selective_fc_layer_0__.w0" } inputs {
input_layer_name: "s" } selective_fc_pass_generation: false
has_selected_colums: true selective_fc_full_mul_ratio: 0.02 } }
model_config { parameters { name: "___selective_fc_layer_0__.w0" size: 24
initial_mean: 0.0 initial_std: 0.5 dims: 4 dims: 6 initial_strategy: 0
initial_smart: true is_sparse: false } }'''),
    ('id_layers',
     '''
a = data_layer(name='a', size=5)
sampling_id_layer(input=a, name='sid')
m = maxid_layer(input=a, name='mid')
eos_layer(input=m, eos_id=2, name='eos')
outputs(a)''',
     '''
model_config { layers { name: "sid" type: "sampling_id" size: 5 active_type:
"" inputs { input_layer_name: "a" } } }
model_config { layers { name: "mid" type: "maxid" size: 5 active_type: ""
inputs { input_layer_name: "a" } } }
model_config { layers { name: "eos" type: "eos_id" size: 2 active_type: ""
inputs { input_layer_name: "mid" } eos_id: 2 } }'''),
    ('print_repeat_rotate',
     '''
a = data_layer(name='a', size=6)
print_layer(input=a, name='pr')
repeat_layer(input=a, num_repeats=3, name='rep')
rotate_layer(input=a, height=2, width=3, name='rot')
outputs(a)''',
     '''
model_config { layers { name: "pr" type: "print" active_type: "" inputs {
input_layer_name: "a" } } }
model_config { layers { name: "rep" type: "featmap_expand" size: 18
active_type: "" inputs { input_layer_name: "a" } num_filters: 3 } }
model_config { layers { name: "rot" type: "rotate" size: 6 active_type: ""
inputs { input_layer_name: "a" } height: 2 width: 3 } }'''),
    ('lstm_step_get_output',
     '''
a = data_layer(name='a', size=16)
s = data_layer(name='s', size=4)
st = lstm_step_layer(input=a, state=s, size=4, name='ls')
outputs(get_output_layer(input=st, arg_name='state', name='go'))''',
     '''
model_config { layers { name: "ls" type: "lstm_step" size: 4 active_type:
"tanh" inputs { input_layer_name: "a" } inputs { input_layer_name: "s" }
bias_parameter_name: "_ls.wbias" active_gate_type: "sigmoid"
active_state_type: "sigmoid" } }
model_config { parameters { name: "_ls.wbias" size: 12 initial_mean: 0.0
initial_std: 0.0 dims: 1 dims: 12 initial_strategy: 0 initial_smart: false }
}
model_config { layers { name: "go" type: "get_output" size: 4 active_type:
"" inputs { input_layer_name: "ls" input_layer_argument: "state" } } }'''),
    ('block_expand',
     '''
img = data_layer(name='img', size=2 * 4 * 4)
block_expand_layer(input=img, num_channels=2, block_x=2, block_y=2, stride_x=2, stride_y=2, name='be')
block_expand_layer(input=img, channel=2, block_x=3, block_y=3, stride_x=1, stride_y=1, padding_x=1, padding_y=1, name='be_b0')
outputs(img)''',
     '''
model_config { layers { name: "be" type: "blockexpand" size: 8 active_type:
"" inputs { input_layer_name: "img" block_expand_conf { channels: 2
stride_x: 2 stride_y: 2 padding_x: 0 padding_y: 0 block_x: 2 block_y: 2
output_x: 0 output_y: 0 img_size_x: 0 img_size_y: 0 } } } }
model_config { layers { name: "be_b0" type: "blockexpand" size: 18
active_type: "" inputs { input_layer_name: "img" block_expand_conf {
channels: 2 stride_x: 1 stride_y: 1 padding_x: 1 padding_y: 1 block_x: 3
block_y: 3 output_x: 0 output_y: 0 img_size_x: 0 img_size_y: 0 } } } }'''),
    ('seq_reshape_concat',
     '''
a = data_layer(name='a', size=6)
b = data_layer(name='b', size=6)
seq_reshape_layer(input=a, reshape_size=3, name='rs')
seq_concat_layer(a=a, b=b, name='sc')
outputs(a)''',
     '''
model_config { layers { name: "rs" type: "seqreshape" size: 3 active_type:
"linear" inputs { input_layer_name: "a" } } }
model_config { layers { name: "sc" type: "seqconcat" size: 6 active_type: ""
inputs { input_layer_name: "a" } inputs { input_layer_name: "b" } } }'''),
    ('pad_layer',
     '''
img = data_layer(name='img', size=2 * 3 * 4, height=3, width=4)
img = img_conv_layer(input=img, filter_size=1, num_filters=2, num_channels=2, bias_attr=False, name='c')
outputs(pad_layer(input=img, pad_c=[1, 1], pad_h=[0, 2], pad_w=[2, 0], name='pad'))''',
     '''
model_config { layers { name: "pad" type: "pad" size: 120 active_type: ""
inputs { input_layer_name: "c" pad_conf { image_conf { channels: 2 img_size:
4 img_size_y: 3 } pad_c: 1 pad_c: 1 pad_h: 0 pad_h: 2 pad_w: 2 pad_w: 0 } }
height: 5 width: 6 } }'''),
    ('last_seq',
     '''
a = data_layer(name='a', size=5)
last_seq(input=a, name='l1')
last_seq(input=a, agg_level=AggregateLevel.EACH_SEQUENCE, name='l2')
outputs(a)''',
     '''
model_config { layers { name: "l1" type: "seqlastins" size: 5 active_type:
"linear" inputs { input_layer_name: "a" } trans_type: "non-seq" seq_pool_stride:
-1 } }
model_config { layers { name: "l2" type: "seqlastins" size: 5 active_type:
"linear" inputs { input_layer_name: "a" } trans_type: "seq" seq_pool_stride: -1 }
}'''),
    ('recurrent_layer',
     '''
a = data_layer(name='a', size=5)
outputs(recurrent_layer(input=a, act=ReluActivation(), reverse=True, name='rnn'))''',
     '''
model_config { layers { name: "rnn" type: "recurrent" size: 5 active_type:
"relu" inputs { input_layer_name: "a" input_parameter_name: "_rnn.w0" }
bias_parameter_name: "_rnn.wbias" reversed: true } }
model_config { parameters { name: "_rnn.w0" size: 25 initial_mean: 0.0
initial_std: 0.4472135954999579 dims: 5 dims: 5 initial_strategy: 0
initial_smart: true } }
model_config { parameters { name: "_rnn.wbias" size: 5 initial_mean: 0.0
initial_std: 0.0 dims: 1 dims: 5 initial_strategy: 0 initial_smart: false }
}'''),
    ('gru_step_layer',
     '''
a = data_layer(name='a', size=12)
def step(x):
    m = memory(name='g', size=4)
    return gru_step_layer(input=x, output_mem=m, size=4, name='g')
outputs(recurrent_group(step=step, input=a, name='grp'))''',
     '''
model_config { layers { name: "g@grp" type: "gru_step" size: 4 active_type:
"tanh" inputs { input_layer_name: "a@grp" input_parameter_name: "_g@grp.w0"
} inputs { input_layer_name: "g+delay1@grp" } bias_parameter_name:
"_g@grp.wbias" active_gate_type: "sigmoid" } }
model_config { parameters { name: "_g@grp.w0" size: 48 initial_mean: 0.0
initial_std: 0.5 dims: 4 dims: 12 initial_strategy: 0 initial_smart: true }
}
model_config { parameters { name: "_g@grp.wbias" size: 12 initial_mean: 0.0
initial_std: 0.0 dims: 1 dims: 12 initial_strategy: 0 initial_smart: false }
}
model_config { sub_models { name: "grp" layer_names: "a@grp" layer_names:
"g+delay1@grp" layer_names: "g@grp" is_recurrent_layer_group: true reversed:
false memories { layer_name: "g@grp" link_name: "g+delay1@grp" is_sequence:
false } in_links { layer_name: "a" link_name: "a@grp" has_subseq: false }
out_links { layer_name: "g@grp" link_name: "g" has_subseq: false }
target_inlinkid: -1 } }'''),
    ('gru_step_naive_layer',
     '''
a = data_layer(name='a', size=12)
def step(x):
    m = memory(name='g', size=4)
    return gru_step_naive_layer(input=x, output_mem=m, size=4, name='g', bias_attr=False)
outputs(recurrent_group(step=step, input=a, name='grp'))''',
     '''
model_config { layers { name: "g_update@grp" type: "mixed" size: 4
active_type: "sigmoid" inputs { input_layer_name: "a@grp" proj_conf { type:
"identity_offset" name: "_g_update.w0" input_size: 12 output_size: 4 offset:
0 } } inputs { input_layer_name: "g+delay1@grp" input_parameter_name:
"_g_update@grp.w1" proj_conf { type: "fc" name: "_g_update.w1" input_size: 4
output_size: 4 } } } }
model_config { layers { name: "g_reset@grp" type: "mixed" size: 4
active_type: "sigmoid" inputs { input_layer_name: "a@grp" proj_conf { type:
"identity_offset" name: "_g_reset.w0" input_size: 12 output_size: 4 offset:
4 } } inputs { input_layer_name: "g+delay1@grp" input_parameter_name:
"_g_reset@grp.w1" proj_conf { type: "fc" name: "_g_reset.w1" input_size: 4
output_size: 4 } } } }
model_config { layers { name: "g_reset_output@grp" type: "mixed" size: 4
active_type: "" inputs { input_layer_name: "g+delay1@grp" } inputs {
input_layer_name: "g_reset@grp" } operator_confs { type: "dot_mul"
input_indices: 0 input_indices: 1 input_sizes: 4 input_sizes: 4 output_size:
4 dotmul_scale: 1.0 } } }
model_config { layers { name: "g_output_candidate@grp" type: "mixed" size: 4
active_type: "tanh" inputs { input_layer_name: "a@grp" proj_conf { type:
"identity_offset" name: "_g_output_candidate.w0" input_size: 12 output_size:
4 offset: 8 } } inputs { input_layer_name: "g_reset_output@grp"
input_parameter_name: "_g_output_candidate@grp.w1" proj_conf { type: "fc"
name: "_g_output_candidate.w1" input_size: 4 output_size: 4 } } } }
model_config { layers { name: "g@grp" type: "mixed" size: 4 active_type: ""
inputs { input_layer_name: "g+delay1@grp" proj_conf { type: "identity" name:
"_g.w0" input_size: 4 output_size: 4 } } inputs { input_layer_name:
"g+delay1@grp" } inputs { input_layer_name: "g_output_candidate@grp" }
inputs { input_layer_name: "g_update@grp" } inputs { input_layer_name:
"g_update@grp" } operator_confs { type: "dot_mul" input_indices: 1
input_indices: 3 input_sizes: 4 input_sizes: 4 output_size: 4 dotmul_scale:
-1.0 } operator_confs { type: "dot_mul" input_indices: 2 input_indices: 4
input_sizes: 4 input_sizes: 4 output_size: 4 dotmul_scale: 1.0 } } }'''),
    ('recurrent_group_subseq',
     '''
a = data_layer(name='a', size=4)
st = data_layer(name='st', size=3)
def step(x, s):
    m = memory(name='o', size=2, boot_layer=None, boot_bias=ParamAttr(initial_std=0.), boot_bias_active_type=TanhActivation())
    return fc_layer(input=[x, s, m], size=2, name='o', bias_attr=False)
outputs(recurrent_group(step=step, input=[SubsequenceInput(a), StaticInput(st, is_seq=True)], name='grp'))''',
     '''
model_config { sub_models { name: "grp" layer_names: "a@grp" layer_names:
"__st_memory__+delay1@grp" layer_names: "__st_memory__@grp" layer_names:
"o+delay1@grp" layer_names: "o@grp" is_recurrent_layer_group: true reversed:
false memories { layer_name: "__st_memory__@grp" link_name:
"__st_memory__+delay1@grp" boot_layer_name: "st" is_sequence: true }
memories { layer_name: "o@grp" link_name: "o+delay1@grp"
boot_bias_parameter_name: "_o+delay1@grp.wbias" boot_bias_active_type:
"tanh" is_sequence: false } in_links { layer_name: "a" link_name: "a@grp"
has_subseq: true } out_links { layer_name: "o@grp" link_name: "o"
has_subseq: true } target_inlinkid: -1 } }
model_config { layers { name: "o" type: "sequence_gather_agent" size: 2
active_type: "" } }'''),
    ('beam_search',
     '''
enc = data_layer(name='enc', size=6)
def step(ctx, word):
    return fc_layer(input=[ctx, word], size=10, act=SoftmaxActivation(), name='out')
outputs(beam_search(step=step, input=[StaticInput(enc), GeneratedInput(size=10, embedding_name='emb', embedding_size=4)], bos_id=0, eos_id=1, beam_size=2, max_length=9, name='gen', result_file='res.txt', dict_file='dict.txt'))''',
     '''
model_config { sub_models { name: "gen" layer_names:
"__enc_memory__+delay1@gen" layer_names: "__enc_memory__@gen" layer_names:
"__beam_search_predict__+delay1@gen" layer_names: "__embedding_0__@gen"
layer_names: "out@gen" layer_names: "__beam_search_predict__@gen"
layer_names: "__gen_eos_layer__@gen" is_recurrent_layer_group: true
reversed: false memories { layer_name: "__enc_memory__@gen" link_name:
"__enc_memory__+delay1@gen" boot_layer_name: "enc" is_sequence: false }
memories { layer_name: "__beam_search_predict__@gen" link_name:
"__beam_search_predict__+delay1@gen" is_sequence: false boot_with_const_id:
0 } out_links { layer_name: "__beam_search_predict__@gen" link_name:
"__beam_search_predict__" has_subseq: false } generator { max_num_frames: 9
eos_layer_name: "__gen_eos_layer__@gen" num_results_per_sample: 2 beam_size:
2 } target_inlinkid: -1 } }
model_config { evaluators { name: "target_printer" type: "seq_text_printer"
input_layers: "__beam_search_predict__" dict_file: "dict.txt" result_file:
"res.txt" } }
model_config { parameters { name: "emb" size: 40 initial_mean: 0.0
initial_std: 0.31622776601683794 dims: 10 dims: 4 initial_strategy: 0
initial_smart: true } }'''),
    ('img_layers_v09',
     '''
img = data_layer(name='img', size=4 * 4 * 4)
spp_layer(input=img, num_channels=4, pyramid_height=2, name='spp')
maxout_layer(input=img, groups=2, num_channels=4, name='mo')
c = img_conv_layer(input=img, filter_size=1, num_filters=2, num_channels=4, bias_attr=False, name='c')
bilinear_interp_layer(input=c, out_size_x=8, out_size_y=6, name='bi')
outputs(img)''',
     '''
model_config { layers { name: "spp" type: "spp" size: 20 active_type: ""
inputs { input_layer_name: "img" spp_conf { image_conf { channels: 4
img_size: 4 img_size_y: 4 } pool_type: "max-projection" pyramid_height: 2 }
} height: 1 width: 5 } }
model_config { layers { name: "mo" type: "maxout" size: 32 active_type: ""
inputs { input_layer_name: "img" maxout_conf { image_conf { channels: 4
img_size: 4 img_size_y: 4 } groups: 2 } } height: 4 width: 4 } }
model_config { layers { name: "bi" type: "bilinear_interp" size: 96
active_type: "" inputs { input_layer_name: "c" bilinear_interp_conf {
image_conf { channels: 2 img_size: 4 img_size_y: 4 } out_size_x: 8
out_size_y: 6 } } height: 6 width: 8 } }'''),
    ('img_rnorm_b0',
     '''
img = data_layer(name='img', size=4 * 3 * 3)
img_rnorm_layer(input=img, size=3, scale=0.9, power=0.75, num_channels=4, name='rn')
img_cmrnorm_layer(input=img, size=3, num_channels=4, blocked=1, name='cmr')
img_pool_layer(input=img, pool_size=3, num_channels=4, start=None, name='pool')
outputs(img)''',
     '''
model_config { layers { name: "rn" type: "norm" size: 36 active_type: ""
inputs { input_layer_name: "img" norm_conf { norm_type: "rnorm" channels: 4
size: 3 scale: 0.1 pow: 0.75 output_x: 3 img_size: 3 blocked: false
output_y: 3 img_size_y: 3 } } height: 3 width: 3 } }
model_config { layers { name: "cmr" type: "norm" size: 36 active_type: ""
inputs { input_layer_name: "img" norm_conf { norm_type: "cmrnorm-projection"
channels: 4 size: 3 scale: 0.004266666666666667 pow: 0.75 output_x: 3
img_size: 3 blocked: true output_y: 3 img_size_y: 3 } } height: 3 width: 3 }
}'''),
    ('ssd_layers',
     '''
img = data_layer(name='img', size=3 * 8 * 8, height=8, width=8)
c = img_conv_layer(input=img, filter_size=3, num_filters=4, num_channels=3, padding=1, stride=2, bias_attr=False, name='c')
cross_channel_norm_layer(input=c, name='ccn')
priorbox_layer(input=c, image=img, aspect_ratio=[2.], variance=[0.1, 0.1, 0.2, 0.2], min_size=[3], max_size=[6], name='pb')
outputs(img)''',
     '''
model_config { layers { name: "ccn" type: "norm" size: 64 active_type: ""
inputs { input_layer_name: "c" input_parameter_name: "_ccn.w0" norm_conf {
norm_type: "cross-channel-norm" channels: 4 size: 64 scale: 0.0 pow: 0.0
output_x: 4 img_size: 4 blocked: false output_y: 4 img_size_y: 4 } } height:
4 width: 4 } }
model_config { parameters { name: "_ccn.w0" size: 4 initial_mean: 0.0
initial_std: 0.5 dims: 4 dims: 1 initial_strategy: 0 initial_smart: true } }
model_config { layers { name: "pb" type: "priorbox" size: 512 active_type:
"" height: 4 width: 4 inputs { input_layer_name: "c" priorbox_conf { min_size: 3 max_size: 6
aspect_ratio: 2.0 variance: 0.1 variance: 0.1 variance: 0.2 variance: 0.2 }
} inputs { input_layer_name: "img" } } }'''),
    ('classification_cost',
     '''
a = data_layer(name='a', size=4)
l = data_layer(name='l', size=3)
w = data_layer(name='w', size=1)
p = fc_layer(input=a, size=3, act=SoftmaxActivation(), bias_attr=False, name='p')
outputs(classification_cost(input=p, label=l, weight=w, top_k=2))''',
     '''
model_config { layers { name: "__cost_0__" type: "multi-class-cross-entropy"
size: 1 active_type: "" inputs { input_layer_name: "p" } inputs {
input_layer_name: "l" } inputs { input_layer_name: "w" } coeff: 1.0 } }
model_config { evaluators { name: "classification_error_evaluator" type:
"classification_error" input_layers: "p" input_layers: "l" input_layers: "w"
top_k: 2 } }'''),
    ('regression_cost',
     '''
a = data_layer(name='a', size=4)
l = data_layer(name='l', size=4)
outputs(regression_cost(input=a, label=l, coeff=2.0))''',
     '''
model_config { layers { name: "__mse_cost_0__" type: "square_error" size: 1
active_type: "" inputs { input_layer_name: "a" } inputs { input_layer_name:
"l" } coeff: 2.0 } }'''),
    ('costs',
     '''
a = data_layer(name='a', size=4)
l = data_layer(name='l', size=1)
ml = data_layer(name='ml', size=4)
r = data_layer(name='r', size=1)
cross_entropy(input=a, label=l, name='ce')
cross_entropy_with_selfnorm(input=a, label=l, softmax_selfnorm_alpha=0.2, name='cesn')
multi_binary_label_cross_entropy(input=a, label=ml, name='mb')
huber_cost(input=r, label=l, name='hb')
rank_cost(left=r, right=r, label=l, name='rk')
lambda_cost(input=r, score=r, NDCG_num=4, name='lb')
sum_cost(input=a, name='sc')
outputs(a)''',
     '''
model_config { layers { name: "ce" type: "multi-class-cross-entropy" size: 1
active_type: "" inputs { input_layer_name: "a" } inputs { input_layer_name:
"l" } coeff: 1.0 } }
model_config { layers { name: "cesn" type:
"multi_class_cross_entropy_with_selfnorm" active_type: "" inputs {
input_layer_name: "a" } inputs { input_layer_name: "l" }
softmax_selfnorm_alpha: 0.2 coeff: 1.0 } }
model_config { layers { name: "mb" type: "multi_binary_label_cross_entropy"
size: 1 active_type: "" inputs { input_layer_name: "a" } inputs {
input_layer_name: "ml" } coeff: 1.0 } }
model_config { layers { name: "hb" type: "huber" size: 1 active_type: ""
inputs { input_layer_name: "r" } inputs { input_layer_name: "l" } coeff: 1.0
} }
model_config { layers { name: "rk" type: "rank-cost" size: 1 active_type: ""
inputs { input_layer_name: "r" } inputs { input_layer_name: "r" } inputs {
input_layer_name: "l" } coeff: 1.0 } }
model_config { layers { name: "lb" type: "lambda_cost" size: 1 active_type:
"" inputs { input_layer_name: "r" } inputs { input_layer_name: "r" }
NDCG_num: 4 max_sort_size: -1 } }
model_config { layers { name: "sc" type: "sum_cost" size: 1 active_type: ""
inputs { input_layer_name: "a" } coeff: 1.0 } }'''),
    ('ctc',
     '''
a = data_layer(name='a', size=5)
l = data_layer(name='l', size=4)
ctc_layer(input=a, label=l, name='ctc')
warp_ctc_layer(input=a, label=l, blank=4, norm_by_times=True, name='wctc')
outputs(a)''',
     '''
model_config { layers { name: "ctc" type: "ctc" size: 5 active_type: ""
inputs { input_layer_name: "a" } inputs { input_layer_name: "l" }
norm_by_times: false } }
model_config { layers { name: "wctc" type: "warp_ctc" size: 5 active_type:
"" inputs { input_layer_name: "a" } inputs { input_layer_name: "l" }
norm_by_times: true blank: 4 } }'''),
    ('crf_decoding',
     '''
a = data_layer(name='a', size=5)
l = data_layer(name='l', size=5)
crf_decoding_layer(input=a, size=5, label=l, name='crfd')
outputs(a)''',
     '''
model_config { layers { name: "crfd" type: "crf_decoding" size: 5
active_type: "" inputs { input_layer_name: "a" input_parameter_name:
"_crfd.w0" } inputs { input_layer_name: "l" } } }
model_config { parameters { name: "_crfd.w0" size: 35 initial_mean: 0.0
initial_std: 0.3779644730092272 dims: 7 dims: 5 initial_strategy: 0
initial_smart: true } }'''),
    ('hsigmoid',
     '''
a = data_layer(name='a', size=6)
l = data_layer(name='l', size=1)
outputs(hsigmoid(input=a, label=l, num_classes=5, name='hs'))''',
     '''
model_config { layers { name: "hs" type: "hsigmoid" size: 1 active_type: ""
inputs { input_layer_name: "a" input_parameter_name: "_hs.w0" } inputs {
input_layer_name: "l" } bias_parameter_name: "_hs.wbias" num_classes: 5 } }
model_config { parameters { name: "_hs.w0" size: 24 initial_mean: 0.0
initial_std: 0.5 dims: 4 dims: 6 initial_strategy: 0 initial_smart: true } }
model_config { parameters { name: "_hs.wbias" size: 4 initial_mean: 0.0
initial_std: 0.0 dims: 1 dims: 4 initial_strategy: 0 initial_smart: false }
}'''),
    ('nce',
     '''
a = data_layer(name='a', size=6)
l = data_layer(name='l', size=5)
outputs(nce_layer(input=a, label=l, num_classes=5, num_neg_samples=3, neg_distribution=[0.1, 0.2, 0.3, 0.2, 0.2], name='nce'))''',
     '''
model_config { layers { name: "nce" type: "nce" size: 1 active_type:
"sigmoid" inputs { input_layer_name: "a" input_parameter_name: "_nce.w0" }
inputs { input_layer_name: "l" } bias_parameter_name: "_nce.wbias"
num_classes: 5 num_neg_samples: 3 neg_sampling_dist: 0.1 neg_sampling_dist:
0.2 neg_sampling_dist: 0.3 neg_sampling_dist: 0.2 neg_sampling_dist: 0.2 } }
model_config { parameters { name: "_nce.w0" size: 30 initial_mean: 0.0
initial_std: 0.4472135954999579 dims: 5 dims: 6 initial_strategy: 0
initial_smart: true } }
model_config { parameters { name: "_nce.wbias" size: 5 initial_mean: 0.0
initial_std: 0.0 dims: 1 dims: 5 initial_strategy: 0 initial_smart: false }
}'''),
    ('projections',
     '''
a = data_layer(name='a', size=6)
w = data_layer(name='w', size=10)
m = mixed_layer(size=4, input=[trans_full_matrix_projection(input=a, size=4), table_projection(input=w, size=4)], name='m')
s = mixed_layer(input=scaling_projection(input=a), name='s')
outputs(m, s)''',
     '''
model_config { layers { name: "m" type: "mixed" size: 4 active_type: ""
inputs { input_layer_name: "a" input_parameter_name: "_m.w0" proj_conf {
type: "trans_fc" name: "_m.w0" input_size: 6 output_size: 4 } } inputs {
input_layer_name: "w" input_parameter_name: "_m.w1" proj_conf { type:
"table" name: "_m.w1" input_size: 10 output_size: 4 } } } }
model_config { parameters { name: "_m.w0" size: 24 initial_mean: 0.0
initial_std: 0.5 dims: 4 dims: 6 initial_strategy: 0 initial_smart: true } }
model_config { parameters { name: "_m.w1" size: 40 initial_mean: 0.0
initial_std: 0.31622776601683794 dims: 10 dims: 4 initial_strategy: 0
initial_smart: true } }
model_config { layers { name: "s" type: "mixed" size: 6 active_type: ""
inputs { input_layer_name: "a" input_parameter_name: "_s.w0" proj_conf {
type: "scaling" name: "_s.w0" input_size: 6 output_size: 6 } } } }
model_config { parameters { name: "_s.w0" size: 1 initial_mean: 0.0
initial_std: 1.0 dims: 1 dims: 1 initial_strategy: 0 initial_smart: true } }'''),
    ('conv_projection_operator',
     '''
img = data_layer(name='img', size=2 * 4 * 4)
f = data_layer(name='f', size=3 * 2 * 3 * 3)
mixed_layer(input=conv_projection(input=img, filter_size=3, num_filters=3, num_channels=2, padding=1), name='cp')
mixed_layer(input=conv_operator(img=img, filter=f, filter_size=3, num_filters=3, num_channels=2, padding=1), name='co')
mixed_layer(input=conv_operator(input=[img, f], filter_size=3, num_filters=3, num_channels=2, padding=1), name='co_b0')
outputs(img)''',
     '''
model_config { layers { name: "cp" type: "mixed" size: 48 active_type: ""
inputs { input_layer_name: "img" input_parameter_name: "_cp.w0" proj_conf {
type: "conv" name: "_cp.w0" input_size: 32 output_size: 48 conv_conf {
filter_size: 3 channels: 2 stride: 1 padding: 1 groups: 1 filter_channels: 2
output_x: 4 img_size: 4 caffe_mode: true filter_size_y: 3 padding_y: 1
stride_y: 1 output_y: 4 img_size_y: 4 } num_filters: 3 } } shared_biases:
true } }
model_config { parameters { name: "_cp.w0" size: 54 initial_mean: 0.0
initial_std: 0.3333333333333333 initial_strategy: 0 initial_smart: false } }
model_config { layers { name: "co" type: "mixed" size: 48 active_type: ""
inputs { input_layer_name: "img" } inputs { input_layer_name: "f" }
operator_confs { type: "conv" input_indices: 0 input_indices: 1 input_sizes:
32 input_sizes: 54 output_size: 48 conv_conf { filter_size: 3 channels: 2
stride: 1 padding: 1 groups: 1 filter_channels: 2 output_x: 4 img_size: 4
caffe_mode: true filter_size_y: 3 padding_y: 1 stride_y: 1 output_y: 4
img_size_y: 4 } num_filters: 3 } } }
model_config { layers { name: "co_b0" type: "mixed" size: 48 active_type: ""
inputs { input_layer_name: "img" } inputs { input_layer_name: "f" }
operator_confs { type: "conv" input_indices: 0 input_indices: 1 input_sizes:
32 input_sizes: 54 output_size: 48 conv_conf { filter_size: 3 channels: 2
stride: 1 padding: 1 groups: 1 filter_channels: 2 output_x: 4 img_size: 4
caffe_mode: true filter_size_y: 3 padding_y: 1 stride_y: 1 output_y: 4
img_size_y: 4 } num_filters: 3 } } }'''),
    ('sequence_conv_pool',
     '''
w = data_layer(name='w', size=5)
sequence_conv_pool(input=w, context_len=3, hidden_size=4, name='scp')
text_conv_pool(input=w, context_len=3, hidden_size=4, name='tcp')
outputs(w)''',
     '''
model_config { layers { name: "scp_conv_proj" type: "mixed" size: 15
active_type: "" inputs { input_layer_name: "w" proj_conf { type: "context"
name: "_scp_conv_proj.w0" input_size: 5 output_size: 15 context_start: -1
context_length: 3 trainable_padding: false } } } }
model_config { layers { name: "scp_conv_fc" type: "fc" size: 4 active_type:
"tanh" inputs { input_layer_name: "scp_conv_proj" input_parameter_name:
"_scp_conv_fc.w0" } bias_parameter_name: "_scp_conv_fc.wbias" } }
model_config { layers { name: "scp" type: "max" size: 4 active_type: "linear"
inputs { input_layer_name: "scp_conv_fc" } trans_type: "non-seq"
seq_pool_stride: -1 } }
model_config { layers { name: "tcp" type: "max" size: 4 active_type: "linear"
inputs { input_layer_name: "tcp_conv_fc" } trans_type: "non-seq"
seq_pool_stride: -1 } }'''),
    ('simple_lstm',
     '''
a = data_layer(name='a', size=5)
outputs(simple_lstm(input=a, size=3, name='sl'))''',
     '''
model_config { layers { name: "lstm_transform_sl" type: "mixed" size: 12
active_type: "" inputs { input_layer_name: "a" input_parameter_name:
"_lstm_transform_sl.w0" proj_conf { type: "fc" name: "_lstm_transform_sl.w0"
input_size: 5 output_size: 12 } } } }
model_config { layers { name: "sl" type: "lstmemory" size: 3 active_type:
"tanh" inputs { input_layer_name: "lstm_transform_sl" input_parameter_name:
"_sl.w0" } bias_parameter_name: "_sl.wbias" reversed: false
active_gate_type: "sigmoid" active_state_type: "tanh" } }'''),
    ('img_networks',
     '''
img = data_layer(name='img', size=1 * 8 * 8)
simple_img_conv_pool(input=img, filter_size=3, num_filters=2, num_channel=1, pool_size=2, pool_stride=2, name='sicp')
img_conv_bn_pool(input=img, filter_size=3, num_filters=2, num_channel=1, pool_size=2, pool_stride=2, name='icbp')
outputs(img)''',
     '''
model_config { layers { name: "sicp_conv" type: "exconv" size: 72
active_type: "relu" inputs { input_layer_name: "img" input_parameter_name:
"_sicp_conv.w0" conv_conf { filter_size: 3 channels: 1 stride: 1 padding: 0
groups: 1 filter_channels: 1 output_x: 6 img_size: 8 caffe_mode: true
filter_size_y: 3 padding_y: 0 stride_y: 1 output_y: 6 img_size_y: 8 } }
bias_parameter_name: "_sicp_conv.wbias" num_filters: 2 shared_biases: true
height: 6 width: 6 } }
model_config { layers { name: "sicp_pool" type: "pool" size: 18 active_type:
"" inputs { input_layer_name: "sicp_conv" pool_conf { pool_type:
"max-projection" channels: 2 size_x: 2 stride: 2 output_x: 3 img_size: 6
padding: 0 size_y: 2 stride_y: 2 output_y: 3 img_size_y: 6 padding_y: 0 } }
height: 3 width: 3 } }
model_config { layers { name: "icbp_conv" type: "exconv" size: 72
active_type: "" inputs { input_layer_name: "img" input_parameter_name:
"_icbp_conv.w0" conv_conf { filter_size: 3 channels: 1 stride: 1 padding: 0
groups: 1 filter_channels: 1 output_x: 6 img_size: 8 caffe_mode: true
filter_size_y: 3 padding_y: 0 stride_y: 1 output_y: 6 img_size_y: 8 } }
bias_parameter_name: "_icbp_conv.wbias" num_filters: 2 shared_biases: true
height: 6 width: 6 } }
model_config { layers { name: "icbp_bn" type: "batch_norm" size: 72
active_type: "relu" inputs { input_layer_name: "icbp_conv"
input_parameter_name: "_icbp_bn.w0" image_conf { channels: 2 img_size: 6
img_size_y: 6 } } inputs { input_layer_name: "icbp_conv"
input_parameter_name: "_icbp_bn.w1" } inputs { input_layer_name: "icbp_conv"
input_parameter_name: "_icbp_bn.w2" } bias_parameter_name: "_icbp_bn.wbias"
moving_average_fraction: 0.9 height: 6 width: 6 } }
model_config { layers { name: "icbp_pool" type: "pool" size: 18 active_type:
"" inputs { input_layer_name: "icbp_bn" pool_conf { pool_type:
"max-projection" channels: 2 size_x: 2 stride: 2 output_x: 3 img_size: 6
padding: 0 size_y: 2 stride_y: 2 output_y: 3 img_size_y: 6 padding_y: 0 } }
height: 3 width: 3 } }'''),
    ('img_conv_group',
     '''
img = data_layer(name='img', size=3 * 8 * 8)
outputs(img_conv_group(input=img, num_channels=3, conv_num_filter=[4, 4], pool_size=2, pool_stride=2, conv_with_batchnorm=True, conv_batchnorm_drop_rate=[0.1, 0.0]))''',
     '''
model_config { layers { name: "__conv_0__" type: "exconv" size: 256
active_type: "" inputs { input_layer_name: "img" input_parameter_name:
"___conv_0__.w0" conv_conf { filter_size: 3 channels: 3 stride: 1 padding: 1
groups: 1 filter_channels: 3 output_x: 8 img_size: 8 caffe_mode: true
filter_size_y: 3 padding_y: 1 stride_y: 1 output_y: 8 img_size_y: 8 } }
bias_parameter_name: "___conv_0__.wbias" num_filters: 4 shared_biases: true
height: 8 width: 8 } }
model_config { layers { name: "__batch_norm_0__" type: "batch_norm" size:
256 active_type: "relu" inputs { input_layer_name: "__conv_0__"
input_parameter_name: "___batch_norm_0__.w0" image_conf { channels: 4
img_size: 8 img_size_y: 8 } } inputs { input_layer_name: "__conv_0__"
input_parameter_name: "___batch_norm_0__.w1" } inputs { input_layer_name:
"__conv_0__" input_parameter_name: "___batch_norm_0__.w2" }
bias_parameter_name: "___batch_norm_0__.wbias" drop_rate: 0.1
moving_average_fraction: 0.9 height: 8 width: 8 } }
model_config { layers { name: "__pool_0__" type: "pool" size: 64
active_type: "" inputs { input_layer_name: "__batch_norm_1__" pool_conf {
pool_type: "max-projection" channels: 4 size_x: 2 stride: 2 output_x: 4
img_size: 8 padding: 0 size_y: 2 stride_y: 2 output_y: 4 img_size_y: 8
padding_y: 0 } } height: 4 width: 4 } }'''),
    ('small_vgg',
     '''
img = data_layer(name='img', size=3 * 32 * 32)
outputs(small_vgg(input_image=img, num_channels=3, num_classes=10))''',
     '''
model_config { layers { name: "__fc_layer_1__" type: "fc" size: 10
active_type: "softmax" inputs { input_layer_name: "__batch_norm_10__"
input_parameter_name: "___fc_layer_1__.w0" } bias_parameter_name:
"___fc_layer_1__.wbias" } }'''),
    ('vgg_16_network',
     '''
img = data_layer(name='img', size=3 * 32 * 32)
outputs(vgg_16_network(input_image=img, num_channels=3, num_classes=10))''',
     '''
model_config { layers { name: "__fc_layer_2__" type: "fc" size: 10
active_type: "softmax" inputs { input_layer_name: "__fc_layer_1__"
input_parameter_name: "___fc_layer_2__.w0" } bias_parameter_name:
"___fc_layer_2__.wbias" } }'''),
    ('lstmemory_group',
     '''
a = data_layer(name='a', size=12)
outputs(lstmemory_group(input=a, size=3, name='lg'))''',
     '''
model_config { layers { name: "lg@lg_recurrent_group" type: "lstm_step"
size: 3 active_type: "tanh" inputs { input_layer_name:
"lg_input_recurrent@lg_recurrent_group" } inputs { input_layer_name:
"lg_state+delay1@lg_recurrent_group" } bias_parameter_name:
"_lg@lg_recurrent_group.wbias" active_gate_type: "sigmoid"
active_state_type: "sigmoid" } }
model_config { layers { name: "lg_input_recurrent@lg_recurrent_group" type:
"mixed" size: 12 active_type: "" inputs { input_layer_name:
"a@lg_recurrent_group" proj_conf { type: "identity" name:
"_lg_input_recurrent.w0" input_size: 12 output_size: 12 } } inputs {
input_layer_name: "lg+delay1@lg_recurrent_group" input_parameter_name:
"_lg_input_recurrent@lg_recurrent_group.w1" proj_conf { type: "fc" name:
"_lg_input_recurrent.w1" input_size: 3 output_size: 12 } } } }'''),
    ('lstmemory_unit',
     '''
a = data_layer(name='a', size=12)
def step(x):
    return lstmemory_unit(input=x, size=3, name='lu')
outputs(recurrent_group(step=step, input=a, name='grp'))''',
     '''
model_config { layers { name: "lu@grp" type: "lstm_step" size: 3
active_type: "tanh" inputs { input_layer_name: "lu_input_recurrent@grp" }
inputs { input_layer_name: "lu_state+delay1@grp" } bias_parameter_name:
"_lu@grp.wbias" active_gate_type: "sigmoid" active_state_type: "sigmoid" } }
model_config { layers { name: "lu_input_recurrent@grp" type: "mixed" size:
12 active_type: "" inputs { input_layer_name: "a@grp" proj_conf { type:
"identity" name: "_lu_input_recurrent.w0" input_size: 12 output_size: 12 } }
inputs { input_layer_name: "lu+delay1@grp" input_parameter_name:
"_lu_input_recurrent@grp.w1" proj_conf { type: "fc" name:
"_lu_input_recurrent.w1" input_size: 3 output_size: 12 } } } }'''),
    ('gru_group_unit',
     '''
a = data_layer(name='a', size=6)
gru_group(input=a, size=2, name='gg')
def step(x):
    return gru_unit(input=x, size=2, name='gu')
recurrent_group(step=step, input=a, name='grp')
outputs(a)''',
     '''
model_config { layers { name: "gg@gg_recurrent_group" type: "gru_step" size:
2 active_type: "tanh" inputs { input_layer_name: "a@gg_recurrent_group"
input_parameter_name: "_gg@gg_recurrent_group.w0" } inputs {
input_layer_name: "gg+delay1@gg_recurrent_group" } bias_parameter_name:
"_gg@gg_recurrent_group.wbias" active_gate_type: "sigmoid" } }
model_config { layers { name: "gu@grp" type: "gru_step" size: 2 active_type:
"tanh" inputs { input_layer_name: "a@grp" input_parameter_name: "_gu@grp.w0"
} inputs { input_layer_name: "gu+delay1@grp" } bias_parameter_name:
"_gu@grp.wbias" active_gate_type: "sigmoid" } }'''),
    ('simple_gru',
     '''
a = data_layer(name='a', size=5)
simple_gru(input=a, size=2, name='sg')
simple_gru2(input=a, size=2, name='sg2')
outputs(a)''',
     '''
model_config { layers { name: "sg_transform" type: "mixed" size: 6
active_type: "" inputs { input_layer_name: "a" input_parameter_name:
"_sg_transform.w0" proj_conf { type: "fc" name: "_sg_transform.w0"
input_size: 5 output_size: 6 } } } }
model_config { layers { name: "sg@sg_recurrent_group" type: "gru_step" size:
2 active_type: "tanh" inputs { input_layer_name:
"sg_transform@sg_recurrent_group" input_parameter_name:
"_sg@sg_recurrent_group.w0" } inputs { input_layer_name:
"sg+delay1@sg_recurrent_group" } bias_parameter_name:
"_sg@sg_recurrent_group.wbias" active_gate_type: "sigmoid" } }
model_config { layers { name: "sg2_transform" type: "mixed" size: 6
active_type: "" inputs { input_layer_name: "a" input_parameter_name:
"_sg2_transform.w0" proj_conf { type: "fc" name: "_sg2_transform.w0"
input_size: 5 output_size: 6 } } } }
model_config { layers { name: "sg2" type: "gated_recurrent" size: 2
active_type: "tanh" inputs { input_layer_name: "sg2_transform"
input_parameter_name: "_sg2.w0" } bias_parameter_name: "_sg2.wbias"
reversed: false active_gate_type: "sigmoid" } }'''),
    ('bidirectional',
     '''
a = data_layer(name='a', size=5)
bidirectional_lstm(input=a, size=3, name='bl')
bidirectional_gru(input=a, size=2, name='bg', return_seq=True)
outputs(a)''',
     '''
model_config { layers { name: "bl" type: "concat" size: 6 active_type: ""
inputs { input_layer_name: "bl_fw_last" } inputs { input_layer_name:
"bl_bw_last" } } }
model_config { layers { name: "bg" type: "concat" size: 4 active_type: ""
inputs { input_layer_name: "bg_fw" } inputs { input_layer_name: "bg_bw" } }
}'''),
    ('simple_attention',
     '''
enc = data_layer(name='enc', size=4)
proj = data_layer(name='proj', size=3)
def step(e, p):
    s = memory(name='dec', size=3)
    ctx = simple_attention(encoded_sequence=e, encoded_proj=p, decoder_state=s, name='att')
    return fc_layer(input=ctx, size=3, name='dec')
trg = data_layer(name='trg', size=3)
def step2(t, e, p):
    s = memory(name='dec', size=3)
    ctx = simple_attention(encoded_sequence=e, encoded_proj=p, decoder_state=s, name='att')
    return fc_layer(input=[ctx, t], size=3, name='dec')
outputs(recurrent_group(step=step2, input=[trg, StaticInput(enc, is_seq=True), StaticInput(proj, is_seq=True)], name='grp'))''',
     '''
model_config { layers { name: "att_transform@grp" type: "mixed" size: 3
active_type: "" inputs { input_layer_name: "dec+delay1@grp"
input_parameter_name: "_att_transform@grp.w0" proj_conf { type: "fc" name:
"_att_transform.w0" input_size: 3 output_size: 3 } } } }
model_config { layers { name: "att_expand@grp" type: "expand" size: 3
active_type: "" inputs { input_layer_name: "att_transform@grp" } inputs {
input_layer_name: "__enc_memory__+delay1@grp" } trans_type: "non-seq" } }
model_config { layers { name: "att_combine@grp" type: "mixed" size: 3
active_type: "tanh" inputs { input_layer_name: "att_expand@grp" proj_conf {
type: "identity" name: "_att_combine.w0" input_size: 3 output_size: 3 } }
inputs { input_layer_name: "__proj_memory__+delay1@grp" proj_conf { type:
"identity" name: "_att_combine.w1" input_size: 3 output_size: 3 } } } }
model_config { layers { name: "att_softmax@grp" type: "fc" size: 1
active_type: "sequence_softmax" inputs { input_layer_name: "att_combine@grp"
input_parameter_name: "_att_softmax@grp.w0" } } }
model_config { layers { name: "att_scaling@grp" type: "scaling" size: 4
active_type: "" inputs { input_layer_name: "att_softmax@grp" } inputs {
input_layer_name: "__enc_memory__+delay1@grp" } } }
model_config { layers { name: "att_pooling@grp" type: "average" size: 4
active_type: "linear" inputs { input_layer_name: "att_scaling@grp" }
average_strategy: "sum" trans_type: "non-seq" seq_pool_stride: -1 } }'''),
    ('inputs_outputs',
     '''
a = data_layer(name='a', size=4)
b = data_layer(name='b', size=4)
inputs(b, a)
outputs(addto_layer(input=[a, b], name='s'))''',
     '''
model_config { input_layer_names: "b" input_layer_names: "a"
output_layer_names: "s" }'''),
    ('evaluators',
     '''
a = data_layer(name='a', size=4)
l = data_layer(name='l', size=1)
w = data_layer(name='w', size=1)
q = data_layer(name='q', size=1)
classification_error_evaluator(input=a, label=l, weight=w, top_k=2, name='ce')
auc_evaluator(input=a, label=l, name='auc')
pnpair_evaluator(input=a, label=l, query_id=q, weight=w, name='pn')
pnpair_evaluator(input=a, label=l, info=q, name='pn_b0')
precision_recall_evaluator(input=a, label=l, positive_label=1, name='pr')
ctc_error_evaluator(input=a, label=l, name='ctc')
chunk_evaluator(input=a, label=l, chunk_scheme='IOB', num_chunk_types=2, excluded_chunk_types=[1], name='chunk')
sum_evaluator(input=a, name='sum')
column_sum_evaluator(input=a, name='csum')
value_printer_evaluator(input=a, name='vp')
gradient_printer_evaluator(input=a, name='gp')
maxid_printer_evaluator(input=a, num_results=2, name='mip')
maxframe_printer_evaluator(input=a, num_results=3, name='mfp')
seqtext_printer_evaluator(input=a, id_input=l, dict_file='d.txt', result_file='r.txt', name='stp')
classification_error_printer_evaluator(input=a, label=l, threshold=0.3, name='cep')
outputs(a)''',
     '''
model_config { evaluators { name: "ce" type: "classification_error"
input_layers: "a" input_layers: "l" input_layers: "w" top_k: 2 } }
model_config { evaluators { name: "auc" type: "last-column-auc"
input_layers: "a" input_layers: "l" } }
model_config { evaluators { name: "pn" type: "pnpair" input_layers: "a"
input_layers: "l" input_layers: "q" input_layers: "w" } }
model_config { evaluators { name: "pn_b0" type: "pnpair" input_layers: "a"
input_layers: "l" input_layers: "q" } }
model_config { evaluators { name: "pr" type: "precision_recall"
input_layers: "a" input_layers: "l" positive_label: 1 } }
model_config { evaluators { name: "ctc" type: "ctc_edit_distance"
input_layers: "a" input_layers: "l" } }
model_config { evaluators { name: "chunk" type: "chunk" input_layers: "a"
input_layers: "l" chunk_scheme: "IOB" num_chunk_types: 2
excluded_chunk_types: 1 } }
model_config { evaluators { name: "sum" type: "sum" input_layers: "a" } }
model_config { evaluators { name: "csum" type: "last-column-sum"
input_layers: "a" } }
model_config { evaluators { name: "vp" type: "value_printer" input_layers:
"a" } }
model_config { evaluators { name: "gp" type: "gradient_printer"
input_layers: "a" } }
model_config { evaluators { name: "mip" type: "max_id_printer" input_layers:
"a" num_results: 2 } }
model_config { evaluators { name: "mfp" type: "max_frame_printer"
input_layers: "a" num_results: 3 } }
model_config { evaluators { name: "stp" type: "seq_text_printer"
input_layers: "l" input_layers: "a" dict_file: "d.txt" result_file: "r.txt"
} }
model_config { evaluators { name: "cep" type: "classification_error_printer"
input_layers: "a" input_layers: "l" classification_threshold: 0.3 } }'''),
    ('settings_momentum',
     '''
settings(batch_size=32, learning_rate=0.01, learning_method=MomentumOptimizer(momentum=0.9, sparse=True))
a = data_layer(name='a', size=2)
outputs(a)''',
     '''
opt_config { batch_size: 32 algorithm: "sgd" learning_rate: 0.01
learning_rate_decay_a: 0.0 learning_rate_decay_b: 0.0 l1weight: 0.1
l2weight: 0.0 c1: 0.0001 backoff: 0.5 owlqn_steps: 10 max_backoff: 5
l2weight_zero_iter: 0 average_window: 0.0 learning_method: "sparse_momentum"
ada_epsilon: 1e-06 do_average_in_cpu: false ada_rou: 0.95
learning_rate_schedule: "poly" delta_add_rate: 1.0 shrink_parameter_value:
0.0 adam_beta1: 0.9 adam_beta2: 0.999 adam_epsilon: 1e-08
learning_rate_args: "" async_lagged_grad_discard_ratio: 1.5 }'''),
    ('settings_adam',
     '''
settings(batch_size=32, learning_rate=0.01, learning_method=AdamOptimizer(beta1=0.8, beta2=0.99, epsilon=1e-6))
a = data_layer(name='a', size=2)
outputs(a)''',
     '''
opt_config { batch_size: 32 algorithm: "sgd" learning_rate: 0.01
learning_rate_decay_a: 0.0 learning_rate_decay_b: 0.0 l1weight: 0.1
l2weight: 0.0 c1: 0.0001 backoff: 0.5 owlqn_steps: 10 max_backoff: 5
l2weight_zero_iter: 0 average_window: 0.0 learning_method: "adam"
ada_epsilon: 1e-06 do_average_in_cpu: false ada_rou: 0.95
learning_rate_schedule: "poly" delta_add_rate: 1.0 shrink_parameter_value:
0.0 adam_beta1: 0.8 adam_beta2: 0.99 adam_epsilon: 1e-06 learning_rate_args:
"" async_lagged_grad_discard_ratio: 1.5 }'''),
    ('settings_adamax',
     '''
settings(batch_size=32, learning_rate=0.01, learning_method=AdamaxOptimizer(beta1=0.8, beta2=0.99))
a = data_layer(name='a', size=2)
outputs(a)''',
     '''
opt_config { batch_size: 32 algorithm: "sgd" learning_rate: 0.01
learning_rate_decay_a: 0.0 learning_rate_decay_b: 0.0 l1weight: 0.1
l2weight: 0.0 c1: 0.0001 backoff: 0.5 owlqn_steps: 10 max_backoff: 5
l2weight_zero_iter: 0 average_window: 0.0 learning_method: "adamax"
ada_epsilon: 1e-06 do_average_in_cpu: false ada_rou: 0.95
learning_rate_schedule: "poly" delta_add_rate: 1.0 shrink_parameter_value:
0.0 adam_beta1: 0.8 adam_beta2: 0.99 adam_epsilon: 1e-08 learning_rate_args:
"" async_lagged_grad_discard_ratio: 1.5 }'''),
    ('settings_adagrad',
     '''
settings(batch_size=32, learning_rate=0.01, learning_method=AdaGradOptimizer())
a = data_layer(name='a', size=2)
outputs(a)''',
     '''
opt_config { batch_size: 32 algorithm: "sgd" learning_rate: 0.01
learning_rate_decay_a: 0.0 learning_rate_decay_b: 0.0 l1weight: 0.1
l2weight: 0.0 c1: 0.0001 backoff: 0.5 owlqn_steps: 10 max_backoff: 5
l2weight_zero_iter: 0 average_window: 0.0 learning_method: "adagrad"
ada_epsilon: 1e-06 do_average_in_cpu: false ada_rou: 0.95
learning_rate_schedule: "poly" delta_add_rate: 1.0 shrink_parameter_value:
0.0 adam_beta1: 0.9 adam_beta2: 0.999 adam_epsilon: 1e-08
learning_rate_args: "" async_lagged_grad_discard_ratio: 1.5 }'''),
    ('settings_rmsprop',
     '''
settings(batch_size=32, learning_rate=0.01, learning_method=RMSPropOptimizer(rho=0.9, epsilon=1e-5))
a = data_layer(name='a', size=2)
outputs(a)''',
     '''
opt_config { batch_size: 32 algorithm: "sgd" learning_rate: 0.01
learning_rate_decay_a: 0.0 learning_rate_decay_b: 0.0 l1weight: 0.1
l2weight: 0.0 c1: 0.0001 backoff: 0.5 owlqn_steps: 10 max_backoff: 5
l2weight_zero_iter: 0 average_window: 0.0 learning_method: "rmsprop"
ada_epsilon: 1e-05 do_average_in_cpu: false ada_rou: 0.9
learning_rate_schedule: "poly" delta_add_rate: 1.0 shrink_parameter_value:
0.0 adam_beta1: 0.9 adam_beta2: 0.999 adam_epsilon: 1e-08
learning_rate_args: "" async_lagged_grad_discard_ratio: 1.5 }'''),
    ('settings_decayed_adagrad',
     '''
settings(batch_size=32, learning_rate=0.01, learning_method=DecayedAdaGradOptimizer(rho=0.9, epsilon=1e-5))
a = data_layer(name='a', size=2)
outputs(a)''',
     '''
opt_config { batch_size: 32 algorithm: "sgd" learning_rate: 0.01
learning_rate_decay_a: 0.0 learning_rate_decay_b: 0.0 l1weight: 0.1
l2weight: 0.0 c1: 0.0001 backoff: 0.5 owlqn_steps: 10 max_backoff: 5
l2weight_zero_iter: 0 average_window: 0.0 learning_method: "decayed_adagrad"
ada_epsilon: 1e-05 do_average_in_cpu: false ada_rou: 0.9
learning_rate_schedule: "poly" delta_add_rate: 1.0 shrink_parameter_value:
0.0 adam_beta1: 0.9 adam_beta2: 0.999 adam_epsilon: 1e-08
learning_rate_args: "" async_lagged_grad_discard_ratio: 1.5 }'''),
    ('settings_adadelta',
     '''
settings(batch_size=32, learning_rate=0.01, learning_method=AdaDeltaOptimizer(rho=0.9, epsilon=1e-5))
a = data_layer(name='a', size=2)
outputs(a)''',
     '''
opt_config { batch_size: 32 algorithm: "sgd" learning_rate: 0.01
learning_rate_decay_a: 0.0 learning_rate_decay_b: 0.0 l1weight: 0.1
l2weight: 0.0 c1: 0.0001 backoff: 0.5 owlqn_steps: 10 max_backoff: 5
l2weight_zero_iter: 0 average_window: 0.0 learning_method: "adadelta"
ada_epsilon: 1e-05 do_average_in_cpu: false ada_rou: 0.9
learning_rate_schedule: "poly" delta_add_rate: 1.0 shrink_parameter_value:
0.0 adam_beta1: 0.9 adam_beta2: 0.999 adam_epsilon: 1e-08
learning_rate_args: "" async_lagged_grad_discard_ratio: 1.5 }'''),
    ('settings_regularization_average',
     '''
settings(batch_size=32, learning_rate=0.01, learning_rate_decay_a=0.1, learning_rate_decay_b=0.5, learning_rate_schedule='discexp', regularization=L2Regularization(1e-4), model_average=ModelAverage(average_window=0.5, max_average_window=1000), gradient_clipping_threshold=25)
a = data_layer(name='a', size=2)
outputs(fc_layer(input=a, size=2, name='f'))''',
     '''
opt_config { batch_size: 32 algorithm: "sgd" learning_rate: 0.01
learning_rate_decay_a: 0.1 learning_rate_decay_b: 0.5 l1weight: 0.1
l2weight: 0.0 c1: 0.0001 backoff: 0.5 owlqn_steps: 10 max_backoff: 5
l2weight_zero_iter: 0 average_window: 0.5 max_average_window: 1000
learning_method: "momentum" ada_epsilon: 1e-06 do_average_in_cpu: false
ada_rou: 0.95 learning_rate_schedule: "discexp" delta_add_rate: 1.0
shrink_parameter_value: 0.0 adam_beta1: 0.9 adam_beta2: 0.999 adam_epsilon:
1e-08 learning_rate_args: "" async_lagged_grad_discard_ratio: 1.5 }
model_config { parameters { name: "_f.w0" size: 4 initial_mean: 0.0
initial_std: 0.7071067811865475 decay_rate: 0.0001 dims: 2 dims: 2
initial_strategy: 0 initial_smart: true gradient_clipping_threshold: 25.0 }
}'''),
    ('define_py_data_sources2',
     '''
define_py_data_sources2(train_list='train.list', test_list='test.list', module='prov', obj=['process_train', 'process_test'])
a = data_layer(name='a', size=2)
outputs(a)''',
     '''
data_config { type: "py2" files: "train.list" async_load_data: false
for_test: false load_data_module: "prov" load_data_object: "process_train"
load_data_args: "" data_ratio: 1 is_main_data: true usage_ratio: 1.0 }
test_data_config { type: "py2" files: "test.list" async_load_data: false
for_test: true load_data_module: "prov" load_data_object: "process_test"
load_data_args: "" data_ratio: 1 is_main_data: true usage_ratio: 1.0 }'''),
    ('define_py_data_sources',
     '''
define_py_data_sources(train_list='train.list', test_list='test.list', module='prov', obj='process', args='x', train_async=True)
a = data_layer(name='a', size=2)
outputs(a)''',
     '''
data_config { type: "py" files: "train.list" async_load_data: true for_test:
false load_data_module: "prov" load_data_object: "process" load_data_args:
"x" data_ratio: 1 is_main_data: true usage_ratio: 1.0 }
test_data_config { type: "py" files: "test.list" async_load_data: false
for_test: true load_data_module: "prov" load_data_object: "process"
load_data_args: "x" data_ratio: 1 is_main_data: true usage_ratio: 1.0 }'''),
    ('smooth_l1_cost', 'x = data_layer(name="input", size=3)\ny = data_layer(name="label", size=3)\n'
     'outputs(smooth_l1_cost(x, y))\n',
     '''model_config { layers { name: "__smooth_l1_cost_0__" type: "smooth_l1" size: 1
active_type: "" inputs { input_layer_name: "input" } inputs { input_layer_name: "label" }
coeff: 1.0 } }'''),
    ('clip_layer', 'a = data_layer(name="a", size=3)\noutputs(clip_layer(a, min=-1, max=2.5))\n',
     '''model_config { layers { name: "__clip_0__" type: "clip" size: 3
active_type: "" inputs { input_layer_name: "a" clip_conf { min: -1.0 max: 2.5 } } } }'''),
    ('layer_math',
     '''
a = data_layer(name='a', size=3)
b = data_layer(name='b', size=1)
layer_math.log(a, name='lg'); layer_math.abs(a, name='ab'); layer_math.sigmoid(a, name='sg')
layer_math.tanh(a, name='th'); layer_math.square(a, name='sq'); layer_math.relu(a, name='re')
x = a + b
y = 2 - a
z = a * b
outputs(x, y, z)''',
     '''
model_config { layers { name: "lg" type: "mixed" size: 3 active_type: "log"
inputs { input_layer_name: "a" proj_conf { type: "identity" name: "_lg.w0"
input_size: 3 output_size: 3 } } } }
model_config { layers { name: "ab" type: "mixed" size: 3 active_type: "abs"
inputs { input_layer_name: "a" proj_conf { type: "identity" name: "_ab.w0"
input_size: 3 output_size: 3 } } } }
model_config { layers { name: "sg" type: "mixed" size: 3 active_type:
"sigmoid" inputs { input_layer_name: "a" proj_conf { type: "identity" name:
"_sg.w0" input_size: 3 output_size: 3 } } } }
model_config { layers { name: "th" type: "mixed" size: 3 active_type: "tanh"
inputs { input_layer_name: "a" proj_conf { type: "identity" name: "_th.w0"
input_size: 3 output_size: 3 } } } }
model_config { layers { name: "sq" type: "mixed" size: 3 active_type:
"square" inputs { input_layer_name: "a" proj_conf { type: "identity" name:
"_sq.w0" input_size: 3 output_size: 3 } } } }
model_config { layers { name: "re" type: "mixed" size: 3 active_type: "relu"
inputs { input_layer_name: "a" proj_conf { type: "identity" name: "_re.w0"
input_size: 3 output_size: 3 } } } }
model_config { layers { name: "__repeat_layer_0__" type: "featmap_expand"
size: 3 active_type: "" inputs { input_layer_name: "b" } num_filters: 3 } }
model_config { layers { name: "__mixed_0__" type: "mixed" size: 3
active_type: "" inputs { input_layer_name: "a" proj_conf { type: "identity"
name: "___mixed_0__.w0" input_size: 3 output_size: 3 } } inputs {
input_layer_name: "__repeat_layer_0__" proj_conf { type: "identity" name:
"___mixed_0__.w1" input_size: 3 output_size: 3 } } } }
model_config { layers { name: "__slope_intercept_layer_0__" type:
"slope_intercept" size: 3 active_type: "" inputs { input_layer_name: "a" }
slope: -1.0 intercept: 0.0 } }
model_config { layers { name: "__slope_intercept_layer_1__" type:
"slope_intercept" size: 3 active_type: "" inputs { input_layer_name:
"__slope_intercept_layer_0__" } slope: 1.0 intercept: 2.0 } }
model_config { layers { name: "__scaling_layer_0__" type: "scaling" size: 3
active_type: "" inputs { input_layer_name: "b" } inputs { input_layer_name:
"a" } } }'''),]


@pytest.mark.parametrize('case', CASES, ids=[c[0] for c in CASES])
def test_helper_protostr(write_config, tmp_path, monkeypatch, case):
    _, body, expected = case
    monkeypatch.chdir(tmp_path)
    conf = dump_whole(write_config(H + body))
    d = compare_fragment(conf, expected)
    assert not d, 'actual vs expected:\n  ' + '\n  '.join(d[:40])


def test_fragment_comparison_detects_differences(write_config, tmp_path,
                                                 monkeypatch):
    monkeypatch.chdir(tmp_path)
    conf = dump_whole(write_config(H + '''
a = data_layer(name='a', size=4)
outputs(trans_layer(input=a, name='t'))'''))
    assert compare_fragment(conf, '''model_config { layers { name: "t"
        type: "trans" size: 4 active_type: "" inputs {
        input_layer_name: "a" } } }''') == []
    assert compare_fragment(conf, '''model_config { layers { name: "t"
        type: "trans" size: 5 active_type: "" inputs {
        input_layer_name: "a" } } }''')
    assert compare_fragment(conf, 'model_config { layers { name: "u" } }')
    assert compare_fragment(conf, 'opt_config { batch_size: 11 '
                            'learning_rate: 0.001 }')
