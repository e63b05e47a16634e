"""LayerOutput, what every layer helper returns (name, type, parents, size), the
layer type names, the aggregation levels and the argument checks the helpers share."""

import functools
import inspect
import paddle.parser as cp

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


class LayerType(object):
    """Helper-level type names (mostly the v1 layer type strings)."""
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
        for key in dir(LayerType):
            if key.isupper() and getattr(LayerType, key) == type_name:
                return True
        return False


class LayerOutput(object):
    """What a helper returns: a handle on a created layer."""

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
        """Bind a memory created with memory_name to its layer (v0.10)."""
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
    """Declare which ExtraAttr fields (besides device) a helper supports."""
    supported = set(attrs) | {DEVICE}

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
    """EACH_TIMESTEP: one vector per sequence; EACH_SEQUENCE: one vector
    per sub-sequence of a nested sequence."""
    EACH_TIMESTEP = 'non-seq'
    EACH_SEQUENCE = 'seq'
    TO_NO_SEQUENCE = EACH_TIMESTEP
    TO_SEQUENCE = EACH_SEQUENCE


class ExpandLevel(object):
    FROM_TIMESTEP = AggregateLevel.EACH_TIMESTEP
    FROM_SEQUENCE = AggregateLevel.EACH_SEQUENCE
    FROM_NO_SEQUENCE = FROM_TIMESTEP
