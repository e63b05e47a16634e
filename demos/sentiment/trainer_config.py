# v1's sentiment demo: IMDB reviews (or generated ones) -> positive / negative.
#   paddle train --config=trainer_config.py --save_dir=./output --num_passes=10
# --config_args: dataset=synthetic|imdb, net=stacked_lstm|conv|bilstm, emb_dim, hid_dim,
# stacked_num, num_samples (synthetic training reviews, test gets a fifth; 0: 4000 / 1000),
# is_test, is_predict.
from paddle.trainer.config_parser import ConfigError
from paddle.trainer_config_helpers import *

from sentiment_net import *

dataset = get_config_arg('dataset', str, 'synthetic')
net = get_config_arg('net', str, 'stacked_lstm')
emb_dim = get_config_arg('emb_dim', int, 128)
hid_dim = get_config_arg('hid_dim', int, 512 if net == 'stacked_lstm' else 128)  # v1's sizes
is_test = get_config_arg('is_test', bool, False)
is_predict = get_config_arg('is_predict', bool, False)

dict_dim, class_dim = sentiment_data('./data/pre-imdb', dataset, is_test, is_predict,
                                     get_config_arg('num_samples', int, 0))

settings(batch_size=128, learning_rate=2e-3, learning_method=AdamOptimizer(),
         model_average=ModelAverage(0.5), regularization=L2Regularization(8e-4),
         gradient_clipping_threshold=25)

if net == 'stacked_lstm':
    stacked_lstm_net(dict_dim, class_dim=class_dim, emb_dim=emb_dim, hid_dim=hid_dim,
                     stacked_num=get_config_arg('stacked_num', int, 3), is_predict=is_predict)
elif net == 'conv':
    convolution_net(dict_dim, class_dim=class_dim, emb_dim=emb_dim, hid_dim=hid_dim, is_predict=is_predict)
elif net == 'bilstm':
    bidirectional_lstm_net(dict_dim, class_dim=class_dim, emb_dim=emb_dim, lstm_dim=hid_dim,
                           is_predict=is_predict)
else:
    raise ConfigError("net must be stacked_lstm, conv or bilstm, got %r" % net)
