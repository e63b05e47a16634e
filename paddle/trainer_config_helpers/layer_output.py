"""LayerOutput, what every layer helper returns (name, type, parents, size), the
layer type names, the aggregation levels and the argument checks the helpers share."""

import functools
import inspect
import paddle.parser as cp

from paddle import layer_specs
from paddle.parser import ConfigError, as_int, config_assert

from .activations import BaseActivation
from .attrs import ExtraLayerAttribute, ParameterAttribute


__all__ = [
    'LayerType', 'LayerOutput', 'layer_support', 'ERROR_CLIPPING', 'DROPOUT', 'DEVICE',
    'AggregateLevel', 'ExpandLevel'
]

ERROR_CLIPPING = 'error_clipping_threshold'
DROPOUT = 'drop_rate'
DEVICE = 'device'
PRECISION = 'precision'  # every layer accepts it, like device
RECOMPUTE_CHECKPOINT = 'recompute_checkpoint'  # and this (the engine keeps the layer's output)


class LayerType(object):
    """The layer type names the helpers write: constants such as ``LayerType.FC_LAYER``
    (``'fc'``) or ``LayerType.DATA`` (``'data'``), mostly v1's engine layer type
    strings.

    ``LayerOutput.layer_type`` holds one of them (or, for a few helpers, the engine
    type directly, e.g. a pooling type name). Helpers compare against these names
    (classification_cost requires its label's type to be ``LayerType.DATA``).

    Example:
        >>> LayerType.FC_LAYER, LayerType.DATA
        ('fc', 'data')
        >>> fc_layer(input=data_layer(name='x', size=4), size=2).layer_type == LayerType.FC_LAYER
        True
    """
    DATA = 'data'
    MIXED_LAYER = 'mixed'
    LSTMEMORY = 'lstmemory'
    GRUMEMORY = 'gated_recurrent'
    SEQUENCE_LAST_INSTANCE = 'seqlastins'
    SEQUENCE_FIRST_INSTANCE = 'seqfirstins'
    SEQUENCE_RESHAPE = 'seqreshape'
    POOLING_MAX = 'max'
    POOLING_AVG = 'average'
    FC_LAYER = 'fc'
    COST = 'cost'
    COSINE_SIM_VEC = 'cos_vm'
    COSINE_SIM = 'cos'
    HSIGMOID = 'hsigmoid'
    CONV_LAYER = 'conv'
    CONVTRANS_LAYER = 'convt'
    EXCONV_LAYER = 'exconv'
    EXCONVTRANS_LAYER = 'exconvt'
    CUDNNCONV_LAYER = 'cudnn_conv'
    POOL_LAYER = 'pool'
    BATCH_NORM_LAYER = 'batch_norm'
    NORM_LAYER = 'norm'
    SUM_TO_ONE_NORM_LAYER = 'sum_to_one_norm'
    ADDTO_LAYER = 'addto'
    CONCAT_LAYER = 'concat'
    CONCAT_PROJ_LAYER = 'concat2'
    SEQUENCE_CONCAT_LAYER = 'seqconcat'
    LSTM_STEP_LAYER = 'lstm_step'
    GRU_STEP_LAYER = 'gru_step'
    GET_OUTPUT_LAYER = 'get_output'
    EXPAND_LAYER = 'expand'
    INTERPOLATION_LAYER = 'interpolation'
    BILINEAR_INTERP_LAYER = 'bilinear_interp'
    POWER_LAYER = 'power'
    SCALING_LAYER = 'scaling'
    TRANS_LAYER = 'trans'
    ROTATE_LAYER = 'rotate'
    OUT_PROD_LAYER = 'out_prod'
    FEATURE_MAP_EXPAND_LAYER = 'featmap_expand'
    MEMORY = 'memory'
    MAXID_LAYER = 'maxid'
    EOSID_LAYER = 'eos_id'
    RECURRENT_LAYER = 'recurrent'
    CONV_SHIFT_LAYER = 'conv_shift'
    TENSOR_LAYER = 'tensor'
    SEL_FC_LAYER = 'selective_fc'
    SAMPLING_ID_LAYER = 'sampling_id'
    SLOPE_INTERCEPT_LAYER = 'slope_intercept'
    CLIP_LAYER = 'clip'
    LINEAR_COMBINATION_LAYER = 'convex_comb'
    BLOCK_EXPAND = 'blockexpand'
    MAXOUT = 'maxout'
    SPP_LAYER = 'spp'
    PAD_LAYER = 'pad'
    PRINT_LAYER = 'print'
    PRIORBOX_LAYER = 'priorbox'
    CTC_LAYER = 'ctc'
    WARP_CTC_LAYER = 'warp_ctc'
    CRF_LAYER = 'crf'
    CRF_DECODING_LAYER = 'crf_decoding'
    NCE_LAYER = 'nce'
    RANK_COST = 'rank-cost'
    LAMBDA_COST = 'lambda_cost'
    HUBER = 'huber'
    CROSS_ENTROPY = 'multi-class-cross-entropy'
    CROSS_ENTROPY_WITH_SELFNORM = 'multi_class_cross_entropy_with_selfnorm'
    SOFT_BIN_CLASS_CROSS_ENTROPY = 'soft_binary_class_cross_entropy'
    MULTI_BIN_LABEL_CROSS_ENTROPY = 'multi_binary_label_cross_entropy'
    SUM_COST = 'sum_cost'
    SMOOTH_L1 = 'smooth_l1'
    RECURRENT_LAYER_GROUP = 'recurrent_layer_group'
    CROSS_CHANNEL_NORM_LAYER = 'norm'

    @staticmethod
    def is_layer_type(type_name):
        """Whether ``type_name`` is one of the names LayerType defines.

        Args:
            type_name (str): a layer type string, e.g. ``'fc'``.

        Returns:
            bool: True when some ``LayerType`` constant has that value.
        """
        for key in dir(LayerType):
            if key.isupper() and getattr(LayerType, key) == type_name:
                return True
        return False


