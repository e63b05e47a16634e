"""recurrent_group, memories, static/generated inputs and beam_search
(trainer/RecurrentGroup.cpp)."""

import abc
import paddle.parser as cp

from paddle.parser import ConfigError

from ..activations import IdentityActivation, LinearActivation
from ..attrs import ParamAttr, ParameterAttribute
from ..default_decorators import wrap_name_default
from ..evaluators import seqtext_printer_evaluator
from ..layer_output import LayerOutput, LayerType, _check_input, _size_arg, _type_desc
from .projections import identity_projection
from .basic import embedding_layer, mixed_layer
from .elementwise import eos_layer, maxid_layer


__all__ = [
    'memory', 'SubsequenceInput', 'StaticInput', 'BaseGeneratedInput', 'GeneratedInput',
    'recurrent_group', 'beam_search'
]

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
        seqtext_printer_evaluator(input=gen, id_input=id_input,
                                  dict_file=dict_file or None,
                                  result_file=result_file,
                                  name='target_printer')
    return gen
