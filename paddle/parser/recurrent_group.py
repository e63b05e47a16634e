"""Recurrent layer groups: agents, out-links, memories and generators (beam search)."""

from paddle.layer_specs import spec
from paddle.proto.ModelConfig_pb2 import GeneratorConfig, LinkConfig

from .errors import ConfigError, config_assert
from .registry import config_func, config_layer
from .state import state
from .submodels import (GetLayerBaseName, MakeLayerNameInParentSubmodel, MakeLayerNameInSubmodel, SubModelBegin, SubModelEnd)
from .layer_base import LayerBase
from .layers_basic import DataLayer

_GROUP = spec('recurrent_layer_group').defaults  # shared with recurrent_group (the helper)


@config_layer('agent')
class AgentLayer(LayerBase):
    def __init__(self, name, size, device=None):
        LayerBase.__init__(self, name, 'agent', size, inputs=[], device=device)


@config_layer('sequence_agent')
class SequenceAgentLayer(LayerBase):
    def __init__(self, name, size, device=None):
        LayerBase.__init__(
            self, name, 'sequence_agent', size, inputs=[], device=device)


@config_layer('gather_agent')
class GatherAgentLayer(LayerBase):
    def __init__(self, name, size, device=None):
        LayerBase.__init__(
            self, name, 'gather_agent', size, inputs=[], device=device)


@config_layer('scatter_agent')
class ScatterAgentLayer(LayerBase):
    def __init__(self, name, size, device=None):
        LayerBase.__init__(
            self, name, 'scatter_agent', size, inputs=[], device=device)


@config_layer('sequence_gather_agent')
class SequenceGatherAgentLayer(LayerBase):
    def __init__(self, name, size, device=None):
        LayerBase.__init__(
            self, name, 'sequence_gather_agent', size, inputs=[],
            device=device)


@config_layer('sequence_scatter_agent')
class SequenceScatterAgentLayer(LayerBase):
    def __init__(self, name, size, device=None):
        LayerBase.__init__(
            self, name, 'sequence_scatter_agent', size, inputs=[],
            device=device)


@config_func
def Link(name, has_subseq=False):
    link_config = LinkConfig()
    link_config.link_name = name
    link_config.has_subseq = has_subseq
    return link_config


@config_func
def RecurrentLayerGroupWithoutOutLinksBegin(name,
                                            in_links,
                                            seq_reversed=_GROUP['reverse'],
                                            target_inlinkname=''):
    config_assert(state.config.model_config.type == 'recurrent_nn',
                  'recurrent layer groups need model_type("recurrent_nn")')
    RecurrentLayerGroup(name=name)
    SubModelBegin(name)
    state.current_submodel.is_recurrent_layer_group = True
    state.current_submodel.reversed = seq_reversed
    state.current_submodel.target_inlinkid = -1
    in_links_count = 0
    for linkid, link in enumerate(in_links):
        if isinstance(link, str):
            name = link
            has_subseq = False
        else:
            name = link.link_name
            has_subseq = link.has_subseq
        if target_inlinkname == name:
            state.current_submodel.target_inlinkid = linkid
        if in_links_count == 0:
            in_links_has_subseq = has_subseq
        else:
            config_assert(
                in_links_has_subseq == has_subseq,
                'in-links of a recurrent group must be all sequences or '
                'all nested sequences')
        in_links_count += 1
        layer_name = MakeLayerNameInParentSubmodel(name)
        config_assert(layer_name in state.layer_map,
                      "recurrent group: unknown input layer '%s'" % name)
        layer = state.layer_map[layer_name]
        # v0.10 gave the agents no image height/width (later versions copied the in-link's)
        if has_subseq:
            SequenceScatterAgentLayer(name=name, size=layer.size)
        else:
            ScatterAgentLayer(name=name, size=layer.size)
        pair = state.current_submodel.in_links.add()
        pair.layer_name = layer_name
        pair.link_name = MakeLayerNameInSubmodel(name)
        pair.has_subseq = has_subseq


@config_func
def RecurrentLayerGroupSetOutLink(link):
    if isinstance(link, str):
        name = link
        has_subseq = False
    else:
        name = link.link_name
        has_subseq = link.has_subseq
    layer_name = MakeLayerNameInParentSubmodel(name)
    pair = state.current_submodel.out_links.add()
    pair.layer_name = MakeLayerNameInSubmodel(name)
    pair.link_name = layer_name
    pair.has_subseq = has_subseq


def RecurrentLayerGroupSetGenerator(generator=None):
    generator.eos_layer_name = MakeLayerNameInSubmodel(
        generator.eos_layer_name)
    state.current_submodel.generator.CopyFrom(generator)


