# ResNet-20 for CIFAR-10 (He et al. 2016, section 4.2): a 3x3 conv, three
# stages of 3 basic blocks (16, 32, 64 filters), global average pooling and
# a 10-way softmax.  Residual sums are addto_layers; where the shape changes
# the shortcut is a 1x1 projection conv (option B).
from paddle.trainer_config_helpers import *

# Synthetic data (random samples shaped like the data layers), so the config runs as it is;
# plug in real data with a reader of docs/readers.md (csv, image_folder, text) or a provider.
define_py_data_sources2(
    train_list='synthetic_train.list',
    test_list='synthetic_test.list',
    module='paddle.trainer.readers',
    obj='synthetic',
    args={'input_types': {
        'image': ['dense_vector', 3072],
        'label': ['integer_value', 10]}})

settings(
    batch_size=128,
    learning_rate=0.1 / 128.0,
    learning_method=MomentumOptimizer(0.9),
    regularization=L2Regularization(0.0001 * 128))


def conv_bn(name, ipt, filter_size, num_filters, stride, padding, act,
            num_channels=None):
    conv = img_conv_layer(
        name=name + '_conv',
        input=ipt,
        filter_size=filter_size,
        num_filters=num_filters,
        num_channels=num_channels,
        stride=stride,
        padding=padding,
        act=LinearActivation(),
        bias_attr=False)
    return batch_norm_layer(name=name + '_bn', input=conv, act=act)


def basic_block(name, ipt, ch_in, ch_out, stride):
    if ch_in != ch_out or stride != 1:
        shortcut = conv_bn(name + '_proj', ipt, 1, ch_out, stride, 0,
                           LinearActivation())
    else:
        shortcut = ipt
    a = conv_bn(name + '_a', ipt, 3, ch_out, stride, 1, ReluActivation())
    b = conv_bn(name + '_b', a, 3, ch_out, 1, 1, LinearActivation())
    return addto_layer(name=name, input=[shortcut, b], act=ReluActivation())


img = data_layer(name='image', size=3 * 32 * 32, height=32, width=32)
tmp = conv_bn('conv1', img, 3, 16, 1, 1, ReluActivation(), num_channels=3)
ch_in = 16
for stage, ch_out in enumerate([16, 32, 64]):
    for i in range(3):
        stride = 2 if (i == 0 and stage > 0) else 1
        tmp = basic_block('res%d_%d' % (stage + 1, i + 1), tmp, ch_in, ch_out,
                          stride)
        ch_in = ch_out
pool = img_pool_layer(name='pool', input=tmp, pool_size=8, stride=1,
                      pool_type=AvgPooling())
predict = fc_layer(name='output', input=pool, size=10,
                   act=SoftmaxActivation())
label = data_layer(name='label', size=10)
outputs(classification_cost(name='cost', input=predict, label=label))
