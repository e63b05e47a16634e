"""Layer helpers of the v1 config language.

Every helper creates one or more layers through the raw config_parser API
and returns a LayerOutput (name, type, parents, size ...), which later
helpers take as input and outputs() walks to find data and cost layers.
"""

import collections
import copy
import functools
import inspect

from paddle.trainer.config_parser import (
    ConfigError, Layer, Input, Bias, Inputs, Outputs, HasInputsSet,
    config_assert, g_config_funcs, as_int, as_float)
import paddle.trainer.config_parser as cp

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
def dotmul_projection(input, param_attr=None):
    """x .* w (element-wise weight of dims [1, size])."""
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


def conv_operator(img,
                  filter,
                  filter_size,
                  num_filters,
                  num_channels=None,
                  stride=1,
                  padding=0,
                  filter_size_y=None,
                  stride_y=None,
                  padding_y=None,
                  trans=False):
    """Convolution of img by a per-sample filter given by another layer."""
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
def conv_shift_layer(a, b, name=None, layer_attr=None):
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
def linear_comb_layer(weights, vectors, size=None, name=None,
                      layer_attr=None):
    """out = sum_i weights[i] * vectors[i*size:(i+1)*size]."""
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
def tensor_layer(a, b, size, act=None, name=None, param_attr=None,
                 bias_attr=None, layer_attr=None):
    """y_k = a^T W_k b (+ bias)."""
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
