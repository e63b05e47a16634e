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
    """Adds an evaluator of any type: the building block of the ``*_evaluator`` helpers.

    An evaluator computes a metric over the samples of a pass from layer outputs
    (without affecting training); the trainer reports it on the ``Eval:`` lines of
    the log at every log period and pass end, for training and for testing.
    Printer evaluators write values instead. The evaluator's input layers are
    ``input`` followed by ``label`` and ``weight`` when given.

    Args:
        input (LayerOutput or list of LayerOutput): the evaluated layer(s).
        type (str): the engine's evaluator type (``'classification_error'``,
            ``'last-column-auc'``, ``'chunk'``, ...).
        label (LayerOutput, optional): the label layer.
        weight (LayerOutput, optional): a width-1 layer of per-sample weights.
        name (str, optional): the evaluator's name in the log; default from type.
        chunk_scheme (str, optional): chunk: the tagging scheme.
        num_chunk_types (int, optional): chunk: the number of chunk types.
        classification_threshold (float, optional): the threshold of width-1
            (binary) outputs (default 0.5).
        positive_label (int, optional): precision_recall: the class to report.
        dict_file (str, optional): seq_text_printer: the id -> word dictionary.
        result_file (str, optional): seq_text_printer: the output file.
        num_results (int, optional): printers: how many ids per row (default 1).
        delimited (bool, optional): seq_text_printer: a space before every word.
        top_k (int, optional): classification_error: how many top scores count
            as a hit (default 1).
        excluded_chunk_types (list of int, optional): chunk: types not counted.

    Raises:
        ConfigError: no input, or an input that is not a layer.

    Example:
        >>> def net():
        ...     x, label = data_layer(name='x', size=4), data_layer(name='label', size=3)
        ...     out = fc_layer(input=x, size=3, act=SoftmaxActivation(), name='out')
        ...     outputs(out)
        ...     evaluator_base(input=out, label=label, type='classification_error', name='err')
        >>> e = parse_network_config(net).evaluators[0]
        >>> e.name, e.type, list(e.input_layers)
        ('err', 'classification_error', ['out', 'label'])
    """
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
    """Classification error rate: the (weighted) fraction of samples whose label is
    not among the top_k highest scores of ``input``.

    A sample is wrong when at least top_k classes score strictly above its label.
    For a width-1 output (binary classification), the prediction is class 1 when
    the score exceeds ``threshold``, else 0. classification_cost adds one of these
    by itself.

    Args:
        input (LayerOutput): the class scores (e.g. a softmax fc_layer), one column
            per class.
        label (LayerOutput): the integer label layer.
        name (str, optional): the name in the log; default generated.
        weight (LayerOutput, optional): per-sample weights (a width-1 layer).
        top_k (int, optional): a sample is right when its label is among the top_k
            scores (default 1).
        threshold (float, optional): the decision threshold of a width-1 output
            (default 0.5).

    Example:
        >>> def net():
        ...     x, label = data_layer(name='x', size=4), data_layer(name='label', size=3)
        ...     out = fc_layer(input=x, size=3, act=SoftmaxActivation(), name='out')
        ...     outputs(out)
        ...     classification_error_evaluator(input=out, label=label, top_k=2, name='top2')
        >>> e = parse_network_config(net).evaluators[0]
        >>> e.type, list(e.input_layers), e.top_k
        ('classification_error', ['out', 'label'], 2)
    """
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
    """Area under the ROC curve of a binary classifier.

    The score of a sample is the last column of ``input`` (the probability of class
    1 in a two-column softmax), clipped to [0, 1]; labels are 0/1. The AUC is
    computed from histograms of the positive and negative scores (2^16 bins) over
    the pass (engine type ``last-column-auc``).

    Args:
        input (LayerOutput): the scores; the last column is used.
        label (LayerOutput): the 0/1 label layer.
        name (str, optional): the name in the log; default generated.
        weight (LayerOutput, optional): per-sample weights.

    Example:
        >>> def net():
        ...     x, label = data_layer(name='x', size=4), data_layer(name='label', size=2)
        ...     out = fc_layer(input=x, size=2, act=SoftmaxActivation(), name='out')
        ...     outputs(out)
        ...     auc_evaluator(input=out, label=label)
        >>> e = parse_network_config(net).evaluators[0]
        >>> e.type, list(e.input_layers)
        ('last-column-auc', ['out', 'label'])
    """
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
    """Positive-negative pair ratio of a ranking model, within each query.

    Samples of the same query (same query_id value) with different labels form
    pairs; a pair is positive when the sample with the higher label has the higher
    score, negative when it has the lower one. Reports positive / negative (with
    the counts) over the pass.

    Args:
        input (LayerOutput): the score of each sample (width 1).
        label (LayerOutput): the relevance label of each sample.
        query_id (LayerOutput): the integer query id of each sample.
        weight (LayerOutput, optional): per-sample weights.
        name (str, optional): the name in the log; default generated.
        info (LayerOutput, optional): the old (v0.10) spelling of query_id, used
            when query_id is not given.

    Raises:
        ConfigError: no query_id (nor info).

    Example:
        >>> def net():
        ...     x, rel, query = [data_layer(name=n, size=s) for n, s in (('x', 4), ('rel', 3), ('query', 100))]
        ...     score = fc_layer(input=x, size=1, act=IdentityActivation(), name='score')
        ...     outputs(score)
        ...     pnpair_evaluator(input=score, label=rel, query_id=query)
        >>> e = parse_network_config(net).evaluators[0]
        >>> e.type, list(e.input_layers)
        ('pnpair', ['score', 'rel', 'query'])
    """
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
    """Precision, recall and F1 of a classifier.

    The prediction is the highest-scoring class (a width-1 output: 1 above 0.5).
    With ``positive_label`` it reports that class's precision, recall and F1;
    without, the macro averages (the mean over classes) and the micro averages
    (from the pooled counts).

    Args:
        input (LayerOutput): the class scores.
        label (LayerOutput): the integer label layer.
        positive_label (int, optional): the class to report; default all classes.
        weight (LayerOutput, optional): per-sample weights.
        name (str, optional): the name in the log; default generated.

    Example:
        >>> def net():
        ...     x, label = data_layer(name='x', size=4), data_layer(name='label', size=3)
        ...     out = fc_layer(input=x, size=3, act=SoftmaxActivation(), name='out')
        ...     outputs(out)
        ...     precision_recall_evaluator(input=out, label=label, positive_label=1)
        >>> e = parse_network_config(net).evaluators[0]
        >>> e.type, e.positive_label
        ('precision_recall', 1)
    """
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
    """Error rate of a CTC model: edit distance of the best-path decoding to the label.

    Each sequence of ``input`` frames is decoded by taking the argmax of each frame,
    merging repeats and dropping the blank (the last class, as in ctc_layer); the
    Levenshtein distance to the label sequence, divided by the longer of the two
    lengths, is averaged over the sequences. Deletions, insertions, substitutions
    and the fraction of sequences with any error are reported too.

    Args:
        input (LayerOutput): the per-frame class probabilities, a sequence of width
            num_classes + 1 (the blank last), as fed to ctc_layer.
        label (LayerOutput): the label id sequence.
        name (str, optional): the name in the log; default generated.

    Example:
        >>> def net():
        ...     frames = data_layer(name='frames', size=8)
        ...     probs = fc_layer(input=frames, size=5, act=SoftmaxActivation(), name='probs')
        ...     outputs(probs)
        ...     ctc_error_evaluator(input=probs, label=data_layer(name='chars', size=4))
        >>> e = parse_network_config(net).evaluators[0]
        >>> e.type, list(e.input_layers)
        ('ctc_edit_distance', ['probs', 'chars'])
    """
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
    """Chunk-level precision, recall and F1 of a sequence tagger (named entities,
    phrase chunking); the reported value is F1.

    Tags encode ``chunk_type * tags_per_chunk + tag``, where the scheme sets the
    tags: ``'IOB'`` (B=0, I=1), ``'IOE'`` (I=0, E=1), ``'IOBES'`` (B=0, I=1, E=2,
    S=3) or ``'plain'`` (one tag: a chunk is a run of one type); the id
    ``num_chunk_types * tags_per_chunk`` is "outside". A chunk is correct when its
    begin, end and type all match a label chunk.

    Args:
        input (LayerOutput): the predicted tag sequence: ids (e.g. crf_decoding_layer)
            or scores (their argmax is used).
        label (LayerOutput): the gold tag id sequence.
        chunk_scheme (str): 'IOB', 'IOE', 'IOBES' or 'plain'.
        num_chunk_types (int): the number of chunk types.
        name (str, optional): the name in the log; default generated.
        excluded_chunk_types (list of int, optional): chunk types left out of the
            counts.

    Example:
        >>> def net():
        ...     words, tags = data_layer(name='words', size=8), data_layer(name='tags', size=5)
        ...     scores = fc_layer(input=words, size=5, act=SoftmaxActivation(), name='scores')
        ...     outputs(scores)
        ...     chunk_evaluator(input=scores, label=tags, chunk_scheme='IOB', num_chunk_types=2)
        >>> e = parse_network_config(net).evaluators[0]
        >>> e.type, e.chunk_scheme, e.num_chunk_types
        ('chunk', 'IOB', 2)
    """
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
    """The mean over samples of the sum of a layer's values (each row weighted).

    Reports sum_i w_i * sum_j input[i, j] / (number of samples) over the pass: e.g.
    the mean of a width-1 layer.

    Args:
        input (LayerOutput): the layer to sum.
        name (str, optional): the name in the log; default generated.
        weight (LayerOutput, optional): per-sample weights (default 1).

    Example:
        >>> def net():
        ...     x, label = data_layer(name='x', size=4), data_layer(name='label', size=3)
        ...     out = fc_layer(input=x, size=3, act=SoftmaxActivation(), name='out')
        ...     outputs(out)
        ...     sum_evaluator(input=out)
        >>> e = parse_network_config(net).evaluators[0]
        >>> e.type, list(e.input_layers)
        ('sum', ['out'])
    """
    evaluator_base(name=name, type='sum', input=input, weight=weight)


