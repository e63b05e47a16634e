# Bag of words -> logistic regression (v1 quick_start trainer_config.lr.py).
# Word order is lost, so on this corpus it stays at chance.
from paddle.trainer_config_helpers import *

import dataprovider

define_py_data_sources2(train_list='train.list', test_list='test.list', module='dataprovider',
                        obj='process_bow', args={})
settings(batch_size=32, learning_rate=1e-2, learning_method=AdamOptimizer())

word = data_layer(name='word', size=dataprovider.VOCAB_SIZE)
output = fc_layer(input=word, size=2, act=SoftmaxActivation())
label = data_layer(name='label', size=2)
outputs(classification_cost(input=output, label=label))
