"""Audit of the v1 config language against the reference catalogue
(/work/shared/reference/v1_config_surface.md §4.1-4.10, helpers as of
v0.10, plus the b0/b1 spellings of §11 that we accept).

Fails when a catalogued helper is missing from
paddle.trainer_config_helpers.__all__ (or layer_math), lacks a parameter
of its v1 signature, or is not used by any protostr case (the tables of
test_helper_protostr.py and test_helpers.py, whose dump_config output is
compared semantically with an expected protostr).
"""

import inspect
import re

import pytest

import paddle.trainer_config_helpers as tch
from paddle.trainer_config_helpers import layer_math

# helper -> v1 (v0.10) parameter names that must be accepted
CATALOGUE = {
    # 4.1 activations
    'TanhActivation': [], 'SigmoidActivation': [], 'SoftmaxActivation': [],
    'SequenceSoftmaxActivation': [], 'IdentityActivation': [],
    'LinearActivation': [], 'ReluActivation': [], 'BReluActivation': [],
    'SoftReluActivation': [], 'STanhActivation': [], 'AbsActivation': [],
    'SquareActivation': [], 'ExpActivation': [], 'LogActivation': [],
    # 4.2 poolings, 4.3 levels
    'MaxPooling': [], 'AvgPooling': [], 'SumPooling': [],
    'SquareRootNPooling': [], 'CudnnMaxPooling': [], 'CudnnAvgPooling': [],
    'AggregateLevel': [], 'ExpandLevel': [],
    # attributes (§3)
    'ParamAttr': ['name', 'is_static', 'initial_std', 'initial_mean',
                  'initial_max', 'initial_min', 'l1_rate', 'l2_rate',
                  'learning_rate', 'momentum', 'sparse_update'],
    'ExtraAttr': ['error_clipping_threshold', 'drop_rate', 'device'],
    # 4.4 layers: core
    'data_layer': ['name', 'size', 'height', 'width', 'layer_attr'],
    'fc_layer': ['input', 'size', 'act', 'name', 'param_attr', 'bias_attr',
                 'layer_attr'],
    'mixed_layer': ['size', 'input', 'name', 'act', 'bias_attr',
                    'layer_attr'],
    'embedding_layer': ['input', 'size', 'name', 'param_attr', 'layer_attr'],
    'addto_layer': ['input', 'act', 'name', 'bias_attr', 'layer_attr'],
    'concat_layer': ['input', 'act', 'name', 'layer_attr', 'bias_attr'],
    'trans_layer': ['input', 'name', 'layer_attr'],
    'slope_intercept_layer': ['input', 'name', 'slope', 'intercept'],
    'scaling_layer': ['input', 'weight', 'name', 'layer_attr'],
    'power_layer': ['input', 'weight', 'name', 'layer_attr'],
    'interpolation_layer': ['input', 'weight', 'name', 'layer_attr'],
    'sum_to_one_norm_layer': ['input', 'name', 'layer_attr'],
    'cos_sim': ['a', 'b', 'scale', 'size', 'name', 'layer_attr'],
    'conv_shift_layer': ['a', 'b', 'name', 'layer_attr', 'input'],
    'tensor_layer': ['a', 'b', 'size', 'act', 'name', 'param_attr',
                     'bias_attr', 'layer_attr', 'input'],
    'selective_fc_layer': ['input', 'size', 'select', 'act', 'name',
                           'pass_generation', 'has_selected_colums',
                           'mul_ratio', 'param_attr', 'bias_attr',
                           'layer_attr'],
    'sampling_id_layer': ['input', 'name'],
    'maxid_layer': ['input', 'name', 'layer_attr'],
    'eos_layer': ['input', 'eos_id', 'name', 'layer_attr'],
    'convex_comb_layer': ['input', 'size', 'name'],
    'linear_comb_layer': ['weights', 'vectors', 'size', 'name'],
    'out_prod_layer': ['input1', 'input2', 'name'],
    'print_layer': ['input', 'name'],
    'repeat_layer': ['input', 'num_repeats', 'name'],
    'get_output_layer': ['input', 'arg_name', 'name', 'layer_attr'],
    'block_expand_layer': ['input', 'block_x', 'block_y', 'stride_x',
                           'stride_y', 'padding_x', 'padding_y',
                           'num_channels', 'name', 'layer_attr', 'channel'],
    'rotate_layer': ['input', 'height', 'width', 'name'],
    'seq_reshape_layer': ['input', 'reshape_size', 'act', 'name',
                          'layer_attr', 'bias_attr'],
    'seq_concat_layer': ['a', 'b', 'act', 'name', 'layer_attr',
                         'bias_attr'],
    'pad_layer': ['input', 'pad_c', 'pad_h', 'pad_w', 'name'],
    # sequence
    'pooling_layer': ['input', 'pooling_type', 'name', 'bias_attr',
                      'agg_level', 'layer_attr'],
    'last_seq': ['input', 'name', 'agg_level', 'layer_attr', 'stride'],
    'first_seq': ['input', 'name', 'agg_level', 'layer_attr', 'stride'],
    'expand_layer': ['input', 'expand_as', 'name', 'bias_attr',
                     'expand_level', 'layer_attr'],
    # recurrent
    'lstmemory': ['input', 'name', 'size', 'reverse', 'act', 'gate_act',
                  'state_act', 'bias_attr', 'param_attr', 'layer_attr'],
    'grumemory': ['input', 'name', 'reverse', 'act', 'gate_act',
                  'bias_attr', 'param_attr', 'layer_attr'],
    'recurrent_layer': ['input', 'act', 'bias_attr', 'param_attr', 'name',
                        'reverse', 'layer_attr'],
    'lstm_step_layer': ['input', 'state', 'size', 'act', 'name', 'gate_act',
                        'state_act', 'bias_attr', 'layer_attr'],
    'gru_step_layer': ['input', 'output_mem', 'size', 'act', 'name',
                       'gate_act', 'bias_attr', 'param_attr', 'layer_attr'],
    'gru_step_naive_layer': ['input', 'output_mem', 'size', 'name', 'act',
                             'gate_act', 'bias_attr', 'param_attr',
                             'layer_attr'],
    'memory': ['name', 'size', 'is_seq', 'boot_layer', 'boot_bias',
               'boot_bias_active_type', 'boot_with_const_id',
               'memory_name'],
    'recurrent_group': ['step', 'input', 'reverse', 'name', 'targetInlink',
                        'is_generating'],
    'SubsequenceInput': ['input'],
    'StaticInput': ['input', 'is_seq', 'size'],
    'beam_search': ['step', 'input', 'bos_id', 'eos_id', 'beam_size',
                    'max_length', 'name', 'num_results_per_sample',
                    'result_file', 'dict_file', 'id_input'],
    'GeneratedInput': ['size', 'embedding_name', 'embedding_size'],
    # image
    'img_conv_layer': ['input', 'filter_size', 'num_filters', 'name',
                       'num_channels', 'act', 'groups', 'stride', 'padding',
                       'bias_attr', 'param_attr', 'shared_biases',
                       'layer_attr', 'filter_size_y', 'stride_y',
                       'padding_y', 'trans', 'layer_type'],
    'img_pool_layer': ['input', 'pool_size', 'name', 'num_channels',
                       'pool_type', 'stride', 'padding', 'layer_attr',
                       'pool_size_y', 'stride_y', 'padding_y', 'ceil_mode',
                       'start'],
    'img_cmrnorm_layer': ['input', 'size', 'scale', 'power', 'name',
                          'num_channels', 'layer_attr', 'blocked'],
    'img_rnorm_layer': ['input', 'size', 'scale', 'power', 'name',
                        'num_channels'],
    'batch_norm_layer': ['input', 'act', 'name', 'num_channels', 'bias_attr',
                         'param_attr', 'layer_attr', 'batch_norm_type',
                         'moving_average_fraction', 'use_global_stats'],
    'spp_layer': ['input', 'name', 'num_channels', 'pool_type',
                  'pyramid_height', 'layer_attr'],
    'maxout_layer': ['input', 'groups', 'num_channels', 'name',
                     'layer_attr'],
    'bilinear_interp_layer': ['input', 'out_size_x', 'out_size_y', 'name',
                              'layer_attr'],
    'priorbox_layer': ['input', 'image', 'aspect_ratio', 'variance',
                       'min_size', 'max_size', 'name'],
    'cross_channel_norm_layer': ['input', 'name', 'param_attr'],
    # costs
    'classification_cost': ['input', 'label', 'weight', 'name', 'evaluator',
                            'layer_attr', 'top_k'],
    'regression_cost': ['input', 'label', 'weight', 'name', 'layer_attr'],
    'mse_cost': ['input', 'label', 'weight', 'name', 'layer_attr'],
    'cross_entropy': ['input', 'label', 'name', 'coeff'],
    'cross_entropy_with_selfnorm': ['input', 'label', 'name', 'coeff',
                                    'softmax_selfnorm_alpha'],
    'multi_binary_label_cross_entropy': ['input', 'label', 'name', 'coeff'],
    'huber_cost': ['input', 'label', 'name', 'coeff'],
    'rank_cost': ['left', 'right', 'label', 'weight', 'name', 'coeff'],
    'lambda_cost': ['input', 'score', 'name', 'NDCG_num', 'max_sort_size'],
    'ctc_layer': ['input', 'label', 'size', 'name', 'norm_by_times'],
    'warp_ctc_layer': ['input', 'label', 'size', 'name', 'blank',
                       'norm_by_times'],
    'crf_layer': ['input', 'label', 'size', 'weight', 'param_attr', 'name'],
    'crf_decoding_layer': ['input', 'size', 'label', 'param_attr', 'name'],
    'hsigmoid': ['input', 'label', 'num_classes', 'name', 'bias_attr',
                 'param_attr', 'layer_attr'],
    'nce_layer': ['input', 'label', 'num_classes', 'act', 'weight',
                  'num_neg_samples', 'neg_distribution', 'name', 'bias_attr',
                  'layer_attr'],
    'sum_cost': ['input', 'name'],
    # 4.5 projections and operators
    'full_matrix_projection': ['input', 'size', 'param_attr'],
    'trans_full_matrix_projection': ['input', 'size', 'param_attr'],
    'table_projection': ['input', 'size', 'param_attr'],
    'identity_projection': ['input', 'offset'],
    'dotmul_projection': ['input', 'param_attr', 'scale'],
    'dotmul_operator': ['a', 'b', 'scale'],
    'scaling_projection': ['input', 'param_attr'],
    'context_projection': ['input', 'context_len', 'context_start',
                           'padding_attr'],
    'conv_projection': ['input', 'filter_size', 'num_filters',
                        'num_channels', 'stride', 'padding',
                        'filter_size_y', 'stride_y', 'padding_y', 'groups',
                        'param_attr', 'trans'],
    'conv_operator': ['img', 'filter', 'filter_size', 'num_filters',
                      'num_channels', 'stride', 'padding', 'filter_size_y',
                      'stride_y', 'padding_y', 'trans', 'input'],
    # 4.6 networks
    'sequence_conv_pool': ['input', 'context_len', 'hidden_size', 'name',
                           'context_start', 'pool_type',
                           'context_proj_layer_name',
                           'context_proj_param_attr', 'fc_layer_name',
                           'fc_param_attr', 'fc_bias_attr', 'fc_act',
                           'pool_bias_attr', 'fc_attr', 'context_attr',
                           'pool_attr'],
    'text_conv_pool': ['input', 'context_len', 'hidden_size'],
    'simple_lstm': ['input', 'size', 'name', 'reverse', 'mat_param_attr',
                    'bias_param_attr', 'inner_param_attr', 'act',
                    'gate_act', 'state_act', 'mixed_layer_attr',
                    'lstm_cell_attr'],
    'simple_img_conv_pool': ['input', 'filter_size', 'num_filters',
                             'pool_size', 'name', 'pool_type', 'act',
                             'groups', 'conv_stride', 'conv_padding',
                             'bias_attr', 'num_channel', 'param_attr',
                             'shared_bias', 'conv_layer_attr', 'pool_stride',
                             'pool_padding', 'pool_layer_attr'],
    'img_conv_bn_pool': ['input', 'filter_size', 'num_filters', 'pool_size'],
    'img_conv_group': ['input', 'conv_num_filter', 'pool_size',
                       'num_channels', 'conv_padding', 'conv_filter_size',
                       'conv_act', 'conv_with_batchnorm',
                       'conv_batchnorm_drop_rate', 'pool_stride',
                       'pool_type'],
    'small_vgg': ['input_image', 'num_channels', 'num_classes'],
    'vgg_16_network': ['input_image', 'num_channels', 'num_classes'],
    'lstmemory_unit': ['input', 'name', 'size', 'param_attr', 'act',
                       'gate_act', 'state_act', 'lstm_bias_attr'],
    'lstmemory_group': ['input', 'size', 'name', 'reverse', 'param_attr',
                        'act', 'gate_act', 'state_act', 'mixed_bias_attr',
                        'lstm_bias_attr', 'mixed_layer_attr',
                        'lstm_layer_attr', 'get_output_layer_attr'],
    'gru_unit': ['input', 'size', 'name', 'gru_bias_attr', 'act',
                 'gate_act', 'gru_layer_attr'],
    'gru_group': ['input', 'size', 'name', 'reverse', 'gru_bias_attr',
                  'act', 'gate_act', 'gru_layer_attr'],
    'simple_gru': ['input', 'size', 'name', 'reverse', 'mixed_param_attr',
                   'mixed_bias_param_attr', 'mixed_layer_attr',
                   'gru_bias_attr', 'act', 'gate_act', 'gru_layer_attr'],
    'simple_gru2': ['input', 'size', 'name', 'reverse'],
    'simple_attention': ['encoded_sequence', 'encoded_proj',
                         'decoder_state', 'transform_param_attr',
                         'softmax_param_attr', 'weight_act', 'name'],
    'bidirectional_lstm': ['input', 'size', 'name', 'return_seq'],
    'bidirectional_gru': ['input', 'size', 'name', 'return_seq'],
    'dropout_layer': ['input', 'dropout_rate', 'name'],
    'inputs': ['layers'],
    'outputs': ['layers'],
    # 4.7 evaluators
    'classification_error_evaluator': ['input', 'label', 'name', 'weight',
                                       'top_k', 'threshold'],
    'auc_evaluator': ['input', 'label', 'name', 'weight'],
    'pnpair_evaluator': ['input', 'label', 'info', 'name', 'weight'],
    'precision_recall_evaluator': ['input', 'label', 'positive_label',
                                   'weight', 'name'],
    'ctc_error_evaluator': ['input', 'label', 'name'],
    'chunk_evaluator': ['input', 'label', 'chunk_scheme', 'num_chunk_types',
                        'name', 'excluded_chunk_types'],
    'sum_evaluator': ['input', 'name', 'weight'],
    'column_sum_evaluator': ['input', 'name', 'weight'],
    'value_printer_evaluator': ['input', 'name'],
    'gradient_printer_evaluator': ['input', 'name'],
    'maxid_printer_evaluator': ['input', 'num_results', 'name'],
    'maxframe_printer_evaluator': ['input', 'num_results', 'name'],
    'seqtext_printer_evaluator': ['input', 'result_file', 'id_input',
                                  'dict_file', 'delimited', 'name'],
    'classification_error_printer_evaluator': ['input', 'label',
                                               'threshold', 'name'],
    # 4.8 settings and optimizers
    'settings': ['batch_size', 'learning_rate', 'learning_method',
                 'regularization', 'is_async', 'model_average',
                 'gradient_clipping_threshold', 'learning_rate_decay_a',
                 'learning_rate_decay_b', 'learning_rate_schedule',
                 'learning_rate_args'],
    'MomentumOptimizer': ['momentum', 'sparse'],
    'AdamOptimizer': ['beta1', 'beta2', 'epsilon'],
    'AdamaxOptimizer': ['beta1', 'beta2'],
    'AdaGradOptimizer': [],
    'RMSPropOptimizer': ['rho', 'epsilon'],
    'DecayedAdaGradOptimizer': ['rho', 'epsilon'],
    'AdaDeltaOptimizer': ['rho', 'epsilon'],
    'L2Regularization': ['rate'],
    'ModelAverage': ['average_window', 'max_average_window',
                     'do_average_in_cpu'],
    # 4.9 data sources
    'define_py_data_sources2': ['train_list', 'test_list', 'module', 'obj',
                                'args'],
    'define_py_data_sources': ['train_list', 'test_list', 'module', 'obj',
                               'args', 'train_async', 'data_cls'],
    # 4.10 layer arithmetic (layer_math.<op>; + - * are covered by the
    # 'layer_math' case)
    'layer_math.exp': ['input', 'name'], 'layer_math.log': ['input', 'name'],
    'layer_math.abs': ['input', 'name'],
    'layer_math.sigmoid': ['input', 'name'],
    'layer_math.tanh': ['input', 'name'],
    'layer_math.square': ['input', 'name'],
    'layer_math.relu': ['input', 'name'],
}

