"""Cost layers (CostLayers.cpp, CRFLayers.cpp, CTCLayers.cpp in the engine)."""

import copy

from paddle.parser import ConfigError, Input, Layer, config_assert, config_warning

from ..activations import SigmoidActivation, SoftmaxActivation
from ..default_decorators import wrap_bias_attr_default, wrap_name_default, wrap_param_attr_default
from ..evaluators import classification_error_evaluator
from ..layer_output import (DROPOUT, LayerOutput, LayerType, _bias, _check_input,
                            _check_input_list, _extra, layer_support)


__all__ = [
    'classification_cost', 'regression_cost', 'mse_cost', 'cross_entropy',
    'cross_entropy_with_selfnorm', 'multi_binary_label_cross_entropy', 'huber_cost', 'smooth_l1_cost', 'sum_cost',
    'rank_cost', 'lambda_cost', 'crf_layer', 'crf_decoding_layer', 'ctc_layer',
    'warp_ctc_layer', 'hsigmoid', 'nce_layer'
]

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
        # v1 parsed this and failed when it ran; the engine refuses it when the network
        # is built, so a config that is only parsed (dump_config) still works
        config_warning(
            "mse_cost: input '%s' has size %d but label '%s' has size %d; the "
            "engine needs them equal" % (input.name, input.size, label.name,
                                         label.size), layer=name)
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
smooth_l1_cost = _make_simple_cost('smooth_l1_cost', LayerType.SMOOTH_L1, LayerType.SMOOTH_L1)


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
    if input.size is not None and input.size != 1:
        # v1 checked only the score; the engine refuses a wider input at network build
        config_warning("lambda_cost: input '%s' has size %d; the engine needs size 1 "
                       "(one score per item)" % (input.name, input.size), layer=name)
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
