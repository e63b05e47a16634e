# Sentiment classification with a bidirectional LSTM (v1's
# bidirectional_lstm network): last forward step ++ first backward step.
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
    batch_size=64,
    learning_rate=1e-3,
    learning_method=AdamOptimizer(beta1=0.9, beta2=0.999),
    model_average=ModelAverage(0.5))

words = data_layer(name='word', size=dict_dim)
emb = embedding_layer(input=words, size=256, name='emb',
                      param_attr=ParamAttr(name='_emb', initial_std=0.02))
bi = bidirectional_lstm(input=emb, size=128, name='bilstm',
                        fwd_act=TanhActivation(), bwd_act=TanhActivation())
dropped = dropout_layer(input=bi, dropout_rate=0.5, name='drop')
output = fc_layer(input=dropped, size=2, act=SoftmaxActivation(),
                  name='output', bias_attr=ParamAttr(initial_std=0.,
                                                     l2_rate=0.))
label = data_layer(name='label', size=2)
outputs(classification_cost(input=output, label=label, name='cost'))
