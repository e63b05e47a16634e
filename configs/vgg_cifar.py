# Small VGG for CIFAR-10 (v1's small_vgg, written out block by block):
# 4 conv groups (64x2, 128x2, 256x3, 512x3) with batch norm, then
# pool, dropout, fc 512 + batch norm, fc 10.
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
    regularization=L2Regularization(0.0005 * 128))

img = data_layer(name='image', size=3 * 32 * 32, height=32, width=32)


def vgg_block(ipt, num_filter, times, dropouts, num_channels=None):
    return img_conv_group(
        input=ipt,
        num_channels=num_channels,
        pool_size=2,
        pool_stride=2,
        conv_num_filter=[num_filter] * times,
        conv_filter_size=3,
        conv_act=ReluActivation(),
        conv_with_batchnorm=True,
        conv_batchnorm_drop_rate=dropouts,
        pool_type=MaxPooling())


tmp = vgg_block(img, 64, 2, [0.3, 0], 3)
tmp = vgg_block(tmp, 128, 2, [0.4, 0])
tmp = vgg_block(tmp, 256, 3, [0.4, 0.4, 0])
tmp = vgg_block(tmp, 512, 3, [0.4, 0.4, 0])
tmp = img_pool_layer(input=tmp, stride=2, pool_size=2, pool_type=MaxPooling())
tmp = dropout_layer(input=tmp, dropout_rate=0.5)
tmp = fc_layer(input=tmp, size=512, layer_attr=ExtraAttr(drop_rate=0.5),
               act=LinearActivation())
tmp = batch_norm_layer(input=tmp, act=ReluActivation())
predict = fc_layer(input=tmp, size=10, act=SoftmaxActivation(), name='output')
label = data_layer(name='label', size=10)
outputs(classification_cost(input=predict, label=label))
