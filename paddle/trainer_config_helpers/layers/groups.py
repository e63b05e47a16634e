"""recurrent_group, memories, static/generated inputs, beam_search and eos_layer
(trainer/RecurrentGroup.cpp, trainer/RecurrentGroupGeneration.cpp)."""

import abc
import paddle.parser as cp
from paddle.layer_specs import spec

from paddle.parser import ConfigError, Layer

from ..activations import IdentityActivation, LinearActivation
from ..attrs import ParamAttr, ParameterAttribute
from ..default_decorators import wrap_name_default
from ..evaluators import seqtext_printer_evaluator
from ..layer_output import (LayerOutput, LayerType, _check_input, _check_layer_args, _extra, _size_arg, _type_desc,
                            layer_support)
from .projections import identity_projection
from .basic import embedding_layer, mixed_layer
from .elementwise import maxid_layer


__all__ = [
    'memory', 'SubsequenceInput', 'StaticInput', 'BaseGeneratedInput', 'GeneratedInput',
    'recurrent_group', 'beam_search', 'eos_layer'
]

@wrap_name_default('memory', 'memory_name')
def memory(name, size, is_seq=False, boot_layer=None, boot_bias=None,
           boot_bias_active_type=None, boot_with_const_id=None,
           memory_name=None):
    """The previous time step's output of a layer, inside a recurrent_group step.

    At step ``t`` a memory holds what the layer called ``name`` produced at step
    ``t - 1`` (the layer is usually defined later in the same step function, with
    that name). At the first step it holds the boot value: zeros by default, or
    ``boot_layer``'s value for that sequence, or a learned bias, or a constant id.
    To declare a memory before its layer has a name, omit ``name`` and call
    ``mem.set_input(layer)`` once the layer exists. Only valid inside a step
    function.

    Args:
        name (str): name of the layer whose previous output this is; None to bind
            it later with ``set_input``.
        size (int): the layer's width.
        is_seq (bool, default False): the memory holds a whole sequence (for
            groups over nested sequences) rather than one vector.
        boot_layer (LayerOutput, optional): layer giving the first step's value
            (one row per sequence), defined outside the group.
        boot_bias (ParameterAttribute, optional): learn the first step's value as
            a bias with these attributes.
        boot_bias_active_type (BaseActivation, optional): activation applied to
            the boot bias, ``LinearActivation()`` when omitted.
        boot_with_const_id (int, optional): start from this integer id (for id
            memories, e.g. the begin-of-sentence id in generation).
        memory_name (str, optional): the memory's own name when ``name`` is None;
            ``__memory_N__`` when omitted.

    Returns:
        LayerOutput: the memory (layer type ``memory``), ``size`` wide.

    Example:
        >>> def step(x):
        ...     prev = memory(name='rnn_state', size=16)
        ...     return fc_layer(input=[x, prev], size=16, name='rnn_state')
        >>> out = recurrent_group(step=step, input=data_layer(name='seq', size=8))
        >>> out.name, out.size
        ('rnn_state', 16)
    """
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
    """Marks a nested-sequence in-link of recurrent_group: one step per sub-sequence.

    With a nested sequence (sequences of sub-sequences) as input, the group runs its
    step once per sub-sequence, and the step receives that whole sub-sequence as a
    sequence; the group's outputs are then nested sequences too.

    Args:
        input (LayerOutput): a nested sequence layer.

    Example:
        >>> paragraphs = data_layer(name='paragraphs', size=8)
        >>> def step(sentence):
        ...     return fc_layer(input=sentence, size=4)
        >>> recurrent_group(step=step, input=SubsequenceInput(input=paragraphs)).size
        4
    """

    def __init__(self, input):
        _check_layer_args('SubsequenceInput', locals())
        self.input = input


class StaticInput(object):
    """A read-only input of recurrent_group (or beam_search), the same at every step.

    Unlike an in-link, it is not split into time steps: each step sees the whole
    value for its sequence (e.g. an encoder's summary vector, or with
    ``is_seq=True`` the encoder's whole output sequence for attention). Inside the
    group it is read through a memory booted with the layer.

    Args:
        input (LayerOutput): the layer, defined outside the group.
        is_seq (bool, default False): the input is a sequence the step reads as a
            whole.
        size (int, optional): the layer's width; must match ``input.size``.

    Example:
        >>> words = data_layer(name='words', size=8)
        >>> context = data_layer(name='context', size=4)
        >>> def step(x, ctx):
        ...     return fc_layer(input=[x, ctx], size=16)
        >>> recurrent_group(step=step, input=[words, StaticInput(input=context)]).size
        16
    """

    def __init__(self, input, is_seq=False, size=None):
        _check_layer_args('StaticInput', locals())
        self.input = input
        self.is_seq = is_seq
        if size is not None and input.size is not None and \
                size != input.size:
            raise ConfigError('StaticInput: size %d != input size %d' %
                              (size, input.size))
        if input.size is None:
            input.size = size