@config_func
def RecurrentLayerGroupBegin(name,
                             in_links,
                             out_links,
                             generator=None,
                             target_inlinkname='',
                             seq_reversed=_GROUP['reverse']):
    RecurrentLayerGroupWithoutOutLinksBegin(name, in_links, seq_reversed,
                                            target_inlinkname)
    for link in out_links:
        RecurrentLayerGroupSetOutLink(link)
    if generator is not None:
        RecurrentLayerGroupSetGenerator(generator)
        config_assert(
            len(in_links) == 0, 'a generator group takes no in-links')
        config_assert(
            len(out_links) >= 1, 'a generator group needs an out-link')


@config_func
def RecurrentLayerGroupEnd(name):
    config_assert(state.current_submodel.is_recurrent_layer_group,
                  'RecurrentLayerGroupEnd without RecurrentLayerGroupBegin')
    for pair in state.current_submodel.memories:
        config_assert(
            pair.layer_name in state.layer_map,
            "memory refers to layer '%s', which is not defined in the "
            "step function" % GetLayerBaseName(pair.layer_name))
        layer = state.layer_map[pair.layer_name]
        memory_link = state.layer_map[pair.link_name]
        config_assert(
            layer.size == memory_link.size,
            "memory of layer '%s' has size %d but the layer has size %d" %
            (GetLayerBaseName(pair.layer_name), memory_link.size, layer.size))
    prev_submodel = state.current_submodel
    SubModelEnd(name)
    for pair in prev_submodel.out_links:
        layer = state.layer_map[pair.layer_name]
        agent_name = GetLayerBaseName(pair.link_name)
        if prev_submodel.HasField('generator'):
            DataLayer(name=agent_name, size=layer.size)
        elif pair.has_subseq:
            SequenceGatherAgentLayer(name=agent_name, size=layer.size)
        else:
            GatherAgentLayer(name=agent_name, size=layer.size)


@config_layer('recurrent_layer_group')
class RecurrentLayerGroup(LayerBase):
    def __init__(self, name, device=None):
        LayerBase.__init__(
            self, name, 'recurrent_layer_group', 0, inputs=[], device=device)


@config_func
def Memory(name,
           size,
           is_sequence=False,
           boot_layer=None,
           boot_bias=False,
           boot_bias_active_type='',
           boot_with_const_id=None,
           memory_name=None):
    config_assert(state.current_submodel.is_recurrent_layer_group,
                  'memory() can only be used inside a recurrent group step')
    if not memory_name:
        config_assert(name is not None, 'memory needs a name')
        memory_name = name + '+delay1'
    agent_name = memory_name
    if is_sequence:
        agent_layer = SequenceAgentLayer(agent_name, size)
    else:
        agent_layer = AgentLayer(agent_name, size)
    memory = state.current_submodel.memories.add()
    if name is not None:
        memory.layer_name = MakeLayerNameInSubmodel(name)
    memory.link_name = MakeLayerNameInSubmodel(agent_name)
    memory.is_sequence = is_sequence
    options = sum((boot_layer is not None, bool(boot_bias),
                   boot_with_const_id is not None))
    config_assert(
        options <= 1, 'memory: give at most one of boot_layer, boot_bias, '
        'boot_with_const_id')
    if boot_layer is not None:
        boot_layer = MakeLayerNameInParentSubmodel(boot_layer)
        config_assert(boot_layer in state.layer_map,
                      "memory: unknown boot_layer '%s'" % boot_layer)
        memory.boot_layer_name = boot_layer
    elif boot_bias:
        memory.boot_bias_parameter_name = agent_layer.create_bias_parameter(
            boot_bias, size, for_self=False)
        memory.boot_bias_active_type = boot_bias_active_type
    elif boot_with_const_id is not None:
        memory.boot_with_const_id = boot_with_const_id
    return agent_name


@config_func
def SetMemoryInput(memory_name, layer_name):
    memory_name = MakeLayerNameInSubmodel(memory_name)
    layer_name = MakeLayerNameInSubmodel(layer_name)
    for mem in state.current_submodel.memories:
        if mem.link_name == memory_name:
            mem.layer_name = layer_name
            return
    raise ConfigError("no memory named '%s'" % memory_name)


@config_func
def Generator(max_num_frames,
              eos_layer_name='eos_check',
              num_results_per_sample=1,
              beam_size=1,
              log_prob=None):
    generator_config = GeneratorConfig()
    generator_config.max_num_frames = max_num_frames
    generator_config.eos_layer_name = eos_layer_name
    generator_config.num_results_per_sample = num_results_per_sample
    generator_config.beam_size = beam_size
    if log_prob is not None:
        generator_config.log_prob = log_prob
    return generator_config


# generation: marks where a generated sequence ends (RecurrentGroupGeneration.cpp)
@config_layer('eos_id')
class EosIdLayer(LayerBase):
    def __init__(self, name, inputs, eos_id, device=None):
        LayerBase.__init__(self, name, 'eos_id', 0, inputs=inputs,
                           device=device)
        self.set_layer_size(2)
        self.config.eos_id = eos_id
