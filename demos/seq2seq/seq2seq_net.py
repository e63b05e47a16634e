"""An attention encoder-decoder (v1 demo/seqToseq style, scaled down): the encoder and
decoder step of seqToseq_net.py (bidirectional GRU encoder, GRU decoder with
simple_attention), trained with teacher forcing, decoded with beam_search when generating.
Unlike gru_encoder_decoder, training projects the decoder states to the vocabulary after
the recurrent group."""
from paddle.trainer_config_helpers import *
from seqToseq_net import attention_decoder_step, gru_encoder


def seq2seq_net(vocab, word_dim=32, hidden=64, generating=False, beam_size=3, max_length=12):
    src = data_layer(name='source_words', size=vocab)
    src_emb = embedding_layer(input=src, size=word_dim, param_attr=ParamAttr(name='_source_emb'))
    encoded, encoded_proj, decoder_boot = gru_encoder(src_emb, hidden, hidden)

    def output_layer(state):
        # the vocabulary projection; named parameters so training and generation share it
        with mixed_layer(size=vocab, act=SoftmaxActivation(),
                         bias_attr=ParamAttr(name='_output.wbias', initial_std=0)) as out:
            out += full_matrix_projection(input=state, param_attr=ParamAttr(name='_output.w'))
        return out

    # generating needs the next-word probabilities inside the step; training projects
    # all decoder states at once after the loop (one large GEMM)
    step = attention_decoder_step(decoder_boot, hidden, output_layer if generating else None)
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
