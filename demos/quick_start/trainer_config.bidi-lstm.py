# Embedding -> bidirectional LSTM (last states of both directions) -> dropout
# -> softmax (v1 quick_start trainer_config.bidi-lstm.py; `hidden` shrinks it).
from paddle.trainer_config_helpers import *

import dataprovider

is_predict = get_config_arg('is_predict', bool, False)
hidden = get_config_arg('hidden', int, 128)
vocab_size, data_sources = dataprovider.sources(get_config_arg('dataset', str, 'generated'), is_predict, 'process_emb')
define_py_data_sources2(**data_sources)
settings(batch_size=128 if not is_predict else 1, learning_rate=2e-3, learning_method=AdamOptimizer(),
         regularization=L2Regularization(8e-4), gradient_clipping_threshold=25)

bias_attr = ParamAttr(initial_std=0., l2_rate=0.)
data = data_layer(name="word", size=vocab_size)
emb = embedding_layer(input=data, size=hidden)
bi_lstm = bidirectional_lstm(input=emb, size=hidden)
dropout = dropout_layer(input=bi_lstm, dropout_rate=0.5)
output = fc_layer(input=dropout, size=2, bias_attr=bias_attr, act=SoftmaxActivation())

if is_predict:
    outputs([maxid_layer(output), output])
else:
    label = data_layer(name="label", size=2)
    outputs(classification_cost(input=output, label=label))
