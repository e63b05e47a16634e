"""Composite helpers (networks.py, networks_recurrent.py): each builds several layers
of the families above, so they have no layer type of their own."""
from .base import HelperSpec

_BIDI = ('input:layer size:int name:str return_seq:bool last_seq_attr:extra_attr '
         'first_seq_attr:extra_attr concat_attr:extra_attr concat_act:act')
_GRU = ('gru_bias_attr:bias_attr gru_param_attr:param_attr act:act gate_act:act '
        'gru_layer_attr:extra_attr naive:bool')
_LSTM = ('param_attr:param_attr act:act gate_act:act state_act:act mixed_bias_attr:bias_attr '
         'lstm_bias_attr:bias_attr mixed_layer_attr:extra_attr lstm_layer_attr:extra_attr '
         'get_output_layer_attr:extra_attr')
_CONV_POOL = ('input:layer context_len:int hidden_size:int name:str context_start:any '
              'pool_type:pooling context_proj_layer_name:str context_proj_param_attr:param_attr '
              'fc_layer_name:str fc_param_attr:param_attr fc_bias_attr:bias_attr fc_act:act '
              'pool_bias_attr:bias_attr fc_attr:extra_attr context_attr:extra_attr '
              'pool_attr:extra_attr')
_IMG = ('input:layer filter_size:any num_filters:int pool_size:int name:str pool_type:pooling '
        'act:act groups:int conv_stride:int conv_padding:int')
_POOL_TAIL = 'pool_stride:int pool_padding:int pool_layer_attr:extra_attr'
_VGG = 'input_image:layer num_channels:int num_classes:int'

HELPERS = [
    HelperSpec('bidirectional_gru', _BIDI, family='networks',
               forwards={'fwd_': 'simple_gru2', 'bwd_': 'simple_gru2'}),
    HelperSpec('bidirectional_lstm', _BIDI, family='networks',
               forwards={'fwd_': 'simple_lstm', 'bwd_': 'simple_lstm'}),
] + [HelperSpec(n, a, family='networks') for n, a in [
    ('gru_group', 'input:layer size:int name:str reverse:bool ' + _GRU),
    ('gru_unit', 'input:layer size:int name:str ' + _GRU),
    ('simple_gru', 'input:layer size:int name:str reverse:bool mixed_param_attr:param_attr '
                   'mixed_bias_param_attr:param_attr mixed_layer_attr:extra_attr ' + _GRU),
    ('simple_gru2', 'input:layer size:int name:str reverse:bool mixed_param_attr:param_attr '
                    'mixed_bias_attr:bias_attr gru_param_attr:param_attr gru_bias_attr:bias_attr '
                    'act:act gate_act:act mixed_layer_attr:extra_attr gru_cell_attr:extra_attr'),
    ('lstmemory_group', 'input:layer size:int name:str reverse:bool ' + _LSTM),
    ('lstmemory_unit', 'input:layer name:str size:int ' + _LSTM + ' out_memory:layer'),
    ('simple_lstm', 'input:layer size:int name:str reverse:bool mat_param_attr:param_attr '
                    'bias_param_attr:param_attr inner_param_attr:param_attr act:act gate_act:act '
                    'state_act:act mixed_layer_attr:extra_attr lstm_cell_attr:extra_attr'),
    ('simple_attention', 'encoded_sequence:layer encoded_proj:layer decoder_state:layer '
                         'transform_param_attr:param_attr softmax_param_attr:param_attr '
                         'weight_act:act name:str'),
    ('dropout_layer', 'input:layer dropout_rate:float name:str'),
    ('sequence_conv_pool', _CONV_POOL),
    ('text_conv_pool', _CONV_POOL),
    ('simple_img_conv_pool', _IMG + ' bias_attr:bias_attr num_channel:int param_attr:param_attr '
                                    'shared_bias:bool conv_layer_attr:extra_attr ' + _POOL_TAIL),
    ('img_conv_bn_pool', _IMG + ' conv_bias_attr:bias_attr num_channel:int '
                                'conv_param_attr:param_attr shared_bias:bool '
                                'conv_layer_attr:extra_attr bn_param_attr:param_attr '
                                'bn_bias_attr:bias_attr bn_layer_attr:extra_attr ' + _POOL_TAIL),
    ('img_conv_group', 'input:layer conv_num_filter:any pool_size:int num_channels:int '
                       'conv_padding:any conv_filter_size:any conv_act:act '
                       'conv_with_batchnorm:any conv_batchnorm_drop_rate:any pool_stride:int '
                       'pool_type:pooling'),
    ('small_vgg', _VGG),
    ('vgg_16_network', _VGG),
]]
