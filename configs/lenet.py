# LeNet-5 style CNN on 28x28 grey images (MNIST): conv-pool, conv-pool, fc.
from paddle.trainer_config_helpers import *

# Synthetic data (random samples shaped like the data layers), so the config runs as it is;
# plug in real data with a reader of docs/readers.md (csv, image_folder, text) or a provider.
define_py_data_sources2(
    train_list='synthetic_train.list',
    test_list='synthetic_test.list',
    module='paddle.trainer.readers',
    obj='synthetic',
    args={'input_types': {
        'pixel': ['dense_vector', 784],
        'label': ['integer_value', 10]}})

settings(
    batch_size=128,
    learning_rate=0.01,
    learning_method=MomentumOptimizer(0.9),
    regularization=L2Regularization(0.0005))

img = data_layer(name='pixel', size=784, height=28, width=28)
conv1 = simple_img_conv_pool(
    name='conv1',
    input=img,
    filter_size=5,
    num_filters=20,
    num_channel=1,
    pool_size=2,
    pool_stride=2,
    act=ReluActivation(),
    pool_type=MaxPooling())
conv2 = simple_img_conv_pool(
    name='conv2',
    input=conv1,
    filter_size=5,
    num_filters=50,
    pool_size=2,
    pool_stride=2,
    act=ReluActivation(),
    pool_type=MaxPooling())
fc1 = fc_layer(name='fc1', input=conv2, size=500, act=ReluActivation())
predict = fc_layer(name='output', input=fc1, size=10,
                   act=SoftmaxActivation())
label = data_layer(name='label', size=10)
cost = classification_cost(name='cost', input=predict, label=label)
classification_error_evaluator(input=predict, label=label, name='error')
outputs(cost)
