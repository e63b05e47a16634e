"""The engine's thread pool (engine/math/ThreadPool): its unit test, and training that gives
the same bits run after run at a fixed thread count and the same numbers (to float rounding)
at 1 and 2 threads. Each training runs in a fresh process, since the thread count is read
from the environment (PADDLE_THREADS) when the engine first needs it."""
import glob
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HERE = os.path.dirname(os.path.abspath(__file__))


def engine_library():
    libs = glob.glob(os.path.join(ROOT, "py_paddle", "libpaddle_engine.so"))
    if not libs:
        import py_paddle
        libs = glob.glob(os.path.join(os.path.dirname(py_paddle.__file__), "libpaddle_engine.so"))
    return libs[0] if libs else None


def test_thread_pool_unit(tmp_path):
    cxx, lib = shutil.which("g++"), engine_library()
    if not cxx or not lib:
        pytest.skip("needs g++ and the built engine library")
    import scipy_openblas32  # the engine library's OpenBLAS, found through the package at run time
    blas = scipy_openblas32.get_lib_dir()
    exe = str(tmp_path / "thread_pool_test")
    subprocess.run([cxx, "-std=c++17", "-O1", "-pthread", "-I", ROOT, os.path.join(HERE, "cpp", "thread_pool_test.cpp"),
                    lib, "-L" + blas, "-l" + scipy_openblas32.get_library(),
                    "-o", exe], check=True)
    for env, want in [({"PADDLE_THREADS": "3"}, "3"), ({"OMP_NUM_THREADS": "5"}, "5"),
                      ({"PADDLE_THREADS": "2", "OMP_NUM_THREADS": "5"}, "2")]:
        clean = {k: v for k, v in os.environ.items()
                 if k not in ("PADDLE_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "PADDLE_PARALLEL_ALL",
                               "PADDLE_REVERSE_KERNELS")}
        clean["LD_LIBRARY_PATH"] = os.pathsep.join([os.path.dirname(lib), blas])
        out = subprocess.run([exe, want], env=dict(clean, **env), capture_output=True, text=True, timeout=120)
        assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr


CONV = """
settings(batch_size=64, learning_rate=0.01, learning_method=MomentumOptimizer(0.9))
img = data_layer(name='pixel', size=3 * 16 * 16, height=16, width=16)
c = simple_img_conv_pool(input=img, filter_size=3, num_filters=16, num_channel=3, pool_size=2, pool_stride=2,
                         act=ReluActivation(), conv_padding=1, pool_type=MaxPooling())
h = fc_layer(input=c, size=128, act=TanhActivation())
out = fc_layer(input=h, size=10, act=SoftmaxActivation())
outputs(classification_cost(input=out, label=data_layer(name='label', size=10)))
"""
LSTM = """
settings(batch_size=64, learning_rate=2e-3, learning_method=MomentumOptimizer(0.9))
words = data_layer(name='words', size=500)
emb = embedding_layer(input=words, size=64)
lstm = simple_lstm(input=emb, size=64)
out = fc_layer(input=last_seq(lstm), size=2, act=SoftmaxActivation())
outputs(classification_cost(input=out, label=data_layer(name='label', size=2)))
"""
GRU = """
settings(batch_size=64, learning_rate=2e-3, learning_method=MomentumOptimizer(0.9))
words = data_layer(name='words', size=500)
emb = embedding_layer(input=words, size=64)
gru = simple_gru(input=emb, size=64)
out = fc_layer(input=pooling_layer(input=gru, pooling_type=MaxPooling()), size=2, act=SoftmaxActivation())
outputs(classification_cost(input=out, label=data_layer(name='label', size=2)))
"""
# gated_recurrent (simple_gru2) encoder, attention decoder (expand, sequence softmax, average
# pooling over the source in every frame of a recurrent_group)
ATTENTION = """
settings(batch_size=64, learning_rate=2e-3, learning_method=MomentumOptimizer(0.9))
words = data_layer(name='words', size=500)
emb = embedding_layer(input=words, size=32)
enc = simple_gru2(input=emb, size=32)
enc_proj = fc_layer(input=enc, size=32, act=LinearActivation(), bias_attr=False)

def step(enc_seq, enc_proj, word):
    state = memory(name='dec', size=32)
    context = simple_attention(encoded_sequence=enc_seq, encoded_proj=enc_proj, decoder_state=state)
    with mixed_layer(size=96) as inputs:
        inputs += full_matrix_projection(input=context)
        inputs += full_matrix_projection(input=word)
    return gru_step_layer(name='dec', input=inputs, output_mem=state, size=32)

dec = recurrent_group(step=step, input=[StaticInput(enc, is_seq=True), StaticInput(enc_proj, is_seq=True), emb])
out = fc_layer(input=last_seq(dec), size=2, act=SoftmaxActivation())
outputs(classification_cost(input=out, label=data_layer(name='label', size=2)))
"""