@evaluator(EvaluatorAttribute.FOR_UTILS)
@wrap_name_default()
def column_sum_evaluator(input, name=None, weight=None):
    """The mean over samples of a layer's last column (each row weighted).

    Like sum_evaluator over the last column only (engine type ``last-column-sum``):
    e.g. the mean predicted probability of the last class.

    Args:
        input (LayerOutput): the layer; its last column is used.
        name (str, optional): the name in the log; default generated.
        weight (LayerOutput, optional): per-sample weights (default 1).

    Example:
        >>> def net():
        ...     x, label = data_layer(name='x', size=4), data_layer(name='label', size=3)
        ...     out = fc_layer(input=x, size=3, act=SoftmaxActivation(), name='out')
        ...     outputs(out)
        ...     column_sum_evaluator(input=out)
        >>> e = parse_network_config(net).evaluators[0]
        >>> e.type
        'last-column-sum'
    """
    evaluator_base(
        name=name, type='last-column-sum', input=input, weight=weight)


@evaluator(EvaluatorAttribute.FOR_PRINT)
@wrap_name_default()
def value_printer_evaluator(input, name=None):
    """Prints the values of layers for every batch (a debugging aid).

    A printer adds nothing to the ``Eval:`` lines; it logs each input layer's
    output matrix.

    Args:
        input (LayerOutput or list of LayerOutput): the layers to print.
        name (str, optional): the name in the log; default generated.

    Example:
        >>> def net():
        ...     x, label = data_layer(name='x', size=4), data_layer(name='label', size=3)
        ...     out = fc_layer(input=x, size=3, act=SoftmaxActivation(), name='out')
        ...     outputs(out)
        ...     value_printer_evaluator(input=out)
        >>> e = parse_network_config(net).evaluators[0]
        >>> e.type, list(e.input_layers)
        ('value_printer', ['out'])
    """
    evaluator_base(name=name, type='value_printer', input=input)


