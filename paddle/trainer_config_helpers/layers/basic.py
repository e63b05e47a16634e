"""Data, fully connected, mixed, embedding, addto and concat layers (the engine's
DataLayer.cpp, FullyConnectedLayer.cpp, MixedLayer.cpp)."""

import copy
import paddle.parser as cp
from paddle.layer_specs import spec

from paddle.parser import ConfigError, Input, Layer

from ..activations import IdentityActivation, LinearActivation
from ..default_decorators import (wrap_act_default, wrap_bias_attr_default, wrap_name_default,
                                  wrap_param_attr_default)
from ..layer_output import (DROPOUT, ERROR_CLIPPING, LayerOutput, LayerType, _bias, _check_act, _check_input,
                            _check_input_list, _check_layer_args, _check_param_attr, _extra, _size_arg,
                            _type_desc, layer_support)
from .projections import table_projection
# element-wise layers (ElementwiseLayers.cpp) that v1 kept here; still importable from here
from .elementwise import cos_sim, sum_to_one_norm_layer, trans_layer  # noqa: F401


__all__ = [
    'data_layer', 'fc_layer', 'selective_fc_layer', 'MixedLayerType', 'mixed_layer',
    'embedding_layer', 'addto_layer', 'concat_layer'
]

_SELECTIVE_FC = spec('selective_fc').defaults  # shared with the parser


@wrap_name_default('data')
@layer_support()
def data_layer(name, size, height=None, width=None, layer_attr=None):
    """Input slot of the network: the layer the data provider fills for every batch.

    The data provider's ``input_types`` (in the order of the data layers the
    network's inputs list names) decide what the slot holds: dense vectors, sparse
    vectors, integer ids, or sequences / nested sequences of these. A data layer has
    no parameters and computes nothing; it only exposes a ``size``-wide value (for
    ids, ``size`` is the dictionary size, the number of distinct ids). Creates an
    engine layer of type ``data``.

    Args:
        name (str): the slot's name; data providers and ``outputs()`` refer to it.
            ``__data_N__`` when omitted (give one: feeders find slots by name).
        size (int): width of one sample (or of one time step of a sequence); for an
            integer id slot, the number of distinct ids.
        height (int, optional): image height, for image inputs that later image
            layers (img_conv_layer, img_pool_layer, ...) read in ``[C, H, W]`` order.
        width (int, optional): image width; used only with ``height``.
        layer_attr (ExtraLayerAttribute, optional): extra settings; data layers
            support only ``device``.

    Returns:
        LayerOutput: the slot, of width ``size``.

    Example:
        >>> img = data_layer(name='pixel', size=784)
        >>> img.name, img.size
        ('pixel', 784)
        >>> data_layer(name='image', size=3 * 32 * 32, height=32, width=32).layer_type
        'data'
    """
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
    """Fully connected layer: ``y = act(sum_i x_i W_i + b)``.

    Each input ``x_i`` (``[batch, in_i]``) gets its own weight ``W_i`` of dims
    ``[in_i, size]``; the products are summed, the bias added and the activation
    applied. The layer works row by row: a sequence input is transformed at every
    time step and the output keeps the input's sequence boundaries. A sparse input
    (a sparse data slot) gathers and sums the rows of ``W_i`` it selects. Creates an
    engine layer of type ``fc``.

    Args:
        input (LayerOutput | list of LayerOutput): the input(s), one ``W_i`` each.
        size (int): output width.
        act (BaseActivation, optional): activation applied to the sum, ``TanhActivation()``
            when omitted.
        name (str, optional): layer name; ``__fc_layer_N__`` when omitted.
        param_attr (ParameterAttribute | list of ParameterAttribute, optional):
            weight attributes (initialisation, learning rate, decay, sharing by
            name); one for all inputs, or a list with one per input.
        bias_attr (ParameterAttribute | bool, optional): bias attributes; None or
            True gives a zero-initialised bias, False no bias.
        layer_attr (ExtraLayerAttribute, optional): extra settings (``drop_rate``,
            ``error_clipping_threshold``, ``device``).

    Returns:
        LayerOutput: the fc layer, of width ``size``.

    Example:
        >>> img = data_layer(name='pixel', size=784)
        >>> hidden = fc_layer(input=img, size=128, act=ReluActivation())
        >>> hidden.size, hidden.layer_type
        (128, 'fc')
        >>> fc_layer(input=[img, hidden], size=10, act=SoftmaxActivation()).name
        '__fc_layer_1__'
    """
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
                       pass_generation=_SELECTIVE_FC['pass_generation'],
                       has_selected_colums=_SELECTIVE_FC['has_selected_colums'],
                       mul_ratio=_SELECTIVE_FC['mul_ratio'],
                       param_attr=None,
                       bias_attr=None,
                       layer_attr=None):
    """Fully connected layer that computes only selected output columns.

    ``y = act(sum_i x_i W_i^T + b)`` with ``W_i`` of dims ``[size, in_i]`` (v1's
    transposed layout, unlike fc_layer). With ``select`` given, that layer (a
    ``[batch, size]`` row of flags, nonzero = selected) marks which columns each row computes;
    the others are 0 and get no gradient, and a softmax activation normalises over
    the selected columns only. Useful for a large output vocabulary where each sample
    needs only a few candidates. Without ``select`` (and ``has_selected_colums``
    False) it behaves like fc_layer. Creates an engine layer of type ``selective_fc``.

    Args:
        input (LayerOutput | list of LayerOutput): the input(s), one weight each.
        size (int): output width.
        select (LayerOutput, optional): the ``[batch, size]`` selection; nonzero
            entries are the columns to compute.
        act (BaseActivation, optional): activation, ``TanhActivation()`` when omitted.
        name (str, optional): layer name; ``__selective_fc_layer_N__`` when omitted.
        pass_generation (bool, default False): v1's flag for use in generation.
        has_selected_colums (bool, default True): whether the last input is the
            selection; set False when ``select`` is not given.
        mul_ratio (float, default 0.02): v1's threshold on the selected fraction
            above which a full dense product is cheaper.
        param_attr (ParameterAttribute | list of ParameterAttribute, optional):
            weight attributes, one for all inputs or one per input.
        bias_attr (ParameterAttribute | bool, optional): bias attributes; None or
            True gives a zero bias, False none.
        layer_attr (ExtraLayerAttribute, optional): extra settings (``drop_rate``,
            ``error_clipping_threshold``, ``device``).

    Returns:
        LayerOutput: the layer, of width ``size``.

    Example:
        >>> x = data_layer(name='x', size=64)
        >>> candidates = data_layer(name='candidates', size=1000)
        >>> out = selective_fc_layer(input=x, size=1000, select=candidates,
        ...                          act=SoftmaxActivation())
        >>> out.size, out.layer_type
        (1000, 'selective_fc')
    """
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


