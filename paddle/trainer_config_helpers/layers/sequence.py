"""Sequence pooling, first/last instance, expansion, reshaping and concatenation
(SequenceLayers.cpp)."""

from paddle.parser import ConfigError, Input, Layer

from ..activations import IdentityActivation
from ..default_decorators import (wrap_act_default, wrap_bias_attr_default, wrap_name_default,
                                  wrap_param_default)
from ..poolings import AvgPooling, MaxPooling
from .elementwise import repeat_layer  # noqa: F401  (featmap_expand, an element-wise layer; moved)
from ..layer_output import (AggregateLevel, ExpandLevel, LayerOutput, LayerType, _bias, _check_input,
                            _check_layer_args, _extra, _type_desc, layer_support)


__all__ = [
    'pooling_layer', 'last_seq', 'first_seq', 'expand_layer', 'seq_reshape_layer',
    'seq_concat_layer'
]

@wrap_name_default('seq_pooling')
@wrap_bias_attr_default(has_bias=False)
@wrap_param_default(['pooling_type'], default_factory=lambda _: MaxPooling())
@layer_support()
def pooling_layer(input, pooling_type=None, name=None, bias_attr=None,
                  agg_level=AggregateLevel.EACH_TIMESTEP, stride=-1,
                  layer_attr=None):
    """Pools each sequence into one vector (max, average, sum or sqrt-n average).

    For every sequence of the input, ``y = pool(x_1, ..., x_T)`` taken column by
    column: ``MaxPooling()`` the maximum, ``AvgPooling()`` the mean,
    ``SumPooling()`` the sum, ``SquareRootNPooling()`` the sum divided by
    ``sqrt(T)``. The output has one row per sequence (not a sequence), of the
    input's width, or per sub-sequence / per window with ``agg_level`` /
    ``stride``. Creates an engine layer of type ``max`` or ``average``.

    Args:
        input (LayerOutput): a sequence (or nested sequence) layer.
        pooling_type (BasePoolingType, optional): ``MaxPooling()`` when omitted;
            ``MaxPooling(output_max_index=True)`` outputs the arg-max positions.
        name (str, optional): layer name; ``__seq_pooling_N__`` when omitted.
        bias_attr (ParameterAttribute | bool, optional): bias added after pooling;
            none unless given.
        agg_level (str, default AggregateLevel.EACH_TIMESTEP): EACH_TIMESTEP
            (``TO_NO_SEQUENCE``): one row per sequence; EACH_SEQUENCE
            (``TO_SEQUENCE``): for a nested sequence, one row per sub-sequence, the
            result a sequence of them.
        stride (int, default -1): with a value > 0, cut each sequence into
            windows of ``stride`` steps and give one row per window (the output is
            then a sequence); -1 for whole sequences. Not with EACH_SEQUENCE.
        layer_attr (ExtraLayerAttribute, optional): extra settings (``device``).

    Returns:
        LayerOutput: the pooled layer, of the input's width.

    Example:
        >>> words = data_layer(name='words', size=1000)
        >>> emb = embedding_layer(input=words, size=32)
        >>> avg = pooling_layer(input=emb, pooling_type=AvgPooling())
        >>> avg.size, avg.layer_type
        (32, 'average')
    """
    _check_layer_args('pooling_layer', locals())
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
    """The last time step of each sequence.

    One row per sequence (``x_T``), not a sequence; with ``agg_level``
    EACH_SEQUENCE, the last step of each sub-sequence of a nested sequence; with
    ``stride``, the last step of each window. Typical after a forward RNN to get a
    sequence summary. Creates an engine layer of type ``seqlastins``.

    Args:
        input (LayerOutput): a sequence layer.
        name (str, optional): layer name; ``__last_seq_N__`` when omitted.
        agg_level (str, default AggregateLevel.EACH_TIMESTEP): EACH_TIMESTEP
            (``TO_NO_SEQUENCE``): one row per sequence; EACH_SEQUENCE
            (``TO_SEQUENCE``): for a nested sequence, one row per sub-sequence, the
            result a sequence of them.
        stride (int, default -1): with a value > 0, cut each sequence into
            windows of ``stride`` steps and give one row per window (the output is
            then a sequence); -1 for whole sequences. Not with EACH_SEQUENCE.
        layer_attr (ExtraLayerAttribute, optional): extra settings (``device``).

    Returns:
        LayerOutput: the selected rows, of the input's width.

    Example:
        >>> seq = data_layer(name='seq', size=16)
        >>> last = last_seq(input=seq)
        >>> last.size, last.layer_type
        (16, 'seqlastins')
    """
    return _seq_ins(input, name, agg_level, stride, layer_attr, False,
                    'last_seq')


@wrap_name_default()
@layer_support()
def first_seq(input, name=None, agg_level=AggregateLevel.EACH_TIMESTEP,
              stride=-1, layer_attr=None):
    """The first time step of each sequence.

    One row per sequence (``x_1``), not a sequence; with ``agg_level``
    EACH_SEQUENCE, the first step of each sub-sequence; with ``stride``, the first
    step of each window. Typical after a reversed RNN. Creates an engine layer of
    type ``seqfirstins`` (v1's ``seqlastins`` with ``select_first``).

    Args:
        input (LayerOutput): a sequence layer.
        name (str, optional): layer name; ``__first_seq_N__`` when omitted.
        agg_level (str, default AggregateLevel.EACH_TIMESTEP): EACH_TIMESTEP
            (``TO_NO_SEQUENCE``): one row per sequence; EACH_SEQUENCE
            (``TO_SEQUENCE``): for a nested sequence, one row per sub-sequence, the
            result a sequence of them.
        stride (int, default -1): with a value > 0, cut each sequence into
            windows of ``stride`` steps and give one row per window (the output is
            then a sequence); -1 for whole sequences. Not with EACH_SEQUENCE.
        layer_attr (ExtraLayerAttribute, optional): extra settings (``device``).

    Returns:
        LayerOutput: the selected rows, of the input's width.

    Example:
        >>> seq = data_layer(name='seq', size=16)
        >>> first_seq(input=seq).layer_type
        'seqfirstins'
    """
    return _seq_ins(input, name, agg_level, stride, layer_attr, True,
                    'first_seq')


