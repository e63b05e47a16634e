# Embedding -> LSTM -> max pooling over time -> softmax (v1 quick_start
# trainer_config.lstm.py, smaller). The LSTM sees the word order.
from paddle.trainer_config_helpers import *

import dataprovider

is_predict = get_config_arg('is_predict', bool, False)
vocab_size, data_sources = dataprovider.sources(get_config_arg('dataset', str, 'generated'), is_predict,
                                                'process_emb')
define_py_data_sources2(**data_sources)
settings(batch_size=32, learning_rate=1e-2, learning_method=AdamOptimizer(), gradient_clipping_threshold=25)

word = data_layer(name='word', size=vocab_size)
emb = embedding_layer(input=word, size=16)
lstm = simple_lstm(input=emb, size=32)
pooled = pooling_layer(input=lstm, pooling_type=MaxPooling())
output = fc_layer(input=pooled, size=2, act=SoftmaxActivation())
if is_predict:
    outputs([maxid_layer(output), output])
else:
    label = data_layer(name='label', size=2)
    outputs(classification_cost(input=output, label=label))
