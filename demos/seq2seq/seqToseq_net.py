"""v1's demo/seqToseq network for translation: `seq_to_seq_data` declares the data
(dictionaries and file lists written by preprocess.py) and `gru_encoder_decoder` the attention
GRU encoder-decoder, trained with teacher forcing or decoded with beam search. Used by
translation/train.conf and translation/gen.conf; its encoder and decoder step also serve
the reversal recipe (seq2seq_net.py)."""
import os

from paddle.trainer_config_helpers import *


def dictionary_size(path):
    with open(path) as f:
        return sum(1 for _ in f)


def seq_to_seq_data(data_dir, is_generating, dict_size=30000, train_list='train.list',
                    test_list='test.list', gen_list='gen.list', gen_result='gen_result'):
    """Declares the provider (dataprovider.process) over data_dir's file lists: train and
    test lists when training, the gen list when generating. Returns what
    gru_encoder_decoder needs: the dictionary paths and the result file."""
    src_dict_path = os.path.join(data_dir, 'src.dict')
    trg_dict_path = os.path.join(data_dir, 'trg.dict')
    for path in (src_dict_path, trg_dict_path):
        if not os.path.exists(path):
            raise ValueError("%s is missing: run `python data/get_data.py` (offline data) or "
                             "`python data/get_data.py wmt14` in demos/seq2seq first" % path)
    if is_generating:
        train_list, test_list = None, os.path.join(data_dir, gen_list)
    else:
        train_list, test_list = os.path.join(data_dir, train_list), os.path.join(data_dir, test_list)
    define_py_data_sources2(train_list, test_list, module="dataprovider", obj="process",
                            args={"src_dict_path": src_dict_path, "trg_dict_path": trg_dict_path,
                                  "is_generating": is_generating})
    return {"src_dict_path": src_dict_path, "trg_dict_path": trg_dict_path, "gen_result": gen_result}


def gru_encoder(src_embedding, encoder_size, decoder_size):
    """Bidirectional GRU over the source embeddings. Returns the encoded sequence (both
    directions concatenated), its projection for the attention, and the decoder's boot
    state (from the backward GRU's first state)."""
    src_forward = simple_gru(input=src_embedding, size=encoder_size)
    src_backward = simple_gru(input=src_embedding, size=encoder_size, reverse=True)
    encoded_vector = concat_layer(input=[src_forward, src_backward])

    with mixed_layer(size=decoder_size) as encoded_proj:
        encoded_proj += full_matrix_projection(input=encoded_vector)

    backward_first = first_seq(input=src_backward)
    with mixed_layer(size=decoder_size, act=TanhActivation()) as decoder_boot:
        decoder_boot += full_matrix_projection(input=backward_first)
    return encoded_vector, encoded_proj, decoder_boot


def attention_decoder_step(decoder_boot, decoder_size, output=None):
    """The recurrent_group / beam_search step over (encoded sequence, its projection,
    current word): a GRU step fed by simple_attention's context and the word. The step
    returns output(GRU state) when output is given, else the state itself."""
    def gru_decoder_with_attention(enc_vec, enc_proj, current_word):
        decoder_mem = memory(name='gru_decoder', size=decoder_size, boot_layer=decoder_boot)
        context = simple_attention(encoded_sequence=enc_vec, encoded_proj=enc_proj,
                                   decoder_state=decoder_mem)
        with mixed_layer(size=decoder_size * 3) as decoder_inputs:
            decoder_inputs += full_matrix_projection(input=context)
            decoder_inputs += full_matrix_projection(input=current_word)
        gru_step = gru_step_layer(name='gru_decoder', input=decoder_inputs,
                                  output_mem=decoder_mem, size=decoder_size)
        return output(gru_step) if output else gru_step
    return gru_decoder_with_attention


def gru_encoder_decoder(data_conf, is_generating, word_vector_dim=512, encoder_size=512,
                        decoder_size=512, beam_size=3, max_length=250):
    """Bidirectional GRU encoder; GRU decoder with simple_attention over the encoded
    source, booted from the backward encoder's first state. Training outputs the
    next-word classification cost; generating outputs beam_search's results and writes
    them as words (the target dictionary) to data_conf['gen_result']."""
    source_dict_dim = dictionary_size(data_conf['src_dict_path'])
    target_dict_dim = dictionary_size(data_conf['trg_dict_path'])

    src_word_id = data_layer(name='source_language_word', size=source_dict_dim)
    src_embedding = embedding_layer(input=src_word_id, size=word_vector_dim,
                                    param_attr=ParamAttr(name='_source_language_embedding'))
    encoded_vector, encoded_proj, decoder_boot = gru_encoder(src_embedding, encoder_size,
                                                             decoder_size)

    def softmax_output(gru_step):
        with mixed_layer(size=target_dict_dim, bias_attr=True, act=SoftmaxActivation()) as out:
            out += full_matrix_projection(input=gru_step)
        return out

    gru_decoder_with_attention = attention_decoder_step(decoder_boot, decoder_size,
                                                        softmax_output)

    decoder_group_name = "decoder_group"
    group_inputs = [StaticInput(input=encoded_vector, is_seq=True),
                    StaticInput(input=encoded_proj, is_seq=True)]

    if not is_generating:
        # teacher forcing: the decoder reads the reference target words
        trg_embedding = embedding_layer(
            input=data_layer(name='target_language_word', size=target_dict_dim),
            size=word_vector_dim, param_attr=ParamAttr(name='_target_language_embedding'))
        group_inputs.append(trg_embedding)
        decoder = recurrent_group(name=decoder_group_name, step=gru_decoder_with_attention,
                                  input=group_inputs)
        lbl = data_layer(name='target_language_next_word', size=target_dict_dim)
        outputs(classification_cost(input=decoder, label=lbl))
    else:
        # generating: each step reads the embedding of the word it generated last,
        # starting from <s> (id 0) and stopping at <e> (id 1)
        trg_embedding = GeneratedInput(size=target_dict_dim,
                                       embedding_name='_target_language_embedding',
                                       embedding_size=word_vector_dim)
        group_inputs.append(trg_embedding)
        beam_gen = beam_search(name=decoder_group_name, step=gru_decoder_with_attention,
                               input=group_inputs, bos_id=0, eos_id=1,
                               beam_size=beam_size, max_length=max_length)
        seqtext_printer_evaluator(input=beam_gen, id_input=data_layer(name="sent_id", size=1),
                                  dict_file=data_conf['trg_dict_path'],
                                  result_file=data_conf['gen_result'])
        outputs(beam_gen)