# Trains 4 batches of a config and saves every parameter value to an .npz.
RUNNER = r"""
import sys
import numpy as np
from paddle.proto import message_to_json
from paddle.trainer.config_parser import parse_config
from py_paddle import swig_paddle as api

config, out, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
conf = parse_config(config, "")
trainer = api.Trainer.create(message_to_json(conf), False, count, 1)
print("replicas", trainer.getReplicaCount())
if out == "-":  # only the choice
    sys.exit(0)
trainer.startTrainPass(0)
rng = np.random.RandomState(0)
names = list(conf.model_config.input_layer_names)
for _ in range(4):
    a = api.Arguments.createArguments(2)
    if names[0] == "pixel":
        a.setSlotValueFromBuffer(0, rng.rand(64, 3 * 16 * 16).astype(np.float32))
        a.setSlotIdsFromBuffer(1, rng.randint(0, 10, 64).astype(np.int32))
    else:
        lengths = rng.randint(5, 60, 64)
        a.setSlotIdsFromBuffer(0, rng.randint(0, 500, int(lengths.sum())).astype(np.int32))
        a.setSlotSequenceStartPositionsFromBuffer(0, np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32))
        a.setSlotIdsFromBuffer(1, rng.randint(0, 2, 64).astype(np.int32))
    trainer.trainOneDataBatch(64, a)
gm = trainer.getGradientMachine()
np.savez(out, **{p.getName(): p.getBuf(api.PARAMETER_VALUE).copyToNumpyArray() for p in gm.getParameters()})
"""


def run_config(tmp_path, config, threads, out, count, env):
    """Runs RUNNER; returns the replica count the trainer used."""
    cfg = tmp_path / "config.py"
    cfg.write_text("from paddle.trainer_config_helpers import *\n" + config)
    clean = {k: v for k, v in os.environ.items() if k not in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS")}
    env = dict(clean, PADDLE_THREADS=str(threads), PYTHONPATH=os.pathsep.join([ROOT] + sys.path), **env)
    p = subprocess.run([sys.executable, "-c", RUNNER, str(cfg), out, str(count)], check=True, env=env, timeout=600,
                       capture_output=True, text=True)
    return int(p.stdout.split("replicas")[1].split()[0])


def train(tmp_path, config, threads, tag, count=1, **env):
    out = tmp_path / ("%s.npz" % tag)
    run_config(tmp_path, config, threads, str(out), count, env)
    return dict(np.load(str(out)))


@pytest.mark.parametrize("name,config", [("conv", CONV), ("lstm", LSTM), ("gru", GRU), ("attention", ATTENTION)])
def test_threads_bitwise_repeatable_and_close_to_one_thread(tmp_path, name, config):
    # PADDLE_PARALLEL_ALL=1 splits every loop the pool can split, however small
    first = train(tmp_path, config, 2, "a", PADDLE_PARALLEL_ALL="1")
    second = train(tmp_path, config, 2, "b", PADDLE_PARALLEL_ALL="1")
    serial = train(tmp_path, config, 1, "c")
    default = train(tmp_path, config, 2, "d")
    assert first.keys() == serial.keys() and len(first) >= 4
    for k in first:
        np.testing.assert_array_equal(first[k], second[k], err_msg=k)
        np.testing.assert_allclose(first[k], serial[k], rtol=2e-4, atol=2e-5, err_msg=k)
        np.testing.assert_allclose(default[k], serial[k], rtol=2e-4, atol=2e-5, err_msg=k)


# A small LeNet: its convolutions do ~4500 MACs per dense parameter per batch, so at 2 threads
# the engine trains it as 2 replicas of 32 samples when trainer_count is left to it (0).
CONVNET = """
settings(batch_size=64, learning_rate=0.01, learning_method=MomentumOptimizer(0.9))
img = data_layer(name='pixel', size=3 * 16 * 16, height=16, width=16)
c1 = simple_img_conv_pool(input=img, filter_size=5, num_filters=32, num_channel=3, pool_size=2, pool_stride=2,
                          act=ReluActivation(), conv_padding=2, pool_type=MaxPooling())
c2 = simple_img_conv_pool(input=c1, filter_size=3, num_filters=32, pool_size=2, pool_stride=2,
                          act=ReluActivation(), conv_padding=1, pool_type=MaxPooling())
out = fc_layer(input=c2, size=10, act=SoftmaxActivation()%s)
outputs(classification_cost(input=out, label=data_layer(name='label', size=10)))
"""


@pytest.mark.parametrize("config,threads,count,want", [
    (CONVNET % "", 2, 0, 2),  # conv work dominates: a replica per thread
    (CONVNET % "", 1, 0, 1),
    (CONVNET % "", 2, 1, 1),  # an explicit trainer_count wins
    (CONVNET % "", 2, 3, 3),
    (CONVNET % ", layer_attr=ExtraAttr(drop_rate=0.5)", 2, 0, 1),  # each replica would draw its own masks
    ((CONVNET % "").replace("c2 = simple_img_conv_pool(", "c2 = img_conv_bn_pool("), 2, 0, 1),  # batch statistics
    (CONV, 2, 0, 1),  # the fc weight outweighs the convolution's work
    (LSTM, 2, 0, 1),
])
def test_automatic_replicas_follow_the_model(tmp_path, config, threads, count, want):
    assert run_config(tmp_path, config, threads, "-", count, {}) == want


def test_automatic_replicas_bitwise_repeatable_and_close_to_one_thread(tmp_path):
    first = train(tmp_path, CONVNET % "", 2, "a", count=0)
    second = train(tmp_path, CONVNET % "", 2, "b", count=0)
    replicas = train(tmp_path, CONVNET % "", 2, "c", count=2)
    serial = train(tmp_path, CONVNET % "", 1, "d", count=0)
    assert first.keys() == serial.keys() and len(first) >= 5
    for k in first:
        np.testing.assert_array_equal(first[k], second[k], err_msg=k)
        np.testing.assert_array_equal(first[k], replicas[k], err_msg=k)  # the choice is the replica path
        np.testing.assert_allclose(first[k], serial[k], rtol=2e-4, atol=2e-5, err_msg=k)
