"""Recurrent layers and their step layers (RecurrentLayers.cpp)."""

from paddle.layer_specs import spec
from paddle.parser import ConfigError, Input, Layer

from ..activations import SigmoidActivation, TanhActivation
from ..default_decorators import (wrap_act_default, wrap_bias_attr_default, wrap_name_default,
                                  wrap_param_attr_default)
from ..layer_output import (DROPOUT, ERROR_CLIPPING, LayerOutput, LayerType, _bias, _check_act,
                            _check_layer_args, _extra, layer_support)
from .projections import dotmul_operator, full_matrix_projection, identity_projection
from .basic import mixed_layer


__all__ = [
    'lstmemory', 'grumemory', 'recurrent_layer', 'lstm_step_layer', 'gru_step_layer',
    'gru_step_naive_layer'
]

def _check_hppl(act, what, helper):
    _check_act(act, helper)
    if not act.support_hppl:
        raise ConfigError('%s: %s must be tanh, sigmoid, relu or linear, got '
                          '%s' % (helper, what, act.name or 'linear'))


@wrap_bias_attr_default()
@wrap_param_attr_default()
@wrap_act_default(param_names=['gate_act'], act=SigmoidActivation())
@wrap_act_default(param_names=['state_act'], act=TanhActivation())
@wrap_act_default(act=TanhActivation())
@wrap_name_default('lstmemory')
@layer_support(DROPOUT)
def lstmemory(input, name=None, size=None, reverse=spec('lstmemory').defaults['reverse'], act=None,
              gate_act=None, state_act=None, bias_attr=None, param_attr=None,
              layer_attr=None):
    """LSTM (with peephole connections) over whole sequences.

    The input is the ``4 * size`` wide projection of the sequence, laid out as
    ``[a | i | f | o]`` (candidate, input, forget and output gate pre-activations),
    usually a mixed_layer of ``size * 4`` with a full_matrix_projection. For each step
    (``c`` the cell, ``h`` the output, ``W`` the ``[size, size, 4]`` recurrent weight,
    ``p_*`` the peepholes)::

        [a, i, f, o] = x_t + h_{t-1} W + b
        i = gate_act(i + p_i * c_{t-1});  f = gate_act(f + p_f * c_{t-1})
        c_t = act(a) * i + c_{t-1} * f
        o = gate_act(o + p_o * c_t);      h_t = o * state_act(c_t)

    The output is a sequence with the input's boundaries, ``size`` wide; each
    sequence starts from zero state. ``reverse=True`` runs every sequence from its
    last step to its first. The bias has ``7 * size`` values (4 gate biases and the 3
    peepholes). Activations must be tanh, sigmoid, relu or linear. Creates an engine
    layer of type ``lstmemory``.

    Args:
        input (LayerOutput): the ``4 * size`` gate projection of a sequence.
        name (str, optional): layer name; ``__lstmemory_N__`` when omitted.
        size (int, optional): hidden width; must equal ``input.size / 4`` (it is
            inferred from the input).
        reverse (bool, default False): process each sequence backwards.
        act (BaseActivation, optional): activation of the candidate ``a``,
            ``TanhActivation()`` when omitted.
        gate_act (BaseActivation, optional): gate activation,
            ``SigmoidActivation()`` when omitted.
        state_act (BaseActivation, optional): activation of the cell on output,
            ``TanhActivation()`` when omitted.
        bias_attr (ParameterAttribute | bool, optional): bias and peephole
            attributes; False for none.
        param_attr (ParameterAttribute, optional): attributes of the recurrent ``W``.
        layer_attr (ExtraLayerAttribute, optional): extra settings (``drop_rate``,
            ``device``).

    Returns:
        LayerOutput: the hidden sequence, ``input.size / 4`` wide.

    Example:
        >>> emb = embedding_layer(input=data_layer(name='w', size=1000), size=32)
        >>> gates = mixed_layer(size=4 * 64, input=[full_matrix_projection(input=emb)])
        >>> lstm = lstmemory(input=gates, reverse=True)
        >>> lstm.size, lstm.layer_type
        (64, 'lstmemory')
    """
    _check_layer_args('lstmemory', locals())
    for what, a in (('act', act), ('gate_act', gate_act),
                    ('state_act', state_act)):
        _check_hppl(a, what, 'lstmemory')
    if input.size is None or input.size % 4 != 0:
        raise ConfigError(
            "lstmemory: input '%s' has size %s, which is not a multiple of 4 "
            "(feed it a 4*size projection, e.g. mixed_layer(size=4*size))" %
            (input.name, input.size))
    if size is not None and input.size // 4 != size:
        raise ConfigError(
            'lstmemory: size=%d does not match input size %d / 4 = %d' %
            (size, input.size, input.size // 4))
    Layer(
        name=name,
        type=LayerType.LSTMEMORY,
        active_type=act.name,
        active_state_type=state_act.name,
        active_gate_type=gate_act.name,
        reversed=reverse,
        bias=_bias(bias_attr),
        inputs=[Input(input.name, **param_attr.attr)],
        **_extra(layer_attr))
    return LayerOutput(name, LayerType.LSTMEMORY, [input],
                       size=input.size // 4, reverse=reverse, activation=act)


@wrap_bias_attr_default()
@wrap_param_attr_default()
@wrap_act_default(param_names=['gate_act'], act=SigmoidActivation())
@wrap_act_default(act=TanhActivation())
@wrap_name_default('gru')
@layer_support(DROPOUT)
def grumemory(input, size=None, name=None, reverse=spec('gated_recurrent').defaults['reverse'], act=None,
              gate_act=None, bias_attr=None, param_attr=None,
              layer_attr=None):
    """GRU (gated recurrent unit) over whole sequences.

    The input is the ``3 * size`` wide projection ``[z | r | c]`` (update gate,
    reset gate and candidate pre-activations), usually a mixed_layer of ``size * 3``.
    For each step, with ``W_zr`` (``[size, 2 * size]``) and ``W_c`` (``[size, size]``)
    the recurrent weights (stored together as ``[size, 3 * size]``)::

        z = gate_act(x_z + h_{t-1} W_z + b_z);  r = gate_act(x_r + h_{t-1} W_r + b_r)
        c = act(x_c + (r * h_{t-1}) W_c + b_c)
        h_t = (1 - z) * h_{t-1} + z * c

    The output is a sequence with the input's boundaries, ``size`` wide; each
    sequence starts from zero state, or runs backwards with ``reverse=True``.
    Activations must be tanh, sigmoid, relu or linear. Creates an engine layer of
    type ``gated_recurrent``.

    Args:
        input (LayerOutput): the ``3 * size`` projection of a sequence.
        size (int, optional): hidden width; must equal ``input.size / 3``.
        name (str, optional): layer name; ``__gru_N__`` when omitted.
        reverse (bool, default False): process each sequence backwards.
        act (BaseActivation, optional): candidate activation,
            ``TanhActivation()`` when omitted.
        gate_act (BaseActivation, optional): gate activation,
            ``SigmoidActivation()`` when omitted.
        bias_attr (ParameterAttribute | bool, optional): bias (``3 * size``);
            False for none.
        param_attr (ParameterAttribute, optional): recurrent weight attributes.
        layer_attr (ExtraLayerAttribute, optional): extra settings (``drop_rate``,
            ``device``).

    Returns:
        LayerOutput: the hidden sequence, ``input.size / 3`` wide.

    Example:
        >>> emb = embedding_layer(input=data_layer(name='w', size=1000), size=32)
        >>> proj = mixed_layer(size=3 * 48, input=[full_matrix_projection(input=emb)])
        >>> gru = grumemory(input=proj)
        >>> gru.size, gru.layer_type
        (48, 'gated_recurrent')
    """
    _check_layer_args('grumemory', locals())
    _check_hppl(act, 'act', 'grumemory')
    _check_hppl(gate_act, 'gate_act', 'grumemory')
    if input.size is None or input.size % 3 != 0:
        raise ConfigError(
            "grumemory: input '%s' has size %s, which is not a multiple of 3 "
            "(feed it a 3*size projection)" % (input.name, input.size))
    if size is not None and input.size // 3 != size:
        raise ConfigError(
            'grumemory: size=%d does not match input size %d / 3 = %d' %
            (size, input.size, input.size // 3))
    Layer(
        name=name,
        type=LayerType.GRUMEMORY,
        active_type=act.name,
        active_gate_type=gate_act.name,
        reversed=reverse,
        bias=_bias(bias_attr),
        inputs=[Input(input.name, **param_attr.attr)],
        **_extra(layer_attr))
    return LayerOutput(name, LayerType.GRUMEMORY, [input],
                       size=input.size // 3, reverse=reverse, activation=act)


@wrap_name_default()
@wrap_param_attr_default()
@wrap_bias_attr_default()
@wrap_act_default(act=TanhActivation())
@layer_support(DROPOUT)
def recurrent_layer(input, act=None, bias_attr=None, param_attr=None,
                    name=None, reverse=spec('recurrent').defaults['reverse'], layer_attr=None):
    """Simple (Elman) recurrent layer: ``h_t = act(x_t + h_{t-1} W + b)``.

    ``W`` is ``[n, n]`` with ``n = input.size``: the input is already projected (to
    the hidden width), and the output has the input's width and sequence boundaries.
    Each sequence starts from ``h = 0``; ``reverse=True`` runs it backwards. Creates
    an engine layer of type ``recurrent``.

    Args:
        input (LayerOutput): a sequence, the hidden width wide.
        act (BaseActivation, optional): activation, ``TanhActivation()`` when
            omitted.
        bias_attr (ParameterAttribute | bool, optional): bias; False for none.
        param_attr (ParameterAttribute, optional): attributes of ``W``.
        name (str, optional): layer name; ``__recurrent_layer_N__`` when omitted.
        reverse (bool, default False): process each sequence backwards.
        layer_attr (ExtraLayerAttribute, optional): extra settings (``drop_rate``,
            ``device``).

    Returns:
        LayerOutput: the hidden sequence, ``input.size`` wide.

    Example:
        >>> seq = data_layer(name='seq', size=20)
        >>> rnn = recurrent_layer(input=fc_layer(input=seq, size=32))
        >>> rnn.size
        32
    """
    _check_layer_args('recurrent_layer', locals())
    Layer(
        name=name,
        type=LayerType.RECURRENT_LAYER,
        inputs=Input(input.name, **param_attr.attr),
        active_type=act.name,
        bias=_bias(bias_attr),
        reversed=reverse,
        **_extra(layer_attr))
    return LayerOutput(name, LayerType.RECURRENT_LAYER, parents=[input],
                       size=input.size, activation=act, reverse=reverse)


@wrap_bias_attr_default()
@wrap_act_default(param_names=['gate_act'], act=SigmoidActivation())
@wrap_act_default(param_names=['state_act'], act=SigmoidActivation())
@wrap_act_default(act=TanhActivation())
@wrap_name_default('lstm_step')
@layer_support()
def lstm_step_layer(input, state, size=None, act=None, name=None,
                    gate_act=None, state_act=None, bias_attr=None,
                    layer_attr=None):
    """One LSTM step, for building an LSTM by hand inside a recurrent_group.

    ``input`` is this step's ``4 * size`` gate pre-activation ``[a | i | f | o]``,
    which must already include the recurrent term (e.g. a mixed_layer adding a
    projection of the previous output, read from a memory); ``state`` is the previous
    cell state (a memory of this layer's ``state`` output). It computes the
    lstmemory cell (see lstmemory) with its own bias and peepholes (``3 * size``
    values). Its default output is ``h_t``; its second output, ``state``, is the new
    cell ``c_t``: read it with ``get_output_layer(input=..., arg_name='state')``.
    Creates an engine layer of type ``lstm_step``.

    Args:
        input (LayerOutput): the ``4 * size`` gate pre-activations.
        state (LayerOutput): the previous cell state, ``size`` wide.
        size (int, optional): hidden width; ``state.size`` when omitted.
        act (BaseActivation, optional): candidate activation,
            ``TanhActivation()`` when omitted.
        name (str, optional): layer name; ``__lstm_step_N__`` when omitted.
        gate_act (BaseActivation, optional): gate activation,
            ``SigmoidActivation()`` when omitted.
        state_act (BaseActivation, optional): activation of the cell on output,
            ``SigmoidActivation()`` when omitted (v1's default here; lstmemory's
            is tanh).
        bias_attr (ParameterAttribute | bool, optional): peephole/bias attributes.
        layer_attr (ExtraLayerAttribute, optional): extra settings (``device``).

    Returns:
        LayerOutput: the step's output ``h_t``, ``size`` wide, with a second output
        named ``state``.

    Example:
        >>> x = data_layer(name='x', size=4 * 16)
        >>> cell = data_layer(name='prev_cell', size=16)
        >>> step = lstm_step_layer(input=x, state=cell)
        >>> step.size, step.outputs
        (16, ['default', 'state'])
    """
    _check_layer_args('lstm_step_layer', locals())
    if size is None:
        size = state.size
    Layer(
        name=name,
        type=LayerType.LSTM_STEP_LAYER,
        active_type=act.name,
        active_gate_type=gate_act.name,
        active_state_type=state_act.name,
        bias=_bias(bias_attr),
        size=size,
        inputs=[input.name, state.name],
        **_extra(layer_attr))
    return LayerOutput(name=name, layer_type=LayerType.LSTM_STEP_LAYER,
                       parents=[input, state], activation=act, size=size,
                       outputs=['default', 'state'])


@wrap_bias_attr_default()
@wrap_param_attr_default()
@wrap_act_default(param_names=['gate_act'], act=SigmoidActivation())
@wrap_act_default(act=TanhActivation())
@wrap_name_default('gru_step')
@layer_support()
def gru_step_layer(input, output_mem, size=None, act=None, name=None,
                   gate_act=None, bias_attr=None, param_attr=None,
                   layer_attr=None):
    """One GRU step, for building a GRU by hand inside a recurrent_group.

    ``input`` is this step's ``3 * size`` projection ``[z | r | c]`` and
    ``output_mem`` the previous output (a memory of this layer). It computes the
    grumemory step (see grumemory), with its own recurrent weight
    (``[size, 3 * size]``) and bias. Creates an engine layer of type ``gru_step``.

    Args:
        input (LayerOutput): the ``3 * size`` projection of this step.
        output_mem (LayerOutput): the previous output, ``size`` wide.
        size (int, optional): hidden width; ``input.size / 3`` when omitted.
        act (BaseActivation, optional): candidate activation,
            ``TanhActivation()`` when omitted.
        name (str, optional): layer name; ``__gru_step_N__`` when omitted.
        gate_act (BaseActivation, optional): gate activation,
            ``SigmoidActivation()`` when omitted.
        bias_attr (ParameterAttribute | bool, optional): bias attributes.
        param_attr (ParameterAttribute, optional): recurrent weight attributes.
        layer_attr (ExtraLayerAttribute, optional): extra settings (``device``).

    Returns:
        LayerOutput: the new output ``h_t``, ``size`` wide.

    Example:
        >>> def step(x):
        ...     prev = memory(name='gru_out', size=16)
        ...     return gru_step_layer(name='gru_out', input=x, output_mem=prev)
        >>> seq = data_layer(name='seq', size=3 * 16)
        >>> recurrent_group(step=step, input=seq).size
        16
    """
    _check_layer_args('gru_step_layer', locals())
    if size is None:
        size = input.size // 3
    Layer(
        name=name,
        type=LayerType.GRU_STEP_LAYER,
        inputs=[Input(input.name, **param_attr.attr), output_mem.name],
        bias=_bias(bias_attr),
        size=size,
        active_type=act.name,
        active_gate_type=gate_act.name,
        **_extra(layer_attr))
    return LayerOutput(name=name, layer_type=LayerType.GRU_STEP_LAYER,
                       parents=[input, output_mem], size=size, activation=act)


@wrap_bias_attr_default()
@wrap_param_attr_default()
@wrap_act_default(param_names=['gate_act'], act=SigmoidActivation())
@wrap_act_default(act=TanhActivation())
@wrap_name_default('gru_step_naive')
@layer_support(ERROR_CLIPPING, DROPOUT)
def gru_step_naive_layer(input, output_mem, size=None, name=None, act=None,
                         gate_act=None, bias_attr=None, param_attr=None,
                         layer_attr=None):
    """One GRU step built from mixed layers (v0.10), so ExtraAttr dropout and error
    clipping can apply to its parts.

    Computes what gru_step_layer computes, as separate layers named after ``name``:
    ``NAME_update`` and ``NAME_reset`` (the gates), ``NAME_reset_output``
    (``h_{t-1} * r``), ``NAME_output_candidate`` and ``NAME`` itself,
    ``h_{t-1} - h_{t-1} * z + c * z``. ``input`` holds ``[z | r | c]``
    pre-activations (``3 * size``); the two gates and the candidate each have their
    own weight on the previous output (all created from ``param_attr``) and bias.

    Args:
        input (LayerOutput): the ``3 * size`` projection of this step.
        output_mem (LayerOutput): the previous output, ``size`` wide.
        size (int, optional): hidden width; ``input.size / 3`` when omitted.
        name (str, optional): name of the output layer and prefix of the parts;
            ``__gru_step_naive_N__`` when omitted.
        act (BaseActivation, optional): candidate activation,
            ``TanhActivation()`` when omitted.
        gate_act (BaseActivation, optional): gate activation,
            ``SigmoidActivation()`` when omitted.
        bias_attr (ParameterAttribute | bool, optional): bias of the gates and the
            candidate.
        param_attr (ParameterAttribute, optional): attributes of the recurrent
            weights.
        layer_attr (ExtraLayerAttribute, optional): extra settings of the gates and
            the candidate (``drop_rate``, ``error_clipping_threshold``, ``device``).

    Returns:
        LayerOutput: the new output ``h_t`` (a mixed layer), ``size`` wide.

    Example:
        >>> def step(x):
        ...     prev = memory(name='gru_out', size=16)
        ...     return gru_step_naive_layer(name='gru_out', input=x, output_mem=prev)
        >>> seq = data_layer(name='seq', size=3 * 16)
        >>> recurrent_group(step=step, input=seq).size
        16
    """
    _check_layer_args('gru_step_naive_layer', locals())
    if input.size is None or input.size % 3 != 0:
        raise ConfigError("gru_step_naive_layer: input '%s' has size %s, "
                          "which is not a multiple of 3" %
                          (input.name, input.size))
    if size is None:
        size = input.size // 3

    def gate(suffix, offset):
        with mixed_layer(name='%s_%s' % (name, suffix), size=size,
                         layer_attr=layer_attr, bias_attr=bias_attr,
                         act=gate_act) as g:
            g += identity_projection(input=input, offset=offset)
            g += full_matrix_projection(input=output_mem,
                                        param_attr=param_attr)
        return g

    update_gate = gate('update', 0)
    reset_gate = gate('reset', size)
    with mixed_layer(name=name + '_reset_output',
                     bias_attr=False) as reset_output:
        reset_output += dotmul_operator(a=output_mem, b=reset_gate)
    with mixed_layer(name=name + '_output_candidate', size=size,
                     layer_attr=layer_attr, bias_attr=bias_attr,
                     act=act) as candidate:
        candidate += identity_projection(input=input, offset=2 * size)
        candidate += full_matrix_projection(input=reset_output,
                                            param_attr=param_attr)
    with mixed_layer(name=name) as output:
        output += identity_projection(output_mem)
        output += dotmul_operator(a=output_mem, b=update_gate, scale=-1.0)
        output += dotmul_operator(a=candidate, b=update_gate)
    return output
