"""trainer/RecurrentGroup.cpp and RecurrentGroupGeneration.cpp: recurrent layer
groups, their agent layers, memories, and generation (beam search, end of sequence)."""
from .base import HelperSpec, LayerSpec, proto_default

SPECS = [
    LayerSpec('recurrent_layer_group', 'recurrent_group',
              defaults={'reverse': proto_default('reversed', 'SubModelConfig')}, helpers={
        'recurrent_group': 'step:step input:objects reverse:bool name:str targetInlink:layer '
                           'is_generating:bool'}),
    LayerSpec('agent', 'recurrent_group', helpers={
        'memory': 'name:str size:int is_seq:bool boot_layer:layer boot_bias:param_attr '
                  'boot_bias_active_type:act boot_with_const_id:int memory_name:str'}),
    LayerSpec('gather_agent', 'recurrent_group'),
    LayerSpec('scatter_agent', 'recurrent_group'),
    LayerSpec('sequence_agent', 'recurrent_group'),
    LayerSpec('sequence_gather_agent', 'recurrent_group'),
    LayerSpec('sequence_scatter_agent', 'recurrent_group'),
    LayerSpec('eos_id', 'recurrent_group', inputs=1, size=2, helpers={
        'eos_layer': 'input:layer eos_id:int name:str layer_attr:extra_attr'}),
]

# generation: a recurrent group run as a beam search
HELPERS = [
    HelperSpec('beam_search', 'step:step input:objects bos_id:int eos_id:int beam_size:int '
                              'max_length:int name:str num_results_per_sample:int result_file:str '
                              'dict_file:str id_input:layer', family='recurrent_group'),
]

# what a recurrent group's input list may hold besides layers
INPUT_OBJECTS = [HelperSpec(n, a, family='recurrent_group') for n, a in [
    ('StaticInput', 'input:layer is_seq:bool size:int'),
    ('SubsequenceInput', 'input:layer'),
    ('GeneratedInput', 'size:int embedding_name:str embedding_size:int'),
]]
