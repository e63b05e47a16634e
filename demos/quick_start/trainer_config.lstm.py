# Embedding -> LSTM -> max pooling over time -> softmax (v1 quick_start
# trainer_config.lstm.py, smaller). The LSTM sees the word order.
from paddle.trainer_config_helpers import *

import dataprovider

define_py_data_sources2(train_list='train.list', test_list='test.list', module='dataprovider',
                        obj='process_emb', args={})
settings(batch_size=32, learning_rate=1e-2, learning_method=AdamOptimizer(), gradient_clipping_threshold=25)

word = data_layer(name='word', size=dataprovider.VOCAB_SIZE)
emb = embedding_layer(input=word, size=16)
lstm = simple_lstm(input=emb, size=32)
pooled = pooling_layer(input=lstm, pooling_type=MaxPooling())
output = fc_layer(input=pooled, size=2, act=SoftmaxActivation())
label = data_layer(name='label', size=2)
outputs(classification_cost(input=output, label=label))
