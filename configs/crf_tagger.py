# Sequence tagging (NER / chunking) with a linear-chain CRF: word and
# part-of-speech embeddings, a context window, a hidden layer and CRF
# emissions; crf_decoding_layer + chunk_evaluator report the F1 score.
from paddle.trainer_config_helpers import *

word_dict_dim = get_config_arg('word_dict_dim', int, 5000)
pos_dict_dim = get_config_arg('pos_dict_dim', int, 50)
num_chunk_types = 3
num_labels = 2 * num_chunk_types + 1  # IOB

# Synthetic data (random samples shaped like the data layers), so the config runs as it is;
# plug in real data with a reader of docs/readers.md (csv, image_folder, text) or a provider.
define_py_data_sources2(
    train_list='synthetic_train.list',
    test_list='synthetic_test.list',
    module='paddle.trainer.readers',
    obj='synthetic',
    args={'input_types': {
        'word': ['integer_value_sequence', word_dict_dim],
        'pos': ['integer_value_sequence', pos_dict_dim],
        'chunk': ['integer_value_sequence', num_labels]}})

settings(
    batch_size=16,
    learning_method=MomentumOptimizer(momentum=0),
    learning_rate=1e-2,
    regularization=L2Regularization(8e-4),
    gradient_clipping_threshold=10)

word = data_layer(name='word', size=word_dict_dim)
pos = data_layer(name='pos', size=pos_dict_dim)
chunk = data_layer(name='chunk', size=num_labels)

word_emb = embedding_layer(input=word, size=64, name='word_emb')
pos_emb = embedding_layer(input=pos, size=16, name='pos_emb')
window = concat_layer(
    name='window',
    input=[
        context_projection(input=word_emb, context_len=5, context_start=-2),
        context_projection(input=pos_emb, context_len=5, context_start=-2)
    ])
hidden = fc_layer(input=window, size=128, act=TanhActivation(),
                  name='hidden', layer_attr=ExtraAttr(drop_rate=0.2))
emission = fc_layer(input=hidden, size=num_labels, act=LinearActivation(),
                    name='emission')
crf = crf_layer(input=emission, label=chunk, size=num_labels, name='crf',
                param_attr=ParamAttr(name='crfw', initial_std=0))
crf_dec = crf_decoding_layer(input=emission, size=num_labels, label=chunk,
                             name='crf_decoding',
                             param_attr=ParamAttr(name='crfw'))
chunk_evaluator(input=crf_dec, label=chunk, name='chunk_f1',
                chunk_scheme='IOB', num_chunk_types=num_chunk_types)
sum_evaluator(input=crf_dec, name='errors')
outputs(crf)
