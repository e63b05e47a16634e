"""The networks of v1's sentiment demo and its data section.

stacked_lstm_net: fc + lstmemory layers stacked stacked_num deep (every other
LSTM runs backwards), each fc reading the previous fc and LSTM; max pooling
over time of the last fc and LSTM; softmax (Zhou et al. 2015, fewer layers).
convolution_net: two text convolutions (windows of 3 and 4 words) with max
pooling; softmax. bidirectional_lstm_net: one bidirectional LSTM; softmax.
"""
import os

from paddle.trainer.config_parser import ConfigError
from paddle.trainer_config_helpers import *

import dataprovider


def sentiment_data(data_dir, dataset='synthetic', is_test=False, is_predict=False, num_samples=0):
    """Defines the data sources (unless predicting); returns (dict_dim, class_dim)."""
    dict_file = os.path.join(data_dir, 'dict.txt') if dataset == 'imdb' else None
    dict_dim = len(dataprovider.load_dict(dataset, dict_file))
    if not is_predict:
        if dataset == 'imdb':
            train_list, test_list = (os.path.join(data_dir, n) for n in ('train.list', 'test.list'))
        else:
            train_list, test_list = 'train.list', 'test.list'
        define_py_data_sources2(None if is_test else train_list, test_list, module='dataprovider',
                                obj='process', args={'dataset': dataset, 'dict_file': dict_file,
                                                     'num_samples': num_samples})
    return dict_dim, 2


def _output(output, is_predict):
    if is_predict:
        outputs(output)
    else:
        outputs(classification_cost(input=output, label=data_layer('label', 1)))


def convolution_net(input_dim, class_dim=2, emb_dim=128, hid_dim=128, is_predict=False):
    emb = embedding_layer(input=data_layer('word', input_dim), size=emb_dim)
    conv_3 = sequence_conv_pool(input=emb, context_len=3, hidden_size=hid_dim)
    conv_4 = sequence_conv_pool(input=emb, context_len=4, hidden_size=hid_dim)
    _output(fc_layer(input=[conv_3, conv_4], size=class_dim, act=SoftmaxActivation()), is_predict)


def bidirectional_lstm_net(input_dim, class_dim=2, emb_dim=128, lstm_dim=128, is_predict=False):
    emb = embedding_layer(input=data_layer('word', input_dim), size=emb_dim)
    bi_lstm = bidirectional_lstm(input=emb, size=lstm_dim)
    dropped = dropout_layer(input=bi_lstm, dropout_rate=0.5)
    _output(fc_layer(input=dropped, size=class_dim, act=SoftmaxActivation()), is_predict)


def stacked_lstm_net(input_dim, class_dim=2, emb_dim=128, hid_dim=512, stacked_num=3, is_predict=False):
    if stacked_num % 2 != 1:
        raise ConfigError('stacked_lstm_net: stacked_num must be odd, got %d' % stacked_num)
    # the fc layers learn 1000x slower than the LSTMs, whose weights start at zero
    fc_attr = ParamAttr(learning_rate=1e-3)
    lstm_attr = ParamAttr(initial_std=0., learning_rate=1.)
    bias_attr = ParamAttr(initial_std=0., l2_rate=0.)
    dropped = ExtraAttr(drop_rate=0.5)

    emb = embedding_layer(input=data_layer('word', input_dim), size=emb_dim)
    fc = fc_layer(input=emb, size=hid_dim, act=LinearActivation(), bias_attr=bias_attr)
    lstm = lstmemory(input=fc, act=ReluActivation(), bias_attr=bias_attr, layer_attr=dropped)
    for i in range(2, stacked_num + 1):
        fc = fc_layer(input=[fc, lstm], size=hid_dim, act=LinearActivation(),
                      param_attr=[fc_attr, lstm_attr], bias_attr=bias_attr)
        lstm = lstmemory(input=fc, reverse=(i % 2) == 0, act=ReluActivation(), bias_attr=bias_attr,
                         layer_attr=dropped)
    fc_last = pooling_layer(input=fc, pooling_type=MaxPooling())
    lstm_last = pooling_layer(input=lstm, pooling_type=MaxPooling())
    _output(fc_layer(input=[fc_last, lstm_last], size=class_dim, act=SoftmaxActivation(),
                     bias_attr=bias_attr, param_attr=[fc_attr, lstm_attr]), is_predict)
