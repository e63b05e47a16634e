"""The recurrent network helpers of the config language: LSTM and GRU networks
(whole-sequence layers or recurrent_group steps), their bidirectional forms and
simple_attention.

Part of ``networks`` (``from paddle.trainer_config_helpers import *`` and
``paddle.trainer_config_helpers.networks`` export every name here); kept in its own
module so that each file stays readable.
"""

from paddle.parser import ConfigError

from .activations import (IdentityActivation, SequenceSoftmaxActivation,
                          TanhActivation)
from .default_decorators import wrap_act_default, wrap_name_default
from .layers import (concat_layer, expand_layer, fc_layer, first_seq,
                     full_matrix_projection, get_output_layer,
                     gru_step_layer, gru_step_naive_layer, grumemory, identity_projection,
                     last_seq, lstm_step_layer, lstmemory, memory, mixed_layer,
                     pooling_layer, recurrent_group, scaling_layer)
from .poolings import SumPooling

__all__ = [
    'simple_lstm', 'lstmemory_unit', 'lstmemory_group', 'gru_unit', 'gru_group',
    'simple_gru', 'simple_gru2', 'bidirectional_lstm', 'bidirectional_gru',
    'simple_attention'
]


@wrap_name_default('lstm')
def simple_lstm(input, size, name=None, reverse=False, mat_param_attr=None,
                bias_param_attr=None, inner_param_attr=None, act=None,
                gate_act=None, state_act=None, mixed_layer_attr=None,
                lstm_cell_attr=None):
    """mixed 'lstm_transform_NAME' (4*size, no bias) + lstmemory NAME."""
    fc_name = 'lstm_transform_%s' % name
    with mixed_layer(name=fc_name, size=size * 4, act=IdentityActivation(),
                     layer_attr=mixed_layer_attr, bias_attr=False) as m:
        m += full_matrix_projection(input, param_attr=mat_param_attr)
    return lstmemory(name=name, input=m, reverse=reverse,
                     bias_attr=bias_param_attr, param_attr=inner_param_attr,
                     act=act, gate_act=gate_act, state_act=state_act,
                     layer_attr=lstm_cell_attr)


@wrap_name_default('lstm_unit')
def lstmemory_unit(input, name=None, size=None, param_attr=None, act=None,
                   gate_act=None, state_act=None, mixed_bias_attr=None,
                   lstm_bias_attr=None, mixed_layer_attr=None,
                   lstm_layer_attr=None, get_output_layer_attr=None,
                   out_memory=None):
    """One LSTM step built from memories (use inside recurrent_group)."""
    if size is None:
        if input.size % 4 != 0:
            raise ConfigError('lstmemory_unit: input size must be 4*size')
        size = input.size // 4
    # state_act=None reaches lstm_step_layer, whose default (sigmoid) v1's unit kept
    out_mem = memory(name=name, size=size) if out_memory is None \
        else out_memory
    state_mem = memory(name='%s_state' % name, size=size)
    with mixed_layer(name='%s_input_recurrent' % name, size=size * 4,
                     bias_attr=mixed_bias_attr, layer_attr=mixed_layer_attr,
                     act=IdentityActivation()) as m:
        m += identity_projection(input=input)
        m += full_matrix_projection(input=out_mem, param_attr=param_attr)
    lstm_out = lstm_step_layer(name=name, input=m, state=state_mem,
                               size=size, bias_attr=lstm_bias_attr, act=act,
                               gate_act=gate_act, state_act=state_act,
                               layer_attr=lstm_layer_attr)
    get_output_layer(name='%s_state' % name, input=lstm_out,
                     arg_name='state', layer_attr=get_output_layer_attr)
    return lstm_out


