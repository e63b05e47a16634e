# MNIST / digits MLP in the v1 config language.
#   cd demos/mnist && paddle train --config=mlp.py --save_dir=output --num_passes=30
# --config_args=dataset=mnist trains on real MNIST (run data/get_mnist_data.sh first).
from paddle.trainer_config_helpers import *

dataset = get_config_arg('dataset', str, 'digits')
is_predict = get_config_arg('is_predict', bool, False)

define_py_data_sources2(train_list='train.list', test_list='test.list',
                        module='mnist_provider', obj='process', args={'dataset': dataset})

settings(batch_size=32, learning_rate=1e-3, learning_method=AdamOptimizer())

img = data_layer(name='pixel', size=64 if dataset == 'digits' else 784)
hidden1 = fc_layer(input=img, size=512, act=ReluActivation())
hidden2 = fc_layer(input=hidden1, size=512, act=ReluActivation())
predict = fc_layer(input=hidden2, size=10, act=SoftmaxActivation())

if is_predict:
    outputs(predict)
else:
    label = data_layer(name='label', size=10)
    outputs(classification_cost(input=predict, label=label))
