# Text classification with an LSTM (v1 quick-start "lstm" model): word ids
# -> embedding -> simple_lstm -> max pooling over time -> softmax.
from paddle.trainer_config_helpers import *

dict_dim = get_config_arg('dict_dim', int, 10000)
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
            'word': ['integer_value_sequence', dict_dim],
            'label': ['integer_value', 2]}})

settings(
    batch_size=128,
    learning_rate=2e-3,
    learning_method=AdamOptimizer(),
    regularization=L2Regularization(8e-4),
    gradient_clipping_threshold=25)

words = data_layer(name='word', size=dict_dim)
emb = embedding_layer(input=words, size=128, name='emb')
lstm = simple_lstm(input=emb, size=128, name='lstm',
                   lstm_cell_attr=ExtraAttr(drop_rate=0.25))
pooled = pooling_layer(input=lstm, pooling_type=MaxPooling(), name='pool')
output = fc_layer(input=pooled, size=2, act=SoftmaxActivation(),
                  name='output')
if is_predict:
    maxid = maxid_layer(input=output, name='maxid')
    outputs([maxid, output])
else:
    label = data_layer(name='label', size=2)
    outputs(classification_cost(input=output, label=label, name='cost'))