@evaluator(EvaluatorAttribute.FOR_PRINT)
@wrap_name_default()
def gradient_printer_evaluator(input, name=None):
    """Prints the gradients flowing into layers' outputs for every batch (a
    debugging aid; training only).

    Args:
        input (LayerOutput or list of LayerOutput): the layers whose output
            gradients to print.
        name (str, optional): the name in the log; default generated.

    Example:
        >>> def net():
        ...     x, label = data_layer(name='x', size=4), data_layer(name='label', size=3)
        ...     out = fc_layer(input=x, size=3, act=SoftmaxActivation(), name='out')
        ...     outputs(out)
        ...     gradient_printer_evaluator(input=out)
        >>> e = parse_network_config(net).evaluators[0]
        >>> e.type
        'gradient_printer'
    """
    evaluator_base(name=name, type='gradient_printer', input=input)


@evaluator(EvaluatorAttribute.FOR_PRINT)
@wrap_name_default()
def maxid_printer_evaluator(input, num_results=None, name=None):
    """Prints, for every row of a layer, the ids of its highest values (e.g. the
    predicted classes), each batch.

    Args:
        input (LayerOutput or list of LayerOutput): the score layers.
        num_results (int, optional): how many top ids per row (default 1).
        name (str, optional): the name in the log; default generated.

    Example:
        >>> def net():
        ...     x, label = data_layer(name='x', size=4), data_layer(name='label', size=3)
        ...     out = fc_layer(input=x, size=3, act=SoftmaxActivation(), name='out')
        ...     outputs(out)
        ...     maxid_printer_evaluator(input=out, num_results=2)
        >>> e = parse_network_config(net).evaluators[0]
        >>> e.type, e.num_results
        ('max_id_printer', 2)
    """
    evaluator_base(
        name=name, type='max_id_printer', input=input,
        num_results=num_results)


