# A small LSTM text classifier; --config_args=sparse=1 makes the embedding sparse_update
# (and drops the dropout, for a comparison with one thread); sgd=1 trains with plain SGD.
from paddle.trainer_config_helpers import *

sparse = get_config_arg('sparse', bool, False)
sgd = get_config_arg('sgd', bool, False)
define_py_data_sources2(train_list='train.list', test_list='train.list', module='seq_provider', obj='process')
settings(batch_size=16, learning_rate=0.005, learning_method=MomentumOptimizer(0) if sgd else AdaGradOptimizer(),
         regularization=L2Regularization(1e-3))
words = data_layer(name='words', size=50)
emb = embedding_layer(input=words, size=8, param_attr=ParamAttr(name='emb', sparse_update=sparse))
lstm = simple_lstm(input=emb, size=8)
pooled = pooling_layer(input=lstm, pooling_type=MaxPooling())
hidden = fc_layer(input=pooled, size=8, act=TanhActivation(), layer_attr=ExtraAttr(drop_rate=0 if sparse else 0.2))
out = fc_layer(input=hidden, size=2, act=SoftmaxActivation())
label = data_layer(name='label', size=2)
auc_evaluator(input=out, label=label)
outputs(classification_cost(input=out, label=label))
