"""Sequence labelling costs: the linear-chain CRF (CRFLayers.cpp) and CTC (CTCLayers.cpp).

Split from costs.py, which re-exports them: import them from either module."""

from paddle.layer_specs import spec
from paddle.parser import ConfigError, Input, Layer

from ..default_decorators import wrap_name_default, wrap_param_attr_default
from ..layer_output import LayerOutput, LayerType, _check_input, _check_layer_args, _extra, layer_support


__all__ = ['crf_layer', 'crf_decoding_layer', 'ctc_layer', 'warp_ctc_layer']

@wrap_name_default()
@wrap_param_attr_default()
@layer_support()
def crf_layer(input, label, size=None, weight=None, param_attr=None,
              name=None, coeff=spec('crf').defaults['coeff'], layer_attr=None):
    """Linear-chain CRF cost for sequence labelling: ``-log P(labels | input)``.

    ``input`` holds, for each time step, one unnormalised score per tag (``size``
    tags, typically an fc_layer with a linear activation); ``label`` the tag ids of
    the same steps. With the CRF parameter (``(size + 2) * size`` values: start
    weights, end weights and the ``[size, size]`` transitions), a tagging ``s`` of a
    sequence scores ``a[s_0] + b[s_T] + sum_t x_t[s_t] + sum_t w[s_{t-1}, s_t]``, and
    the cost is the negative log of its probability among all taggings. One cost per
    sequence. Decode with crf_decoding_layer sharing the parameter (same
    ``param_attr`` name). Creates an engine layer of type ``crf``.

    Args:
        input (LayerOutput): per-step tag scores, a sequence ``size`` wide.
        label (LayerOutput): the tag ids, an integer id sequence.
        size (int, optional): number of tags; ``input.size`` when omitted (must
            match).
        weight (LayerOutput, optional): a size-1 weight per sequence.
        param_attr (ParameterAttribute, optional): attributes of the CRF parameter;
            name it to share it with crf_decoding_layer.
        name (str, optional): layer name; ``__crf_layer_N__`` when omitted.
        coeff (float, default 1.0): factor applied to the cost's gradient.
        layer_attr (ExtraLayerAttribute, optional): extra settings (``device``).

    Returns:
        LayerOutput: the cost (size 1).

    Example:
        >>> words = data_layer(name='words', size=32)
        >>> scores = fc_layer(input=words, size=5, act=LinearActivation())
        >>> tags = data_layer(name='tags', size=5)
        >>> cost = crf_layer(input=scores, label=tags, param_attr=ParamAttr(name='crfw'))
        >>> cost.layer_type, cost.size
        ('crf', 1)
    """
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
    """Viterbi decoding of a linear-chain CRF: the best tag for each time step.

    Uses the CRF parameter (``(size + 2) * size`` values; share it with a crf_layer
    by giving the same ``param_attr`` name). Without ``label`` the output is the
    best tagging, as ids, one per step. With ``label`` the output is instead 1 where
    the best tag differs from the label and 0 elsewhere (an error indicator,
    e.g. for an evaluator). Creates an engine layer of type ``crf_decoding``.

    Args:
        input (LayerOutput): per-step tag scores, a sequence ``size`` wide.
        size (int): number of tags.
        label (LayerOutput, optional): the reference tag ids.
        param_attr (ParameterAttribute, optional): attributes of the CRF parameter.
        name (str, optional): layer name; ``__crf_decoding_layer_N__`` when omitted.
        layer_attr (ExtraLayerAttribute, optional): extra settings (``device``).

    Returns:
        LayerOutput: the decoded ids (or the error indicator with ``label``).

    Example:
        >>> words = data_layer(name='words', size=32)
        >>> scores = fc_layer(input=words, size=5, act=LinearActivation())
        >>> best = crf_decoding_layer(input=scores, size=5,
        ...                           param_attr=ParamAttr(name='crfw'))
        >>> best.layer_type
        'crf_decoding'
    """
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
def ctc_layer(input, label, size=None, name=None, norm_by_times=spec('ctc').defaults['norm_by_times'],
              layer_attr=None):
    """Connectionist temporal classification cost: ``-log P(label | input)``.

    ``input`` is a sequence of per-frame probabilities over ``size`` classes (a
    softmax output), the last class being the blank; ``label`` the target id
    sequence (ids below ``size - 1``), usually shorter. The probability sums over
    all alignments of the label to the frames (blanks between and around labels,
    repeats merged). One cost per sequence; a sequence too short for its label costs
    0 and gets no gradient, as in v1. ``norm_by_times`` divides each cost (and
    gradient) by the number of frames. Creates an engine layer of type ``ctc``.

    Args:
        input (LayerOutput): frame probabilities, a sequence ``size`` wide.
        label (LayerOutput): the target ids, an integer id sequence.
        size (int, optional): number of classes including the blank;
            ``label.size + 1`` when omitted (and must equal it).
        name (str, optional): layer name; ``__ctc_layer_N__`` when omitted.
        norm_by_times (bool, default False): divide by the sequence length.
        layer_attr (ExtraLayerAttribute, optional): extra settings (``device``).

    Returns:
        LayerOutput: the cost, ``size`` wide as v1 reported it (one value per
        sequence is computed).

    Example:
        >>> frames = data_layer(name='frames', size=40)
        >>> probs = fc_layer(input=frames, size=11, act=SoftmaxActivation())
        >>> label = data_layer(name='label', size=10)
        >>> ctc_layer(input=probs, label=label).size
        11
    """
    _check_layer_args('ctc_layer', locals())
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
def warp_ctc_layer(input, label, size=None, name=None, blank=spec('warp_ctc').defaults['blank'],
                   norm_by_times=spec('warp_ctc').defaults['norm_by_times'], layer_attr=None):
    """CTC cost on unnormalised activations (v1's warp-ctc binding).

    The same cost as ctc_layer, but ``input`` holds linear activations (its
    activation must be linear: the softmax is applied inside) and the blank class is
    ``blank`` (0 by default) instead of the last. The gradient is taken with respect
    to the activations. Creates an engine layer of type ``warp_ctc``.

    Args:
        input (LayerOutput): frame activations, a sequence ``size`` wide, with a
            linear activation.
        label (LayerOutput): the target ids, an integer id sequence.
        size (int, optional): number of classes including the blank;
            ``label.size + 1`` when omitted.
        name (str, optional): layer name; ``__warp_ctc_layer_N__`` when omitted.
        blank (int, default 0): the blank class id.
        norm_by_times (bool, default False): divide by the sequence length.
        layer_attr (ExtraLayerAttribute, optional): extra settings (``device``).

    Returns:
        LayerOutput: the cost.

    Example:
        >>> frames = data_layer(name='frames', size=40)
        >>> acts = fc_layer(input=frames, size=11, act=LinearActivation())
        >>> label = data_layer(name='label', size=10)
        >>> warp_ctc_layer(input=acts, label=label, blank=0).layer_type
        'warp_ctc'
    """
    _check_layer_args('warp_ctc_layer', locals())
    if label.size is not None:
        if size is None:
            size = label.size + 1
    Layer(name=name, type=LayerType.WARP_CTC_LAYER, size=size, blank=blank,
          norm_by_times=norm_by_times, inputs=[input.name, label.name],
          **_extra(layer_attr))
    return LayerOutput(name, LayerType.WARP_CTC_LAYER, parents=[input, label],
                       size=size)
