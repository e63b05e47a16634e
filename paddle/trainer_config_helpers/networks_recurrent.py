"""The recurrent network helpers of the config language: LSTM and GRU networks
(whole-sequence layers or recurrent_group steps), their bidirectional forms and
simple_attention.

Part of ``networks`` (``from paddle.trainer_config_helpers import *`` and
``paddle.trainer_config_helpers.networks`` export every name here); kept in its own
module so that each file stays readable.
"""

from paddle.layer_specs import spec
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

# not reversed unless asked: the default of the layer each one builds (paddle/layer_specs)
_LSTM_REVERSE = spec('lstmemory').defaults['reverse']
_GROUP_REVERSE = spec('recurrent_layer_group').defaults['reverse']
_GRU_REVERSE = spec('gated_recurrent').defaults['reverse']


@wrap_name_default('lstm')
def simple_lstm(input, size, name=None, reverse=_LSTM_REVERSE, mat_param_attr=None,
                bias_param_attr=None, inner_param_attr=None, act=None,
                gate_act=None, state_act=None, mixed_layer_attr=None,
                lstm_cell_attr=None):
    """An LSTM over a sequence, with its input projection: the usual way to add an
    LSTM layer.

    Builds ``lstm_transform_<name>`` (a mixed_layer projecting each step of input
    to 4 * size, no bias) and ``<name>`` (lstmemory, a whole-sequence LSTM).

    The LSTM of v1 (with peephole connections p), for each time step t, where x_t
    is the step's 4 * size input and W the recurrent weights::

        a   = act(x_a + W_a h_{t-1})
        i   = gate_act(x_i + W_i h_{t-1} + p_i * c_{t-1})
        f   = gate_act(x_f + W_f h_{t-1} + p_f * c_{t-1})
        c_t = f * c_{t-1} + i * a
        o   = gate_act(x_o + W_o h_{t-1} + p_o * c_t)
        h_t = o * state_act(c_t)

    (each x part carries its bias; * is element-wise).

    Args:
        input (LayerOutput): the input sequence.
        size (int): the LSTM's size (hidden and cell width).
        name (str, optional): the lstmemory's name; default generated.
        reverse (bool, default False): run from the last step to the first.
        mat_param_attr (ParamAttr, optional): the input projection's weights.
        bias_param_attr (ParamAttr or bool, optional): the LSTM's bias (gates and
            peepholes, 7 * size values).
        inner_param_attr (ParamAttr, optional): the recurrent weights W.
        act (BaseActivation, optional): the input node's activation, default tanh.
        gate_act (BaseActivation, optional): the gates' activation, default sigmoid.
        state_act (BaseActivation, optional): the cell output's activation, default
            tanh.
        mixed_layer_attr (ExtraAttr, optional): the projection layer's extra
            attributes.
        lstm_cell_attr (ExtraAttr, optional): the lstmemory's extra attributes.

    Returns:
        LayerOutput: the LSTM output sequence (size ``size``).

    Example:
        >>> words = embedding_layer(input=data_layer(name='words', size=1000), size=32)
        >>> lstm = simple_lstm(input=words, size=64, name='enc')
        >>> lstm.name, lstm.size, lstm.layer_type
        ('enc', 64, 'lstmemory')
    """
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
    """One LSTM step for use inside a recurrent_group step function.

    Keeps the output ``<name>`` and the cell ``<name>_state`` as memories of the
    previous step; builds ``<name>_input_recurrent`` (a mixed_layer adding the
    step's input to the projected previous output) and ``<name>`` (lstm_step_layer,
    the same cell as lstmemory, see simple_lstm). The input must already be
    projected to 4 * size.

    Args:
        input (LayerOutput): the step's input, of size 4 * size.
        name (str, optional): the step layer's name (and its memory's); default
            generated.
        size (int, optional): the LSTM size; default input.size / 4.
        param_attr (ParamAttr, optional): the recurrent weights.
        act (BaseActivation, optional): the input node's activation, default tanh.
        gate_act (BaseActivation, optional): the gates' activation, default sigmoid.
        state_act (BaseActivation, optional): the cell output's activation; default
            sigmoid, as in v1's unit (lstmemory's default is tanh).
        mixed_bias_attr (ParamAttr or bool, optional): a bias of the input mixed layer.
        lstm_bias_attr (ParamAttr or bool, optional): the LSTM's bias.
        mixed_layer_attr (ExtraAttr, optional): the mixed layer's extra attributes.
        lstm_layer_attr (ExtraAttr, optional): the step layer's extra attributes.
        get_output_layer_attr (ExtraAttr, optional): the state layer's extra
            attributes.
        out_memory (LayerOutput, optional): a memory to use as the previous output
            instead of a new one (e.g. one booted from an encoder).

    Returns:
        LayerOutput: the step's output h_t (size ``size``).

    Raises:
        ConfigError: size not given and input.size not a multiple of 4.

    Example:
        >>> def step(x):
        ...     return lstmemory_unit(input=x, size=16, name='unit')
        >>> proj = fc_layer(input=data_layer(name='x', size=8), size=64, bias_attr=False)
        >>> out = recurrent_group(step=step, input=proj, name='rnn')
        >>> out.name, out.size
        ('unit', 16)
    """
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
def lstmemory_group(input, size=None, name=None, reverse=_GROUP_REVERSE,
                    param_attr=None, act=None, gate_act=None, state_act=None,
                    mixed_bias_attr=None, lstm_bias_attr=None,
                    mixed_layer_attr=None, lstm_layer_attr=None,
                    get_output_layer_attr=None):
    """An LSTM over a sequence built as a recurrent_group of lstmemory_unit steps.

    Computes what simple_lstm's lstmemory does (up to the default state_act, see
    lstmemory_unit), step by step: slower, but each step's layers can be
    inspected or extended. The group is named ``<name>_recurrent_group``; the input
    must already be projected to 4 * size.

    Args:
        input (LayerOutput): the input sequence, of size 4 * size.
        size (int, optional): the LSTM size; default input.size / 4.
        name (str, optional): the step layer's name; default generated.
        reverse (bool, default False): run from the last step to the first.
        param_attr (ParamAttr, optional): the recurrent weights.
        act (BaseActivation, optional): the input node's activation, default tanh.
        gate_act (BaseActivation, optional): the gates' activation, default sigmoid.
        state_act (BaseActivation, optional): the cell output's activation, default
            sigmoid (v1's unit).
        mixed_bias_attr (ParamAttr or bool, optional): a bias of the step's mixed layer.
        lstm_bias_attr (ParamAttr or bool, optional): the LSTM's bias.
        mixed_layer_attr (ExtraAttr, optional): the mixed layer's extra attributes.
        lstm_layer_attr (ExtraAttr, optional): the step layer's extra attributes.
        get_output_layer_attr (ExtraAttr, optional): the state layer's extra
            attributes.

    Returns:
        LayerOutput: the output sequence (size ``size``).

    Example:
        >>> proj = fc_layer(input=data_layer(name='x', size=8), size=4 * 16, bias_attr=False)
        >>> out = lstmemory_group(input=proj, size=16, name='lstm')
        >>> out.name, out.size
        ('lstm', 16)
    """

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
    """One GRU step for use inside a recurrent_group step function.

    Keeps the output ``<name>`` as a memory of the previous step and computes the
    step with gru_step_layer (the same cell as grumemory). The input must already
    be projected to 3 * size.

    The GRU of v1, for each time step t, where x_t is the step's 3 * size input
    (parts x_z, x_r, x_c) and U the recurrent weights::

        z   = gate_act(x_z + U_z h_{t-1})
        r   = gate_act(x_r + U_r h_{t-1})
        c   = act(x_c + U_c (r * h_{t-1}))
        h_t = (1 - z) * h_{t-1} + z * c

    Args:
        input (LayerOutput): the step's input, of size 3 * size.
        size (int, optional): the GRU size; default input.size / 3.
        name (str, optional): the step layer's name (and its memory's); default
            generated.
        gru_bias_attr (ParamAttr or bool, optional): the GRU's bias.
        gru_param_attr (ParamAttr, optional): the recurrent weights U.
        act (BaseActivation, optional): the candidate's activation, default tanh.
        gate_act (BaseActivation, optional): the gates' activation, default sigmoid.
        gru_layer_attr (ExtraAttr, optional): the step layer's extra attributes.
        naive (bool, default False): build the step from mixed layers
            (gru_step_naive_layer), which honours error_clipping_threshold.

    Returns:
        LayerOutput: the step's output h_t (size ``size``).

    Raises:
        ConfigError: input.size is not a multiple of 3.

    Example:
        >>> def step(x):
        ...     return gru_unit(input=x, size=16, name='unit')
        >>> proj = fc_layer(input=data_layer(name='x', size=8), size=48, bias_attr=False)
        >>> recurrent_group(step=step, input=proj, name='rnn').size
        16
    """
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
def gru_group(input, size=None, name=None, reverse=_GROUP_REVERSE, gru_bias_attr=None,
              gru_param_attr=None, act=None, gate_act=None,
              gru_layer_attr=None, naive=False):
    """A GRU over a sequence built as a recurrent_group of gru_unit steps (named
    ``<name>_recurrent_group``).

    Computes what grumemory does, step by step (see gru_unit for the equations);
    the input must already be projected to 3 * size.

    Args:
        input (LayerOutput): the input sequence, of size 3 * size.
        size (int, optional): the GRU size; default input.size / 3.
        name (str, optional): the step layer's name; default generated.
        reverse (bool, default False): run from the last step to the first.
        gru_bias_attr (ParamAttr or bool, optional): the GRU's bias.
        gru_param_attr (ParamAttr, optional): the recurrent weights.
        act (BaseActivation, optional): the candidate's activation, default tanh.
        gate_act (BaseActivation, optional): the gates' activation, default sigmoid.
        gru_layer_attr (ExtraAttr, optional): the step layer's extra attributes.
        naive (bool, default False): use gru_step_naive_layer steps.

    Returns:
        LayerOutput: the output sequence (size ``size``).

    Example:
        >>> proj = fc_layer(input=data_layer(name='x', size=8), size=3 * 16, bias_attr=False)
        >>> out = gru_group(input=proj, size=16, name='gru')
        >>> out.name, out.size
        ('gru', 16)
    """

    def step(ipt):
        return gru_unit(input=ipt, name=name, size=size,
                        gru_bias_attr=gru_bias_attr,
                        gru_param_attr=gru_param_attr, act=act,
                        gate_act=gate_act, gru_layer_attr=gru_layer_attr, naive=naive)

    return recurrent_group(name='%s_recurrent_group' % name, step=step,
                           reverse=reverse, input=input)


