"""Evaluators: metrics computed on layer outputs during train/test passes."""

from paddle.parser import ConfigError, Evaluator

from .default_decorators import wrap_name_default
from .layer_output import LayerOutput

__all__ = [
    'evaluator_base', 'classification_error_evaluator', 'auc_evaluator',
    'pnpair_evaluator', 'precision_recall_evaluator', 'ctc_error_evaluator',
    'chunk_evaluator', 'sum_evaluator', 'column_sum_evaluator',
    'value_printer_evaluator', 'gradient_printer_evaluator',
    'maxid_printer_evaluator', 'maxframe_printer_evaluator',
    'seqtext_printer_evaluator', 'classification_error_printer_evaluator'
]


class EvaluatorAttribute(object):
    FOR_CLASSIFICATION = 1
    FOR_REGRESSION = 1 << 1
    FOR_RANK = 1 << 2
    FOR_PRINT = 1 << 3
    FOR_UTILS = 1 << 4
    KEYS = [
        'for_classification', 'for_regression', 'for_rank', 'for_print',
        'for_utils'
    ]

    @staticmethod
    def to_key(idx):
        tmp = 1
        for i in range(0, len(EvaluatorAttribute.KEYS)):
            if idx == tmp:
                return EvaluatorAttribute.KEYS[i]
            tmp = tmp << 1


def evaluator(*attrs):
    def impl(method):
        for attr in attrs:
            setattr(method, EvaluatorAttribute.to_key(attr), True)
        method.is_evaluator = True
        return method

    return impl


def _names(x, what, helper):
    if x is None:
        return []
    if isinstance(x, LayerOutput):
        return [x.name]
    if isinstance(x, (list, tuple)):
        out = []
        for each in x:
            out.extend(_names(each, what, helper))
        return out
    raise ConfigError('%s: %s must be a layer, got %s' %
                      (helper, what, type(x).__name__))


def evaluator_base(input,
                   type,
                   label=None,
                   weight=None,
                   name=None,
                   chunk_scheme=None,
                   num_chunk_types=None,
                   classification_threshold=None,
                   positive_label=None,
                   dict_file=None,
                   result_file=None,
                   num_results=None,
                   delimited=None,
                   top_k=None,
                   excluded_chunk_types=None):
    """Adds an EvaluatorConfig: inputs = input (+ label) (+ weight)."""
    inputs = _names(input, 'input', type)
    if not inputs:
        raise ConfigError('evaluator %s needs an input layer' % type)
    inputs += _names(label, 'label', type)
    inputs += _names(weight, 'weight', type)
    Evaluator(
        name=name,
        type=type,
        inputs=inputs,
        chunk_scheme=chunk_scheme,
        num_chunk_types=num_chunk_types,
        classification_threshold=classification_threshold,
        positive_label=positive_label,
        dict_file=dict_file,
        result_file=result_file,
        delimited=delimited,
        num_results=num_results,
        top_k=top_k,
        excluded_chunk_types=excluded_chunk_types)


@evaluator(EvaluatorAttribute.FOR_CLASSIFICATION)
@wrap_name_default()
def classification_error_evaluator(input,
                                   label,
                                   name=None,
                                   weight=None,
                                   top_k=None,
                                   threshold=None):
    """Error rate: argmax(input) != label (threshold for binary outputs)."""
    evaluator_base(
        name=name,
        type='classification_error',
        input=input,
        label=label,
        weight=weight,
        top_k=top_k,
        classification_threshold=threshold)


@evaluator(EvaluatorAttribute.FOR_CLASSIFICATION)
@wrap_name_default()
def auc_evaluator(input, label, name=None, weight=None):
    evaluator_base(
        name=name,
        type='last-column-auc',
        input=input,
        label=label,
        weight=weight)