class LayerOutput(object):
    """What every layer helper returns: a handle on a layer of the network being
    configured.

    Pass it as the ``input`` of later helpers, to ``outputs()`` (for the network's
    outputs), or combine layers with ``+``, ``-`` and ``*`` (see layer_math). It
    records what later helpers need to know: the layer's ``name``, its
    ``layer_type``, its ``parents`` (the layers it reads; ``outputs()`` walks them to
    find the data layers), its ``size`` (width), and for image layers its channel
    count ``num_filters``. Helpers construct it; configs rarely do.

    Args:
        name (str): the layer's name.
        layer_type (str): its type (a LayerType value).
        parents (LayerOutput | list of LayerOutput, optional): the layers it reads.
        activation (BaseActivation, optional): its activation.
        num_filters (int, optional): channel count of an image layer.
        img_norm_type (str, optional): the norm type of an image norm layer.
        size (int, optional): the layer's width.
        outputs (list of str, optional): its output names; ``['default']`` when
            omitted (lstm_step_layer adds ``'state'``, see get_output_layer).
        reverse (bool, optional): for recurrent layers, whether it runs backwards.

    Example:
        >>> x = data_layer(name='x', size=4)
        >>> h = fc_layer(input=x, size=2, name='hidden')
        >>> h
        LayerOutput(hidden, type=fc, size=2)
        >>> [p.name for p in h.parents], h.activation.name, h.outputs
        (['x'], 'tanh', ['default'])
    """

    def __init__(self,
                 name,
                 layer_type,
                 parents=None,
                 activation=None,
                 num_filters=None,
                 img_norm_type=None,
                 size=None,
                 outputs=None,
                 reverse=None):
        if not isinstance(name, str):
            raise ConfigError('layer name must be a string, got %r' %
                              (name, ))
        self.name = name
        self.full_name = cp.MakeLayerNameInSubmodel(name)
        self.layer_type = layer_type
        if parents is not None and not isinstance(parents, (list, tuple)):
            parents = [parents]
        self.parents = [] if parents is None else list(parents)
        self.activation = activation
        self.num_filters = num_filters
        self.img_norm_type = img_norm_type
        self.size = size
        if outputs is None:
            outputs = ['default']
        self.outputs = outputs
        self.reverse = reverse

    def __repr__(self):
        return 'LayerOutput(%s, type=%s, size=%s)' % (self.name,
                                                      self.layer_type,
                                                      self.size)

    def set_input(self, input):
        """Binds a memory declared without a layer name to the layer it remembers (v0.10).

        Inside a recurrent_group step, ``memory(name=None, size=...)`` can be used
        before its layer exists; once that layer is created, ``mem.set_input(layer)``
        makes the memory read the layer's previous output.

        Args:
            input (LayerOutput): the layer whose previous output the memory holds.
        """
        config_assert(isinstance(input, LayerOutput),
                      'set_input needs a LayerOutput')
        config_assert(self.layer_type == LayerType.MEMORY,
                      'set_input is only valid on a memory')
        cp.SetMemoryInput(self.name, input.name)

    # + - * on layers: installed by layer_math (imported with the package)