@wrap_name_default()
@wrap_bias_attr_default(has_bias=False)
@layer_support()
def expand_layer(input, expand_as, name=None, bias_attr=False,
                 expand_level=ExpandLevel.FROM_TIMESTEP, layer_attr=None):
    """Repeats one row per sequence over every step of another layer's sequences.

    ``input`` has one row per sequence of ``expand_as`` (e.g. a pooled or last_seq
    summary); the output copies row ``i`` to every time step of ``expand_as``'s
    sequence ``i`` and takes ``expand_as``'s sequence layout. With
    ``expand_level=ExpandLevel.FROM_SEQUENCE``, ``input`` is a sequence with one row
    per sub-sequence of the nested ``expand_as``, each copied over its sub-sequence.
    Creates an engine layer of type ``expand``.

    Args:
        input (LayerOutput): the rows to repeat.
        expand_as (LayerOutput): the sequence layer whose layout the output takes.
        name (str, optional): layer name; ``__expand_layer_N__`` when omitted.
        bias_attr (ParameterAttribute | bool, default False): bias; none unless
            given.
        expand_level (str, default ExpandLevel.FROM_TIMESTEP): FROM_TIMESTEP
            (``FROM_NO_SEQUENCE``): one row per sequence; FROM_SEQUENCE: one row per
            sub-sequence.
        layer_attr (ExtraLayerAttribute, optional): extra settings (``device``).

    Returns:
        LayerOutput: the expanded sequence, of ``input``'s width.

    Example:
        >>> seq = data_layer(name='seq', size=16)
        >>> summary = last_seq(input=seq)
        >>> expand_layer(input=summary, expand_as=seq).size
        16
    """
    _check_layer_args('expand_layer', locals())
    Layer(
        inputs=[input.name, expand_as.name],
        name=name,
        bias=_bias(bias_attr),
        type=LayerType.EXPAND_LAYER,
        trans_type=expand_level,
        **_extra(layer_attr))
    return LayerOutput(name, LayerType.EXPAND_LAYER,
                       parents=[input, expand_as], size=input.size)


@wrap_name_default('seqreshape')
@wrap_act_default(act=IdentityActivation())
@wrap_bias_attr_default(has_bias=False)
@layer_support()
def seq_reshape_layer(input, reshape_size, act=None, name=None,
                      layer_attr=None, bias_attr=None):
    """Re-cuts each sequence into rows of a new width.

    A sequence of ``T`` rows of width ``n`` holds ``T * n`` values; the output
    holds the same values as ``T * n / reshape_size`` rows of ``reshape_size``
    (``T * n`` must divide evenly, per sequence). Then the optional bias and the
    activation (v1 ignored ``act``; a non-identity activation is applied here).
    Creates an engine layer of type ``seqreshape``.

    Args:
        input (LayerOutput): a sequence layer.
        reshape_size (int): the new row width.
        act (BaseActivation, optional): activation, ``IdentityActivation()`` when
            omitted.
        name (str, optional): layer name; ``__seqreshape_N__`` when omitted.
        layer_attr (ExtraLayerAttribute, optional): extra settings (``device``).
        bias_attr (ParameterAttribute | bool, optional): bias; none unless given.

    Returns:
        LayerOutput: the reshaped sequence, ``reshape_size`` wide.

    Example:
        >>> seq = data_layer(name='seq', size=6)
        >>> seq_reshape_layer(input=seq, reshape_size=3).size
        3
    """
    _check_layer_args('seq_reshape_layer', locals())
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
    """Joins two sequences end to end, sample by sample: ``[a_1..a_T, b_1..b_U]``.

    For each sample, the output sequence is ``a``'s steps followed by ``b``'s (not
    a feature concatenation: see concat_layer for that). ``a`` and ``b`` must have
    the same width and the same number of sequences. Creates an engine layer of type
    ``seqconcat``.

    Args:
        a (LayerOutput): the first sequences.
        b (LayerOutput): the sequences appended, of ``a``'s width.
        act (BaseActivation, optional): activation, ``IdentityActivation()`` when
            omitted.
        name (str, optional): layer name; ``__seqconcat_N__`` when omitted.
        layer_attr (ExtraLayerAttribute, optional): extra settings (``device``).
        bias_attr (ParameterAttribute | bool, optional): bias; none unless given.

    Returns:
        LayerOutput: the joined sequences, of ``a``'s width.

    Example:
        >>> a = data_layer(name='a', size=8)
        >>> b = data_layer(name='b', size=8)
        >>> seq_concat_layer(a=a, b=b).size
        8
    """
    _check_layer_args('seq_concat_layer', locals())
    Layer(
        name=name,
        type=LayerType.SEQUENCE_CONCAT_LAYER,
        inputs=[a.name, b.name],
        active_type=act.name,
        bias=_bias(bias_attr),
        **_extra(layer_attr))
    return LayerOutput(name, LayerType.SEQUENCE_CONCAT_LAYER, parents=[a, b],
                       activation=act, size=a.size)