class MixedLayerType(LayerOutput):
    """The LayerOutput of a mixed layer that is still being built.

    ``mixed_layer()`` without ``input`` returns one; inside a ``with`` block, add
    projections and operators with ``+=``. The engine layer is created when the block
    ends, and the layer is then sealed: adding more raises a ConfigError. Adding a
    plain layer (not a projection) raises a ConfigError naming the projection to use.
    Users normally get this from mixed_layer rather than constructing it.

    Args:
        name (str): layer name.
        size (int): output width; 0 to infer it from the inputs.
        act (BaseActivation): activation.
        bias_attr (ParameterAttribute | bool): bias attributes, False for none.
        layer_attr (ExtraLayerAttribute): extra settings, or None.
        parents (list of LayerOutput, optional): initial parent layers.

    Example:
        >>> x = data_layer(name='x', size=16)
        >>> with mixed_layer(size=8) as m:
        ...     m += full_matrix_projection(input=x)
        >>> type(m).__name__, m.size, m.finalized
        ('MixedLayerType', 8, True)
    """

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
    """Sum of projections and operators, plus an optional bias, then an activation.

    ``y = act(sum_k p_k(x_k) + b)``, where each ``p_k`` is a projection
    (full_matrix_projection, table_projection, identity_projection,
    context_projection, ...) or an operator (dotmul_operator, conv_operator). All of
    them produce ``size``-wide outputs. The layer works row by row, so sequence
    inputs keep their boundaries. Two spellings (v1):

    - ``mixed_layer(size=..., input=[proj, ...])`` builds it at once;
    - ``with mixed_layer(size=...) as m: m += proj`` adds inputs in a block; the
      layer is created when the block ends.

    ``size`` may be 0 when a projection fixes it (identity_projection,
    table_projection with a size, ...). Creates an engine layer of type ``mixed``.

    Args:
        size (int, default 0): output width; 0 to infer it from the inputs.
        input (Projection | Operator | list, optional): the inputs; omit to use the
            ``with`` form.
        name (str, optional): layer name; ``__mixed_N__`` when omitted.
        act (BaseActivation, optional): activation, ``LinearActivation()`` when omitted.
        bias_attr (ParameterAttribute | bool, default False): bias; no bias unless
            given (True or a ParamAttr).
        layer_attr (ExtraLayerAttribute, optional): extra settings (``drop_rate``,
            ``error_clipping_threshold``, ``device``).

    Returns:
        MixedLayerType: the layer (a LayerOutput), of width ``size``.

    Example:
        >>> x = data_layer(name='x', size=16)
        >>> y = mixed_layer(size=8, input=[full_matrix_projection(input=x)],
        ...                 act=TanhActivation(), bias_attr=True)
        >>> y.size, y.layer_type
        (8, 'mixed')
        >>> with mixed_layer() as z:
        ...     z += identity_projection(input=x)
        >>> z.size
        16
    """
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
    """Word embedding: looks up one learned row per integer id.

    A mixed layer holding one table_projection: the table has dims
    ``[input.size, size]`` (dictionary size by embedding width), and each id of the
    input selects its row. For an id sequence, the output is a sequence of the same
    length of ``size``-wide vectors. The input must be an integer id slot (see
    data_layer). No bias, linear activation. Creates an engine layer of type
    ``mixed``.

    Args:
        input (LayerOutput): integer ids, ``input.size`` being the dictionary size.
        size (int): embedding width.
        name (str, optional): layer name; ``__embedding_N__`` when omitted.
        param_attr (ParameterAttribute, optional): the table's attributes (share it
            between layers by giving the same name).
        layer_attr (ExtraLayerAttribute, optional): extra settings
            (``error_clipping_threshold``, ``device``).

    Returns:
        LayerOutput: the embeddings, of width ``size``.

    Example:
        >>> words = data_layer(name='words', size=10000)
        >>> emb = embedding_layer(input=words, size=128)
        >>> emb.size, emb.layer_type
        (128, 'mixed')
    """
    _check_layer_args('embedding_layer', locals())
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
    """Element-wise sum of its inputs: ``y = act(sum_i x_i + b)``.

    All inputs must have the same width (the parser warns, the engine refuses
    otherwise) and the same sequence layout; the output has that width and layout.
    It has no weights; the bias is off unless asked for. Image inputs keep their
    channel count (``num_filters``). Creates an engine layer of type ``addto``.

    Args:
        input (LayerOutput | list of LayerOutput): the layers to add.
        act (BaseActivation, optional): activation, ``LinearActivation()`` when omitted.
        name (str, optional): layer name; ``__addto_N__`` when omitted.
        bias_attr (ParameterAttribute | bool, optional): bias; none unless True or
            a ParamAttr is given.
        layer_attr (ExtraLayerAttribute, optional): extra settings (``drop_rate``,
            ``device``).

    Returns:
        LayerOutput: the sum, of the inputs' width.

    Example:
        >>> a = data_layer(name='a', size=10)
        >>> b = data_layer(name='b', size=10)
        >>> s = addto_layer(input=[a, b], act=ReluActivation())
        >>> s.size, s.layer_type
        (10, 'addto')
    """
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
    """Concatenates its inputs' features side by side, row by row.

    Two forms (v1):

    - a list of layers: ``y = [x_1, x_2, ...]``, width the sum of the input widths;
      no parameters, no bias (engine type ``concat``). The inputs must have the same
      number of rows (same sequence layout). Image inputs' channel counts add up.
    - a list of projections: each projection is computed and the results are
      concatenated, with an optional bias (engine type ``concat2``).

    Args:
        input (LayerOutput | Projection | list): all layers or all projections.
        act (BaseActivation, optional): activation, ``IdentityActivation()`` when omitted.
        name (str, optional): layer name; ``__concat_N__`` when omitted.
        layer_attr (ExtraLayerAttribute, optional): extra settings (``device``).
        bias_attr (ParameterAttribute | bool, optional): bias, only for a concat of
            projections (a ConfigError for layers).

    Returns:
        LayerOutput: the concatenation.

    Example:
        >>> a = data_layer(name='a', size=10)
        >>> b = data_layer(name='b', size=6)
        >>> concat_layer(input=[a, b]).size
        16
        >>> concat_layer(input=[identity_projection(input=a),
        ...                     full_matrix_projection(input=b, size=4)]).size
        14
    """
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
