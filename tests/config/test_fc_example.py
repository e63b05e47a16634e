"""The v1 tests/configs/test_fc.py worked example (reference section 6.6)."""

from protocmp import assert_proto_equal

TEST_FC = '''
from paddle.trainer_config_helpers import *

settings(batch_size=1000, learning_rate=1e-5)

din = data_layer(name='data', size=100)

trans = trans_layer(input=din)

hidden = fc_layer(input=trans, size=100, bias_attr=False)

mask = data_layer(name='mask', size=100)

hidden_sel = selective_fc_layer(
    input=din, select=mask, size=100, act=SigmoidActivation())

outputs(hidden, hidden_sel)
'''

# Written from v1 (v0.9/v0.10) semantics: smart init std = 1/sqrt(100),
# selective_fc weight dims transposed [out, in] with is_sparse false,
# zero-initialised bias [1, 100], DFS input order, no cost -> the given
# layers are the outputs.
EXPECTED = '''
type: "nn"
layers { name: "data" type: "data" size: 100 active_type: "" }
layers {
  name: "__trans_layer_0__" type: "trans" size: 100 active_type: ""
  inputs { input_layer_name: "data" }
}
layers {
  name: "__fc_layer_0__" type: "fc" size: 100 active_type: "tanh"
  inputs {
    input_layer_name: "__trans_layer_0__"
    input_parameter_name: "___fc_layer_0__.w0"
  }
}
layers { name: "mask" type: "data" size: 100 active_type: "" }
layers {
  name: "__selective_fc_layer_0__" type: "selective_fc" size: 100
  active_type: "sigmoid"
  inputs {
    input_layer_name: "data"
    input_parameter_name: "___selective_fc_layer_0__.w0"
  }
  inputs { input_layer_name: "mask" }
  bias_parameter_name: "___selective_fc_layer_0__.wbias"
  selective_fc_pass_generation: false
  has_selected_colums: true
  selective_fc_full_mul_ratio: 0.02
}
parameters {
  name: "___fc_layer_0__.w0" size: 10000 initial_mean: 0.0
  initial_std: 0.1 dims: 100 dims: 100 initial_strategy: 0
  initial_smart: true
}
parameters {
  name: "___selective_fc_layer_0__.w0" size: 10000 initial_mean: 0.0
  initial_std: 0.1 dims: 100 dims: 100 initial_strategy: 0
  initial_smart: true is_sparse: false
}
parameters {
  name: "___selective_fc_layer_0__.wbias" size: 100 initial_mean: 0.0
  initial_std: 0.0 dims: 1 dims: 100 initial_strategy: 0
  initial_smart: false
}
input_layer_names: "data"
input_layer_names: "mask"
output_layer_names: "__fc_layer_0__"
output_layer_names: "__selective_fc_layer_0__"
sub_models {
  name: "root"
  layer_names: "data"
  layer_names: "__trans_layer_0__"
  layer_names: "__fc_layer_0__"
  layer_names: "mask"
  layer_names: "__selective_fc_layer_0__"
  input_layer_names: "data"
  input_layer_names: "mask"
  output_layer_names: "__fc_layer_0__"
  output_layer_names: "__selective_fc_layer_0__"
  is_recurrent_layer_group: false
}
'''

EXPECTED_OPT = '''
batch_size: 1000 algorithm: "sgd" learning_rate: 1e-05
learning_rate_decay_a: 0.0 learning_rate_decay_b: 0.0 l1weight: 0.1
l2weight: 0.0 c1: 0.0001 backoff: 0.5 owlqn_steps: 10 max_backoff: 5
l2weight_zero_iter: 0 average_window: 0.0 learning_method: "momentum"
ada_epsilon: 1e-06 do_average_in_cpu: false ada_rou: 0.95
learning_rate_schedule: "poly" delta_add_rate: 1.0
shrink_parameter_value: 0.0 adam_beta1: 0.9 adam_beta2: 0.999
adam_epsilon: 1e-08 learning_rate_args: "" async_lagged_grad_discard_ratio: 1.5
'''


def test_fc_model_config(parse):
    conf = parse(TEST_FC)
    assert_proto_equal(conf.model_config, EXPECTED)


def test_fc_whole_trainer_config(parse):
    conf = parse(TEST_FC)
    assert_proto_equal(conf.opt_config, EXPECTED_OPT)
    assert conf.save_dir == './output/model'
    assert conf.HasField('start_pass') and conf.start_pass == 0
    assert not conf.HasField('data_config')
    assert not conf.HasField('init_model_path')


def test_fc_dump_text_is_protobuf_text(write_config):
    from paddle.utils.dump_config import dump_config
    from protocmp import parse_text
    text = dump_config(write_config(TEST_FC))
    assert text.startswith('type: "nn"\nlayers {\n  name: "data"\n')
    assert_proto_equal(parse_text('ModelConfig', text), EXPECTED)


def test_fc_serialize_roundtrip(write_config):
    from paddle.trainer.config_parser import parse_config_and_serialize
    from paddle.proto.TrainerConfig_pb2 import TrainerConfig
    data = parse_config_and_serialize(write_config(TEST_FC), '')
    conf = TrainerConfig()
    conf.ParseFromString(data)
    assert_proto_equal(conf.model_config, EXPECTED)
