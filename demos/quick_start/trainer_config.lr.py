# Bag of words -> logistic regression (v1 quick_start trainer_config.lr.py).
# Word order is lost, so on this corpus it stays at chance.
from paddle.trainer_config_helpers import *

import dataprovider

is_predict = get_config_arg('is_predict', bool, False)
vocab_size, data_sources = dataprovider.sources(get_config_arg('dataset', str, 'generated'), is_predict,
                                                'process_bow')
define_py_data_sources2(**data_sources)
settings(batch_size=32, learning_rate=1e-2, learning_method=AdamOptimizer())

word = data_layer(name='word', size=vocab_size)
output = fc_layer(input=word, size=2, act=SoftmaxActivation())
if is_predict:
    outputs([maxid_layer(output), output])
else:
    label = data_layer(name='label', size=2)
    outputs(classification_cost(input=output, label=label))
