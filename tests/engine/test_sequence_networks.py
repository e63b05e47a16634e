"""The v1 sequence networks (trainer_config_helpers.networks) run through the
engine: built by the config parser, finite-difference checked end to end."""
import textwrap

import numpy as np
import pytest

from netbuilder import Seq, gradient_check
from paddle.proto import message_to_json
from paddle.trainer.config_parser import parse_config
from py_paddle import swig_paddle as api

NETWORKS = {
    "simple_lstm": "pooling_layer(input=simple_lstm(input=emb, size=4), pooling_type=MaxPooling())",
    "bidirectional_lstm": "bidirectional_lstm(input=emb, size=4)",
    "bidirectional_lstm_seq": "last_seq(input=bidirectional_lstm(input=emb, size=4, return_seq=True))",
    "bidirectional_gru": "bidirectional_gru(input=emb, size=4)",
    "simple_gru": "last_seq(input=simple_gru(input=emb, size=4))",
    "gru_group": "first_seq(input=gru_group(input=fc_layer(input=emb, size=12), size=4))",
    "lstmemory_group": "last_seq(input=lstmemory_group(input=fc_layer(input=emb, size=16), size=4))",
    "sequence_conv_pool": "sequence_conv_pool(input=emb, context_len=3, hidden_size=4)",
    "text_conv_pool": "text_conv_pool(input=emb, context_len=2, hidden_size=4)",
}


@pytest.mark.parametrize("name", sorted(NETWORKS))
def test_network_trains_and_has_correct_gradients(name, tmp_path):
    feature = NETWORKS[name]
    conf = tmp_path / "net.py"
    conf.write_text(textwrap.dedent("""
        from paddle.trainer_config_helpers import *
        settings(batch_size=4)
        x = data_layer(name='x', size=3)
        emb = fc_layer(input=x, size=5, act=TanhActivation())
        feature = %s
        out = fc_layer(input=feature, size=2, act=SoftmaxActivation())
        outputs(classification_cost(input=out, label=data_layer(name='y', size=2)))
        """ % feature))
    tc = parse_config(str(conf), "")
    gm = api.GradientMachine.createByConfigJson(message_to_json(tc.model_config), False, 3)
    rng = np.random.RandomState(0)
    starts = [0, 3, 4, 9]
    slots = {"x": Seq(rng.randn(9, 3).astype(np.float32), starts), "y": rng.randint(0, 2, 3).astype(np.int32)}
    ordered = [slots[n] for n in gm.getInputLayerNames()]
    gradient_check(gm, ordered, input_slots=[list(gm.getInputLayerNames()).index("x")], samples=6)
