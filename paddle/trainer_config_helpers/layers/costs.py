"""Cost layers (CostLayers.cpp, StructuredCostLayers.cpp); the CRF and CTC costs are in
sequence_costs.py (CRFLayers.cpp, CTCLayers.cpp) and exported from here too."""

import copy

from paddle.layer_specs import spec
from paddle.parser import ConfigError, Input, Layer, config_assert, config_warning

from ..activations import SigmoidActivation, SoftmaxActivation
from ..default_decorators import wrap_bias_attr_default, wrap_name_default, wrap_param_attr_default
from ..evaluators import classification_error_evaluator
from ..layer_output import (DROPOUT, LayerOutput, LayerType, _bias, _check_input, _check_input_list,
                            _check_layer_args, _extra, layer_support)
# CRF and CTC live in sequence_costs.py; this module keeps exporting them
from .sequence_costs import crf_decoding_layer, crf_layer, ctc_layer, warp_ctc_layer


__all__ = [
    'classification_cost', 'regression_cost', 'mse_cost', 'cross_entropy',
    'cross_entropy_with_selfnorm', 'multi_binary_label_cross_entropy', 'huber_cost', 'smooth_l1_cost', 'sum_cost',
    'rank_cost', 'lambda_cost', 'crf_layer', 'crf_decoding_layer', 'ctc_layer',
    'warp_ctc_layer', 'hsigmoid', 'nce_layer'
]

# defaults: each type's spec (paddle/layer_specs), shared with the parser
_SELFNORM = spec('multi_class_cross_entropy_with_selfnorm').defaults
_LAMBDA = spec('lambda_cost').defaults
_NCE = spec('nce').defaults


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
                        coeff=spec('multi-class-cross-entropy').defaults['coeff']):
    """Classification cost: cross-entropy ``-log p[label]`` of a softmax output, plus
    an error-rate evaluator.

    ``input`` must use ``SoftmaxActivation()`` (its rows are probabilities over the
    classes) and ``label`` must be a data layer of integer class ids. One cost per sample; training sums the costs (and gradients) over the batch.
    Besides the cost layer it adds ``classification_error_evaluator`` (or the given
    evaluators) on ``(input, label)``, which the trainer reports. Creates an engine
    layer of type ``multi-class-cross-entropy``.

    Args:
        input (LayerOutput): class probabilities (a softmax layer).
        label (LayerOutput): the class ids, a data layer.
        weight (LayerOutput, optional): a size-1 layer weighting each sample's
            cost.
        name (str, optional): layer name; ``__cost_N__`` when omitted.
        evaluator (callable | list of callable, optional): evaluator function(s)
            to add, called with ``input``, ``label`` and ``weight``;
            classification_error_evaluator when omitted.
        layer_attr (ExtraLayerAttribute, optional): extra settings (``device``).
        top_k (int, optional): passed to classification_error_evaluator: a sample
            is right when its label is among the ``top_k`` best classes.
        coeff (float, default 1.0): factor applied to the cost (and its
            gradient).

    Returns:
        LayerOutput: the cost (size 1).

    Example:
        >>> img = data_layer(name='pixel', size=784)
        >>> label = data_layer(name='label', size=10)
        >>> prob = fc_layer(input=img, size=10, act=SoftmaxActivation())
        >>> cost = classification_cost(input=prob, label=label)
        >>> cost.name, cost.size
        ('__cost_0__', 1)
    """
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
def mse_cost(input, label, weight=None, name=None, coeff=spec('square_error').defaults['coeff'],
             layer_attr=None):
    """Squared error cost: ``sum_j (input_j - label_j)^2`` per sample.

    ``label`` is a dense layer of ``input``'s width (the engine refuses different
    widths). One cost per sample; training sums the costs (and gradients) over the batch. ``regression_cost`` is the same helper under its v1
    name. Creates an engine layer of type ``square_error``.

    Args:
        input (LayerOutput): the prediction.
        label (LayerOutput): the target, of the same width.
        weight (LayerOutput, optional): a size-1 layer weighting each sample's
            cost.
        name (str, optional): layer name; ``__mse_cost_N__`` when omitted.
        coeff (float, default 1.0): factor applied to the cost (and its
            gradient).
        layer_attr (ExtraLayerAttribute, optional): extra settings (``device``).

    Returns:
        LayerOutput: the cost (size 1).

    Example:
        >>> x = data_layer(name='x', size=13)
        >>> y = data_layer(name='y', size=1)
        >>> pred = fc_layer(input=x, size=1, act=LinearActivation())
        >>> regression_cost(input=pred, label=y).layer_type
        'cost'
    """
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