@wrap_name_default('simple_gru')
def simple_gru(input, size, name=None, reverse=_GROUP_REVERSE, mixed_param_attr=None,
               mixed_bias_param_attr=None, mixed_layer_attr=None,
               gru_bias_attr=None, gru_param_attr=None, act=None,
               gate_act=None, gru_layer_attr=None, naive=False):
    """A GRU over a sequence with its input projection, built as a recurrent_group.

    Builds ``<name>_transform`` (a mixed_layer projecting the input to 3 * size)
    and gru_group ``<name>``. simple_gru2 computes the same with the faster
    whole-sequence grumemory; see gru_unit for the equations.

    Args:
        input (LayerOutput): the input sequence.
        size (int): the GRU size.
        name (str, optional): the GRU's name; default generated.
        reverse (bool, default False): run from the last step to the first.
        mixed_param_attr (ParamAttr, optional): the projection's weights.
        mixed_bias_param_attr (ParamAttr or bool, optional): a bias of the
            projection (default none).
        mixed_layer_attr (ExtraAttr, optional): the projection's extra attributes.
        gru_bias_attr (ParamAttr or bool, optional): the GRU's bias.
        gru_param_attr (ParamAttr, optional): the recurrent weights.
        act (BaseActivation, optional): the candidate's activation, default tanh.
        gate_act (BaseActivation, optional): the gates' activation, default sigmoid.
        gru_layer_attr (ExtraAttr, optional): the step layer's extra attributes.
        naive (bool, default False): use gru_step_naive_layer steps.

    Returns:
        LayerOutput: the output sequence (size ``size``).

    Example:
        >>> words = embedding_layer(input=data_layer(name='words', size=1000), size=32)
        >>> gru = simple_gru(input=words, size=64, name='gru')
        >>> gru.name, gru.size
        ('gru', 64)
    """
    with mixed_layer(name='%s_transform' % name, size=size * 3,
                     bias_attr=mixed_bias_param_attr,
                     layer_attr=mixed_layer_attr) as m:
        m += full_matrix_projection(input=input, param_attr=mixed_param_attr)
    return gru_group(name=name, size=size, input=m, reverse=reverse,
                     gru_bias_attr=gru_bias_attr,
                     gru_param_attr=gru_param_attr, act=act,
                     gate_act=gate_act, gru_layer_attr=gru_layer_attr, naive=naive)


