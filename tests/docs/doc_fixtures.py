"""Small ready-made inputs for the py_paddle docstring examples (tests/docs/test_doc_examples.py).

Each function writes what it needs into the current directory (a fresh temporary one
per example) and returns paths or objects, so an example stays a few lines long.

The network of most examples: data layer 'x' (3 features) -> fc 'hidden' (4, tanh) ->
fc 'prob' (2, softmax); with a cost, a data layer 'label' (2 classes) and a
classification cost over 'prob'.
"""
import os

import numpy as np

from paddle.trainer.config_parser import parse_config
from py_paddle import swig_paddle as api

MLP_CONFIG = """\
from paddle.trainer_config_helpers import *
settings(batch_size=4, learning_rate=0.1, learning_method=MomentumOptimizer(0.9))
x = data_layer(name='x', size=3)
hidden = fc_layer(input=x, size=4, act=TanhActivation(), name='hidden')
prob = fc_layer(input=hidden, size=2, act=SoftmaxActivation(), name='prob')
if get_config_arg('is_predict', bool, False):
    outputs(prob)
else:
    label = data_layer(name='label', size=2)
    cost = classification_cost(input=prob, label=label, name='cost')
    outputs(cost)
"""

GENERATOR_CONFIG = """\
from paddle.trainer_config_helpers import *
settings(batch_size=4)
src = data_layer(name='src', size=3)
enc = fc_layer(input=src, size=8, act=TanhActivation())
def step(enc_seq, word):
    mem = memory(name='dec', size=8)
    ctx = pooling_layer(input=enc_seq, pooling_type=AvgPooling())
    h = fc_layer(input=[word, mem, ctx], size=8, act=TanhActivation(), name='dec')
    return fc_layer(input=h, size=6, act=SoftmaxActivation(), name='next_word')
outputs(beam_search(step=step, input=[StaticInput(enc, is_seq=True),
                                      GeneratedInput(size=6, embedding_name='emb', embedding_size=4)],
                    bos_id=0, eos_id=1, beam_size=3, max_length=5, name='decoder'))
"""

# the generator's dictionary: id -> word
WORDS = ["<s>", "<e>", "a", "b", "c", "d"]


def mlp_config(predict=False, path="mlp.py"):
    """Writes the MLP's config file; returns the parsed TrainerConfig message."""
    with open(path, "w") as f:
        f.write(MLP_CONFIG)
    return parse_config(path, "is_predict=1" if predict else "")


def tiny_mlp(predict=True):
    """A GradientMachine of the MLP (seed 1): without the cost when predict is true."""
    return api.GradientMachine.createFromConfigProto(mlp_config(predict).model_config)


def features(rows=2):
    """A float32 array (rows x 3) of fixed features."""
    return np.arange(rows * 3, dtype=np.float32).reshape(rows, 3) / 10


def batch(rows=2, labels=False):
    """Arguments for the MLP: slot 0 the features; with labels, slot 1 the class ids (0, 1, 0, ...)."""
    args = api.Arguments.createArguments(2 if labels else 1)
    args.setSlotValue(0, api.Matrix.createDenseFromNumpy(features(rows)))
    if labels:
        args.setSlotIds(1, api.IVector.create([i % 2 for i in range(rows)]))
    return args


def tiny_trainer():
    """A Trainer of the MLP with its cost (momentum SGD, batch size 4), parameters from seed 1."""
    return api.Trainer.create(mlp_config())


def saved_pass(directory="pass-00000"):
    """Saves the MLP's parameters (seed 1) into `directory` (the layout of a pass of
    `paddle train`) and writes mlp.py; returns the directory."""
    os.makedirs(directory, exist_ok=True)
    tiny_mlp(predict=False).saveParameters(directory)
    return directory


def merged_model(path="mlp.paddle"):
    """Merges the MLP's prediction network with the parameters of saved_pass(); returns the path."""
    from py_paddle import deploy
    deploy.merge_model("mlp.py", saved_pass(), path, "is_predict=1")
    return path


TEXT_CONFIG = """\
from paddle.trainer_config_helpers import *
settings(batch_size=4)
words = data_layer(name='words', size=5)
avg = pooling_layer(input=embedding_layer(input=words, size=4), pooling_type=AvgPooling())
outputs(fc_layer(input=avg, size=2, act=SoftmaxActivation(), name='prob'))
"""


def text_model(path="text.paddle"):
    """A merged text classifier (words -> 'neg' / 'pos') whose file ends with the text reader's
    fitted vocabulary (good, bad, film, fine, <unk>), as a model trained with the text reader
    keeps it; its parameters are random (seed 1)."""
    from paddle.trainer import preprocessing
    from py_paddle import deploy
    with open("text.py", "w") as f:
        f.write(TEXT_CONFIG)
    gm = api.GradientMachine.createFromConfigProto(parse_config("text.py", "").model_config)
    os.makedirs("text-pass", exist_ok=True)
    gm.saveParameters("text-pass")
    state = preprocessing.fit_text("k", [], ["neg", "pos"], dictionary_words=["good", "bad", "film", "fine"])
    preprocessing.save("text-pass", [state])
    deploy.merge_model("text.py", "text-pass", path)
    return path


def generator():
    """A GradientMachine over a beam_search config (beam 3, at most 5 words, bos 0, eos 1,
    dictionary WORDS) with fixed random weights, and one input sequence of 3 rows for it."""
    with open("gen.py", "w") as f:
        f.write(GENERATOR_CONFIG)
    gm = api.GradientMachine.createFromConfigProto(parse_config("gen.py", "").model_config)
    for p in gm.getParameters():
        weights = np.random.RandomState(len(p.getName())).randn(p.getSize()).astype(np.float32) * 2
        p.getBuf(api.PARAMETER_VALUE).copyFromNumpyArray(weights)
    source = api.Arguments.createArguments(1)
    source.setSlotValue(0, api.Matrix.createDenseFromNumpy(features(3)))
    source.setSlotSequenceStartPositions(0, api.IVector.create([0, 3]))
    return gm, source
