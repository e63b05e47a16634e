"""Data, fully connected, mixed, embedding, addto and concat layers (the engine's
DataLayer.cpp, FullyConnectedLayer.cpp, MixedLayer.cpp)."""

import copy
import paddle.parser as cp

from paddle.parser import ConfigError, Input, Layer, config_assert

from ..activations import IdentityActivation, LinearActivation
from ..default_decorators import (wrap_act_default, wrap_bias_attr_default, wrap_name_default,
                                  wrap_param_attr_default)
from ..layer_output import (DROPOUT, ERROR_CLIPPING, LayerOutput, LayerType, _bias, _check_act,
                            _check_input, _check_input_list, _check_param_attr, _extra,
                            _size_arg, _type_desc, layer_support)
from .projections import table_projection


__all__ = [
    'data_layer', 'fc_layer', 'selective_fc_layer', 'trans_layer', 'cos_sim',
    'sum_to_one_norm_layer', 'MixedLayerType', 'mixed_layer', 'embedding_layer', 'addto_layer',
    'concat_layer'
]

@wrap_name_default('data')
@layer_support()
def data_layer(name, size, height=None, width=None, layer_attr=None):
    """Input slot of the network; the data provider feeds it."""
    size = _size_arg(size, 'data_layer')
    Layer(
        type=LayerType.DATA,
        name=name,
        size=size,
        height=height,
        width=width,
        **_extra(layer_attr))
    return LayerOutput(name, LayerType.DATA, size=size)


@wrap_name_default()
@wrap_param_attr_default()
@wrap_bias_attr_default()
@wrap_act_default()
@layer_support(ERROR_CLIPPING, DROPOUT)
def fc_layer(input,
             size,
             act=None,
             name=None,
             param_attr=None,
             bias_attr=None,
             layer_attr=None):
    """Fully connected: act(sum_i x_i W_i + b); W_i has dims [in_i, size]."""
    inputs = _check_input_list(input, 'fc_layer')
    size = _size_arg(size, 'fc_layer')
    _check_act(act, 'fc_layer')
    if isinstance(param_attr, (list, tuple)):
        if len(param_attr) != len(inputs):
            raise ConfigError('fc_layer: %d param_attr given for %d inputs' %
                              (len(param_attr), len(inputs)))
        attrs = list(param_attr)
    else:
        attrs = [copy.deepcopy(param_attr) for _ in inputs]
    for a in attrs:
        _check_param_attr(a, 'fc_layer')
    Layer(
        inputs=[Input(ipt.name, **attr.attr)
                for ipt, attr in zip(inputs, attrs)],
        name=name,
        type=LayerType.FC_LAYER,
        size=size,
        bias=_bias(bias_attr),
        active_type=act.name,
        **_extra(layer_attr))
    return LayerOutput(
        name, LayerType.FC_LAYER, inputs, activation=act, size=size)


@wrap_name_default()
@wrap_param_attr_default()
@wrap_bias_attr_default()
@wrap_act_default()
@layer_support(ERROR_CLIPPING, DROPOUT)
def selective_fc_layer(input,
                       size,
                       select=None,
                       act=None,
                       name=None,
                       pass_generation=False,
                       has_selected_colums=True,
                       mul_ratio=0.02,
                       param_attr=None,
                       bias_attr=None,
                       layer_attr=None):
    """fc that computes only the output columns flagged by `select`."""
    inputs = _check_input_list(input, 'selective_fc_layer')
    size = _size_arg(size, 'selective_fc_layer')
    if select is not None:
        _check_input(select, 'select', 'selective_fc_layer')
    if isinstance(param_attr, (list, tuple)):
        attrs = list(param_attr)
    else:
        attrs = [copy.deepcopy(param_attr) for _ in inputs]
    layer_inputs = [Input(ipt.name, **a.attr) for ipt, a in zip(inputs, attrs)]
    parents = list(inputs)
    if select is not None:
        layer_inputs.append(select.name)
        parents.append(select)
    Layer(
        inputs=layer_inputs,
        name=name,
        type=LayerType.SEL_FC_LAYER,
        size=size,
        bias=_bias(bias_attr),
        active_type=act.name,
        selective_fc_pass_generation=pass_generation,
        has_selected_colums=has_selected_colums,
        selective_fc_full_mul_ratio=mul_ratio,
        **_extra(layer_attr))
    return LayerOutput(
        name, LayerType.SEL_FC_LAYER, parents, activation=act, size=size)


