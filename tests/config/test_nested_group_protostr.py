"""Recurrent groups over sub-sequences and nested groups, as v1's config_parser
wrote them (v0.10): a group with a SubsequenceInput gives each in-link a
sequence_scatter_agent and each out-link has_subseq with a sequence_gather_agent
in the parent (RecurrentLayerGroupEnd); a group inside a group's step is a layer of
the outer sub-model, its sub-model and layers named '<name>@<inner>@<outer>'.
Plain groups keep scatter_agent / gather_agent and has_subseq: false.
Checked on `paddle dump_config --whole` output, like test_helper_protostr.py."""

import pytest

from test_helper_protostr import H, compare_fragment, dump_whole

CASES = [
    ('plain_and_subseq_groups',  # v1's test_rnn_group.py, one group of each kind
     '''
seq = data_layer(name='seq_input', size=6)
sub_seq = data_layer(name='sub_seq_input', size=6)
def rnn_step(name):
    def step(s):
        m = memory(name=name, size=5)
        return fc_layer(input=[s, m], size=5, name=name)
    return step
outputs(last_seq(input=recurrent_group(step=rnn_step('rnn_forward'), input=seq)),
        last_seq(input=recurrent_group(step=rnn_step('rnn_subseq_forward'),
                                       input=SubsequenceInput(input=sub_seq))))''',
     '''
model_config { layers { name: "seq_input@__recurrent_group_0__" type:
"scatter_agent" size: 6 active_type: "" } }
model_config { layers { name: "rnn_forward" type: "gather_agent" size: 5
active_type: "" } }
model_config { layers { name: "sub_seq_input@__recurrent_group_1__" type:
"sequence_scatter_agent" size: 6 active_type: "" } }
model_config { layers { name: "rnn_subseq_forward" type:
"sequence_gather_agent" size: 5 active_type: "" } }
model_config { layers { name: "__last_seq_1__" type: "seqlastins" size: 5
active_type: "linear" inputs { input_layer_name: "rnn_subseq_forward" }
trans_type: "non-seq" seq_pool_stride: -1 } }
model_config { sub_models { name: "__recurrent_group_0__" layer_names:
"seq_input@__recurrent_group_0__" layer_names:
"rnn_forward+delay1@__recurrent_group_0__" layer_names:
"rnn_forward@__recurrent_group_0__" is_recurrent_layer_group: true reversed:
false memories { layer_name: "rnn_forward@__recurrent_group_0__" link_name:
"rnn_forward+delay1@__recurrent_group_0__" is_sequence: false } in_links {
layer_name: "seq_input" link_name: "seq_input@__recurrent_group_0__"
has_subseq: false } out_links { layer_name:
"rnn_forward@__recurrent_group_0__" link_name: "rnn_forward" has_subseq:
false } target_inlinkid: -1 } }
model_config { sub_models { name: "__recurrent_group_1__" layer_names:
"sub_seq_input@__recurrent_group_1__" layer_names:
"rnn_subseq_forward+delay1@__recurrent_group_1__" layer_names:
"rnn_subseq_forward@__recurrent_group_1__" is_recurrent_layer_group: true
reversed: false memories { layer_name:
"rnn_subseq_forward@__recurrent_group_1__" link_name:
"rnn_subseq_forward+delay1@__recurrent_group_1__" is_sequence: false }
in_links { layer_name: "sub_seq_input" link_name:
"sub_seq_input@__recurrent_group_1__" has_subseq: true } out_links {
layer_name: "rnn_subseq_forward@__recurrent_group_1__" link_name:
"rnn_subseq_forward" has_subseq: true } target_inlinkid: -1 } }'''),
    ('nested_groups',  # v1's sequence_nest_rnn.conf shape
     '''
word = data_layer(name='word', size=10)
emb = embedding_layer(input=word, size=4, param_attr=ParamAttr(name='emb'))
def outer_step(x):
    outer_mem = memory(name='outer_state', size=3)
    def inner_step(y):
        inner_mem = memory(name='inner_state', size=3, boot_layer=outer_mem)
        return fc_layer(input=[y, inner_mem], size=3, act=TanhActivation(), name='inner_state', bias_attr=False)
    inner = recurrent_group(step=inner_step, input=x, name='inner')
    last_seq(input=inner, name='outer_state')
    return inner
out = recurrent_group(step=outer_step, input=SubsequenceInput(emb), name='outer')
outputs(last_seq(input=out, name='last'))''',
     '''
model_config { layers { name: "outer" type: "recurrent_layer_group"
active_type: "" } }
model_config { layers { name: "__embedding_0__@outer" type:
"sequence_scatter_agent" size: 4 active_type: "" } }
model_config { layers { name: "inner@outer" type: "recurrent_layer_group"
active_type: "" } }
model_config { layers { name: "__embedding_0__@inner@outer" type:
"scatter_agent" size: 4 active_type: "" } }
model_config { layers { name: "inner_state@inner@outer" type: "fc" size: 3
active_type: "tanh" inputs { input_layer_name: "__embedding_0__@inner@outer"
input_parameter_name: "_inner_state@inner@outer.w0" } inputs {
input_layer_name: "inner_state+delay1@inner@outer" input_parameter_name:
"_inner_state@inner@outer.w1" } } }
model_config { layers { name: "inner_state@outer" type: "gather_agent" size: 3
active_type: "" } }
model_config { layers { name: "outer_state@outer" type: "seqlastins" size: 3
active_type: "linear" inputs { input_layer_name: "inner_state@outer" }
trans_type: "non-seq" seq_pool_stride: -1 } }
model_config { layers { name: "inner_state" type: "sequence_gather_agent" size:
3 active_type: "" } }
model_config { sub_models { name: "root" layer_names: "word" layer_names:
"__embedding_0__" layer_names: "outer" layer_names: "inner_state"
layer_names: "last" input_layer_names: "word" output_layer_names: "last"
is_recurrent_layer_group: false } }
model_config { sub_models { name: "outer" layer_names: "__embedding_0__@outer"
layer_names: "outer_state+delay1@outer" layer_names: "inner@outer"
layer_names: "inner_state@outer" layer_names: "outer_state@outer"
is_recurrent_layer_group: true reversed: false memories { layer_name:
"outer_state@outer" link_name: "outer_state+delay1@outer" is_sequence: false
} in_links { layer_name: "__embedding_0__" link_name: "__embedding_0__@outer"
has_subseq: true } out_links { layer_name: "inner_state@outer" link_name:
"inner_state" has_subseq: true } target_inlinkid: -1 } }
model_config { sub_models { name: "inner@outer" layer_names:
"__embedding_0__@inner@outer" layer_names: "inner_state+delay1@inner@outer"
layer_names: "inner_state@inner@outer" is_recurrent_layer_group: true
reversed: false memories { layer_name: "inner_state@inner@outer" link_name:
"inner_state+delay1@inner@outer" boot_layer_name: "outer_state+delay1@outer"
is_sequence: false } in_links { layer_name: "__embedding_0__@outer" link_name:
"__embedding_0__@inner@outer" has_subseq: false } out_links { layer_name:
"inner_state@inner@outer" link_name: "inner_state@outer" has_subseq: false }
target_inlinkid: -1 } }
model_config { parameters { name: "_inner_state@inner@outer.w1" size: 9
initial_mean: 0.0 initial_std: 0.5773502691896258 dims: 3 dims: 3
initial_strategy: 0 initial_smart: true } }'''),
    ('beam_search_in_nested_group',  # v1's sample_trainer_nest_rnn_gen.conf shape
     '''
src = data_layer(name='src', size=2)
def outer_step(sub):
    def step(static, word):
        return fc_layer(input=word, size=5, act=SoftmaxActivation(), name='out', bias_attr=False)
    return beam_search(step=step, name='gen', bos_id=0, eos_id=4, beam_size=1, max_length=10,
                       input=[StaticInput(sub, is_seq=True),
                              GeneratedInput(size=5, embedding_name='wordvec', embedding_size=5)])
outputs(recurrent_group(step=outer_step, input=SubsequenceInput(src), name='outer'))''',
     '''
model_config { layers { name: "gen@outer" type: "recurrent_layer_group"
active_type: "" } }
model_config { layers { name: "__beam_search_predict__@outer" type: "data"
size: 5 active_type: "" } }
model_config { layers { name: "__beam_search_predict__" type:
"sequence_gather_agent" size: 5 active_type: "" } }
model_config { sub_models { name: "outer" layer_names: "src@outer"
layer_names: "gen@outer" layer_names: "__beam_search_predict__@outer"
is_recurrent_layer_group: true reversed: false in_links { layer_name: "src"
link_name: "src@outer" has_subseq: true } out_links { layer_name:
"__beam_search_predict__@outer" link_name: "__beam_search_predict__"
has_subseq: true } target_inlinkid: -1 } }'''),
]


@pytest.mark.parametrize('case', CASES, ids=[c[0] for c in CASES])
def test_nested_group_protostr(write_config, tmp_path, monkeypatch, case):
    _, body, expected = case
    monkeypatch.chdir(tmp_path)
    conf = dump_whole(write_config(H + body))
    d = compare_fragment(conf, expected)
    assert not d, 'actual vs expected:\n  ' + '\n  '.join(d[:40])