def _check_input(input, what='input', helper=None):
    if not isinstance(input, LayerOutput):
        raise ConfigError(
            '%s%s must be a layer (LayerOutput), got %s' %
            ('%s: ' % helper if helper else '', what, _type_desc(input)))
    return input


def _check_input_list(input, helper):
    if isinstance(input, LayerOutput):
        return [input]
    if not isinstance(input, (list, tuple)) or len(input) == 0:
        raise ConfigError('%s: input must be a layer or a non-empty list of '
                          'layers, got %s' % (helper, _type_desc(input)))
    for i, each in enumerate(input):
        _check_input(each, 'input[%d]' % i, helper)
    return list(input)


def _type_desc(x):
    if x is None:
        return 'None'
    if inspect.isclass(x):
        return 'the class %s (an instance is needed: %s())' % (x.__name__,
                                                               x.__name__)
    return '%s %r' % (type(x).__name__, x) if isinstance(
        x, (int, float, str)) else type(x).__name__


def _check_act(act, helper):
    if not isinstance(act, BaseActivation):
        raise ConfigError('%s: act must be an activation object such as '
                          'TanhActivation(), got %s' % (helper,
                                                        _type_desc(act)))
    return act


def _check_param_attr(attr, helper, what='param_attr'):
    if attr is not None and not isinstance(attr, ParameterAttribute):
        raise ConfigError('%s: %s must be a ParamAttr(...), got %s' %
                          (helper, what, _type_desc(attr)))
    return attr


def _size_arg(size, helper, what='size'):
    if size is None:
        raise ConfigError('%s: %s is required' % (helper, what))
    try:
        v = as_int(size, what)
    except ConfigError:
        raise ConfigError('%s: %s must be a positive integer, got %r' %
                          (helper, what, size))
    if v <= 0:
        raise ConfigError('%s: %s must be a positive integer, got %r' %
                          (helper, what, size))
    return v


def _positional(n):
    """The first n parameters may be given by position (see
    default_decorators._positional_limit)."""

    def mark(func):
        func.v1_positional = n
        return func

    return mark


def _b0_pair(a, b, input, helper):
    """b0 helpers took two layers as input=[a, b]; b1 made them a, b."""
    if input is None:
        return a, b
    if a is not None or b is not None:
        raise ConfigError('%s: give either input=[a, b] (b0) or the two '
                          'layers, not both' % helper)
    if not isinstance(input, (list, tuple)) or len(input) != 2:
        raise ConfigError('%s: input must be a list of 2 layers, got %s' %
                          (helper, _type_desc(input)))
    return input[0], input[1]