@wrap_name_default()
@layer_support()
def trans_layer(input, name=None, layer_attr=None):
    """Transpose of the batch matrix."""
    _check_input(input, 'input', 'trans_layer')
    Layer(
        name=name,
        type=LayerType.TRANS_LAYER,
        inputs=[input.name],
        **_extra(layer_attr))
    return LayerOutput(name, LayerType.TRANS_LAYER, [input], size=input.size)


@wrap_name_default()
@layer_support()
def sum_to_one_norm_layer(input, name=None, layer_attr=None):
    _check_input(input, 'input', 'sum_to_one_norm_layer')
    Layer(
        name=name,
        type=LayerType.SUM_TO_ONE_NORM_LAYER,
        inputs=[input.name],
        **_extra(layer_attr))
    return LayerOutput(
        name, LayerType.SUM_TO_ONE_NORM_LAYER, [input], size=input.size)


@wrap_name_default()
@layer_support()
def cos_sim(a, b, scale=1, size=1, name=None, layer_attr=None):
    """scale * cos(a, b); with size > 1, b holds `size` vectors of |a|."""
    _check_input(a, 'a', 'cos_sim')
    _check_input(b, 'b', 'cos_sim')
    if size == 1:
        Layer(
            name=name,
            type=LayerType.COSINE_SIM,
            cos_scale=scale,
            inputs=[a.name, b.name],
            **_extra(layer_attr))
    else:
        if a.size is not None and b.size is not None:
            config_assert(size == b.size // a.size,
                          'cos_sim: size must be b.size / a.size = %d' %
                          (b.size // a.size))
        Layer(
            name=name,
            type=LayerType.COSINE_SIM_VEC,
            size=size,
            cos_scale=scale,
            inputs=[a.name, b.name],
            **_extra(layer_attr))
    return LayerOutput(name, LayerType.COSINE_SIM, parents=[a, b], size=size)


class MixedLayerType(LayerOutput):
    """A mixed layer being built: `m += projection` inside `with`."""

    class AddToSealedMixedLayerException(ConfigError):
        def __init__(self):
            ConfigError.__init__(
                self, 'cannot add inputs to a mixed_layer after its '
                '"with" block has ended')

    def __init__(self, name, size, act, bias_attr, layer_attr, parents=None):
        LayerOutput.__init__(
            self, name, LayerType.MIXED_LAYER, parents, size=size,
            activation=act)
        self.bias_attr = bias_attr
        self.layer_attr = layer_attr
        self.inputs = []
        self.finalized = False

    def __iadd__(self, other):
        if self.finalized:
            raise MixedLayerType.AddToSealedMixedLayerException()
        if isinstance(other, cp.Projection):
            self.inputs.append(other)
            self.parents.append(other.origin)
        elif isinstance(other, cp.Operator):
            self.inputs.append(other)
            self.parents.extend(other.origin)
        elif isinstance(other, LayerOutput):
            raise ConfigError(
                "mixed_layer: input '%s' is a layer; wrap it in a projection "
                "such as full_matrix_projection(input=%s)" %
                (other.name, other.name))
        else:
            raise ConfigError('mixed_layer: inputs must be projections or '
                              'operators, got %s' % _type_desc(other))
        return self

    def __enter__(self):
        if self.inputs:
            raise ConfigError('mixed_layer: "with" on a mixed layer that '
                              'already has inputs')
        return self

    def __exit__(self, exc_type, exc_value, tb):
        if exc_value is not None:
            return False
        if not self.inputs:
            raise ConfigError("mixed_layer '%s' has no inputs" % self.name)
        ml = Layer(
            name=self.name,
            type=LayerType.MIXED_LAYER,
            size=self.size,
            active_type=self.activation.name,
            bias=_bias(self.bias_attr),
            inputs=self.inputs,
            **_extra(self.layer_attr))
        self.size = ml.config.size
        self.finalized = True
        return False


@wrap_name_default('mixed')
@wrap_act_default(act=LinearActivation())
@wrap_bias_attr_default(has_bias=False)
@layer_support(ERROR_CLIPPING, DROPOUT)
def mixed_layer(size=0, input=None, name=None, act=None, bias_attr=False,
                layer_attr=None):
    """Sum of projections/operators, + bias, then act. Use
    mixed_layer(input=[...]) or `with mixed_layer(...) as m: m += proj`."""
    _check_act(act, 'mixed_layer')
    if input is None:
        return MixedLayerType(name, size, act, bias_attr, layer_attr)
    with mixed_layer(name=name, size=size, act=act, bias_attr=bias_attr,
                     layer_attr=layer_attr) as m:
        if isinstance(input, (list, tuple)):
            for each in input:
                m += each
        else:
            m += input
    return m


@wrap_name_default('embedding')
@wrap_param_attr_default()
@layer_support(ERROR_CLIPPING)
def embedding_layer(input, size, name=None, param_attr=None, layer_attr=None):
    """Word embedding: a mixed layer with one table_projection."""
    _check_input(input, 'input', 'embedding_layer')
    size = _size_arg(size, 'embedding_layer')
    with mixed_layer(name=name, size=size, act=LinearActivation(),
                     bias_attr=False, layer_attr=layer_attr) as mix:
        mix += table_projection(input=input, size=size, param_attr=param_attr)
    return mix


@wrap_name_default('addto')
@wrap_act_default(act=LinearActivation())
@wrap_bias_attr_default(has_bias=False)
@layer_support(DROPOUT)
def addto_layer(input, act=None, name=None, bias_attr=None, layer_attr=None):
    """Element-wise sum of equal-size inputs (+ bias, act)."""
    inputs = _check_input_list(input, 'addto_layer')
    _check_act(act, 'addto_layer')
    num_filters = None
    for each in inputs:
        if each.num_filters is not None:
            num_filters = each.num_filters
    l = Layer(
        name=name,
        type=LayerType.ADDTO_LAYER,
        inputs=[ipt.name for ipt in inputs],
        bias=_bias(bias_attr),
        active_type=act.name,
        **_extra(layer_attr))
    return LayerOutput(name, LayerType.ADDTO_LAYER, parents=inputs,
                       activation=act, num_filters=num_filters,
                       size=l.config.size)


@wrap_name_default('concat')
@wrap_act_default(act=IdentityActivation())
@layer_support()
def concat_layer(input, act=None, name=None, layer_attr=None,
                 bias_attr=None):
    """Concatenate layers (type concat) or projections (type concat2)."""
    if isinstance(input, (LayerOutput, cp.Projection)):
        input = [input]
    if not isinstance(input, (list, tuple)) or not input:
        raise ConfigError('concat_layer: input must be a non-empty list')
    _check_act(act, 'concat_layer')
    is_proj = all(isinstance(x, cp.Projection) for x in input)
    if not is_proj:
        for i, x in enumerate(input):
            _check_input(x, 'input[%d]' % i, 'concat_layer')
    if is_proj:
        parents = [x.origin for x in input]
        layer_type = LayerType.CONCAT_PROJ_LAYER
        extra = dict(bias=_bias(bias_attr) if bias_attr is not None else
                     False)
        inputs = list(input)
    else:
        parents = list(input)
        layer_type = LayerType.CONCAT_LAYER
        extra = {}
        inputs = [x.name for x in input]
        if bias_attr not in (None, False):
            raise ConfigError('concat_layer: bias_attr is only supported '
                              'for a concat of projections')
    num_filters = None
    if not is_proj and all(x.num_filters is not None for x in input):
        num_filters = sum(x.num_filters for x in input)
    l = Layer(
        name=name,
        type=layer_type,
        inputs=inputs,
        active_type=act.name,
        **dict(extra, **_extra(layer_attr)))
    return LayerOutput(name, layer_type, parents=parents, activation=act,
                       size=l.config.size, num_filters=num_filters)
