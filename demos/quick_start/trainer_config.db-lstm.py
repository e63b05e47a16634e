# Deep bidirectional LSTM (DB-LSTM, Zhou & Xu 2015, without its CRF): 8 LSTMs
# of alternating direction, each fed by an fc over the previous fc and LSTM,
# then max pooling over time and a softmax (v1 quick_start
# trainer_config.db-lstm.py; `hidden` and `depth` shrink it).
from paddle.trainer_config_helpers import *

import dataprovider

is_predict = get_config_arg('is_predict', bool, False)
hidden = get_config_arg('hidden', int, 128)
depth = get_config_arg('depth', int, 8)
vocab_size, data_sources = dataprovider.sources(get_config_arg('dataset', str, 'generated'), is_predict, 'process_emb')
define_py_data_sources2(**data_sources)
settings(batch_size=128 if not is_predict else 1, learning_rate=2e-3, learning_method=AdamOptimizer(),
         regularization=L2Regularization(8e-4), gradient_clipping_threshold=25)

bias_attr = ParamAttr(initial_std=0., l2_rate=0.)
data = data_layer(name="word", size=vocab_size)
emb = embedding_layer(input=data, size=hidden)

hidden_0 = mixed_layer(size=hidden, input=[full_matrix_projection(input=emb)])
lstm = lstmemory(input=hidden_0, layer_attr=ExtraAttr(drop_rate=0.1))
input_layers = [hidden_0, lstm]
for i in range(1, depth):
    fc = fc_layer(input=input_layers, size=hidden)
    lstm = lstmemory(input=fc, layer_attr=ExtraAttr(drop_rate=0.1), reverse=(i % 2) == 1)
    input_layers = [fc, lstm]

lstm_last = pooling_layer(input=lstm, pooling_type=MaxPooling())
output = fc_layer(input=lstm_last, size=2, bias_attr=bias_attr, act=SoftmaxActivation())

if is_predict:
    outputs([maxid_layer(output), output])
else:
    label = data_layer(name="label", size=2)
    outputs(classification_cost(input=output, label=label))