def layer_support(*attrs):
    """Decorator declaring which ExtraAttr fields a layer helper supports.

    The decorated helper checks its ``layer_attr`` argument: it must be an
    ``ExtraAttr(...)``, and each field it sets must be one of ``attrs`` (``device``
    ``precision`` and ``recompute_checkpoint`` are always allowed), otherwise the call raises a ConfigError naming the helper
    and the field. The field names are the constants ``DROPOUT`` (``drop_rate``),
    ``ERROR_CLIPPING`` (``error_clipping_threshold``) and ``DEVICE``.

    Args:
        *attrs (str): the supported fields besides ``device`` and ``precision``.

    Returns:
        callable: the decorator.

    Example:
        >>> @layer_support(DROPOUT)
        ... def passthrough(input, layer_attr=None):
        ...     return input
        >>> x = data_layer(name='x', size=4)
        >>> passthrough(x, layer_attr=ExtraAttr(drop_rate=0.5)).name
        'x'
        >>> try:
        ...     passthrough(x, layer_attr=ExtraAttr(error_clipping_threshold=10.0))
        ... except Exception as e:
        ...     print(e)
        passthrough does not support ExtraAttr(error_clipping_threshold=...)
    """
    supported = set(attrs) | {DEVICE, PRECISION, RECOMPUTE_CHECKPOINT}

    def decorator(method):
        @functools.wraps(method)
        def wrapper(*args, **kwargs):
            layer_attr = kwargs.get('layer_attr')
            if layer_attr is not None:
                if not isinstance(layer_attr, ExtraLayerAttribute):
                    raise ConfigError(
                        '%s: layer_attr must be an ExtraAttr(...), got %s' %
                        (method.__name__, _type_desc(layer_attr)))
                for key in layer_attr.attr:
                    if key not in supported:
                        raise ConfigError(
                            '%s does not support ExtraAttr(%s=...)' %
                            (method.__name__, key))
            return method(*args, **kwargs)

        return wrapper

    return decorator


def _extra(layer_attr):
    return ExtraLayerAttribute.to_kwargs(layer_attr)


def _bias(bias_attr):
    return ParameterAttribute.to_bias(bias_attr)


class AggregateLevel(object):
    """What a sequence-aggregating layer (pooling_layer, last_seq, first_seq) produces
    one row for.

    - ``EACH_TIMESTEP`` (alias ``TO_NO_SEQUENCE``): one row per sequence; the
      output is not a sequence.
    - ``EACH_SEQUENCE`` (alias ``TO_SEQUENCE``): for a nested sequence, one row per
      sub-sequence; the output is a sequence of them.

    Example:
        >>> paragraphs = data_layer(name='paragraphs', size=8)
        >>> per_sentence = pooling_layer(input=paragraphs,
        ...                              agg_level=AggregateLevel.EACH_SEQUENCE)
        >>> AggregateLevel.EACH_TIMESTEP, AggregateLevel.EACH_SEQUENCE
        ('non-seq', 'seq')
    """
    EACH_TIMESTEP = 'non-seq'
    EACH_SEQUENCE = 'seq'
    TO_NO_SEQUENCE = EACH_TIMESTEP
    TO_SEQUENCE = EACH_SEQUENCE


class ExpandLevel(object):
    """What expand_layer repeats: its ``expand_level`` argument.

    - ``FROM_TIMESTEP`` (alias ``FROM_NO_SEQUENCE``): the input has one row per
      sequence, copied over every step of that sequence.
    - ``FROM_SEQUENCE``: the input has one row per sub-sequence of a nested
      sequence, copied over every step of that sub-sequence.

    Example:
        >>> seq = data_layer(name='seq', size=8)
        >>> expanded = expand_layer(input=last_seq(input=seq), expand_as=seq,
        ...                         expand_level=ExpandLevel.FROM_TIMESTEP)
        >>> expanded.size
        8
    """
    FROM_TIMESTEP = AggregateLevel.EACH_TIMESTEP
    FROM_SEQUENCE = AggregateLevel.EACH_SEQUENCE
    FROM_NO_SEQUENCE = FROM_TIMESTEP


def _check_layer_args(helper, args):
    """Check every argument that `helper`'s spec (paddle/layer_specs) says is one layer.

    `args` is the helper's ``locals()``, so the spec alone names the arguments: each must
    be a LayerOutput.
    """
    for name, kind in layer_specs.helper(helper).args:
        if kind == 'layer':
            _check_input(args[name], name, helper)
