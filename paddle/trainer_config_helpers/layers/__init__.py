"""Layer helpers of the v1 config language, one module per engine layer family.

Every helper creates one or more layers through the raw config API (paddle.parser)
and returns a LayerOutput (paddle.trainer_config_helpers.layer_output), which later
helpers take as input and outputs() walks to find data and cost layers.
"""
from ..layer_output import (  # noqa: F401
    AggregateLevel, DEVICE, DROPOUT, ERROR_CLIPPING, ExpandLevel, LayerOutput, LayerType,
    _b0_pair, _bias, _check_act, _check_input, _check_input_list, _check_param_attr,
    _extra, _positional, _size_arg, _type_desc, layer_support)
from .projections import (  # noqa: F401
    _num_channels, _pair, _proj, context_projection, conv_operator, conv_projection,
    dotmul_operator, dotmul_projection, full_matrix_projection, identity_projection,
    scaling_projection, table_projection, trans_full_matrix_projection)
from .basic import (  # noqa: F401
    MixedLayerType, addto_layer, concat_layer, cos_sim, data_layer, embedding_layer,
    fc_layer, mixed_layer, selective_fc_layer, sum_to_one_norm_layer, trans_layer)
from .costs import (  # noqa: F401
    _cost_inputs, _make_simple_cost, classification_cost, crf_decoding_layer, crf_layer,
    cross_entropy, cross_entropy_with_selfnorm, ctc_layer, hsigmoid, huber_cost,
    lambda_cost, mse_cost, multi_binary_label_cross_entropy, nce_layer, rank_cost,
    regression_cost, sum_cost, warp_ctc_layer)
from .sequence import (  # noqa: F401
    _seq_ins, expand_layer, first_seq, last_seq, pooling_layer, repeat_layer,
    seq_concat_layer, seq_reshape_layer)
from .elementwise import (  # noqa: F401
    conv_shift_layer, convex_comb_layer, eos_layer, get_output_layer, interpolation_layer,
    linear_comb_layer, maxid_layer, out_prod_layer, power_layer, print_layer, rotate_layer,
    sampling_id_layer, scaling_layer, slope_intercept_layer, tensor_layer)
from .recurrent import (  # noqa: F401
    _check_hppl, gru_step_layer, gru_step_naive_layer, grumemory, lstm_step_layer,
    lstmemory, recurrent_layer)
from .recurrent_group import (  # noqa: F401
    BaseGeneratedInput, GeneratedInput, StaticInput, SubsequenceInput, beam_search, memory,
    recurrent_group)
from .image import (  # noqa: F401
    _img_channels, _pool_type_name, batch_norm_layer, bilinear_interp_layer,
    block_expand_layer, cross_channel_norm_layer, img_cmrnorm_layer, img_conv_layer,
    img_pool_layer, img_rnorm_layer, maxout_layer, pad_layer, priorbox_layer, spp_layer)


# Names the old single-module `layers` also exposed (v1's layers.py star-imported these).
import paddle.parser as cp  # noqa: F401,E402
from paddle.parser import (  # noqa: F401,E402
    Bias, ConfigError, HasInputsSet, Input, Inputs, Layer, Outputs, as_float, as_int, config_assert,
    g_config_funcs)
from ..activations import (  # noqa: F401,E402
    BaseActivation, IdentityActivation, LinearActivation, ReluActivation, SequenceSoftmaxActivation,
    SigmoidActivation, SoftmaxActivation, TanhActivation)
from ..attrs import ExtraAttr, ExtraLayerAttribute, ParamAttr, ParameterAttribute  # noqa: F401,E402
from ..default_decorators import (  # noqa: F401,E402
    wrap_act_default, wrap_bias_attr_default, wrap_name_default, wrap_param_attr_default,
    wrap_param_default)
from ..poolings import (  # noqa: F401,E402
    AvgPooling, BasePoolingType, CudnnAvgPooling, CudnnMaxPooling, MaxPooling, SquareRootNPooling,
    SumPooling)

__all__ = [
    'LayerType', 'LayerOutput', 'layer_support', 'ERROR_CLIPPING', 'DROPOUT', 'DEVICE',
    'data_layer', 'fc_layer', 'selective_fc_layer', 'trans_layer', 'classification_cost',
    'regression_cost', 'mse_cost', 'cross_entropy', 'cross_entropy_with_selfnorm',
    'multi_binary_label_cross_entropy', 'huber_cost', 'sum_cost', 'rank_cost',
    'lambda_cost', 'cos_sim', 'sum_to_one_norm_layer', 'AggregateLevel', 'ExpandLevel',
    'full_matrix_projection', 'trans_full_matrix_projection', 'table_projection',
    'identity_projection', 'dotmul_projection', 'scaling_projection', 'dotmul_operator',
    'context_projection', 'conv_projection', 'conv_operator', 'MixedLayerType',
    'mixed_layer', 'embedding_layer', 'pooling_layer', 'last_seq', 'first_seq',
    'expand_layer', 'repeat_layer', 'seq_reshape_layer', 'seq_concat_layer', 'addto_layer',
    'concat_layer', 'slope_intercept_layer', 'scaling_layer', 'power_layer',
    'interpolation_layer', 'out_prod_layer', 'conv_shift_layer', 'linear_comb_layer',
    'convex_comb_layer', 'tensor_layer', 'sampling_id_layer', 'maxid_layer', 'eos_layer',
    'print_layer', 'rotate_layer', 'get_output_layer', 'lstmemory', 'grumemory',
    'recurrent_layer', 'lstm_step_layer', 'gru_step_layer', 'memory', 'SubsequenceInput',
    'StaticInput', 'BaseGeneratedInput', 'GeneratedInput', 'recurrent_group', 'beam_search',
    'img_conv_layer', 'img_pool_layer', 'spp_layer', 'img_cmrnorm_layer',
    'batch_norm_layer', 'block_expand_layer', 'maxout_layer', 'bilinear_interp_layer',
    'pad_layer', 'crf_layer', 'crf_decoding_layer', 'ctc_layer', 'warp_ctc_layer',
    'hsigmoid', 'nce_layer', 'gru_step_naive_layer', 'cross_channel_norm_layer',
    'priorbox_layer', 'img_rnorm_layer'
]
