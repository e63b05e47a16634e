"""An attention encoder-decoder (v1 demo/seqToseq style, scaled down):
bidirectional GRU encoder, GRU decoder with simple_attention, trained with
teacher forcing, decoded with beam_search when generating."""
from paddle.trainer_config_helpers import *


def seq2seq_net(vocab, word_dim=32, hidden=64, generating=False, beam_size=3, max_length=12):
    src = data_layer(name='source_words', size=vocab)
    src_emb = embedding_layer(input=src, size=word_dim, param_attr=ParamAttr(name='_source_emb'))
    fwd = simple_gru(input=src_emb, size=hidden)
    bwd = simple_gru(input=src_emb, size=hidden, reverse=True)
    encoded = concat_layer(input=[fwd, bwd])
    with mixed_layer(size=hidden) as encoded_proj:
        encoded_proj += full_matrix_projection(input=encoded)
    with mixed_layer(size=hidden, act=TanhActivation()) as decoder_boot:
        decoder_boot += full_matrix_projection(input=first_seq(input=bwd))

    def output_layer(state):
        # the vocabulary projection; named parameters so training and generation share it
        with mixed_layer(size=vocab, act=SoftmaxActivation(),
                         bias_attr=ParamAttr(name='_output.wbias', initial_std=0)) as out:
            out += full_matrix_projection(input=state, param_attr=ParamAttr(name='_output.w'))
        return out

    def step(enc_seq, enc_proj, word):
        state = memory(name='gru_decoder', size=hidden, boot_layer=decoder_boot)
        context = simple_attention(encoded_sequence=enc_seq, encoded_proj=enc_proj, decoder_state=state)
        with mixed_layer(size=hidden * 3) as inputs:
            inputs += full_matrix_projection(input=context)
            inputs += full_matrix_projection(input=word)
        gru = gru_step_layer(name='gru_decoder', input=inputs, output_mem=state, size=hidden)
        # generating needs the next-word probabilities inside the step; training
        # projects all decoder states at once after the loop (one large GEMM)
        return output_layer(gru) if generating else gru

    statics = [StaticInput(encoded, is_seq=True), StaticInput(encoded_proj, is_seq=True)]
    if generating:
        word = GeneratedInput(size=vocab, embedding_name='_target_emb', embedding_size=word_dim)
        return beam_search(name='decoder_group', step=step, input=statics + [word],
                           bos_id=0, eos_id=1, beam_size=beam_size, max_length=max_length)
    trg = data_layer(name='target_words', size=vocab)
    trg_emb = embedding_layer(input=trg, size=word_dim, param_attr=ParamAttr(name='_target_emb'))
    decoder = recurrent_group(name='decoder_group', step=step, input=statics + [trg_emb])
    label = data_layer(name='target_next_words', size=vocab)
    return classification_cost(input=output_layer(decoder), label=label)
