"""Recurrent layers and their step layers (RecurrentLayers.cpp)."""

from paddle.parser import ConfigError, Input, Layer

from ..activations import SigmoidActivation, TanhActivation
from ..default_decorators import (wrap_act_default, wrap_bias_attr_default, wrap_name_default,
                                  wrap_param_attr_default)
from ..layer_output import (DROPOUT, ERROR_CLIPPING, LayerOutput, LayerType, _bias, _check_act,
                            _check_input, _extra, layer_support)
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
def lstmemory(input, name=None, size=None, reverse=False, act=None,
              gate_act=None, state_act=None, bias_attr=None, param_attr=None,
              layer_attr=None):
    """LSTM over a sequence; input is the 4*size gate projection."""
    _check_input(input, 'input', 'lstmemory')
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
def grumemory(input, size=None, name=None, reverse=False, act=None,
              gate_act=None, bias_attr=None, param_attr=None,
              layer_attr=None):
    """GRU over a sequence; input is the 3*size projection."""
    _check_input(input, 'input', 'grumemory')
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
                    name=None, reverse=False, layer_attr=None):
    """h_t = act(x_t + W h_{t-1} + b)."""
    _check_input(input, 'input', 'recurrent_layer')
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
    """One LSTM step: input (4*size) + previous cell state -> output; the
    new state is the 'state' output (get_output_layer(arg_name='state'))."""
    _check_input(input, 'input', 'lstm_step_layer')
    _check_input(state, 'state', 'lstm_step_layer')
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
    """One GRU step: input (3*size) + previous output -> output."""
    _check_input(input, 'input', 'gru_step_layer')
    _check_input(output_mem, 'output_mem', 'gru_step_layer')
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
    """One GRU step built from mixed layers (v0.10), so that ExtraAttr
    dropout / error clipping apply. input holds [update | reset |
    candidate] pre-activations (3*size); output_mem is the previous output.

    Layers: NAME_update, NAME_reset (gates), NAME_reset_output
    (mem .* reset), NAME_output_candidate, and NAME =
    mem - mem .* update + candidate .* update."""
    _check_input(input, 'input', 'gru_step_naive_layer')
    _check_input(output_mem, 'output_mem', 'gru_step_naive_layer')
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
