# MLP classifier (MNIST-sized: 784-128-64-10), the v1 "quick start" model.
from paddle.trainer_config_helpers import *

is_predict = get_config_arg('is_predict', bool, False)

if not is_predict:
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
    learning_rate=0.1 / 128.0,
    learning_method=MomentumOptimizer(0.9),
    regularization=L2Regularization(0.0005 * 128))

img = data_layer(name='pixel', size=784)
hidden1 = fc_layer(input=img, size=128, act=ReluActivation(), name='hidden1')
hidden2 = fc_layer(
    input=hidden1,
    size=64,
    act=ReluActivation(),
    name='hidden2',
    param_attr=ParamAttr(initial_std=0.01, l2_rate=0.0005),
    layer_attr=ExtraAttr(drop_rate=0.2))
predict = fc_layer(
    input=hidden2, size=10, act=SoftmaxActivation(), name='output')

if is_predict:
    outputs(predict)
else:
    label = data_layer(name='label', size=10)
    cost = classification_cost(input=predict, label=label, name='cost')
    outputs(cost)