class BaseGeneratedInput(abc.ABC):
    """Base of the generated inputs of beam_search (see GeneratedInput).

    A generated input feeds what the group generated at the previous step back into
    the step: ``before_real_step()`` returns the layer the step receives in its
    place, ``after_real_step(output)`` turns the step's output into the id that is
    generated. beam_search sets ``bos_id`` and ``eos_id`` on it. Subclass it to feed
    something other than an embedding.

    Example:
        >>> g = GeneratedInput(size=100, embedding_name='emb', embedding_size=16)
        >>> isinstance(g, BaseGeneratedInput), g.bos_id
        (True, None)
    """

    def __init__(self):
        self.bos_id = None
        self.eos_id = None

    @abc.abstractmethod
    def before_real_step(self):
        """Returns the layer that the step function receives for this input at each step
        (called inside the generating group, before the user's step).
        """
        pass

    @abc.abstractmethod
    def after_real_step(self, *args):
        """Turns the step function's output(s) into the layer whose value is the
        generated id (called inside the generating group, after the user's step).

        Args:
            *args: the step function's output layer(s).
        """
        pass


class GeneratedInput(BaseGeneratedInput):
    """The generated word of beam_search, fed back as an embedding.

    At each generation step the step function receives the embedding (table
    ``embedding_name``, ``[size, embedding_size]``) of the id generated at the
    previous step; at the first step, of ``bos_id``. The step must return a
    ``size``-wide probability distribution over the dictionary; the id with the
    largest value (under beam search, the beam's candidates) becomes the next word.
    Share ``embedding_name`` with the training config's target embedding so the
    trained table is used.

    Args:
        size (int): dictionary size.
        embedding_name (str): parameter name of the embedding table.
        embedding_size (int): embedding width.

    Example:
        >>> g = GeneratedInput(size=100, embedding_name='trg_emb', embedding_size=16)
        >>> g.size, g.embedding_name
        (100, 'trg_emb')
    """

    def __init__(self, size, embedding_name, embedding_size):
        BaseGeneratedInput.__init__(self)
        self.size = size
        self.embedding_name = embedding_name
        self.embedding_size = embedding_size

    def after_real_step(self, input):
        """The id of the step's most probable word: a maxid_layer named
        ``__beam_search_predict__``, which the next step's memory reads.

        Args:
            input (LayerOutput): the step's output, a ``size``-wide distribution.

        Returns:
            LayerOutput: the maxid layer.
        """
        return maxid_layer(input=input, name='__beam_search_predict__')

    def before_real_step(self):
        """The embedding of the previous step's id: a memory of
        ``__beam_search_predict__`` (booted with ``bos_id``) looked up in the table
        ``embedding_name``.

        Returns:
            LayerOutput: the embedding, ``embedding_size`` wide.
        """
        predict_id = memory(
            name='__beam_search_predict__',
            size=self.size,
            boot_with_const_id=self.bos_id)
        return embedding_layer(
            input=predict_id,
            size=self.embedding_size,
            param_attr=ParamAttr(name=self.embedding_name))


@wrap_name_default()
def recurrent_group(step, input, reverse=spec('recurrent_layer_group').defaults['reverse'], name=None,
                    targetInlink=None, is_generating=False):
    """Runs a user-defined step function once per time step of its input sequences.

    ``step`` is called once, at parse time, with one layer per input: an in-link
    (a sequence layer) appears as the current step's vector, a SubsequenceInput as
    the current sub-sequence, a StaticInput as its whole value. The layers it
    creates form the group's step network; memory() inside it reads a layer's
    value from the previous step. The layer(s) ``step`` returns become the group's
    outputs: sequences with the in-links' boundaries (nested sequences for a group
    over SubsequenceInput), one row per step. All in-links must have the same
    sequence layout. ``reverse=True`` runs each sequence from last step to first.
    A step network can hold any layers, including other groups. Creates a
    ``recurrent_layer_group`` sub-model in the config.

    Args:
        step (callable): the step function; returns a LayerOutput or a list of them.
        input (LayerOutput | StaticInput | SubsequenceInput | list): the inputs, in
            the order ``step`` takes them; at least one must be a sequence in-link
            (a layer or SubsequenceInput), unless ``is_generating``.
        reverse (bool, default False): process sequences backwards.
        name (str, optional): group name; ``__recurrent_group_N__`` when omitted.
        targetInlink (LayerOutput | SubsequenceInput, optional): with several
            in-links of different layouts, the one whose layout the outputs take.
        is_generating (bool, default False): a generating group (used by
            beam_search): only StaticInput inputs, no in-link.

    Returns:
        LayerOutput | list of LayerOutput: the step's output layer(s), as sequences.

    Example:
        >>> def step(x):
        ...     prev = memory(name='rnn_state', size=16)
        ...     return fc_layer(input=[x, prev], size=16, name='rnn_state')
        >>> out = recurrent_group(step=step, input=data_layer(name='seq', size=8),
        ...                       reverse=True)
        >>> out.name, out.size, out.reverse
        ('rnn_state', 16, True)
    """
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
    # v1: a group over sub-sequences gives every out-link has_subseq (its
    # parent-side layer is then a sequence_gather_agent)
    has_subseq = any(isinstance(x, SubsequenceInput) for x in input)
    for ot in layer_outs:
        _check_input(ot, 'step output', 'recurrent_group')
        ot.reverse = reverse
        cp.RecurrentLayerGroupSetOutLink(
            cp.Link(ot.name, has_subseq=True) if has_subseq else ot.name)
    cp.RecurrentLayerGroupEnd(name=name)
    for ot in layer_outs:
        ot.full_name = cp.MakeLayerNameInSubmodel(ot.name)
    return layer_outs[0] if len(layer_outs) == 1 else layer_outs


