# Evaluators whose statistics are not plain sums (chunk, precision_recall, pnpair, auc) on
# a small tagger + classifier over the word sequences of tag_provider.
from paddle.trainer_config_helpers import *

define_py_data_sources2(train_list='train.list', test_list='train.list', module='tag_provider', obj='process')
settings(batch_size=16, learning_rate=0.01, learning_method=AdaGradOptimizer())
words = data_layer(name='words', size=50)
tags = data_layer(name='tags', size=3)
label = data_layer(name='label', size=2)
query = data_layer(name='query', size=4)
emb = embedding_layer(input=words, size=8)
tagged = fc_layer(input=emb, size=3, act=SoftmaxActivation())
pooled = pooling_layer(input=emb, pooling_type=AvgPooling())
out = fc_layer(input=pooled, size=2, act=SoftmaxActivation())
chunk_evaluator(input=tagged, label=tags, chunk_scheme='IOB', num_chunk_types=1)
precision_recall_evaluator(input=out, label=label)
precision_recall_evaluator(input=out, label=label, positive_label=1)
pnpair_evaluator(input=out, label=label, query_id=query)
auc_evaluator(input=out, label=label)
inputs(words, tags, label, query)  # query feeds only the evaluator
outputs(classification_cost(input=out, label=label), classification_cost(input=tagged, label=tags))
