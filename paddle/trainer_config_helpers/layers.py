"""Layer helpers of the v1 config language.

Every helper creates one or more layers through the raw config_parser API
and returns a LayerOutput (name, type, parents, size ...), which later
helpers take as input and outputs() walks to find data and cost layers.
"""

import abc
import collections
import copy
import functools
import inspect

from paddle.parser import (
    ConfigError, Layer, Input, Bias, Inputs, Outputs, HasInputsSet,
    config_assert, g_config_funcs, as_int, as_float)
import paddle.parser as cp

from .activations import (BaseActivation, TanhActivation, SigmoidActivation,
                          SoftmaxActivation, IdentityActivation,
                          LinearActivation, ReluActivation,
                          SequenceSoftmaxActivation)
from .attrs import ParamAttr, ExtraAttr, ParameterAttribute, \
    ExtraLayerAttribute
from .default_decorators import (wrap_name_default, wrap_param_attr_default,
                                 wrap_bias_attr_default, wrap_act_default,
                                 wrap_param_default)
from .poolings import (BasePoolingType, MaxPooling, AvgPooling, SumPooling,
                       SquareRootNPooling, CudnnMaxPooling, CudnnAvgPooling)

__all__ = [
    'LayerType', 'LayerOutput', 'layer_support', 'ERROR_CLIPPING', 'DROPOUT',
    'DEVICE', 'data_layer', 'fc_layer', 'selective_fc_layer', 'trans_layer',
    'classification_cost', 'regression_cost', 'mse_cost', 'cross_entropy',
    'cross_entropy_with_selfnorm', 'multi_binary_label_cross_entropy',
    'huber_cost', 'sum_cost', 'rank_cost', 'lambda_cost', 'cos_sim',
    'sum_to_one_norm_layer'
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

    # layer arithmetic (see layer_math)
    def __add__(self, other):
        from . import layer_math
        return layer_math.add(self, other)

    __radd__ = __add__

    def __sub__(self, other):
        from . import layer_math
        return layer_math.sub(self, other)

    def __rsub__(self, other):
        from . import layer_math
        return layer_math.rsub(self, other)

    def __mul__(self, other):
        from . import layer_math
        return layer_math.mul(self, other)

    __rmul__ = __mul__


# ---------------------------------------------------------------------------
# argument checking helpers


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


# ---------------------------------------------------------------------------
# core layers


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


# ---------------------------------------------------------------------------
# costs


def _cost_inputs(input, label, weight, helper):
    _check_input(input, 'input', helper)
    _check_input(label, 'label', helper)
    ipts = [input.name, label.name]
    parents = [input, label]
    if weight is not None:
        _check_input(weight, 'weight', helper)
        if weight.size is not None and weight.size != 1:
            raise ConfigError('%s: weight layer %s must have size 1, got %s' %
                              (helper, weight.name, weight.size))
        ipts.append(weight.name)
        parents.append(weight)
    return ipts, parents


@wrap_name_default('cost')
@layer_support()
def classification_cost(input,
                        label,
                        weight=None,
                        name=None,
                        evaluator=None,
                        layer_attr=None,
                        top_k=None,
                        coeff=1.):
    """Cross-entropy on a softmax output; also adds a
    classification_error_evaluator on (input, label)."""
    from .evaluators import classification_error_evaluator
    ipts, parents = _cost_inputs(input, label, weight, 'classification_cost')
    if label.layer_type != LayerType.DATA:
        raise ConfigError("classification_cost: label must be a data layer, "
                          "got layer '%s' of type %s" %
                          (label.name, label.layer_type))
    if not isinstance(input.activation, SoftmaxActivation):
        raise ConfigError(
            "classification_cost: input layer '%s' must use "
            "SoftmaxActivation(), it uses %s" %
            (input.name, type(input.activation).__name__
             if input.activation is not None else 'no activation'))
    Layer(
        name=name,
        type='multi-class-cross-entropy',
        inputs=ipts,
        coeff=coeff,
        **_extra(layer_attr))

    if evaluator is None:
        evaluator = classification_error_evaluator
    evaluators = evaluator if isinstance(evaluator,
                                         (list, tuple)) else [evaluator]
    for e in evaluators:
        if not callable(e):
            raise ConfigError('classification_cost: evaluator must be an '
                              'evaluator function')
        fname = getattr(e, '__name__', None) or 'evaluator'
        if fname == 'classification_error_evaluator':
            e(name=fname, input=input, label=label, weight=weight,
              top_k=top_k)
        else:
            e(name=fname, input=input, label=label, weight=weight)
    return LayerOutput(name, LayerType.COST, parents=parents, size=1)


@wrap_name_default()
@layer_support()
def mse_cost(input, label, weight=None, name=None, coeff=1.0,
             layer_attr=None):
    """Sum over dimensions of (input - label)^2 per sample."""
    ipts, parents = _cost_inputs(input, label, weight, 'mse_cost')
    if (input.size is not None and label.size is not None and
            input.size != label.size):
        raise ConfigError(
            "mse_cost: input '%s' has size %d but label '%s' has size %d; "
            "they must be equal" % (input.name, input.size, label.name,
                                    label.size))
    Layer(
        inputs=ipts,
        name=name,
        type='square_error',
        coeff=coeff,
        **_extra(layer_attr))
    return LayerOutput(name, LayerType.COST, parents=parents, size=1)


regression_cost = mse_cost


def _make_simple_cost(fname, layer_type, out_type):
    @wrap_name_default(fname)
    @layer_support()
    def cost(input, label, name=None, coeff=1.0, weight=None,
             layer_attr=None):
        ipts, parents = _cost_inputs(input, label, weight, fname)
        Layer(
            name=name,
            type=layer_type,
            inputs=ipts,
            coeff=coeff,
            **_extra(layer_attr))
        return LayerOutput(name, out_type, parents=parents, size=1)

    cost.__name__ = fname
    cost.__qualname__ = fname
    return cost


cross_entropy = _make_simple_cost('cross_entropy', LayerType.CROSS_ENTROPY,
                                  LayerType.CROSS_ENTROPY)
multi_binary_label_cross_entropy = _make_simple_cost(
    'multi_binary_label_cross_entropy',
    LayerType.MULTI_BIN_LABEL_CROSS_ENTROPY,
    LayerType.MULTI_BIN_LABEL_CROSS_ENTROPY)
huber_cost = _make_simple_cost('huber_cost', LayerType.HUBER,
                               LayerType.HUBER)


@wrap_name_default()
@layer_support()
def cross_entropy_with_selfnorm(input,
                                label,
                                name=None,
                                coeff=1.0,
                                softmax_selfnorm_alpha=0.1,
                                layer_attr=None):
    ipts, parents = _cost_inputs(input, label, None,
                                 'cross_entropy_with_selfnorm')
    Layer(
        name=name,
        type=LayerType.CROSS_ENTROPY_WITH_SELFNORM,
        inputs=ipts,
        coeff=coeff,
        softmax_selfnorm_alpha=softmax_selfnorm_alpha,
        **_extra(layer_attr))
    return LayerOutput(
        name, LayerType.CROSS_ENTROPY_WITH_SELFNORM, parents=parents, size=1)


@wrap_name_default()
@layer_support()
def sum_cost(input, name=None, layer_attr=None):
    _check_input(input, 'input', 'sum_cost')
    Layer(
        name=name,
        type=LayerType.SUM_COST,
        inputs=[input.name],
        **_extra(layer_attr))
    return LayerOutput(name, LayerType.SUM_COST, parents=[input], size=1)


@wrap_name_default()
@layer_support()
def rank_cost(left, right, label, weight=None, name=None, coeff=1.0,
              layer_attr=None):
    """Pairwise ranking cost on scores left/right (size 1) and a 0/1 label."""
    for what, l in (('left', left), ('right', right), ('label', label)):
        _check_input(l, what, 'rank_cost')
    ipts = [left.name, right.name, label.name]
    parents = [left, right, label]
    if weight is not None:
        _check_input(weight, 'weight', 'rank_cost')
        ipts.append(weight.name)
        parents.append(weight)
    Layer(
        name=name,
        type=LayerType.RANK_COST,
        inputs=ipts,
        coeff=coeff,
        **_extra(layer_attr))
    return LayerOutput(name, LayerType.RANK_COST, parents=parents, size=1)


@wrap_name_default()
@layer_support()
def lambda_cost(input, score, name=None, NDCG_num=5, max_sort_size=-1,
                layer_attr=None):
    _check_input(input, 'input', 'lambda_cost')
    _check_input(score, 'score', 'lambda_cost')
    if input.size is not None:
        config_assert(input.size == 1, 'lambda_cost: input must have size 1')
    if score.size is not None:
        config_assert(score.size == 1, 'lambda_cost: score must have size 1')
    Layer(
        name=name,
        type=LayerType.LAMBDA_COST,
        inputs=[input.name, score.name],
        NDCG_num=NDCG_num,
        max_sort_size=max_sort_size,
        **_extra(layer_attr))
    return LayerOutput(
        name, LayerType.LAMBDA_COST, parents=[input, score], size=1)


# ---------------------------------------------------------------------------
# levels


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


# ---------------------------------------------------------------------------
# projections / operators (inputs of mixed_layer and concat_layer)


def _proj(cls, input, helper, **kwargs):
    _check_input(input, 'input', helper)
    proj = cls(input_layer_name=input.name, **kwargs)
    proj.origin = input
    return proj


@wrap_param_attr_default()
def full_matrix_projection(input, size=0, param_attr=None):
    """x * W, W of dims [input.size, size]."""
    _check_param_attr(param_attr, 'full_matrix_projection')
    return _proj(cp.FullMatrixProjection, input, 'full_matrix_projection',
                 size=size, **param_attr.attr)


@wrap_param_attr_default()
def trans_full_matrix_projection(input, size=0, param_attr=None):
    """x * W^T, W of dims [size, input.size]."""
    _check_param_attr(param_attr, 'trans_full_matrix_projection')
    return _proj(cp.TransposedFullMatrixProjection, input,
                 'trans_full_matrix_projection', size=size,
                 **param_attr.attr)


@wrap_param_attr_default()
def table_projection(input, size=0, param_attr=None):
    """Row lookup W[id] for an integer (id) input; W of dims [vocab, size]."""
    _check_param_attr(param_attr, 'table_projection')
    return _proj(cp.TableProjection, input, 'table_projection', size=size,
                 **param_attr.attr)


def identity_projection(input, offset=None, size=None):
    """Copy of the input, or its slice [offset, offset + layer size)."""
    if offset is None:
        return _proj(cp.IdentityProjection, input, 'identity_projection')
    kwargs = {} if size is None else {'size': size}
    return _proj(cp.IdentityOffsetProjection, input, 'identity_projection',
                 offset=offset, **kwargs)


@wrap_param_attr_default()
def dotmul_projection(input, param_attr=None, scale=None):
    """x .* w (element-wise weight of dims [1, size]).

    b0 spelling: dotmul_projection(input=[a, b], scale=s) is the
    parameter-free operator s * a .* b (dotmul_operator since b1)."""
    if isinstance(input, (list, tuple)):
        if len(input) != 2:
            raise ConfigError('dotmul_projection: the b0 form takes input=[a, '
                              'b] (2 layers), got %d items' % len(input))
        return dotmul_operator(a=input[0], b=input[1],
                               scale=1 if scale is None else scale)
    if scale is not None:
        raise ConfigError('dotmul_projection: scale is only valid with '
                          'input=[a, b] (use dotmul_operator)')
    _check_input(input, 'input', 'dotmul_projection')
    _check_param_attr(param_attr, 'dotmul_projection')
    return _proj(cp.DotMulProjection, input, 'dotmul_projection',
                 size=input.size, **param_attr.attr)


@wrap_param_attr_default()
def scaling_projection(input, param_attr=None):
    """w * x with one scalar weight."""
    _check_param_attr(param_attr, 'scaling_projection')
    return _proj(cp.ScalingProjection, input, 'scaling_projection',
                 **param_attr.attr)


def dotmul_operator(a=None, b=None, scale=1, **kwargs):
    """scale * a .* b (no parameter)."""
    if 'x' in kwargs or 'y' in kwargs:
        a = kwargs.get('x', a)
        b = kwargs.get('y', b)
    _check_input(a, 'a', 'dotmul_operator')
    _check_input(b, 'b', 'dotmul_operator')
    if a.size is not None and b.size is not None and a.size != b.size:
        raise ConfigError(
            "dotmul_operator: inputs '%s' (size %d) and '%s' (size %d) must "
            "have the same size" % (a.name, a.size, b.name, b.size))
    op = cp.DotMulOperator(input_layer_names=[a.name, b.name], scale=scale)
    op.origin = [a, b]
    return op


def context_projection(input, context_len, context_start=None,
                       padding_attr=False):
    """Concatenate the features of context_len neighbouring steps
    (starting at context_start, default -(context_len-1)/2)."""
    _check_input(input, 'input', 'context_projection')
    context_start = -(context_len - 1) // 2 if context_start is None \
        else context_start
    extra = dict()
    trainable = isinstance(padding_attr, ParameterAttribute)
    if trainable:
        extra = padding_attr.attr
    return _proj(cp.ContextProjection, input, 'context_projection',
                 context_start=context_start, context_length=context_len,
                 trainable_padding=trainable, **extra)


def _pair(v, vy, what):
    if isinstance(v, (list, tuple)):
        if len(v) != 2:
            raise ConfigError('%s must be a number or an (x, y) pair' % what)
        return v[0], v[1]
    return v, (v if vy is None else vy)


def _num_channels(input, num_channels, helper):
    if num_channels is None:
        if input.num_filters is not None:
            return input.num_filters
        if input.size is not None and input.layer_type == LayerType.DATA:
            return 1
        raise ConfigError('%s: num_channels is required for input %s' %
                          (helper, input.name))
    return num_channels


@wrap_param_attr_default()
def conv_projection(input,
                    filter_size,
                    num_filters,
                    num_channels=None,
                    stride=1,
                    padding=0,
                    filter_size_y=None,
                    stride_y=None,
                    padding_y=None,
                    groups=1,
                    param_attr=None,
                    trans=False):
    """Convolution as a projection of a mixed/concat layer."""
    _check_input(input, 'input', 'conv_projection')
    num_channels = _num_channels(input, num_channels, 'conv_projection')
    filter_size, filter_size_y = _pair(filter_size, filter_size_y,
                                       'filter_size')
    stride, stride_y = _pair(stride, stride_y, 'stride')
    padding, padding_y = _pair(padding, padding_y, 'padding')
    if param_attr.attr.get('initial_smart'):
        init_w = (2.0 / (filter_size**2 * num_channels))**0.5
        param_attr.attr['initial_mean'] = 0.0
        param_attr.attr['initial_std'] = init_w
        param_attr.attr['initial_strategy'] = 0
        param_attr.attr['initial_smart'] = False
    cls = cp.ConvTransProjection if trans else cp.ConvProjection
    proj = cls(
        input_layer_name=input.name,
        num_filters=num_filters,
        conv_conf=cp.Conv(
            filter_size=filter_size,
            padding=padding,
            stride=stride,
            channels=num_channels,
            filter_size_y=filter_size_y,
            padding_y=padding_y,
            stride_y=stride_y,
            groups=groups),
        **param_attr.attr)
    proj.origin = input
    return proj


def conv_operator(img=None,
                  filter=None,
                  filter_size=None,
                  num_filters=None,
                  num_channels=None,
                  stride=1,
                  padding=0,
                  filter_size_y=None,
                  stride_y=None,
                  padding_y=None,
                  trans=False,
                  input=None):
    """Convolution of img by a per-sample filter given by another layer.
    (b0 spelling: conv_operator(input=[img, filter], ...).)"""
    if input is not None:
        if not isinstance(input, (list, tuple)) or len(input) != 2:
            raise ConfigError('conv_operator: input must be [img, filter]')
        img, filter = input
    if filter_size is None:
        raise ConfigError('conv_operator: filter_size is required')
    if num_filters is None:
        raise ConfigError('conv_operator: num_filters is required')
    _check_input(img, 'img', 'conv_operator')
    _check_input(filter, 'filter', 'conv_operator')
    filter_size, filter_size_y = _pair(filter_size, filter_size_y,
                                       'filter_size')
    stride, stride_y = _pair(stride, stride_y, 'stride')
    padding, padding_y = _pair(padding, padding_y, 'padding')
    if num_channels is None:
        num_channels = img.num_filters
    cls = cp.ConvTransOperator if trans else cp.ConvOperator
    op = cls(
        input_layer_names=[img.name, filter.name],
        num_filters=num_filters,
        conv_conf=cp.Conv(
            filter_size=filter_size,
            padding=padding,
            stride=stride,
            channels=num_channels,
            filter_size_y=filter_size_y,
            padding_y=padding_y,
            stride_y=stride_y,
            groups=1))
    op.origin = [img, filter]
    return op


# ---------------------------------------------------------------------------
# mixed layer


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


# ---------------------------------------------------------------------------
# sequence layers


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
    Layer(
        inputs=[input.name],
        name=name,
        size=reshape_size,
        type=LayerType.SEQUENCE_RESHAPE,
        bias=_bias(bias_attr),
        active_type=act.name,
        **_extra(layer_attr))
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


# ---------------------------------------------------------------------------
# combination layers


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


@wrap_name_default()
@layer_support()
def slope_intercept_layer(input, name=None, slope=1.0, intercept=0.0,
                          layer_attr=None):
    """slope * x + intercept."""
    _check_input(input, 'input', 'slope_intercept_layer')
    Layer(
        name=name,
        type=LayerType.SLOPE_INTERCEPT_LAYER,
        slope=slope,
        intercept=intercept,
        inputs=[input.name],
        **_extra(layer_attr))
    return LayerOutput(name, LayerType.SLOPE_INTERCEPT_LAYER, [input],
                       size=input.size)


@wrap_name_default()
@layer_support()
def scaling_layer(input, weight, name=None, layer_attr=None):
    """weight (size 1, per sample) * input."""
    _check_input(input, 'input', 'scaling_layer')
    _check_input(weight, 'weight', 'scaling_layer')
    Layer(
        name=name,
        type=LayerType.SCALING_LAYER,
        inputs=[weight.name, input.name],
        **_extra(layer_attr))
    return LayerOutput(name, LayerType.SCALING_LAYER, parents=[weight, input],
                       size=input.size)


@wrap_name_default()
@layer_support()
def power_layer(input, weight, name=None, layer_attr=None):
    """input ** weight (weight of size 1, per sample)."""
    _check_input(input, 'input', 'power_layer')
    _check_input(weight, 'weight', 'power_layer')
    Layer(
        name=name,
        type=LayerType.POWER_LAYER,
        inputs=[weight.name, input.name],
        **_extra(layer_attr))
    return LayerOutput(name, LayerType.POWER_LAYER, parents=[weight, input],
                       size=input.size)


@wrap_name_default()
@layer_support()
def interpolation_layer(input, weight, name=None, layer_attr=None):
    """w * a + (1 - w) * b for input=[a, b]."""
    if not isinstance(input, (list, tuple)) or len(input) != 2:
        raise ConfigError('interpolation_layer: input must be [a, b]')
    a, b = input
    for what, l in (('input[0]', a), ('input[1]', b), ('weight', weight)):
        _check_input(l, what, 'interpolation_layer')
    Layer(
        name=name,
        type=LayerType.INTERPOLATION_LAYER,
        inputs=[weight.name, a.name, b.name],
        **_extra(layer_attr))
    return LayerOutput(name, LayerType.INTERPOLATION_LAYER,
                       parents=[weight, a, b], size=a.size)


@wrap_name_default()
@layer_support()
def out_prod_layer(input1, input2, name=None, layer_attr=None):
    _check_input(input1, 'input1', 'out_prod_layer')
    _check_input(input2, 'input2', 'out_prod_layer')
    l = Layer(
        name=name,
        type=LayerType.OUT_PROD_LAYER,
        inputs=[input1.name, input2.name],
        **_extra(layer_attr))
    return LayerOutput(name, LayerType.OUT_PROD_LAYER,
                       parents=[input1, input2], size=l.config.size)


@wrap_name_default()
@layer_support()
@_positional(2)
def conv_shift_layer(a=None, b=None, name=None, layer_attr=None,
                     input=None):
    """Circular convolution of a by the odd-sized kernel b
    (b0 spelling: conv_shift_layer(input=[a, b]))."""
    a, b = _b0_pair(a, b, input, 'conv_shift_layer')
    _check_input(a, 'a', 'conv_shift_layer')
    _check_input(b, 'b', 'conv_shift_layer')
    if b.size is not None and b.size % 2 != 1:
        raise ConfigError('conv_shift_layer: b must have an odd size, got %d'
                          % b.size)
    Layer(
        name=name,
        type=LayerType.CONV_SHIFT_LAYER,
        inputs=[a.name, b.name],
        **_extra(layer_attr))
    return LayerOutput(name, LayerType.CONV_SHIFT_LAYER, parents=[a, b],
                       size=a.size)


@wrap_name_default()
@layer_support()
@_positional(2)
def linear_comb_layer(weights=None, vectors=None, size=None, name=None,
                      layer_attr=None, input=None):
    """out = sum_i weights[i] * vectors[i*size:(i+1)*size]
    (b0 spelling: convex_comb_layer(input=[weights, vectors], size))."""
    weights, vectors = _b0_pair(weights, vectors, input, 'linear_comb_layer')
    _check_input(weights, 'weights', 'linear_comb_layer')
    _check_input(vectors, 'vectors', 'linear_comb_layer')
    if size is None:
        size = vectors.size // weights.size
    Layer(
        name=name,
        type=LayerType.LINEAR_COMBINATION_LAYER,
        size=size,
        inputs=[Input(weights.name), Input(vectors.name)],
        **_extra(layer_attr))
    return LayerOutput(name, LayerType.LINEAR_COMBINATION_LAYER,
                       [weights, vectors], size=size)


convex_comb_layer = linear_comb_layer


@wrap_name_default()
@wrap_param_attr_default()
@wrap_bias_attr_default()
@wrap_act_default(act=LinearActivation())
@layer_support(ERROR_CLIPPING, DROPOUT)
@_positional(3)
def tensor_layer(a=None, b=None, size=None, act=None, name=None,
                 param_attr=None, bias_attr=None, layer_attr=None,
                 input=None):
    """y_k = a^T W_k b (+ bias) (b0 spelling: tensor_layer(input=[a, b],
    size))."""
    a, b = _b0_pair(a, b, input, 'tensor_layer')
    size = _size_arg(size, 'tensor_layer')
    _check_input(a, 'a', 'tensor_layer')
    _check_input(b, 'b', 'tensor_layer')
    Layer(
        name=name,
        size=size,
        type=LayerType.TENSOR_LAYER,
        active_type=act.name,
        bias=_bias(bias_attr),
        inputs=[Input(a.name, **param_attr.attr), Input(b.name)],
        **_extra(layer_attr))
    return LayerOutput(name, LayerType.TENSOR_LAYER, parents=[a, b],
                       activation=act, size=size)


@wrap_name_default()
@layer_support()
def sampling_id_layer(input, name=None, layer_attr=None):
    _check_input(input, 'input', 'sampling_id_layer')
    l = Layer(name=name, type=LayerType.SAMPLING_ID_LAYER,
              inputs=[Input(input.name)], **_extra(layer_attr))
    return LayerOutput(name, LayerType.SAMPLING_ID_LAYER, input,
                       size=l.config.size)


@wrap_name_default()
@layer_support()
def maxid_layer(input, name=None, layer_attr=None):
    """Index of the max of each row (outputs ids)."""
    _check_input(input, 'input', 'maxid_layer')
    l = Layer(name=name, type='maxid', inputs=[input.name],
              **_extra(layer_attr))
    return LayerOutput(name, LayerType.MAXID_LAYER, parents=[input],
                       size=l.config.size)


@wrap_name_default()
@layer_support()
def eos_layer(input, eos_id, name=None, layer_attr=None):
    _check_input(input, 'input', 'eos_layer')
    l = Layer(name=name, type=LayerType.EOSID_LAYER, eos_id=eos_id,
              inputs=[input.name], **_extra(layer_attr))
    return LayerOutput(name, LayerType.EOSID_LAYER, parents=[input],
                       size=l.config.size)


@wrap_name_default('print')
def print_layer(input, name=None):
    """Logs its inputs' values (not part of the outputs)."""
    inputs = _check_input_list(input, 'print_layer')
    Layer(name=name, type=LayerType.PRINT_LAYER,
          inputs=[l.name for l in inputs])


@wrap_name_default()
@layer_support()
def rotate_layer(input, height, width, name=None, layer_attr=None):
    _check_input(input, 'input', 'rotate_layer')
    l = Layer(name=name, height=height, width=width,
              type=LayerType.ROTATE_LAYER, inputs=[input.name],
              **_extra(layer_attr))
    return LayerOutput(name, LayerType.ROTATE_LAYER, parents=[input],
                       size=l.config.size)


@wrap_name_default()
@layer_support()
def get_output_layer(input, arg_name, name=None, layer_attr=None):
    """Expose the secondary output `arg_name` (e.g. 'state') of input."""
    _check_input(input, 'input', 'get_output_layer')
    if arg_name not in input.outputs:
        raise ConfigError("get_output_layer: layer '%s' has no output '%s' "
                          "(it has: %s)" % (input.name, arg_name,
                                            ', '.join(input.outputs)))
    Layer(
        name=name,
        type=LayerType.GET_OUTPUT_LAYER,
        inputs=[Input(input.name, input_layer_argument=arg_name)],
        size=input.size,
        **_extra(layer_attr))
    return LayerOutput(name, LayerType.GET_OUTPUT_LAYER, parents=[input],
                       size=input.size)


# ---------------------------------------------------------------------------
# recurrent layers


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


@wrap_name_default('memory', 'memory_name')
def memory(name, size, is_seq=False, boot_layer=None, boot_bias=None,
           boot_bias_active_type=None, boot_with_const_id=None,
           memory_name=None):
    """The previous time step's output of layer `name` inside a
    recurrent_group step (boot: zeros, boot_layer, boot_bias or const id)."""
    if boot_bias_active_type is None:
        boot_bias_active_type = LinearActivation()
    if boot_bias is not None and not isinstance(boot_bias,
                                                ParameterAttribute):
        raise ConfigError('memory: boot_bias must be a ParamAttr(...)')
    if isinstance(boot_bias, ParameterAttribute):
        boot_bias = ParamAttr.to_bias(boot_bias)
    if boot_layer is not None:
        _check_input(boot_layer, 'boot_layer', 'memory')
    if name is not None:
        memory_name = None
    size = _size_arg(size, 'memory')
    agent_name = cp.Memory(
        name,
        size,
        is_sequence=is_seq,
        boot_layer=boot_layer.name if boot_layer is not None else None,
        boot_bias=boot_bias if boot_bias is not None else False,
        boot_bias_active_type=boot_bias_active_type.name,
        boot_with_const_id=boot_with_const_id,
        memory_name=memory_name)
    return LayerOutput(
        name=agent_name,
        size=size,
        layer_type=LayerType.MEMORY,
        parents=[boot_layer] if boot_layer is not None else None)


class SubsequenceInput(object):
    """A nested-sequence in-link of recurrent_group (one step per
    sub-sequence)."""

    def __init__(self, input):
        _check_input(input, 'input', 'SubsequenceInput')
        self.input = input


class StaticInput(object):
    """A read-only input of recurrent_group, the same at every step."""

    def __init__(self, input, is_seq=False, size=None):
        _check_input(input, 'input', 'StaticInput')
        self.input = input
        self.is_seq = is_seq
        if size is not None and input.size is not None and \
                size != input.size:
            raise ConfigError('StaticInput: size %d != input size %d' %
                              (size, input.size))
        if input.size is None:
            input.size = size


class BaseGeneratedInput(abc.ABC):
    """What beam_search feeds back into the step: before_real_step gives the
    step its input for the previous id, after_real_step turns the step's
    output into the next id."""

    def __init__(self):
        self.bos_id = None
        self.eos_id = None

    @abc.abstractmethod
    def before_real_step(self):
        pass

    @abc.abstractmethod
    def after_real_step(self, *args):
        pass


class GeneratedInput(BaseGeneratedInput):
    """In beam_search: the embedding of the word generated at the previous
    step (ids from the memory '__beam_search_predict__')."""

    def __init__(self, size, embedding_name, embedding_size):
        BaseGeneratedInput.__init__(self)
        self.size = size
        self.embedding_name = embedding_name
        self.embedding_size = embedding_size

    def after_real_step(self, input):
        return maxid_layer(input=input, name='__beam_search_predict__')

    def before_real_step(self):
        predict_id = memory(
            name='__beam_search_predict__',
            size=self.size,
            boot_with_const_id=self.bos_id)
        return embedding_layer(
            input=predict_id,
            size=self.embedding_size,
            param_attr=ParamAttr(name=self.embedding_name))


@wrap_name_default()
def recurrent_group(step, input, reverse=False, name=None,
                    targetInlink=None, is_generating=False):
    """Run step(*inputs) once per time step of the in-link sequences;
    returns the step's output layer(s) as sequences."""
    cp.model_type('recurrent_nn')
    if not callable(step):
        raise ConfigError('recurrent_group: step must be a function')

    def single(x):
        return isinstance(x, (LayerOutput, StaticInput, SubsequenceInput))

    if single(input):
        input = [input]
    if not isinstance(input, (list, tuple)):
        raise ConfigError('recurrent_group: input must be a layer, '
                          'StaticInput, SubsequenceInput or a list of them')
    in_links = []
    for each in input:
        if isinstance(each, LayerOutput):
            in_links.append(each.name)
        elif isinstance(each, SubsequenceInput):
            in_links.append(cp.Link(each.input.name, has_subseq=True))
        elif not isinstance(each, StaticInput):
            raise ConfigError('recurrent_group: bad input %s' %
                              _type_desc(each))
    if targetInlink is not None:
        target = targetInlink.input if isinstance(
            targetInlink, SubsequenceInput) else targetInlink
        target_name = target.name
    else:
        target_name = ''
    cp.RecurrentLayerGroupWithoutOutLinksBegin(
        name=name,
        in_links=in_links,
        seq_reversed=reverse,
        target_inlinkname=target_name)
    in_args = []
    has_link = False
    for each in input:
        if isinstance(each, LayerOutput):
            in_args.append(each)
            has_link = True
        elif isinstance(each, SubsequenceInput):
            in_args.append(each.input)
            has_link = True
        else:
            mem_name = '__%s_memory__' % each.input.name
            mem = memory(
                name=mem_name,
                is_seq=each.is_seq,
                size=each.input.size,
                boot_layer=each.input)
            with mixed_layer(name=mem_name, size=each.input.size,
                             act=IdentityActivation()) as mix:
                mix += identity_projection(mem)
            in_args.append(mem)
    if is_generating == has_link:
        raise ConfigError(
            'recurrent_group needs at least one sequence in-link (a layer '
            'or SubsequenceInput)' if not is_generating else
            'a generating group takes only StaticInput inputs')
    layer_outs = step(*in_args)
    if isinstance(layer_outs, LayerOutput):
        layer_outs = [layer_outs]
    if not isinstance(layer_outs, (list, tuple)) or not layer_outs:
        raise ConfigError('recurrent_group: step must return a layer or a '
                          'list of layers')
    for ot in layer_outs:
        _check_input(ot, 'step output', 'recurrent_group')
        ot.reverse = reverse
        cp.RecurrentLayerGroupSetOutLink(ot.name)
    cp.RecurrentLayerGroupEnd(name=name)
    for ot in layer_outs:
        ot.full_name = cp.MakeLayerNameInSubmodel(ot.name)
    return layer_outs[0] if len(layer_outs) == 1 else layer_outs


@wrap_name_default()
def beam_search(step, input, bos_id, eos_id, beam_size, max_length=500,
                name=None, num_results_per_sample=None, result_file=None,
                dict_file='', id_input=None):
    """Generate sequences with beam search; exactly one input must be a
    GeneratedInput, the others StaticInput.

    b0 spelling: result_file (+ dict_file, id_input) also adds the
    seq_text_printer evaluator 'target_printer' (b1+: call
    seqtext_printer_evaluator yourself)."""
    if id_input is not None:
        _check_input(id_input, 'id_input', 'beam_search')
    if num_results_per_sample is None:
        num_results_per_sample = beam_size
    if isinstance(input, (StaticInput, BaseGeneratedInput)):
        input = [input]
    generated_index = -1
    real_input = []
    for i, each in enumerate(input):
        if isinstance(each, BaseGeneratedInput):
            if generated_index != -1:
                raise ConfigError('beam_search: only one GeneratedInput')
            generated_index = i
        elif isinstance(each, StaticInput):
            real_input.append(each)
        else:
            raise ConfigError('beam_search: inputs must be StaticInput or '
                              'GeneratedInput, got %s' % _type_desc(each))
    if generated_index == -1:
        raise ConfigError('beam_search needs a GeneratedInput')
    gipt = input[generated_index]
    gipt.bos_id = bos_id
    gipt.eos_id = eos_id

    def __real_step__(*args):
        eos_name = '__%s_eos_layer__' % name
        cp.RecurrentLayerGroupSetGenerator(
            cp.Generator(
                eos_layer_name=eos_name,
                max_num_frames=max_length,
                beam_size=beam_size,
                num_results_per_sample=num_results_per_sample))
        args = list(args)
        args.insert(generated_index, gipt.before_real_step())
        predict = gipt.after_real_step(step(*args))
        eos_layer(input=predict, eos_id=eos_id, name=eos_name)
        return predict

    gen = recurrent_group(step=__real_step__, input=real_input,
                          reverse=False, name=name, is_generating=True)
    if result_file is not None:
        from .evaluators import seqtext_printer_evaluator
        seqtext_printer_evaluator(input=gen, id_input=id_input,
                                  dict_file=dict_file or None,
                                  result_file=result_file,
                                  name='target_printer')
    return gen


# ---------------------------------------------------------------------------
# image layers


def _img_channels(input, num_channels, helper):
    if num_channels is None:
        if input.num_filters is None:
            raise ConfigError(
                "%s: num_channels is required (input '%s' does not carry a "
                "channel count)" % (helper, input.name))
        return input.num_filters
    return num_channels


@wrap_name_default('conv')
@wrap_param_attr_default()
@wrap_bias_attr_default()
@wrap_act_default(act=ReluActivation())
@layer_support(DROPOUT)
def img_conv_layer(input, filter_size, num_filters, name=None,
                   num_channels=None, act=None, groups=1, stride=1,
                   padding=0, bias_attr=None, param_attr=None,
                   shared_biases=True, layer_attr=None, filter_size_y=None,
                   stride_y=None, padding_y=None, trans=False,
                   layer_type=None):
    """2-D convolution (type exconv, or cudnn_conv with use_gpu=1)."""
    _check_input(input, 'input', 'img_conv_layer')
    num_channels = _img_channels(input, num_channels, 'img_conv_layer')
    filter_size, filter_size_y = _pair(filter_size, filter_size_y,
                                       'filter_size')
    stride, stride_y = _pair(stride, stride_y, 'stride')
    padding, padding_y = _pair(padding, padding_y, 'padding')
    if param_attr.attr.get('initial_smart'):
        init_w = (2.0 / (filter_size**2 * num_channels))**0.5
        param_attr.attr['initial_mean'] = 0.0
        param_attr.attr['initial_std'] = init_w
        param_attr.attr['initial_strategy'] = 0
        param_attr.attr['initial_smart'] = False
    if layer_type:
        ok = ('exconvt', 'cudnn_convt') if trans else ('exconv',
                                                       'cudnn_conv')
        if layer_type not in ok:
            raise ConfigError('img_conv_layer: layer_type must be one of %s'
                              % ', '.join(ok))
        lt = layer_type
    else:
        lt = LayerType.CONVTRANS_LAYER if trans else LayerType.CONV_LAYER
    l = Layer(
        name=name,
        inputs=Input(
            input.name,
            conv=cp.Conv(
                filter_size=filter_size,
                padding=padding,
                stride=stride,
                channels=num_channels,
                groups=groups,
                filter_size_y=filter_size_y,
                padding_y=padding_y,
                stride_y=stride_y),
            **param_attr.attr),
        active_type=act.name,
        num_filters=num_filters,
        bias=_bias(bias_attr),
        shared_biases=shared_biases,
        type=lt,
        **_extra(layer_attr))
    return LayerOutput(name, lt, parents=[input], activation=act,
                       num_filters=num_filters, size=l.config.size)


def _pool_type_name(pool_type, helper):
    if isinstance(pool_type, AvgPooling):
        return 'avg-projection'
    if isinstance(pool_type, MaxPooling):
        return 'max-projection'
    if isinstance(pool_type, (CudnnMaxPooling, CudnnAvgPooling)):
        return pool_type.name
    raise ConfigError('%s: pool_type must be MaxPooling() or AvgPooling(), '
                      'got %s' % (helper, _type_desc(pool_type)))


@wrap_name_default('pool')
@layer_support()
def img_pool_layer(input, pool_size, name=None, num_channels=None,
                   pool_type=None, stride=1, padding=0, layer_attr=None,
                   pool_size_y=None, stride_y=None, padding_y=None,
                   ceil_mode=True, start=None):
    """Max/average pooling over image windows. (`start` is the b0/b1
    spelling; like v0.9+ only start=None/0 is accepted.)"""
    if start:
        raise ConfigError('img_pool_layer: start is deprecated in pooling '
                          '(v0.9+); use padding')
    _check_input(input, 'input', 'img_pool_layer')
    num_channels = _img_channels(input, num_channels, 'img_pool_layer')
    if pool_type is None:
        pool_type = MaxPooling()
    type_name = _pool_type_name(pool_type, 'img_pool_layer')
    pool_size, pool_size_y = _pair(pool_size, pool_size_y, 'pool_size')
    stride, stride_y = _pair(stride, stride_y, 'stride')
    padding, padding_y = _pair(padding, padding_y, 'padding')
    l = Layer(
        name=name,
        type=LayerType.POOL_LAYER,
        inputs=[
            Input(
                input.name,
                pool=cp.Pool(
                    pool_type=type_name,
                    channels=num_channels,
                    size_x=pool_size,
                    start=None,
                    stride=stride,
                    padding=padding,
                    size_y=pool_size_y,
                    stride_y=stride_y,
                    padding_y=padding_y))
        ],
        ceil_mode=ceil_mode,
        **_extra(layer_attr))
    return LayerOutput(name, LayerType.POOL_LAYER, parents=[input],
                       num_filters=num_channels, size=l.config.size)


@wrap_name_default('spp')
@layer_support()
def spp_layer(input, name=None, num_channels=None, pool_type=None,
              pyramid_height=None, layer_attr=None):
    """Spatial pyramid pooling."""
    _check_input(input, 'input', 'spp_layer')
    num_channels = _img_channels(input, num_channels, 'spp_layer')
    if pool_type is None:
        pool_type = MaxPooling()
    type_name = _pool_type_name(pool_type, 'spp_layer')
    l = Layer(
        name=name,
        type=LayerType.SPP_LAYER,
        inputs=Input(
            input.name,
            spp=cp.SpatialPyramidPool(
                pool_type=type_name,
                channels=num_channels,
                pyramid_height=pyramid_height)),
        **_extra(layer_attr))
    return LayerOutput(name, LayerType.SPP_LAYER, parents=[input],
                       num_filters=num_channels, size=l.config.size)


@wrap_name_default('crmnorm')
@layer_support()
def img_cmrnorm_layer(input, size, scale=0.0128, power=0.75, name=None,
                      num_channels=None, layer_attr=None, blocked=0):
    """Local response normalisation across channels (`blocked` is the b0
    spelling; it is written to norm_conf)."""
    _check_input(input, 'input', 'img_cmrnorm_layer')
    num_channels = _img_channels(input, num_channels, 'img_cmrnorm_layer')
    l = Layer(
        name=name,
        type=LayerType.NORM_LAYER,
        inputs=Input(
            input.name,
            norm=cp.Norm(
                norm_type='cmrnorm-projection',
                channels=num_channels,
                size=size,
                scale=scale,
                pow=power,
                blocked=blocked)),
        **_extra(layer_attr))
    return LayerOutput(name, LayerType.NORM_LAYER, parents=[input],
                       num_filters=num_channels,
                       img_norm_type='cmrnorm-projection',
                       size=l.config.size)


@wrap_name_default('rnorm')
@layer_support()
def img_rnorm_layer(input, size, scale, power, name=None, num_channels=None,
                    layer_attr=None):
    """b0 only (removed in b1): response normalisation within a channel,
    norm type 'rnorm' (stored scale = scale / size**2)."""
    _check_input(input, 'input', 'img_rnorm_layer')
    num_channels = _img_channels(input, num_channels, 'img_rnorm_layer')
    l = Layer(
        name=name,
        type=LayerType.NORM_LAYER,
        inputs=Input(
            input.name,
            norm=cp.Norm(norm_type='rnorm', channels=num_channels,
                         size=size, scale=scale, pow=power)),
        **_extra(layer_attr))
    return LayerOutput(name, LayerType.NORM_LAYER, parents=[input],
                       num_filters=num_channels, img_norm_type='rnorm',
                       size=l.config.size)


@wrap_name_default('cross_channel_norm')
@wrap_param_attr_default()
def cross_channel_norm_layer(input, name=None, param_attr=None):
    """v0.10 (SSD): L2-normalise each pixel across channels, then scale
    each channel by a learned weight (dims [C, 1])."""
    _check_input(input, 'input', 'cross_channel_norm_layer')
    _check_param_attr(param_attr, 'cross_channel_norm_layer')
    if input.num_filters is None:
        raise ConfigError("cross_channel_norm_layer: input '%s' does not "
                          "carry a channel count (use an image layer)" %
                          input.name)
    Layer(
        name=name,
        type=LayerType.NORM_LAYER,
        inputs=[
            Input(
                input.name,
                norm=cp.Norm(norm_type='cross-channel-norm',
                             channels=input.num_filters, size=input.size,
                             scale=0, pow=0, blocked=0),
                **param_attr.attr)
        ])
    return LayerOutput(name, LayerType.NORM_LAYER, parents=[input],
                       num_filters=input.num_filters, size=input.size)


@wrap_name_default('priorbox')
def priorbox_layer(input, image, aspect_ratio, variance, min_size,
                   max_size=[], name=None):
    """v0.10 (SSD): prior boxes for each position of the feature map
    `input` over the data layer `image` (which must have height/width).
    Output: 2 * (H*W of input) * num_filters values, num_filters =
    (2*len(aspect_ratio) + 1 + len(max_size)) * 4 (boxes, then
    variances)."""
    _check_input(input, 'input', 'priorbox_layer')
    _check_input(image, 'image', 'priorbox_layer')
    if input.num_filters is None or input.size is None:
        raise ConfigError("priorbox_layer: input '%s' does not carry a "
                          "channel count (use an image layer)" % input.name)
    num_filters = (len(aspect_ratio) * 2 + 1 + len(max_size)) * 4
    size = (input.size // input.num_filters) * num_filters * 2
    Layer(
        name=name,
        type=LayerType.PRIORBOX_LAYER,
        inputs=[input.name, image.name],
        size=size,
        min_size=min_size,
        max_size=max_size,
        aspect_ratio=aspect_ratio,
        variance=variance)
    return LayerOutput(name, LayerType.PRIORBOX_LAYER,
                       parents=[input, image], num_filters=num_filters,
                       size=size)


@wrap_bias_attr_default()
@wrap_param_attr_default(
    default_factory=lambda _: ParamAttr(initial_mean=1.0, initial_std=0.))
@wrap_act_default(act=ReluActivation())
@wrap_name_default('batch_norm')
@layer_support(DROPOUT)
def batch_norm_layer(input, act=None, name=None, num_channels=None,
                     bias_attr=None, param_attr=None, layer_attr=None,
                     batch_norm_type=None, moving_average_fraction=0.9,
                     use_global_stats=None):
    """Batch normalisation (per channel for images)."""
    _check_input(input, 'input', 'batch_norm_layer')
    if num_channels is None:
        num_channels = input.num_filters if input.num_filters is not None \
            else input.size
    if batch_norm_type not in (None, 'batch_norm', 'cudnn_batch_norm'):
        raise ConfigError("batch_norm_layer: batch_norm_type must be None, "
                          "'batch_norm' or 'cudnn_batch_norm'")
    l = Layer(
        name=name,
        inputs=Input(input.name, image=cp.Image(channels=num_channels),
                     **param_attr.attr),
        active_type=act.name,
        type=LayerType.BATCH_NORM_LAYER,
        batch_norm_type=batch_norm_type,
        bias=_bias(bias_attr),
        moving_average_fraction=moving_average_fraction,
        use_global_stats=use_global_stats,
        **_extra(layer_attr))
    return LayerOutput(name=name, layer_type=LayerType.BATCH_NORM_LAYER,
                       parents=[input], activation=act,
                       num_filters=num_channels, size=l.config.size)


@wrap_name_default()
@layer_support()
def block_expand_layer(input, block_x=0, block_y=0, stride_x=0, stride_y=0,
                       padding_x=0, padding_y=0, num_channels=None,
                       name=None, layer_attr=None, channel=None):
    """im2col: image -> sequence of block_x*block_y*C vectors.
    (`channel` is the b0 spelling of num_channels.)"""
    _check_input(input, 'input', 'block_expand_layer')
    if channel and num_channels is None:
        num_channels = channel
    num_channels = _img_channels(input, num_channels, 'block_expand_layer')
    l = Layer(
        name=name,
        inputs=Input(
            input.name,
            block_expand=cp.BlockExpand(
                channels=num_channels,
                block_x=block_x,
                block_y=block_y,
                stride_x=stride_x,
                stride_y=stride_y,
                padding_x=padding_x,
                padding_y=padding_y)),
        type=LayerType.BLOCK_EXPAND,
        **_extra(layer_attr))
    return LayerOutput(name, LayerType.BLOCK_EXPAND, parents=[input],
                       size=l.config.size)


@wrap_name_default()
@layer_support()
def maxout_layer(input, groups, num_channels=None, name=None,
                 layer_attr=None):
    _check_input(input, 'input', 'maxout_layer')
    num_channels = _img_channels(input, num_channels, 'maxout_layer')
    l = Layer(
        name=name,
        inputs=Input(input.name,
                     maxout=cp.MaxOut(channels=num_channels, groups=groups)),
        type=LayerType.MAXOUT,
        **_extra(layer_attr))
    return LayerOutput(name, LayerType.MAXOUT, parents=[input],
                       num_filters=num_channels // groups,
                       size=l.config.size)


@wrap_name_default()
@layer_support()
def bilinear_interp_layer(input, out_size_x=None, out_size_y=None,
                          name=None, layer_attr=None):
    _check_input(input, 'input', 'bilinear_interp_layer')
    num_channels = _img_channels(input, None, 'bilinear_interp_layer')
    l = Layer(
        name=name,
        inputs=Input(
            input.name,
            bilinear_interp=cp.BilinearInterp(
                out_size_x=out_size_x,
                out_size_y=out_size_y,
                channels=num_channels)),
        type=LayerType.BILINEAR_INTERP_LAYER,
        **_extra(layer_attr))
    return LayerOutput(name, LayerType.BILINEAR_INTERP_LAYER,
                       parents=[input], num_filters=num_channels,
                       size=l.config.size)


@wrap_name_default('pad')
@layer_support()
def pad_layer(input, pad_c=None, pad_h=None, pad_w=None, name=None,
              layer_attr=None):
    """Zero padding of channels/height/width (each a [before, after])."""
    _check_input(input, 'input', 'pad_layer')
    pads = []
    for what, p in (('pad_c', pad_c), ('pad_h', pad_h), ('pad_w', pad_w)):
        if p is None:
            p = [0, 0]
        if not isinstance(p, (list, tuple)) or len(p) != 2:
            raise ConfigError('pad_layer: %s must be a [before, after] pair'
                              % what)
        pads.append(list(p))
    num_channels = _img_channels(input, None, 'pad_layer')
    l = Layer(
        name=name,
        type=LayerType.PAD_LAYER,
        inputs=Input(input.name,
                     pad=cp.Pad(channels=num_channels, pad_c=pads[0],
                                pad_h=pads[1], pad_w=pads[2])),
        **_extra(layer_attr))
    return LayerOutput(name, LayerType.PAD_LAYER, parents=[input],
                       num_filters=num_channels + pads[0][0] + pads[0][1],
                       size=l.config.size)


# ---------------------------------------------------------------------------
# structured costs


@wrap_name_default()
@wrap_param_attr_default()
@layer_support()
def crf_layer(input, label, size=None, weight=None, param_attr=None,
              name=None, coeff=1.0, layer_attr=None):
    """Linear-chain CRF cost; transition weight dims [size+2, size]."""
    _check_input(input, 'input', 'crf_layer')
    _check_input(label, 'label', 'crf_layer')
    if size is None:
        size = input.size
    if input.size is not None and input.size != size:
        raise ConfigError("crf_layer: input '%s' has size %d but size=%d "
                          "(the number of labels)" % (input.name, input.size,
                                                      size))
    ipts = [Input(input.name, **param_attr.attr), Input(label.name)]
    parents = [input, label]
    if weight is not None:
        _check_input(weight, 'weight', 'crf_layer')
        ipts.append(Input(weight.name))
        parents.append(weight)
    Layer(name=name, type=LayerType.CRF_LAYER, size=size, inputs=ipts,
          coeff=coeff, **_extra(layer_attr))
    return LayerOutput(name, LayerType.CRF_LAYER, parents, size=1)


@wrap_name_default()
@wrap_param_attr_default()
@layer_support()
def crf_decoding_layer(input, size, label=None, param_attr=None, name=None,
                       layer_attr=None):
    """Viterbi decoding with the CRF transition weights."""
    _check_input(input, 'input', 'crf_decoding_layer')
    ipts = [Input(input.name, **param_attr.attr)]
    parents = [input]
    if label is not None:
        _check_input(label, 'label', 'crf_decoding_layer')
        ipts.append(Input(label.name))
        parents.append(label)
    Layer(name=name, type=LayerType.CRF_DECODING_LAYER, size=size,
          inputs=ipts, **_extra(layer_attr))
    return LayerOutput(name, LayerType.CRF_DECODING_LAYER, parents, size=1)


@wrap_name_default()
@layer_support()
def ctc_layer(input, label, size=None, name=None, norm_by_times=False,
              layer_attr=None):
    """CTC cost; size = number of classes + 1 (blank is the last)."""
    _check_input(input, 'input', 'ctc_layer')
    _check_input(label, 'label', 'ctc_layer')
    if label.size is not None:
        if size is not None and size != label.size + 1:
            raise ConfigError('ctc_layer: size must be label.size + 1 = %d' %
                              (label.size + 1))
        if size is None:
            size = label.size + 1
    Layer(name=name, type=LayerType.CTC_LAYER, size=size,
          norm_by_times=norm_by_times, inputs=[input.name, label.name],
          **_extra(layer_attr))
    return LayerOutput(name, LayerType.CTC_LAYER, [input, label], size=size)


@wrap_name_default()
@layer_support()
def warp_ctc_layer(input, label, size=None, name=None, blank=0,
                   norm_by_times=False, layer_attr=None):
    _check_input(input, 'input', 'warp_ctc_layer')
    _check_input(label, 'label', 'warp_ctc_layer')
    if label.size is not None:
        if size is None:
            size = label.size + 1
    Layer(name=name, type=LayerType.WARP_CTC_LAYER, size=size, blank=blank,
          norm_by_times=norm_by_times, inputs=[input.name, label.name],
          **_extra(layer_attr))
    return LayerOutput(name, LayerType.WARP_CTC_LAYER, parents=[input, label],
                       size=size)


@wrap_name_default()
@wrap_param_attr_default()
@wrap_bias_attr_default()
@layer_support()
def hsigmoid(input, label, num_classes=None, name=None, bias_attr=None,
             param_attr=None, layer_attr=None):
    """Hierarchical sigmoid cost; weights [num_classes-1, in] per input."""
    inputs = _check_input_list(input, 'hsigmoid')
    _check_input(label, 'label', 'hsigmoid')
    if num_classes is None:
        num_classes = label.size
    if num_classes is None or num_classes <= 2:
        raise ConfigError('hsigmoid: num_classes must be > 2')
    if isinstance(param_attr, (list, tuple)):
        attrs = list(param_attr)
    else:
        attrs = [copy.deepcopy(param_attr) for _ in inputs]
    ipts = [Input(each.name, **a.attr) for each, a in zip(inputs, attrs)]
    ipts.append(label.name)
    Layer(name=name, type=LayerType.HSIGMOID, num_classes=num_classes,
          bias=_bias(bias_attr), inputs=ipts, **_extra(layer_attr))
    return LayerOutput(name, LayerType.HSIGMOID, parents=inputs + [label],
                       size=1)


@wrap_name_default('nce')
@wrap_param_attr_default()
@wrap_bias_attr_default()
@layer_support(DROPOUT)
def nce_layer(input, label, num_classes=None, act=None, weight=None,
              num_neg_samples=10, neg_distribution=None, name=None,
              bias_attr=None, param_attr=None, layer_attr=None):
    """Noise-contrastive estimation cost."""
    inputs = _check_input_list(input, 'nce_layer')
    _check_input(label, 'label', 'nce_layer')
    if num_classes is None:
        num_classes = label.size
    if act is None:
        act = SigmoidActivation()
    if isinstance(param_attr, (list, tuple)):
        attrs = list(param_attr)
    else:
        attrs = [copy.deepcopy(param_attr) for _ in inputs]
    ipts = [Input(each.name, **a.attr) for each, a in zip(inputs, attrs)]
    parents = inputs + [label]
    ipts.append(label.name)
    if weight is not None:
        _check_input(weight, 'weight', 'nce_layer')
        ipts.append(weight.name)
        parents.append(weight)
    Layer(name=name, type=LayerType.NCE_LAYER, num_classes=num_classes,
          neg_sampling_dist=neg_distribution, active_type=act.name,
          num_neg_samples=num_neg_samples, inputs=ipts,
          bias=_bias(bias_attr), **_extra(layer_attr))
    return LayerOutput(name, LayerType.NCE_LAYER, parents=parents, size=1,
                       activation=act)


__all__ += [
    'AggregateLevel', 'ExpandLevel', 'full_matrix_projection',
    'trans_full_matrix_projection', 'table_projection', 'identity_projection',
    'dotmul_projection', 'scaling_projection', 'dotmul_operator',
    'context_projection', 'conv_projection', 'conv_operator',
    'MixedLayerType', 'mixed_layer', 'embedding_layer', 'pooling_layer',
    'last_seq', 'first_seq', 'expand_layer', 'repeat_layer',
    'seq_reshape_layer', 'seq_concat_layer', 'addto_layer', 'concat_layer',
    'slope_intercept_layer', 'scaling_layer', 'power_layer',
    'interpolation_layer', 'out_prod_layer', 'conv_shift_layer',
    'linear_comb_layer', 'convex_comb_layer', 'tensor_layer',
    'sampling_id_layer', 'maxid_layer', 'eos_layer', 'print_layer',
    'rotate_layer', 'get_output_layer', 'lstmemory', 'grumemory',
    'recurrent_layer', 'lstm_step_layer', 'gru_step_layer', 'memory',
    'SubsequenceInput', 'StaticInput', 'BaseGeneratedInput',
    'GeneratedInput', 'recurrent_group', 'beam_search', 'img_conv_layer',
    'img_pool_layer', 'spp_layer', 'img_cmrnorm_layer', 'batch_norm_layer',
    'block_expand_layer', 'maxout_layer', 'bilinear_interp_layer',
    'pad_layer', 'crf_layer', 'crf_decoding_layer', 'ctc_layer',
    'warp_ctc_layer', 'hsigmoid', 'nce_layer', 'gru_step_naive_layer',
    'cross_channel_norm_layer', 'priorbox_layer', 'img_rnorm_layer'
]