@evaluator(EvaluatorAttribute.FOR_RANK)
@wrap_name_default()
def pnpair_evaluator(input, label, query_id=None, weight=None, name=None,
                     info=None):
    """Positive-negative pair rate within each query. (`info` is the
    b0...v0.10 spelling of query_id, which those versions could not pass
    on.)"""
    if query_id is None:
        query_id = info
    if query_id is None:
        raise ConfigError('pnpair_evaluator: query_id (the query id layer) '
                          'is required')
    for what, x in (('input', input), ('label', label),
                    ('query_id', query_id)):
        _names(x, what, 'pnpair_evaluator')  # type check
    evaluator_base(name=name, type='pnpair', input=[input, label, query_id],
                   weight=weight)


@evaluator(EvaluatorAttribute.FOR_CLASSIFICATION)
@wrap_name_default()
def precision_recall_evaluator(input,
                               label,
                               positive_label=None,
                               weight=None,
                               name=None):
    evaluator_base(
        name=name,
        type='precision_recall',
        input=input,
        label=label,
        positive_label=positive_label,
        weight=weight)


@evaluator(EvaluatorAttribute.FOR_CLASSIFICATION)
@wrap_name_default()
def ctc_error_evaluator(input, label, name=None):
    evaluator_base(
        name=name, type='ctc_edit_distance', input=input, label=label)


@evaluator(EvaluatorAttribute.FOR_CLASSIFICATION)
@wrap_name_default()
def chunk_evaluator(input,
                    label,
                    chunk_scheme,
                    num_chunk_types,
                    name=None,
                    excluded_chunk_types=None):
    evaluator_base(
        name=name,
        type='chunk',
        input=input,
        label=label,
        chunk_scheme=chunk_scheme,
        num_chunk_types=num_chunk_types,
        excluded_chunk_types=excluded_chunk_types)


@evaluator(EvaluatorAttribute.FOR_UTILS)
@wrap_name_default()
def sum_evaluator(input, name=None, weight=None):
    evaluator_base(name=name, type='sum', input=input, weight=weight)


@evaluator(EvaluatorAttribute.FOR_UTILS)
@wrap_name_default()
def column_sum_evaluator(input, name=None, weight=None):
    evaluator_base(
        name=name, type='last-column-sum', input=input, weight=weight)


@evaluator(EvaluatorAttribute.FOR_PRINT)
@wrap_name_default()
def value_printer_evaluator(input, name=None):
    evaluator_base(name=name, type='value_printer', input=input)


@evaluator(EvaluatorAttribute.FOR_PRINT)
@wrap_name_default()
def gradient_printer_evaluator(input, name=None):
    evaluator_base(name=name, type='gradient_printer', input=input)


@evaluator(EvaluatorAttribute.FOR_PRINT)
@wrap_name_default()
def maxid_printer_evaluator(input, num_results=None, name=None):
    evaluator_base(
        name=name, type='max_id_printer', input=input,
        num_results=num_results)


@evaluator(EvaluatorAttribute.FOR_PRINT)
@wrap_name_default()
def maxframe_printer_evaluator(input, num_results=None, name=None):
    evaluator_base(
        name=name,
        type='max_frame_printer',
        input=input,
        num_results=num_results)


@evaluator(EvaluatorAttribute.FOR_PRINT)
@wrap_name_default()
def seqtext_printer_evaluator(input,
                              result_file,
                              id_input=None,
                              dict_file=None,
                              delimited=None,
                              name=None):
    _names(input, 'input', 'seqtext_printer_evaluator')  # type check
    inputs = [input] if id_input is None else [id_input, input]
    evaluator_base(
        name=name,
        type='seq_text_printer',
        input=inputs,
        dict_file=dict_file,
        result_file=result_file,
        delimited=delimited)


@evaluator(EvaluatorAttribute.FOR_PRINT)
@wrap_name_default()
def classification_error_printer_evaluator(input,
                                           label,
                                           threshold=0.5,
                                           name=None):
    evaluator_base(
        name=name,
        type='classification_error_printer',
        input=input,
        label=label,
        classification_threshold=threshold)
