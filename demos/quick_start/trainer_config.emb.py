# Embedding -> average pooling over time -> softmax (v1 quick_start
# trainer_config.emb.py). Averaging loses the word order: chance on this corpus.
from paddle.trainer_config_helpers import *

import dataprovider

define_py_data_sources2(train_list='train.list', test_list='test.list', module='dataprovider',
                        obj='process_emb', args={})
settings(batch_size=32, learning_rate=1e-2, learning_method=AdamOptimizer())

word = data_layer(name='word', size=dataprovider.VOCAB_SIZE)
emb = embedding_layer(input=word, size=16)
avg = pooling_layer(input=emb, pooling_type=AvgPooling())
output = fc_layer(input=avg, size=2, act=SoftmaxActivation())
label = data_layer(name='label', size=2)
outputs(classification_cost(input=output, label=label))