# b0 names that b1 dropped from __all__ but real configs still use; they
# are exported (harmless) and must keep working.
B0_ONLY = ['img_rnorm_layer', 'define_py_data_sources']


def _resolve(name):
    if name.startswith('layer_math.'):
        return getattr(layer_math, name.split('.', 1)[1], None)
    return getattr(tch, name, None) if name in tch.__all__ else None


def _params(obj):
    if inspect.isclass(obj):
        obj = obj.__init__
    obj = inspect.unwrap(obj)
    try:
        return list(inspect.signature(obj).parameters)
    except (TypeError, ValueError):
        return []


def _case_bodies():
    import test_helper_protostr
    import test_helpers
    bodies = [c[1] for c in test_helper_protostr.CASES]
    bodies += [c[1] for c in test_helpers.LAYER_CASES]
    bodies += [c[1] for c in test_helpers.PARAM_CASES]
    return bodies


def _used(name, bodies):
    pat = re.compile(r'(?<![\w.])%s\b' % re.escape(name))
    return any(pat.search(b) for b in bodies)


def test_catalogue_is_large():
    assert len(CATALOGUE) >= 150


@pytest.mark.parametrize('name', sorted(CATALOGUE))
def test_helper_exists_with_v1_signature(name):
    obj = _resolve(name)
    assert obj is not None, '%s is not exported' % name
    missing = [p for p in CATALOGUE[name] if p not in _params(obj)]
    assert not missing, '%s lacks v1 parameter(s) %s' % (name, missing)


def test_every_catalogued_helper_has_a_protostr_case():
    bodies = _case_bodies()
    untested = sorted(n for n in CATALOGUE if not _used(n, bodies))
    assert not untested, ('helpers without a protostr case in '
                          'test_helper_protostr.py / test_helpers.py: %s' %
                          untested)


def test_b0_names_are_exported():
    for name in B0_ONLY:
        assert name in tch.__all__, name


def test_config_parser_utils():
    from paddle.trainer_config_helpers import config_parser_utils as u
    assert set(u.__all__) >= {'parse_network_config',
                              'parse_optimizer_config'}
