# A click model on sparse binary features: a sparse-input fc_layer reads the rows of a
# sparse_update table (ParamAttr(sparse_update=True)) that each sample's ids name.
from paddle.trainer_config_helpers import *

define_py_data_sources2(train_list='train.list', test_list='train.list', module='ctr_provider', obj='process')
settings(batch_size=16, learning_rate=0.01, learning_method=AdaGradOptimizer(),
         regularization=L2Regularization(1e-3))
features = data_layer(name='features', size=200)
hidden = fc_layer(input=features, size=8, act=TanhActivation(),
                  param_attr=ParamAttr(name='table', sparse_update=True))
out = fc_layer(input=hidden, size=2, act=SoftmaxActivation())
label = data_layer(name='label', size=2)
outputs(classification_cost(input=out, label=label))