@wrap_name_default('simple_gru2')
def simple_gru2(input, size, name=None, reverse=_GRU_REVERSE,
                mixed_param_attr=None, mixed_bias_attr=None,
                gru_param_attr=None, gru_bias_attr=None, act=None,
                gate_act=None, mixed_layer_attr=None, gru_cell_attr=None):
    """A GRU over a sequence with its input projection, as whole-sequence layers.

    Builds ``<name>_transform`` (a mixed_layer projecting the input to 3 * size)
    and ``<name>`` (grumemory). Same result as simple_gru, faster; see gru_unit
    for the equations.

    Args:
        input (LayerOutput): the input sequence.
        size (int): the GRU size.
        name (str, optional): the grumemory's name; default generated.
        reverse (bool, default False): run from the last step to the first.
        mixed_param_attr (ParamAttr, optional): the projection's weights.
        mixed_bias_attr (ParamAttr or bool, optional): a bias of the projection
            (default none).
        gru_param_attr (ParamAttr, optional): the recurrent weights.
        gru_bias_attr (ParamAttr or bool, optional): the GRU's bias.
        act (BaseActivation, optional): the candidate's activation, default tanh.
        gate_act (BaseActivation, optional): the gates' activation, default sigmoid.
        mixed_layer_attr (ExtraAttr, optional): the projection's extra attributes.
        gru_cell_attr (ExtraAttr, optional): the grumemory's extra attributes.

    Returns:
        LayerOutput: the output sequence (size ``size``).

    Example:
        >>> words = embedding_layer(input=data_layer(name='words', size=1000), size=32)
        >>> gru = simple_gru2(input=words, size=64, name='gru')
        >>> gru.name, gru.size, gru.layer_type
        ('gru', 64, 'gated_recurrent')
    """
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
    """A bidirectional LSTM: one simple_lstm forward (``<name>_fw``) and one in
    reverse (``<name>_bw``), concatenated.

    By default the result is one vector per sequence: the forward LSTM's last step
    (``<name>_fw_last``) next to the backward LSTM's first step (``<name>_bw_last``),
    each having read the whole sequence. With return_seq=True it is the sequence of
    both outputs at every step.

    Args:
        input (LayerOutput): the input sequence.
        size (int): the size of each direction.
        name (str, optional): the concat layer's name and the prefix of the others;
            default generated.
        return_seq (bool, default False): return the two output sequences
            concatenated step by step instead of the two end vectors.
        last_seq_attr (ExtraAttr, optional): the forward last_seq's extra attributes.
        first_seq_attr (ExtraAttr, optional): the backward first_seq's extra
            attributes.
        concat_attr (ExtraAttr, optional): the concat layer's extra attributes.
        concat_act (BaseActivation, optional): the concat layer's activation
            (default the identity).
        **kwargs: arguments of the two simple_lstm calls, prefixed ``fwd_`` (forward)
            or ``bwd_`` (backward), e.g. ``fwd_act=ReluActivation()``; any other
            keyword is an error.

    Returns:
        LayerOutput: the concat layer, of size 2 * size.

    Example:
        >>> words = embedding_layer(input=data_layer(name='words', size=1000), size=32)
        >>> both = bidirectional_lstm(input=words, size=64, name='bi')
        >>> both.name, both.size, [p.name for p in both.parents]
        ('bi', 128, ['bi_fw_last', 'bi_bw_last'])
    """
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
    """A bidirectional GRU: one simple_gru2 forward (``<name>_fw``) and one in
    reverse (``<name>_bw``), concatenated as bidirectional_lstm does (end vectors by
    default, whole sequences with return_seq=True).

    Args:
        input (LayerOutput): the input sequence.
        size (int): the size of each direction.
        name (str, optional): the concat layer's name and the prefix of the others;
            default generated.
        return_seq (bool, default False): return the two output sequences
            concatenated step by step instead of the two end vectors.
        last_seq_attr (ExtraAttr, optional): the forward last_seq's extra attributes.
        first_seq_attr (ExtraAttr, optional): the backward first_seq's extra
            attributes.
        concat_attr (ExtraAttr, optional): the concat layer's extra attributes.
        concat_act (BaseActivation, optional): the concat layer's activation
            (default the identity).
        **kwargs: arguments of the two simple_gru2 calls, prefixed ``fwd_`` (forward)
            or ``bwd_`` (backward), e.g. ``fwd_act=ReluActivation()``; any other
            keyword is an error.

    Returns:
        LayerOutput: the concat layer, of size 2 * size.

    Example:
        >>> words = embedding_layer(input=data_layer(name='words', size=1000), size=32)
        >>> seq = bidirectional_gru(input=words, size=64, return_seq=True, name='enc')
        >>> seq.size, [p.name for p in seq.parents]
        (128, ['enc_fw', 'enc_bw'])
    """
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
    """Additive (Bahdanau) attention: the context vector of an encoded sequence for
    the current decoder state, for use inside a recurrent_group decoder step.

    With h_j the encoded sequence, e_j its projection and s the decoder state::

        a_j     = softmax_j( w . weight_act(U s + e_j) )
        context = sum_j a_j h_j

    Builds ``<name>_transform`` (U s), ``<name>_expand`` (repeated over the
    sequence), ``<name>_combine`` (added to e_j, then weight_act),
    ``<name>_softmax`` (w ., a sequence softmax), ``<name>_scaling`` and
    ``<name>_pooling`` (the weighted sum). In the step function, the encoder's
    sequences come in as StaticInput(..., is_seq=True).

    Args:
        encoded_sequence (LayerOutput): the encoder's output sequence h.
        encoded_proj (LayerOutput): its projection e, of the decoder state's size
            (computed once outside the decoder, e.g. an fc_layer without bias).
        decoder_state (LayerOutput): the decoder's state s (usually the memory of
            its previous output).
        transform_param_attr (ParamAttr, optional): the weights U.
        softmax_param_attr (ParamAttr, optional): the weights w.
        weight_act (BaseActivation, optional): the activation in the score, default
            tanh.
        name (str, optional): the prefix of the layers' names; default generated.

    Returns:
        LayerOutput: the context vector (size of encoded_sequence).

    Raises:
        ConfigError: encoded_proj and decoder_state differ in size.

    Example:
        >>> src = embedding_layer(input=data_layer(name='src', size=1000), size=16)
        >>> enc = bidirectional_gru(input=src, size=16, return_seq=True)
        >>> enc_proj = fc_layer(input=enc, size=8, act=IdentityActivation(), bias_attr=False)
        >>> def step(enc, enc_proj, word):
        ...     state = memory(name='dec', size=8)
        ...     context = simple_attention(encoded_sequence=enc, encoded_proj=enc_proj,
        ...                                decoder_state=state, name='att')
        ...     return fc_layer(input=[context, word], size=8, name='dec')
        >>> trg = embedding_layer(input=data_layer(name='trg', size=1000), size=16)
        >>> dec = recurrent_group(step=step, name='decoder', input=[
        ...     StaticInput(enc, is_seq=True), StaticInput(enc_proj, is_seq=True), trg])
        >>> dec.size
        8
    """
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