@wrap_name_default()
def beam_search(step, input, bos_id, eos_id, beam_size, max_length=500,
                name=None, num_results_per_sample=None, result_file=None,
                dict_file='', id_input=None):
    """Generates sequences with beam search, using a step function like
    recurrent_group's.

    Exactly one input is a GeneratedInput (the previously generated word); the
    others are StaticInput. At each step the step function returns a probability
    distribution over the dictionary; the ``beam_size`` best partial sequences are
    kept, a sequence ends when it generates ``eos_id`` or reaches ``max_length``,
    and the ``num_results_per_sample`` best are the results. The group starts from
    ``bos_id``. Use it in a generation (test) config loading trained parameters;
    the step network must name its parameters as the training config did.

    Args:
        step (callable): the step function, taking the inputs in order.
        input (StaticInput | GeneratedInput | list): the inputs.
        bos_id (int): begin-of-sequence id, the first step's input.
        eos_id (int): end-of-sequence id.
        beam_size (int): number of candidates kept per step.
        max_length (int, default 500): longest sequence generated.
        name (str, optional): group name; ``__beam_search_N__`` when omitted.
        num_results_per_sample (int, optional): results kept per sample;
            ``beam_size`` when omitted.
        result_file (str, optional): b0 spelling: also add a seq_text_printer
            evaluator named ``target_printer`` writing the results to this file
            (b1+: call seqtext_printer_evaluator yourself).
        dict_file (str, default ''): with ``result_file``: dictionary for printing
            words instead of ids.
        id_input (LayerOutput, optional): with ``result_file``: sample ids to print
            with the results.

    Returns:
        LayerOutput: the generated ids (the group's maxid output).

    Example:
        >>> encoded = data_layer(name='encoded', size=32)
        >>> def step(context, word):
        ...     state = memory(name='dec', size=32)
        ...     h = fc_layer(input=[context, word, state], size=32, name='dec')
        ...     return fc_layer(input=h, size=100, act=SoftmaxActivation())
        >>> gen = beam_search(step=step, bos_id=0, eos_id=1, beam_size=3,
        ...                   input=[StaticInput(input=encoded),
        ...                          GeneratedInput(size=100, embedding_name='emb',
        ...                                         embedding_size=16)])
        >>> gen.layer_type
        'maxid'
    """
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
        seqtext_printer_evaluator(input=gen, id_input=id_input,
                                  dict_file=dict_file or None,
                                  result_file=result_file,
                                  name='target_printer')
    return gen


@wrap_name_default()
@layer_support()
def eos_layer(input, eos_id, name=None, layer_attr=None):
    """Flags end-of-sequence ids: 1 where the input id equals ``eos_id``, else 0.

    The input holds ids (e.g. a maxid_layer); a generating group (beam_search) ends
    a path when its eos layer fires. Creates an engine layer of type ``eos_id``.

    Args:
        input (LayerOutput): the ids.
        eos_id (int): the end-of-sequence id.
        name (str, optional): layer name; ``__eos_layer_N__`` when omitted.
        layer_attr (ExtraLayerAttribute, optional): extra settings (``device``).

    Returns:
        LayerOutput: the flags.

    Example:
        >>> ids = maxid_layer(input=data_layer(name='scores', size=10))
        >>> eos_layer(input=ids, eos_id=1).layer_type
        'eos_id'
    """
    _check_layer_args('eos_layer', locals())
    l = Layer(name=name, type=LayerType.EOSID_LAYER, eos_id=eos_id,
              inputs=[input.name], **_extra(layer_attr))
    return LayerOutput(name, LayerType.EOSID_LAYER, parents=[input],
                       size=l.config.size)