@wrap_name_default('lstm_group')
def lstmemory_group(input, size=None, name=None, reverse=False,
                    param_attr=None, act=None, gate_act=None, state_act=None,
                    mixed_bias_attr=None, lstm_bias_attr=None,
                    mixed_layer_attr=None, lstm_layer_attr=None,
                    get_output_layer_attr=None):
    """lstmemory built as a recurrent_group of lstmemory_unit."""

    def step(ipt):
        return lstmemory_unit(input=ipt, name=name, size=size,
                              mixed_bias_attr=mixed_bias_attr,
                              mixed_layer_attr=mixed_layer_attr,
                              param_attr=param_attr,
                              lstm_bias_attr=lstm_bias_attr, act=act,
                              gate_act=gate_act, state_act=state_act,
                              lstm_layer_attr=lstm_layer_attr,
                              get_output_layer_attr=get_output_layer_attr)

    return recurrent_group(name='%s_recurrent_group' % name, step=step,
                           reverse=reverse, input=input)


@wrap_name_default('gru_unit')
def gru_unit(input, size=None, name=None, gru_bias_attr=None,
             gru_param_attr=None, act=None, gate_act=None,
             gru_layer_attr=None, naive=False):
    """One GRU step with its output memory (use inside recurrent_group); naive=True builds
    it from mixed layers (gru_step_naive_layer), which honours error_clipping_threshold."""
    if input.size % 3 != 0:
        raise ConfigError('gru_unit: input size must be 3*size')
    if size is None:
        size = input.size // 3
    out_mem = memory(name=name, size=size)
    step = gru_step_naive_layer if naive else gru_step_layer
    return step(name=name, input=input, output_mem=out_mem,
                size=size, bias_attr=gru_bias_attr,
                param_attr=gru_param_attr, act=act,
                gate_act=gate_act, layer_attr=gru_layer_attr)


@wrap_name_default('gru_group')
def gru_group(input, size=None, name=None, reverse=False, gru_bias_attr=None,
              gru_param_attr=None, act=None, gate_act=None,
              gru_layer_attr=None, naive=False):
    """grumemory built as a recurrent_group of gru_unit."""

    def step(ipt):
        return gru_unit(input=ipt, name=name, size=size,
                        gru_bias_attr=gru_bias_attr,
                        gru_param_attr=gru_param_attr, act=act,
                        gate_act=gate_act, gru_layer_attr=gru_layer_attr, naive=naive)

    return recurrent_group(name='%s_recurrent_group' % name, step=step,
                           reverse=reverse, input=input)


@wrap_name_default('simple_gru')
def simple_gru(input, size, name=None, reverse=False, mixed_param_attr=None,
               mixed_bias_param_attr=None, mixed_layer_attr=None,
               gru_bias_attr=None, gru_param_attr=None, act=None,
               gate_act=None, gru_layer_attr=None, naive=False):
    """mixed NAME_transform (3*size) + gru_group NAME."""
    with mixed_layer(name='%s_transform' % name, size=size * 3,
                     bias_attr=mixed_bias_param_attr,
                     layer_attr=mixed_layer_attr) as m:
        m += full_matrix_projection(input=input, param_attr=mixed_param_attr)
    return gru_group(name=name, size=size, input=m, reverse=reverse,
                     gru_bias_attr=gru_bias_attr,
                     gru_param_attr=gru_param_attr, act=act,
                     gate_act=gate_act, gru_layer_attr=gru_layer_attr, naive=naive)


@wrap_name_default('simple_gru2')
def simple_gru2(input, size, name=None, reverse=False,
                mixed_param_attr=None, mixed_bias_attr=None,
                gru_param_attr=None, gru_bias_attr=None, act=None,
                gate_act=None, mixed_layer_attr=None, gru_cell_attr=None):
    """mixed NAME_transform (3*size) + grumemory NAME."""
    with mixed_layer(name='%s_transform' % name, size=size * 3,
                     bias_attr=mixed_bias_attr,
                     layer_attr=mixed_layer_attr) as m:
        m += full_matrix_projection(input, param_attr=mixed_param_attr)
    return grumemory(name=name, input=m, reverse=reverse,
                     bias_attr=gru_bias_attr, param_attr=gru_param_attr,
                     act=act, gate_act=gate_act, layer_attr=gru_cell_attr)


def _prefixed(kwargs, prefix):
    return dict((k[len(prefix):], v) for k, v in kwargs.items()
                if k.startswith(prefix))


