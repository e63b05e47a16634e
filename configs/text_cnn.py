# Text classification with a CNN: embedding, two sequence_conv_pool
# branches (context windows 3 and 4), softmax over both.
from paddle.trainer_config_helpers import *

dict_dim = get_config_arg('dict_dim', int, 10000)

# Synthetic data (random samples shaped like the data layers), so the config runs as it is;
# plug in real data with a reader of docs/readers.md (csv, image_folder, text) or a provider.
define_py_data_sources2(
    train_list='synthetic_train.list',
    test_list='synthetic_test.list',
    module='paddle.trainer.readers',
    obj='synthetic',
    args={'input_types': {
        'word': ['integer_value_sequence', dict_dim],
        'label': ['integer_value', 2]}})

settings(
    batch_size=128,
    learning_rate=2e-3,
    learning_method=AdamOptimizer(),
    regularization=L2Regularization(8e-4),
    gradient_clipping_threshold=25)

data = data_layer(name='word', size=dict_dim)
emb = embedding_layer(input=data, size=128, name='emb')
conv3 = sequence_conv_pool(input=emb, context_len=3, hidden_size=128,
                           name='conv3')
conv4 = sequence_conv_pool(input=emb, context_len=4, hidden_size=128,
                           name='conv4', pool_type=AvgPooling())
output = fc_layer(input=[conv3, conv4], size=2, act=SoftmaxActivation(),
                  name='output', param_attr=[ParamAttr(initial_std=0.02),
                                             ParamAttr(initial_std=0.01)])
label = data_layer(name='label', size=2)
cost = classification_cost(input=output, label=label, name='cost')
classification_error_evaluator(input=output, label=label, name='error')
auc_evaluator(input=output, label=label, name='auc')
outputs(cost)
