"""Cost layers (CostLayers.cpp, CRFLayers.cpp, CTCLayers.cpp in the engine)."""

from paddle.layer_specs import spec

from .errors import config_assert
from .registry import config_layer, g_config_funcs, g_layer_type_map
from .layer_base import LayerBase


# defaults: each type's spec (paddle/layer_specs), shared with the v1 helpers
_SELFNORM = spec('multi_class_cross_entropy_with_selfnorm').defaults
_LAMBDA = spec('lambda_cost').defaults
_WARP_CTC = spec('warp_ctc').defaults
_NCE = spec('nce').defaults
_CRF = spec('crf').defaults
_CTC = spec('ctc').defaults

# ---------------------------------------------------------------------------
# cost layers

g_cost_map = {}


def define_cost(class_name, cost_type):
    def init(cls, name, inputs, device=None, coeff=spec(cost_type).defaults['coeff']):
        LayerBase.__init__(
            cls, name, cost_type, 1, inputs, device=device, coeff=coeff)

    cls = type(class_name, (LayerBase, ), dict(__init__=init))
    g_config_funcs[class_name] = cls
    g_cost_map[cost_type] = cls
    g_layer_type_map[cost_type] = cls
    return cls


define_cost('MultiClassCrossEntropy', 'multi-class-cross-entropy')
define_cost('RankingCost', 'rank-cost')
define_cost('AucValidation', 'auc-validation')
define_cost('PnpairValidation', 'pnpair-validation')
define_cost('SumOfSquaresCostLayer', 'square_error')
define_cost('MultiBinaryLabelCrossEntropy', 'multi_binary_label_cross_entropy')
define_cost('SoftBinaryClassCrossEntropy', 'soft_binary_class_cross_entropy')
define_cost('HuberTwoClass', 'huber')
define_cost('SumCost', 'sum_cost')
define_cost('SmoothL1Cost', 'smooth_l1')


@config_layer('multi_class_cross_entropy_with_selfnorm')
class MultiClassCrossEntropySelfNormCostLayer(LayerBase):
    def __init__(self, name, inputs,
                 softmax_selfnorm_alpha=_SELFNORM['softmax_selfnorm_alpha'], **xargs):
        LayerBase.__init__(self, name,
                           'multi_class_cross_entropy_with_selfnorm', 0,
                           inputs, **xargs)
        self.config.softmax_selfnorm_alpha = softmax_selfnorm_alpha


@config_layer('lambda_cost')
class LambdaCost(LayerBase):
    def __init__(self, name, inputs, NDCG_num=_LAMBDA['NDCG_num'],
                 max_sort_size=_LAMBDA['max_sort_size'], device=None):
        LayerBase.__init__(
            self, name, 'lambda_cost', 1, inputs=inputs, device=device)
        self.config.NDCG_num = NDCG_num
        if max_sort_size != -1:
            config_assert(
                NDCG_num <= max_sort_size,
                'NDCG_num must be <= max_sort_size when max_sort_size != -1')
        self.config.max_sort_size = max_sort_size


@config_layer('crf')
class CRFLayer(LayerBase):
    def __init__(self, name, size, inputs, coeff=_CRF['coeff'], device=None):
        LayerBase.__init__(self, name, 'crf', size, inputs, device=device)
        config_assert(
            self.get_input_layer(0).size == size,
            "input '%s' has size %d, expected the number of labels %d" %
            (self.get_input_layer(0).name, self.get_input_layer(0).size,
             size))
        self.create_input_parameter(0, size * (size + 2), [size + 2, size])
        self.config.coeff = coeff


@config_layer('crf_decoding')
class CRFDecodingLayer(LayerBase):
    def __init__(self, name, size, inputs, device=None):
        LayerBase.__init__(self, name, 'crf_decoding', size, inputs,
                           device=device)
        self.create_input_parameter(0, size * (size + 2), [size + 2, size])


@config_layer('ctc')
class CTCLayer(LayerBase):
    def __init__(self, name, size, inputs, norm_by_times=_CTC['norm_by_times'],
                 device=None):
        LayerBase.__init__(self, name, 'ctc', size, inputs, device=device)
        self.config.norm_by_times = norm_by_times


@config_layer('warp_ctc')
class WarpCTCLayer(LayerBase):
    def __init__(self, name, size, inputs, blank=_WARP_CTC['blank'],
                 norm_by_times=_WARP_CTC['norm_by_times'], device=None):
        LayerBase.__init__(self, name, 'warp_ctc', size=size, inputs=inputs,
                           device=device)
        self.config.blank = blank
        self.config.norm_by_times = norm_by_times
        input_layer = self.get_input_layer(0)
        config_assert(
            input_layer.active_type in ('', 'linear'),
            "input '%s' of warp_ctc must have a linear activation" %
            input_layer.name)


@config_layer('hsigmoid')
class HierarchicalSigmoidLayer(LayerBase):
    def __init__(self, name, num_classes, inputs, device=None, bias=True):
        LayerBase.__init__(self, name, 'hsigmoid', 1, inputs=inputs,
                           device=device)
        self.config.num_classes = num_classes
        for input_index in range(len(self.inputs) - 1):
            input_layer = self.get_input_layer(input_index)
            self.create_input_parameter(
                input_index, (num_classes - 1) * input_layer.size,
                [num_classes - 1, input_layer.size])
        self.create_bias_parameter(bias, num_classes - 1)


@config_layer('nce')
class NCELayer(LayerBase):
    def __init__(self,
                 name,
                 num_classes,
                 inputs,
                 num_neg_samples=_NCE['num_neg_samples'],
                 neg_sampling_dist=None,
                 bias=True,
                 **xargs):
        LayerBase.__init__(self, name, 'nce', 1, inputs=inputs, **xargs)
        self.config.num_classes = num_classes
        if neg_sampling_dist is not None:
            config_assert(
                len(neg_sampling_dist) == num_classes,
                'len(neg_distribution) (%d) != num_classes (%d)' %
                (len(neg_sampling_dist), num_classes))
            s = sum(neg_sampling_dist)
            config_assert(abs(s - 1) < 1e-5,
                          'neg_distribution sums to %s, not 1' % s)
            self.config.neg_sampling_dist.extend(neg_sampling_dist)
        self.config.num_neg_samples = num_neg_samples
        num_real_inputs = len(self.inputs) - 1
        input_layer = self.get_input_layer(num_real_inputs)
        config_assert(input_layer.type == 'data',
                      'the last input (label) of nce must be a data layer')
        if (num_real_inputs > 1 and input_layer.size == 1 and
                self.get_input_layer(num_real_inputs - 1).type == 'data'):
            num_real_inputs -= 1
        for input_index in range(num_real_inputs):
            input_layer = self.get_input_layer(input_index)
            self.create_input_parameter(
                input_index, num_classes * input_layer.size,
                [num_classes, input_layer.size])
        self.create_bias_parameter(bias, num_classes)
