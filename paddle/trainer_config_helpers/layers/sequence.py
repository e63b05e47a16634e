"""Sequence pooling, first/last instance, expansion, reshaping and concatenation
(SequenceLayers.cpp)."""

from paddle.parser import ConfigError, Input, Layer

from ..activations import IdentityActivation
from ..default_decorators import (wrap_act_default, wrap_bias_attr_default, wrap_name_default,
                                  wrap_param_default)
from ..poolings import AvgPooling, MaxPooling
from ..layer_output import (AggregateLevel, ExpandLevel, LayerOutput, LayerType, _bias,
                            _check_input, _extra, _type_desc, layer_support)


__all__ = [
    'pooling_layer', 'last_seq', 'first_seq', 'expand_layer', 'repeat_layer',
    'seq_reshape_layer', 'seq_concat_layer'
]

@wrap_name_default('seq_pooling')
@wrap_bias_attr_default(has_bias=False)
@wrap_param_default(['pooling_type'], default_factory=lambda _: MaxPooling())
@layer_support()
def pooling_layer(input, pooling_type=None, name=None, bias_attr=None,
                  agg_level=AggregateLevel.EACH_TIMESTEP, stride=-1,
                  layer_attr=None):
    """Pool each sequence (or sub-sequence) to one vector: max/average/sum."""
    _check_input(input, 'input', 'pooling_layer')
    if not isinstance(pooling_type, (MaxPooling, AvgPooling)):
        raise ConfigError('pooling_layer: pooling_type must be MaxPooling(), '
                          'AvgPooling(), SumPooling() or SquareRootNPooling()'
                          ', got %s' % _type_desc(pooling_type))
    extra = dict()
    if isinstance(pooling_type, AvgPooling):
        extra['average_strategy'] = pooling_type.strategy
    elif pooling_type.output_max_index is not None:
        extra['output_max_index'] = bool(pooling_type.output_max_index)
    extra.update(_extra(layer_attr))
    Layer(
        name=name,
        type=pooling_type.name,
        inputs=[Input(input.name)],
        bias=_bias(bias_attr),
        trans_type=agg_level,
        stride=stride,
        **extra)
    return LayerOutput(name, pooling_type.name, parents=[input],
                       size=input.size)


def _seq_ins(input, name, agg_level, stride, layer_attr, first, helper):
    _check_input(input, 'input', helper)
    if agg_level == AggregateLevel.EACH_SEQUENCE and stride != -1:
        raise ConfigError('%s: stride cannot be used with '
                          'AggregateLevel.EACH_SEQUENCE' % helper)
    Layer(
        name=name,
        type=LayerType.SEQUENCE_FIRST_INSTANCE
        if first else LayerType.SEQUENCE_LAST_INSTANCE,
        inputs=[input.name],
        trans_type=agg_level,
        stride=stride,
        **_extra(layer_attr))
    return LayerOutput(name, LayerType.SEQUENCE_LAST_INSTANCE if not first
                       else LayerType.SEQUENCE_FIRST_INSTANCE,
                       parents=[input], size=input.size)


@wrap_name_default()
@layer_support()
def last_seq(input, name=None, agg_level=AggregateLevel.EACH_TIMESTEP,
             stride=-1, layer_attr=None):
    """Last step of each sequence (type seqlastins)."""
    return _seq_ins(input, name, agg_level, stride, layer_attr, False,
                    'last_seq')


@wrap_name_default()
@layer_support()
def first_seq(input, name=None, agg_level=AggregateLevel.EACH_TIMESTEP,
              stride=-1, layer_attr=None):
    """First step of each sequence (type seqlastins, select_first)."""
    return _seq_ins(input, name, agg_level, stride, layer_attr, True,
                    'first_seq')


@wrap_name_default()
@wrap_bias_attr_default(has_bias=False)
@layer_support()
def expand_layer(input, expand_as, name=None, bias_attr=False,
                 expand_level=ExpandLevel.FROM_TIMESTEP, layer_attr=None):
    """Repeat a per-sample vector along expand_as's sequence structure."""
    _check_input(input, 'input', 'expand_layer')
    _check_input(expand_as, 'expand_as', 'expand_layer')
    Layer(
        inputs=[input.name, expand_as.name],
        name=name,
        bias=_bias(bias_attr),
        type=LayerType.EXPAND_LAYER,
        trans_type=expand_level,
        **_extra(layer_attr))
    return LayerOutput(name, LayerType.EXPAND_LAYER,
                       parents=[input, expand_as], size=input.size)


@wrap_name_default()
@layer_support()
def repeat_layer(input, num_repeats, name=None, layer_attr=None):
    """Tile a vector num_repeats times (type featmap_expand)."""
    _check_input(input, 'input', 'repeat_layer')
    l = Layer(
        inputs=[input.name],
        name=name,
        num_filters=num_repeats,
        type=LayerType.FEATURE_MAP_EXPAND_LAYER,
        **_extra(layer_attr))
    return LayerOutput(name, LayerType.FEATURE_MAP_EXPAND_LAYER,
                       parents=[input], size=l.config.size)


@wrap_name_default('seqreshape')
@wrap_act_default(act=IdentityActivation())
@wrap_bias_attr_default(has_bias=False)
@layer_support()
def seq_reshape_layer(input, reshape_size, act=None, name=None,
                      layer_attr=None, bias_attr=None):
    _check_input(input, 'input', 'seq_reshape_layer')
    # v1 never passed act on (the layer kept its 'linear' default); a non-identity act
    # is honoured here (docs/v1_differences.md)
    extra = {} if isinstance(act, IdentityActivation) else dict(active_type=act.name)
    extra.update(_extra(layer_attr))
    Layer(
        inputs=[input.name],
        name=name,
        size=reshape_size,
        type=LayerType.SEQUENCE_RESHAPE,
        bias=_bias(bias_attr),
        **extra)
    return LayerOutput(name, LayerType.SEQUENCE_RESHAPE, parents=[input],
                       size=reshape_size, activation=act)


@wrap_name_default('seqconcat')
@wrap_act_default(act=IdentityActivation())
@wrap_bias_attr_default(has_bias=False)
@layer_support()
def seq_concat_layer(a, b, act=None, name=None, layer_attr=None,
                     bias_attr=None):
    _check_input(a, 'a', 'seq_concat_layer')
    _check_input(b, 'b', 'seq_concat_layer')
    Layer(
        name=name,
        type=LayerType.SEQUENCE_CONCAT_LAYER,
        inputs=[a.name, b.name],
        active_type=act.name,
        bias=_bias(bias_attr),
        **_extra(layer_attr))
    return LayerOutput(name, LayerType.SEQUENCE_CONCAT_LAYER, parents=[a, b],
                       activation=act, size=a.size)