def _check_bidir_kwargs(kwargs, helper):
    for k in kwargs:
        if not (k.startswith('fwd_') or k.startswith('bwd_')):
            raise ConfigError("%s() got an unexpected keyword argument '%s'"
                              % (helper, k))


@wrap_name_default('bidirectional_lstm')
def bidirectional_lstm(input, size, name=None, return_seq=False,
                       last_seq_attr=None, first_seq_attr=None,
                       concat_attr=None, concat_act=None, **kwargs):
    """simple_lstm NAME_fw + reversed NAME_bw; concat of their last/first
    steps (or of the sequences with return_seq=True). fwd_*/bwd_* keywords
    go to the two simple_lstm calls."""
    _check_bidir_kwargs(kwargs, 'bidirectional_lstm')
    fw = simple_lstm(name='%s_fw' % name, input=input, size=size,
                     **_prefixed(kwargs, 'fwd_'))
    bw = simple_lstm(name='%s_bw' % name, input=input, size=size,
                     reverse=True, **_prefixed(kwargs, 'bwd_'))
    if return_seq:
        return concat_layer(name=name, input=[fw, bw],
                            layer_attr=concat_attr, act=concat_act)
    fw_seq = last_seq(name='%s_fw_last' % name, input=fw,
                      layer_attr=last_seq_attr)
    bw_seq = first_seq(name='%s_bw_last' % name, input=bw,
                       layer_attr=first_seq_attr)
    return concat_layer(name=name, input=[fw_seq, bw_seq],
                        layer_attr=concat_attr, act=concat_act)


@wrap_name_default('bidirectional_gru')
def bidirectional_gru(input, size, name=None, return_seq=False,
                      last_seq_attr=None, first_seq_attr=None,
                      concat_attr=None, concat_act=None, **kwargs):
    """simple_gru2 NAME_fw + reversed NAME_bw, as bidirectional_lstm."""
    _check_bidir_kwargs(kwargs, 'bidirectional_gru')
    fw = simple_gru2(name='%s_fw' % name, input=input, size=size,
                     **_prefixed(kwargs, 'fwd_'))
    bw = simple_gru2(name='%s_bw' % name, input=input, size=size,
                     reverse=True, **_prefixed(kwargs, 'bwd_'))
    if return_seq:
        return concat_layer(name=name, input=[fw, bw],
                            layer_attr=concat_attr, act=concat_act)
    fw_seq = last_seq(name='%s_fw_last' % name, input=fw,
                      layer_attr=last_seq_attr)
    bw_seq = first_seq(name='%s_bw_last' % name, input=bw,
                       layer_attr=first_seq_attr)
    return concat_layer(name=name, input=[fw_seq, bw_seq],
                        layer_attr=concat_attr, act=concat_act)


@wrap_name_default('simple_attention')
@wrap_act_default(param_names=['weight_act'], act=TanhActivation())
def simple_attention(encoded_sequence, encoded_proj, decoder_state,
                     transform_param_attr=None, softmax_param_attr=None,
                     weight_act=None, name=None):
    """Bahdanau attention: context vector for decoder_state."""
    if encoded_proj.size != decoder_state.size:
        raise ConfigError(
            'simple_attention: encoded_proj size %s != decoder_state size %s'
            % (encoded_proj.size, decoder_state.size))
    proj_size = encoded_proj.size
    with mixed_layer(size=proj_size, name='%s_transform' % name) as m:
        m += full_matrix_projection(decoder_state,
                                    param_attr=transform_param_attr)
    expanded = expand_layer(input=m, expand_as=encoded_sequence,
                            name='%s_expand' % name)
    with mixed_layer(size=proj_size, act=weight_act,
                     name='%s_combine' % name) as m:
        m += identity_projection(expanded)
        m += identity_projection(encoded_proj)
    attention_weight = fc_layer(input=m, size=1,
                                act=SequenceSoftmaxActivation(),
                                param_attr=softmax_param_attr,
                                name='%s_softmax' % name, bias_attr=False)
    scaled = scaling_layer(weight=attention_weight, input=encoded_sequence,
                           name='%s_scaling' % name)
    return pooling_layer(input=scaled, pooling_type=SumPooling(),
                         name='%s_pooling' % name)