@evaluator(EvaluatorAttribute.FOR_PRINT)
@wrap_name_default()
def maxframe_printer_evaluator(input, num_results=None, name=None):
    """v1's printer of the frames with the highest values in each sequence.

    The config language records it (type ``max_frame_printer``) for v1 configs,
    but this engine has no such evaluator: a model that uses it fails to load
    with "unknown type 'max_frame_printer'".

    Args:
        input (LayerOutput): a sequence layer.
        num_results (int, optional): how many frames per sequence (default 1).
        name (str, optional): the name in the log; default generated.

    Example:
        >>> def net():
        ...     x, label = data_layer(name='x', size=4), data_layer(name='label', size=3)
        ...     out = fc_layer(input=x, size=3, act=SoftmaxActivation(), name='out')
        ...     outputs(out)
        ...     maxframe_printer_evaluator(input=out)
        >>> e = parse_network_config(net).evaluators[0]
        >>> e.type
        'max_frame_printer'
    """
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
    """Writes id sequences (e.g. generated translations) as text to a file.

    Each sample's ids are turned into words through ``dict_file`` (line k holds the
    word of id k; without it the ids themselves are written) and written to
    ``result_file``: one line ``sample_id<TAB> w w ...`` per sequence; for the
    output of a beam search generating several results per sample, a block with
    the sample id, then ``rank<TAB>score<TAB> w w ...`` per result, best first, and
    an empty line.

    Args:
        input (LayerOutput): the id sequences (e.g. a beam_search output).
        result_file (str): the file to write.
        id_input (LayerOutput, optional): a layer holding each sample's id, written
            first on its line; default the sample's running index.
        dict_file (str, optional): the id -> word dictionary, one word per line.
        delimited (bool, optional): write a space before every word (default True);
            False joins the words (e.g. characters of Chinese text).
        name (str, optional): the name in the log; default generated.

    Example:
        >>> def net():
        ...     ids = data_layer(name='ids', size=100)
        ...     outputs(ids)
        ...     seqtext_printer_evaluator(input=ids, result_file='out.txt', dict_file='words.txt')
        >>> e = parse_network_config(net).evaluators[0]
        >>> e.type, e.result_file, e.dict_file
        ('seq_text_printer', 'out.txt', 'words.txt')
    """
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
    """v1's printer of the misclassified samples of a binary classifier.

    The config language records it (type ``classification_error_printer``) for v1
    configs, but this engine has no such evaluator: a model that uses it fails to
    load with "unknown type 'classification_error_printer'" (classification_error
    _evaluator computes the error rate).

    Args:
        input (LayerOutput): the scores.
        label (LayerOutput): the label layer.
        threshold (float, default 0.5): the decision threshold of a width-1 output.
        name (str, optional): the name in the log; default generated.

    Example:
        >>> def net():
        ...     x, label = data_layer(name='x', size=4), data_layer(name='label', size=3)
        ...     out = fc_layer(input=x, size=3, act=SoftmaxActivation(), name='out')
        ...     outputs(out)
        ...     classification_error_printer_evaluator(input=out, label=label)
        >>> e = parse_network_config(net).evaluators[0]
        >>> e.type, list(e.input_layers)
        ('classification_error_printer', ['out', 'label'])
    """
    evaluator_base(
        name=name,
        type='classification_error_printer',
        input=input,
        label=label,
        classification_threshold=threshold)
