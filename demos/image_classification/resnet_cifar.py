# A ResNet for CIFAR-10 (He et al. 2016, section 4.2) in v1 syntax: a 3x3 conv, three
# stages of (depth - 2) / 6 basic blocks with 16, 32 and 64 filters, global average
# pooling, softmax. Shortcuts that change shape are 1x1 convs with batch norm.
#   paddle train --config=resnet_cifar.py --save_dir=./cifar_resnet_model --num_passes=200
# --config_args: depth (6n+2, default 32), dataset=synthetic|cifar, num_samples, is_predict.
from paddle.trainer.config_parser import ConfigError
from paddle.trainer_config_helpers import *

from cifar_data import cifar_data

is_predict = get_config_arg('is_predict', bool, False)
cifar_data(get_config_arg('dataset', str, 'synthetic'), get_config_arg('num_samples', int, 0), is_predict)
depth = get_config_arg('depth', int, 32)
if depth < 8 or (depth - 2) % 6:
    raise ConfigError('depth must be 6n+2 (8, 14, 20, 32, 56, ...), got %d' % depth)

settings(batch_size=128, learning_rate=0.1 / 128.0, learning_method=MomentumOptimizer(0.9),
         regularization=L2Regularization(0.0001 * 128))


def conv_bn_layer(input, ch_out, filter_size, stride, padding, act=ReluActivation(), ch_in=None):
    conv = img_conv_layer(input=input, filter_size=filter_size, num_channels=ch_in, num_filters=ch_out,
                          stride=stride, padding=padding, act=LinearActivation(), bias_attr=False)
    return batch_norm_layer(input=conv, act=act)


def basic_block(input, ch_in, ch_out, stride):
    if ch_in != ch_out or stride != 1:
        shortcut = conv_bn_layer(input, ch_out, 1, stride, 0, LinearActivation())
    else:
        shortcut = input
    tmp = conv_bn_layer(input, ch_out, 3, stride, 1)
    tmp = conv_bn_layer(tmp, ch_out, 3, 1, 1, LinearActivation())
    return addto_layer(input=[shortcut, tmp], act=ReluActivation())


img = data_layer(name='image', size=3 * 32 * 32, height=32, width=32)
tmp = conv_bn_layer(img, ch_out=16, filter_size=3, stride=1, padding=1, ch_in=3)
ch_in = 16
for stage, ch_out in enumerate([16, 32, 64]):
    for block in range((depth - 2) // 6):
        tmp = basic_block(tmp, ch_in, ch_out, 2 if stage > 0 and block == 0 else 1)
        ch_in = ch_out
pool = img_pool_layer(input=tmp, pool_size=8, stride=1, pool_type=AvgPooling())
predict = fc_layer(input=pool, size=10, act=SoftmaxActivation())
if is_predict:
    outputs(predict)
else:
    outputs(classification_cost(input=predict, label=data_layer(name='label', size=10)))
