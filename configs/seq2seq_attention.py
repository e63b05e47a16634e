# Neural machine translation with attention (v1's seqToseq demo, training
# network): bidirectional GRU encoder, GRU decoder in a recurrent_group with
# simple_attention over the encoded source.
from paddle.trainer_config_helpers import *

source_dict_dim = get_config_arg('source_dict_dim', int, 30000)
target_dict_dim = get_config_arg('target_dict_dim', int, 30000)
word_vector_dim = 512
encoder_size = 512
decoder_size = 512

# Synthetic data (random samples shaped like the data layers), so the config runs as it is;
# plug in real data with a reader of docs/readers.md (csv, image_folder, text) or a provider.
define_py_data_sources2(
    train_list='synthetic_train.list',
    test_list='synthetic_test.list',
    module='paddle.trainer.readers',
    obj='synthetic',
    args={'input_types': {
        'source_language_word': ['integer_value_sequence', source_dict_dim],
        'target_language_word': ['integer_value_sequence', target_dict_dim],
        'target_language_next_word': ['integer_value_sequence', target_dict_dim]}})

settings(
    batch_size=50,
    learning_method=AdamOptimizer(),
    learning_rate=5e-4)

# encoder
src_word_id = data_layer(name='source_language_word', size=source_dict_dim)
src_embedding = embedding_layer(
    input=src_word_id,
    size=word_vector_dim,
    param_attr=ParamAttr(name='_source_language_embedding'))
src_forward = simple_gru(input=src_embedding, size=encoder_size)
src_backward = simple_gru(input=src_embedding, size=encoder_size,
                          reverse=True)
encoded_vector = concat_layer(input=[src_forward, src_backward])

with mixed_layer(size=decoder_size) as encoded_proj:
    encoded_proj += full_matrix_projection(input=encoded_vector)

backward_first = first_seq(input=src_backward)
with mixed_layer(size=decoder_size, act=TanhActivation()) as decoder_boot:
    decoder_boot += full_matrix_projection(input=backward_first)


# decoder
def gru_decoder_with_attention(enc_vec, enc_proj, current_word):
    decoder_mem = memory(name='gru_decoder', size=decoder_size,
                         boot_layer=decoder_boot)
    context = simple_attention(encoded_sequence=enc_vec,
                               encoded_proj=enc_proj,
                               decoder_state=decoder_mem)
    with mixed_layer(size=decoder_size * 3) as decoder_inputs:
        decoder_inputs += full_matrix_projection(input=context)
        decoder_inputs += full_matrix_projection(input=current_word)
    gru_step = gru_step_layer(name='gru_decoder', input=decoder_inputs,
                              output_mem=decoder_mem, size=decoder_size)
    with mixed_layer(size=target_dict_dim, bias_attr=True,
                     act=SoftmaxActivation()) as out:
        out += full_matrix_projection(input=gru_step)
    return out


trg_embedding = embedding_layer(
    input=data_layer(name='target_language_word', size=target_dict_dim),
    size=word_vector_dim,
    param_attr=ParamAttr(name='_target_language_embedding'))
decoder = recurrent_group(
    name='decoder_group',
    step=gru_decoder_with_attention,
    input=[StaticInput(input=encoded_vector, is_seq=True),
           StaticInput(input=encoded_proj, is_seq=True), trg_embedding])

lbl = data_layer(name='target_language_next_word', size=target_dict_dim)
cost = classification_cost(input=decoder, label=lbl)
outputs(cost)
