# v1's semantic role labeling net (db_lstm, Zhou & Xu 2015): embeddings of the
# word, the 5 words around the predicate, the predicate and the mark, summed
# into a hidden layer, then `depth` LSTMs stacked with direct edges and
# alternating directions, per-label scores, a linear-chain CRF; crf_decoding
# shares its weights and feeds the IOB chunk evaluator.
#   --config_args=dataset=conll05   the real data (data/get_data.sh first)
#   --config_args=is_predict=1      outputs the decoded labels (predict.py)
import math

from paddle.trainer_config_helpers import *

import conll05

is_test = get_config_arg('is_test', bool, False)
is_predict = get_config_arg('is_predict', bool, False)
dataset = get_config_arg('dataset', str, 'synthetic')
train_size = get_config_arg('train_size', int, 2000)


words, predicates, labels = conll05.dictionaries(dataset)
if dataset == 'conll05':
    train_list, test_list = 'data/train.list', 'data/test.list'
else:
    train_list, test_list = 'synthetic_train.list', 'synthetic_test.list'
word_dict, predicate_dict, label_dict = [{w: i for i, w in enumerate(d)} for d in (words, predicates, labels)]

if not is_predict:
    define_py_data_sources2(train_list=None if is_test else train_list, test_list=test_list,
                            module='dataprovider', obj='process',
                            args={'word_dict': word_dict, 'label_dict': label_dict, 'predicate_dict': predicate_dict,
                                  'synthetic_size': {'train': train_size}})

# v1's sizes and settings are tuned for CoNLL-05 with pretrained word vectors;
# the small offline data set learns in a few passes with a smaller net, smaller
# batches and Adam at full rates.
real = dataset == 'conll05'
mark_dict_len = 2
word_dim = get_config_arg('word_dim', int, 32)
mark_dim = 5
hidden_dim = get_config_arg('hidden_dim', int, 512 if real else 128)
depth = get_config_arg('depth', int, 8 if real else 4)

settings(batch_size=get_config_arg('batch_size', int, 150 if real else 20),
         learning_method=MomentumOptimizer(momentum=0) if real else AdamOptimizer(),
         learning_rate=get_config_arg('learning_rate', float, 2e-2 if real else 5e-3),
         regularization=L2Regularization(8e-4),
         model_average=ModelAverage(average_window=0.5, max_average_window=10000))


word = data_layer(name='word_data', size=len(words))
predicate = data_layer(name='verb_data', size=len(predicates))
ctx = [data_layer(name='ctx_%s_data' % p, size=len(words)) for p in ('n2', 'n1', '0', 'p1', 'p2')]
mark = data_layer(name='mark_data', size=mark_dict_len)

default_std = 1 / math.sqrt(hidden_dim) / 3.0
std_0 = ParamAttr(initial_std=0.)
std_default = ParamAttr(initial_std=default_std)
# v1 loaded pretrained word vectors ('emb', for its own wordDict.txt) and froze
# them: pretrained_emb=1 with --init_model_path=data --load_missing_parameter_strategy=rand.
if get_config_arg('pretrained_emb', bool, False):
    emb_para = ParamAttr(name='emb', initial_std=0., learning_rate=0.)
else:
    emb_para = ParamAttr(name='emb', initial_std=default_std)

emb_layers = [embedding_layer(size=word_dim, input=x, param_attr=emb_para) for x in [word] + ctx]
emb_layers.append(embedding_layer(size=word_dim, input=predicate,
                                  param_attr=ParamAttr(name='vemb', initial_std=default_std)))
emb_layers.append(embedding_layer(name='word_ctx-in_embedding', size=mark_dim, input=mark, param_attr=std_0))

hidden_0 = mixed_layer(name='hidden0', size=hidden_dim, bias_attr=std_default,
                       input=[full_matrix_projection(input=e, param_attr=std_default) for e in emb_layers])

mix_hidden_lr = 1e-3 if real else 1.0
lstm_para_attr = ParamAttr(initial_std=0.0, learning_rate=1.0)
hidden_para_attr = ParamAttr(initial_std=default_std, learning_rate=mix_hidden_lr)


def lstm(name, input, reverse=False):
    return lstmemory(name=name, input=input, act=ReluActivation(), gate_act=SigmoidActivation(),
                     state_act=SigmoidActivation(), reverse=reverse, bias_attr=std_0, param_attr=lstm_para_attr)


def mix(name, size, pair, bias):
    return mixed_layer(name=name, size=size, bias_attr=bias,
                       input=[full_matrix_projection(input=pair[0], param_attr=hidden_para_attr),
                              full_matrix_projection(input=pair[1], param_attr=lstm_para_attr)])


# stack L-LSTM and R-LSTM with direct edges
pair = [hidden_0, lstm('lstm0', hidden_0)]
for i in range(1, depth):
    mix_hidden = mix('hidden%d' % i, hidden_dim, pair, std_default)
    pair = [mix_hidden, lstm('lstm%d' % i, mix_hidden, reverse=(i % 2) == 1)]
feature_out = mix('output', len(labels), pair, std_default)

crf_param = ParamAttr(name='crfw', initial_std=default_std, learning_rate=mix_hidden_lr)
if not is_predict:
    target = data_layer(name='target', size=len(labels))
    crf_l = crf_layer(name='crf', size=len(labels), input=feature_out, label=target, param_attr=crf_param)
    crf_dec_l = crf_decoding_layer(name='crf_dec_l', size=len(labels), input=feature_out, label=target,
                                   param_attr=ParamAttr(name='crfw'))
    sum_evaluator(input=crf_dec_l)
    chunk_evaluator(input=crf_dec_l, label=target, chunk_scheme='IOB', num_chunk_types=(len(labels) - 1) // 2)
    outputs(crf_l)
else:
    outputs(crf_decoding_layer(name='crf_dec_l', size=len(labels), input=feature_out,
                               param_attr=ParamAttr(name='crfw')))
