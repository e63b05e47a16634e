# A CRF chunker in the style of v1's semantic_role_labeling demo: word embeddings,
# a window of 5 words (context_projection), a hidden tanh layer, per-tag emission
# scores, then a linear-chain CRF cost; crf_decoding_layer shares the CRF weights
# ('crfw') and feeds the chunk evaluator (IOB, 3 chunk types).
from paddle.trainer_config_helpers import *

import dataprovider

is_predict = get_config_arg('is_predict', bool, False)
train_size = get_config_arg('train_size', int, 2000)

define_py_data_sources2(train_list='train.list', test_list='test.list', module='dataprovider', obj='process',
                        args={'train_size': train_size})

settings(batch_size=20, learning_rate=1e-2, learning_method=AdamOptimizer())

NUM_LABELS = dataprovider.NUM_LABELS
EMB = 24

word = data_layer(name='word', size=dataprovider.VOCAB_SIZE)
emb = embedding_layer(input=word, size=EMB)
window = mixed_layer(size=EMB * 5, input=context_projection(input=emb, context_len=5))
hidden = fc_layer(input=window, size=64, act=TanhActivation())
feature = fc_layer(input=hidden, size=NUM_LABELS, act=LinearActivation())

if not is_predict:
    label = data_layer(name='label', size=NUM_LABELS)
    crf = crf_layer(input=feature, label=label, size=NUM_LABELS, param_attr=ParamAttr(name='crfw'))
    decoded = crf_decoding_layer(input=feature, size=NUM_LABELS, param_attr=ParamAttr(name='crfw'))
    chunk_evaluator(input=decoded, label=label, chunk_scheme='IOB', num_chunk_types=dataprovider.NUM_CHUNK_TYPES)
    outputs(crf)
else:
    outputs(crf_decoding_layer(input=feature, size=NUM_LABELS, param_attr=ParamAttr(name='crfw')))