def _make_simple_cost(fname, layer_type, out_type, doc):
    """A cost helper ``fname(input, label, name, coeff, weight, layer_attr)`` creating
    an engine layer of ``layer_type``; ``doc`` becomes its docstring."""
    @wrap_name_default(fname)
    @layer_support()
    def cost(input, label, name=None, coeff=spec(layer_type).defaults['coeff'], weight=None,
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
    cost.__doc__ = doc
    return cost


cross_entropy = _make_simple_cost(
    'cross_entropy', LayerType.CROSS_ENTROPY, LayerType.CROSS_ENTROPY,
    doc="""Multi-class cross-entropy: ``-log p[label]`` per sample.

    ``input`` holds probabilities over the classes (normally a softmax output) and
    ``label`` the class ids. The same cost as classification_cost, without its
    checks and evaluator. One cost per sample; training sums the costs (and
    gradients) over the batch. Creates an engine layer of type
    ``multi-class-cross-entropy``.

    Args:
        input (LayerOutput): class probabilities.
        label (LayerOutput): the class ids.
        name (str, optional): layer name; ``__cross_entropy_N__`` when omitted.
        coeff (float, default 1.0): factor applied to the cost (and its
            gradient).
        weight (LayerOutput, optional): a size-1 layer weighting each sample's
            cost.
        layer_attr (ExtraLayerAttribute, optional): extra settings (``device``).

    Returns:
        LayerOutput: the cost (size 1).

    Example:
        >>> x = data_layer(name='x', size=32)
        >>> label = data_layer(name='label', size=10)
        >>> prob = fc_layer(input=x, size=10, act=SoftmaxActivation())
        >>> cost = cross_entropy(input=prob, label=label)
        >>> cost.name, cost.size
        ('__cross_entropy_0__', 1)
    """)
multi_binary_label_cross_entropy = _make_simple_cost(
    'multi_binary_label_cross_entropy', LayerType.MULTI_BIN_LABEL_CROSS_ENTROPY, LayerType.MULTI_BIN_LABEL_CROSS_ENTROPY,
    doc="""Cross-entropy of independent binary labels (multi-label classification).

    ``cost = -sum_j [y_j log p_j + (1 - y_j) log(1 - p_j)]``: each of the
    ``input.size`` outputs is a probability (normally a sigmoid output) that its
    label is on. ``label`` gives the ``y_j``: a dense 0/1 row of the input's width,
    a sparse binary vector (the labels that are on), or an integer id (one label
    per sample). One cost per sample. Creates an engine layer of type
    ``multi_binary_label_cross_entropy``.

    Args:
        input (LayerOutput): per-label probabilities.
        label (LayerOutput): the labels that are on.
        name (str, optional): layer name;
            ``__multi_binary_label_cross_entropy_N__`` when omitted.
        coeff (float, default 1.0): factor applied to the cost (and its
            gradient).
        weight (LayerOutput, optional): a size-1 layer weighting each sample's
            cost.
        layer_attr (ExtraLayerAttribute, optional): extra settings (``device``).

    Returns:
        LayerOutput: the cost (size 1).

    Example:
        >>> x = data_layer(name='x', size=32)
        >>> tags = data_layer(name='tags', size=20)
        >>> prob = fc_layer(input=x, size=20, act=SigmoidActivation())
        >>> multi_binary_label_cross_entropy(input=prob, label=tags).size
        1
    """)
huber_cost = _make_simple_cost(
    'huber_cost', LayerType.HUBER, LayerType.HUBER,
    doc="""Two-class Huber cost on a score (v1's ``huber``).

    ``input`` is one score per sample (size 1), ``label`` a class id 0 or 1. With
    ``y = 2 * label - 1`` and ``a = input * y``, the cost is ``-4a`` for
    ``a < -1``, ``(1 - a)^2`` for ``a < 1`` and 0 otherwise: a smoothed hinge
    loss. One cost per sample. Creates an engine layer of type ``huber``.

    Args:
        input (LayerOutput): the score (size 1).
        label (LayerOutput): class ids 0 / 1.
        name (str, optional): layer name; ``__huber_cost_N__`` when omitted.
        coeff (float, default 1.0): factor applied to the cost (and its
            gradient).
        weight (LayerOutput, optional): a size-1 layer weighting each sample's
            cost.
        layer_attr (ExtraLayerAttribute, optional): extra settings (``device``).

    Returns:
        LayerOutput: the cost (size 1).

    Example:
        >>> x = data_layer(name='x', size=32)
        >>> label = data_layer(name='label', size=2)
        >>> score = fc_layer(input=x, size=1, act=LinearActivation())
        >>> huber_cost(input=score, label=label).layer_type
        'huber'
    """)
smooth_l1_cost = _make_simple_cost(
    'smooth_l1_cost', LayerType.SMOOTH_L1, LayerType.SMOOTH_L1,
    doc="""Smooth L1 cost: ``sum_j f(input_j - label_j)`` per sample.

    ``f(d) = d^2 / 2`` where ``|d| < 1``, else ``|d| - 1/2`` (quadratic near zero,
    linear for outliers; the box regression loss of Fast R-CNN). ``label`` is a
    dense layer of ``input``'s width. One cost per sample. Creates an engine
    layer of type ``smooth_l1``.

    Args:
        input (LayerOutput): the prediction.
        label (LayerOutput): the target, of the same width.
        name (str, optional): layer name; ``__smooth_l1_cost_N__`` when omitted.
        coeff (float, default 1.0): factor applied to the cost (and its
            gradient).
        weight (LayerOutput, optional): a size-1 layer weighting each sample's
            cost.
        layer_attr (ExtraLayerAttribute, optional): extra settings (``device``).

    Returns:
        LayerOutput: the cost (size 1).

    Example:
        >>> x = data_layer(name='x', size=32)
        >>> target = data_layer(name='target', size=4)
        >>> pred = fc_layer(input=x, size=4, act=LinearActivation())
        >>> smooth_l1_cost(input=pred, label=target).layer_type
        'smooth_l1'
    """)


@wrap_name_default()
@layer_support()
def cross_entropy_with_selfnorm(input,
                                label,
                                name=None,
                                coeff=_SELFNORM['coeff'],
                                softmax_selfnorm_alpha=_SELFNORM['softmax_selfnorm_alpha'],
                                layer_attr=None):
    """Cross-entropy on unnormalised scores, with a self-normalisation penalty.

    ``input`` holds positive scores ``x`` (e.g. an exp activation), not
    probabilities; with ``S = sum_j x_j`` the cost is
    ``-log(x[label] / S) + alpha * (log S)^2``, which pushes ``S`` towards 1 so that
    at test time the raw scores can be used without normalising. ``label`` holds
    class ids. Creates an engine layer of type
    ``multi_class_cross_entropy_with_selfnorm``.

    Args:
        input (LayerOutput): positive class scores.
        label (LayerOutput): the class ids.
        name (str, optional): layer name; ``__cross_entropy_with_selfnorm_N__`` when
            omitted.
        coeff (float, default 1.0): factor applied to the cost (and its
            gradient).
        softmax_selfnorm_alpha (float, default 0.1): weight ``alpha`` of the
            penalty.
        layer_attr (ExtraLayerAttribute, optional): extra settings (``device``).

    Returns:
        LayerOutput: the cost (size 1).

    Example:
        >>> x = data_layer(name='x', size=32)
        >>> label = data_layer(name='label', size=10)
        >>> scores = fc_layer(input=x, size=10, act=ExpActivation())
        >>> cross_entropy_with_selfnorm(input=scores, label=label).size
        1
    """
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
    """Uses the sum of each input row as the cost: ``cost = sum_j x_j``.

    For networks that compute their own loss value; the gradient of each input
    value is 1. Creates an engine layer of type ``sum_cost``.

    Args:
        input (LayerOutput): the per-sample loss terms.
        name (str, optional): layer name; ``__sum_cost_N__`` when omitted.
        layer_attr (ExtraLayerAttribute, optional): extra settings (``device``).

    Returns:
        LayerOutput: the cost (size 1).

    Example:
        >>> loss_terms = data_layer(name='loss_terms', size=4)
        >>> sum_cost(input=loss_terms).layer_type
        'sum_cost'
    """
    _check_layer_args('sum_cost', locals())
    Layer(
        name=name,
        type=LayerType.SUM_COST,
        inputs=[input.name],
        **_extra(layer_attr))
    return LayerOutput(name, LayerType.SUM_COST, parents=[input], size=1)


@wrap_name_default()
@layer_support()
def rank_cost(left, right, label, weight=None, name=None, coeff=spec('rank-cost').defaults['coeff'],
              layer_attr=None):
    """Pairwise ranking cost (RankNet): ``log(1 + e^o) - label * o``, ``o = left - right``.

    ``left`` and ``right`` are the scores (size 1) of two items and ``label`` the
    probability that ``left`` should rank above ``right`` (1, 0, or 0.5 for a tie);
    a dense value, or integer ids used as values, as v1 accepted. One cost per sample; training sums the costs (and gradients) over the batch.
    Creates an engine layer of type ``rank-cost``.

    Args:
        left (LayerOutput): score of the first item (size 1).
        right (LayerOutput): score of the second item (size 1).
        label (LayerOutput): the target probability.
        weight (LayerOutput, optional): a size-1 layer weighting each sample's
            cost.
        name (str, optional): layer name; ``__rank_cost_N__`` when omitted.
        coeff (float, default 1.0): factor applied to the cost (and its
            gradient).
        layer_attr (ExtraLayerAttribute, optional): extra settings (``device``).

    Returns:
        LayerOutput: the cost (size 1).

    Example:
        >>> a = fc_layer(input=data_layer(name='doc_a', size=16), size=1,
        ...              act=LinearActivation())
        >>> b = fc_layer(input=data_layer(name='doc_b', size=16), size=1,
        ...              act=LinearActivation())
        >>> rank_cost(left=a, right=b, label=data_layer(name='prefer_a', size=1)).size
        1
    """
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
def lambda_cost(input, score, name=None, NDCG_num=_LAMBDA['NDCG_num'],
                max_sort_size=_LAMBDA['max_sort_size'], layer_attr=None):
    """LambdaRank cost for learning to rank lists (one sequence = one query's items).

    ``input`` holds the model's score of each item (size 1, a sequence per query),
    ``score`` its relevance label (size 1, same sequences). Forward outputs the
    list's NDCG@``NDCG_num`` (ranking by the model's scores) in every row of the
    list; backward pushes each pair of items by LambdaRank's gradient, weighted by
    how much swapping them changes the DCG. Creates an engine layer of type
    ``lambda_cost``.

    Args:
        input (LayerOutput): the model's scores (size 1), a sequence per list.
        score (LayerOutput): the relevance labels (size 1).
        name (str, optional): layer name; ``__lambda_cost_N__`` when omitted.
        NDCG_num (int, default 5): the cut-off of the NDCG it reports.
        max_sort_size (int, default -1): sort only the first this many items by
            label when computing gradients (-1: all); at least ``NDCG_num``.
        layer_attr (ExtraLayerAttribute, optional): extra settings (``device``).

    Returns:
        LayerOutput: the cost (size 1).

    Example:
        >>> feats = data_layer(name='feats', size=16)
        >>> relevance = data_layer(name='relevance', size=1)
        >>> s = fc_layer(input=feats, size=1, act=LinearActivation())
        >>> lambda_cost(input=s, score=relevance, NDCG_num=3).layer_type
        'lambda_cost'
    """
    _check_layer_args('lambda_cost', locals())
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
@wrap_bias_attr_default()
@layer_support()
def hsigmoid(input, label, num_classes=None, name=None, bias_attr=None,
             param_attr=None, layer_attr=None):
    """Hierarchical sigmoid cost: a class's probability as a product of binary
    decisions along a path in a tree.

    The ``num_classes`` classes are the leaves of a complete binary tree with
    ``num_classes - 1`` inner nodes; each inner node has a weight row per input
    (``[num_classes - 1, input.size]``) and a bias. For a sample of class ``c`` the
    cost is the sum over the nodes on ``c``'s path of the logistic loss of the branch
    taken, about ``log2(num_classes)`` terms instead of a softmax over all classes.
    ``label`` holds the class ids. Creates an engine layer of type ``hsigmoid``.

    Args:
        input (LayerOutput | list of LayerOutput): the features.
        label (LayerOutput): the class ids.
        num_classes (int, optional): number of classes (> 2); ``label.size`` when
            omitted.
        name (str, optional): layer name; ``__hsigmoid_N__`` when omitted.
        bias_attr (ParameterAttribute | bool, optional): node biases; False for none.
        param_attr (ParameterAttribute | list of ParameterAttribute, optional):
            node weight attributes, one for all inputs or one per input.
        layer_attr (ExtraLayerAttribute, optional): extra settings (``device``).

    Returns:
        LayerOutput: the cost (size 1).

    Example:
        >>> x = data_layer(name='x', size=32)
        >>> word = data_layer(name='word', size=1000)
        >>> hsigmoid(input=x, label=word).size
        1
    """
    inputs = _check_input_list(input, 'hsigmoid')
    _check_layer_args('hsigmoid', locals())
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
              num_neg_samples=_NCE['num_neg_samples'], neg_distribution=None, name=None,
              bias_attr=None, param_attr=None, layer_attr=None):
    """Noise-contrastive estimation cost: trains a large softmax by telling the true
    class from sampled noise classes.

    For each sample, the true class and ``num_neg_samples`` noise classes (drawn
    uniformly, or from ``neg_distribution``) are scored with
    ``o = act(b[c] + sum_i W_i[c] . x_i`` (``W_i`` of dims
    ``[num_classes, input_i.size]``); with ``q = num_neg_samples * P_noise(c)`` the
    cost is ``-log(o / (o + q))`` for the true class and ``-log(q / (o + q))`` for
    each noise class, times the sample's weight. ``label`` must be a data layer of
    class ids. Creates an engine layer of type ``nce``.

    Args:
        input (LayerOutput | list of LayerOutput): the features.
        label (LayerOutput): the class ids (a data layer).
        num_classes (int, optional): number of classes; ``label.size`` when omitted.
        act (BaseActivation, optional): activation of the scores,
            ``SigmoidActivation()`` when omitted.
        weight (LayerOutput, optional): a size-1 layer weighting each sample's
            cost.
        num_neg_samples (int, default 10): noise classes drawn per sample.
        neg_distribution (list of float, optional): the noise distribution over
            the classes (``num_classes`` values summing to 1); uniform when omitted.
        name (str, optional): layer name; ``__nce_N__`` when omitted.
        bias_attr (ParameterAttribute | bool, optional): class biases; False for none.
        param_attr (ParameterAttribute | list of ParameterAttribute, optional):
            weight attributes, one for all inputs or one per input.
        layer_attr (ExtraLayerAttribute, optional): extra settings (``drop_rate``,
            ``device``).

    Returns:
        LayerOutput: the cost (size 1).

    Example:
        >>> x = data_layer(name='x', size=32)
        >>> word = data_layer(name='word', size=1000)
        >>> nce_layer(input=x, label=word, num_neg_samples=5).layer_type
        'nce'
    """
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
